package userinteraction_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// TestInboxChanges: cursor "" gets the open questions at once; a later
// cursor waits for what changed after it: a question that opened, one that
// got a Hint (as it is now, once), one that ended with its Outcome.
func TestInboxChanges(t *testing.T) {
	inbox := &ui.Inbox{}
	ctx, _ := inboxScope(t, inbox)
	changes, start, err := inbox.Changes(ctx, "")
	if len(changes) != 0 || start == "" || err != nil {
		t.Fatalf(`Changes("") = %v, %q, %v, want no change and a cursor`, changes, start, err)
	}
	done := askInbox(ctx, region)
	p := waitPending(t, inbox, 1)[0]
	if w := inbox.Respond(p.ID, ui.Answer{Text: "Mars"}, nil); ui.CodeOf(w) != ui.CodeInvalidAnswer {
		t.Fatalf("Respond(not offered) = %v, want INVALID_ANSWER", w)
	}
	changes, cursor, err := inbox.Changes(ctx, start)
	if err != nil || len(changes) != 1 || changes[0].Ended != nil || changes[0].Pending.ID != p.ID || changes[0].Pending.Hint == "" {
		t.Fatalf("Changes after an ask and a refusal = %+v, %v, want the question once, with its hint", changes, err)
	}
	changes[0].Pending.Request.Options[0].Label = "changed" // shares no memory with the Inbox
	if got := inbox.Pending()[0].Request.Options[0].Label; got == "changed" {
		t.Fatal("a Change shares its Request with the Inbox")
	}
	if all, _, _ := inbox.Changes(ctx, ""); len(all) != 1 || all[0].Pending.ID != p.ID {
		t.Fatalf(`Changes("") with one open = %+v, want it`, all)
	}
	if err := inbox.Respond(p.ID, ui.Answer{Option: &ui.Option{Label: "America"}}, nil); err != nil {
		t.Fatal(err)
	}
	receive(t, done)
	changes, next, err := inbox.Changes(ctx, cursor)
	if err != nil || len(changes) != 1 || changes[0].Pending.ID != p.ID || changes[0].Ended == nil || changes[0].Ended.Answer.Text != "us" {
		t.Fatalf("Changes after the answer = %+v, %v, want it ended with us", changes, err)
	}
	waiting, cancel := context.WithCancel(ctx)
	cancel()
	if changes, _, err := inbox.Changes(waiting, next); len(changes) != 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("Changes with nothing new and ctx done = %v, %v, want ctx's error", changes, err)
	}
}

// TestInboxChangesCursor: a cursor the Inbox does not know, or one older
// than the last 1,000 changes, is an error, so a stream that fell behind
// starts again from the whole list.
func TestInboxChangesCursor(t *testing.T) {
	inbox := &ui.Inbox{}
	ctx, _ := inboxScope(t, inbox)
	_, start, _ := inbox.Changes(ctx, "")
	for _, cursor := range []string{"x", "-1", "99", "1e3"} {
		if _, _, err := inbox.Changes(ctx, cursor); err == nil || !strings.Contains(err.Error(), "cursor") {
			t.Errorf("Changes(%q) = %v, want an error about the cursor", cursor, err)
		}
	}
	for i := 0; i < 501; i++ { // 1,002 changes: each opens and ends
		step, stop := context.WithCancel(ctx)
		done := askInbox(step, ui.Request{Question: fmt.Sprint("q", i)})
		waitPending(t, inbox, 1)
		stop()
		receive(t, done)
	}
	if _, _, err := inbox.Changes(ctx, start); err == nil {
		t.Fatal("Changes(a cursor 1,002 changes old) = nil error, want one")
	}
}

// TestHandlerChangeBytes: with 1,000 questions open, a question that opens
// or ends sends the bytes of that question alone, not of the list.
func TestHandlerChangeBytes(t *testing.T) {
	inbox, ctx, h := serve(t)
	reqs := make([]ui.Request, 100)
	for i := range reqs {
		reqs[i] = ui.Request{Question: strings.Repeat("Deploy? ", 50)}
	}
	var open []<-chan outcome
	for i := 0; i < 10; i++ {
		open = append(open, askInbox(ctx, reqs...))
	}
	waitPending(t, inbox, 1000)
	got, cancel, returned := events(t, h, "/events")
	if list := nextList(t, got); len(list) != 1000 {
		t.Fatalf("first event lists %d questions, want 1,000", len(list))
	}
	step, stop := context.WithCancel(ctx)
	done := askInbox(step, ui.Request{Question: "One more?"})
	small := func(want string) {
		if name, data := nextEvent(t, got); name != want || len(data) > 1000 {
			t.Fatalf("event = %s of %d bytes, want %s of at most 1,000", name, len(data), want)
		}
	}
	small("question")
	stop()
	small("ended")
	receive(t, done)
	cancel() // before the 1,000 endings, which nobody reads
	<-returned
	for _, q := range inbox.Pending() {
		if err := inbox.Respond(q.ID, ui.Answer{Text: "no"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, done := range open {
		receive(t, done)
	}
}

// source is a Source of the test's own: a list it changes by hand, like a
// host's view of a database.
type source struct {
	mu        sync.Mutex
	changes   []ui.Change
	fail      error
	responded []string
	changed   chan struct{}
}

func (s *source) Changes(ctx context.Context, cursor string) ([]ui.Change, string, error) {
	for {
		s.mu.Lock()
		n, changed, fail := len(s.changes), s.changed, s.fail
		var from int
		if cursor != "" {
			from = int(cursor[0] - '0')
		}
		out := s.changes[from:]
		s.mu.Unlock()
		if fail != nil {
			return nil, "", fail
		}
		if len(out) > 0 || cursor == "" {
			return out, string(rune('0' + n)), nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, cursor, ctx.Err()
		}
	}
}

func (s *source) add(c ui.Change, fail error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changes, s.fail = append(s.changes, c), fail
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *source) Respond(id string, ans ui.Answer, err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.responded = append(s.responded, id+" "+ans.Text+" "+ans.Via)
	return nil
}

func (s *source) Outcome(string) (ui.Outcome, bool) { return ui.Outcome{}, false }

// TestHandlerOverASource: Handler serves a Source that is no Inbox: its
// list, its changes as events, answers to its Respond, and a stream that
// ends when its Changes fails, so that the page connects again.
func TestHandlerOverASource(t *testing.T) {
	src := &source{changed: make(chan struct{})}
	src.add(ui.Change{Pending: ui.Pending{ID: "a", Request: ui.Request{Question: "From process A?"}}}, nil)
	h := ui.Handler(src, pageToken)
	if w := authed(h, "GET", "/questions", ""); w.Code != 200 || !strings.Contains(w.Body.String(), "From process A?") {
		t.Fatalf("GET /questions = %d %s, want the source's question", w.Code, w.Body)
	}
	got, _, returned := events(t, h, "/events")
	if list := nextList(t, got); len(list) != 1 {
		t.Fatalf("first event = %v, want the source's question", list)
	}
	src.add(ui.Change{Pending: ui.Pending{ID: "b", Request: ui.Request{Question: "From process B?"}}}, nil)
	if p := nextQuestion(t, got); p.ID != "b" {
		t.Fatalf("event = %+v, want question b", p)
	}
	if w := authed(h, "POST", "/questions/b", `{"action":"accept","content":{"text":"yes"}}`); w.Code != 204 || src.responded[0] != "b yes page" {
		t.Fatalf("POST = %d, source got %v, want 204 and b's answer via page", w.Code, src.responded)
	}
	src.add(ui.Change{Pending: ui.Pending{ID: "b"}, Ended: &ui.Outcome{Answer: ui.Answer{Text: "yes", Via: "page"}}}, nil)
	if e := nextEnded(t, got); e.ID != "b" || e.Outcome.Answer.Text != "yes" {
		t.Fatalf("event = %+v, want b ended with yes", e)
	}
	src.add(ui.Change{}, errors.New("the database is gone"))
	select {
	case <-returned:
	case <-time.After(inboxWait):
		t.Fatal("the stream did not end when its source failed")
	}
	if w := authed(h, "GET", "/questions", ""); w.Code != 503 {
		t.Fatalf("GET /questions of a failing source = %d, want 503", w.Code)
	}
}
