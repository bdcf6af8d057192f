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

// runCall runs tool once as a Replay host does: in a registry scoped to the
// call, with rp as its provider. It returns the tool's result and the
// questions left pending.
func runCall(t *testing.T, rp *ui.Replay, tool func(context.Context) string) (string, []ui.Pending) {
	t.Helper()
	return tool(scope(t, rp)), rp.Pending()
}

// replayFrom returns a new Replay for the next run: the kept record, then the
// new outcomes, which recordNew records on it.
func replayFrom(t *testing.T, record []byte, recordNew func(*ui.Replay)) *ui.Replay {
	t.Helper()
	rp := &ui.Replay{}
	if err := json.Unmarshal(record, rp); err != nil {
		t.Fatalf("json.Unmarshal(%s, *Replay) error = %v", record, err)
	}
	if recordNew != nil {
		recordNew(rp)
	}
	return rp
}

// firstID returns the ID of the first ask of req in a run.
func firstID(req ui.Request) string {
	var rp ui.Replay
	_, _ = rp.Ask(context.Background(), req)
	return rp.Pending()[0].ID
}

var hexID = regexp.MustCompile(`^[0-9a-f]{32}$`)

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal(%T) error = %v", v, err)
	}
	return b
}

var (
	whereTo = ui.Request{
		Question:       "Deploy where?",
		Options:        []ui.Option{{Label: "Staging", Value: "staging"}, {Label: "Production", Value: "production"}},
		DisallowCustom: true,
	}
	yesNo = []ui.Option{{Label: "Yes"}, {Label: "No", Recommended: true}}
)

// deployTool asks two questions, the second depending on the first answer,
// and acts only after both.
func deployTool(ctx context.Context) string {
	target, err := ui.Ask(ctx, whereTo)
	if err != nil {
		return "not deployed: " + ui.CodeOf(err)
	}
	ok, err := ui.Ask(ctx, ui.Request{Question: "Deploy to " + target.Text + " now?", Options: yesNo})
	if err != nil {
		return "not deployed: " + ui.CodeOf(err)
	}
	return "deploy to " + target.Text + ": " + ok.Text
}

// TestReplayThreeRuns: a call with two questions completes in exactly three
// runs, the record carried between them as JSON.
func TestReplayThreeRuns(t *testing.T) {
	// Run 1: the first question is pending.
	rp := &ui.Replay{}
	got, pending := runCall(t, rp, deployTool)
	if got != "not deployed: INPUT_REQUIRED" || len(pending) != 1 || !reflect.DeepEqual(pending[0].Request, whereTo) {
		t.Fatalf("run 1 = %q, pending %+v, want INPUT_REQUIRED with %q pending", got, pending, whereTo.Question)
	}
	record := marshal(t, rp)
	if string(record) != "{}" {
		t.Fatalf("run 1 record = %s, want {}", record)
	}

	// Run 2: the human picked Production; the second question is pending.
	first := pending[0].ID
	rp = replayFrom(t, record, func(rp *ui.Replay) {
		rp.Record(first, ui.Answer{Option: &ui.Option{Label: "Production"}}, nil)
	})
	got, pending = runCall(t, rp, deployTool)
	if got != "not deployed: INPUT_REQUIRED" || len(pending) != 1 || pending[0].Request.Question != "Deploy to production now?" {
		t.Fatalf("run 2 = %q, pending %+v, want the second question pending", got, pending)
	}
	if pending[0].ID == first {
		t.Fatalf("second question has the first one's ID %s", first)
	}

	// Run 3: the human said Yes; the call completes.
	second := pending[0].ID
	rp = replayFrom(t, marshal(t, rp), func(rp *ui.Replay) {
		rp.Record(second, ui.Answer{Text: "Yes"}, nil)
	})
	got, pending = runCall(t, rp, deployTool)
	if got != "deploy to production: Yes" || len(pending) != 0 {
		t.Fatalf("run 3 = %q, pending %+v, want the call complete", got, pending)
	}
}

// TestReplayGoldenID fixes the ID scheme: a change of it breaks every record
// that hosts keep, so it must be a visible, deliberate change. The IDs were
// computed apart from this package, as the first 32 hex digits of the SHA-256
// of the request's JSON, a newline and the ask's number in the run (from 0):
//
//	python3 -c 'import hashlib; print(hashlib.sha256(b"{\"question\":\"Proceed?\"}\n0").hexdigest()[:32])'
func TestReplayGoldenID(t *testing.T) {
	tests := []struct {
		req  ui.Request
		want []string // the IDs of the first and second ask of req in a run
	}{
		{ui.Request{Question: "Proceed?"}, []string{"64fc3ff23b84066998beb28b80892086", "c06dd81c76651d9f2520a9de52171b59"}},
		{whereTo, []string{"1865bb984e908edc62f52e86c187b8b5", "fff61e7e5fb76edfe54f4e2abd53f8b9"}},
	}
	for _, tt := range tests {
		_, pending := runCall(t, &ui.Replay{}, func(ctx context.Context) string {
			_, _ = ui.Ask(ctx, tt.req)
			_, _ = ui.Ask(ctx, tt.req)
			return ""
		})
		if got := []string{pending[0].ID, pending[1].ID}; !reflect.DeepEqual(got, tt.want) {
			t.Errorf("IDs of %s = %q, want %q", marshal(t, tt.req), got, tt.want)
		}
	}
}

// TestReplayIDs: an ID depends only on the request's JSON and on how many
// equal requests the run asked before it.
func TestReplayIDs(t *testing.T) {
	x, y := ui.Request{Question: "x?"}, ui.Request{Question: "y?"}
	ids := func(reqs ...ui.Request) map[string][]string { // request JSON -> IDs in order
		_, pending := runCall(t, &ui.Replay{}, func(ctx context.Context) string {
			for _, req := range reqs {
				_, _ = ui.Ask(ctx, req)
			}
			return ""
		})
		out := map[string][]string{}
		for _, p := range pending {
			key := string(marshal(t, p.Request))
			out[key] = append(out[key], p.ID)
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
	xs := a[string(marshal(t, x))]
	if len(xs) != 2 || xs[0] == xs[1] {
		t.Fatalf("IDs of x asked twice = %q, want two different IDs", xs)
	}

	// Requests that differ in any field have different IDs.
	variants := []ui.Request{
		{Question: "q"},
		{Question: "q", Header: "h"},
		{Question: "q", Options: []ui.Option{{Label: "a"}, {Label: "b"}}},
		{Question: "q", Options: []ui.Option{{Label: "b"}, {Label: "a"}}},
		{Question: "q", Options: []ui.Option{{Label: "a"}, {Label: "b"}}, DisallowCustom: true},
		{Question: "q", Options: []ui.Option{{Label: "a", Value: "1"}, {Label: "b"}}},
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
		{"declined", ui.NewError(ui.CodeAskDeclined, "the user declined to answer", nil),
			ui.HarnessError{Name: "UserInteractionError", Code: ui.CodeAskDeclined, Message: "the user declined to answer"}, true},
		{"cancelled, wrapped", fmt.Errorf("form: %w", ui.NewError(ui.CodeAskCancelled, "the user dismissed the form", errors.New("esc"))),
			ui.HarnessError{Name: "UserInteractionError", Code: ui.CodeAskCancelled, Message: "the user dismissed the form"}, true},
		{"foreign", &ui.HarnessError{Name: "ACPError", Code: "SESSION_CLOSED", Message: "closed"},
			ui.HarnessError{Name: "ACPError", Code: "SESSION_CLOSED", Message: "closed"}, false},
		{"uncoded", errors.New("bridge broke"),
			ui.HarnessError{Name: "UserInteractionError", Code: ui.CodeProviderFailed, Message: "provider failed: bridge broke"}, true},
		{"typed nil", (*myError)(nil),
			ui.HarnessError{Name: "UserInteractionError", Code: ui.CodeProviderFailed, Message: "provider failed: it returned a nil *userinteraction_test.myError as its error"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rp := &ui.Replay{}
			rp.Record(firstID(question), ui.Answer{Text: "ignored when err is set"}, tt.err)
			for _, rp := range []*ui.Replay{rp, replayFrom(t, marshal(t, rp), nil)} {
				var err error
				_, pending := runCall(t, rp, func(ctx context.Context) string {
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

// TestReplayTamperedRecord: a recorded answer is checked against the request
// like any provider's answer, so a changed record cannot slip an answer past
// the options.
func TestReplayTamperedRecord(t *testing.T) {
	permission := ui.Request{Question: "Run rm -rf build?", Options: []ui.Option{{Label: "Allow"}, {Label: "Deny"}}, DisallowCustom: true}
	id := firstID(permission)
	for _, entry := range []string{
		`{"answer":"deny","option":{"label":"Allow"}}`,
		`{"answer":"yes, and more"}`,
		`{"answer":"","option":{"label":"Always"}}`,
		`{"answer":" "}`,
	} {
		rp := replayFrom(t, []byte(`{"`+id+`":`+entry+`}`), nil)
		var err error
		runCall(t, rp, func(ctx context.Context) string { _, err = ui.Ask(ctx, permission); return "" })
		wantCode(t, "Ask() with record "+entry, err, ui.CodeInvalidAnswer)
	}
}

// TestReplaySwallowedInputRequired: a tool that ignores INPUT_REQUIRED and
// acts anyway cannot hide its question: the host checks Pending.
func TestReplaySwallowedInputRequired(t *testing.T) {
	got, pending := runCall(t, &ui.Replay{}, func(ctx context.Context) string {
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

	// A later Record does not change Pending; an ID that is not pending may be recorded.
	rp.Record(p[0].ID, ui.Answer{Text: "a"}, nil)
	rp.Record("from-an-earlier-run", ui.Answer{Text: "kept"}, nil)
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
	rp.Record("b", ui.Answer{}, ui.NewError(ui.CodeAskDeclined, "the user declined", errors.New("cause stays on the Go side")))
	rp.Record("c", ui.Answer{}, errors.New("boom"))
	want := `{"a":{"answer":"y","option":{"label":"Yes","value":"y"}},` +
		`"b":{"name":"UserInteractionError","code":"ASK_DECLINED","message":"the user declined"},` +
		`"c":{"name":"UserInteractionError","code":"PROVIDER_FAILED","message":"provider failed: boom"}}`
	if got := marshal(t, rp); string(got) != want {
		t.Fatalf("json.Marshal(Replay) = %s, want %s", got, want)
	}
	again := replayFrom(t, []byte(want), nil)
	if got := marshal(t, again); string(got) != want {
		t.Fatalf("round trip = %s, want %s", got, want)
	}

	// UnmarshalJSON replaces the record; null leaves it; a bad record leaves it too.
	if err := json.Unmarshal([]byte(`{"z":{"answer":"only"}}`), again); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`null`), again); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		`[]`, `"x"`, `{"z":1}`, `{"z":null}`, `{"z":{}}`, `{"z":{"answer":"a","code":"B"}}`,
		`{"z":{"answer":5}}`, `{"z":{"code":5}}`, `{"z":{"answer":"a","option":[]}}`, `{`,
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
	if got := marshal(t, again); string(got) != `{"z":{"answer":"only"}}` {
		t.Fatalf("record after failed decodes = %s, want the last good one", got)
	}
}

// TestReplayConcurrent asks, records and encodes from many goroutines at once.
func TestReplayConcurrent(t *testing.T) {
	const workers, asks = 8, 40
	rp := &ui.Replay{}
	ctx := ui.WithRegistry(context.Background(), &ui.Registry{})
	defer register(t, ctx, rp)()
	var wg sync.WaitGroup
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
	pending := rp.Pending()
	ids := map[string]bool{}
	for _, p := range pending {
		ids[p.ID] = true
	}
	if len(pending) != workers*asks || len(ids) != workers*asks {
		t.Fatalf("%d pending with %d distinct IDs, want %d of each", len(pending), len(ids), workers*asks)
	}
	// A sequential run of the same multiset of questions yields the same IDs.
	_, again := runCall(t, &ui.Replay{}, func(ctx context.Context) string {
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

// TestExampleRequestState checks the sealing that ExampleReplay shows, since
// servers copy it: a requestState that was changed in any way is refused.
func TestExampleRequestState(t *testing.T) {
	tool := func(ctx context.Context, args map[string]string) string { return deleteFile(ctx, args["path"]) }
	first, err := serveToolCall(toolCall{Name: "delete_file", Arguments: map[string]string{"path": "a"}}, tool)
	if err != nil || first.ResultType != "input_required" {
		t.Fatalf("serveToolCall() = %+v, %v, want input_required", first, err)
	}
	forged := seal([]byte(`{}`))
	forged = strings.Replace(forged, "e30", "e3x", 1)
	for _, state := range []string{forged, first.RequestState + "x", "e30", "."} {
		_, err := serveToolCall(toolCall{Name: "delete_file", Arguments: map[string]string{"path": "a"}, RequestState: state}, tool)
		if err == nil {
			t.Errorf("serveToolCall(requestState %q) error = nil, want a verification error", state)
		}
	}
	if _, err := unseal(first.RequestState); err != nil {
		t.Fatalf("unseal(sealed state) error = %v, want nil", err)
	}
}
