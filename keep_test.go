package userinteraction_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// kept asks req of inbox under a keep that records each outcome it is given
// and returns keep's error. It returns the channel of the ask's outcome and
// waits until the question is open.
func kept(t *testing.T, ctx context.Context, inbox *ui.Inbox, req ui.Request, keep func([]ui.Outcome) error) <-chan ui.Outcome {
	t.Helper()
	opened := inbox.Changed()
	done := make(chan ui.Outcome, 1)
	go func() {
		ans, err := inbox.Ask(ui.WithKeep(ctx, keep), req)
		done <- ui.Outcome{Answer: ans, Err: err}
	}()
	<-opened
	return done
}

var deployRequest = ui.Request{Question: "Deploy?", Options: []ui.Option{{Label: "Deploy", Value: "deploy"}, {Label: "Wait"}}}

var errWriteFailed = errors.New("the database is away")

// keeping is a provider that asks p each question under WithKeep, as a host
// that keeps every answer before a UI is told does.
func keeping(p ui.Provider, keep func([]ui.Outcome) error) ui.Provider {
	return ui.ProviderFunc(func(ctx context.Context, req ui.Request) (ui.Answer, error) {
		return p.Ask(ui.WithKeep(ctx, keep), req)
	})
}

// TestWithKeepKeepsBeforeRespondReturns: Respond delivers an outcome only
// once keep has kept it, completed. A keep that fails is NOT_KEPT, and the
// question stays open with a hint for the human, a change of Pending; the
// next Respond is kept.
func TestWithKeepKeepsBeforeRespondReturns(t *testing.T) {
	tests := []struct {
		name    string
		ans     ui.Answer
		err     error
		wantAns string // the completed answer keep and the asker see
		code    string // of the outcome, when it is an error
	}{
		{name: "answer", ans: ui.Answer{Text: "deploy"}, wantAns: "deploy"},
		{name: "decline", ans: ui.Answer{Via: "page"}, err: ui.NewError(ui.CodeAskDeclined, "the human declined", nil), code: ui.CodeAskDeclined},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inbox := &ui.Inbox{}
			var seen [][]ui.Outcome
			fails := true
			done := kept(t, context.Background(), inbox, deployRequest, func(o []ui.Outcome) error {
				seen = append(seen, o) // on the Respond goroutine: this test's
				if fails {
					return errWriteFailed
				}
				return nil
			})
			id := inbox.Pending()[0].ID

			changed := inbox.Changed()
			err := inbox.Respond(id, tt.ans, tt.err)
			wantCode(t, "Respond() under a failing keep", err, ui.CodeNotKept)
			if !errors.Is(err, errWriteFailed) {
				t.Errorf("Respond() = %v, want it to wrap keep's error", err)
			}
			select {
			case <-changed:
			default:
				t.Fatal("Changed() did not fire for a NOT_KEPT")
			}
			if p := inbox.Pending(); len(p) != 1 || p[0].Hint == "" {
				t.Fatalf("Pending() after a failed keep = %+v, want the question still open with a hint", p)
			}

			fails = false
			if err := inbox.Respond(id, tt.ans, tt.err); err != nil {
				t.Fatalf("Respond() under a keep that keeps = %v, want nil", err)
			}
			if len(seen) != 2 {
				t.Fatalf("keep was called %d times, want 2 (once per Respond)", len(seen))
			}
			got := <-done
			for _, o := range []ui.Outcome{seen[1][0], got} {
				if o.Answer.Text != tt.wantAns || ui.CodeOf(o.Err) != tt.code {
					t.Errorf("outcome = {%q %v}, want {%q %s}", o.Answer.Text, o.Err, tt.wantAns, tt.code)
				}
			}
			if tt.code == "" && (seen[1][0].Answer.Option == nil || seen[1][0].Answer.Option.Label != "Deploy") {
				t.Errorf("keep saw the answer %+v, want it completed with the option Deploy", seen[1][0].Answer)
			}
			wantCode(t, "Respond() after keep took the outcome", inbox.Respond(id, tt.ans, tt.err), ui.CodeNotPending)
			if len(seen) != 2 {
				t.Errorf("keep was called %d times, want no call for a question no longer open", len(seen))
			}
		})
	}
}

// TestWithKeepNested: two keeps, one inside the other, both keep an
// outcome before it is taken, the inner first; when the outer fails, the
// outcome is not taken.
func TestWithKeepNested(t *testing.T) {
	for _, outerKeeps := range []bool{false, true} {
		inbox := &ui.Inbox{}
		var calls []string
		outer := ui.WithKeep(context.Background(), func([]ui.Outcome) error {
			calls = append(calls, "outer")
			if !outerKeeps {
				return errWriteFailed
			}
			return nil
		})
		done := kept(t, outer, inbox, deployRequest, func([]ui.Outcome) error {
			calls = append(calls, "inner")
			return nil
		})
		err := inbox.Respond(inbox.Pending()[0].ID, ui.Answer{Text: "Wait"}, nil)
		if outerKeeps {
			if err != nil {
				t.Fatalf("Respond() = %v, want nil when both keeps keep it", err)
			}
			if o := <-done; o.Answer.Text != "Wait" {
				t.Errorf("Ask() = %q, %v, want Wait", o.Answer.Text, o.Err)
			}
		} else {
			wantCode(t, "Respond() under a failing outer keep", err, ui.CodeNotKept)
		}
		if got := strings.Join(calls, " "); got != "inner outer" {
			t.Errorf("outer keeps %v: keeps called %q, want %q", outerKeeps, got, "inner outer")
		}
	}
}

// TestWithKeepAroundFirstOf: a FirstOf asked under WithKeep keeps the
// winner's outcome, whichever UI it came from, and only the winner's: here
// the answer of a UI that tells nobody, and the Inbox's.
func TestWithKeepAroundFirstOf(t *testing.T) {
	inbox := &ui.Inbox{}
	var keptAnswers []string
	keep := func(o []ui.Outcome) error {
		keptAnswers = append(keptAnswers, o[0].Answer.Text)
		return nil
	}
	answers := make(chan ui.Answer)
	silent := ui.ProviderFunc(func(ctx context.Context, _ ui.Request) (ui.Answer, error) {
		select {
		case a := <-answers:
			return a, nil
		case <-ctx.Done():
			return ui.Answer{}, ctx.Err()
		}
	})
	ctx := scope(t, keeping(ui.FirstOf(inbox, silent), keep))
	opened := inbox.Changed()
	done := askAsync(ctx, deployRequest)
	<-opened
	if err := inbox.Respond(inbox.Pending()[0].ID, ui.Answer{Text: "deploy"}, nil); err != nil {
		t.Fatalf("Respond() in a FirstOf = %v, want nil", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Ask() through FirstOf = %v, want nil", err)
	}

	opened = inbox.Changed()
	done = askAsync(ctx, deployRequest)
	<-opened
	answers <- ui.Answer{Text: "Wait", Via: "bot"}
	if err := <-done; err != nil {
		t.Fatalf("Ask() answered by the silent UI = %v, want nil", err)
	}
	if want := "deploy Wait"; strings.Join(keptAnswers, " ") != want {
		t.Errorf("keep kept %q, want %q: the winner's answer of each question, once", keptAnswers, want)
	}
}

// TestWithKeepFailsInARace: a keep that fails does not decide the race
// (finding 2 of the review of how a question ends). FirstOf of the Terminal
// and a UI that asks an Inbox under WithKeep, the durable host's pattern:
// the page's answer "Wait" is not kept, so the Terminal is not withdrawn and
// is never told "Answered on the page"; the human answers "Deploy" there,
// and that is what Ask returns and what the page says.
func TestWithKeepFailsInARace(t *testing.T) {
	inbox := &ui.Inbox{}
	durable := ui.ProviderFunc(func(ctx context.Context, req ui.Request) (ui.Answer, error) {
		return inbox.Ask(ui.WithKeep(ctx, func([]ui.Outcome) error { return errWriteFailed }), req)
	})
	in, typed := io.Pipe()
	defer typed.Close()
	var out strings.Builder
	term := ui.NewTerminal(in, &lockedWriter{w: &out})
	opened := inbox.Changed()
	ctx := scope(t, ui.FirstOf(term, durable))
	result := make(chan ui.Outcome, 1)
	go func() {
		ans, err := ui.Ask(ctx, deployRequest)
		result <- ui.Outcome{Answer: ans, Err: err}
	}()
	<-opened
	id := inbox.Pending()[0].ID
	wantCode(t, "Respond() whose keep fails", inbox.Respond(id, ui.Answer{Text: "Wait", Via: "page"}, nil), ui.CodeNotKept)
	if _, err := io.WriteString(typed, "1\n"); err != nil {
		t.Fatal(err)
	}
	o := <-result
	if o.Err != nil || o.Answer.Text != "deploy" || o.Answer.Via != "terminal" {
		t.Fatalf("Ask() = %s, %v, want the Terminal's deploy", show(o.Answer), o.Err)
	}
	if got := out.String(); strings.Contains(got, "Answered on the page") {
		t.Errorf("the Terminal wrote %q, want no word of the page's answer, which was never taken", got)
	}
	if ended, ok := inbox.Outcome(id); !ok || ended.Answer.Text != "deploy" || ended.Answer.Via != "terminal" {
		t.Errorf("Inbox.Outcome() = %s, %v, want the Terminal's answer", showOutcome(ended), ok)
	}
}

// TestWithKeepPage: the page's POST is 204 only once keep kept the answer,
// and 503 with the HarnessError JSON and the hint when keep failed; the
// question is still open then, and the next POST is kept (finding 4).
func TestWithKeepPage(t *testing.T) {
	const token = "0123456789abcdef0123"
	inbox := &ui.Inbox{}
	server := httptest.NewServer(inbox.Handler(token))
	defer server.Close()
	post := func(id string) (int, map[string]string) {
		t.Helper()
		req, _ := http.NewRequest("POST", server.URL+"/questions/"+id, strings.NewReader(`{"action":"accept","content":{"choice":"Deploy"}}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body map[string]string
		_ = json.NewDecoder(res.Body).Decode(&body)
		return res.StatusCode, body
	}
	keeps := make(chan error, 1)
	done := kept(t, context.Background(), inbox, deployRequest, func([]ui.Outcome) error { return <-keeps })
	id := inbox.Pending()[0].ID
	keeps <- errWriteFailed
	status, body := post(id)
	if status != http.StatusServiceUnavailable || body["code"] != ui.CodeNotKept || body["hint"] == "" {
		t.Fatalf("POST under a failing keep = %d %v, want 503 with NOT_KEPT and a hint", status, body)
	}
	if n := len(inbox.Pending()); n != 1 {
		t.Fatalf("Pending() after a failed keep holds %d questions, want the question still open", n)
	}
	keeps <- nil
	if status, body := post(id); status != http.StatusNoContent {
		t.Fatalf("POST under a keep that keeps = %d %v, want 204", status, body)
	}
	if o := <-done; o.Answer.Text != "deploy" {
		t.Errorf("Ask() = %q, %v, want deploy", o.Answer.Text, o.Err)
	}
}

// TestWithKeepNil: a nil keep adds nothing, and a nil ctx panics neither
// WithKeep nor Decide.
func TestWithKeepNil(t *testing.T) {
	ctx := context.Background()
	if got := ui.WithKeep(ctx, nil); got != ctx {
		t.Errorf("WithKeep(ctx, nil) = %v, want ctx itself", got)
	}
	//lint:ignore SA1012 a nil ctx is what this test gives
	if got := ui.WithKeep(nil, func([]ui.Outcome) error { return nil }); got == nil {
		t.Error("WithKeep(nil, keep) = nil, want a context")
	}
	o := ui.Outcome{Answer: ui.Answer{Text: "yes"}}
	//lint:ignore SA1012 a nil ctx is what this test gives
	if got, err := ui.Decide(nil, o); err != nil || len(got) != 1 || got[0].Answer.Text != "yes" {
		t.Errorf("Decide(nil, o) = %v, %v, want o", got, err)
	}
}

// within fails the test unless f returns within inboxWait: a hang detector,
// not a clock. what says what f does.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(inboxWait):
		t.Fatalf("%s did not return while another question's keep was writing", what)
	}
}

// TestWithKeepSlowHoldsNoOtherQuestion: a keep that takes its time, as a
// durable write to a slow database does, holds its own question only, also
// in a FirstOf race (finding 3). While it writes, the keep itself reads
// Pending; Pending, Outcome and a Respond to another question return, and
// another question's asker who stops is answered at once; a second Respond
// to the question being kept is refused with NOT_KEPT (send it again if the
// question stays open); and the answer keep takes
// reaches its asker, also when that asker stopped meanwhile, since the human
// is told that it was taken.
func TestWithKeepSlowHoldsNoOtherQuestion(t *testing.T) {
	inbox := &ui.Inbox{}
	entered, release := make(chan struct{}), make(chan struct{})
	keep := func([]ui.Outcome) error {
		close(entered)
		inbox.Pending() // a keep may use the Inbox
		<-release
		return nil
	}
	step, stop := context.WithCancel(scope(t, keeping(ui.FirstOf(inbox, blocking(make(chan struct{}, 1))), keep)))
	defer stop()
	opened := inbox.Changed()
	slow := make(chan ui.Outcome, 1)
	go func() {
		ans, err := ui.Ask(step, deployRequest)
		slow <- ui.Outcome{Answer: ans, Err: err}
	}()
	<-opened
	slowID := inbox.Pending()[0].ID
	other, quit := context.WithCancel(context.Background())
	defer quit()
	opened = inbox.Changed()
	stopped := make(chan error, 1)
	go func() {
		_, err := inbox.Ask(other, ui.Request{Question: "Why?"})
		stopped <- err
	}()
	<-opened
	third := make(chan ui.Outcome, 1)
	opened = inbox.Changed()
	go func() {
		ans, err := inbox.Ask(context.Background(), ui.Request{Question: "Which branch?"})
		third <- ui.Outcome{Answer: ans, Err: err}
	}()
	<-opened

	responded := make(chan error, 1)
	go func() { responded <- inbox.Respond(slowID, ui.Answer{Text: "deploy"}, nil) }()
	<-entered
	within(t, "Pending", func() { inbox.Pending() })
	within(t, "Outcome", func() { inbox.Outcome(slowID) })
	within(t, "Changed", func() { inbox.Changed() })
	quit()
	within(t, "the Ask of a stopped asker", func() {
		if err := <-stopped; err != context.Canceled {
			t.Errorf("Ask() of the stopped asker = %v, want context.Canceled", err)
		}
	})
	var thirdID string
	for _, p := range inbox.Pending() {
		if p.Request.Question == "Which branch?" {
			thirdID = p.ID
		}
	}
	within(t, "Respond to another question", func() {
		if err := inbox.Respond(thirdID, ui.Answer{Text: "main"}, nil); err != nil {
			t.Errorf("Respond() to another question = %v, want nil", err)
		}
	})
	if o := <-third; o.Err != nil || o.Answer.Text != "main" {
		t.Errorf("Ask() of the other question = %q, %v, want main", o.Answer.Text, o.Err)
	}
	var second error
	within(t, "a second Respond while the first one's keep writes", func() { second = inbox.Respond(slowID, ui.Answer{Text: "Wait"}, nil) })
	wantCode(t, "a second Respond while the first one's keep wrote", second, ui.CodeNotKept) // at once: a keep may call Respond itself
	stop()                                                                                   // the asker stops while keep writes
	within(t, "Pending while the asker stopped and keep writes", func() { inbox.Pending() })
	close(release)
	if err := <-responded; err != nil {
		t.Fatalf("Respond() whose keep took the answer = %v, want nil", err)
	}
	wantCode(t, "a Respond after keep took the answer", inbox.Respond(slowID, ui.Answer{Text: "Wait"}, nil), ui.CodeNotPending)
	if o := <-slow; o.Err != nil || o.Answer.Text != "deploy" {
		t.Errorf("Ask() whose answer keep took = %q, %v, want deploy, the answer the human was told was taken", o.Answer.Text, o.Err)
	}
}

// TestWithKeepPanics: a keep that panics raises the panic in Respond's
// caller, and leaves the Inbox as it was: the question open, another
// Respond taken, no wait left behind.
func TestWithKeepPanics(t *testing.T) {
	inbox := &ui.Inbox{}
	panics := true
	done := kept(t, context.Background(), inbox, deployRequest, func([]ui.Outcome) error {
		if panics {
			panic("the database went away")
		}
		return nil
	})
	id := inbox.Pending()[0].ID
	func() {
		defer func() {
			if v := recover(); v != "the database went away" {
				t.Errorf("Respond() under a panicking keep panicked with %v, want the keep's panic", v)
			}
		}()
		_ = inbox.Respond(id, ui.Answer{Text: "deploy"}, nil)
	}()
	if n := len(inbox.Pending()); n != 1 {
		t.Fatalf("Pending() after a panicking keep holds %d questions, want the question still open", n)
	}
	panics = false
	within(t, "Respond after a panicking keep", func() {
		if err := inbox.Respond(id, ui.Answer{Text: "Wait"}, nil); err != nil {
			t.Errorf("Respond() after a panicking keep = %v, want nil", err)
		}
	})
	if o := <-done; o.Answer.Text != "Wait" {
		t.Errorf("Ask() = %q, %v, want Wait", o.Answer.Text, o.Err)
	}
}

// TestWithKeepSlowInARaceHoldsNoLock: the keep of another UI's answer, in
// a FirstOf race with the Inbox, holds no lock of the Inbox, also when the
// asker stops while it writes (finding 3): Pending, Outcome and Changed
// return, and a keep that reads Pending does not deadlock. The Inbox's
// question stays open until the keep decides: the answer is taken, and the
// question ends with it.
func TestWithKeepSlowInARaceHoldsNoLock(t *testing.T) {
	inbox := &ui.Inbox{}
	entered, release := make(chan struct{}), make(chan struct{})
	keep := func([]ui.Outcome) error {
		close(entered)
		<-release
		inbox.Pending() // a keep may use the Inbox
		return nil
	}
	answer := make(chan struct{})
	bot := ui.ProviderFunc(func(ctx context.Context, _ ui.Request) (ui.Answer, error) {
		select {
		case <-answer:
		case <-ctx.Done():
			return ui.Answer{}, ctx.Err()
		}
		o, err := ui.Decide(ctx, ui.Outcome{Answer: ui.Answer{Text: "deploy", Via: "bot"}})
		if err != nil {
			return ui.Answer{}, err
		}
		return o[0].Answer, nil
	})
	step, stop := context.WithCancel(scope(t, keeping(ui.FirstOf(inbox, bot), keep)))
	defer stop()
	opened := inbox.Changed()
	slow := make(chan ui.Outcome, 1)
	go func() {
		ans, err := ui.Ask(step, deployRequest)
		slow <- ui.Outcome{Answer: ans, Err: err}
	}()
	<-opened
	id := inbox.Pending()[0].ID
	close(answer)
	<-entered
	stop()                   // the asker stops while the bot's answer is kept
	for i := 0; i < 3; i++ { // the Inbox's asker wakes meanwhile: nothing it does may hold these
		within(t, "Pending while another UI's answer is kept", func() { inbox.Pending() })
		within(t, "Outcome while another UI's answer is kept", func() { inbox.Outcome(id) })
		within(t, "Changed while another UI's answer is kept", func() { inbox.Changed() })
	}
	close(release)
	var o ui.Outcome
	within(t, "the Ask", func() { o = <-slow })
	if o.Err != nil || o.Answer.Via != "bot" {
		t.Fatalf("Ask() = %s, %v, want the bot's answer, which was kept", show(o.Answer), o.Err)
	}
	waitPending(t, inbox, 0)
	if ended, ok := inbox.Outcome(id); !ok || ended.Answer.Via != "bot" {
		t.Errorf("Inbox.Outcome() = %s, %v, want the bot's answer", showOutcome(ended), ok)
	}
}
