package userinteraction_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	ui "github.com/dsh-go/userinteraction"
)

func TestRequestValidate(t *testing.T) {
	many := make([]ui.Option, 40)
	for i := range many {
		many[i] = ui.Option{Label: fmt.Sprint("option ", i)}
	}
	manyDup := append(append([]ui.Option(nil), many...), ui.Option{Label: "option 7"})
	tests := []struct {
		name string
		req  ui.Request
		want string // "" for valid, else a fragment of the message
	}{
		{"minimal", ui.Request{Question: "q"}, ""},
		{"full", ui.Request{Question: "q", Header: "h", Options: []ui.Option{{Label: "a", Value: "1", Description: "d", Recommended: true}, {Label: "b"}}, DisallowCustom: true, Agent: &ui.Agent{ID: "1", Name: "n"}}, ""},
		{"shared value", ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Value: "v"}, {Label: "b", Value: "v"}}}, ""},
		{"DisallowCustom without options", ui.Request{Question: "q", DisallowCustom: true}, ""},
		{"many options", ui.Request{Question: "q", Options: many}, ""},
		{"empty question", ui.Request{}, "question is empty"},
		{"blank question", ui.Request{Question: " \t\n"}, "question is empty"},
		{"invalid UTF-8 question", ui.Request{Question: "q\xff"}, "question is not valid UTF-8"},
		{"invalid UTF-8 header", ui.Request{Question: "q", Header: "\xc3"}, "header is not valid UTF-8"},
		{"invalid UTF-8 agent", ui.Request{Question: "q", Agent: &ui.Agent{Name: "\xff"}}, "agent is not valid UTF-8"},
		{"empty label", ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}, {Value: "v"}}}, "options[1] has an empty label"},
		{"blank label", ui.Request{Question: "q", Options: []ui.Option{{Label: "\u00a0 "}}}, "options[0] has an empty label"},
		{"blank value", ui.Request{Question: "q", Options: []ui.Option{{Label: "Go"}, {Label: "Skip", Value: " "}}}, "options[1] has a value of only white space"},
		{"invalid UTF-8 label", ui.Request{Question: "q", Options: []ui.Option{{Label: "a\xff"}}}, "options[0].label is not valid UTF-8"},
		{"invalid UTF-8 value", ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Value: "\xff"}}}, "options[0].value is not valid UTF-8"},
		{"invalid UTF-8 description", ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Description: "\xff"}}}, "options[0].description is not valid UTF-8"},
		{"duplicate labels", ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}, {Label: "b"}, {Label: "a", Value: "other"}}}, `options[0] and options[2] have the same label "a"`},
		{"duplicate labels in a long list", ui.Request{Question: "q", Options: manyDup}, `options[7] and options[40] have the same label "option 7"`},
		{"two recommended", ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Recommended: true}, {Label: "b"}, {Label: "c", Recommended: true}}}, "options[0] and options[2] are both recommended: set MultiSelect"},
		{"MultiSelect with two recommended", ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Recommended: true}, {Label: "b"}, {Label: "c", Recommended: true}}, MultiSelect: true}, ""},
		{"MultiSelect without options", ui.Request{Question: "q", MultiSelect: true, DisallowCustom: true}, ""},
		// What the human sees is what they pick.
		{"escape in a label", ui.Request{Question: "q", Options: []ui.Option{{Label: "Delete it\r  1. Keep it (safe)\x1b[K"}, {Label: "Keep it (safe)"}}}, "options[0].label holds U+000D"},
		{"ESC in the question", ui.Request{Question: "q\x1b[2J\x1b[H"}, "question holds U+001B"},
		{"title sequence in the header", ui.Request{Question: "q", Header: "\x1b]0;pwned\x07"}, "header holds U+001B"},
		{"C1 control in a description", ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Description: "x\u009bK"}}}, "options[0].description holds U+009B"},
		{"DEL in a label", ui.Request{Question: "q", Options: []ui.Option{{Label: "a\x7f"}}}, "options[0].label holds U+007F"},
		{"carriage return in the question", ui.Request{Question: "Delete?\rKeep?"}, "question holds U+000D"},
		{"line feed in a label", ui.Request{Question: "q", Options: []ui.Option{{Label: "a\nb"}}}, "options[0].label holds U+000A"},
		{"tab in the header", ui.Request{Question: "q", Header: "a\tb"}, "header holds U+0009"},
		{"bidi override in a label", ui.Request{Question: "q", Options: []ui.Option{{Label: "Keep \u202eteleD"}}}, "options[0].label holds U+202E"},
		{"bidi isolate in the header", ui.Request{Question: "q", Header: "\u2066h\u2069"}, "header holds U+2066"},
		{"line feed, tab and bidi in prose", ui.Request{Question: "Line one\n\tline two \u202bשלום\u202c?", Options: []ui.Option{{Label: "a", Description: "one\n\ttwo \u2067x\u2069"}}}, ""},
		{"controls in values and the agent", ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Value: "\x1b\r"}}, Agent: &ui.Agent{ID: "\x00", Name: "\u202e"}}, ""},
		{"emoji and joiners", ui.Request{Question: "q", Header: "👩\u200d💻", Options: []ui.Option{{Label: "👨\u200d👩\u200d👧"}, {Label: "क्\u200dष"}, {Label: "✔\ufe0f"}}}, ""},
		{"label of only zero-width characters", ui.Request{Question: "q", Options: []ui.Option{{Label: "\u200b\ufeff \u00ad"}}}, "options[0] has an empty label"},
		{"same label but for white space", ui.Request{Question: "q", Options: []ui.Option{{Label: " Yes", Value: "padded"}, {Label: "Yes", Value: "exact"}}}, `options[0] and options[1] have the same label "Yes"`},
		{"same label but for case", ui.Request{Question: "q", Options: []ui.Option{{Label: "yes"}, {Label: "Yes"}}}, `options[0] and options[1] have the same label "Yes"`},
		{"same label but for a zero-width space", ui.Request{Question: "q", Options: []ui.Option{{Label: "Yes"}, {Label: "Ye\u200bs"}}}, "options[0] and options[1] have the same label"},
		{"same label but for a variation selector", ui.Request{Question: "q", Options: []ui.Option{{Label: "✔"}, {Label: "✔\ufe0f"}}}, "options[0] and options[1] have the same label"},
		{"same label but for the kind and length of inner white space", ui.Request{Question: "q", Options: []ui.Option{{Label: "Keep all"}, {Label: "Keep\u00a0\u2002all"}}}, "options[0] and options[1] have the same label"},
		{"dotted capital I is not I", ui.Request{Question: "q", Options: []ui.Option{{Label: "İstanbul"}, {Label: "Istanbul"}}}, ""},
		{"same label but for final sigma", ui.Request{Question: "q", Options: []ui.Option{{Label: "ΟΔΟΣ"}, {Label: "οδος"}}}, "options[0] and options[1] have the same label"},
		{"same label but for the Kelvin sign", ui.Request{Question: "q", Options: []ui.Option{{Label: "\u212a"}, {Label: "k"}}}, "options[0] and options[1] have the same label"},
		{"same label but for case in a long list", ui.Request{Question: "q", Options: append(append([]ui.Option(nil), many...), ui.Option{Label: "OPTION 7\u200d "})}, "options[7] and options[40] have the same label"},
		{"MultiSelect with duplicate labels", ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}, {Label: "a"}}, MultiSelect: true}, `options[0] and options[1] have the same label "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			wantCode(t, "Validate()", err, ui.CodeInvalidRequest)
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate() = %q, want a message containing %q", err, tt.want)
			}
		})
	}
}

func TestRequestCustomAllowed(t *testing.T) {
	opts := []ui.Option{{Label: "a"}}
	tests := []struct {
		req  ui.Request
		want bool
	}{
		{ui.Request{Question: "q"}, true},
		{ui.Request{Question: "q", DisallowCustom: true}, true},
		{ui.Request{Question: "q", Options: opts}, true},
		{ui.Request{Question: "q", Options: opts, DisallowCustom: true}, false},
	}
	for _, tt := range tests {
		if got := tt.req.CustomAllowed(); got != tt.want {
			t.Errorf("%+v.CustomAllowed() = %v, want %v", tt.req, got, tt.want)
		}
	}
}

func TestRequestJSON(t *testing.T) {
	tests := []struct {
		name string
		req  ui.Request
		wire string
	}{
		{"minimal", ui.Request{Question: "q"}, `{"question":"q"}`},
		{"empty", ui.Request{}, `{"question":""}`},
		{"header", ui.Request{Question: "q", Header: "h"}, `{"question":"q","header":"h"}`},
		{"options, custom allowed", ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}, {Label: "b", Value: "2", Description: "d", Recommended: true}}},
			`{"question":"q","options":[{"label":"a"},{"label":"b","value":"2","description":"d","recommended":true}]}`},
		{"custom disallowed", ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}}, DisallowCustom: true},
			`{"question":"q","options":[{"label":"a"}],"allowCustom":false}`},
		{"agent", ui.Request{Question: "q", Agent: &ui.Agent{ID: "1", Name: "n"}}, `{"question":"q","agent":{"id":"1","name":"n"}}`},
		{"multi-select", ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Recommended: true}, {Label: "b", Recommended: true}}, MultiSelect: true},
			`{"question":"q","options":[{"label":"a","recommended":true},{"label":"b","recommended":true}],"multiSelect":true}`},
		{"everything", ui.Request{Question: "q", Header: "h", Options: []ui.Option{{Label: "a"}}, DisallowCustom: true, MultiSelect: true, Agent: &ui.Agent{Name: "n"}},
			`{"question":"q","header":"h","options":[{"label":"a"}],"allowCustom":false,"multiSelect":true,"agent":{"name":"n"}}`},
		{"empty agent", ui.Request{Question: "q", Agent: &ui.Agent{}}, `{"question":"q","agent":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range []any{tt.req, &tt.req} {
				b, err := json.Marshal(v)
				if err != nil || string(b) != tt.wire {
					t.Fatalf("json.Marshal(%T) = %s, %v, want %s", v, b, err, tt.wire)
				}
			}
			got := ui.Request{Question: "stale", DisallowCustom: true}
			if err := json.Unmarshal([]byte(tt.wire), &got); err != nil || !reflect.DeepEqual(got, tt.req) {
				t.Fatalf("json.Unmarshal(%s) = %+v, %v, want %+v", tt.wire, got, err, tt.req)
			}
		})
	}
}

func TestRequestUnmarshalTypeScriptShapes(t *testing.T) {
	tests := []struct {
		wire string
		want ui.Request
	}{
		{`{"question":"q","allowCustom":true}`, ui.Request{Question: "q"}},
		{`{"question":"q","allowCustom":null}`, ui.Request{Question: "q"}},
		{`{"question":"q","allowCustom":false}`, ui.Request{Question: "q", DisallowCustom: true}},
		{`{"question":"q","options":[]}`, ui.Request{Question: "q"}},
		{`{"question":"q","signal":{},"extra":1}`, ui.Request{Question: "q"}},
		{`{"question":"q","agent":null,"header":""}`, ui.Request{Question: "q"}},
		{`{"question":"q","multiSelect":false}`, ui.Request{Question: "q"}},
		{`{"question":"q","multiSelect":null}`, ui.Request{Question: "q"}},
	}
	for _, tt := range tests {
		var got ui.Request
		if err := json.Unmarshal([]byte(tt.wire), &got); err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("json.Unmarshal(%s) = %+v, %v, want %+v", tt.wire, got, err, tt.want)
		}
	}
	kept := ui.Request{Question: "kept", DisallowCustom: true}
	if err := json.Unmarshal([]byte(`null`), &kept); err != nil || kept.Question != "kept" || !kept.DisallowCustom {
		t.Errorf("json.Unmarshal(null) = %+v, %v, want the request unchanged", kept, err)
	}
	for _, bad := range []string{`[]`, `{"question":1}`, `{"allowCustom":"no"}`, `{"options":{}}`, `{`} {
		var got ui.Request
		err := json.Unmarshal([]byte(bad), &got)
		if err == nil {
			t.Errorf("json.Unmarshal(%s) error = nil, want an error", bad)
		} else if strings.Contains(err.Error(), "wire") {
			t.Errorf("json.Unmarshal(%s) error = %q, want it to name Request, not the internal type", bad, err)
		}
	}
	var got ui.Request
	if err := json.Unmarshal([]byte(`{"question":1}`), &got); err == nil || !strings.Contains(err.Error(), "Request.question") {
		t.Errorf("json.Unmarshal error = %v, want it to name Request.question", err)
	}

	// A TypeScript surface that does not know multiSelect still decodes the
	// request, as a single-select question.
	var older struct {
		Question    string      `json:"question"`
		Options     []ui.Option `json:"options"`
		AllowCustom *bool       `json:"allowCustom"`
	}
	wire := marshal(t, ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}, {Label: "b"}}, MultiSelect: true})
	if err := json.Unmarshal(wire, &older); err != nil || older.Question != "q" || len(older.Options) != 2 {
		t.Errorf("json.Unmarshal(%s) into an older shape = %+v, %v, want the question and its options", wire, older, err)
	}
}

func TestOptionAnswer(t *testing.T) {
	o := ui.Option{Label: "Yes", Description: "d", Recommended: true}
	a := o.Answer()
	if a.Text != "Yes" || a.Option == nil || *a.Option != o {
		t.Fatalf("Answer() = %s, want {Yes %+v}", show(a), o)
	}
	a.Option.Label = "changed"
	if o.Label != "Yes" {
		t.Fatal("Answer().Option aliases the option, want a copy")
	}
	if got := (ui.Option{Label: "Yes", Value: "y"}).Answer().Text; got != "y" {
		t.Fatalf("Answer().Text = %q, want the value y", got)
	}
}

func TestPick(t *testing.T) {
	offered := []ui.Option{{Label: "a"}, {Label: "b", Value: "B"}}
	got := ui.Pick(offered...)
	if got.Text != "" || got.Option != nil || !reflect.DeepEqual(got.Options, offered) {
		t.Fatalf("Pick() = %s, want Options %+v and nothing else", show(got), offered)
	}
	got.Options[0].Label = "changed"
	if offered[0].Label != "a" {
		t.Fatal("Pick() aliases its arguments, want copies")
	}
	if got := ui.Pick(); got.Options != nil {
		t.Fatalf("Pick() = %s, want an empty answer", show(got))
	}
}

func TestAnswerJSON(t *testing.T) {
	tests := []struct {
		ans  ui.Answer
		wire string
	}{
		{ui.Answer{Text: "free"}, `{"answer":"free"}`},
		{ui.Option{Label: "Yes", Value: "y"}.Answer(), `{"answer":"y","option":{"label":"Yes","value":"y"}}`},
		{ui.Answer{}, `{"answer":""}`},
		{ui.Answer{Text: "A, b", Options: []ui.Option{{Label: "a", Value: "A"}, {Label: "b"}}}, `{"answer":"A, b","options":[{"label":"a","value":"A"},{"label":"b"}]}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.ans)
		if err != nil || string(b) != tt.wire {
			t.Errorf("json.Marshal(%s) = %s, %v, want %s", show(tt.ans), b, err, tt.wire)
		}
		var got ui.Answer
		if err := json.Unmarshal([]byte(tt.wire), &got); err != nil || !reflect.DeepEqual(got, tt.ans) {
			t.Errorf("json.Unmarshal(%s) = %s, %v, want %s", tt.wire, show(got), err, show(tt.ans))
		}
	}
	// Decoding replaces every field; an empty "options" array decodes as nil;
	// null leaves the answer unchanged; errors name Answer.
	got := ui.Answer{Text: "stale", Option: &ui.Option{Label: "stale"}}
	if err := json.Unmarshal([]byte(`{"answer":"x","options":[]}`), &got); err != nil || !reflect.DeepEqual(got, ui.Answer{Text: "x"}) {
		t.Errorf("json.Unmarshal = %s, %v, want {x} alone", show(got), err)
	}
	if err := json.Unmarshal([]byte(`null`), &got); err != nil || got.Text != "x" {
		t.Errorf("json.Unmarshal(null) = %s, %v, want the answer unchanged", show(got), err)
	}
	for _, bad := range []string{`{"answer":1}`, `[]`, `{"options":{}}`} {
		if err := json.Unmarshal([]byte(bad), &got); err == nil || !strings.Contains(err.Error(), "Answer") || strings.Contains(err.Error(), "wire") {
			t.Errorf("json.Unmarshal(%s) error = %v, want an error that names Answer", bad, err)
		}
	}
}

// wantResolved fails the test unless Ask, for a provider that answers
// given, returns the error code or else want, pointing into none of
// req.Options, and unchanged when a provider gives it back.
func wantResolved(t *testing.T, req ui.Request, given, want ui.Answer, code string) {
	t.Helper()
	got, err := askAnswer(t, req, given)
	if code != "" {
		wantCode(t, "Ask()", err, code)
		return
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Ask() = %s, %v, want %s", show(got), err, show(want))
	}
	if again, err := askAnswer(t, req, got); err != nil || !reflect.DeepEqual(again, got) {
		t.Fatalf("Ask() of its own result = %s, %v, want it unchanged", show(again), err)
	}
	for i := range req.Options {
		aliased := got.Option == &req.Options[i]
		for k := range got.Options {
			aliased = aliased || &got.Options[k] == &req.Options[i]
		}
		if aliased {
			t.Fatal("Ask() answer points into the request's options, want copies")
		}
	}
}

func TestAskResolvesAnswer(t *testing.T) {
	yes := ui.Option{Label: "Yes", Value: "y", Description: "go ahead"}
	no := ui.Option{Label: "No", Recommended: true}
	maybe := ui.Option{Label: "Maybe", Value: "y"} // shares yes's value
	opts := []ui.Option{yes, no, maybe}
	ptr := func(o ui.Option) *ui.Option { return &o }
	tests := []struct {
		name   string
		req    ui.Request
		answer ui.Answer
		want   ui.Answer
		code   string
	}{
		{"free text", ui.Request{Question: "q"}, ui.Answer{Text: "anything"}, ui.Answer{Text: "anything"}, ""},
		{"option fills text with value", ui.Request{Question: "q", Options: opts}, ui.Answer{Option: ptr(yes)}, ui.Answer{Text: "y", Option: ptr(yes)}, ""},
		{"option fills text with label", ui.Request{Question: "q", Options: opts}, ui.Answer{Option: ptr(no)}, ui.Answer{Text: "No", Option: ptr(no)}, ""},
		{"Option.Answer", ui.Request{Question: "q", Options: opts, DisallowCustom: true}, no.Answer(), ui.Answer{Text: "No", Option: ptr(no)}, ""},
		{"text fills option by value", ui.Request{Question: "q", Options: opts}, ui.Answer{Text: "y"}, ui.Answer{Text: "y", Option: ptr(yes)}, ""},
		{"text fills option by label", ui.Request{Question: "q", Options: opts}, ui.Answer{Text: "No"}, ui.Answer{Text: "No", Option: ptr(no)}, ""},
		{"label of option with value is custom", ui.Request{Question: "q", Options: opts}, ui.Answer{Text: "Yes"}, ui.Answer{Text: "Yes"}, ""},
		{"custom text allowed", ui.Request{Question: "q", Options: opts}, ui.Answer{Text: "later"}, ui.Answer{Text: "later"}, ""},
		{"option is made canonical", ui.Request{Question: "q", Options: opts}, ui.Answer{Option: &ui.Option{Label: "Yes", Value: "forged"}}, ui.Answer{Text: "y", Option: ptr(yes)}, ""},
		{"option with its own text", ui.Request{Question: "q", Options: opts}, ui.Answer{Text: "y, but only today", Option: ptr(yes)}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"text of another option", ui.Request{Question: "q", Options: opts, DisallowCustom: true}, ui.Answer{Text: "No", Option: ptr(yes)}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"option with its own text, value shared", ui.Request{Question: "q", Options: opts}, ui.Answer{Text: "y", Option: ptr(maybe)}, ui.Answer{Text: "y", Option: ptr(maybe)}, ""},
		{"text of option's label when it has a value", ui.Request{Question: "q", Options: opts}, ui.Answer{Text: "Yes", Option: ptr(yes)}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"disallowed custom text", ui.Request{Question: "q", Options: opts, DisallowCustom: true}, ui.Answer{Text: "later"}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"disallowed label of option with value", ui.Request{Question: "q", Options: opts, DisallowCustom: true}, ui.Answer{Text: "Yes"}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"disallowed option with its own text", ui.Request{Question: "q", Options: opts, DisallowCustom: true}, ui.Answer{Text: "y?", Option: ptr(yes)}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"disallowed text matches option", ui.Request{Question: "q", Options: opts, DisallowCustom: true}, ui.Answer{Text: "No"}, ui.Answer{Text: "No", Option: ptr(no)}, ""},
		{"DisallowCustom without options is free-form", ui.Request{Question: "q", DisallowCustom: true}, ui.Answer{Text: "free"}, ui.Answer{Text: "free"}, ""},
		{"empty answer", ui.Request{Question: "q"}, ui.Answer{}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"blank answer", ui.Request{Question: "q", Options: opts}, ui.Answer{Text: " \t\n"}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"option not offered", ui.Request{Question: "q", Options: opts}, ui.Answer{Option: &ui.Option{Label: "Never"}}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"option on free-form request", ui.Request{Question: "q"}, ui.Answer{Text: "x", Option: &ui.Option{Label: "x"}}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"one of Options is read as Option", ui.Request{Question: "q", Options: opts, DisallowCustom: true}, ui.Pick(no), ui.Answer{Text: "No", Option: ptr(no)}, ""},
		{"Options and Option agree", ui.Request{Question: "q", Options: opts}, ui.Answer{Option: ptr(yes), Options: []ui.Option{yes}}, ui.Answer{Text: "y", Option: ptr(yes)}, ""},
		{"Options and Option disagree", ui.Request{Question: "q", Options: opts}, ui.Answer{Option: ptr(yes), Options: []ui.Option{no}}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"two Options on single-select", ui.Request{Question: "q", Options: opts}, ui.Pick(yes, no), ui.Answer{}, ui.CodeInvalidAnswer},
		{"Options not offered", ui.Request{Question: "q", Options: opts}, ui.Pick(ui.Option{Label: "Never"}), ui.Answer{}, ui.CodeInvalidAnswer},
		{"MultiSelect without options is free-form", ui.Request{Question: "q", MultiSelect: true}, ui.Answer{Text: "free"}, ui.Answer{Text: "free"}, ""},
		{"MultiSelect without options takes no picks", ui.Request{Question: "q", MultiSelect: true}, ui.Pick(ui.Option{Label: "x"}), ui.Answer{}, ui.CodeInvalidAnswer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantResolved(t, tt.req, tt.answer, tt.want, tt.code) })
	}
}

func TestAskResolvesMultiSelect(t *testing.T) {
	a := ui.Option{Label: "a", Value: "A"}
	b := ui.Option{Label: "b"}
	c := ui.Option{Label: "c", Value: "C", Recommended: true}
	d := ui.Option{Label: "d", Value: "A"} // shares a's value
	req := ui.Request{Question: "Which?", Options: []ui.Option{a, b, c, d}, MultiSelect: true}
	strict := req
	strict.DisallowCustom = true
	ptr := func(o ui.Option) *ui.Option { return &o }
	opts := func(o ...ui.Option) []ui.Option { return o }
	tests := []struct {
		name   string
		req    ui.Request
		answer ui.Answer
		want   ui.Answer // zero when code is set
		code   string
	}{
		{"picks in offered order", strict, ui.Pick(c, a), ui.Answer{Text: "A, C", Options: opts(a, c)}, ""},
		{"one pick", strict, ui.Pick(b), ui.Answer{Text: "b", Options: opts(b)}, ""},
		{"Option.Answer is one pick", strict, a.Answer(), ui.Answer{Text: "A", Options: opts(a)}, ""},
		{"Option counts as one pick", strict, ui.Answer{Option: ptr(b), Options: opts(d, a)}, ui.Answer{Text: "A, b, A", Options: opts(a, b, d)}, ""},
		{"text equal to the join is kept", strict, ui.Answer{Text: "A, C", Options: opts(c, a)}, ui.Answer{Text: "A, C", Options: opts(a, c)}, ""},
		{"blank text with picks", strict, ui.Answer{Text: " \t", Options: opts(b)}, ui.Answer{Text: "b", Options: opts(b)}, ""},
		{"own words appended", req, ui.Answer{Text: "and the logs", Options: opts(c, b)}, ui.Answer{Text: "b, C, and the logs", Options: opts(b, c)}, ""},
		{"own words disallowed", strict, ui.Answer{Text: "and the logs", Options: opts(b)}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"completed answer kept", req, ui.Answer{Text: "A, and C", Options: opts(a)}, ui.Answer{Text: "A, and C", Options: opts(a)}, ""},
		{"completed answer's own words disallowed", strict, ui.Answer{Text: "A, and C", Options: opts(a)}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"join and a blank rest", strict, ui.Answer{Text: "A, ", Options: opts(a)}, ui.Answer{Text: "A", Options: opts(a)}, ""},
		{"text of one pick with another pick", strict, ui.Answer{Text: "A", Option: ptr(a), Options: opts(b)}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"no picks, text picks an option", strict, ui.Answer{Text: "C"}, ui.Answer{Text: "C", Options: opts(c)}, ""},
		{"no picks, shared value picks the first", strict, ui.Answer{Text: "A"}, ui.Answer{Text: "A", Options: opts(a)}, ""},
		{"no picks, own words", req, ui.Answer{Text: "none of these"}, ui.Answer{Text: "none of these"}, ""},
		{"no picks, own words disallowed", strict, ui.Answer{Text: "none of these"}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"no picks, a join is not a pick", strict, ui.Answer{Text: "A, C"}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"picks are made canonical", strict, ui.Pick(ui.Option{Label: "c", Value: "forged"}), ui.Answer{Text: "C", Options: opts(c)}, ""},
		{"empty", req, ui.Answer{}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"blank", req, ui.Answer{Text: " "}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"Pick of nothing", req, ui.Pick(), ui.Answer{}, ui.CodeInvalidAnswer},
		{"label twice", req, ui.Pick(a, a), ui.Answer{}, ui.CodeInvalidAnswer},
		{"Option repeats a pick", req, ui.Answer{Option: ptr(a), Options: opts(a)}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"not offered", req, ui.Pick(a, ui.Option{Label: "z"}), ui.Answer{}, ui.CodeInvalidAnswer},
		{"Option not offered", req, ui.Answer{Option: &ui.Option{Label: "z"}}, ui.Answer{}, ui.CodeInvalidAnswer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantResolved(t, tt.req, tt.answer, tt.want, tt.code) })
	}
}

// TestAskAnswerNeverAliasesRequest checks that an answer whose Option points
// into the request's options comes back as a copy, so that a caller that keeps
// answers cannot change a request template it reuses, or the other way round.
func TestAskAnswerNeverAliasesRequest(t *testing.T) {
	req := ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}, {Label: "b", Value: "B"}}}
	ctx := scope(t, ui.ProviderFunc(func(_ context.Context, req ui.Request) (ui.Answer, error) {
		return ui.Answer{Option: &req.Options[1]}, nil // the same backing array as the caller's
	}))
	ans, err := ui.Ask(ctx, req)
	if err != nil || ans.Option == nil || *ans.Option != req.Options[1] {
		t.Fatalf("Ask() = %s, %v, want option b", show(ans), err)
	}
	if ans.Option == &req.Options[1] {
		t.Fatal("Ask() answer's Option points into req.Options, want a copy")
	}
}

// TestNullDecodesAsNothing: JSON null leaves a value as it was, with white
// space around it too, as json.Unmarshal does for other types, also when
// UnmarshalJSON is called directly.
func TestNullDecodesAsNothing(t *testing.T) {
	for _, null := range []string{"null", " null", "null\n", "\tnull "} {
		req := ui.Request{Question: "kept"}
		if err := req.UnmarshalJSON([]byte(null)); err != nil || req.Question != "kept" {
			t.Errorf("Request.UnmarshalJSON(%q) = %+v, %v, want the request unchanged", null, req, err)
		}
		ans := ui.Answer{Text: "kept"}
		if err := ans.UnmarshalJSON([]byte(null)); err != nil || ans.Text != "kept" {
			t.Errorf("Answer.UnmarshalJSON(%q) = %s, %v, want the answer unchanged", null, show(ans), err)
		}
	}
}

// TestDefaultIgnorableLabels checks, for every code point c, that "a"+c+"b"
// is the same label as "ab" exactly when c is default-ignorable, as Unicode
// derives that property (defaultIgnorable in fuzz_test.go), unless c may not
// be in a label at all.
func TestDefaultIgnorableLabels(t *testing.T) {
	for c := rune(0); c <= unicode.MaxRune; c++ {
		if !utf8.ValidRune(c) {
			continue
		}
		err := ui.Request{Question: "q", Options: []ui.Option{{Label: "ab"}, {Label: "a" + string(c) + "b"}}}.Validate()
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		switch {
		case !shows(string(c), false):
			if !strings.Contains(msg, fmt.Sprintf("holds %U", c)) {
				t.Errorf("label with %U: Validate() = %v, want it refused", c, err)
			}
		case defaultIgnorable(c) != strings.Contains(msg, "have the same label"):
			t.Errorf("label with %U: Validate() = %v, want the same label: %v", c, err, defaultIgnorable(c))
		}
	}
}
