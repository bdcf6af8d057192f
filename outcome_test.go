package userinteraction_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	ui "github.com/dsh-go/userinteraction"
)

// TestOutcomeJSON: an Outcome is {"answer": ...} or {"error": {name, code,
// message}}, and decodes back to what it encoded. An uncoded error is
// written as the PROVIDER_FAILED that Ask would return for it.
func TestOutcomeJSON(t *testing.T) {
	staging := ui.Option{Label: "Staging", Value: "stg"}
	declined := ui.NewError(ui.CodeAskDeclined, "the human declined", errors.New("a cause stays on the Go side"))
	other := &ui.HarnessError{Name: "ToolError", Code: "TOOL_GONE", Message: "the tool went away"}
	for _, tt := range []struct {
		name string
		o    ui.Outcome
		json string
		back ui.Outcome // what the JSON decodes to
	}{
		{"answer", ui.Outcome{Answer: ui.Answer{Text: "stg", Option: &staging, Via: "page"}},
			`{"answer":{"answer":"stg","option":{"label":"Staging","value":"stg"},"via":"page"}}`,
			ui.Outcome{Answer: ui.Answer{Text: "stg", Option: &staging, Via: "page"}}},
		{"coded error", ui.Outcome{Err: declined},
			`{"error":{"name":"UserInteractionError","code":"ASK_DECLINED","message":"the human declined"}}`,
			ui.Outcome{Err: ui.NewError(ui.CodeAskDeclined, "the human declined", nil)}},
		{"a decline on the page", ui.Outcome{Answer: ui.Answer{Via: "page"}, Err: ui.NewError(ui.CodeAskDeclined, "the human declined", nil)},
			`{"error":{"name":"UserInteractionError","code":"ASK_DECLINED","message":"the human declined"},"via":"page"}`,
			ui.Outcome{Answer: ui.Answer{Via: "page"}, Err: ui.NewError(ui.CodeAskDeclined, "the human declined", nil)}},
		{"another family's error", ui.Outcome{Err: other},
			`{"error":{"name":"ToolError","code":"TOOL_GONE","message":"the tool went away"}}`,
			ui.Outcome{Err: other}},
		{"uncoded error", ui.Outcome{Err: errors.New("socket closed\x1b[2J")},
			`{"error":{"name":"UserInteractionError","code":"PROVIDER_FAILED","message":"provider failed: socket closed\\x1b[2J"}}`,
			ui.Outcome{Err: ui.NewError(ui.CodeProviderFailed, `provider failed: socket closed\x1b[2J`, nil)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := string(marshal(t, tt.o))
			if got != tt.json {
				t.Fatalf("json.Marshal(Outcome) = %s, want %s", got, tt.json)
			}
			var back ui.Outcome
			if err := json.Unmarshal([]byte(got), &back); err != nil {
				t.Fatalf("json.Unmarshal(%s) error = %v", got, err)
			}
			if !reflect.DeepEqual(back, tt.back) {
				t.Fatalf("json.Unmarshal(%s) = %#v, want %#v", got, back, tt.back)
			}
		})
	}
	for _, bad := range []string{`{}`, `{"answer":{"answer":"a"},"error":{"code":"X"}}`, `[]`, `{"answer":7}`} {
		var o ui.Outcome
		if err := json.Unmarshal([]byte(bad), &o); err == nil {
			t.Errorf("json.Unmarshal(%s) = %+v, want an error", bad, o)
		}
	}
	o := ui.Outcome{Answer: ui.Answer{Text: "kept"}}
	if err := json.Unmarshal([]byte("null"), &o); err != nil || o.Answer.Text != "kept" {
		t.Errorf("json.Unmarshal(null) = %+v, %v, want the Outcome unchanged", o, err)
	}
}

// audit is a Registry.Ended that records what it is called with, in order.
type audit struct {
	reqs     []ui.Request
	outcomes []ui.Outcome
}

func (e *audit) record(req ui.Request, o ui.Outcome) {
	e.reqs = append(e.reqs, req)
	e.outcomes = append(e.outcomes, o)
}

// codes returns the code of each recorded outcome, or its answer's text.
func (e *audit) codes() []string {
	var out []string
	for _, o := range e.outcomes {
		if o.Err != nil {
			out = append(out, ui.CodeOf(o.Err))
		} else {
			out = append(out, o.Answer.Text+" via "+o.Answer.Via)
		}
	}
	return out
}

// TestRegistryEnded: Ended is called once for every question asked through
// the registry, before Ask returns, with the request and what Ask returns,
// whatever ended it. AskAll calls it once a request, and the requests after
// the failed one get its error.
func TestRegistryEnded(t *testing.T) {
	pick := ui.Request{Question: "Deploy where?", Options: []ui.Option{{Label: "Staging", Value: "stg"}, {Label: "Production"}}}
	declines := failing(ui.NewError(ui.CodeAskDeclined, "no", nil))
	bySet := ui.ProviderFunc(func(ctx context.Context, req ui.Request) (ui.Answer, error) {
		if req.Question == "Decline?" {
			return ui.Answer{}, ui.NewError(ui.CodeAskDeclined, "no", nil)
		}
		ans := ui.Answer{Text: "stg", Via: "chat"}
		return ans, nil
	})
	for _, tt := range []struct {
		name     string
		provider ui.Provider // nil: none registered
		ask      func(ctx context.Context) ([]ui.Answer, error)
		want     []string
	}{
		{"answered, with its via", bySet, func(ctx context.Context) ([]ui.Answer, error) {
			ans, err := ui.Ask(ctx, pick)
			return []ui.Answer{ans}, err
		}, []string{"stg via chat"}},
		{"declined", declines, func(ctx context.Context) ([]ui.Answer, error) {
			ans, err := ui.Ask(ctx, pick)
			return []ui.Answer{ans}, err
		}, []string{ui.CodeAskDeclined}},
		{"invalid request", bySet, func(ctx context.Context) ([]ui.Answer, error) {
			ans, err := ui.Ask(ctx, ui.Request{Question: " "})
			return []ui.Answer{ans}, err
		}, []string{ui.CodeInvalidRequest}},
		{"no provider", nil, func(ctx context.Context) ([]ui.Answer, error) {
			ans, err := ui.Ask(ctx, pick)
			return []ui.Answer{ans}, err
		}, []string{ui.CodeNoProvider}},
		{"invalid answer", answering("Neither"), func(ctx context.Context) ([]ui.Answer, error) {
			ans, err := ui.Ask(ctx, ui.Request{Question: "Pick", Options: pick.Options, DisallowCustom: true})
			return []ui.Answer{ans}, err
		}, []string{ui.CodeInvalidAnswer}},
		{"a batch, stopped by a decline", bySet, func(ctx context.Context) ([]ui.Answer, error) {
			return ui.AskAll(ctx, []ui.Request{pick, {Question: "Decline?"}, pick})
		}, []string{"stg via chat", ui.CodeAskDeclined, ui.CodeAskDeclined}},
		{"a batch with an invalid request", bySet, func(ctx context.Context) ([]ui.Answer, error) {
			return ui.AskAll(ctx, []ui.Request{pick, {Question: ""}})
		}, []string{ui.CodeInvalidRequest, ui.CodeInvalidRequest}},
		{"an empty batch", bySet, func(ctx context.Context) ([]ui.Answer, error) {
			return ui.AskAll(ctx, nil)
		}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var e audit
			r := &ui.Registry{Ended: e.record}
			ctx := ui.WithRegistry(context.Background(), r)
			if tt.provider != nil {
				dispose, err := r.Register(tt.provider)
				if err != nil {
					t.Fatal(err)
				}
				defer dispose()
			}
			answers, err := tt.ask(ctx)
			if got := e.codes(); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Ended saw %q, want %q", got, tt.want)
			}
			// Each outcome is what the call returned for that request.
			for i, o := range e.outcomes {
				if i < len(answers) && err == nil && !reflect.DeepEqual(o.Answer, answers[i]) {
					t.Errorf("Ended outcome %d = %s, want the answer returned, %s", i, show(o.Answer), show(answers[i]))
				}
				if o.Err != nil && o.Err != err {
					t.Errorf("Ended outcome %d error = %v, want the error returned, %v", i, o.Err, err)
				}
			}
		})
	}
}

// TestRegistryEndedSeesTheRequest: Ended gets the request as asked, and a
// panic in it reaches the caller of Ask.
func TestRegistryEndedSeesTheRequest(t *testing.T) {
	var e audit
	ctx := scopeWith(t, &ui.Registry{Ended: e.record}, answering("yes"))
	req := ui.Request{Question: "Go on?", Header: "Step", Agent: &ui.Agent{Name: "cleanup-bot"}}
	if _, err := ui.Ask(ctx, req); err != nil {
		t.Fatal(err)
	}
	if len(e.reqs) != 1 || !reflect.DeepEqual(e.reqs[0], req) {
		t.Fatalf("Ended saw requests %+v, want [%+v]", e.reqs, req)
	}

	boom := ui.Registry{Ended: func(ui.Request, ui.Outcome) { panic("audit down") }}
	ctx = scopeWith(t, &boom, answering("yes"))
	defer func() {
		if v := recover(); v != "audit down" {
			t.Fatalf("recover() = %v, want the panic of Ended", v)
		}
	}()
	_, _ = ui.Ask(ctx, req)
	t.Fatal("Ask returned, want the panic of Ended")
}

// scopeWith returns a context carrying r with p registered until the test
// ends.
func scopeWith(t *testing.T, r *ui.Registry, p ui.Provider) context.Context {
	t.Helper()
	dispose, err := r.Register(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dispose)
	return ui.WithRegistry(context.Background(), r)
}

// TestPendingElicitationPlace: a batch question's form is led by the hint,
// then by its place in the batch; a lone question and a batch of one say no
// place.
func TestPendingElicitationPlace(t *testing.T) {
	req := ui.Request{Question: "Which directory?"}
	for _, tt := range []struct {
		q    ui.Pending
		want string
	}{
		{ui.Pending{Request: req}, "Which directory?"},
		{ui.Pending{Request: req, Batch: "b", Index: 0, Count: 1}, "Which directory?"},
		{ui.Pending{Request: req, Batch: "b", Index: 1, Count: 3}, "Question 2 of 3.\nWhich directory?"},
		{ui.Pending{Request: req, Batch: "b", Index: 2, Count: 3, Hint: "Type your answer."}, "Type your answer.\nQuestion 3 of 3.\nWhich directory?"},
		{ui.Pending{Request: req, Hint: "Type your answer."}, "Type your answer.\nWhich directory?"},
	} {
		if got := tt.q.Elicitation().Message; got != tt.want {
			t.Errorf("Pending%+v.Elicitation().Message = %q, want %q", tt.q, got, tt.want)
		}
	}
	q := ui.Pending{ID: "x", Request: req, Batch: "b", Index: 1, Count: 3}
	got := string(marshal(t, q))
	if want := `{"id":"x","request":{"question":"Which directory?"},"batch":"b","index":1,"count":3}`; got != want {
		t.Fatalf("json.Marshal(Pending) = %s, want %s", got, want)
	}
	var back ui.Pending
	if err := json.Unmarshal([]byte(got), &back); err != nil || !reflect.DeepEqual(back, q) {
		t.Fatalf("json.Unmarshal(%s) = %+v, %v, want %+v", got, back, err, q)
	}
}

// TestEndedElsewhere: a UI that FirstOf withdrew learns the winner's
// outcome, its answer with its Via, or its decline; for a batch, the last
// answer. It learns nothing from any other end of its ctx.
func TestEndedElsewhere(t *testing.T) {
	req := ui.Request{Question: "Delete?", Options: []ui.Option{{Label: "Keep"}, {Label: "Delete", Value: "rm"}}}
	declined := ui.NewError(ui.CodeAskDeclined, "the human declined", nil)
	for _, tt := range []struct {
		name   string
		winner func(r ui.Request) (ui.Answer, error)
		batch  bool
		want   string // the loser's view: an answer's text and via, or a code
	}{
		{"answered", func(ui.Request) (ui.Answer, error) { return ui.Answer{Text: "rm", Via: "terminal"}, nil }, false, "rm via terminal"},
		{"declined", func(ui.Request) (ui.Answer, error) { return ui.Answer{}, declined }, false, ui.CodeAskDeclined},
		{"a batch answered", func(r ui.Request) (ui.Answer, error) { return ui.Answer{Text: r.Question, Via: "page"}, nil }, true, "Why? via page"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			shown := make(chan struct{})
			seen := make(chan string, 1)
			loser := ui.ProviderFunc(func(ctx context.Context, _ ui.Request) (ui.Answer, error) {
				close(shown)
				<-ctx.Done()
				o, ok := ui.EndedElsewhere(ctx)
				switch {
				case !ok:
					seen <- "nothing"
				case o.Err != nil:
					seen <- ui.CodeOf(o.Err)
				default:
					seen <- o.Answer.Text + " via " + o.Answer.Via
				}
				return ui.Answer{}, ctx.Err()
			})
			winner := ui.ProviderFunc(func(ctx context.Context, r ui.Request) (ui.Answer, error) {
				<-shown // the loser shows the question (the first of a batch) first
				return tt.winner(r)
			})
			ctx := scope(t, ui.FirstOf(loser, winner))
			if tt.batch {
				_, _ = ui.AskAll(ctx, []ui.Request{req, {Question: "Why?"}})
			} else {
				_, _ = ui.Ask(ctx, req)
			}
			if got := <-seen; got != tt.want {
				t.Fatalf("EndedElsewhere() = %s, want %s", got, tt.want)
			}
		})
	}

	// Any other end of ctx is not "elsewhere", and neither is a live ctx.
	cancelled, cancel := context.WithCancelCause(context.Background())
	if _, ok := ui.EndedElsewhere(cancelled); ok {
		t.Error("EndedElsewhere(live ctx) = true, want false")
	}
	cancel(errors.New("the tool step ended"))
	if _, ok := ui.EndedElsewhere(cancelled); ok {
		t.Error("EndedElsewhere(cancelled ctx) = true, want false")
	}
	//lint:ignore SA1012 a nil ctx is refused, not dereferenced
	if _, ok := ui.EndedElsewhere(nil); ok {
		t.Error("EndedElsewhere(nil) = true, want false")
	}
}

// TestEndedElsewhereDeclinedOnThePage: a decline through the Inbox keeps the
// Via it came with, so a UI that FirstOf withdrew learns where the human
// declined, and so does the Inbox's Outcome.
func TestEndedElsewhereDeclinedOnThePage(t *testing.T) {
	shown := make(chan struct{})
	seen := make(chan ui.Outcome, 1)
	loser := ui.ProviderFunc(func(ctx context.Context, _ ui.Request) (ui.Answer, error) {
		close(shown)
		<-ctx.Done()
		o, _ := ui.EndedElsewhere(ctx)
		seen <- o
		return ui.Answer{}, ctx.Err()
	})
	inbox := &ui.Inbox{}
	done := askInbox(scope(t, ui.FirstOf(loser, inbox)), ui.Request{Question: "Delete the branch?"})
	id := waitPending(t, inbox, 1)[0].ID
	<-shown
	declined := ui.NewError(ui.CodeAskDeclined, "the human declined", nil)
	if err := inbox.Respond(id, ui.Answer{Via: "page"}, declined); err != nil {
		t.Fatalf("Respond() = %v, want nil", err)
	}
	wantCode(t, "Ask()", receive(t, done).err, ui.CodeAskDeclined)
	if o := <-seen; ui.CodeOf(o.Err) != ui.CodeAskDeclined || o.Answer.Via != "page" {
		t.Fatalf("EndedElsewhere() = %+v, want the decline via page", o)
	}
	if o, ok := inbox.Outcome(id); !ok || ui.CodeOf(o.Err) != ui.CodeAskDeclined || o.Answer.Via != "page" {
		t.Fatalf("Inbox.Outcome() = %+v, %v, want the decline via page", o, ok)
	}
}

// TestDecidedOutcomeIsReturned: what a UI handed to Decide is what Ask
// returns and Ended audits, not what the UI returns after it (finding 6 of
// the review of how a question ends): a UI that decides a decline and then
// returns "Yes" does not make the tool act on "Yes" while its human was told
// "Declined". The same in a FirstOf race and for a lone provider.
func TestDecidedOutcomeIsReturned(t *testing.T) {
	liar := ui.ProviderFunc(func(ctx context.Context, _ ui.Request) (ui.Answer, error) {
		declined := ui.NewError(ui.CodeAskDeclined, "the human declined", nil)
		if _, err := ui.Decide(ctx, ui.Outcome{Answer: ui.Answer{Via: "page"}, Err: declined}); err != nil {
			return ui.Answer{}, err
		}
		return ui.Answer{Text: "Yes"}, nil
	})
	for _, tt := range []struct {
		name string
		p    ui.Provider
	}{
		{"lone", liar},
		{"in a race", ui.FirstOf(liar, blocking(make(chan struct{}, 1)))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var e audit
			r := &ui.Registry{Ended: e.record}
			ctx := ui.WithRegistry(context.Background(), r)
			t.Cleanup(register(t, ctx, tt.p))
			ans, err := ui.Ask(ctx, ui.Request{Question: "Deploy?", Options: []ui.Option{{Label: "Yes"}, {Label: "No"}}})
			if ui.CodeOf(err) != ui.CodeAskDeclined || ans.Via != "page" {
				t.Fatalf("Ask() = %s, %v, want the decline decided on the page", show(ans), err)
			}
			if len(e.outcomes) != 1 || ui.CodeOf(e.outcomes[0].Err) != ui.CodeAskDeclined {
				t.Fatalf("Ended saw %q, want the decline once", e.codes())
			}
		})
	}
}

// TestEndedBeforeAPanicAfterADecision: a UI's answer that was decided, so
// that its human was told "taken", is audited even when another UI of the
// race panics afterwards (finding 9); then the panic reaches the caller.
func TestEndedBeforeAPanicAfterADecision(t *testing.T) {
	started, decided := make(chan struct{}), make(chan struct{})
	page := ui.ProviderFunc(func(ctx context.Context, _ ui.Request) (ui.Answer, error) {
		<-started
		o, err := ui.Decide(ctx, ui.Outcome{Answer: ui.Answer{Text: "Delete", Via: "page"}})
		close(decided)
		if err != nil {
			return ui.Answer{}, err
		}
		return o[0].Answer, nil
	})
	panics := ui.ProviderFunc(func(ctx context.Context, _ ui.Request) (ui.Answer, error) {
		close(started)
		<-decided
		panic("the other UI broke")
	})
	var e audit
	r := &ui.Registry{Ended: e.record}
	ctx := ui.WithRegistry(context.Background(), r)
	t.Cleanup(register(t, ctx, ui.FirstOf(page, panics)))
	func() {
		defer func() {
			if v := recover(); v != "the other UI broke" {
				t.Errorf("Ask() panicked with %v, want the other UI's panic", v)
			}
		}()
		_, _ = ui.Ask(ctx, deleteIt)
	}()
	if got := e.codes(); !reflect.DeepEqual(got, []string{"Delete via page"}) {
		t.Fatalf("Ended saw %q, want the answer the page was told was taken", got)
	}
}

// TestEndedSeesWhoDeclined: a decline on the page reaches Ended with the
// page's Via, as Inbox.Outcome reports it (finding 10): the audit says who
// declined.
func TestEndedSeesWhoDeclined(t *testing.T) {
	inbox := &ui.Inbox{}
	var e audit
	r := &ui.Registry{Ended: e.record}
	ctx := ui.WithRegistry(context.Background(), r)
	t.Cleanup(register(t, ctx, inbox))
	opened := inbox.Changed()
	done := askAsync(ctx, deleteIt)
	<-opened
	id := inbox.Pending()[0].ID
	_, declined := ui.ElicitationAnswer("decline", nil) // what the page's POST maps
	if err := inbox.Respond(id, ui.Answer{Via: "page"}, declined); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "Ask() declined on the page", <-done, ui.CodeAskDeclined)
	o, _ := inbox.Outcome(id)
	if len(e.outcomes) != 1 || e.outcomes[0].Answer.Via != "page" || o.Answer.Via != "page" {
		t.Fatalf("Ended saw %+v and Outcome() %s, want the page's Via in both", e.outcomes, showOutcome(o))
	}
	data, err := json.Marshal(e.outcomes[0])
	if err != nil || !strings.Contains(string(data), `"via":"page"`) {
		t.Fatalf("the audited Outcome's JSON = %s, %v, want its via", data, err)
	}
}

// TestViaIsShort: a Via is a short name that any UI can show: one of 16 MB,
// or one with a line feed or an escape sequence, is cut and escaped where it
// enters, and the human's answer is kept.
func TestViaIsShort(t *testing.T) {
	long := strings.Repeat("terminal", 2<<20)
	for _, via := range []string{long, "page\nDeclined in the terminal", "\x1b[2Jpage", "é" + long} {
		ans, err := askAnswer(t, ui.Request{Question: "Why?"}, ui.Answer{Text: "because", Via: via})
		if err != nil || ans.Text != "because" {
			t.Fatalf("Ask() = %s, %v, want the answer kept", show(ans), err)
		}
		if len(ans.Via) > 64 || strings.ContainsAny(ans.Via, "\n\x1b") || !utf8.ValidString(ans.Via) {
			t.Errorf("Via %q came out as %q, want at most 64 bytes of shown text", clipped(via), ans.Via)
		}
	}

	inbox := &ui.Inbox{}
	ctx := scope(t, inbox)
	opened := inbox.Changed()
	done := make(chan ui.Answer, 1)
	go func() {
		ans, _ := ui.Ask(ctx, deleteIt)
		done <- ans
	}()
	<-opened
	id := inbox.Pending()[0].ID
	if err := inbox.Respond(id, ui.Answer{Text: "Delete", Via: long}, nil); err != nil {
		t.Fatal(err)
	}
	ans := <-done
	if o, _ := inbox.Outcome(id); len(ans.Via) > 64 || len(o.Answer.Via) > 64 {
		t.Errorf("Ask() Via = %d bytes, Outcome() Via = %d bytes, want a short Via in both", len(ans.Via), len(o.Answer.Via))
	}
}

// clipped returns the start of s, for messages.
func clipped(s string) string {
	if len(s) > 20 {
		return s[:20] + "..."
	}
	return s
}
