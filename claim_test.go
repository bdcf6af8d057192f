package userinteraction_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// claimed asks req of inbox under a claim that records each outcome it is
// given and answers with take. It returns the channel of the ask's outcome
// and waits until the question is open.
func claimed(t *testing.T, ctx context.Context, inbox *ui.Inbox, req ui.Request, take func(ui.Outcome) bool) <-chan ui.Outcome {
	t.Helper()
	opened := inbox.Changed()
	done := make(chan ui.Outcome, 1)
	go func() {
		ans, err := inbox.Ask(ui.WithClaim(ctx, take), req)
		done <- ui.Outcome{Answer: ans, Err: err}
	}()
	<-opened
	return done
}

var deployRequest = ui.Request{Question: "Deploy?", Options: []ui.Option{{Label: "Deploy", Value: "deploy"}, {Label: "Wait"}}}

// TestWithClaimTakesBeforeRespondReturns: Respond delivers an outcome only
// once the asker's claim has taken it, with the answer as completed, and a
// claim that refuses leaves the question open for another Respond.
func TestWithClaimTakesBeforeRespondReturns(t *testing.T) {
	tests := []struct {
		name    string
		ans     ui.Answer
		err     error
		wantAns string // the completed answer the claim and the asker see
		code    string // of the outcome, when it is an error
	}{
		{name: "answer", ans: ui.Answer{Text: "deploy"}, wantAns: "deploy"},
		{name: "decline", err: ui.NewError(ui.CodeAskDeclined, "the human declined", nil), code: ui.CodeAskDeclined},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inbox := &ui.Inbox{}
			var seen []ui.Outcome
			refuse := true
			done := claimed(t, context.Background(), inbox, deployRequest, func(o ui.Outcome) bool {
				seen = append(seen, o) // on the Respond goroutine: this test's
				return !refuse
			})
			id := inbox.Pending()[0].ID

			err := inbox.Respond(id, tt.ans, tt.err)
			wantCode(t, "Respond() under a refusing claim", err, ui.CodeNotPending)
			if n := len(inbox.Pending()); n != 1 {
				t.Fatalf("Pending() after a refused claim holds %d questions, want the question still open", n)
			}

			refuse = false
			if err := inbox.Respond(id, tt.ans, tt.err); err != nil {
				t.Fatalf("Respond() under a taking claim = %v, want nil", err)
			}
			if len(seen) != 2 {
				t.Fatalf("claim was called %d times, want 2 (once per Respond)", len(seen))
			}
			got := <-done
			for _, o := range []ui.Outcome{seen[1], got} {
				if o.Answer.Text != tt.wantAns || ui.CodeOf(o.Err) != tt.code {
					t.Errorf("outcome = {%q %v}, want {%q %s}", o.Answer.Text, o.Err, tt.wantAns, tt.code)
				}
			}
			if tt.code == "" && (seen[1].Answer.Option == nil || seen[1].Answer.Option.Label != "Deploy") {
				t.Errorf("claim saw the answer %+v, want it completed with the option Deploy", seen[1].Answer)
			}
			wantCode(t, "Respond() after the claim took the outcome", inbox.Respond(id, tt.ans, tt.err), ui.CodeNotPending)
			if len(seen) != 2 {
				t.Errorf("claim was called %d times, want no call for a question no longer open", len(seen))
			}
		})
	}
}

// TestWithClaimOuterDecidesFirst: a claimer the context already holds is
// asked first, and the new claim only when it agrees: an outer WithClaim, and
// the race of a FirstOf whose ask runs under WithClaim.
func TestWithClaimOuterDecidesFirst(t *testing.T) {
	for _, outerTakes := range []bool{false, true} {
		inbox := &ui.Inbox{}
		var calls []string
		outer := ui.WithClaim(context.Background(), func(ui.Outcome) bool {
			calls = append(calls, "outer")
			return outerTakes
		})
		done := claimed(t, outer, inbox, deployRequest, func(ui.Outcome) bool {
			calls = append(calls, "inner")
			return true
		})
		err := inbox.Respond(inbox.Pending()[0].ID, ui.Answer{Text: "Wait"}, nil)
		want := "outer"
		if outerTakes {
			want = "outer inner"
			if err != nil {
				t.Fatalf("Respond() = %v, want nil when both claims take it", err)
			}
			if o := <-done; o.Answer.Text != "Wait" {
				t.Errorf("Ask() = %q, %v, want Wait", o.Answer.Text, o.Err)
			}
		} else {
			wantCode(t, "Respond() under a refusing outer claim", err, ui.CodeNotPending)
		}
		if got := strings.Join(calls, " "); got != want {
			t.Errorf("outer takes %v: claims called %q, want %q", outerTakes, got, want)
		}
	}

	// A FirstOf whose ask runs under WithClaim asks that claim for its
	// winner, and only for it.
	inbox := &ui.Inbox{}
	var taken []string
	ctx := ui.WithClaim(scope(t, ui.FirstOf(inbox, blocking(make(chan struct{}, 1)))), func(o ui.Outcome) bool {
		taken = append(taken, o.Answer.Text)
		return true
	})
	opened := inbox.Changed()
	done := make(chan error, 1)
	go func() {
		_, err := ui.Ask(ctx, deployRequest)
		done <- err
	}()
	<-opened
	if err := inbox.Respond(inbox.Pending()[0].ID, ui.Answer{Text: "deploy"}, nil); err != nil {
		t.Fatalf("Respond() in a FirstOf = %v, want nil", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Ask() through FirstOf = %v, want nil", err)
	}
	if len(taken) != 1 || taken[0] != "deploy" {
		t.Errorf("the ask's claim took %q, want the winner's answer once", taken)
	}
}

// TestWithClaimPage: the page's POST is 204 only after the claim took the
// answer, and 409 when the claim refuses it.
func TestWithClaimPage(t *testing.T) {
	const token = "0123456789abcdef0123"
	inbox := &ui.Inbox{}
	server := httptest.NewServer(inbox.Handler(token))
	defer server.Close()
	post := func(id string) int {
		t.Helper()
		req, _ := http.NewRequest("POST", server.URL+"/questions/"+id, strings.NewReader(`{"action":"accept","content":{"choice":"Deploy"}}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	takes := make(chan bool, 1)
	done := claimed(t, context.Background(), inbox, deployRequest, func(ui.Outcome) bool { return <-takes })
	id := inbox.Pending()[0].ID
	takes <- false
	if got := post(id); got != http.StatusConflict {
		t.Fatalf("POST under a refusing claim = %d, want 409", got)
	}
	takes <- true
	if got := post(id); got != http.StatusNoContent {
		t.Fatalf("POST under a taking claim = %d, want 204", got)
	}
	if o := <-done; o.Answer.Text != "deploy" {
		t.Errorf("Ask() = %q, %v, want deploy", o.Answer.Text, o.Err)
	}
}

// TestWithClaimNil: a nil claim adds nothing.
func TestWithClaimNil(t *testing.T) {
	ctx := context.Background()
	if got := ui.WithClaim(ctx, nil); got != ctx {
		t.Errorf("WithClaim(ctx, nil) = %v, want ctx itself", got)
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
		t.Fatalf("%s did not return while another question's claim was writing", what)
	}
}

// TestWithClaimSlowHoldsNoOtherQuestion: a claim that takes its time, as a
// durable write to a slow database does, holds its own question only. While
// it writes, Pending, Outcome and a Respond to another question return, and
// another question's asker who stops is answered at once; a second Respond
// to the claimed question is not confirmed; and the answer the claim takes
// reaches its asker, also when that asker stopped meanwhile, since the human
// is told that it was taken. Else the Inbox waited for the claim under its
// lock, and one stuck write froze every page and every other deadline.
func TestWithClaimSlowHoldsNoOtherQuestion(t *testing.T) {
	inbox := &ui.Inbox{}
	entered, release := make(chan struct{}), make(chan struct{})
	step, stop := context.WithCancel(context.Background())
	defer stop()
	slow := claimed(t, step, inbox, deployRequest, func(ui.Outcome) bool {
		close(entered)
		<-release
		return true
	})
	slowID := inbox.Pending()[0].ID
	other, quit := context.WithCancel(context.Background())
	defer quit()
	opened := inbox.Changed()
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
	second := make(chan error, 1)
	go func() { second <- inbox.Respond(slowID, ui.Answer{Text: "Wait"}, nil) }()
	stop() // the asker stops while the claim writes
	close(release)
	if err := <-responded; err != nil {
		t.Fatalf("Respond() whose claim took the answer = %v, want nil", err)
	}
	wantCode(t, "a second Respond while the first one's claim wrote", <-second, ui.CodeNotPending)
	if o := <-slow; o.Err != nil || o.Answer.Text != "deploy" {
		t.Errorf("Ask() whose answer the claim took = %q, %v, want deploy, the answer the human was told was taken", o.Answer.Text, o.Err)
	}
}

// TestWithClaimPanics: a claim that panics raises the panic in Respond's
// caller, and leaves the Inbox as it was: the question open, another
// Respond taken, no wait left behind.
func TestWithClaimPanics(t *testing.T) {
	inbox := &ui.Inbox{}
	panics := true
	done := claimed(t, context.Background(), inbox, deployRequest, func(ui.Outcome) bool {
		if panics {
			panic("the database went away")
		}
		return true
	})
	id := inbox.Pending()[0].ID
	func() {
		defer func() {
			if v := recover(); v != "the database went away" {
				t.Errorf("Respond() under a panicking claim panicked with %v, want the claim's panic", v)
			}
		}()
		_ = inbox.Respond(id, ui.Answer{Text: "deploy"}, nil)
	}()
	if n := len(inbox.Pending()); n != 1 {
		t.Fatalf("Pending() after a panicking claim holds %d questions, want the question still open", n)
	}
	panics = false
	within(t, "Respond after a panicking claim", func() {
		if err := inbox.Respond(id, ui.Answer{Text: "Wait"}, nil); err != nil {
			t.Errorf("Respond() after a panicking claim = %v, want nil", err)
		}
	})
	if o := <-done; o.Answer.Text != "Wait" {
		t.Errorf("Ask() = %q, %v, want Wait", o.Answer.Text, o.Err)
	}
}
