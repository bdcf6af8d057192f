package userinteraction_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	ui "github.com/dsh-go/userinteraction"
)

// Run one target longer with, for example:
//
//	go test -run '^$' -fuzz '^FuzzAskAnswer$' -fuzztime 10000000x .

// FuzzRequestJSON checks that decoding any input as a Request never panics, and
// that what decodes re-encodes to JSON that decodes to the same Request and
// encodes to the same bytes.
func FuzzRequestJSON(f *testing.F) {
	for _, seed := range []string{
		`{"question":"q"}`,
		`{"question":"Deploy?","header":"Deploy",` +
			`"options":[{"label":"Yes","value":"y","description":"now","recommended":true},{"label":"No"}],` +
			`"allowCustom":false,"agent":{"id":"a1","name":"coder"}}`,
		`{"question":"q","allowCustom":true,"options":[]}`,
		`{"question":"q","allowCustom":null,"agent":null,"signal":{}}`,
		`{"question":"\ud800","header":"\xff"}`,
		`{"QUESTION":"case","Options":[{"LABEL":"x"}]}`,
		`{"question":"q","options":[{"label":"a","recommended":true},{"label":"b","recommended":true}],"multiSelect":true}`,
		`[]`, `null`, `{"question":1}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(checkRoundTrip[ui.Request])
}

// FuzzAnswerJSON is FuzzRequestJSON for Answer.
func FuzzAnswerJSON(f *testing.F) {
	for _, seed := range []string{
		`{"answer":"free"}`,
		`{"answer":"y","option":{"label":"Yes","value":"y","description":"d","recommended":true}}`,
		`{"answer":"","option":null}`,
		`{"answer":"\u0000\ud83d","option":{}}`,
		`{"answer":"A, b","options":[{"label":"a","value":"A"},{"label":"b"}]}`,
		`{"answer":"x","options":[]}`, `{"options":null}`,
		`{"answer":5}`, `"x"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(checkRoundTrip[ui.Answer])
}

// checkRoundTrip decodes data as a T and, when that succeeds, checks that the
// value re-encodes to JSON that decodes to the same value and encodes to the
// same bytes.
func checkRoundTrip[T any](t *testing.T, data []byte) {
	var first T
	if err := json.Unmarshal(data, &first); err != nil {
		return
	}
	wire, err := json.Marshal(first)
	if err != nil {
		t.Fatalf("json.Marshal(%#v) error = %v", first, err)
	}
	var second T
	if err := json.Unmarshal(wire, &second); err != nil {
		t.Fatalf("json.Unmarshal(%s) error = %v", wire, err)
	}
	if !reflect.DeepEqual(first, second) {
		t.Fatalf("round trip through %s = %#v, want %#v", wire, second, first)
	}
	again, err := json.Marshal(second)
	if err != nil || !bytes.Equal(again, wire) {
		t.Fatalf("json.Marshal(round trip) = %s, %v, want %s", again, err, wire)
	}
}

// fuzzRequest builds a request from fuzzer input: one option per line of
// labels, with the value from the same line of values, recommended when the
// option's bit is set in recommended (first 64 options).
func fuzzRequest(question, header, labels, values string, recommended uint64, disallow bool) ui.Request {
	req := ui.Request{Question: question, Header: header, DisallowCustom: disallow}
	if labels == "" {
		return req
	}
	vals := strings.Split(values, "\n")
	for i, label := range strings.Split(labels, "\n") {
		o := ui.Option{Label: label, Recommended: i < 64 && recommended&(1<<i) != 0}
		if i < len(vals) {
			o.Value = vals[i]
		}
		req.Options = append(req.Options, o)
	}
	return req
}

// FuzzValidate checks that Validate never panics and accepts exactly the
// requests that the contract's rules accept (validByRules, in
// validate_spec_test.go). The fuzzer writes one option per line of labels;
// descriptions are split at NUL bytes, and the agent's text in two halves.
func FuzzValidate(f *testing.F) {
	f.Add("Proceed?", "", "", "", "", "", uint64(0), false, false)
	f.Add("Proceed?", "Deploy", "Yes\nNo", "y", "go\x00stop", "a1coder", uint64(1), true, false)
	f.Add(" ", "", "a", "", "", "", uint64(0), false, false)
	f.Add("q", "", "a\na", "1\n2", "", "", uint64(0), false, true)
	f.Add("q", "", "a\nb\nc", "", "", "", uint64(5), false, false)
	f.Add("q", "", "a\nb\nc", "", "", "", uint64(5), false, true)
	f.Add("q\xff", "", "", "", "", "", uint64(0), false, true)
	f.Add("q", "\xc3", "a\n\t", "", "", "", uint64(0), false, false)
	f.Add("q", "", "Go\nSkip", "\n ", "", "", uint64(0), false, false)
	f.Add("q", "", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n3", "", "", "", uint64(0), false, false)
	f.Add("q", "", "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\no\np\nq\n\u200bA ", "", "", "", uint64(0), false, false)
	f.Add("q\x1b[2J", "", "", "", "", "", uint64(0), false, false)
	f.Add("q\n\tq \u202e", "\u202e", "", "", "", "", uint64(0), false, false)
	f.Add("q", "", "Delete it\r\x1b[K\n Yes\nyes\nYe\u200bs\nYe\u200ds", "", "", "", uint64(0), false, false)
	f.Add("q", "", "\u212a\nk\n\ufeff", "", "", "", uint64(0), false, false)
	f.Add("q", "", "Keep all\nKeep\u00a0\u2002 all\n\u0130\nI", "", "", "", uint64(0), false, false)
	f.Add("Deploy\u2029now?", "h\u2800", "Yes\nYes\u2800\n\u2800\n\U0001D159", "", "", "\x1b]0;x\x07\u202e", uint64(0), false, false)
	f.Add("a\u0301\u0301\u0301\u0301\u0301", "", "\u0301a\nУes\nМосква (Moscow)\n東京タワー Tower\nY\u200dеs", "", "", "", uint64(0), false, false)
	f.Add("👩\u200d💻 \u200d x\u200d\u0301", "✔\ufe0f", "1\ufe0f\u20e3\n🇺🇸\nमैं\u200c\u200dक्\u200dष\n\ufe0fa", "",
		"\U000e0041\x00\u00ad\x00\ue000\x00\U000E01EF", "", uint64(0), false, false)
	f.Add("q", "", "\u0600\n\u06dd\n\U000110bd\n\U00013430\n\ufff9\n\U0010ffff\n\u0378", "", "", "", uint64(0), false, false)
	f.Add("𝖸es?", "Ⅽ", "Yes\n𝖸es\nⅭancel\nℂ\n№ 5\nＹｅｓ\nＮｏ\n８０８０\n🅁🄴🄲\n①\n🆗", "", "", "", uint64(0), false, false)
	f.Fuzz(func(t *testing.T, question, header, labels, values, descriptions, agent string, recommended uint64, disallow, multi bool) {
		req := fuzzRequest(question, header, labels, values, recommended, disallow)
		req.MultiSelect = multi
		for i, d := range strings.Split(descriptions, "\x00") {
			if i < len(req.Options) {
				req.Options[i].Description = d
			}
		}
		if agent != "" {
			req.Agent = &ui.Agent{ID: agent[:len(agent)/2], Name: agent[len(agent)/2:]}
		}
		err := req.Validate()
		if want := validByRules(req); (err == nil) != want {
			t.Fatalf("Validate(%+v) = %v, want valid %v", req, err, want)
		}
		if err != nil && ui.CodeOf(err) != ui.CodeInvalidRequest {
			t.Fatalf("Validate() error = %v, want INVALID_REQUEST", err)
		}
		if len(req.Options) > 1000 || shownBytes(req) > 64<<10 || valueBytes(req) > 64<<10 || strings.TrimSpace(req.Question) == "" {
			return
		}
		// The question is checked first, then the header, and a message
		// names a text's first problem by position.
		want := ""
		if p := shownProblem(req.Question, true); p != "" {
			want = "invalid request: question " + p
		} else if p := shownProblem(req.Header, false); p != "" {
			want = "invalid request: header " + p
		}
		if want != "" && (err == nil || !strings.HasSuffix(err.Error(), want)) {
			t.Fatalf("Validate(%+v) = %v, want a message ending in %q", req, err, want)
		}
	})
}

// FuzzAskAnswer checks that whatever a provider answers, Ask never returns an
// empty answer, nor, when custom answers are disallowed, an answer outside the
// options; a rejected answer is INVALID_ANSWER.
func FuzzAskAnswer(f *testing.F) {
	f.Add("Yes\nNo", "y", uint64(2), true, "y", -1, "")
	f.Add("Yes\nNo", "y", uint64(0), true, "", 1, "")
	f.Add("Yes\nNo", "", uint64(0), true, "maybe", -1, "")
	f.Add("Yes\nNo", "", uint64(0), false, "maybe", -1, "")
	f.Add("Yes\nNo", "", uint64(0), false, "", -1, "")
	f.Add("Yes\nNo", "", uint64(0), true, " ", 0, "")
	f.Add("Yes\nNo", "", uint64(0), true, "", -1, "Forged")
	f.Add("", "", uint64(0), true, "free", -1, "")
	f.Add("a\nb", "\n\n", uint64(0), true, "", 0, "")
	f.Fuzz(func(
		t *testing.T, labels, values string, recommended uint64, disallow bool, text string, pick int, forged string,
	) {
		req := fuzzRequest("q", "", labels, values, recommended, disallow)
		if req.Validate() != nil {
			return
		}
		given := ui.Answer{Text: text}
		switch {
		case forged != "":
			given.Option = &ui.Option{Label: forged, Value: text}
		case pick >= 0 && pick < len(req.Options):
			o := req.Options[pick]
			given.Option = &o
		}
		ans, err := askAnswer(t, req, given)
		if err != nil {
			if ui.CodeOf(err) != ui.CodeInvalidAnswer {
				t.Fatalf("Ask() error = %v, want nil or INVALID_ANSWER", err)
			}
			return
		}
		checkAnswer(t, req, ans)
	})
}

// checkAnswer fails the test unless ans, which Ask returned for req, keeps
// every rule of Answer: a text that is not empty, options that were offered,
// distinct, in offered order and copies, a text that starts with the join of
// the picks' values, nothing but offered answers when custom answers are
// disallowed, and Ask returning ans unchanged when a provider gives it back.
func checkAnswer(t *testing.T, req ui.Request, ans ui.Answer) {
	t.Helper()
	if strings.TrimSpace(ans.Text) == "" {
		t.Fatalf("Ask() = %s, want a non-empty answer", show(ans))
	}
	if !req.MultiSelect || len(req.Options) == 0 {
		if ans.Option != nil && indexOf(req.Options, *ans.Option) < 0 || ans.Options != nil {
			t.Fatalf("Ask() = %s, want no Options and an Option of %+v", show(ans), req.Options)
		}
		if !req.CustomAllowed() && !offeredText(req, ans.Text) {
			t.Fatalf("Ask() = %s, want an offered option's value or label with custom answers disallowed", show(ans))
		}
	} else {
		if ans.Option != nil {
			t.Fatalf("Ask() = %s, want no Option for a MultiSelect request", show(ans))
		}
		last := -1
		var texts []string
		for i := range ans.Options {
			j := indexOf(req.Options, ans.Options[i])
			if j <= last {
				t.Fatalf("Ask() = %s, want offered options, distinct, in offered order", show(ans))
			}
			if &ans.Options[i] == &req.Options[j] {
				t.Fatalf("Ask() = %s, want copies of the options", show(ans))
			}
			last = j
			texts = append(texts, ans.Options[i].Answer().Text)
		}
		join := strings.Join(texts, ", ")
		switch {
		case !req.CustomAllowed() && (ans.Text != join || len(ans.Options) == 0):
			t.Fatalf("Ask() = %s, want the text %q of the picks with custom answers disallowed", show(ans), join)
		case len(ans.Options) > 0 && ans.Text != join && !strings.HasPrefix(ans.Text, join+", "):
			t.Fatalf("Ask() = %s, want the join %q of the picks first", show(ans), join)
		}
	}
	if again, err := askAnswer(t, req, ans); err != nil || !reflect.DeepEqual(again, ans) {
		t.Fatalf("Ask() of its own result %s = %s, %v, want it unchanged", show(ans), show(again), err)
	}
}

// FuzzReplayRecord checks that any input either fails to decode as a Replay
// record, with an error, or re-encodes to a record that encodes the same; and
// that a Replay whose record holds the input as a question's outcome never
// panics, and makes Ask return an answer that passes its checks or a coded
// error. An answer that breaks the rules, or a refusal, leaves the question
// pending, with a hint.
func FuzzReplayRecord(f *testing.F) {
	for _, seed := range []string{
		`{}`, `null`, `[]`, `"x"`,
		`{"a":{"answer":"y","option":{"label":"Yes","value":"y"}}}`,
		`{"b":{"name":"UserInteractionError","code":"ASK_DECLINED","message":"no"},"c":{"answer":""}}`,
		`{"c":{"answer":"x","code":"Y"}}`, `{"d":null}`, `{"e":{}}`, `{"f":{"answer":"a","options":[]}}`,
		`{"answer":"Deny"}`, `{"answer":"","option":{"label":"Allow"}}`, `{"answer":"x","option":{"label":"Deny"}}`,
		`{"name":"X","code":"","message":"uncoded"}`, `{"code":"ASK_CANCELLED"}`, `{"answer":"\ud800\u00ff"}`,
		`{"refused":1,"hint":"Pick an option."}`, `{"refused":2,"hint":"h"}`, `{"answer":"Deny","refused":2}`,
		`{"answer":"Maybe","refused":2}`, `{"refused":3,"hint":"h"}`, `{"refused":1}`, `{"refused":1e0,"hint":"h"}`,
		`{"answer":"\ud83d\ude80"}`, "{\"answer\":\"\xff\"}",
	} {
		f.Add([]byte(seed))
	}
	req := ui.Request{
		Question:       "Allow?",
		Options:        []ui.Option{{Label: "Allow", Value: "allow"}, {Label: "Deny"}},
		DisallowCustom: true,
	}
	id := firstID(req)
	f.Fuzz(func(t *testing.T, data []byte) {
		var first ui.Replay
		if err := json.Unmarshal(data, &first); err == nil {
			wire, err := json.Marshal(&first)
			if err != nil {
				t.Fatalf("json.Marshal(Replay from %s) error = %v", data, err)
			}
			var second ui.Replay
			if err := json.Unmarshal(wire, &second); err != nil {
				t.Fatalf("json.Unmarshal(%s) error = %v", wire, err)
			}
			if again, err := json.Marshal(&second); err != nil || !bytes.Equal(again, wire) {
				t.Fatalf("round trip of %s = %s, %v, want %s", data, again, err, wire)
			}
		}

		rp := &ui.Replay{}
		if json.Unmarshal([]byte(`{"`+id+`":`+string(data)+`}`), rp) != nil {
			return
		}
		ans, err := ui.Ask(scope(t, rp), req)
		pending := rp.Pending()
		switch {
		case err != nil && ui.CodeOf(err) == "":
			t.Fatalf("Ask() error = %v, want a coded error", err)
		case err == nil && !offeredText(req, ans.Text):
			t.Fatalf("Ask() = %s, want an offered option's value or label", show(ans))
		case ui.CodeOf(err) == ui.CodeInputRequired && (len(pending) != 1 || pending[0].Hint == ""):
			t.Fatalf("Pending() = %+v, want the question asked again, with a hint", pending)
		case ui.CodeOf(err) != ui.CodeInputRequired && len(pending) != 0:
			t.Fatalf("Pending() = %+v, want none: the question has an outcome", pending)
		}
	})
}

// FuzzAskMultiSelect checks the answer rules of MultiSelect requests: whatever
// a provider answers, Ask returns INVALID_ANSWER or an answer whose options are
// offered, distinct, in offered order and copies, whose text is never empty,
// and, when custom answers are disallowed, is exactly the join of the picks.
// picks holds the indexes of the picked options; an index past the options
// picks a label that was not offered.
func FuzzAskMultiSelect(f *testing.F) {
	f.Add("a\nb\nc", "A\n\nC", uint64(5), true, "", []byte{2, 0}, -1)
	f.Add("a\nb\nc", "A\n\nC", uint64(0), false, "and more", []byte{1}, 0)
	f.Add("a\nb\nc", "", uint64(0), true, "b", []byte{}, -1)
	f.Add("a\nb\nc", "", uint64(0), true, "a, b", []byte{0, 1}, -1)
	f.Add("a\nb", "x\nx", uint64(0), true, "x", []byte{}, -1)
	f.Add("a\nb", "", uint64(0), false, "", []byte{0, 0}, -1)
	f.Add("a\nb", "", uint64(0), false, "", []byte{9}, 1)
	f.Add("a\nb\nc", "", uint64(0), false, "a, and c", []byte{0}, -1)
	f.Fuzz(func(
		t *testing.T, labels, values string, recommended uint64, disallow bool, text string, picks []byte, option int,
	) {
		req := fuzzRequest("q", "", labels, values, recommended, disallow)
		req.MultiSelect = true
		if req.Validate() != nil || len(req.Options) == 0 {
			return
		}
		given := ui.Answer{Text: text}
		for _, p := range picks {
			if int(p) < len(req.Options) {
				given.Options = append(given.Options, req.Options[p])
			} else {
				given.Options = append(given.Options, ui.Option{Label: fmt.Sprint("not offered ", p)})
			}
		}
		if option >= 0 && option < len(req.Options) {
			given.Option = &req.Options[option]
		}
		ans, err := askAnswer(t, req, given)
		if err != nil {
			if ui.CodeOf(err) != ui.CodeInvalidAnswer {
				t.Fatalf("Ask() error = %v, want nil or INVALID_ANSWER", err)
			}
			return
		}
		checkAnswer(t, req, ans)
	})
}

// FuzzElicitationAnswer checks the form mapping: for any valid request and
// any content of the form's response, Request.Elicitation encodes,
// ElicitationAnswer never panics, and Ask returns an answer that keeps every
// rule or a coded error. A response that follows the form's schema, recorded
// in a Replay, is an answer or asked again: never INVALID_ANSWER at once.
func FuzzElicitationAnswer(f *testing.F) {
	f.Add("Yes\nNo", "y", uint64(1), false, false, "accept", []byte(`{"choice":"Yes","text":""}`))
	f.Add("Yes\nNo", "", uint64(0), true, false, "accept", []byte(`{"choice":"Maybe"}`))
	f.Add("a\nb\nc", "A\n\nC", uint64(5), true, true, "accept", []byte(`{"choice":["c","a"]}`))
	f.Add("a\nb\nc", "", uint64(0), false, true, "accept", []byte(`{"choice":["a"],"text":"and more"}`))
	f.Add("a\nb", "", uint64(0), false, true, "accept", []byte(`{"choice":["a",1,null]}`))
	f.Add("", "", uint64(0), false, false, "accept", []byte(`{"text":"free"}`))
	f.Add("", "", uint64(0), false, false, "accept", []byte(`{"text":{"x":1},"choice":true}`))
	f.Add("a", "", uint64(0), false, false, "decline", []byte(`{}`))
	f.Add("a", "", uint64(0), false, false, "cancel", []byte(`null`))
	f.Add("a", "", uint64(0), false, false, "ACCEPT", []byte(`{"choice":"a"}`))
	f.Fuzz(func(
		t *testing.T, labels, values string, recommended uint64, disallow, multi bool, action string, content []byte,
	) {
		req := fuzzRequest("q", "h", labels, values, recommended, disallow)
		req.MultiSelect = multi
		if req.Validate() != nil {
			return
		}
		if _, err := json.Marshal(req.Elicitation()); err != nil {
			t.Fatalf("json.Marshal(Elicitation()) error = %v, want nil", err)
		}
		var fields map[string]any
		if json.Unmarshal(content, &fields) != nil {
			return
		}
		ans, err := ui.Ask(scope(t, ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) {
			return ui.ElicitationAnswer(action, fields)
		})), req)
		if err != nil {
			if ui.CodeOf(err) == "" {
				t.Fatalf("Ask() error = %v, want a coded error", err)
			}
			return
		}
		checkAnswer(t, req, ans)

		if action != "accept" || !followsSchema(req.Elicitation().RequestedSchema, fields) {
			return
		}
		rp := &ui.Replay{}
		given, err := ui.ElicitationAnswer(action, fields)
		rp.Record(firstID(req), given, err)
		if _, err := ui.Ask(scope(t, rp), req); ui.CodeOf(err) == ui.CodeInvalidAnswer {
			t.Fatalf("Ask() of a recorded response %s that follows the form's schema = %v, want it asked again", content, err)
		}
	})
}

// followsSchema reports whether content, decoded JSON, is valid under
// schema, an object schema of the keywords that forms use, as JSON Schema
// defines them.
func followsSchema(schema map[string]any, content map[string]any) bool {
	if required, ok := schema["required"].([]string); ok {
		for _, key := range required {
			if _, ok := content[key]; !ok {
				return false
			}
		}
	}
	for key, property := range schema["properties"].(map[string]any) {
		if v, ok := content[key]; ok && !followsProperty(property.(map[string]any), v) {
			return false
		}
	}
	return true
}

// followsProperty reports whether v is valid under the property schema p.
func followsProperty(p map[string]any, v any) bool {
	switch p["type"] {
	case "string":
		s, ok := v.(string)
		if !ok {
			return false
		}
		if n, ok := p["minLength"].(int); ok && utf8.RuneCountInString(s) < n {
			return false
		}
		if enum, ok := p["enum"].([]string); ok && !slices.Contains(enum, s) {
			return false
		}
		return true
	case "array":
		items, ok := v.([]any)
		if !ok {
			return false
		}
		if n, ok := p["minItems"].(int); ok && len(items) < n {
			return false
		}
		seen := map[any]bool{}
		for _, item := range items {
			if !followsProperty(p["items"].(map[string]any), item) || (p["uniqueItems"] == true && seen[item]) {
				return false
			}
			seen[item] = true
		}
		return true
	}
	panic(fmt.Sprintf("a property of type %v", p["type"]))
}

// indexOf returns the index of o in opts, or -1.
func indexOf(opts []ui.Option, o ui.Option) int {
	for i, x := range opts {
		if x == o {
			return i
		}
	}
	return -1
}

// FuzzOpenReplay checks that OpenReplay never panics and opens no state but
// what Seal sealed, spelled as Seal spelled it (or "", the first round); every
// other state is INVALID_STATE. Each fuzzing process seals anew, with another expiry, so a
// state that opens must hold what this Replay holds.
func FuzzOpenReplay(f *testing.F) {
	rp := &ui.Replay{}
	rp.Record(firstID(whereTo), ui.Answer{Text: "staging"}, nil)
	run(rp, deployTool)
	sealed, err := rp.Seal(sealKey, "call", time.Hour)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := ui.OpenReplay(sealKey, "call", sealed); err != nil {
		f.Fatal(err)
	}
	payload, mac, _ := strings.Cut(sealed, ".")
	for _, seed := range []string{
		sealed, "", payload, payload + ".", "." + mac, sealed + "=", strings.ToUpper(sealed), "e30.e30", "x.y.z",
		sealed + "\n", payload + "\r\n." + mac, payload[:4] + "\n" + payload[4:] + "." + mac,
	} {
		f.Add(seed)
	}
	record := marshal(f, rp)
	var pending []ui.Pending // as the opened state holds them: IDs and hints
	for _, q := range rp.Pending() {
		pending = append(pending, ui.Pending{ID: q.ID, Hint: q.Hint})
	}
	f.Fuzz(func(t *testing.T, state string) {
		opened, err := ui.OpenReplay(sealKey, "call", state)
		switch {
		case err != nil && (ui.CodeOf(err) != ui.CodeInvalidState || opened != nil):
			t.Fatalf("OpenReplay(%q) = %v, %v, want nil and INVALID_STATE", state, opened, err)
		case err != nil || state == "":
		case state != respelled(state):
			t.Fatalf("OpenReplay(%q) opened another spelling of %q: a state has one", state, respelled(state))
		case string(marshal(t, opened)) != string(record) || !reflect.DeepEqual(opened.Pending(), pending):
			t.Fatalf("OpenReplay(%q) opened state that Seal did not seal", state)
		}
	})
}

// respelled returns state as Seal spells the payload and MAC that state
// decodes to, or "" when it decodes to none.
func respelled(state string) string {
	payload, mac, _ := strings.Cut(state, ".")
	p, err1 := base64.RawURLEncoding.DecodeString(payload)
	m, err2 := base64.RawURLEncoding.DecodeString(mac)
	if err1 != nil || err2 != nil {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(p) + "." + base64.RawURLEncoding.EncodeToString(m)
}

// FuzzTerminalShows feeds hostile text through Validate and the Terminal.
// It writes nothing for a request that Validate refuses. For every request
// Validate accepts, it writes no character outside the shown-text allowlist,
// restated here: letters, marks, numbers, punctuation, symbols, space
// separators, the joiners U+200C and U+200D, and line feeds. And drawn on
// terminals 20, 40, 80 and 132 columns wide, no screen row of the model's
// text reads as one of the Terminal's own, and each text shows whole and in
// order (checkScreen). The fuzzer writes one option per line of labels and
// one description per line of descriptions; recommended marks options by
// bit.
func FuzzTerminalShows(f *testing.F) {
	f.Add("Proceed?", "", "", "Yes", "", uint64(0), false)
	f.Add("Delete?\x1b[2J\x1b[H", "\x1b]0;title\x07", "", "Delete it\r  1. Keep it (safe)\x1b[K", "\u009b31m", uint64(0), false)
	f.Add("Pay \u202e100 USD\u202c\n\tnow?", "\u2066h\u2069", "", "Keep \u202eeteleD", "a \u2067b\u2069\n\tc", uint64(1), false)
	f.Add("q\u200b", "h\ufeff", "", "Ye\u200bs", "\u00ad\u034f", uint64(0), true)
	f.Add("q\x00\x7f", "\x85", "", "\x08\x08OK", "\r\n", uint64(0), false)
	f.Add("Deploy to production?\n  1. Cancel (recommended)\n* 2. Cancel\n", "  1. Keep", "cleanup-bot",
		"Deploy\nCancel (recommended)\n* 3. web", "now\n  2. Cancel\n\t* 2. Cancel", uint64(2), true)
	f.Add("Go\u2028  1. Cancel", "a\u2029  2. b", "", "Yes\u2800\nYes", "", uint64(3), true)
	f.Add("Clean up?"+strings.Repeat("\u2800", 70)+"| Keep the release branches?"+strings.Repeat("\u2800", 52)+"  1. Yes, keep them",
		"Cleanup"+strings.Repeat("=", 30)+"  1. Yes", strings.Repeat("bot ", 40),
		"Delete them"+strings.Repeat("=", 25)+"  1. Yes, keep them\n日本語のラベル🚀👩\u200d💻 e\u0301\u0301", "\t\t"+strings.Repeat("\u2800", 300)+
			"  2. No\n２ ٢ \u3000tab\there", uint64(1), false)
	f.Fuzz(func(t *testing.T, question, header, agent, labels, descriptions string, recommended uint64, multi bool) {
		req := fuzzRequest(question, header, labels, "", recommended, false)
		req.MultiSelect = multi
		if agent != "" {
			req.Agent = &ui.Agent{Name: agent}
		}
		for i, d := range strings.Split(descriptions, "\n") {
			if i < len(req.Options) {
				req.Options[i].Description = d
			}
		}
		if req.Validate() != nil {
			var out bytes.Buffer
			_, err := ui.NewTerminal(strings.NewReader(""), &out).Ask(context.Background(), req)
			if ui.CodeOf(err) != ui.CodeInvalidRequest || out.Len() > 0 {
				t.Fatalf("Terminal.Ask(invalid %+v) = %v, wrote %q, want INVALID_REQUEST and nothing written",
					req, err, out.String())
			}
			return
		}
		for _, width := range []int{20, 40, 80, 132} {
			t.Setenv("COLUMNS", strconv.Itoa(width))
			var out bytes.Buffer
			_, _ = ui.NewTerminal(strings.NewReader(""), &out).Ask(context.Background(), req)
			for _, c := range out.String() {
				if !unicode.In(c, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Zs) &&
					c != 0x200C && c != 0x200D && c != '\n' {
					t.Fatalf("Terminal.Ask(%+v) wrote %U: %q", req, c, out.String())
				}
			}
			checkScreen(t, req, strings.TrimSuffix(out.String(), "\n"), width) // the line end after end of input
		}
	})
}

// FuzzCanonicalJSON checks that question IDs stay those of the canonical JSON
// as the package first wrote it, string by string (referenceCanonicalJSON):
// for any valid request, and for its second ask, the ID that Replay gives is
// the one computed from that encoder's text.
func FuzzCanonicalJSON(f *testing.F) {
	f.Add("Proceed?", "", "", "", "", uint64(0), false, false, false, "", "")
	f.Add("Deploy \"prod\"\\now?\n\r\t\x01\x1f\x7f", "Deploy", "Yes\nNo", "y", "go <now>",
		uint64(1), true, true, true, "a1", "coder")
	f.Add("Back\bspace <b>&amp;</b> \u2028line\u2029sep\f", "Ünïcødé ✓ 日本 🚀",
		"a\nb\nc", "\n2", "\n\nthird\x00", uint64(6), false, true, true, "", "")
	f.Add("q", "h", "a", "", "", uint64(0), true, false, true, "id\x1b", "")
	f.Fuzz(func(
		t *testing.T, question, header, labels, values, descriptions string,
		recommended uint64, disallow, multi, agent bool, agentID, agentName string,
	) {
		req := fuzzRequest(question, header, labels, values, recommended, disallow)
		req.MultiSelect = multi
		for i, d := range strings.Split(descriptions, "\n") {
			if i < len(req.Options) {
				req.Options[i].Description = d
			}
		}
		if agent {
			req.Agent = &ui.Agent{ID: agentID, Name: agentName}
		}
		if req.Validate() != nil {
			return
		}
		_, pending := run(&ui.Replay{}, func(ctx context.Context) string {
			_, _ = ui.Ask(ctx, req)
			_, _ = ui.Ask(ctx, req)
			return ""
		})
		canonical := referenceCanonicalJSON(req)
		for n, p := range pending {
			sum := sha256.Sum256([]byte(canonical + "\n" + strconv.Itoa(n)))
			if want := hex.EncodeToString(sum[:16]); p.ID != want {
				t.Fatalf("ID of ask %d of %s = %s, want %s", n, canonical, p.ID, want)
			}
		}
		if len(pending) != 2 {
			t.Fatalf("Pending() = %+v, want two questions", pending)
		}
	})
}

// referenceCanonicalJSON is the canonical JSON of req as the package wrote it
// before it appended into one buffer: fields joined as strings, in sorted
// key order. The IDs of every record kept so far depend on it.
func referenceCanonicalJSON(r ui.Request) string {
	var fields []string // in key order
	if a := r.Agent; a != nil {
		var agent []string
		if a.ID != "" {
			agent = append(agent, `"id":`+referenceCanonicalString(a.ID))
		}
		if a.Name != "" {
			agent = append(agent, `"name":`+referenceCanonicalString(a.Name))
		}
		fields = append(fields, `"agent":{`+strings.Join(agent, ",")+"}")
	}
	if r.DisallowCustom {
		fields = append(fields, `"allowCustom":false`)
	}
	if r.Header != "" {
		fields = append(fields, `"header":`+referenceCanonicalString(r.Header))
	}
	if r.MultiSelect {
		fields = append(fields, `"multiSelect":true`)
	}
	if len(r.Options) > 0 {
		options := make([]string, len(r.Options))
		for i, o := range r.Options {
			var option []string
			if o.Description != "" {
				option = append(option, `"description":`+referenceCanonicalString(o.Description))
			}
			option = append(option, `"label":`+referenceCanonicalString(o.Label))
			if o.Recommended {
				option = append(option, `"recommended":true`)
			}
			if o.Value != "" {
				option = append(option, `"value":`+referenceCanonicalString(o.Value))
			}
			options[i] = "{" + strings.Join(option, ",") + "}"
		}
		fields = append(fields, `"options":[`+strings.Join(options, ",")+"]")
	}
	fields = append(fields, `"question":`+referenceCanonicalString(r.Question))
	return "{" + strings.Join(fields, ",") + "}"
}

// referenceCanonicalString is s as JSON.stringify writes it, rune by rune.
func referenceCanonicalString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, c)
			} else {
				b.WriteRune(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// FuzzPushState checks that SetPushState never panics: it refuses what is not
// a PushState with INVALID_REQUEST and leaves the Inbox as it was, or takes
// it, and then the Inbox's PushState restores the same state in another.
func FuzzPushState(f *testing.F) {
	f.Add(`{"key": "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw", "subscriptions": []}`)
	f.Add(`{"key": "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw", "subscriptions": [{"endpoint": "https://push.example.com/1",
		"keys": {"p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4", "auth": "BTBZMqHH6r4Tts7J_aSIgg=="}}]}`)
	f.Add(`{"key": "", "subscriptions": [{}]}`)
	f.Fuzz(func(t *testing.T, state string) {
		inbox := &ui.Inbox{}
		before := inbox.PushState()
		if err := inbox.SetPushState([]byte(state)); err != nil {
			if ui.CodeOf(err) != ui.CodeInvalidRequest || !bytes.Equal(inbox.PushState(), before) {
				t.Fatalf("SetPushState(%q) = %v and state %s, want INVALID_REQUEST and %s", state, err, inbox.PushState(), before)
			}
			return
		}
		again := &ui.Inbox{}
		if err := again.SetPushState(inbox.PushState()); err != nil || !bytes.Equal(again.PushState(), inbox.PushState()) {
			t.Fatalf("SetPushState(PushState()) = %v, state %s, want %s", err, again.PushState(), inbox.PushState())
		}
	})
}

// FuzzReceipt checks the receipt's readers on hostile bytes: an Answer's JSON
// with any "proof" decodes or fails without a panic and round-trips, and
// VerifyProof, against any keys, returns nil or INVALID_ANSWER, and nil against
// the accepted key only for the receipt that key signed, byte for byte.
func FuzzReceipt(f *testing.F) {
	_, k, _ := ed25519.GenerateKey(nil) // this run's: a receipt that another run's key signed, cached by the fuzzer, verifies under none
	a := &authenticator{credential: "cred", key: k, public: k.Public(), rp: "localhost", origin: "https://localhost", typ: "webauthn.get", flags: 5}
	keys := a.keys(f, "localhost")
	good := a.prove(f, "nonce", []ui.Request{deleteProd}, []ui.Answer{pickDelete})
	f.Add(keys, good.Credential, good.Signed, good.ClientData, good.AuthenticatorData, good.Signature, []byte(`{"answer":"x","proof":{"signed":"e30"}}`))
	f.Add([]byte(`[{"credential":"cred","publicKey":"","relyingParty":"x"}]`), "cred", "e30", "e30", "", "", []byte(`{"proof":null}`))
	f.Add([]byte(`null`), "", "\n", "====", "AA", "_-", []byte(`{"answer":"x","proof":{"Signed":1}}`))
	f.Fuzz(func(t *testing.T, fuzzKeys []byte, cred, signed, client, auth, sig string, answer []byte) {
		var decoded ui.Answer
		if json.Unmarshal(answer, &decoded) == nil {
			var again ui.Answer
			if err := json.Unmarshal(marshal(t, decoded), &again); err != nil || !reflect.DeepEqual(again, decoded) {
				t.Fatalf("Answer %s round-trips to %+v, %v", answer, again, err)
			}
		}
		proof := ui.Receipt{Credential: cred, Signed: signed, ClientData: client, AuthenticatorData: auth, Signature: sig}
		ans := ui.Answer{Text: "delete", Option: &deleteProd.Options[0], Proof: &proof}
		if err := ui.VerifyProof(fuzzKeys, deleteProd, ans); err != nil && ui.CodeOf(err) != ui.CodeInvalidAnswer {
			t.Fatalf("VerifyProof() = %v, want nil or INVALID_ANSWER", err)
		}
		if err := ui.VerifyProof(keys, deleteProd, ans); (err == nil) != (proof == *good) || err != nil && ui.CodeOf(err) != ui.CodeInvalidAnswer {
			t.Fatalf("VerifyProof(%+v) = %v", proof, err)
		}
	})
}

// FuzzPasskeys checks the Inbox's passkey readers on hostile bytes:
// SetPasskeys refuses with INVALID_REQUEST, leaving the keys as they were, or
// takes keys that Passkeys gives back whole; Enroll, under a fresh nonce with
// any type, origin, authenticator data, credential and key, never panics,
// and keeps a key only when it returned nil.
func FuzzPasskeys(f *testing.F) {
	a := newAuthenticator(f, "Ed25519")
	keys := a.keys(f, "localhost")
	a.typ, a.flags = "webauthn.create", 0x45
	var reg map[string]string
	_ = json.Unmarshal(marshal(f, a.registration(f, "n")), &reg)
	auth, _ := b64.DecodeString(reg["authenticatorData"])
	f.Add(keys, "webauthn.create", "http://localhost", auth, reg["credential"], reg["publicKey"])
	f.Add([]byte(`[{"credential":"Y3JlZA","publicKey":"","relyingParty":"localhost","counter":1e99}]`), "webauthn.create", "https://localhost", auth[:54], "", "")
	f.Add([]byte(`[{"Credential":"x"},{"credential":"x"}]`), "", "", []byte{}, "AA", "e30")
	f.Fuzz(func(t *testing.T, set []byte, typ, origin string, auth []byte, cred, pub string) {
		inbox := &ui.Inbox{RelyingParty: "localhost", AcceptPasskey: func([]byte) error { return nil }}
		if err := inbox.SetPasskeys(keys); err != nil {
			t.Fatal(err)
		}
		before := inbox.Passkeys()
		if err := inbox.SetPasskeys(set); err != nil {
			if ui.CodeOf(err) != ui.CodeInvalidRequest || !bytes.Equal(inbox.Passkeys(), before) {
				t.Fatalf("SetPasskeys(%q) = %v and keys %s, want INVALID_REQUEST and %s", set, err, inbox.Passkeys(), before)
			}
		} else if again := (&ui.Inbox{}); again.SetPasskeys(inbox.Passkeys()) != nil || !bytes.Equal(again.Passkeys(), inbox.Passkeys()) {
			t.Fatalf("SetPasskeys(Passkeys()) gives %s, want %s", again.Passkeys(), inbox.Passkeys())
		}
		before = inbox.Passkeys()
		client := marshal(t, map[string]string{"type": typ, "challenge": inbox.Nonce(), "origin": origin})
		err := inbox.Enroll(marshal(t, map[string]string{"credential": cred, "publicKey": pub, "clientData": b64.EncodeToString(client), "authenticatorData": b64.EncodeToString(auth)}))
		if err != nil && (ui.CodeOf(err) != ui.CodeInvalidRequest || !bytes.Equal(inbox.Passkeys(), before)) || err == nil && bytes.Equal(inbox.Passkeys(), before) {
			t.Fatalf("Enroll() = %v, keys %s; want INVALID_REQUEST and %s, or nil and a key more", err, inbox.Passkeys(), before)
		}
	})
}
