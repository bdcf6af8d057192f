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
// like any provider's answer, so a changed record cannot slip an answer past
// the options.
func TestReplayTamperedRecord(t *testing.T) {
	permission := ui.Request{
		Question:       "Run rm -rf build?",
		Options:        []ui.Option{{Label: "Allow"}, {Label: "Deny"}},
		DisallowCustom: true,
	}
	id := firstID(permission)
	for _, entry := range []string{
		`{"answer":"deny","option":{"label":"Allow"}}`,
		`{"answer":"yes, and more"}`,
		`{"answer":"","option":{"label":"Always"}}`,
		`{"answer":" "}`,
	} {
		rp := replayFrom(t, []byte(`{"`+id+`":`+entry+`}`))
		var err error
		run(rp, func(ctx context.Context) string { _, err = ui.Ask(ctx, permission); return "" })
		wantCode(t, "Ask() with record "+entry, err, ui.CodeInvalidAnswer)
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
	rp.Record(firstID(question), ui.Answer{Text: "y", Option: &ui.Option{Label: "y"}}, nil)
	record := string(marshal(t, rp))
	ans, err := rp.Ask(context.Background(), question)
	if err != nil || ans.Option == nil {
		t.Fatalf("Replay.Ask() = %+v, %v, want the recorded answer", ans, err)
	}
	ans.Option.Label = "changed"
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
		{`{"z":{"answer":"x","option":{"label":"Delete","label":"Keep"}}}`, `option: duplicate key "label"`},
		{
			record: `{"z":{"answer":"x","options":[{"label":"a"},{"label":"b","value":"1","value":"2"}]}}`,
			want:   `option: duplicate key "value"`,
		},
		{`{"z":{"name":"E","code":"C","code":"D","message":"m"}}`, `duplicate key "code"`},
		{`{"z":{"answer":"x","Option":{"label":"a"}}}`, `unknown key "Option"`},
		{`{"z":{"code":"C","option":{"label":"a"}}}`, `unknown key "option"`},
		{`{"z":{"answer":"x","message":"m"}}`, `unknown key "message"`},
		{`{"z":{"answer":["x"]}}`, `"answer" is an array, not a string`},
		{`{"z":{"code":true}}`, `"code" is a boolean, not a string`},
		{`{"z":{"answer":"x","options":{"label":"a"}}}`, `"options" is an object, not an array`},
		{`{"z":{"answer":"x","options":[null]}}`, `option: want a JSON object, not null`},
		{`{"z":{"answer":"x","option":"a"}}`, `option: want a JSON object, not a string`},
		{`{"z":{"answer":"x","option":{"label":"a","recommended":"yes"}}}`, `"recommended" is a string, not a boolean`},
		{`{"z":{"answer":"x","option":{"label":{}}}}`, `"label" is an object, not a string`},
		{`{"z":7}`, `want a JSON object, not a number`},
		{`[{"answer":"x"}]`, `want a JSON object, not an array`},
		{`{"z":{"answer":"x"}`, `Replay record: unexpected end of JSON input`},
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
		"e":{"name":null,"code":"ASK_DECLINED","message":"m"} } `
	want := `{"aé":{"answer":"\"y\" é","option":{"label":"Yes","description":"d","recommended":true}},` +
		`"b":{"answer":"x","options":[{"label":"p"},{"label":"q"}]},"c":{"answer":"x"},"d":{"answer":"x"},` +
		`"e":{"name":"","code":"ASK_DECLINED","message":"m"}}`
	if got := marshal(t, replayFrom(t, []byte(good))); string(got) != want {
		t.Fatalf("record read from %s = %s, want %s", good, got, want)
	}
}
