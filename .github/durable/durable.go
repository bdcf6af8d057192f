package main

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/dsh-go/userinteraction"
)

// durable is the provider of one DBOS workflow's questions on SQLite, where
// each process's page shows its own (on Postgres, sharedAsker). Each Ask is two
// steps of the workflow: the question's deadline, then its outcome. The
// outcome step opens the question on the Inbox and ends when the page
// delivers the human's outcome, or at the deadline. The page's answer is
// kept under WithKeep: DBOS checkpoints the step first, and only then is
// the page told that the answer was taken. So a crash never loses an answer
// the human saw taken.
//
// A recovered workflow asks again. A question that was answered returns its
// recorded outcome at once, without the page. One that was still open is
// opened again, with the deadline recorded before the crash, and under the
// same ID (WithQuestionID, from the workflow's ID and the question's
// number), so that a tab open across the restart shows it once. As for Replay,
// the tool must ask the same questions in the same order and ask before it
// acts. A question that differs from the one recorded at its step fails.
//
// The workflow's asks come one at a time, from its own goroutine, as DBOS
// steps must. When the engine fails an ask, the tool gets an error, and
// the workflow must not act on the tool's result: the workflow was
// cancelled, its database failed, or another process now runs it and
// refused this one's checkpoint. Err reports that failure.
type durable struct {
	dbos    dbos.Context // the workflow's
	inbox   *userinteraction.Inbox
	timeout time.Duration // how long a question waits for its answer
	asked   int           // the questions asked so far, which names the next one
	err     error         // the first failure of the engine
}

// asking maps each workflow to the ID of the question it opens, last, on
// the Inbox: awaitRecovered reads it.
var asking sync.Map

// Err returns the first error that the engine gave an ask, or nil.
func (d *durable) Err() error { return d.err }

// asked is what a question's outcome step records.
type asked struct {
	Request userinteraction.Request `json:"request"`
	Outcome userinteraction.Outcome `json:"outcome"`
}

func (d *durable) Ask(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
	req.RequireProof = req.RequireProof || *proof // -proof, the host's policy: recorded and signed as the tool's
	wf := dbos.From(d.dbos, ctx)                  // the workflow's steps, under the ask's ctx
	deadline, err := dbos.RunAsStep(wf, func(context.Context) (time.Time, error) {
		if d.timeout <= 0 {
			return time.Time{}, nil // none
		}
		return time.Now().Add(d.timeout).UTC().Truncate(time.Millisecond), nil
	}, dbos.WithStepName("question deadline"))
	if err != nil {
		return userinteraction.Answer{}, d.fail(err)
	}
	wfID, err := dbos.GetWorkflowID(wf)
	if err != nil {
		return userinteraction.Answer{}, d.fail(err)
	}
	d.asked++
	id := questionID(wfID, d.asked) // the same in every execution, so a tab open across a restart shows the question once
	asking.Store(wfID, id)
	q := &question{id: id, req: req, deadline: deadline, inbox: d.inbox, asker: ctx, claims: make(chan claim), closed: make(chan struct{})}
	got, err := dbos.RunAsStep(wf, q.wait, dbos.WithStepName("question outcome"))
	q.end(err == nil) // the checkpoint holds the page's answer, or the page is told no
	if err != nil {
		return userinteraction.Answer{}, d.fail(err)
	}
	want, _ := json.Marshal(req)
	if recorded, _ := json.Marshal(got.Request); string(recorded) != string(want) {
		return userinteraction.Answer{}, d.fail(errors.New("the tool asked another question than the workflow recorded at this step: " +
			"a workflow must ask the same questions in the same order"))
	}
	return got.Outcome.Answer, got.Outcome.Err
}

func (d *durable) fail(err error) error {
	if d.err == nil {
		d.err = err
	}
	return err
}

// A question is one ask open on the Inbox while its outcome step waits.
type question struct {
	id       string // its ID on the Inbox
	req      userinteraction.Request
	deadline time.Time // zero for none
	inbox    *userinteraction.Inbox
	asker    context.Context // the ask's

	claims chan claim                   // the page's outcomes, handed to the step
	closed chan struct{}                // closed once the step takes no more outcomes
	taken  *claim                       // the outcome the step took from the page, if any
	ended  chan userinteraction.Outcome // the Inbox's ask, once it returned; nil when it never began
	stop   context.CancelFunc           // closes the question on the Inbox
}

// errNotCheckpointed is a keep's error when the step did not checkpoint the
// page's outcome: the step ended without it, or DBOS refused the checkpoint
// of a stale execution. The question is over here, so the page gets 409
// NOT_PENDING, not NOT_KEPT's "send it again".
var errNotCheckpointed = userinteraction.NewError(userinteraction.CodeNotPending,
	"not pending: the workflow's step ended, or another process runs the workflow now", nil)

// errCounterNotKept is a keep's error when the passkey's counter of a proven
// answer could not be written: the answer is not taken.
var errCounterNotKept = userinteraction.NewError(userinteraction.CodeNotKept,
	"not kept: the passkey's counter could not be written to the database; send it again", nil)

// A claim is an outcome that the page is about to confirm.
type claim struct {
	outcome userinteraction.Outcome
	kept    chan bool // whether the step's checkpoint holds it
}

// wait is the outcome step. It opens the question on the Inbox and returns
// how it ended: the outcome that the page delivered, or the deadline's.
func (q *question) wait(step context.Context) (asked, error) {
	view, stop := context.WithCancel(step)
	if !q.deadline.IsZero() {
		stop()
		view, stop = context.WithDeadline(step, q.deadline)
	}
	q.stop, q.ended = stop, make(chan userinteraction.Outcome, 1)
	keep := func(o []userinteraction.Outcome) error { // on the page's goroutine; no lock is held
		if o[0].Answer.Proof != nil && keys.sync(q.inbox.Passkeys()) != nil { // the Inbox checked it, and holds its counter
			return errCounterNotKept
		}
		c := claim{outcome: o[0], kept: make(chan bool, 1)}
		select {
		case q.claims <- c:
			if <-c.kept {
				return nil
			}
			return errNotCheckpointed
		case <-q.closed: // the step ended without it: too late
			return errNotCheckpointed
		}
	}
	go func() {
		ans, err := q.inbox.Ask(userinteraction.WithKeep(userinteraction.WithQuestionID(view, q.id), keep), q.req)
		q.ended <- userinteraction.Outcome{Answer: ans, Err: err}
	}()
	defer close(q.closed)
	select {
	case c := <-q.claims:
		q.taken = &c
		return asked{Request: q.req, Outcome: c.outcome}, nil
	case o := <-q.ended:
		q.ended <- o // for end, which waits for the Inbox's ask
		switch {
		case q.asker.Err() != nil:
			// DBOS records this only when the ask alone ended, not the
			// workflow: a cancelled workflow asks again when resumed.
			o.Err = userinteraction.NewError(userinteraction.CodeAskAborted, "ask aborted: the asker stopped waiting", q.asker.Err())
		case errors.Is(o.Err, context.DeadlineExceeded):
			o.Err = userinteraction.NewError(userinteraction.CodeAskAborted, "ask aborted: no answer came before the deadline", o.Err)
		}
		return asked{Request: q.req, Outcome: o}, nil
	}
}

// end tells the page whether its outcome was kept, then closes the question
// on the Inbox and waits for the Inbox's ask to return.
func (q *question) end(kept bool) {
	if q.taken != nil {
		q.taken.kept <- kept
	}
	if q.ended != nil {
		q.stop()
		<-q.ended
	}
}
