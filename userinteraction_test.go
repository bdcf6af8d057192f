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
		{name: "minimal", req: ui.Request{Question: "q"}},
		{
			name: "full",
			req: ui.Request{
				Question:       "q",
				Header:         "h",
				Options:        []ui.Option{{Label: "a", Value: "1", Description: "d", Recommended: true}, {Label: "b"}},
				DisallowCustom: true,
				Agent:          &ui.Agent{ID: "1", Name: "n"},
			},
		},
		{
			name: "shared value",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Value: "v"}, {Label: "b", Value: "v"}}},
		},
		{name: "DisallowCustom without options", req: ui.Request{Question: "q", DisallowCustom: true}},
		{name: "many options", req: ui.Request{Question: "q", Options: many}},
		{name: "empty question", req: ui.Request{}, want: "question is empty"},
		{name: "blank question", req: ui.Request{Question: " \t\n"}, want: "question is empty"},
		{name: "invalid UTF-8 question", req: ui.Request{Question: "q\xff"}, want: "question is not valid UTF-8"},
		{name: "invalid UTF-8 header", req: ui.Request{Question: "q", Header: "\xc3"}, want: "header is not valid UTF-8"},
		{
			name: "invalid UTF-8 agent",
			req:  ui.Request{Question: "q", Agent: &ui.Agent{Name: "\xff"}},
			want: "agent.name is not valid UTF-8",
		},
		{
			name: "empty label",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}, {Value: "v"}}},
			want: "options[1] has an empty label",
		},
		{
			name: "blank label",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "\u00a0 "}}},
			want: "options[0] has an empty label",
		},
		{
			name: "blank value",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "Go"}, {Label: "Skip", Value: " "}}},
			want: "options[1] has a value of only white space",
		},
		{
			name: "invalid UTF-8 label",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "a\xff"}}},
			want: "options[0].label is not valid UTF-8",
		},
		{
			name: "invalid UTF-8 value",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Value: "\xff"}}},
			want: "options[0].value is not valid UTF-8",
		},
		{
			name: "invalid UTF-8 description",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Description: "\xff"}}},
			want: "options[0].description is not valid UTF-8",
		},
		{
			name: "duplicate labels",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}, {Label: "b"}, {Label: "a", Value: "other"}}},
			want: `options[0] and options[2] have the same label "a"`,
		},
		{
			name: "duplicate labels in a long list",
			req:  ui.Request{Question: "q", Options: manyDup},
			want: `options[7] and options[40] have the same label "option 7"`,
		},
		{
			name: "two recommended",
			req: ui.Request{
				Question: "q",
				Options:  []ui.Option{{Label: "a", Recommended: true}, {Label: "b"}, {Label: "c", Recommended: true}},
			},
			want: "options[0] and options[2] are both recommended: set MultiSelect",
		},
		{
			name: "MultiSelect with two recommended",
			req: ui.Request{
				Question:    "q",
				Options:     []ui.Option{{Label: "a", Recommended: true}, {Label: "b"}, {Label: "c", Recommended: true}},
				MultiSelect: true,
			},
		},
		{name: "MultiSelect without options", req: ui.Request{Question: "q", MultiSelect: true, DisallowCustom: true}},
		// What the human sees is what they pick.
		{
			name: "escape in a label",
			req: ui.Request{
				Question: "q",
				Options:  []ui.Option{{Label: "Delete it\r  1. Keep it (safe)\x1b[K"}, {Label: "Keep it (safe)"}},
			},
			want: "options[0].label holds U+000D",
		},
		{name: "ESC in the question", req: ui.Request{Question: "q\x1b[2J\x1b[H"}, want: "question holds U+001B"},
		// A text with several problems is refused for the first.
		{name: "ESC before invalid UTF-8", req: ui.Request{Question: "Delete?\x1b[2J \xff"}, want: "question holds U+001B"},
		{name: "ESC after é, before invalid UTF-8", req: ui.Request{Question: "é\x1b\xff"}, want: "question holds U+001B"},
		{name: "invalid UTF-8 before ESC", req: ui.Request{Question: "é\xff\x1b"}, want: "question is not valid UTF-8"},
		{name: "tab in the header, then invalid UTF-8", req: ui.Request{Question: "q", Header: "a\tb\xc3"}, want: "header holds U+0009"},
		{
			name: "title sequence in the header",
			req:  ui.Request{Question: "q", Header: "\x1b]0;pwned\x07"},
			want: "header holds U+001B",
		},
		{
			name: "C1 control in a description",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Description: "x\u009bK"}}},
			want: "options[0].description holds U+009B",
		},
		{
			name: "DEL in a label",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "a\x7f"}}},
			want: "options[0].label holds U+007F",
		},
		{name: "carriage return in the question", req: ui.Request{Question: "Delete?\rKeep?"}, want: "question holds U+000D"},
		{
			name: "line feed in a label",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "a\nb"}}},
			want: "options[0].label holds U+000A",
		},
		{name: "tab in the header", req: ui.Request{Question: "q", Header: "a\tb"}, want: "header holds U+0009"},
		{
			name: "bidi override in a label",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "Keep \u202eteleD"}}},
			want: "options[0].label holds U+202E",
		},
		{
			name: "bidi isolate in the header",
			req:  ui.Request{Question: "q", Header: "\u2066h\u2069"},
			want: "header holds U+2066",
		},
		{
			name: "line feed and tab in prose",
			req: ui.Request{
				Question: "Line one\n\tline two שלום?",
				Options:  []ui.Option{{Label: "a", Description: "one\n\ttwo x"}},
			},
		},
		{name: "bidi embedding in the question", req: ui.Request{Question: "two \u202bשלום\u202c?"}, want: "question holds U+202B"},
		{
			name: "bidi isolate in a description",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Description: "two \u2067x\u2069"}}},
			want: "options[0].description holds U+2067",
		},
		{
			name: "controls in values",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Value: "\x1b\r\u202e\u2028"}}},
		},
		{name: "NUL in the agent's ID", req: ui.Request{Question: "q", Agent: &ui.Agent{ID: "\x00"}}, want: "agent.id holds U+0000"},
		{name: "bidi override in the agent's name", req: ui.Request{Question: "q", Agent: &ui.Agent{Name: "\u202e"}}, want: "agent.name holds U+202E"},
		{
			name: "emoji and joiners",
			req: ui.Request{
				Question: "q",
				Header:   "👩\u200d💻",
				Options:  []ui.Option{{Label: "👨\u200d👩\u200d👧"}, {Label: "क्\u200dष"}, {Label: "✔\ufe0f"}},
			},
		},
		{
			name: "label of only zero-width characters",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "\u200b\ufeff \u00ad"}}},
			want: "options[0].label holds U+200B",
		},
		{
			name: "same label but for white space",
			req: ui.Request{
				Question: "q",
				Options:  []ui.Option{{Label: " Yes", Value: "padded"}, {Label: "Yes", Value: "exact"}},
			},
			want: `options[0] and options[1] have the same label "Yes"`,
		},
		{
			name: "same label but for case",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "yes"}, {Label: "Yes"}}},
			want: `options[0] and options[1] have the same label "Yes"`,
		},
		{
			name: "a zero-width space is refused outright",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "Yes"}, {Label: "Ye\u200bs"}}},
			want: "options[1].label holds U+200B",
		},
		{
			name: "same label but for a joiner",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "Yes"}, {Label: "Ye\u200ds"}}},
			want: `options[0] and options[1] have the same label "Ye\u200ds"`,
		},
		{
			name: "same label but for a variation selector",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "✔"}, {Label: "✔\ufe0f"}}},
			want: "options[0] and options[1] have the same label",
		},
		{
			name: "same label but for the kind and length of inner white space",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "Keep all"}, {Label: "Keep\u00a0\u2002all"}}},
			want: "options[0] and options[1] have the same label",
		},
		{
			name: "dotted capital I is not I",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "İstanbul"}, {Label: "Istanbul"}}},
		},
		{
			name: "same label but for final sigma",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "ΟΔΟΣ"}, {Label: "οδος"}}},
			want: "options[0] and options[1] have the same label",
		},
		{
			name: "the Kelvin sign is a letter in another dress",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "\u212a"}, {Label: "k"}}},
			want: "options[0].label holds U+212A, which draws as a letter or digit in another dress",
		},
		{
			name: "same label but for case in a long list",
			req: ui.Request{
				Question: "q",
				Options:  append(append([]ui.Option(nil), many...), ui.Option{Label: "OPTION\u2002 7 "}),
			},
			want: "options[7] and options[40] have the same label",
		},
		{
			name: "MultiSelect with duplicate labels",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}, {Label: "a"}}, MultiSelect: true},
			want: `options[0] and options[1] have the same label "a"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantValidate(t, tt.req, tt.want) })
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
		{name: "minimal", req: ui.Request{Question: "q"}, wire: `{"question":"q"}`},
		{name: "empty", req: ui.Request{}, wire: `{"question":""}`},
		{name: "header", req: ui.Request{Question: "q", Header: "h"}, wire: `{"question":"q","header":"h"}`},
		{
			name: "options, custom allowed",
			req: ui.Request{
				Question: "q",
				Options:  []ui.Option{{Label: "a"}, {Label: "b", Value: "2", Description: "d", Recommended: true}},
			},
			wire: `{"question":"q","options":[{"label":"a"},{"label":"b","value":"2","description":"d","recommended":true}]}`,
		},
		{
			name: "custom disallowed",
			req:  ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}}, DisallowCustom: true},
			wire: `{"question":"q","options":[{"label":"a"}],"allowCustom":false}`,
		},
		{
			name: "agent",
			req:  ui.Request{Question: "q", Agent: &ui.Agent{ID: "1", Name: "n"}},
			wire: `{"question":"q","agent":{"id":"1","name":"n"}}`,
		},
		{
			name: "multi-select",
			req: ui.Request{
				Question:    "q",
				Options:     []ui.Option{{Label: "a", Recommended: true}, {Label: "b", Recommended: true}},
				MultiSelect: true,
			},
			wire: `{"question":"q","options":[{"label":"a","recommended":true},{"label":"b","recommended":true}],` +
				`"multiSelect":true}`,
		},
		{
			name: "everything",
			req: ui.Request{
				Question:       "q",
				Header:         "h",
				Options:        []ui.Option{{Label: "a"}},
				DisallowCustom: true,
				MultiSelect:    true,
				Agent:          &ui.Agent{Name: "n"},
			},
			wire: `{"question":"q","header":"h","options":[{"label":"a"}],"allowCustom":false,` +
				`"multiSelect":true,"agent":{"name":"n"}}`,
		},
		{name: "empty agent", req: ui.Request{Question: "q", Agent: &ui.Agent{}}, wire: `{"question":"q","agent":{}}`},
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
	if err := json.Unmarshal([]byte(`{"question":1}`), &got); err == nil ||
		!strings.Contains(err.Error(), "Request.question") {
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
		{ans: ui.Answer{Text: "free"}, wire: `{"answer":"free"}`},
		{ans: ui.Option{Label: "Yes", Value: "y"}.Answer(), wire: `{"answer":"y","option":{"label":"Yes","value":"y"}}`},
		{ans: ui.Answer{}, wire: `{"answer":""}`},
		{
			ans:  ui.Answer{Text: "A, b", Options: []ui.Option{{Label: "a", Value: "A"}, {Label: "b"}}},
			wire: `{"answer":"A, b","options":[{"label":"a","value":"A"},{"label":"b"}]}`,
		},
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
	if err := json.Unmarshal([]byte(`{"answer":"x","options":[]}`), &got); err != nil ||
		!reflect.DeepEqual(got, ui.Answer{Text: "x"}) {
		t.Errorf("json.Unmarshal = %s, %v, want {x} alone", show(got), err)
	}
	if err := json.Unmarshal([]byte(`null`), &got); err != nil || got.Text != "x" {
		t.Errorf("json.Unmarshal(null) = %s, %v, want the answer unchanged", show(got), err)
	}
	for _, bad := range []string{`{"answer":1}`, `[]`, `{"options":{}}`} {
		err := json.Unmarshal([]byte(bad), &got)
		if err == nil || !strings.Contains(err.Error(), "Answer") || strings.Contains(err.Error(), "wire") {
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
	free := ui.Request{Question: "q"}
	offered := ui.Request{Question: "q", Options: opts}
	strict := offered
	strict.DisallowCustom = true
	ptr := func(o ui.Option) *ui.Option { return &o }
	tests := []struct {
		name   string
		req    ui.Request
		answer ui.Answer
		want   ui.Answer
		code   string
	}{
		{name: "free text", req: free, answer: ui.Answer{Text: "anything"}, want: ui.Answer{Text: "anything"}},
		{
			name:   "option fills text with value",
			req:    offered,
			answer: ui.Answer{Option: ptr(yes)},
			want:   ui.Answer{Text: "y", Option: ptr(yes)},
		},
		{
			name:   "option fills text with label",
			req:    offered,
			answer: ui.Answer{Option: ptr(no)},
			want:   ui.Answer{Text: "No", Option: ptr(no)},
		},
		{name: "Option.Answer", req: strict, answer: no.Answer(), want: ui.Answer{Text: "No", Option: ptr(no)}},
		{
			name:   "text fills option by value",
			req:    offered,
			answer: ui.Answer{Text: "y"},
			want:   ui.Answer{Text: "y", Option: ptr(yes)},
		},
		{
			name:   "text fills option by label",
			req:    offered,
			answer: ui.Answer{Text: "No"},
			want:   ui.Answer{Text: "No", Option: ptr(no)},
		},
		{
			name:   "label of option with value is custom",
			req:    offered,
			answer: ui.Answer{Text: "Yes"},
			want:   ui.Answer{Text: "Yes"},
		},
		{name: "custom text allowed", req: offered, answer: ui.Answer{Text: "later"}, want: ui.Answer{Text: "later"}},
		{
			name:   "option is made canonical",
			req:    offered,
			answer: ui.Answer{Option: &ui.Option{Label: "Yes", Value: "forged"}},
			want:   ui.Answer{Text: "y", Option: ptr(yes)},
		},
		{
			name:   "option with its own text",
			req:    offered,
			answer: ui.Answer{Text: "y, but only today", Option: ptr(yes)},
			code:   ui.CodeInvalidAnswer,
		},
		{
			name:   "text of another option",
			req:    strict,
			answer: ui.Answer{Text: "No", Option: ptr(yes)},
			code:   ui.CodeInvalidAnswer,
		},
		{
			name:   "option with its own text, value shared",
			req:    offered,
			answer: ui.Answer{Text: "y", Option: ptr(maybe)},
			want:   ui.Answer{Text: "y", Option: ptr(maybe)},
		},
		{
			name:   "text of option's label when it has a value",
			req:    offered,
			answer: ui.Answer{Text: "Yes", Option: ptr(yes)},
			code:   ui.CodeInvalidAnswer,
		},
		{name: "disallowed custom text", req: strict, answer: ui.Answer{Text: "later"}, code: ui.CodeInvalidAnswer},
		{
			name:   "disallowed label of option with value",
			req:    strict,
			answer: ui.Answer{Text: "Yes"},
			code:   ui.CodeInvalidAnswer,
		},
		{
			name:   "disallowed option with its own text",
			req:    strict,
			answer: ui.Answer{Text: "y?", Option: ptr(yes)},
			code:   ui.CodeInvalidAnswer,
		},
		{
			name:   "disallowed text matches option",
			req:    strict,
			answer: ui.Answer{Text: "No"},
			want:   ui.Answer{Text: "No", Option: ptr(no)},
		},
		{
			name:   "DisallowCustom without options is free-form",
			req:    ui.Request{Question: "q", DisallowCustom: true},
			answer: ui.Answer{Text: "free"},
			want:   ui.Answer{Text: "free"},
		},
		{name: "empty answer", req: free, answer: ui.Answer{}, code: ui.CodeInvalidAnswer},
		{name: "blank answer", req: offered, answer: ui.Answer{Text: " \t\n"}, code: ui.CodeInvalidAnswer},
		{
			name:   "option not offered",
			req:    offered,
			answer: ui.Answer{Option: &ui.Option{Label: "Never"}},
			code:   ui.CodeInvalidAnswer,
		},
		{
			name:   "option on free-form request",
			req:    free,
			answer: ui.Answer{Text: "x", Option: &ui.Option{Label: "x"}},
			code:   ui.CodeInvalidAnswer,
		},
		{
			name:   "one of Options is read as Option",
			req:    strict,
			answer: ui.Pick(no),
			want:   ui.Answer{Text: "No", Option: ptr(no)},
		},
		{
			name:   "Options and Option agree",
			req:    offered,
			answer: ui.Answer{Option: ptr(yes), Options: []ui.Option{yes}},
			want:   ui.Answer{Text: "y", Option: ptr(yes)},
		},
		{
			name:   "Options and Option disagree",
			req:    offered,
			answer: ui.Answer{Option: ptr(yes), Options: []ui.Option{no}},
			code:   ui.CodeInvalidAnswer,
		},
		{name: "two Options on single-select", req: offered, answer: ui.Pick(yes, no), code: ui.CodeInvalidAnswer},
		{name: "Options not offered", req: offered, answer: ui.Pick(ui.Option{Label: "Never"}), code: ui.CodeInvalidAnswer},
		{
			name:   "MultiSelect without options is free-form",
			req:    ui.Request{Question: "q", MultiSelect: true},
			answer: ui.Answer{Text: "free"},
			want:   ui.Answer{Text: "free"},
		},
		{
			name:   "MultiSelect without options takes no picks",
			req:    ui.Request{Question: "q", MultiSelect: true},
			answer: ui.Pick(ui.Option{Label: "x"}),
			code:   ui.CodeInvalidAnswer,
		},
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
		{
			name:   "picks in offered order",
			req:    strict,
			answer: ui.Pick(c, a),
			want:   ui.Answer{Text: "A, C", Options: opts(a, c)},
		},
		{name: "one pick", req: strict, answer: ui.Pick(b), want: ui.Answer{Text: "b", Options: opts(b)}},
		{name: "Option.Answer is one pick", req: strict, answer: a.Answer(), want: ui.Answer{Text: "A", Options: opts(a)}},
		{
			name:   "Option counts as one pick",
			req:    strict,
			answer: ui.Answer{Option: ptr(b), Options: opts(d, a)},
			want:   ui.Answer{Text: "A, b, A", Options: opts(a, b, d)},
		},
		{
			name:   "text equal to the join is kept",
			req:    strict,
			answer: ui.Answer{Text: "A, C", Options: opts(c, a)},
			want:   ui.Answer{Text: "A, C", Options: opts(a, c)},
		},
		{
			name:   "blank text with picks",
			req:    strict,
			answer: ui.Answer{Text: " \t", Options: opts(b)},
			want:   ui.Answer{Text: "b", Options: opts(b)},
		},
		{
			name:   "own words appended",
			req:    req,
			answer: ui.Answer{Text: "and the logs", Options: opts(c, b)},
			want:   ui.Answer{Text: "b, C, and the logs", Options: opts(b, c)},
		},
		{
			name:   "own words disallowed",
			req:    strict,
			answer: ui.Answer{Text: "and the logs", Options: opts(b)},
			code:   ui.CodeInvalidAnswer,
		},
		{
			name:   "completed answer kept",
			req:    req,
			answer: ui.Answer{Text: "A, and C", Options: opts(a)},
			want:   ui.Answer{Text: "A, and C", Options: opts(a)},
		},
		{
			name:   "completed answer's own words disallowed",
			req:    strict,
			answer: ui.Answer{Text: "A, and C", Options: opts(a)},
			code:   ui.CodeInvalidAnswer,
		},
		{
			name:   "join and a blank rest",
			req:    strict,
			answer: ui.Answer{Text: "A, ", Options: opts(a)},
			want:   ui.Answer{Text: "A", Options: opts(a)},
		},
		{
			name:   "text of one pick with another pick",
			req:    strict,
			answer: ui.Answer{Text: "A", Option: ptr(a), Options: opts(b)},
			code:   ui.CodeInvalidAnswer,
		},
		{
			name:   "no picks, text picks an option",
			req:    strict,
			answer: ui.Answer{Text: "C"},
			want:   ui.Answer{Text: "C", Options: opts(c)},
		},
		{
			name:   "no picks, shared value picks the first",
			req:    strict,
			answer: ui.Answer{Text: "A"},
			want:   ui.Answer{Text: "A", Options: opts(a)},
		},
		{
			name:   "no picks, own words",
			req:    req,
			answer: ui.Answer{Text: "none of these"},
			want:   ui.Answer{Text: "none of these"},
		},
		{
			name:   "no picks, own words disallowed",
			req:    strict,
			answer: ui.Answer{Text: "none of these"},
			code:   ui.CodeInvalidAnswer,
		},
		{name: "no picks, a join is not a pick", req: strict, answer: ui.Answer{Text: "A, C"}, code: ui.CodeInvalidAnswer},
		{
			name:   "picks are made canonical",
			req:    strict,
			answer: ui.Pick(ui.Option{Label: "c", Value: "forged"}),
			want:   ui.Answer{Text: "C", Options: opts(c)},
		},
		{name: "empty", req: req, answer: ui.Answer{}, code: ui.CodeInvalidAnswer},
		{name: "blank", req: req, answer: ui.Answer{Text: " "}, code: ui.CodeInvalidAnswer},
		{name: "Pick of nothing", req: req, answer: ui.Pick(), code: ui.CodeInvalidAnswer},
		{name: "label twice", req: req, answer: ui.Pick(a, a), code: ui.CodeInvalidAnswer},
		{
			name:   "Option repeats a pick",
			req:    req,
			answer: ui.Answer{Option: ptr(a), Options: opts(a)},
			code:   ui.CodeInvalidAnswer,
		},
		{name: "not offered", req: req, answer: ui.Pick(a, ui.Option{Label: "z"}), code: ui.CodeInvalidAnswer},
		{name: "Option not offered", req: req, answer: ui.Answer{Option: &ui.Option{Label: "z"}}, code: ui.CodeInvalidAnswer},
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
// derives that property (defaultIgnorable in validate_spec_test.go), unless
// c may not be in a label at all (validByRules).
func TestDefaultIgnorableLabels(t *testing.T) {
	same := 0
	for c := rune(0); c <= unicode.MaxRune; c++ {
		if c == 0x40000 {
			// Planes 4 to 13 assign no code point, so each is refused as
			// plane 3's unassigned ones are. Skipping them halves the test.
			c = 0xE0000
		}
		if !utf8.ValidRune(c) {
			continue
		}
		label := "a" + string(c) + "b"
		err := ui.Request{Question: "q", Options: []ui.Option{{Label: "ab"}, {Label: label}}}.Validate()
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		switch alone := (ui.Request{Question: "q", Options: []ui.Option{{Label: label}}}); {
		case shownProblem(label, false) != "" || mixesScripts(label):
			if err == nil || strings.Contains(msg, "have the same label") || alone.Validate() == nil {
				t.Errorf("label with %U: Validate() = %v, want the label refused", c, err)
			}
		case defaultIgnorable(c) != strings.Contains(msg, "have the same label"):
			t.Errorf("label with %U: Validate() = %v, want the same label: %v", c, err, defaultIgnorable(c))
		case defaultIgnorable(c):
			same++
		}
	}
	// The joiners, U+034F and 256 variation selectors.
	if same < 259 {
		t.Errorf("%d default-ignorable code points make a label the same as \"ab\", want at least 259", same)
	}
}
