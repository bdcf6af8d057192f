package userinteraction_test

// The adversarial review of round 1: one test per finding, each failing on
// ccbce1c.

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// TestReview1InboxFarDeadline: a deadline past year 9999, which RFC 3339
// cannot write, made Pending's JSON fail. Then GET /questions was 500 and
// every event stream ended at once, so one question hid all the others from
// the page. Such a deadline is no deadline a human can count down to.
func TestReview1InboxFarDeadline(t *testing.T) {
	inbox, session, h := serve(t)
	far, cancel := context.WithDeadline(session, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))
	defer cancel()
	done := askInbox(far, ui.Request{Question: "Far?"})
	near, cancelNear := context.WithTimeout(session, time.Hour)
	defer cancelNear()
	doneNear := askInbox(near, ui.Request{Question: "Near?"})
	pending := waitPending(t, inbox, 2)

	if _, err := json.Marshal(pending); err != nil {
		t.Errorf("json.Marshal(Pending()) = %v, want nil", err)
	}
	w := authed(h, http.MethodGet, "/questions", "")
	if w.Code != http.StatusOK {
		t.Fatalf("GET /questions = %d %s, want 200", w.Code, strings.TrimSpace(w.Body.String()))
	}
	var got []ui.Pending
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || len(got) != 2 {
		t.Fatalf("GET /questions = %s (%v), want both questions", w.Body.String(), err)
	}
	for _, q := range got {
		if d := !q.Deadline.IsZero(); d != (q.Request.Question == "Near?") {
			t.Errorf("GET /questions: %q has a deadline = %v, want %v", q.Request.Question, d, !d)
		}
	}
	for _, q := range pending {
		if err := inbox.Respond(q.ID, ui.Answer{Text: "yes"}, nil); err != nil {
			t.Fatalf("Respond() = %v, want nil", err)
		}
	}
	for _, d := range []<-chan outcome{done, doneNear} {
		if o := receive(t, d); o.err != nil {
			t.Errorf("Ask() = %v, want yes", o)
		}
	}
}
