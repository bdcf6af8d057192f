package userinteraction_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// inboxWait bounds every wait of these tests, so that a bug fails a test
// instead of hanging it. No test sleeps to synchronise.
const inboxWait = 10 * time.Second

// inboxScope returns a session context whose registry has inbox registered,
// and the registration's dispose func, which also runs when the test ends.
func inboxScope(t *testing.T, inbox *ui.Inbox) (context.Context, func()) {
	t.Helper()
	ctx := ui.WithRegistry(context.Background(), &ui.Registry{})
	dispose := register(t, ctx, inbox)
	t.Cleanup(dispose)
	return ctx, dispose
}

// outcome is what one Ask or AskAll returned.
type outcome struct {
	answers []ui.Answer
	err     error
}

func (o outcome) String() string {
	return fmt.Sprintf("%q, %v", texts(o.answers), o.err)
}

// askInbox asks reqs through the registry of ctx on a goroutine of its own:
// one request by Ask, several by AskAll. The channel receives the outcome.
func askInbox(ctx context.Context, reqs ...ui.Request) <-chan outcome {
	done := make(chan outcome, 1)
	go func() {
		if len(reqs) == 1 {
			ans, err := ui.Ask(ctx, reqs[0])
			if err != nil {
				done <- outcome{err: err}
				return
			}
			done <- outcome{answers: []ui.Answer{ans}}
			return
		}
		answers, err := ui.AskAll(ctx, reqs)
		done <- outcome{answers, err}
	}()
	return done
}

// receive returns the outcome that done receives, failing the test when it
// does not come.
func receive(t *testing.T, done <-chan outcome) outcome {
	t.Helper()
	select {
	case o := <-done:
		return o
	case <-time.After(inboxWait):
		t.Fatalf("the ask did not return within %v", inboxWait)
		return outcome{}
	}
}

// waitPending waits, through Changed, until inbox has n open questions, and
// returns them.
func waitPending(t *testing.T, inbox *ui.Inbox, n int) []ui.Pending {
	t.Helper()
	for {
		changed := inbox.Changed()
		pending := inbox.Pending()
		if len(pending) == n {
			return pending
		}
		select {
		case <-changed:
		case <-time.After(inboxWait):
			t.Fatalf("len(Pending()) = %d, want %d", len(pending), n)
		}
	}
}

// isClosed reports whether ch is closed.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// questions returns the Question of each pending question.
func questions(pending []ui.Pending) []string {
	out := []string{}
	for _, p := range pending {
		out = append(out, p.Request.Question)
	}
	return out
}

var (
	inboxID = regexp.MustCompile(`^[0-9a-f]{32}$`)
	region  = ui.Request{
		Question:       "Which region?",
		Options:        []ui.Option{{Label: "Europe", Value: "eu"}, {Label: "America", Value: "us"}},
		DisallowCustom: true,
	}
	declined = ui.NewError(ui.CodeAskDeclined, "the user declined to answer", nil)
)

func TestInboxAnswersWhenResponded(t *testing.T) {
	tests := []struct {
		name    string
		req     ui.Request
		respond ui.Answer
		want    string
	}{
		{
			name:    "free-form",
			req:     ui.Request{Question: "Name the branch."},
			respond: ui.Answer{Text: "fix-42"},
			want:    `{"fix-42" via inbox}`,
		},
		{
			name:    "option by value",
			req:     region,
			respond: ui.Answer{Text: "us"},
			want:    `{"us" option {Label:America Value:us Description: Recommended:false} via inbox}`,
		},
		{
			name:    "option by label",
			req:     region,
			respond: ui.Answer{Option: &ui.Option{Label: "Europe"}},
			want:    `{"eu" option {Label:Europe Value:eu Description: Recommended:false} via inbox}`,
		},
		{
			name:    "several picks",
			req:     migrations,
			respond: ui.Pick(ui.Option{Label: "43"}, ui.Option{Label: "41"}),
			want: `{"41, 43" options [{Label:41 Value: Description: Recommended:false} ` +
				`{Label:43 Value: Description: Recommended:false}] via inbox}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inbox := &ui.Inbox{}
			ctx, _ := inboxScope(t, inbox)
			done := askInbox(ctx, tt.req)
			pending := waitPending(t, inbox, 1)
			if got := pending[0].Request; !reflect.DeepEqual(got, tt.req) {
				t.Fatalf("Pending()[0].Request = %+v, want %+v", got, tt.req)
			}
			if !inboxID.MatchString(pending[0].ID) {
				t.Fatalf("Pending()[0].ID = %q, want 32 lower-case hex digits", pending[0].ID)
			}
			select {
			case o := <-done:
				t.Fatalf("Ask() = %v before Respond, want it to wait", o)
			default:
			}
			if err := inbox.Respond(pending[0].ID, tt.respond, nil); err != nil {
				t.Fatalf("Respond() = %v, want nil", err)
			}
			o := receive(t, done)
			if o.err != nil || show(o.answers[0]) != tt.want {
				t.Fatalf("Ask() = %v, want %s", o, tt.want)
			}
			if got := inbox.Pending(); len(got) != 0 {
				t.Fatalf("Pending() = %v after Respond, want none", got)
			}
		})
	}
}

// TestInboxPendingOrder: Pending lists the questions oldest first, a
// batch's consecutive and in request order, and Pending's result is a copy.
func TestInboxPendingOrder(t *testing.T) {
	inbox := &ui.Inbox{}
	ctx, _ := inboxScope(t, inbox)
	var want []string
	var asks []<-chan outcome
	for i := 0; i < 10; i++ {
		if i == 5 {
			batch := []ui.Request{{Question: "b0"}, {Question: "b1"}, {Question: "b2"}}
			asks = append(asks, askInbox(ctx, batch...))
			want = append(want, "b0", "b1", "b2")
		} else {
			q := fmt.Sprint("q", i)
			asks = append(asks, askInbox(ctx, ui.Request{Question: q}))
			want = append(want, q)
		}
		waitPending(t, inbox, len(want)) // so the next ask opens after this one
	}
	pending := inbox.Pending()
	if got := questions(pending); !reflect.DeepEqual(got, want) {
		t.Fatalf("Pending() = %v, want %v", got, want)
	}
	pending[0].Request.Question = "changed by the UI"
	if got := inbox.Pending()[0].Request.Question; got != "q0" {
		t.Fatalf("Pending()[0] after the caller changed its copy = %q, want q0", got)
	}
	for i := len(pending) - 1; i >= 0; i-- { // newest first: the order does not matter
		if err := inbox.Respond(pending[i].ID, ui.Answer{Text: "ok"}, nil); err != nil {
			t.Fatalf("Respond(%s) = %v, want nil", pending[i].Request.Question, err)
		}
	}
	for _, done := range asks {
		if o := receive(t, done); o.err != nil {
			t.Fatalf("Ask() = %v, want answers", o)
		}
	}
}

// TestInboxIDsDistinct: 2,000 questions, asked one by one and in batches,
// get 2,000 distinct IDs of 32 lower-case hex digits.
func TestInboxIDsDistinct(t *testing.T) {
	inbox := &ui.Inbox{}
	ctx, _ := inboxScope(t, inbox)
	seen := map[string]bool{}
	note := func(id string) {
		if !inboxID.MatchString(id) || seen[id] {
			t.Fatalf("ID %q: want 32 lower-case hex digits, never seen before", id)
		}
		seen[id] = true
	}
	for i := 0; i < 1000; i++ {
		done := askInbox(ctx, question)
		id := waitPending(t, inbox, 1)[0].ID
		note(id)
		if err := inbox.Respond(id, ui.Answer{Text: "ok"}, nil); err != nil {
			t.Fatalf("Respond() = %v, want nil", err)
		}
		receive(t, done)
	}
	batch := make([]ui.Request, 100) // the most one AskAll may ask
	for i := range batch {
		batch[i] = question // equal requests still get distinct IDs
	}
	for i := 0; i < 10; i++ {
		done := askInbox(ctx, batch...)
		for _, p := range waitPending(t, inbox, len(batch)) {
			note(p.ID)
			if err := inbox.Respond(p.ID, ui.Answer{Text: "ok"}, nil); err != nil {
				t.Fatalf("Respond() = %v, want nil", err)
			}
		}
		if o := receive(t, done); o.err != nil || len(o.answers) != len(batch) {
			t.Fatalf("AskAll() = %d answers, %v, want %d and nil", len(o.answers), o.err, len(batch))
		}
	}
	if len(seen) != 2000 {
		t.Fatalf("%d distinct IDs, want 2000", len(seen))
	}
}

// TestInboxRefusesBrokenAnswer: an answer that breaks the request's rules is
// INVALID_ANSWER, and the question stays open for another try, with the
// line that tells the human why as its Hint: a change, so that every UI
// can show it.
func TestInboxRefusesBrokenAnswer(t *testing.T) {
	inbox := &ui.Inbox{}
	ctx, _ := inboxScope(t, inbox)
	done := askInbox(ctx, region)
	pending := waitPending(t, inbox, 1)
	id := pending[0].ID
	for _, tt := range []struct {
		ans  ui.Answer
		hint string
	}{
		{ui.Answer{}, "Pick an option."},
		{ui.Answer{Text: "  "}, "Pick an option."},
		{ui.Answer{Text: "Asia"}, "Pick from the options: this question takes no answer of your own."},
		{ui.Answer{Option: &ui.Option{Label: "Asia"}}, `"Asia" is not one of the options: pick one of those listed.`},
		{ui.Answer{Text: "us", Option: &ui.Option{Label: "Europe"}}, "Pick an option."},
		{ui.Answer{Options: []ui.Option{{Label: "Europe"}, {Label: "America"}}}, "Pick only one option."},
	} {
		changed := inbox.Changed()
		err := inbox.Respond(id, tt.ans, nil)
		wantCode(t, fmt.Sprintf("Respond(%s)", show(tt.ans)), err, ui.CodeInvalidAnswer)
		if !isClosed(changed) {
			t.Fatalf("Changed() open after a refused Respond(%s), want it closed: the hint is a change", show(tt.ans))
		}
		want := append([]ui.Pending(nil), pending...)
		want[0].Hint = tt.hint
		if got := inbox.Pending(); !reflect.DeepEqual(got, want) {
			t.Fatalf("Pending() after a refused Respond(%s) = %+v, want %+v", show(tt.ans), got, want)
		}
	}
	if err := inbox.Respond(id, ui.Answer{Text: "eu"}, nil); err != nil {
		t.Fatalf("Respond() = %v, want nil", err)
	}
	if o := receive(t, done); o.err != nil || o.answers[0].Text != "eu" {
		t.Fatalf("Ask() = %v, want eu", o)
	}
}

// TestInboxRefusesIDsNotOpen: an ID never opened, already answered or given
// up is NOT_PENDING, and changes nothing.
func TestInboxRefusesIDsNotOpen(t *testing.T) {
	inbox := &ui.Inbox{}
	ctx, _ := inboxScope(t, inbox)

	done := askInbox(ctx, question)
	answered := waitPending(t, inbox, 1)[0].ID
	if err := inbox.Respond(answered, ui.Answer{Text: "first"}, nil); err != nil {
		t.Fatalf("Respond() = %v, want nil", err)
	}
	if o := receive(t, done); o.err != nil || o.answers[0].Text != "first" {
		t.Fatalf("Ask() = %v, want the first Respond's answer", o)
	}

	step, cancel := context.WithCancel(ctx)
	done = askInbox(step, question)
	givenUp := waitPending(t, inbox, 1)[0].ID
	cancel()
	receive(t, done)

	open := askInbox(ctx, question) // stays open: refusals must not touch it
	pending := waitPending(t, inbox, 1)

	tests := []struct {
		name string
		id   string
		err  error
	}{
		{"never opened", strings.Repeat("0", 32), nil},
		{"empty", "", nil},
		{"long and not UTF-8", strings.Repeat("\xff", 10000), nil},
		{"already answered", answered, nil},
		{"already answered, an error", answered, declined},
		{"given up", givenUp, nil},
		{"upper-case twin of an open ID", strings.ToUpper(pending[0].ID), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changed := inbox.Changed()
			err := inbox.Respond(tt.id, ui.Answer{Text: "late"}, tt.err)
			wantCode(t, "Respond()", err, ui.CodeNotPending)
			long := inbox.Respond(tt.id+strings.Repeat("x", 1000), ui.Answer{}, nil)
			if len(err.Error()) > 400 || len(long.Error()) > 400 {
				t.Fatalf("Respond() error = %d and %d bytes, want at most 400: it quotes at most a short prefix",
					len(err.Error()), len(long.Error()))
			}
			if isClosed(changed) {
				t.Fatal("Changed() closed by a refused Respond, want it open")
			}
			if got := inbox.Pending(); !reflect.DeepEqual(got, pending) {
				t.Fatalf("Pending() = %v, want %v", got, pending)
			}
		})
	}
	if err := inbox.Respond(pending[0].ID, ui.Answer{Text: "ok"}, nil); err != nil {
		t.Fatalf("Respond() = %v, want nil", err)
	}
	receive(t, open)
}

// TestInboxGivesUpWithCtx: when the caller's step is cancelled, Ask returns
// ASK_ABORTED wrapping context.Canceled, and the question leaves Pending.
func TestInboxGivesUpWithCtx(t *testing.T) {
	inbox := &ui.Inbox{}
	session, _ := inboxScope(t, inbox)
	step, cancel := context.WithCancel(session)
	done := askInbox(step, question)
	id := waitPending(t, inbox, 1)[0].ID
	changed := inbox.Changed()
	cancel()
	o := receive(t, done)
	wantCode(t, "Ask()", o.err, ui.CodeAskAborted)
	if !errors.Is(o.err, context.Canceled) {
		t.Fatalf("errors.Is(%v, context.Canceled) = false, want true", o.err)
	}
	select {
	case <-changed:
	case <-time.After(inboxWait):
		t.Fatal("Changed() not closed when the question was given up")
	}
	if got := inbox.Pending(); len(got) != 0 {
		t.Fatalf("Pending() = %v after the step was cancelled, want none", got)
	}
	wantCode(t, "Respond()", inbox.Respond(id, ui.Answer{Text: "late"}, nil), ui.CodeNotPending)
}

// TestInboxDispose: disposing the Inbox's registration aborts its waiting
// asks with ASK_ABORTED that is not context.Canceled, their questions leave
// Pending, and the Inbox can be registered again.
func TestInboxDispose(t *testing.T) {
	inbox := &ui.Inbox{}
	ctx, dispose := inboxScope(t, inbox)
	one, batch := askInbox(ctx, question), askInbox(ctx, region, question)
	pending := waitPending(t, inbox, 3)
	dispose()
	for _, done := range []<-chan outcome{one, batch} {
		o := receive(t, done)
		wantCode(t, "Ask()", o.err, ui.CodeAskAborted)
		if errors.Is(o.err, context.Canceled) || len(o.answers) != 0 {
			t.Fatalf("Ask() = %v, want no answers and an error that is not context.Canceled", o)
		}
	}
	waitPending(t, inbox, 0)
	for _, p := range pending {
		wantCode(t, "Respond()", inbox.Respond(p.ID, ui.Answer{Text: "eu"}, nil), ui.CodeNotPending)
	}

	t.Cleanup(register(t, ctx, inbox))
	done := askInbox(ctx, question)
	if err := inbox.Respond(waitPending(t, inbox, 1)[0].ID, ui.Answer{Text: "again"}, nil); err != nil {
		t.Fatalf("Respond() = %v, want nil", err)
	}
	if o := receive(t, done); o.err != nil || o.answers[0].Text != "again" {
		t.Fatalf("Ask() after registering again = %v, want again", o)
	}
}

// TestInboxAskAll: a batch opens at once, consecutive, and returns its
// answers in request order, or the prefix before its first error.
func TestInboxAskAll(t *testing.T) {
	reqs := []ui.Request{{Question: "b0"}, {Question: "b1"}, {Question: "b2"}, {Question: "b3"}}

	t.Run("answered out of order", func(t *testing.T) {
		inbox := &ui.Inbox{}
		ctx, _ := inboxScope(t, inbox)
		before := askInbox(ctx, ui.Request{Question: "before"})
		waitPending(t, inbox, 1)
		changed := inbox.Changed()
		done := askInbox(ctx, reqs...)
		<-changed // one change opens the whole batch
		pending := inbox.Pending()
		if got, want := questions(pending), []string{"before", "b0", "b1", "b2", "b3"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("Pending() = %v, want %v", got, want)
		}
		for _, i := range []int{4, 2, 1, 3, 0} {
			if err := inbox.Respond(pending[i].ID, ui.Answer{Text: "re " + pending[i].Request.Question}, nil); err != nil {
				t.Fatalf("Respond(%d) = %v, want nil", i, err)
			}
		}
		o := receive(t, done)
		got, want := texts(o.answers), []string{"re b0", "re b1", "re b2", "re b3"}
		if o.err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("AskAll() = %v, %v, want %v", got, o.err, want)
		}
		receive(t, before)
	})

	t.Run("declined in the middle", func(t *testing.T) {
		inbox := &ui.Inbox{}
		ctx, _ := inboxScope(t, inbox)
		done := askInbox(ctx, reqs...)
		pending := waitPending(t, inbox, 4)
		if err := inbox.Respond(pending[0].ID, ui.Answer{Text: "a0"}, nil); err != nil {
			t.Fatalf("Respond(0) = %v, want nil", err)
		}
		if err := inbox.Respond(pending[2].ID, ui.Answer{}, declined); err != nil {
			t.Fatalf("Respond(2, declined) = %v, want nil", err)
		}
		// b3 could never be returned: it leaves at once; b1 still can.
		if got, want := questions(inbox.Pending()), []string{"b1"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("Pending() after the decline = %v, want %v", got, want)
		}
		wantCode(t, "Respond(3)", inbox.Respond(pending[3].ID, ui.Answer{Text: "a3"}, nil), ui.CodeNotPending)
		select {
		case o := <-done:
			t.Fatalf("AskAll() = %v while b1 is open, want it to wait", o)
		default:
		}
		if err := inbox.Respond(pending[1].ID, ui.Answer{Text: "a1"}, nil); err != nil {
			t.Fatalf("Respond(1) = %v, want nil", err)
		}
		o := receive(t, done)
		wantCode(t, "AskAll()", o.err, ui.CodeAskDeclined)
		if got, want := texts(o.answers), []string{"a0", "a1"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("AskAll() answers = %v, want %v", got, want)
		}
		if got := inbox.Pending(); len(got) != 0 {
			t.Fatalf("Pending() = %v, want none", got)
		}
	})

	t.Run("first error in request order", func(t *testing.T) {
		inbox := &ui.Inbox{}
		ctx, _ := inboxScope(t, inbox)
		done := askInbox(ctx, reqs...)
		pending := waitPending(t, inbox, 4)
		if err := inbox.Respond(pending[2].ID, ui.Answer{}, declined); err != nil {
			t.Fatalf("Respond(2, declined) = %v, want nil", err)
		}
		cancelled := ui.NewError(ui.CodeAskCancelled, "the user dismissed the question", nil)
		if err := inbox.Respond(pending[1].ID, ui.Answer{}, cancelled); err != nil {
			t.Fatalf("Respond(1, cancelled) = %v, want nil", err)
		}
		if err := inbox.Respond(pending[0].ID, ui.Answer{Text: "a0"}, nil); err != nil {
			t.Fatalf("Respond(0) = %v, want nil", err)
		}
		o := receive(t, done)
		wantCode(t, "AskAll()", o.err, ui.CodeAskCancelled)
		if got, want := texts(o.answers), []string{"a0"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("AskAll() answers = %v, want %v", got, want)
		}
	})

	t.Run("cancelled", func(t *testing.T) {
		inbox := &ui.Inbox{}
		session, _ := inboxScope(t, inbox)
		step, cancel := context.WithCancel(session)
		done := askInbox(step, reqs...)
		pending := waitPending(t, inbox, 4)
		for _, i := range []int{0, 2} {
			if err := inbox.Respond(pending[i].ID, ui.Answer{Text: fmt.Sprint("a", i)}, nil); err != nil {
				t.Fatalf("Respond(%d) = %v, want nil", i, err)
			}
		}
		cancel()
		o := receive(t, done)
		wantCode(t, "AskAll()", o.err, ui.CodeAskAborted)
		// The answers are a prefix: b2's answer comes after b1, which was given up.
		got, want := texts(o.answers), []string{"a0"}
		if !reflect.DeepEqual(got, want) || !errors.Is(o.err, context.Canceled) {
			t.Fatalf("AskAll() = %v, %v, want %v and context.Canceled", got, o.err, want)
		}
		if got := inbox.Pending(); len(got) != 0 {
			t.Fatalf("Pending() = %v, want none", got)
		}
	})
}

// TestInboxChanged: the channel is closed when a question opens, is answered
// or is given up, and not before; then Changed returns a new one.
func TestInboxChanged(t *testing.T) {
	inbox := &ui.Inbox{}
	session, _ := inboxScope(t, inbox)
	changed := inbox.Changed()
	if again := inbox.Changed(); again != changed || isClosed(changed) {
		t.Fatal("Changed() = a new or closed channel without a change, want the same open one")
	}

	step, cancel := context.WithCancel(session)
	defer cancel()
	given := askInbox(step, ui.Request{Question: "given up"})
	<-changed // opened
	waitPending(t, inbox, 1)
	answered := askInbox(session, ui.Request{Question: "answered"})
	pending := waitPending(t, inbox, 2)

	changed = inbox.Changed()
	if isClosed(changed) {
		t.Fatal("Changed() after a change = a closed channel, want a new one")
	}
	if err := inbox.Respond(pending[1].ID, ui.Answer{Text: "ok"}, nil); err != nil {
		t.Fatalf("Respond() = %v, want nil", err)
	}
	if !isClosed(changed) {
		t.Fatal("Changed() not closed when a question was answered")
	}
	receive(t, answered)

	changed = inbox.Changed()
	cancel()
	wantCode(t, "Ask()", receive(t, given).err, ui.CodeAskAborted)
	if !isClosed(changed) {
		t.Fatal("Changed() not closed when a question was given up")
	}

	// A ctx already done opens nothing, so nothing changes.
	changed = inbox.Changed()
	if _, err := inbox.Ask(step, question); !errors.Is(err, context.Canceled) {
		t.Fatalf("Ask(done ctx) = %v, want context.Canceled", err)
	}
	if isClosed(changed) {
		t.Fatal("Changed() closed by an Ask whose ctx was done, want it open")
	}
}

// TestInboxDirect: an Inbox used without a registry checks its input: an
// invalid request or a nil ctx opens nothing. The zero value is ready to use.
func TestInboxDirect(t *testing.T) {
	var inbox ui.Inbox
	if _, err := inbox.Ask(context.Background(), ui.Request{Question: " "}); ui.CodeOf(err) != ui.CodeInvalidRequest {
		t.Fatalf("Ask(blank question) = %v, want INVALID_REQUEST", err)
	}
	var nilCtx context.Context
	if _, err := inbox.Ask(nilCtx, question); ui.CodeOf(err) != ui.CodeInvalidRequest {
		t.Fatalf("Ask(nil ctx) = %v, want INVALID_REQUEST", err)
	}
	if _, err := inbox.AskAll(context.Background(), nil); ui.CodeOf(err) != ui.CodeInvalidRequest {
		t.Fatalf("AskAll(no requests) = %v, want INVALID_REQUEST", err)
	}
	noLabel := ui.Request{Question: "x", Options: []ui.Option{{Label: ""}}}
	_, err := inbox.AskAll(context.Background(), []ui.Request{question, noLabel})
	if ui.CodeOf(err) != ui.CodeInvalidRequest || !strings.Contains(err.Error(), "questions[1]") {
		t.Fatalf("AskAll(second invalid) = %v, want INVALID_REQUEST naming questions[1]", err)
	}
	if got := inbox.Pending(); len(got) != 0 {
		t.Fatalf("Pending() = %v after invalid asks, want none", got)
	}

	done := make(chan error, 1)
	go func() {
		_, err := inbox.Ask(context.Background(), question)
		done <- err
	}()
	if err := inbox.Respond(waitPending(t, &inbox, 1)[0].ID, ui.Answer{}, declined); err != nil {
		t.Fatalf("Respond(declined) = %v, want nil", err)
	}
	if err := <-done; err != declined {
		t.Fatalf("Ask() = %v, want the Respond's error as it is", err)
	}

	dispose, err := ui.Register(ui.WithRegistry(context.Background(), &ui.Registry{}), (*ui.Inbox)(nil))
	wantCode(t, "Register(nil *Inbox)", err, ui.CodeInvalidProvider)
	dispose()
}

// TestInboxRespondErrors: an error outcome is delivered as a live provider's
// is: Registry.Ask maps it by step 5, and an answer beside it is ignored.
func TestInboxRespondErrors(t *testing.T) {
	var typedNil *myError
	tests := []struct {
		name string
		err  error
		code string
	}{
		{name: "declined", err: declined, code: ui.CodeAskDeclined},
		{
			name: "coded by another family",
			err:  &ui.HarnessError{Name: "ToolError", Code: "TOOL_BROKEN", Message: "broken"},
			code: "TOOL_BROKEN",
		},
		{name: "uncoded", err: errors.New("socket closed"), code: ui.CodeProviderFailed},
		{name: "typed nil", err: typedNil, code: ui.CodeProviderFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inbox := &ui.Inbox{}
			ctx, _ := inboxScope(t, inbox)
			done := askInbox(ctx, question)
			if err := inbox.Respond(waitPending(t, inbox, 1)[0].ID, ui.Answer{Text: "ignored"}, tt.err); err != nil {
				t.Fatalf("Respond() = %v, want nil", err)
			}
			o := receive(t, done)
			if ui.CodeOf(o.err) != tt.code || len(o.answers) != 0 {
				t.Fatalf("Ask() = %v, want code %s", o, tt.code)
			}
		})
	}
}

// TestInboxConcurrent: many askers and one responder; each asker gets the
// answer to its own question, exactly once.
func TestInboxConcurrent(t *testing.T) {
	const askers, asksEach = 32, 25
	inbox := &ui.Inbox{}
	ctx, _ := inboxScope(t, inbox)
	var wg sync.WaitGroup
	for a := 0; a < askers; a++ {
		wg.Add(1)
		go func(a int) {
			defer wg.Done()
			for i := 0; i < asksEach; i++ {
				q := fmt.Sprintf("q%d-%d", a, i)
				ans, err := ui.Ask(ctx, ui.Request{Question: q})
				if err != nil || ans.Text != "re "+q {
					t.Errorf("Ask(%s) = %q, %v, want %q", q, ans.Text, err, "re "+q)
					return
				}
			}
		}(a)
	}
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	responded := 0
	for done := false; !done; {
		changed := inbox.Changed()
		for _, p := range inbox.Pending() {
			if err := inbox.Respond(p.ID, ui.Answer{Text: "re " + p.Request.Question}, nil); err != nil {
				t.Fatalf("Respond(%s) = %v, want nil", p.Request.Question, err)
			}
			responded++
		}
		select {
		case <-changed:
		case <-all:
			done = true
		case <-time.After(inboxWait):
			t.Fatalf("no change for %v after %d answers", inboxWait, responded)
		}
	}
	if responded != askers*asksEach {
		t.Fatalf("%d questions answered, want %d", responded, askers*asksEach)
	}
}

// TestInboxLeavesNoGoroutine: Changed channels nobody waits on, cancelled
// asks and disposals leave no goroutine behind.
func TestInboxLeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	inbox := &ui.Inbox{}
	session := ui.WithRegistry(context.Background(), &ui.Registry{})
	for i := 0; i < 200; i++ {
		dispose := register(t, session, inbox)
		inbox.Changed() // nobody waits on it
		step, cancel := context.WithCancel(session)
		given := askInbox(step, question)
		batch := askInbox(step, question, region)
		answered := askInbox(session, region)
		disposed := askInbox(session, question)
		for _, p := range waitPending(t, inbox, 5) {
			if p.Request.Question == region.Question {
				if err := inbox.Respond(p.ID, ui.Answer{Text: "eu"}, nil); err != nil {
					t.Fatalf("Respond() = %v, want nil", err)
				}
			}
		}
		cancel()
		receive(t, given)
		receive(t, batch)
		dispose()
		receive(t, answered)
		receive(t, disposed)
	}
	waitPending(t, inbox, 0)
	deadline := time.Now().Add(inboxWait)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, want at most %d as before; still running:\n%s",
				runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		runtime.Gosched() // the askers have returned: let the runtime retire them
	}
}

// TestInboxRandomized interleaves asks, answers, declines, second answers,
// racing answers, broken answers, cancellations and disposals in seeded
// random order, and checks that no outcome is lost or delivered twice: every
// Respond that returned nil reaches its asker, every asker that got an outcome
// got the one a successful Respond delivered, and a given-up asker gets none.
func TestInboxRandomized(t *testing.T) {
	seeds, steps := 20, 300
	if testing.Short() {
		seeds = 4
	}
	for seed := 1; seed <= seeds; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) { randomInbox(t, int64(seed), steps) })
	}
}

// randomInbox runs one seeded interleaving of TestInboxRandomized.
func randomInbox(t *testing.T, seed int64, steps int) {
	rnd := rand.New(rand.NewSource(seed))
	inbox := &ui.Inbox{}
	session := ui.WithRegistry(context.Background(), &ui.Registry{})
	dispose := register(t, session, inbox)
	defer func() { dispose() }()

	// An asker is one tool call's Ask, of the question that is its number.
	type asker struct {
		cancel    context.CancelFunc
		done      <-chan outcome
		got       *outcome // what Ask returned, once received
		delivered string   // what a Respond that returned nil delivered: a text, or an error's code
	}
	var askers []*asker
	byID := map[string]*asker{} // every ID seen in Pending
	var ids []string            // the same IDs, in a stable order
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d: "+format, append([]any{seed}, args...)...)
	}

	// pick returns the ID of a random open question.
	pick := func() (string, *asker, bool) {
		pending := inbox.Pending()
		for _, p := range pending {
			n, err := strconv.Atoi(p.Request.Question)
			if err != nil || n >= len(askers) {
				fail("Pending() holds %v, which no asker asked", p)
			}
			if byID[p.ID] == nil {
				byID[p.ID] = askers[n]
				ids = append(ids, p.ID)
			}
		}
		if len(pending) == 0 {
			return "", nil, false
		}
		id := pending[rnd.Intn(len(pending))].ID
		return id, byID[id], true
	}
	// delivered notes what Respond(id, ans, err) delivered, when it returned
	// nil, and checks that it is the question's first outcome.
	delivered := func(id string, ans ui.Answer, err, got error) {
		switch code := ui.CodeOf(got); {
		case got == nil:
			a := byID[id]
			if a.delivered != "" {
				fail("Respond(%s) = nil after %q was delivered, want NOT_PENDING", id, a.delivered)
			}
			a.delivered = ans.Text
			if err != nil {
				a.delivered = ui.CodeOf(err)
			}
		case code != ui.CodeNotPending && code != ui.CodeInvalidAnswer:
			fail("Respond() = %v, want nil, NOT_PENDING or INVALID_ANSWER", got)
		}
	}
	respond := func(id string, ans ui.Answer, err error) error {
		got := inbox.Respond(id, ans, err)
		delivered(id, ans, err, got)
		return got
	}
	// waitOpen waits until a's question is open, or a has returned.
	waitOpen := func(a *asker, question string) {
		for {
			changed := inbox.Changed()
			for _, p := range inbox.Pending() {
				if p.Request.Question == question {
					return
				}
			}
			select {
			case <-changed:
			case o := <-a.done:
				a.got = &o
				return
			case <-time.After(inboxWait):
				fail("question %s did not open", question)
			}
		}
	}

	for step := 0; step < steps; step++ {
		switch op := rnd.Intn(20); {
		case op < 6: // a tool asks; now and then the test does not wait for it
			ctx, cancel := context.WithCancel(session)
			q := strconv.Itoa(len(askers))
			a := &asker{cancel: cancel, done: askInbox(ctx, ui.Request{Question: q})}
			askers = append(askers, a)
			if rnd.Intn(4) > 0 {
				waitOpen(a, q)
			}
		case op < 10: // the human answers
			if id, _, ok := pick(); ok {
				_ = respond(id, ui.Answer{Text: fmt.Sprint("answer ", step)}, nil)
			}
		case op < 12: // the human declines
			if id, _, ok := pick(); ok {
				_ = respond(id, ui.Answer{}, declined)
			}
		case op == 12: // a broken answer
			if id, _, ok := pick(); ok {
				if err := respond(id, ui.Answer{Text: " "}, nil); err == nil {
					fail("Respond(blank) = nil, want an error")
				}
			}
		case op == 13: // a second answer, or a late one
			if len(ids) > 0 {
				_ = respond(ids[rnd.Intn(len(ids))], ui.Answer{Text: fmt.Sprint("again ", step)}, nil)
			}
		case op < 16: // two UIs answer the same question at once
			if id, _, ok := pick(); ok {
				var wg sync.WaitGroup
				errs := make([]error, 2)
				for i := range errs {
					wg.Add(1)
					go func(i int) {
						defer wg.Done()
						errs[i] = inbox.Respond(id, ui.Answer{Text: fmt.Sprint("race ", step, i)}, nil)
					}(i)
				}
				wg.Wait()
				if errs[0] == nil && errs[1] == nil {
					fail("two racing Respond() = nil, want one at most")
				}
				for i, err := range errs {
					delivered(id, ui.Answer{Text: fmt.Sprint("race ", step, i)}, nil, err)
				}
			}
		case op < 18: // a tool's step is cancelled
			if len(askers) > 0 {
				askers[rnd.Intn(len(askers))].cancel()
			}
		case op == 18: // the human answers as the tool's step is cancelled
			if id, a, ok := pick(); ok {
				go a.cancel()
				_ = respond(id, ui.Answer{Text: fmt.Sprint("answer ", step)}, nil)
			}
		default: // the UI goes away and comes back
			dispose()
			dispose = register(t, session, inbox)
		}
	}
	dispose()
	tally := map[string]int{}
	for n, a := range askers {
		a.cancel()
		if a.got == nil {
			o := receive(t, a.done)
			a.got = &o
		}
		select {
		case o := <-a.done:
			fail("asker %d returned twice: %v, then %v", n, *a.got, o)
		default:
		}
		code := ui.CodeOf(a.got.err)
		tally[code]++
		switch {
		case a.delivered != "" && a.got.err == nil && a.got.answers[0].Text == a.delivered:
		case a.delivered != "" && code == ui.CodeAskDeclined && a.delivered == code:
		case a.delivered == "" && (code == ui.CodeAskAborted || code == ui.CodeNoProvider):
		default:
			fail("asker %d returned %v; a Respond delivered %q", n, *a.got, a.delivered)
		}
	}
	if got := inbox.Pending(); len(got) != 0 {
		fail("Pending() = %v after every ask returned, want none", got)
	}
	t.Logf("%d asks; outcomes by code (\"\" answered): %v", len(askers), tally)
}

// TestInboxQuestionID: WithQuestionID names Ask's question, which Respond
// answers under that ID. An ID that is open already, is not 32 lowercase
// hex digits, or is given to AskAll leaves the question a random ID.
func TestInboxQuestionID(t *testing.T) {
	inbox := &ui.Inbox{}
	ctx, _ := inboxScope(t, inbox)
	id, req := strings.Repeat("0a", 16), ui.Request{Question: "Deploy?"}
	first := askInbox(ui.WithQuestionID(ctx, id), req)
	if got := waitPending(t, inbox, 1)[0].ID; got != id {
		t.Fatalf("the question's ID = %q, want %q, as WithQuestionID named it", got, id)
	}
	for _, bad := range []string{id, strings.ToUpper(id), id[:30], id + "0a", strings.Repeat("g", 32)} {
		askInbox(ui.WithQuestionID(ctx, bad), req)
	}
	askInbox(ui.WithQuestionID(ctx, strings.Repeat("0b", 16)), req, req)
	pending := waitPending(t, inbox, 8)
	random := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for _, p := range pending[1:] {
		if p.ID == id || p.ID == strings.Repeat("0b", 16) || !random.MatchString(p.ID) {
			t.Errorf("a question asked under a bad or open ID, or in a batch, has the ID %q, want a random one", p.ID)
		}
	}
	if err := inbox.Respond(id, ui.Answer{Text: "yes"}, nil); err != nil {
		t.Fatalf("Respond(%q) = %v", id, err)
	}
	if got := receive(t, first); got.err != nil || texts(got.answers)[0] != "yes" {
		t.Errorf("Ask under WithQuestionID returned %v, want the answer %q", got, "yes")
	}
}

// TestInboxQuestionIDAgain: an ID asked again after its question ended (a
// host's retry) is open, not ended: Outcome reports nothing until it ends
// again, and changes read from before the first ask leave it open.
func TestInboxQuestionIDAgain(t *testing.T) {
	inbox := &ui.Inbox{}
	ctx, _ := inboxScope(t, inbox)
	_, cursor, _ := inbox.Changes(ctx, "")
	id := strings.Repeat("0c", 16)
	first, cancel := context.WithCancel(ui.WithQuestionID(ctx, id))
	done := askInbox(first, ui.Request{Question: "Deploy?"})
	waitPending(t, inbox, 1)
	cancel()
	receive(t, done)
	if _, ok := inbox.Outcome(id); !ok {
		t.Fatal("Outcome of the withdrawn question: none")
	}
	done = askInbox(ui.WithQuestionID(ctx, id), ui.Request{Question: "Deploy now?"})
	if got := waitPending(t, inbox, 1)[0].ID; got != id {
		t.Fatalf("asked again, the question's ID = %q, want %q", got, id)
	}
	if o, ok := inbox.Outcome(id); ok {
		t.Errorf("Outcome(%q) of the question asked again, still open = %v, true; want none", id, o)
	}
	changes, _, err := inbox.Changes(ctx, cursor)
	if err != nil || len(changes) == 0 || changes[len(changes)-1].Ended != nil || changes[len(changes)-1].Pending.Request.Question != "Deploy now?" {
		t.Errorf("Changes from before the first ask = %+v, %v; want the first's ending, then the question open again", changes, err)
	}
	if err := inbox.Respond(id, ui.Answer{Text: "yes"}, nil); err != nil {
		t.Fatal(err)
	}
	receive(t, done)
	if o, ok := inbox.Outcome(id); !ok || o.Answer.Text != "yes" {
		t.Errorf("Outcome(%q) once answered = %v, %v, want the answer yes", id, o, ok)
	}
}
