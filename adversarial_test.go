package userinteraction_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// Adversarial review of "How a question ended": each test is one finding,
// and fails while the package breaks the promise its comment cites.

// advWait bounds every wait of these tests: a hang detector, not a clock.
const advWait = 10 * time.Second

// advAskAll runs AskAll(ctx, reqs) on a goroutine of its own; the channel
// receives its outcome.
func advAskAll(ctx context.Context, reqs ...ui.Request) <-chan outcome {
	done := make(chan outcome, 1)
	go func() {
		answers, err := ui.AskAll(ctx, reqs)
		done <- outcome{answers, err}
	}()
	return done
}

// advAsk runs Ask(ctx, req) on a goroutine of its own; the channel receives
// its outcome.
func advAsk(ctx context.Context, req ui.Request) <-chan ui.Outcome {
	done := make(chan ui.Outcome, 1)
	go func() {
		ans, err := ui.Ask(ctx, req)
		done <- ui.Outcome{Answer: ans, Err: err}
	}()
	return done
}

// advWithin returns what ch receives, or fails the test after advWait with
// what, which names the wait.
func advWithin[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(advWait):
		t.Fatalf("%s did not happen within %v: a hang", what, advWait)
		var zero T
		return zero
	}
}

// advHoldingKeep returns a keep whose first call signals entered and waits
// for release, as a slow durable write does; later calls keep at once.
func advHoldingKeep() (keep func([]ui.Outcome) error, entered, release chan struct{}) {
	entered, release = make(chan struct{}), make(chan struct{})
	var once sync.Once
	keep = func([]ui.Outcome) error {
		first := false
		once.Do(func() { first = true })
		if first {
			close(entered)
			<-release
		}
		return nil
	}
	return keep, entered, release
}

// TestAdversarialInboxBatchAnswerOutlivesItsAsker: an AskAll of two
// questions on the page; the human answers the second (Respond returns nil,
// the page's POST is 204 and the card says "You answered: a1"), then the
// asker stops before the first is answered. AskAll returns ASK_ABORTED and
// Registry.Ended audits ASK_ABORTED for both questions, but Inbox.Outcome of
// the second still says it was answered "a1", so the page keeps telling the
// human their answer was taken. Contract, "How a question ended": "The
// decided outcome is the one Ask returns, Ended sees, EndedElsewhere and
// Inbox.Outcome report, and every UI shows." (Inbox.Outcome's doc: "what
// Registry.Ask returns for it".) The same holds for a decline given to a
// later question of a batch whose earlier question is still open.
func TestAdversarialInboxBatchAnswerOutlivesItsAsker(t *testing.T) {
	inbox := &ui.Inbox{}
	var audit ended
	session := scopeWith(t, &ui.Registry{Ended: audit.record}, inbox)
	step, stop := context.WithCancel(session)
	defer stop()
	reqs := []ui.Request{{Question: "b0"}, {Question: "b1"}}
	done := advAskAll(step, reqs...)
	pending := waitPending(t, inbox, 2)
	respond(t, inbox, pending[1].ID, ui.Answer{Text: "a1", Via: "page"}, nil)
	stop()
	o := advWithin(t, "AskAll's return", done)
	wantCode(t, "AskAll() after its asker stopped", o.err, ui.CodeAskAborted)
	for i, p := range pending {
		got, ok := inbox.Outcome(p.ID)
		if told := audit.of(p.Request.Question); !ok || !sameOutcome(got, told) {
			t.Errorf("b%d: Inbox.Outcome() = %s, %v; Registry.Ended audited %s; want one outcome",
				i, showOutcome(got), ok, showOutcome(told))
		}
	}
}

// TestAdversarialFirstOfReturnsAnAnswerItsKeepRefused: FirstOf of a Form
// and a Terminal whose input has ended, under a keep that cannot write (the
// database is away). The form's answer reaches the race, which runs the keep:
// it fails, so the answer is not kept. The Terminal drops out (end of input).
// The race then falls back to "the first provider's outcome", which is the
// form's answer, and Ask returns that answer to the tool: the tool acts on
// an answer the host's keep refused. Contract, "Kept before it is told":
// "a keep that fails releases the hold (the next waiting answer is kept, or
// the question stays open on every UI)"; "a kept answer wins".
func TestAdversarialFirstOfReturnsAnAnswerItsKeepRefused(t *testing.T) {
	var mu sync.Mutex
	var keeps []string
	keep := func(o []ui.Outcome) error {
		mu.Lock()
		defer mu.Unlock()
		keeps = append(keeps, o[len(o)-1].Answer.Text)
		return errWriteFailed
	}
	form := ui.NewForm(func(context.Context, ui.Elicitation) (string, map[string]any, error) {
		return "accept", map[string]any{"choice": "Deploy"}, nil
	})
	term := ui.NewTerminal(strings.NewReader(""), io.Discard) // input ended: ASK_CANCELLED
	ans, err := ui.Ask(scope(t, keeping(ui.FirstOf(form, term), keep)), deployRequest)
	mu.Lock()
	defer mu.Unlock()
	if err == nil {
		t.Fatalf("Ask() = %s, nil: the tool got an answer whose every keep failed (keep saw %q); want an error (NOT_KEPT or a drop-out)",
			show(ans), keeps)
	}
}

// TestAdversarialNestedFirstOfLoserIsToldTheAskerStopped: FirstOf(FirstOf(
// page, terminal), bot) under a keep. The bot answers; its answer holds the
// question while the keep writes it; the asker stops meanwhile; the keep
// succeeds, so (as for a single FirstOf, TestWithKeepSlowInARaceHoldsNoLock)
// Ask returns the bot's answer and Ended audits it. But the inner race's
// members look for the winner only in the inner race: Inbox.Outcome says
// ASK_ABORTED "the asker stopped" (the page: "The agent no longer needs an
// answer") and the Terminal writes "The agent no longer needs an answer."
// Contract: "EndedElsewhere(ctx) reports, inside a provider whose ask was
// withdrawn by FirstOf, how the question ended on the UI that won"; "The
// decided outcome is the one Ask returns, Ended sees, EndedElsewhere and
// Inbox.Outcome report, and every UI shows."
func TestAdversarialNestedFirstOfLoserIsToldTheAskerStopped(t *testing.T) {
	inbox := &ui.Inbox{}
	in, typed := io.Pipe()
	defer typed.Close()
	var out strings.Builder
	term := ui.NewTerminal(in, &lockedWriter{w: &out})
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
	keep, entered, release := advHoldingKeep()
	var audit ended
	session := scopeWith(t, &ui.Registry{Ended: audit.record}, keeping(ui.FirstOf(ui.FirstOf(inbox, term), bot), keep))
	step, stop := context.WithCancel(session)
	defer stop()
	done := advAsk(step, deployRequest)
	id := waitPending(t, inbox, 1)[0].ID
	close(answer)
	advWithin(t, "the keep of the bot's answer", entered)
	stop() // the asker stops while the bot's answer is kept
	close(release)
	o := advWithin(t, "Ask's return", done)
	if o.Err != nil || o.Answer.Via != "bot" {
		t.Fatalf("Ask() = %s, %v, want the bot's answer, which was kept", show(o.Answer), o.Err)
	}
	got, _ := inbox.Outcome(id)
	if told := audit.of(deployRequest.Question); !sameOutcome(got, told) {
		t.Errorf("Inbox.Outcome() = %s; Registry.Ended audited %s; want one outcome", showOutcome(got), showOutcome(told))
	}
	if written := out.String(); strings.Contains(written, "no longer needs an answer") {
		t.Errorf("the Terminal wrote %q: it told its human the agent no longer needs an answer, while the bot's answer was taken", written)
	}
}

// TestAdversarialKeepThatRespondsDeadlocks: a keep that calls the Inbox's
// own Respond for the question it keeps (a host whose store delivers each
// answer it writes back to the Inbox, on the writing goroutine) never
// returns: Respond waits for the outcome on its way, which waits for the
// keep. Contract, "Kept before it is told": "a keep that calls the Inbox's
// own methods does not deadlock".
func TestAdversarialKeepThatRespondsDeadlocks(t *testing.T) {
	inbox := &ui.Inbox{}
	var id string
	inner := make(chan error, 1)
	done := kept(t, context.Background(), inbox, deployRequest, func([]ui.Outcome) error {
		inner <- inbox.Respond(id, ui.Answer{Text: "deploy"}, nil)
		return nil
	})
	id = inbox.Pending()[0].ID
	responded := make(chan error, 1)
	go func() { responded <- inbox.Respond(id, ui.Answer{Text: "deploy"}, nil) }()
	advWithin(t, "the keep's own call of Respond", inner)
	if err := advWithin(t, "Respond", responded); err != nil {
		t.Fatalf("Respond() = %v, want nil", err)
	}
	advWithin(t, "Ask's return", done)
}

// TestAdversarialSecondDecideInARaceHangs: a UI that calls Decide a second
// time on its asking goroutine (a second confirmation of its own, or a
// double click it handles there) gets NOT_PENDING at once when it is the
// registry's lone provider. As a FirstOf member that won, the second Decide
// waits for the member's own ctx to end, which happens only once the member
// returns: Ask hangs until the asker gives up. Contract, Decide's doc: "Else
// o was not taken: NOT_PENDING when another UI answered"; Provider and
// registry: "Nothing hangs after a UI goes away."
func TestAdversarialSecondDecideInARaceHangs(t *testing.T) {
	second := make(chan error, 1)
	twice := ui.ProviderFunc(func(ctx context.Context, _ ui.Request) (ui.Answer, error) {
		o, err := ui.Decide(ctx, ui.Outcome{Answer: ui.Answer{Text: "deploy", Via: "bot"}})
		if err != nil {
			return ui.Answer{}, err
		}
		_, again := ui.Decide(ctx, o...)
		second <- again
		return o[0].Answer, nil
	})
	done := advAsk(scope(t, ui.FirstOf(twice, blocking(make(chan struct{}, 1)))), deployRequest)
	wantCode(t, "the second Decide of the race's winner", advWithin(t, "the second Decide's return", second), ui.CodeNotPending)
	if o := advWithin(t, "Ask's return", done); o.Err != nil {
		t.Fatalf("Ask() = %v, want the decided answer", o.Err)
	}
}

// TestAdversarialInboxOutcomeUnderTheHostsDeadline: a host gives each page
// question its own deadline by wrapping the Inbox (the Registry's ctx has
// none). Time runs out: the Inbox decides on its own that the question ended
// ASK_ABORTED "no answer came before the deadline" (the page: "Time ran
// out"), while Ask returns, and Ended audits, PROVIDER_FAILED "context
// deadline exceeded". Contract, "Decided once": "A provider hands over the
// human's outcome ...; it never works out on its own what Ask will return.
// The decided outcome is the one Ask returns, Ended sees, ... and
// Inbox.Outcome report."
func TestAdversarialInboxOutcomeUnderTheHostsDeadline(t *testing.T) {
	inbox := &ui.Inbox{}
	var timed *expiring
	asked := make(chan struct{})
	host := ui.ProviderFunc(func(ctx context.Context, req ui.Request) (ui.Answer, error) {
		timed = newExpiring(ctx) // the host's two minutes for the page
		close(asked)
		return inbox.Ask(timed, req)
	})
	var audit ended
	ctx := scopeWith(t, &ui.Registry{Ended: audit.record}, host)
	done := advAsk(ctx, deployRequest)
	id := waitPending(t, inbox, 1)[0].ID
	<-asked
	timed.expire()
	advWithin(t, "Ask's return", done)
	got, _ := inbox.Outcome(id)
	if told := audit.of(deployRequest.Question); !sameOutcome(got, told) {
		t.Errorf("Inbox.Outcome() = %s; Registry.Ended audited %s; want one outcome", showOutcome(got), showOutcome(told))
	}
}

// TestAdversarialCodedKeepErrorSaysTooLateWhileOpen: a host's keep fails
// with a coded error of its own storage layer (another plugin family's
// HarnessError, as the contract invites). The page's POST gets 409 ("Too
// late: this question is no longer open, and your answer was not used"),
// yet the question is still open in Pending, with no hint and no change, and
// the agent still waits. Contract, routes: "409 with the HarnessError JSON
// for NOT_PENDING"; "Kept before it is told": "The UI whose answer could not
// be kept says so and shows the question again ... the page's POST gets 503
// ..., Pending's Hint is set and Changed fires" (issue 41, finding 4: "A
// refused keep answers the page 409 ... while the question is still open and
// the agent still waits").
func TestAdversarialCodedKeepErrorSaysTooLateWhileOpen(t *testing.T) {
	const token = "0123456789abcdef0123"
	inbox := &ui.Inbox{}
	server := httptest.NewServer(inbox.Handler(token))
	defer server.Close()
	storage := &ui.HarnessError{Name: "StorageError", Code: "STORAGE_UNAVAILABLE", Message: "the database is away"}
	fails := true
	var mu sync.Mutex
	done := kept(t, context.Background(), inbox, deployRequest, func([]ui.Outcome) error {
		mu.Lock()
		defer mu.Unlock()
		if fails {
			return storage
		}
		return nil
	})
	id := inbox.Pending()[0].ID
	req, _ := http.NewRequest("POST", server.URL+"/questions/"+id, strings.NewReader(`{"action":"accept","content":{"choice":"Deploy"}}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	open := inbox.Pending()
	if res.StatusCode == http.StatusConflict && len(open) == 1 {
		t.Errorf("POST = 409 (\"Too late: this question is no longer open\"), but Pending() still holds it (hint %q) and the agent waits", open[0].Hint)
	}
	mu.Lock()
	fails = false
	mu.Unlock()
	if len(open) == 1 {
		respond(t, inbox, id, ui.Answer{Text: "deploy"}, nil)
	}
	advWithin(t, "Ask's return", done)
}

// TestAdversarialReplayBehindAWrapperAuditsAgain: a host that registers its
// Replay itself, behind a ProviderFunc that logs each question (a plain
// wrapper, as keeping is in keep_test.go), and runs a tool that asks
// AskAll(A, B, C) over rounds through Seal and OpenReplay, the client
// answering the one question pending each round. The registry asks a batch
// one question at a time through a provider that is no BatchProvider; the
// Replay marks B's outcome as audited already on B's own call, which the
// registry never reads (it reads the marks of the first call only). So the
// round that answers C audits B a second time. Contract, "Audited once":
// "the record marks the outcomes already audited, through Seal and
// OpenReplay, so a later round or another process does not audit them
// again"; Registry.Ended "is called once for every question".
func TestAdversarialReplayBehindAWrapperAuditsAgain(t *testing.T) {
	var seen []string
	yesNo := []ui.Option{{Label: "Yes"}, {Label: "No"}}
	reqs := []ui.Request{{Question: "A?", Options: yesNo}, {Question: "B?", Options: yesNo}, {Question: "C?", Options: yesNo}}
	state := ""
	for round := 0; round < 4; round++ {
		rp, err := ui.OpenReplay(sealKey, "call", state)
		if err != nil {
			t.Fatalf("round %d: OpenReplay() = %v", round, err)
		}
		r := &ui.Registry{Ended: func(req ui.Request, o ui.Outcome) {
			seen = append(seen, req.Question+" "+o.Answer.Text+ui.CodeOf(o.Err))
		}}
		logged := ui.ProviderFunc(func(ctx context.Context, req ui.Request) (ui.Answer, error) {
			return rp.Ask(ctx, req) // the host logs req here
		})
		dispose, err := r.Register(logged)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = ui.AskAll(ui.WithRegistry(context.Background(), r), reqs)
		dispose()
		pending := rp.Pending()
		if want := min(1, 3-round); len(pending) != want {
			t.Fatalf("round %d: %d questions pending, want %d", round, len(pending), want)
		}
		for _, p := range pending {
			rp.Record(p.ID, ui.Answer{Text: "Yes", Via: "mcp:client"}, nil)
		}
		if state, err = rp.Seal(sealKey, "call", time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"A? Yes", "B? Yes", "C? Yes"}; strings.Join(seen, ", ") != strings.Join(want, ", ") {
		t.Fatalf("Ended saw %q over four rounds, want %q: each answer audited once", seen, want)
	}
}
