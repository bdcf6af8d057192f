package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/dsh-go/userinteraction"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// On Postgres, several processes of the host share one database, and the
// page of any of them shows and answers the questions of all. A question is
// a row of the host's table, which the workflow writes in a step and then
// waits for its answer with dbos.Recv, on the question's ID as the topic.
// An answer posted to any process marks the row answered and writes the
// DBOS message that carries it in one transaction, so the answer is kept
// before the page is told, reaches the workflow wherever it runs (now or
// after its recovery), and a second answer finds the row answered (409):
// DBOS's idempotency key alone would drop a duplicate without a word.

// schema is the host's table, and the number of its last change. Each
// write takes the next number (next) and holds that row's lock until it
// commits, so changes commit in the order of their numbers, and a page that
// read up to one number never misses a smaller one that committed later.
const schema = `
BEGIN;
SELECT pg_advisory_xact_lock(7216); -- processes that start together
CREATE TABLE IF NOT EXISTS userinteraction_questions (
	id          text PRIMARY KEY,
	workflow_id text NOT NULL,
	request     text NOT NULL,        -- the Request's JSON
	deadline    timestamptz,          -- NULL for none
	hint        text NOT NULL DEFAULT '',
	outcome     text,                 -- the Outcome's JSON; NULL while open
	opened      bigint NOT NULL,      -- the change that opened it
	changed     bigint NOT NULL       -- its last change
);
CREATE INDEX IF NOT EXISTS userinteraction_questions_changed ON userinteraction_questions (changed);
CREATE INDEX IF NOT EXISTS userinteraction_questions_open ON userinteraction_questions (opened) WHERE outcome IS NULL;
CREATE TABLE IF NOT EXISTS userinteraction_changes (last bigint NOT NULL);
CREATE TABLE IF NOT EXISTS userinteraction_page (one boolean PRIMARY KEY DEFAULT true CHECK (one), token text NOT NULL);
INSERT INTO userinteraction_changes SELECT 0 WHERE NOT EXISTS (SELECT FROM userinteraction_changes);
COMMIT;`

// next leads a write: its change's number is (SELECT n FROM next).
const next = `WITH next AS (UPDATE userinteraction_changes SET last = last + 1 RETURNING last AS n) `

// poll is how often a page's stream reads the table for changes.
const poll = 250 * time.Millisecond

// shared is the questions of every process on one Postgres database: the
// page's Source, and where each process's workflows record their questions.
type shared struct {
	db     *pgxpool.Pool
	engine dbos.Context // sends the messages that carry answers
}

func openShared(ctx context.Context, url string, engine dbos.Context) (*shared, error) {
	db, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, err
	}
	if _, err := db.Exec(ctx, schema); err != nil {
		db.Close()
		return nil, err
	}
	return &shared{db: db, engine: engine}, nil
}

// token returns the page's token that every process on the database
// shares, after storing fresh at the first start, so that a link that one
// process printed works on all of them, and after their restarts.
func (s *shared) token(ctx context.Context, fresh string) (string, error) {
	if _, err := s.db.Exec(ctx, `INSERT INTO userinteraction_page (token) VALUES ($1) ON CONFLICT DO NOTHING`, fresh); err != nil {
		return "", err
	}
	var token string
	err := s.db.QueryRow(ctx, `SELECT token FROM userinteraction_page`).Scan(&token)
	return token, err
}

// opened is what a workflow's step records of its question.
type opened struct {
	Request  string    `json:"request"` // its JSON
	Deadline time.Time `json:"deadline"`
}

// open opens question id of workflow wf, unless a run of the step before a
// crash did: then it returns that run's request and deadline.
func (s *shared) open(ctx context.Context, id, wf string, req []byte, timeout time.Duration) (opened, error) {
	var deadline *time.Time
	if timeout > 0 {
		d := time.Now().Add(timeout).UTC().Truncate(time.Millisecond)
		deadline = &d
	}
	_, err := s.db.Exec(ctx, next+`INSERT INTO userinteraction_questions (id, workflow_id, request, deadline, opened, changed)
		SELECT $1, $2, $3, $4, n, n FROM next ON CONFLICT (id) DO NOTHING`, id, wf, string(req), deadline)
	if err != nil {
		return opened{}, err
	}
	var o opened
	var d *time.Time
	err = s.db.QueryRow(ctx, `SELECT request, deadline FROM userinteraction_questions WHERE id = $1`, id).Scan(&o.Request, &d)
	if d != nil {
		o.Deadline = d.UTC()
	}
	return o, err
}

// end records o as the outcome of question id, unless it was answered:
// then the answer's message waits for the workflow, and end returns false.
func (s *shared) end(ctx context.Context, id string, o userinteraction.Outcome) (bool, error) {
	data, err := json.Marshal(o)
	if err != nil {
		return false, err
	}
	tag, err := s.db.Exec(ctx, next+`UPDATE userinteraction_questions SET outcome = $2, changed = (SELECT n FROM next)
		WHERE id = $1 AND outcome IS NULL`, id, string(data))
	return tag.RowsAffected() == 1, err
}

// Changes reads the table: at cursor "", the open questions; after a
// cursor, every question written since, polling until there is one.
func (s *shared) Changes(ctx context.Context, cursor string) ([]userinteraction.Change, string, error) {
	if cursor == "" {
		return s.all(ctx)
	}
	after, err := strconv.ParseInt(cursor, 10, 64)
	if err != nil {
		return nil, "", fmt.Errorf("cursor %q: %w", cursor, err)
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		rows, err := s.db.Query(ctx, `SELECT id, request, deadline, hint, outcome, changed
			FROM userinteraction_questions WHERE changed > $1 ORDER BY changed`, after)
		changes, last, err := scan(rows, err)
		if err != nil || len(changes) > 0 {
			return changes, strconv.FormatInt(last, 10), err
		}
		select {
		case <-ctx.Done():
			return nil, "", ctx.Err()
		case <-tick.C:
		}
	}
}

// all returns the open questions, oldest first, and the cursor after them.
// One snapshot reads both, so no change falls between them.
func (s *shared) all(ctx context.Context) ([]userinteraction.Change, string, error) {
	tx, err := s.db.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, "", err
	}
	defer tx.Rollback(ctx)
	var last int64
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(changed), 0) FROM userinteraction_questions`).Scan(&last); err != nil {
		return nil, "", err
	}
	rows, err := tx.Query(ctx, `SELECT id, request, deadline, hint, NULL, changed FROM userinteraction_questions
		WHERE outcome IS NULL AND (deadline IS NULL OR deadline > now()) ORDER BY opened`)
	changes, _, err := scan(rows, err)
	return changes, strconv.FormatInt(last, 10), err
}

// scan reads rows of (id, request, deadline, hint, outcome, changed) as
// changes, and returns the last change's number.
func scan(rows pgx.Rows, err error) (changes []userinteraction.Change, last int64, _ error) {
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var q userinteraction.Pending
		var request string
		var deadline *time.Time
		var outcome *string
		if err := rows.Scan(&q.ID, &request, &deadline, &q.Hint, &outcome, &last); err != nil {
			return nil, 0, err
		}
		if outcome != nil {
			o := new(userinteraction.Outcome)
			if err := json.Unmarshal([]byte(*outcome), o); err != nil {
				return nil, 0, err
			}
			changes = append(changes, userinteraction.Change{Pending: userinteraction.Pending{ID: q.ID}, Ended: o})
			continue
		}
		if err := json.Unmarshal([]byte(request), &q.Request); err != nil {
			return nil, 0, err
		}
		if deadline != nil {
			q.Deadline = *deadline
		}
		changes = append(changes, userinteraction.Change{Pending: q})
	}
	return changes, last, rows.Err()
}

// Outcome reads how question id ended, or false while it is open.
func (s *shared) Outcome(id string) (userinteraction.Outcome, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var data string
	var o userinteraction.Outcome
	err := s.db.QueryRow(ctx, `SELECT outcome FROM userinteraction_questions WHERE id = $1 AND outcome IS NOT NULL`, id).Scan(&data)
	if err != nil || json.Unmarshal([]byte(data), &o) != nil {
		return userinteraction.Outcome{}, false
	}
	return o, true
}

var (
	errNotOpen = userinteraction.NewError(userinteraction.CodeNotPending, "not pending: the question is not open", nil)
	errNotKept = userinteraction.NewError(userinteraction.CodeNotKept, "not kept: the answer could not be written to the database; send it again", nil)
)

// Respond checks the outcome against its question's request, then, in one
// transaction, records it in the question's row and sends it to the
// workflow. DBOS's Send joins the caller's transaction (WithSendTransaction:
// it inserts the message into DBOS's notifications table, whose trigger
// wakes the Recv on whichever process waits), so the row and the message
// commit together or not at all, and the host writes no DBOS table itself.
func (s *shared) Respond(id string, ans userinteraction.Answer, err error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wf, request string
	switch err := s.db.QueryRow(ctx, `SELECT workflow_id, request FROM userinteraction_questions
		WHERE id = $1 AND outcome IS NULL`, id).Scan(&wf, &request); {
	case errors.Is(err, pgx.ErrNoRows):
		return errNotOpen
	case err != nil:
		return errNotKept
	}
	var req userinteraction.Request
	if err := json.Unmarshal([]byte(request), &req); err != nil {
		return errNotKept
	}
	o, hint := check(req, ans, err)
	if hint != "" {
		tag, err := s.db.Exec(ctx, next+`UPDATE userinteraction_questions SET hint = $2, changed = (SELECT n FROM next)
			WHERE id = $1 AND outcome IS NULL`, id, hint)
		if err == nil && tag.RowsAffected() == 0 {
			return errNotOpen // it ended meanwhile
		}
		return userinteraction.NewError(userinteraction.CodeInvalidAnswer, "invalid answer: "+hint, nil)
	}
	data, _ := json.Marshal(o)
	tx, err := s.db.Begin(ctx)
	if err != nil {
		return errNotKept
	}
	defer tx.Rollback(ctx)
	tag, err := tx.Exec(ctx, next+`UPDATE userinteraction_questions SET outcome = $2, hint = '', changed = (SELECT n FROM next)
		WHERE id = $1 AND outcome IS NULL AND (deadline IS NULL OR deadline > now())`, id, string(data))
	switch {
	case err != nil:
		return errNotKept
	case tag.RowsAffected() == 0:
		return errNotOpen // answered, ended, or past its deadline
	}
	if dbos.Send(s.engine, wf, string(data), id, dbos.WithSendTransaction(tx)) != nil || tx.Commit(ctx) != nil {
		return errNotKept
	}
	return nil
}

// check completes and checks the outcome (ans, err) of req as the package
// does for every answer, and returns it, or the hint of the rule it breaks.
// The package exports no such check, so a Replay of one question does it:
// a recorded answer that breaks a rule leaves the question pending with a
// hint, and one that keeps them reaches the registry's Ended completed.
func check(req userinteraction.Request, ans userinteraction.Answer, err error) (userinteraction.Outcome, string) {
	ask := func(ctx context.Context) { userinteraction.Ask(ctx, req) }
	rp := &userinteraction.Replay{}
	rp.Record(rp.Run(context.Background(), ask)[0].ID, ans, err)
	var o userinteraction.Outcome
	reg := &userinteraction.Registry{Ended: func(_ userinteraction.Request, ended userinteraction.Outcome) { o = ended }}
	if left := rp.Run(userinteraction.WithRegistry(context.Background(), reg), ask); len(left) > 0 {
		return o, left[0].Hint
	}
	return o, ""
}

// sharedAsker is the provider of one workflow's questions on Postgres.
// Each Ask is a step that opens the question's row, then a dbos.Recv of its
// outcome until the deadline. A recovered workflow asks again: the step
// returns the question and deadline it recorded, and Recv the outcome it
// received, or waits on. As for Replay, the tool must ask the same questions
// in the same order.
type sharedAsker struct {
	dbos    dbos.Context // the workflow's
	db      *shared
	timeout time.Duration
	asked   int   // the questions asked so far, which names the next one
	err     error // the first failure of the engine
}

// Err returns the first error that the engine gave an ask, or nil.
func (d *sharedAsker) Err() error { return d.err }

func (d *sharedAsker) fail(err error) error {
	if d.err == nil {
		d.err = err
	}
	return err
}

// forever is Recv's timeout for a question without a deadline.
const forever = 100 * 365 * 24 * time.Hour

var errDeadline = userinteraction.NewError(userinteraction.CodeAskAborted, "ask aborted: no answer came before the deadline", context.DeadlineExceeded)

// errNoPasskeys refuses a proven question on Postgres, where the page is
// served over the database's Source, and only an Inbox's has passkeys.
var errNoPasskeys = userinteraction.NewError(userinteraction.CodeAskUnsupported, "ask unsupported: the question requires proof "+
	"that a human answered, and passkeys need the Inbox's page: run the host on SQLite with -rp", nil)

func (d *sharedAsker) Ask(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
	if req.RequireProof || *proof {
		return userinteraction.Answer{}, errNoPasskeys
	}
	wf := dbos.From(d.dbos, ctx)
	wfID, err := dbos.GetWorkflowID(wf)
	if err != nil {
		return userinteraction.Answer{}, d.fail(err)
	}
	d.asked++
	id := questionID(wfID, d.asked)
	want, _ := json.Marshal(req)
	q, err := dbos.RunAsStep(wf, func(ctx context.Context) (opened, error) {
		return d.db.open(ctx, id, wfID, want, d.timeout)
	}, dbos.WithStepName("open question"))
	if err != nil {
		return userinteraction.Answer{}, d.fail(err)
	}
	if q.Request != string(want) {
		return userinteraction.Answer{}, d.fail(errors.New("the tool asked another question than the workflow recorded at this step: " +
			"a workflow must ask the same questions in the same order"))
	}
	wait := forever
	if !q.Deadline.IsZero() {
		wait = time.Until(q.Deadline)
	}
	for {
		msg, err := dbos.Recv[string](wf, id, wait)
		var timeout *dbos.Error
		switch {
		case err == nil:
			var o userinteraction.Outcome
			if err := json.Unmarshal([]byte(msg), &o); err != nil {
				return userinteraction.Answer{}, d.fail(err)
			}
			return o.Answer, o.Err
		case !errors.As(err, &timeout) || timeout.Code != dbos.ErrorCodeTimeout:
			return userinteraction.Answer{}, d.fail(err)
		}
		// The deadline passed. The row decides: an answer that committed
		// after Recv gave up is kept, and its message waits for the next Recv.
		ended, err := dbos.RunAsStep(wf, func(ctx context.Context) (bool, error) {
			return d.db.end(ctx, id, userinteraction.Outcome{Err: errDeadline})
		}, dbos.WithStepName("end question"))
		if err != nil {
			return userinteraction.Answer{}, d.fail(err)
		}
		if ended {
			return userinteraction.Answer{}, errDeadline
		}
		wait = time.Minute
	}
}

// questionID names the nth question of workflow wf, the same in every
// execution of the workflow: 32 hex digits, as the Inbox's.
func questionID(wf string, n int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\n%d", wf, n))
	return hex.EncodeToString(sum[:16])
}
