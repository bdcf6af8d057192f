package userinteraction_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// replayFrom returns a Replay whose record json.Unmarshal read from record.
func replayFrom(t *testing.T, record []byte) *ui.Replay {
	t.Helper()
	rp := &ui.Replay{}
	if err := json.Unmarshal(record, rp); err != nil {
		t.Fatalf("json.Unmarshal(%s, *Replay) error = %v", record, err)
	}
	return rp
}

var hexID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// TestReplayThreeRuns: a call with two questions completes in exactly three
// runs, the record carried between them as JSON.
func TestReplayThreeRuns(t *testing.T) {
	rp := &ui.Replay{}
	got, pending := run(rp, deployTool)
	if got != "not deployed: INPUT_REQUIRED" || len(pending) != 1 || !reflect.DeepEqual(pending[0].Request, whereTo) {
		t.Fatalf("run 1 = %q, pending %+v, want INPUT_REQUIRED with %q pending", got, pending, whereTo.Question)
	}
	if record := marshal(t, rp); string(record) != "{}" {
		t.Fatalf("run 1 record = %s, want {}", record)
	}

	// The human picked Production; a new Replay from the record asks the second question.
	first := pending[0].ID
	rp = replayFrom(t, marshal(t, rp))
	rp.Record(first, ui.Answer{Option: &ui.Option{Label: "Production"}}, nil)
	got, pending = run(rp, deployTool)
	if got != "not deployed: INPUT_REQUIRED" || len(pending) != 1 ||
		pending[0].Request.Question != "Deploy to production now?" || pending[0].ID == first {
		t.Fatalf("run 2 = %q, pending %+v, want the second question pending under a new ID", got, pending)
	}

	// The human said Yes; the same Replay runs the call again, which completes.
	rp.Record(pending[0].ID, ui.Answer{Text: "Yes"}, nil)
	got, pending = run(rp, deployTool)
	if got != "deploy to production: Yes" || len(pending) != 0 {
		t.Fatalf("run 3 = %q, pending %+v, want the call complete", got, pending)
	}
}

// TestReplayAskAll: a three-question AskAll completes in two runs: the first
// has all three pending at once, the second completes.
func TestReplayAskAll(t *testing.T) {
	var got []ui.Answer
	var gotErr error
	tool := func(ctx context.Context) string {
		got, gotErr = ui.AskAll(ctx, three)
		return ""
	}
	rp := &ui.Replay{}
	_, pending := run(rp, tool)
	wantCode(t, "AskAll() in run 1", gotErr, ui.CodeInputRequired)
	if len(pending) != 3 || len(got) != 0 {
		t.Fatalf("run 1: %d pending, %d answers, want 3 pending and none answered", len(pending), len(got))
	}
	for i, q := range pending {
		if q.ID != firstID(three[i]) || q.Request.Question != three[i].Question {
			t.Fatalf("pending[%d] = %+v, want %q under the ID Ask would give it", i, q, three[i].Question)
		}
	}
	asked := pending
	rp.Record(asked[0].ID, ui.Answer{Text: "production"}, nil)
	rp.Record(asked[1].ID, ui.Pick(ui.Option{Label: "42"}), nil)
	rp.Record(asked[2].ID, ui.Answer{Text: "the release"}, nil)
	_, pending = run(rp, tool)
	if want := []string{"production", "42", "the release"}; len(pending) != 0 || gotErr != nil ||
		!reflect.DeepEqual(texts(got), want) {
		t.Fatalf("run 2 = %q, %v, pending %d, want the three answers", texts(got), gotErr, len(pending))
	}

	// A recorded refusal ends the batch there, with the answers before it.
	rp.Record(asked[1].ID, ui.Answer{}, ui.NewError(ui.CodeAskDeclined, "the user declined to answer", nil))
	run(rp, tool)
	wantCode(t, "AskAll() with a recorded refusal", gotErr, ui.CodeAskDeclined)
	if !reflect.DeepEqual(texts(got), []string{"production"}) {
		t.Fatalf("AskAll() = %q, want the answer before the refusal", texts(got))
	}
}

// TestReplayRunUsesItsOwnRegistry: Run never asks the caller's registry, and
// disposes its own when the call returns.
func TestReplayRunUsesItsOwnRegistry(t *testing.T) {
	session := scope(t, failing(errors.New("the session's UI must not be asked")))
	var inside context.Context
	rp := &ui.Replay{}
	pending := rp.Run(session, func(ctx context.Context) {
		inside = ctx
		if _, err := ui.Ask(ctx, question); ui.CodeOf(err) != ui.CodeInputRequired {
			t.Errorf("Ask() in Run = %v, want INPUT_REQUIRED", err)
		}
	})
	if len(pending) != 1 {
		t.Fatalf("Run() = %+v, want the question pending", pending)
	}
	if _, err := ui.Ask(inside, question); ui.CodeOf(err) != ui.CodeNoProvider {
		t.Fatalf("Ask() after Run = %v, want NO_PROVIDER: Run disposes its registry", err)
	}
	if ui.FromContext(session).Provider() == nil {
		t.Fatal("the session lost its provider to Run")
	}
}

// TestReplayGoldenID pins the IDs: records that hosts keep depend on them, in
// any language. The expected IDs were computed apart from this package, in
// Node.js, from the recipe: the first 32 hex digits of the SHA-256 of
// JSON.stringify of the request's wire shape with sorted keys, "\n" and the
// ask's number in the run (from 0). With `sorted` sorting object keys
// recursively:
//
//	crypto.createHash('sha256').update(JSON.stringify(sorted(req)) + '\n' + n).digest('hex').slice(0, 32)
//
// The whole script, with these requests, is in .github/CONTRIBUTING.md.
// Every request is valid, so control characters sit in option values.
func TestReplayGoldenID(t *testing.T) {
	tests := []struct {
		req  ui.Request
		want []string // the IDs of the first and second ask of req in a run
	}{
		{ui.Request{Question: "Proceed?"},
			[]string{"64fc3ff23b84066998beb28b80892086", "c06dd81c76651d9f2520a9de52171b59"}},
		{ui.Request{Question: "Page break?", Options: []ui.Option{{Label: "Yes", Value: "page\fbreak"}}},
			[]string{"d45eb3251401df689a92f053f4981c45", "1a16506378974e53fa070ec782a821bd"}},
		{ui.Request{
			Question: "Back <b>&amp;</b> line sep",
			Header:   "Ünïcødé ✓ 日本 🚀",
			Options:  []ui.Option{{Label: "Go", Value: "back\bspace <b>&amp;</b> \u2028line\u2029sep"}},
		}, []string{"0782bf99d8d0f8572718960d8a8c7217", "0af33a1bf8f5be16ea3349c5d71fe2af"}},
		{ui.Request{
			Question: "Deploy \"prod\"\\now?\n\t",
			Header:   "Deploy",
			Options: []ui.Option{
				{Label: "Yes", Value: "y\r\u0001\u001f\u007f", Description: "go <now>", Recommended: true},
				{Label: "No", Value: "n\u0000\u0085"},
			},
			DisallowCustom: true,
			MultiSelect:    true,
			Agent:          &ui.Agent{ID: "a1", Name: "coder"},
		}, []string{"32afb4619e3d4d7bc948f55f578bbdf0", "177e377a1915d9a46434f95902e04eb5"}},
		{ui.Request{Question: "q", Agent: &ui.Agent{}},
			[]string{"a780c4468a4525f31f446601fc87ea8a", "bf4d8911b53b1e3aa45973beaa628889"}},
		{ui.Request{Question: "Proceed?", RequireProof: true}, // "requireProof" sorts after "question"
			[]string{"6298274f57f7b89fe212ada006dfff90", "1f698a25c3f4cc203f614287ef2b17f7"}},
	}
	for _, tt := range tests {
		if err := tt.req.Validate(); err != nil {
			t.Fatalf("Validate() = %v, want nil", err)
		}
		_, byAsk := run(&ui.Replay{}, func(ctx context.Context) string {
			_, _ = ui.Ask(ctx, tt.req)
			_, _ = ui.Ask(ctx, tt.req)
			return ""
		})
		_, byAskAll := run(&ui.Replay{}, func(ctx context.Context) string {
			_, _ = ui.AskAll(ctx, []ui.Request{tt.req, tt.req})
			return ""
		})
		for _, pending := range [][]ui.Pending{byAsk, byAskAll} {
			if got := []string{pending[0].ID, pending[1].ID}; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("IDs of %q = %q, want %q", tt.req.Question, got, tt.want)
			}
		}
	}
}

// TestReplayIDs: an ID depends only on the request and on how many equal
// requests the run asked before it.
func TestReplayIDs(t *testing.T) {
	x, y := ui.Request{Question: "x?"}, ui.Request{Question: "y?"}
	ids := func(reqs ...ui.Request) map[string][]string { // question -> IDs in order
		_, pending := run(&ui.Replay{}, func(ctx context.Context) string {
			for _, req := range reqs {
				_, _ = ui.Ask(ctx, req)
			}
			return ""
		})
		out := map[string][]string{}
		for _, p := range pending {
			out[p.Request.Question] = append(out[p.Request.Question], p.ID)
			if !hexID.MatchString(p.ID) {
				t.Errorf("ID %q, want 32 lower-case hex digits", p.ID)
			}
		}
		return out
	}
	a, b := ids(x, y, x), ids(y, x, x)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("IDs of x, y, x = %v; of y, x, x = %v; want the same", a, b)
	}
	if xs := a[x.Question]; len(xs) != 2 || xs[0] == xs[1] {
		t.Fatalf("IDs of x asked twice = %q, want two different IDs", xs)
	}

	// Each run counts afresh: one Replay gives every run the same IDs.
	rp := &ui.Replay{}
	twice := func(ctx context.Context) string {
		_, _ = ui.Ask(ctx, x)
		_, _ = ui.Ask(ctx, x)
		return ""
	}
	_, first := run(rp, twice)
	_, second := run(rp, twice)
	if len(first) != 2 || !reflect.DeepEqual(first, second) {
		t.Fatalf("pending of two runs of one Replay = %v and %v, want the same two questions", first, second)
	}
	if first[0].ID != a[x.Question][0] || first[1].ID != a[x.Question][1] {
		t.Fatalf("IDs of x asked twice in a run = %s, %s; want %q as in the first Replay", first[0].ID, first[1].ID, a[x.Question])
	}

	// Requests that differ in any field have different IDs.
	variants := []ui.Request{
		{Question: "q"},
		{Question: "q", Header: "h"},
		{Question: "q", Options: []ui.Option{{Label: "a"}, {Label: "b"}}},
		{Question: "q", Options: []ui.Option{{Label: "b"}, {Label: "a"}}},
		{Question: "q", Options: []ui.Option{{Label: "a"}, {Label: "b"}}, DisallowCustom: true},
		{Question: "q", Options: []ui.Option{{Label: "a"}, {Label: "b"}}, MultiSelect: true},
		{Question: "q", Options: []ui.Option{{Label: "a", Value: "1"}, {Label: "b"}}},
		{Question: "q", Options: []ui.Option{{Label: "a", Description: "d"}, {Label: "b"}}},
		{Question: "q", Options: []ui.Option{{Label: "a", Recommended: true}, {Label: "b"}}},
		{Question: "q", Agent: &ui.Agent{}},
		{Question: "q", Agent: &ui.Agent{ID: "coder"}},
		{Question: "q", Agent: &ui.Agent{Name: "coder"}},
	}
	seen := map[string]int{}
	for i, req := range variants {
		id := firstID(req)
		if j, ok := seen[id]; ok {
			t.Errorf("variants %d and %d share ID %s", j, i, id)
		}
		seen[id] = i
	}
}

// TestReplayRecordedErrors: recorded errors come back as the coded errors a
// live provider returned, also through the record's JSON.
func TestReplayRecordedErrors(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		want    ui.HarnessError
		typeUIE bool // a *UserInteractionError, not only a *HarnessError
	}{
		{
			name: "declined",
			err:  ui.NewError(ui.CodeAskDeclined, "the user declined to answer", nil),
			want: ui.HarnessError{
				Name:    "UserInteractionError",
				Code:    ui.CodeAskDeclined,
				Message: "the user declined to answer",
			},
			typeUIE: true,
		},
		{
			name: "cancelled, wrapped",
			err:  fmt.Errorf("form: %w", ui.NewError(ui.CodeAskCancelled, "the user dismissed the form", errors.New("esc"))),
			want: ui.HarnessError{
				Name:    "UserInteractionError",
				Code:    ui.CodeAskCancelled,
				Message: "the user dismissed the form",
			},
			typeUIE: true,
		},
		{
			name:    "foreign",
			err:     &ui.HarnessError{Name: "ACPError", Code: "SESSION_CLOSED", Message: "closed"},
			want:    ui.HarnessError{Name: "ACPError", Code: "SESSION_CLOSED", Message: "closed"},
			typeUIE: false,
		},
		{
			name: "uncoded",
			err:  errors.New("bridge broke"),
			want: ui.HarnessError{
				Name:    "UserInteractionError",
				Code:    ui.CodeProviderFailed,
				Message: "provider failed: bridge broke",
			},
			typeUIE: true,
		},
		{
			name: "typed nil",
			err:  (*myError)(nil),
			want: ui.HarnessError{
				Name:    "UserInteractionError",
				Code:    ui.CodeProviderFailed,
				Message: "provider failed: it returned a nil *userinteraction_test.myError as its error",
			},
			typeUIE: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rp := &ui.Replay{}
			rp.Record(firstID(question), ui.Answer{Text: "ignored when err is set"}, tt.err)
			for _, rp := range []*ui.Replay{rp, replayFrom(t, marshal(t, rp))} {
				var err error
				_, pending := run(rp, func(ctx context.Context) string {
					_, err = ui.Ask(ctx, question)
					return ""
				})
				var he *ui.HarnessError
				if !errors.As(err, &he) || he.Name != tt.want.Name || he.Code != tt.want.Code || he.Message != tt.want.Message {
					t.Fatalf("Ask() error = %#v, want %+v", err, tt.want)
				}
				var uie *ui.UserInteractionError
				if errors.As(err, &uie) != tt.typeUIE {
					t.Fatalf("Ask() error is a *UserInteractionError: %v, want %v", !tt.typeUIE, tt.typeUIE)
				}
				if len(pending) != 0 {
					t.Fatalf("Pending() = %+v, want none: the question has an outcome", pending)
				}
			}
		})
	}
}

// TestReplayRecordsNoInputRequired: INPUT_REQUIRED is no outcome, so a
// recorded one would reach the tool while nothing is pending; Record and the
// record's JSON keep none, and the question is asked again.
func TestReplayRecordsNoInputRequired(t *testing.T) {
	id := firstID(question)
	rp := &ui.Replay{}
	rp.Record(id, ui.Answer{}, ui.NewError(ui.CodeInputRequired, "input required", nil))
	fromJSON := replayFrom(t, []byte(`{"`+id+`":`+
		`{"name":"UserInteractionError","code":"INPUT_REQUIRED","message":"input required"}}`))
	for _, rp := range []*ui.Replay{rp, fromJSON} {
		if record := marshal(t, rp); string(record) != "{}" {
			t.Fatalf("record = %s, want {}", record)
		}
		_, pending := run(rp, func(ctx context.Context) string { _, _ = ui.Ask(ctx, question); return "" })
		if len(pending) != 1 {
			t.Fatalf("Pending() = %+v, want the question pending again", pending)
		}
	}
}

// TestReplayTamperedRecord: a recorded answer is checked against the request
// with the rules of any provider's answer, so a changed record cannot slip an
// answer past the options. A broken one is no outcome: the question waits
// again, with the hint that says why.
func TestReplayTamperedRecord(t *testing.T) {
	permission := ui.Request{
		Question:       "Run rm -rf build?",
		Options:        []ui.Option{{Label: "Allow"}, {Label: "Deny"}},
		DisallowCustom: true,
	}
	id := firstID(permission)
	for _, tt := range []struct{ entry, hint string }{
		{`{"answer":"deny","option":{"label":"Allow"}}`, "Pick an option."},
		{`{"answer":"yes, and more"}`, "Pick from the options: this question takes no answer of your own."},
		{`{"answer":"","option":{"label":"Always"}}`, `"Always" is not one of the options: pick one of those listed.`},
		{`{"answer":" "}`, "Pick an option."},
	} {
		rp := replayFrom(t, []byte(`{"`+id+`":`+tt.entry+`}`))
		var err error
		_, pending := run(rp, func(ctx context.Context) string { _, err = ui.Ask(ctx, permission); return "" })
		wantCode(t, "Ask() with record "+tt.entry, err, ui.CodeInputRequired)
		if len(pending) != 1 || pending[0].ID != id || pending[0].Hint != tt.hint {
			t.Fatalf("Pending() with record %s = %+v, want the question again with hint %q", tt.entry, pending, tt.hint)
		}
		want := `{"` + id + `":{"refused":1,"hint":` + string(marshal(t, tt.hint)) + `}}`
		if got := marshal(t, rp); string(got) != want {
			t.Fatalf("record after %s = %s, want %s", tt.entry, got, want)
		}
	}
}

// TestReplaySwallowedInputRequired: a tool that ignores INPUT_REQUIRED and
// acts anyway cannot hide its question: the host checks Pending.
func TestReplaySwallowedInputRequired(t *testing.T) {
	got, pending := run(&ui.Replay{}, func(ctx context.Context) string {
		_, _ = ui.Ask(ctx, question)
		return "acted anyway"
	})
	if got != "acted anyway" || len(pending) != 1 || pending[0].Request.Question != question.Question {
		t.Fatalf("run = %q, pending %+v, want the swallowed question pending", got, pending)
	}
}

func TestReplayPendingAndRecord(t *testing.T) {
	var rp ui.Replay // the zero value is an empty record
	if got := marshal(t, &rp); string(got) != "{}" {
		t.Fatalf("json.Marshal(zero Replay) = %s, want {}", got)
	}
	req := ui.Request{Question: "Which?", Options: []ui.Option{{Label: "a"}}, Agent: &ui.Agent{Name: "n"}}
	_, err := rp.Ask(context.Background(), req)
	wantCode(t, "Replay.Ask()", err, ui.CodeInputRequired)
	if !strings.Contains(err.Error(), rp.Pending()[0].ID) {
		t.Errorf("Replay.Ask() error = %q, want it to name the question's ID", err)
	}

	// Pending is a copy: changing the request asked, or the result, changes nothing.
	req.Options[0].Label, req.Agent.Name = "changed", "changed"
	p := rp.Pending()
	p[0].Request.Options[0].Label = "changed too"
	if again := rp.Pending(); again[0].Request.Options[0].Label != "a" || again[0].Request.Agent.Name != "n" {
		t.Fatalf("Pending() = %+v, want the request as asked", again)
	}

	// A later Record does not change Pending; an ID that is not pending may be
	// recorded; one that is not valid UTF-8 is ignored.
	rp.Record(p[0].ID, ui.Answer{Text: "a"}, nil)
	rp.Record("from-an-earlier-run", ui.Answer{Text: "kept"}, nil)
	rp.Record("bad\xff", ui.Answer{Text: "dropped"}, nil)
	if got := rp.Pending(); len(got) != 1 {
		t.Fatalf("Pending() after Record = %+v, want the one question asked", got)
	}
	want := `{"` + p[0].ID + `":{"answer":"a"},"from-an-earlier-run":{"answer":"kept"}}`
	if got := marshal(t, &rp); string(got) != want {
		t.Fatalf("json.Marshal(Replay) = %s, want %s", got, want)
	}

	// An invalid request is INVALID_REQUEST and is not pending.
	_, err = rp.Ask(context.Background(), ui.Request{Question: " "})
	wantCode(t, "Replay.Ask(invalid)", err, ui.CodeInvalidRequest)
	if got := rp.Pending(); len(got) != 1 {
		t.Fatalf("Pending() after an invalid request = %+v, want only the valid question", got)
	}
}

// TestReplayAnswerIsACopy: an answer from the record never aliases it.
func TestReplayAnswerIsACopy(t *testing.T) {
	rp := &ui.Replay{}
	rp.Record(firstID(deleteIt), ui.Answer{Text: "Keep", Option: &ui.Option{Label: "Keep"}}, nil)
	record := string(marshal(t, rp))
	ans, err := rp.Ask(context.Background(), deleteIt)
	if err != nil || ans.Option == nil {
		t.Fatalf("Replay.Ask() = %+v, %v, want the recorded answer", ans, err)
	}
	ans.Option.Label = "changed"
	record = strings.Replace(record, "}}}", `},"audited":true}}`, 1) // the run gave it to its registry
	if got := string(marshal(t, rp)); got != record {
		t.Fatalf("record after changing the answer = %s, want %s", got, record)
	}
}

func TestReplayRecordJSON(t *testing.T) {
	rp := &ui.Replay{}
	rp.Record("a", ui.Option{Label: "Yes", Value: "y"}.Answer(), nil)
	declined := ui.NewError(ui.CodeAskDeclined, "the user declined", errors.New("cause stays on the Go side"))
	rp.Record("b", ui.Answer{}, declined)
	rp.Record("c", ui.Answer{}, errors.New("boom"))
	want := `{"a":{"answer":"y","option":{"label":"Yes","value":"y"}},` +
		`"b":{"name":"UserInteractionError","code":"ASK_DECLINED","message":"the user declined"},` +
		`"c":{"name":"UserInteractionError","code":"PROVIDER_FAILED","message":"provider failed: boom"}}`
	if got := marshal(t, rp); string(got) != want {
		t.Fatalf("json.Marshal(Replay) = %s, want %s", got, want)
	}
	again := replayFrom(t, []byte(want))
	if got := marshal(t, again); string(got) != want {
		t.Fatalf("round trip = %s, want %s", got, want)
	}

	// UnmarshalJSON replaces the record; null leaves it; a bad record leaves it too.
	const last = `{"z":{"answer":"only","options":[{"label":"a","recommended":true}]}}`
	if err := json.Unmarshal([]byte(last), again); err != nil {
		t.Fatal(err)
	}
	for _, null := range []string{"null", " null\n"} {
		if err := again.UnmarshalJSON([]byte(null)); err != nil {
			t.Fatalf("UnmarshalJSON(%q) error = %v", null, err)
		}
	}
	for _, bad := range []string{
		`[]`, `"x"`, `{"z":1}`, `{"z":null}`, `{"z":{}}`, `{"z":{"answer":"a","code":"B"}}`,
		`{"z":{"answer":5}}`, `{"z":{"code":5}}`, `{"z":{"answer":"a","option":[]}}`, `{`,
		// Keys are exact: encoding/json alone would read "Answer" as "answer".
		`{"z":{"answer":"deny","Answer":"allow"}}`,
		`{"z":{"Answer":"allow"}}`,
		`{"z":{"answer":"x","option":{"label":"Deny","Label":"Allow"}}}`,
		`{"z":{"answer":"x","options":[{"label":"a"},{"LABEL":"b"}]}}`,
		`{"z":{"answer":"x","note":"unknown"}}`,
		`{"z":{"name":"E","code":"C","message":"m","Code":"D"}}`,
		`{"z":{"name":"E","code":"","message":"no code"}}`,
	} {
		err := json.Unmarshal([]byte(bad), again)
		if err == nil {
			t.Errorf("json.Unmarshal(%s, *Replay) error = nil, want an error", bad)
			continue
		}
		if bad != `{` && !strings.Contains(err.Error(), "Replay record") {
			t.Errorf("json.Unmarshal(%s, *Replay) error = %q, want it to say it is about the Replay record", bad, err)
		}
	}
	if got := marshal(t, again); string(got) != last {
		t.Fatalf("record after failed decodes = %s, want the last good one", got)
	}
}

// TestReplayConcurrent asks, records and encodes from many goroutines at once.
func TestReplayConcurrent(t *testing.T) {
	const workers, asks = 8, 40
	rp := &ui.Replay{}
	var wg sync.WaitGroup
	pending := rp.Run(context.Background(), func(ctx context.Context) {
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := 0; i < asks; i++ {
					req := ui.Request{Question: fmt.Sprintf("q%d", i%5)} // equal requests across workers
					if _, err := ui.Ask(ctx, req); ui.CodeOf(err) != ui.CodeInputRequired {
						t.Errorf("Ask() error = %v, want INPUT_REQUIRED", err)
					}
					rp.Record(fmt.Sprint("w", w, "-", i), ui.Answer{Text: "x"}, nil)
					if i%8 == 0 {
						_ = rp.Pending()
						_ = marshal(t, rp)
					}
				}
			}(w)
		}
		wg.Wait()
	})
	ids := map[string]bool{}
	for _, p := range pending {
		ids[p.ID] = true
	}
	if len(pending) != workers*asks || len(ids) != workers*asks {
		t.Fatalf("%d pending with %d distinct IDs, want %d of each", len(pending), len(ids), workers*asks)
	}
	// A sequential run of the same multiset of questions yields the same IDs.
	_, again := run(&ui.Replay{}, func(ctx context.Context) string {
		for i := 0; i < workers*asks; i++ {
			_, _ = ui.Ask(ctx, ui.Request{Question: fmt.Sprintf("q%d", i%5)})
		}
		return ""
	})
	for _, p := range again {
		if !ids[p.ID] {
			t.Fatalf("sequential run has ID %s, which the concurrent run did not", p.ID)
		}
	}
}

// TestReplayRecordStrict: a record's keys are read as written, once each. A
// key twice in one object, at any depth, is an error, since readers disagree
// on which of the two counts (JSON.parse keeps the last, encoding/json merges
// them); so are values of another type than the key's.
func TestReplayRecordStrict(t *testing.T) {
	tests := []struct {
		record string
		want   string // in the error
	}{
		{`{"z":{"answer":"a"},"z":{"answer":"b"}}`, `Replay record: duplicate key "z"`},
		{`{"z":{"answer":"a","answer":"b"}}`, `entry "z": duplicate key "answer"`},
		{`{"q":{"answer":"","option":{"label":"Delete"},"option":{}}}`, `entry "q": duplicate key "option"`},
		{`{"z":{"answer":"x","options":[{"label":"a"}],"options":[]}}`, `duplicate key "options"`},
		{`{"z":{"answer":"x","option":{"label":"Delete","label":"Keep"}}}`, `entry "z": duplicate key "label"`},
		{
			record: `{"z":{"answer":"x","options":[{"label":"a"},{"label":"b","value":"1","value":"2"}]}}`,
			want:   `entry "z": duplicate key "value"`,
		},
		{`{"z":{"name":"E","code":"C","code":"D","message":"m"}}`, `duplicate key "code"`},
		{`{"z":{"answer":"x","Option":{"label":"a"}}}`, `unknown key "Option"`},
		{`{"z":{"code":"C","option":{"label":"a"}}}`, `unknown key "option"`},
		{`{"z":{"answer":"x","message":"m"}}`, `unknown key "message"`},
		{`{"z":{"answer":["x"]}}`, `cannot unmarshal array into Go struct field entry.answer of type string`},
		{`{"z":{"code":true}}`, `cannot unmarshal bool into Go struct field entry.code`},
		{`{"z":{"answer":"x","options":{"label":"a"}}}`, `cannot unmarshal object into Go struct field entry.options`},
		{`{"z":{"answer":"x","options":[null]}}`, `option: want a JSON object, not null`},
		{`{"z":{"answer":"x","option":"a"}}`, `cannot unmarshal string into Go struct field entry.option`},
		{`{"z":{"answer":"x","option":{"label":"a","recommended":"yes"}}}`, `cannot unmarshal string into Go struct field Option.option.recommended of type bool`},
		{`{"z":{"answer":"x","option":{"label":{}}}}`, `cannot unmarshal object into Go struct field Option.option.label of type string`},
		{`{"z":7}`, `cannot unmarshal number into Go value of type userinteraction.entry`},
		{`[{"answer":"x"}]`, `cannot unmarshal array into Go value of type map[string]userinteraction.entry`},
		{`{"z":{"answer":"x"}`, `Replay record: unexpected end of JSON input`},
		// Refusals: a count from 1 to 2 and a hint, or a count beside an answer.
		{`{"z":{"refused":1}}`, `a refusal's "hint" is empty`},
		{`{"z":{"hint":"h"}}`, `an outcome has either an "answer", a "code" or a "refused" count`},
		{`{"z":{"refused":0,"hint":"h"}}`, `"refused" is 0, not a whole number from 1 to 2`},
		{`{"z":{"refused":3,"hint":"h"}}`, `"refused" is 3, not a whole number from 1 to 2`},
		{`{"z":{"refused":-1,"hint":"h"}}`, `"refused" is -1, not a whole number from 1 to 2`},
		{`{"z":{"refused":1.5,"hint":"h"}}`, `"refused" is 1.5, not a whole number`},
		{`{"z":{"refused":1e0,"hint":"h"}}`, `"refused" is 1e0, not a whole number`},
		{`{"z":{"refused":"1","hint":"h"}}`, `"refused" is "1", not a whole number`},
		{`{"z":{"refused":1,"hint":"h","refused":2}}`, `duplicate key "refused"`},
		{`{"z":{"refused":1,"hint":"h","Hint":"i"}}`, `unknown key "Hint"`},
		{`{"z":{"answer":"x","refused":1,"hint":"h"}}`, `unknown key "hint"`},
		{`{"z":{"code":"C","refused":1}}`, `unknown key "refused"`},
		{`{"z":{"answer":"x","refused":3}}`, `"refused" is 3, not a whole number from 1 to 2`},
		{`{"z":{"refused":null,"hint":"h"}}`, `"refused" is null, not a whole number`},
		{`{"z":{"code":null,"message":"m"}}`, `an outcome's "code" is empty`},
		// A key is read as written: an escape spells no other key.
		{`{"z":{"\u0041nswer":"allow"}}`, `unknown key "Answer"`},
		// An INPUT_REQUIRED entry is dropped, and still counts as a key.
		{`{"z":{"name":"E","code":"INPUT_REQUIRED","message":"m"},"z":{"answer":"x"}}`, `duplicate key "z"`},
	}
	for _, tt := range tests {
		err := (&ui.Replay{}).UnmarshalJSON([]byte(tt.record))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("UnmarshalJSON(%s) error = %v, want one that says %s", tt.record, err, tt.want)
		}
	}

	// What is read as written: escapes, white space, null as the zero value.
	good := ` { "a\u00e9" : { "answer" : "\"y\" \u00e9", ` +
		`"option" : { "label" : "Yes", "recommended" : true, "value" : null, "description" : "d" } } ,
		"b":{"answer":"x","options":[ {"label":"p","recommended":false} , {"label":"q","recommended":null} ]},
		"c":{"answer":"x","option":null,"options":null}, "d":{"answer":"x","options":[]},
		"e":{"name":null,"code":"ASK_DECLINED","message":"m"}, "f":{ "hint" : "h" , "refused" : 2 },
		"g":{"refused":1,"answer":"x"} } `
	want := `{"aé":{"answer":"\"y\" é","option":{"label":"Yes","description":"d","recommended":true}},` +
		`"b":{"answer":"x","options":[{"label":"p"},{"label":"q"}]},"c":{"answer":"x"},"d":{"answer":"x"},` +
		`"e":{"name":"","code":"ASK_DECLINED","message":"m"},"f":{"refused":2,"hint":"h"},"g":{"answer":"x","refused":1}}`
	if got := marshal(t, replayFrom(t, []byte(good))); string(got) != want {
		t.Fatalf("record read from %s = %s, want %s", good, got, want)
	}
}

// formLead returns the line a Form leads its second form with after the
// client answered req's first form with content: the hint of the rule that
// content breaks.
func formLead(t *testing.T, req ui.Request, content map[string]any) string {
	t.Helper()
	client := &formClient{responses: []response{accept(content), {action: "cancel"}}}
	_, err := ui.NewForm(client.elicit).Ask(context.Background(), req)
	forms := client.sent()
	if ui.CodeOf(err) != ui.CodeAskCancelled || len(forms) != 2 {
		t.Fatalf("Form.Ask() = %v after %d forms, want ASK_CANCELLED after 2: %v breaks no rule", err, len(forms), content)
	}
	lead, rest, _ := strings.Cut(forms[1].Message, "\n")
	if rest != req.Elicitation().Message {
		t.Fatalf("second form's message = %q, want one line and then %q", forms[1].Message, req.Elicitation().Message)
	}
	return lead
}

// asking returns a tool that asks req and returns the answer's text, or the
// error's code.
func asking(req ui.Request) func(context.Context) string {
	return func(ctx context.Context) string {
		ans, err := ui.Ask(ctx, req)
		if err != nil {
			return ui.CodeOf(err)
		}
		return "answer: " + ans.Text
	}
}

// serveForms is one round of the README's serve loop: open the state,
// record the response of the client to each question pending in it, mapped
// with ElicitationAnswer, run, seal.
func serveForms(
	t *testing.T, state string, responses map[string]response, tool func(context.Context) string,
) (string, []ui.Pending, string) {
	t.Helper()
	rp, err := ui.OpenReplay(sealKey, "call", state)
	if err != nil {
		t.Fatalf("OpenReplay() error = %v, want nil", err)
	}
	for _, q := range rp.Pending() {
		if r, ok := responses[q.ID]; ok {
			ans, err := ui.ElicitationAnswer(r.action, r.content)
			rp.Record(q.ID, ans, err)
		}
	}
	result, pending := run(rp, tool)
	next, err := rp.Seal(sealKey, "call", time.Hour)
	if err != nil {
		t.Fatalf("Seal() error = %v, want nil", err)
	}
	return result, pending, next
}

// schemaValid are responses that follow the schema of their request's form
// and still break its rules: a client that sends one must not end the call
// with INVALID_ANSWER on its first try.
var schemaValid = []struct {
	name    string
	req     ui.Request
	broken  map[string]any
	fixed   map[string]any
	wantAns string
}{
	{"empty text, free-form", freeForm, map[string]any{"text": ""}, map[string]any{"text": "main"}, "main"},
	{"blank text, free-form", freeForm, map[string]any{"text": "  "}, map[string]any{"text": "main"}, "main"},
	{"nothing, single-select with text", pickEnv, map[string]any{}, map[string]any{"choice": "Production"}, "Production"},
	{"nothing, multi-select with text", pickSteps, map[string]any{}, map[string]any{"choice": []any{"lint"}}, "lint"},
	{"no picks, multi-select with text", pickSteps, map[string]any{"choice": []any{}},
		map[string]any{"choice": []any{"build"}}, "build"},
	{"no picks and empty text", pickSteps, map[string]any{"choice": []any{}, "text": ""},
		map[string]any{"text": "none"}, "none"},
	{"a pick twice", pickSteps, map[string]any{"choice": []any{"lint", "lint"}},
		map[string]any{"choice": []any{"lint", "test"}}, "lint, unit"},
}

// TestReplayAsksAgainAfterRecord: a recorded response that breaks the
// request's rules is no outcome. It leaves the record, and the question
// waits again, under its ID, with the hint a Form would lead with. A good
// response then answers it.
func TestReplayAsksAgainAfterRecord(t *testing.T) {
	for _, tt := range schemaValid {
		t.Run(tt.name, func(t *testing.T) {
			rp := &ui.Replay{}
			tool := asking(tt.req)
			_, pending := run(rp, tool)
			id := pending[0].ID
			ans, err := ui.ElicitationAnswer("accept", tt.broken)
			rp.Record(id, ans, err)
			result, pending := run(rp, tool)
			hint := formLead(t, tt.req, tt.broken)
			if result != ui.CodeInputRequired || len(pending) != 1 || pending[0].ID != id || pending[0].Hint != hint {
				t.Fatalf("run after %v = %q, pending %+v, want INPUT_REQUIRED and the question again with hint %q",
					tt.broken, result, pending, hint)
			}
			want := tt.req.Elicitation()
			want.Message = hint + "\n" + want.Message
			if got := pending[0].Elicitation(); !reflect.DeepEqual(got, want) {
				t.Fatalf("Elicitation() of the pending question = %+v, want %+v", got, want)
			}
			wantRecord := `{"` + id + `":{"refused":1,"hint":` + string(marshal(t, hint)) + `}}`
			if got := marshal(t, rp); string(got) != wantRecord {
				t.Fatalf("record = %s, want %s", got, wantRecord)
			}
			ans, err = ui.ElicitationAnswer("accept", tt.fixed)
			rp.Record(id, ans, err)
			if result, pending := run(rp, tool); result != "answer: "+tt.wantAns || len(pending) != 0 {
				t.Fatalf("run after %v = %q, pending %+v, want %q", tt.fixed, result, pending, tt.wantAns)
			}
		})
	}
}

// TestReplayAsksAgainThroughSealedState: the same through the rounds of the
// README's serve loop, where only sealed state carries the refusal from one
// round to the next.
func TestReplayAsksAgainThroughSealedState(t *testing.T) {
	for _, tt := range schemaValid {
		t.Run(tt.name, func(t *testing.T) {
			tool := asking(tt.req)
			_, pending, state := serveForms(t, "", nil, tool)
			id := pending[0].ID
			result, pending, state := serveForms(t, state, map[string]response{id: accept(tt.broken)}, tool)
			hint := formLead(t, tt.req, tt.broken)
			if result != ui.CodeInputRequired || len(pending) != 1 || pending[0].ID != id || pending[0].Hint != hint {
				t.Fatalf("round 2 = %q, pending %+v, want INPUT_REQUIRED and the question again with hint %q",
					result, pending, hint)
			}
			opened, err := ui.OpenReplay(sealKey, "call", state)
			if want := []ui.Pending{{ID: id, Hint: hint}}; err != nil || !reflect.DeepEqual(opened.Pending(), want) {
				t.Fatalf("OpenReplay() = %+v, %v, want the question pending with its hint", opened.Pending(), err)
			}
			result, pending, _ = serveForms(t, state, map[string]response{id: accept(tt.fixed)}, tool)
			if result != "answer: "+tt.wantAns || len(pending) != 0 {
				t.Fatalf("round 3 = %q, pending %+v, want %q", result, pending, tt.wantAns)
			}
		})
	}
}

// TestReplayThirdRefusal: as a Form gives up after 3 refused forms, the
// third refused response to a question is its outcome INVALID_ANSWER, also
// when the count travels through sealed state. It is recorded, so the next
// run has the same outcome.
func TestReplayThirdRefusal(t *testing.T) {
	tool := asking(pickSteps)
	_, pending, state := serveForms(t, "", nil, tool)
	id := pending[0].ID
	broken := []map[string]any{{"choice": []any{}}, {"choice": []any{"x"}}, {}}
	var result string
	for i, content := range broken {
		result, pending, state = serveForms(t, state, map[string]response{id: accept(content)}, tool)
		if i < len(broken)-1 && (result != ui.CodeInputRequired || len(pending) != 1) {
			t.Fatalf("round after refusal %d = %q, pending %+v, want the question asked again", i+1, result, pending)
		}
	}
	if result != ui.CodeInvalidAnswer || len(pending) != 0 {
		t.Fatalf("round after the third refusal = %q, pending %+v, want INVALID_ANSWER", result, pending)
	}
	rp, err := ui.OpenReplay(sealKey, "call", state)
	if err != nil {
		t.Fatalf("OpenReplay() error = %v, want nil", err)
	}
	var got error
	run(rp, func(ctx context.Context) string { _, got = ui.Ask(ctx, pickSteps); return "" })
	wantCode(t, "Ask() after three refusals", got, ui.CodeInvalidAnswer)
	want := "invalid answer: the answer is empty (the last of 3 refused responses)"
	if msg := got.(*ui.UserInteractionError).Message; msg != want {
		t.Fatalf("Ask() message = %q, want %q", msg, want)
	}
}

// TestReplayRefusalsCounted: an answer recorded after refused responses
// keeps their count in the record's JSON, so that a record kept between
// Record and the next run still gives up at the third refusal.
func TestReplayRefusalsCounted(t *testing.T) {
	id := firstID(pickSteps)
	rp := replayFrom(t, []byte(`{"`+id+`":{"refused":2,"hint":"Pick each option only once."}}`))
	if _, pending := run(rp, asking(pickSteps)); len(pending) != 1 || pending[0].Hint != "Pick each option only once." {
		t.Fatalf("Pending() = %+v, want the question with the recorded hint", pending)
	}
	rp.Record(id, ui.Answer{}, nil)
	want := `{"` + id + `":{"answer":"","refused":2}}`
	if got := marshal(t, rp); string(got) != want {
		t.Fatalf("record = %s, want %s", got, want)
	}
	rp = replayFrom(t, marshal(t, rp))
	if result, _ := run(rp, asking(pickSteps)); result != ui.CodeInvalidAnswer {
		t.Fatalf("run with the third refused response = %q, want INVALID_ANSWER", result)
	}

	// A refusal is replaced by the human's error, which ends the count.
	rp = replayFrom(t, []byte(`{"`+id+`":{"refused":1,"hint":"Pick at least one option."}}`))
	rp.Record(id, ui.Answer{}, ui.NewError(ui.CodeAskDeclined, "the user declined to answer", nil))
	if result, _ := run(rp, asking(pickSteps)); result != ui.CodeAskDeclined {
		t.Fatalf("run with a recorded decline = %q, want ASK_DECLINED", result)
	}
}

// TestReplayBatch: the questions of one AskAll share a Batch, distinct per
// call; a lone Ask has none. A run of the opened Replay gives the same.
func TestReplayBatch(t *testing.T) {
	tool := func(ctx context.Context) string {
		_, _ = ui.Ask(ctx, question)
		_, _ = ui.AskAll(ctx, three)
		_, _ = ui.AskAll(ctx, []ui.Request{freeForm})
		return ""
	}
	rp := &ui.Replay{}
	_, pending := run(rp, tool)
	if len(pending) != 5 {
		t.Fatalf("Pending() = %+v, want 5 questions", pending)
	}
	first, second := pending[1].Batch, pending[4].Batch
	if pending[0].Batch != "" || first == "" || second == "" || first == second ||
		pending[2].Batch != first || pending[3].Batch != first {
		t.Fatalf("Batch of the pending questions = %q, %q, %q, %q, %q; want none, then one for each AskAll",
			pending[0].Batch, pending[1].Batch, pending[2].Batch, pending[3].Batch, pending[4].Batch)
	}
	_, again := run(rp, tool)
	if !reflect.DeepEqual(again, pending) {
		t.Fatalf("Pending() of the next run = %+v, want %+v: a run gives the same batches", again, pending)
	}
	state, err := rp.Seal(sealKey, "call", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	opened, err := ui.OpenReplay(sealKey, "call", state)
	if err != nil {
		t.Fatal(err)
	}
	if _, again := run(opened, tool); !reflect.DeepEqual(again, pending) {
		t.Fatalf("Pending() of the opened Replay's run = %+v, want %+v", again, pending)
	}
}

// TestReplayBatchPlace: Replay's AskAll gives each pending question its
// place in the batch and the batch's size, as the Inbox does, also when
// questions before it are answered; a lone Ask has neither.
func TestReplayBatchPlace(t *testing.T) {
	tool := func(ctx context.Context) string {
		_, _ = ui.Ask(ctx, question)
		_, _ = ui.AskAll(ctx, three)
		return ""
	}
	rp := &ui.Replay{}
	_, pending := run(rp, tool)
	type place struct{ index, count int }
	var got []place
	for _, q := range pending {
		got = append(got, place{q.Index, q.Count})
	}
	if want := []place{{0, 0}, {0, 3}, {1, 3}, {2, 3}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("places of the pending questions = %v, want %v", got, want)
	}
	if msg := pending[2].Elicitation().Message; !strings.HasPrefix(msg, "Question 2 of 3.\n") {
		t.Fatalf("Elicitation().Message = %q, want it led by its place", msg)
	}
	rp.Record(pending[0].ID, ui.Answer{Text: "yes"}, nil)
	rp.Record(pending[1].ID, ui.Answer{Text: "production"}, nil)
	_, pending = run(rp, tool)
	if len(pending) != 2 || pending[0].Index != 1 || pending[1].Index != 2 || pending[0].Count != 3 {
		t.Fatalf("Pending() after the first answer = %+v, want questions 2 and 3 of 3", pending)
	}
}

// TestReplayVia: the record keeps the Via each answer was recorded with, in
// its JSON and through Seal and OpenReplay, and the next run answers with it.
func TestReplayVia(t *testing.T) {
	rp := &ui.Replay{}
	_, pending := run(rp, asking(deleteIt))
	rp.Record(pending[0].ID, ui.Answer{Text: "Keep", Via: "claude-code"}, nil)
	want := `{"` + pending[0].ID + `":{"answer":"Keep","via":"claude-code"}}`
	if got := marshal(t, rp); string(got) != want {
		t.Fatalf("record = %s, want %s", got, want)
	}
	state, err := rp.Seal(sealKey, "call", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	opened, err := ui.OpenReplay(sealKey, "call", state)
	if err != nil {
		t.Fatal(err)
	}
	for name, rp := range map[string]*ui.Replay{"read from JSON": replayFrom(t, []byte(want)), "opened": opened} {
		var ans ui.Answer
		run(rp, func(ctx context.Context) string { ans, _ = ui.Ask(ctx, deleteIt); return "" })
		if ans.Via != "claude-code" || ans.Text != "Keep" {
			t.Errorf("%s: Ask() = %+v, want Keep via claude-code", name, ans)
		}
	}
	for _, bad := range []string{
		`{"z":{"code":"ASK_DECLINED","via":"x","via":"y"}}`,
		`{"z":{"refused":1,"hint":"h","via":"x"}}`,
		`{"z":{"answer":"x","via":5}}`,
		`{"z":{"answer":"x","via":"a","via":"b"}}`,
		`{"z":{"answer":"x","Via":"a"}}`,
	} {
		if err := (&ui.Replay{}).UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("UnmarshalJSON(%s) error = nil, want an error", bad)
		}
	}
}

// TestReplayRecordText: a record's strings read the same in Go and
// JavaScript, or not at all: invalid UTF-8 reads as U+FFFD in Go, and an
// escaped lone surrogate too, where JavaScript keeps it.
func TestReplayRecordText(t *testing.T) {
	for _, tt := range []struct{ name, record string }{
		{"invalid UTF-8 in an answer", "{\"z\":{\"answer\":\"a\xffb\"}}"},
		{"invalid UTF-8 in an ID", "{\"z\xc3\":{\"answer\":\"a\"}}"},
		{"a cut sequence in a label", "{\"z\":{\"answer\":\"x\",\"option\":{\"label\":\"\xe2\x82\"}}}"},
		{"a lone high surrogate", `{"z":{"answer":"\ud800"}}`},
		{"a lone low surrogate", `{"z":{"answer":"\udc00"}}`},
		{"a high surrogate at the end", `{"z":{"answer":"x\uD83D"}}`},
		{"a high surrogate before text", `{"z":{"answer":"\ud83dx"}}`},
		{"two high surrogates", `{"z":{"answer":"\ud83d\ud83d"}}`},
		{"two low surrogates", `{"z":{"answer":"\udc00\udc00"}}`},
		{"a low surrogate after a pair", `{"z":{"answer":"\ud83d\ude80\udc00"}}`},
		{"a high one and another escape", `{"z":{"answer":"\ud83d\n"}}`},
		{"a lone surrogate in an ID", `{"\udfff":{"answer":"x"}}`},
		{"a lone surrogate in a hint", `{"z":{"refused":1,"hint":"\ud800"}}`},
		{"a lone surrogate in a message", `{"z":{"code":"ASK_DECLINED","message":"\udbff"}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := (&ui.Replay{}).UnmarshalJSON([]byte(tt.record))
			if err == nil || !strings.Contains(err.Error(), "Replay record") {
				t.Fatalf("UnmarshalJSON(%q) error = %v, want a Replay record error", tt.record, err)
			}
			_, err = ui.OpenReplay(sealKey, "call", sealByHand(t, tt.record))
			wantCode(t, "OpenReplay() of that record", err, ui.CodeInvalidState)
			if !strings.Contains(err.Error(), "Replay record") {
				t.Fatalf("OpenReplay() error = %v, want a cause that names the record", err)
			}
		})
	}

	// Escapes that are not lone surrogates read as written.
	good := `{"z":{"answer":"\ud83d\ude80 \\ud800 \u00e9 \\\ud83d\udE80 \uffff"}}`
	want := `{"z":{"answer":"🚀 \\ud800 é \\🚀 ` + "\uffff" + `"}}`
	if got := marshal(t, replayFrom(t, []byte(good))); string(got) != want {
		t.Fatalf("record read from %s = %s, want %s", good, got, want)
	}
	if _, err := ui.OpenReplay(sealKey, "call", sealByHand(t, good)); err != nil {
		t.Fatalf("OpenReplay() of %s = %v, want it opened", good, err)
	}
}

// TestReplayAskAllAsksAgain: within an AskAll, a recorded answer that breaks
// its question's rules leaves that question pending, in its batch, with its
// hint; the answers before it stand.
func TestReplayAskAllAsksAgain(t *testing.T) {
	var got []ui.Answer
	var gotErr error
	tool := func(ctx context.Context) string {
		got, gotErr = ui.AskAll(ctx, three)
		return ""
	}
	rp := &ui.Replay{}
	_, asked := run(rp, tool)
	rp.Record(asked[0].ID, ui.Answer{Text: "production"}, nil)
	rp.Record(asked[1].ID, ui.Pick(ui.Option{Label: "42"}, ui.Option{Label: "42"}), nil)
	rp.Record(asked[2].ID, ui.Answer{Text: "the release"}, nil)
	_, pending := run(rp, tool)
	wantCode(t, "AskAll()", gotErr, ui.CodeInputRequired)
	if !reflect.DeepEqual(texts(got), []string{"production"}) {
		t.Fatalf("AskAll() = %q, want the answer before the broken one", texts(got))
	}
	if len(pending) != 1 || pending[0].ID != asked[1].ID || pending[0].Batch != asked[0].ID ||
		pending[0].Hint != "Pick each option only once." {
		t.Fatalf("Pending() = %+v, want %s again in batch %s, with its hint", pending, asked[1].ID, asked[0].ID)
	}
}

// TestReplayChecksRequests: a Replay checks each request asked of it,
// through its Run's registry or directly, in its Run or after it, so no
// invalid question joins Pending.
func TestReplayChecksRequests(t *testing.T) {
	invalid := ui.Request{Question: "Pick", Options: []ui.Option{{Label: "a"}, {Label: "A"}}}
	rp := &ui.Replay{}
	var inside context.Context
	var viaRegistry error
	var direct, directAll error
	rp.Run(context.Background(), func(ctx context.Context) {
		inside = ctx
		_, viaRegistry = ui.AskAll(ctx, []ui.Request{invalid})
		// A tool that asks the Replay itself, with the run's context.
		_, direct = rp.Ask(ctx, ui.Request{Question: "   "})
		_, directAll = rp.AskAll(ctx, []ui.Request{invalid})
	})
	wantCode(t, "AskAll() in Run", viaRegistry, ui.CodeInvalidRequest)
	wantCode(t, "Replay.Ask() in Run", direct, ui.CodeInvalidRequest)
	wantCode(t, "Replay.AskAll() in Run", directAll, ui.CodeInvalidRequest)
	_, err := rp.Ask(inside, invalid)
	wantCode(t, "Replay.Ask() after Run", err, ui.CodeInvalidRequest)
	_, err = rp.AskAll(inside, []ui.Request{invalid})
	wantCode(t, "Replay.AskAll() after Run", err, ui.CodeInvalidRequest)
	_, err = rp.AskAll(scope(t, answering("x")), []ui.Request{invalid})
	wantCode(t, "Replay.AskAll() with another registry", err, ui.CodeInvalidRequest)
	if got := rp.Pending(); len(got) != 0 {
		t.Fatalf("Pending() = %+v, want no invalid question", got)
	}
}

// TestReplayRunAudits: Run's registry calls the Ended of the registry its
// ctx carries, so a host's audit sees each question's answer once, in the
// run that first returns it, and never INPUT_REQUIRED, which ends nothing
// (finding 7 of the review of how a question ends). Later rounds, through
// Seal and OpenReplay too, do not audit an answer again; a recorded
// decline keeps its Via there.
func TestReplayRunAudits(t *testing.T) {
	var seen []string
	host := &ui.Registry{Ended: func(req ui.Request, o ui.Outcome) {
		if o.Err != nil {
			seen = append(seen, req.Question+": "+ui.CodeOf(o.Err)+" via "+o.Answer.Via)
			return
		}
		seen = append(seen, req.Question+": "+o.Answer.Text+" via "+o.Answer.Via)
	}}
	ctx := ui.WithRegistry(context.Background(), host)
	yesNo := []ui.Option{{Label: "Yes"}, {Label: "No"}}
	first, second, third := ui.Request{Question: "Deploy?", Options: yesNo}, ui.Request{Question: "Migrate?", Options: yesNo}, ui.Request{Question: "Notify?", Options: yesNo}
	tool := func(ctx context.Context) {
		for _, req := range []ui.Request{first, second, third} {
			if _, err := ui.Ask(ctx, req); err != nil {
				return
			}
		}
	}
	rp := &ui.Replay{}
	for round, answer := range []ui.Outcome{
		{Answer: ui.Answer{Text: "Yes", Via: "mcp:client"}},
		{Answer: ui.Answer{Text: "No", Via: "mcp:client"}},
		{Answer: ui.Answer{Via: "mcp:client"}, Err: ui.NewError(ui.CodeAskDeclined, "declined", nil)},
	} {
		pending := rp.Run(ctx, tool)
		if len(pending) != 1 {
			t.Fatalf("round %d: Run() = %+v, want one question", round, pending)
		}
		rp.Record(pending[0].ID, answer.Answer, answer.Err)
		state, err := rp.Seal(sealKey, "call", time.Hour) // the next round may be another process
		if err != nil {
			t.Fatal(err)
		}
		if rp, err = ui.OpenReplay(sealKey, "call", state); err != nil {
			t.Fatal(err)
		}
	}
	rp.Run(ctx, tool)
	rp.Run(ctx, tool) // a run after the last: nothing new
	want := []string{"Deploy?: Yes via mcp:client", "Migrate?: No via mcp:client", "Notify?: ASK_DECLINED via mcp:client"}
	if !reflect.DeepEqual(seen, want) {
		t.Fatalf("Ended saw %q, want %q", seen, want)
	}
	if host.Provider() != nil {
		t.Fatal("Run registered the Replay in the host's registry, want a registry of its own")
	}
}
