package userinteraction_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// How an Inbox's question ended: Inbox.Outcome for every ending, as
// Registry.Ask reports it, the last 1,000 kept, and a Respond that loses a
// FirstOf race to another UI.

// expiring is a context whose deadline passes when expire is called, so a
// test sees a deadline pass without waiting for a clock.
type expiring struct {
	context.Context
	done chan struct{}
}

func newExpiring(parent context.Context) *expiring {
	return &expiring{Context: parent, done: make(chan struct{})}
}

func (e *expiring) Deadline() (time.Time, bool) { return time.Now().Add(time.Hour), true }
func (e *expiring) Done() <-chan struct{}       { return e.done }
func (e *expiring) expire()                     { close(e.done) }
func (e *expiring) Err() error {
	select {
	case <-e.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// ended records what Registry.Ended was called with, by question.
type ended struct {
	mu sync.Mutex
	by map[string]ui.Outcome
}

func (e *ended) record(req ui.Request, o ui.Outcome) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.by == nil {
		e.by = map[string]ui.Outcome{}
	}
	e.by[req.Question] = o
}

func (e *ended) of(question string) ui.Outcome {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.by[question]
}

// sameOutcome reports whether a and b are one outcome: equal answers, or
// errors with one code and message.
func sameOutcome(a, b ui.Outcome) bool {
	if (a.Err == nil) != (b.Err == nil) {
		return false
	}
	if a.Err == nil {
		return reflect.DeepEqual(a.Answer, b.Answer)
	}
	var x, y *ui.HarnessError
	return errors.As(a.Err, &x) && errors.As(b.Err, &y) && x.Code == y.Code && x.Message == y.Message
}

// showOutcome is o as a test message shows it.
func showOutcome(o ui.Outcome) string {
	var e *ui.HarnessError
	if errors.As(o.Err, &e) {
		return "error " + e.Code + ": " + e.Message
	}
	if o.Err != nil {
		return "uncoded error " + o.Err.Error()
	}
	return "answer " + show(o.Answer)
}

// terminalPlayer is a UI that answers every question with ans (or fails with
// err) once go is closed, or returns ctx.Err() when withdrawn first. Its
// asked channel receives the ctx of each of its asks.
type terminalPlayer struct {
	ans   ui.Answer
	err   error
	now   chan struct{}
	asked chan context.Context
}

func newTerminalPlayer(ans ui.Answer, err error) *terminalPlayer {
	return &terminalPlayer{ans: ans, err: err, now: make(chan struct{}), asked: make(chan context.Context, 16)}
}

func (p *terminalPlayer) Ask(ctx context.Context, _ ui.Request) (ui.Answer, error) {
	p.asked <- ctx
	select {
	case <-p.now:
		return p.ans, p.err
	case <-ctx.Done():
		return ui.Answer{}, ctx.Err()
	}
}

// TestInboxOutcome: Outcome reports how each question left Pending, as
// Registry.Ask reported it to the tool: an answer with the Via it came with
// ("inbox" when none), a decline or a dismissal, an uncoded error as
// PROVIDER_FAILED, the deadline, the asker that stopped, the disposal, and
// an answer or decline on another UI of a FirstOf. An open question, or one
// never asked, has none.
func TestInboxOutcome(t *testing.T) {
	dismissed := ui.NewError(ui.CodeAskCancelled, "the user dismissed the question", nil)
	tests := []struct {
		name    string
		firstOf *terminalPlayer // FirstOf of the Inbox and this UI, when set
		end     func(t *testing.T, inbox *ui.Inbox, id string, stop func(), expire func(), dispose func())
		want    string // what Outcome shows
	}{
		{"answered, no Via", nil, func(t *testing.T, inbox *ui.Inbox, id string, _, _, _ func()) {
			respond(t, inbox, id, ui.Answer{Text: "Keep"}, nil)
		}, `answer {"Keep" option {Label:Keep Value: Description: Recommended:false} via inbox}`},
		{"answered with its own Via", nil, func(t *testing.T, inbox *ui.Inbox, id string, _, _, _ func()) {
			respond(t, inbox, id, ui.Answer{Text: "Delete", Via: "tui"}, nil)
		}, `answer {"Delete" option {Label:Delete Value: Description: Recommended:false} via tui}`},
		{"declined", nil, func(t *testing.T, inbox *ui.Inbox, id string, _, _, _ func()) {
			respond(t, inbox, id, ui.Answer{}, declined)
		}, "error ASK_DECLINED: the user declined to answer"},
		{"dismissed", nil, func(t *testing.T, inbox *ui.Inbox, id string, _, _, _ func()) {
			respond(t, inbox, id, ui.Answer{}, dismissed)
		}, "error ASK_CANCELLED: the user dismissed the question"},
		{"an uncoded error", nil, func(t *testing.T, inbox *ui.Inbox, id string, _, _, _ func()) {
			respond(t, inbox, id, ui.Answer{}, errors.New("socket closed"))
		}, "error PROVIDER_FAILED: provider failed: socket closed"},
		{"time ran out", nil, func(t *testing.T, _ *ui.Inbox, _ string, _, expire, _ func()) {
			expire()
		}, "error ASK_ABORTED: ask aborted: no answer came before the deadline"},
		{"the asker stopped", nil, func(t *testing.T, _ *ui.Inbox, _ string, stop, _, _ func()) {
			stop()
		}, "error ASK_ABORTED: ask aborted: the asker stopped waiting before the question was answered"},
		{"disposed", nil, func(t *testing.T, _ *ui.Inbox, _ string, _, _, dispose func()) {
			dispose()
		}, "error ASK_ABORTED: ask aborted: the provider was disposed before the question was answered"},
		{"answered in the terminal", newTerminalPlayer(ui.Answer{Text: "Delete", Via: "terminal"}, nil), nil,
			`answer {"Delete" option {Label:Delete Value: Description: Recommended:false} via terminal}`},
		{"declined in the terminal", newTerminalPlayer(ui.Answer{}, declined), nil,
			"error ASK_DECLINED: the user declined to answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inbox := &ui.Inbox{}
			var provider ui.Provider = inbox
			if tt.firstOf != nil {
				provider = ui.FirstOf(inbox, tt.firstOf)
			}
			var audit ended
			session := ui.WithRegistry(context.Background(), &ui.Registry{Ended: audit.record})
			dispose := register(t, session, provider)
			t.Cleanup(dispose)
			timed := newExpiring(session)
			step, stop := context.WithCancel(timed)
			defer stop()
			done := askInbox(step, deleteIt)
			id := waitPending(t, inbox, 1)[0].ID
			if o, ok := inbox.Outcome(id); ok {
				t.Fatalf("Outcome(open question) = %s, true, want false", showOutcome(o))
			}
			if tt.firstOf != nil {
				<-tt.firstOf.asked
				close(tt.firstOf.now)
			} else {
				tt.end(t, inbox, id, stop, timed.expire, dispose)
			}
			receive(t, done)
			got, ok := inbox.Outcome(id)
			if !ok || showOutcome(got) != tt.want {
				t.Fatalf("Outcome() = %s, %v, want %s", showOutcome(got), ok, tt.want)
			}
			if told := audit.of(deleteIt.Question); !sameOutcome(got, told) {
				t.Fatalf("Outcome() = %s, Registry.Ask returned %s, want one outcome", showOutcome(got), showOutcome(told))
			}
		})
	}
	if o, ok := (&ui.Inbox{}).Outcome("0123456789abcdef0123456789abcdef"); ok {
		t.Fatalf("Outcome(never asked) = %s, true, want false", showOutcome(o))
	}
}

// respond calls inbox.Respond and fails the test unless it delivers.
func respond(t *testing.T, inbox *ui.Inbox, id string, ans ui.Answer, err error) {
	t.Helper()
	if err := inbox.Respond(id, ans, err); err != nil {
		t.Fatalf("Respond() = %v, want nil", err)
	}
}

// TestInboxOutcomeOfBatch: each question of a batch has the Outcome that
// Registry.AskAll reported for its request. Questions after the one that
// ended the batch get its error, also when they were answered out of order.
func TestInboxOutcomeOfBatch(t *testing.T) {
	inbox := &ui.Inbox{}
	var audit ended
	session := ui.WithRegistry(context.Background(), &ui.Registry{Ended: audit.record})
	t.Cleanup(register(t, session, inbox))
	reqs := []ui.Request{{Question: "b0"}, {Question: "b1"}, {Question: "b2"}, {Question: "b3"}}
	done := askInbox(session, reqs...)
	pending := waitPending(t, inbox, 4)
	if o, ok := inbox.Outcome(pending[2].ID); ok {
		t.Fatalf("Outcome(b2) before its answer = %s, want none", showOutcome(o))
	}
	respond(t, inbox, pending[2].ID, ui.Answer{Text: "a2"}, nil)
	if o, ok := inbox.Outcome(pending[2].ID); !ok || o.Answer.Text != "a2" {
		t.Fatalf("Outcome(b2) once answered = %s, %v, want a2 at once", showOutcome(o), ok)
	}
	respond(t, inbox, pending[0].ID, ui.Answer{Text: "a0"}, nil)
	respond(t, inbox, pending[1].ID, ui.Answer{}, declined)
	o := receive(t, done)
	wantCode(t, "AskAll()", o.err, ui.CodeAskDeclined)
	for i, p := range pending {
		got, ok := inbox.Outcome(p.ID)
		if told := audit.of(p.Request.Question); !ok || !sameOutcome(got, told) {
			t.Errorf("Outcome(b%d) = %s, %v; Registry.AskAll reported %s, want one outcome", i, showOutcome(got), ok, showOutcome(told))
		}
	}
}

// TestInboxOutcomeKeepsTheLast1000: Outcome knows the last 1,000 questions
// that left Pending, and has forgotten those before them.
func TestInboxOutcomeKeepsTheLast1000(t *testing.T) {
	inbox := &ui.Inbox{}
	ctx, _ := inboxScope(t, inbox)
	var ids []string
	for i := 0; i < 11; i++ {
		batch := make([]ui.Request, 100)
		for j := range batch {
			batch[j] = ui.Request{Question: fmt.Sprint("Question ", 100*i+j, "?")}
		}
		done := askInbox(ctx, batch...)
		for _, p := range waitPending(t, inbox, 100) {
			respond(t, inbox, p.ID, ui.Answer{Text: p.Request.Question}, nil)
			ids = append(ids, p.ID)
		}
		receive(t, done)
	}
	for i, id := range ids {
		o, ok := inbox.Outcome(id)
		if want := i >= 100; ok != want || ok && o.Answer.Text != fmt.Sprint("Question ", i, "?") {
			t.Fatalf("Outcome(question %d of %d) = %s, %v, want %v", i, len(ids), showOutcome(o), ok, want)
		}
	}
}

// heldInbox asks its Inbox under a context that is the race's, but whose
// Done channel is closed only when release is, so that a test holds the
// moment between another UI's win and the Inbox's giving up: the context
// says it was withdrawn, and the Inbox's asker has not woken. withdrawn is
// closed when the race withdraws it.
type heldInbox struct {
	inbox     *ui.Inbox
	release   chan struct{}
	withdrawn chan struct{}
}

// lagging is ctx with a Done channel of its own.
type lagging struct {
	context.Context
	done <-chan struct{}
}

func (l lagging) Done() <-chan struct{} { return l.done }

func (h *heldInbox) held(ctx context.Context) context.Context {
	go func() {
		<-ctx.Done()
		close(h.withdrawn)
	}()
	return lagging{ctx, h.release}
}

func (h *heldInbox) Ask(ctx context.Context, req ui.Request) (ui.Answer, error) {
	return h.inbox.Ask(h.held(ctx), req)
}

func (h *heldInbox) AskAll(ctx context.Context, reqs []ui.Request) ([]ui.Answer, error) {
	return h.inbox.AskAll(h.held(ctx), reqs)
}

// TestInboxRespondAfterAnotherUIWon: in a FirstOf race, a Respond that comes
// after another UI won, before the Inbox's asker woke to it, is NOT_PENDING:
// only the winner's UI is told its answer was taken. The question leaves
// Pending then, with the winner's Outcome. In a batch, an answer to one
// question of several claims nothing, and after the win it is NOT_PENDING
// too.
func TestInboxRespondAfterAnotherUIWon(t *testing.T) {
	for _, tt := range []struct {
		name    string
		batch   int // questions asked
		before  int // answered here before the terminal wins
		respond int // the question answered after the win
	}{
		{"one question", 1, 0, 0},
		{"the last of a batch", 2, 1, 1},
		{"one of a batch", 3, 1, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			inbox := &ui.Inbox{}
			held := &heldInbox{inbox: inbox, release: make(chan struct{}), withdrawn: make(chan struct{})}
			defer close(held.release)
			term := newTerminalPlayer(ui.Answer{Text: "Keep", Via: "terminal"}, nil)
			ctx := scope(t, ui.FirstOf(held, term))
			reqs := make([]ui.Request, tt.batch)
			for i := range reqs {
				reqs[i] = deleteIt
			}
			done := askInbox(ctx, reqs...)
			pending := waitPending(t, inbox, len(reqs))
			termCtx := <-term.asked
			for _, p := range pending[:tt.before] {
				respond(t, inbox, p.ID, ui.Answer{Text: "Delete"}, nil)
			}
			if termCtx.Err() != nil {
				t.Fatal("the terminal was withdrawn by an answer to one question of several, want the race open")
			}
			close(term.now)
			<-held.withdrawn // the terminal won; the Inbox's asker has not woken
			err := inbox.Respond(pending[tt.respond].ID, ui.Answer{Text: "Delete"}, nil)
			wantCode(t, "Respond() after another UI won", err, ui.CodeNotPending)
			if p := inbox.Pending(); len(p) != 0 {
				t.Fatalf("Pending() = %d questions after the refused Respond, want none: the race is over", len(p))
			}
			for i, p := range pending {
				if got, ok := inbox.Outcome(p.ID); !ok || got.Answer.Via != "terminal" {
					t.Errorf("Outcome(question %d) = %s, %v, want the terminal's answer", i, showOutcome(got), ok)
				}
			}
			o := receive(t, done)
			if o.err != nil || o.answers[len(o.answers)-1].Via != "terminal" {
				t.Fatalf("Ask() = %v, want the terminal's answers", o)
			}
		})
	}
}

// TestInboxRespondRacesAnotherUI: a Respond and another UI's answer at the
// same moment, many times: Respond returns nil exactly when the ask returns
// the Inbox's answer, and NOT_PENDING exactly when it returns the other's.
// When the other UI won, Outcome reports its answer.
func TestInboxRespondRacesAnotherUI(t *testing.T) {
	for i := 0; i < 300; i++ {
		inbox := &ui.Inbox{}
		term := newTerminalPlayer(ui.Answer{Text: "Keep", Via: "terminal"}, nil)
		ctx := ui.WithRegistry(context.Background(), &ui.Registry{})
		dispose := register(t, ctx, ui.FirstOf(inbox, term))
		done := askInbox(ctx, deleteIt)
		id := waitPending(t, inbox, 1)[0].ID
		<-term.asked
		responded := make(chan error, 1)
		go func() { responded <- inbox.Respond(id, ui.Answer{Text: "Delete"}, nil) }()
		close(term.now)
		o := receive(t, done)
		err := <-responded
		dispose()
		if o.err != nil {
			t.Fatalf("try %d: Ask() = %v, want an answer", i, o)
		}
		switch via := o.answers[0].Via; {
		case via == "inbox" && err != nil:
			t.Fatalf("try %d: Ask() = the Inbox's answer, Respond() = %v, want nil", i, err)
		case via == "terminal" && ui.CodeOf(err) != ui.CodeNotPending:
			t.Fatalf("try %d: Ask() = the terminal's answer, Respond() = %v, want %s", i, err, ui.CodeNotPending)
		case via == "terminal":
			waitPending(t, inbox, 0)
			if got, ok := inbox.Outcome(id); !ok || got.Answer.Via != "terminal" {
				t.Fatalf("try %d: Outcome() = %s, %v, want the terminal's answer", i, showOutcome(got), ok)
			}
		}
	}
}

// TestInboxOutcomeOfBatchWonElsewhere: a batch that another UI won, after
// the human answered part of it here, reports the winner's Outcome for
// every one of its questions (the last answer, with its Via), and the
// answers given here are not what Outcome says.
func TestInboxOutcomeOfBatchWonElsewhere(t *testing.T) {
	inbox := &ui.Inbox{}
	term := newTerminalPlayer(ui.Answer{Text: "Keep", Via: "terminal"}, nil)
	ctx := scope(t, ui.FirstOf(inbox, term))
	done := askInbox(ctx, deleteIt, deleteIt)
	pending := waitPending(t, inbox, 2)
	respond(t, inbox, pending[0].ID, ui.Answer{Text: "Delete"}, nil)
	<-term.asked
	close(term.now)
	o := receive(t, done)
	if o.err != nil || !reflect.DeepEqual(texts(o.answers), []string{"Keep", "Keep"}) {
		t.Fatalf("AskAll() = %v, want the terminal's answers", o)
	}
	waitPending(t, inbox, 0)
	for i, p := range pending {
		if got, ok := inbox.Outcome(p.ID); !ok || got.Err != nil || got.Answer.Text != "Keep" || got.Answer.Via != "terminal" {
			t.Errorf("Outcome(question %d) = %s, %v, want the terminal's Keep", i, showOutcome(got), ok)
		}
	}
}

// TestEndingsRace: the page's answer, the Terminal's, the deadline and the
// disposal, all at one moment, many times, with the real Terminal and Inbox
// in a FirstOf. Whatever wins: Ask, Registry.Ended and Inbox.Outcome tell
// one story; Respond returned nil exactly when the page's answer is the
// outcome (a human told "taken" is never dropped); and the Terminal said
// where the question went exactly when its own answer is not the outcome.
// A claim that passes while the asker's ctx is ending must not leave the
// Terminal saying "The agent no longer needs an answer." of a question the
// page answered: a race takes no claim once its ctx is done, and
// EndedElsewhere asks the race for its winner.
func TestEndingsRace(t *testing.T) {
	req := ui.Request{Question: "Delete?", Options: []ui.Option{{Label: "Delete", Value: "rm"}, {Label: "Keep"}}, DisallowCustom: true}
	seen := map[string]int{}
	for i := 0; i < 200; i++ {
		inbox := &ui.Inbox{}
		in, typing := io.Pipe()
		out := newPromptWriter()
		var audit ended
		reg := &ui.Registry{Ended: audit.record}
		session := ui.WithRegistry(context.Background(), reg)
		dispose, err := reg.Register(ui.FirstOf(ui.NewTerminal(in, out), inbox))
		if err != nil {
			t.Fatal(err)
		}
		step := newExpiring(session)
		opened := inbox.Changed()
		done := askInbox(step, req)
		<-opened
		<-out.prompted
		id := inbox.Pending()[0].ID
		now := make(chan struct{})
		var all sync.WaitGroup
		var responded error
		race := []func(){
			func() { responded = inbox.Respond(id, ui.Answer{Text: "Keep", Via: "page"}, nil) },
			step.expire,
			dispose,
		}
		go func() { // read by the read in flight, if the Terminal began one; else the pipe's close ends it
			<-now
			_, _ = io.WriteString(typing, "1\n")
		}()
		for _, f := range race {
			all.Add(1)
			go func(f func()) {
				defer all.Done()
				<-now
				f()
			}(f)
		}
		close(now)
		o := receive(t, done)
		all.Wait()
		typing.Close()
		said := out.String() // complete: FirstOf returned once the Terminal had

		var got ui.Outcome
		switch {
		case o.err != nil:
			got = ui.Outcome{Err: o.err}
		default:
			got = ui.Outcome{Answer: o.answers[0]}
		}
		if !sameOutcome(audit.of(req.Question), got) {
			t.Fatalf("try %d: Registry.Ended saw %s, Ask() = %s", i, showOutcome(audit.of(req.Question)), showOutcome(got))
		}
		if kept, ok := inbox.Outcome(id); !ok || (got.Err == nil) != (kept.Err == nil) || got.Err == nil && kept.Answer.Via != got.Answer.Via {
			t.Fatalf("try %d: Inbox.Outcome() = %s, %v, Ask() = %s", i, showOutcome(kept), ok, showOutcome(got))
		}
		via := got.Answer.Via
		if got.Err != nil {
			via = ui.CodeOf(got.Err)
		}
		seen[via]++
		switch {
		case (responded == nil) != (via == "page"):
			t.Fatalf("try %d: Respond() = %v, Ask() = %s: a page told its answer was taken, or not, against the outcome", i, responded, showOutcome(got))
		case via == "terminal" && strings.Contains(said, "Answered"):
			t.Fatalf("try %d: the Terminal's answer won, and it wrote %q", i, said)
		case via == "page" && !strings.Contains(said, `Answered on the page: #2 "Keep".`):
			t.Fatalf("try %d: the page's answer won, and the Terminal wrote %q", i, said)
		case via == ui.CodeAskAborted && !strings.Contains(said, "No answer came before the deadline.") && !strings.Contains(said, "The agent no longer needs an answer."):
			t.Fatalf("try %d: Ask() = %s, and the Terminal wrote %q", i, showOutcome(got), said)
		case via != "page" && via != "terminal" && via != ui.CodeAskAborted:
			t.Fatalf("try %d: Ask() = %s, want one of the four endings", i, showOutcome(got))
		}
	}
	t.Logf("endings won: %v", seen)
}
