package userinteraction_test

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// burst opens n questions in batches of 100 on inbox, answers them all, and
// returns once every asker has its answer.
func burst(t *testing.T, ctx context.Context, inbox *ui.Inbox, n int) {
	t.Helper()
	var asks []<-chan outcome
	for i := 0; i < n; i += 100 {
		batch := make([]ui.Request, 100)
		for j := range batch {
			batch[j] = ui.Request{Question: fmt.Sprint("Question ", i+j, "?")}
		}
		asks = append(asks, askInbox(ctx, batch...))
	}
	for _, p := range waitPending(t, inbox, n) {
		if err := inbox.Respond(p.ID, ui.Answer{Text: "yes"}, nil); err != nil {
			t.Fatalf("Respond() = %v, want nil", err)
		}
	}
	for _, done := range asks {
		if o := receive(t, done); o.err != nil {
			t.Fatalf("AskAll() = %v, want answers", o)
		}
	}
}

// heap returns the bytes of live heap objects, after a collection.
func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestInboxMemoryAfterBurst: after a burst of 10,000 questions closes, an
// Inbox holds what it held after 1,000: no open question, and the Outcome
// of the last 1,000 that left. A Go map keeps the buckets of its largest
// size, some 600 KB for 10,000 IDs.
func TestInboxMemoryAfterBurst(t *testing.T) {
	inbox := &ui.Inbox{}
	ctx, _ := inboxScope(t, inbox)
	burst(t, ctx, inbox, 1000) // the Inbox's fields exist, its outcomes at their limit
	before := heap()
	burst(t, ctx, inbox, 10000)
	after := heap()
	if after > before+128<<10 {
		t.Fatalf("live heap after a burst of 10,000 questions = %d KB more than before, want at most 128 KB", (after-before)>>10)
	}
	runtime.KeepAlive(inbox)
}

// TestInboxBatchPlace: each question of a batch keeps its place and the
// batch's size in Pending after others of the batch were answered, and its
// form says so.
func TestInboxBatchPlace(t *testing.T) {
	inbox := &ui.Inbox{}
	ctx, _ := inboxScope(t, inbox)
	done := askInbox(ctx, ui.Request{Question: "q0"}, ui.Request{Question: "q1"}, ui.Request{Question: "q2"})
	p := waitPending(t, inbox, 3)
	if err := inbox.Respond(p[0].ID, ui.Answer{Text: "a0"}, nil); err != nil {
		t.Fatal(err)
	}
	p = inbox.Pending()
	for i, q := range p {
		if q.Index != i+1 || q.Count != 3 {
			t.Errorf("Pending()[%d] Index, Count = %d, %d, want %d, 3", i, q.Index, q.Count, i+1)
		}
	}
	if got, want := p[0].Elicitation().Message, "Question 2 of 3.\nq1"; got != want {
		t.Errorf("Pending()[0].Elicitation().Message = %q, want %q", got, want)
	}
	for _, q := range p {
		if err := inbox.Respond(q.ID, ui.Answer{Text: "a"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	receive(t, done)
}

// TestInboxBatchAndDeadline: Pending marks the questions of one AskAll,
// also of one request, with one Batch that no other call has; a lone Ask has
// none. Each question carries its asker's deadline, or none.
func TestInboxBatchAndDeadline(t *testing.T) {
	inbox := &ui.Inbox{}
	session, _ := inboxScope(t, inbox)
	deadline := time.Now().Add(time.Hour)
	timed, cancel := context.WithDeadline(session, deadline)
	defer cancel()
	asks := []<-chan outcome{askInbox(session, ui.Request{Question: "lone"})}
	waitPending(t, inbox, 1)
	asks = append(asks, askInbox(timed, ui.Request{Question: "a1"}, ui.Request{Question: "a2"}))
	waitPending(t, inbox, 3)
	for _, q := range []string{"b", "c"} { // two batches of one request each
		done := make(chan outcome, 1)
		go func(q string) {
			answers, err := ui.AskAll(session, []ui.Request{{Question: q}})
			done <- outcome{answers, err}
		}(q)
		asks = append(asks, done)
		waitPending(t, inbox, len(asks)+1)
	}
	p := inbox.Pending()
	if got, want := questions(p), []string{"lone", "a1", "a2", "b", "c"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Pending() = %v, want %v", got, want)
	}
	switch {
	case p[0].Batch != "":
		t.Errorf("a lone Ask's Batch = %q, want none", p[0].Batch)
	case p[1].Batch == "" || p[1].Batch != p[2].Batch:
		t.Errorf("one AskAll's Batch = %q and %q, want one value", p[1].Batch, p[2].Batch)
	case p[3].Batch == "" || p[4].Batch == "" || p[3].Batch == p[4].Batch || p[3].Batch == p[1].Batch:
		t.Errorf("Batch of three calls = %q, %q, %q, want three values", p[1].Batch, p[3].Batch, p[4].Batch)
	}
	for i, want := range []time.Time{{}, deadline, deadline, {}, {}} {
		if !p[i].Deadline.Equal(want) {
			t.Errorf("Pending()[%d].Deadline = %v, want %v", i, p[i].Deadline, want)
		}
		if p[i].Hint != "" {
			t.Errorf("Pending()[%d].Hint = %q, want none", i, p[i].Hint)
		}
	}
	for i, want := range [][2]int{{0, 0}, {0, 2}, {1, 2}, {0, 1}, {0, 1}} {
		if got := [2]int{p[i].Index, p[i].Count}; got != want {
			t.Errorf("Pending()[%d] Index, Count = %v, want %v", i, got, want)
		}
	}
	for _, q := range p {
		if err := inbox.Respond(q.ID, ui.Answer{Text: "ok"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, done := range asks {
		if o := receive(t, done); o.err != nil {
			t.Fatalf("Ask() = %v, want an answer", o)
		}
	}
}

// TestInboxPendingSharesNothing: what a UI does to Pending's result (an
// append to one question's options, a changed label or agent) reaches
// neither the Inbox nor the other questions of the same result.
func TestInboxPendingSharesNothing(t *testing.T) {
	inbox := &ui.Inbox{}
	ctx, _ := inboxScope(t, inbox)
	first := ui.Request{Question: "first", Options: []ui.Option{{Label: "a"}, {Label: "b"}}, Agent: &ui.Agent{Name: "one"}}
	second := ui.Request{Question: "second", Options: []ui.Option{{Label: "c"}}, Agent: &ui.Agent{Name: "two"}}
	done := askInbox(ctx, first, second)
	want := waitPending(t, inbox, 2)
	got := inbox.Pending()
	got[0].Request.Options = append(got[0].Request.Options, ui.Option{Label: "appended"})
	got[0].Request.Options[0].Label = "changed"
	got[0].Request.Agent.Name = "changed"
	if got[1].Request.Options[0].Label != "c" || got[1].Request.Agent.Name != "two" {
		t.Fatalf("Pending()[1] = %+v after the UI changed Pending()[0], want it as asked", got[1].Request)
	}
	if again := inbox.Pending(); !reflect.DeepEqual(again, want) {
		t.Fatalf("Pending() = %+v after the UI changed its copy, want %+v", again, want)
	}
	for _, p := range want {
		if err := inbox.Respond(p.ID, ui.Answer{Option: &p.Request.Options[0]}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if o := receive(t, done); o.err != nil {
		t.Fatalf("AskAll() = %v, want answers", o)
	}
}
