package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/dsh-go/userinteraction"
)

// With -rp, the page enrols passkeys and proves answers with them (SQLite
// only: on Postgres the page is served over the database's Source, which has
// no passkey routes, so a proven question is refused there). The host keeps
// in its SQLite database:
//   - the accepted keys, a row each, written when the Inbox accepts one
//     (AcceptPasskey) and given back to the Inbox at start (SetPasskeys);
//   - each key's signature counter, raised to the Inbox's after an enrolment
//     (AcceptPasskey is not given the registration's) and in the keep of a
//     proven answer, before the answer is taken: a crash in between leaves
//     the table's counter ahead of the answers taken, never behind, so the
//     Inbox refuses the same counter after a restart as before it (Registry's
//     Ended runs after the step's checkpoint: a crash there would lose it);
//   - the receipts: a proven answer's Proof is in the outcome that the
//     question's step records (DBOS's operation_outputs), with its request.
//     -verify reads them back and prints VerifyProof's verdict on each.

// passkeysSchema is the table of the accepted passkeys.
const passkeysSchema = `CREATE TABLE IF NOT EXISTS userinteraction_passkeys (
	credential text PRIMARY KEY,
	key        text NOT NULL,             -- the JSON that AcceptPasskey got: {"credential", "publicKey", "relyingParty"}
	counter    integer NOT NULL DEFAULT 0 -- the highest the Inbox held: the registration's, then each proven answer's
)`

// passkeys is the table of the accepted passkeys in the SQLite database.
type passkeys struct{ db *sql.DB }

// openPasskeys opens the table in the SQLite database of the DBOS URL url,
// creating it if missing.
func openPasskeys(ctx context.Context, url string) (*passkeys, error) {
	name := sqliteName(url)
	if name == "" {
		name = ":memory:" // kept for this process only, as the database
	}
	db, err := sql.Open("sqlite", name+"?_pragma=busy_timeout(5000)") // DBOS's driver: modernc.org/sqlite
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one :memory: database; writes are few
	if _, err := db.ExecContext(ctx, passkeysSchema); err != nil {
		db.Close()
		return nil, err
	}
	return &passkeys{db: db}, nil
}

// all returns the accepted keys with their counters, as Inbox.Passkeys has
// them and VerifyProof reads them.
func (p *passkeys) all(ctx context.Context) ([]byte, error) {
	rows, err := p.db.QueryContext(ctx, `SELECT key, counter FROM userinteraction_passkeys ORDER BY rowid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	keys := []map[string]any{}
	for rows.Next() {
		var data string
		var counter int64
		var key map[string]any
		if err := rows.Scan(&data, &counter); err != nil {
			return nil, err
		}
		if json.Unmarshal([]byte(data), &key) != nil || key == nil {
			return nil, fmt.Errorf("userinteraction_passkeys holds a key that is no JSON object: %.100q", data)
		}
		key["counter"] = counter
		keys = append(keys, key)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return json.Marshal(keys)
}

// accept keeps key, the Inbox's AcceptPasskey: a passkey that the page
// enrols is accepted once the table holds it, as the page's token is the
// trust here. A host with a policy of its own checks key first.
func (p *passkeys) accept(key []byte) error {
	var k struct{ Credential, RelyingParty string }
	if err := json.Unmarshal(key, &k); err != nil || k.Credential == "" {
		return errors.New("the key has no credential")
	}
	// At most the 100 that SetPasskeys takes, though two enrolments race.
	res, err := p.db.Exec(`INSERT INTO userinteraction_passkeys (credential, key)
		SELECT ?, ? WHERE (SELECT count(*) FROM userinteraction_passkeys) < 100`, k.Credential, string(key))
	if err == nil {
		if n, _ := res.RowsAffected(); n == 0 {
			err = errors.New("100 are accepted")
		}
	}
	if err != nil {
		return fmt.Errorf("the passkey could not be kept: %w", err)
	}
	fmt.Fprintf(os.Stderr, "durable: accepted the passkey %q for %q\n", k.Credential, k.RelyingParty)
	return nil
}

// sync raises each key's counter in the table to the Inbox's, from all
// (Inbox.Passkeys): a counter is never lowered, so snapshots written in any
// order keep the highest.
func (p *passkeys) sync(all []byte) error {
	var keys []struct {
		Credential string
		Counter    uint32
	}
	if err := json.Unmarshal(all, &keys); err != nil {
		return err
	}
	for _, k := range keys {
		if _, err := p.db.Exec(`UPDATE userinteraction_passkeys SET counter = max(counter, ?) WHERE credential = ?`, k.Counter, k.Credential); err != nil {
			return err
		}
	}
	return nil
}

// verify prints VerifyProof's verdict on each proven answer that a question's
// step of a workflow recorded in the database url, against keys, and returns
// an error if one fails.
func verify(ctx context.Context, url string, keys []byte) error {
	quiet := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	client, err := dbos.NewClient(ctx, dbos.ClientConfig{DatabaseURL: url, AppName: "durable", Logger: quiet})
	if err != nil {
		return err
	}
	defer dbos.Shutdown(client, 5*time.Second)
	workflows, err := dbos.ListWorkflows(client, dbos.WithFilterName("migrate"), dbos.WithFilterLoadInput(false), dbos.WithFilterLoadOutput(false))
	if err != nil {
		return err
	}
	proven, failed := 0, 0
	for _, wf := range workflows {
		steps, err := dbos.GetWorkflowSteps(client, wf.ID, dbos.WithStepsLoadOutput(true))
		if err != nil {
			return err
		}
		n := 0
		for _, step := range steps {
			if step.StepName != "question outcome" {
				continue
			}
			n++
			var got asked
			if s, ok := step.Output.(string); !ok || json.Unmarshal([]byte(s), &got) != nil || !got.Request.RequireProof || got.Outcome.Err != nil {
				continue // no outcome recorded, no proven question, or no answer
			}
			proven++
			verdict := "verified"
			if err := userinteraction.VerifyProof(keys, got.Request, got.Outcome.Answer); err != nil {
				failed++
				verdict = "NOT VERIFIED: " + err.Error()
			}
			fmt.Printf("%s question %d: %q: %s\n", wf.ID, n, got.Outcome.Answer.Text, verdict)
		}
	}
	fmt.Fprintf(os.Stderr, "durable: %d proven answers, %d of them not verified\n", proven, failed)
	if failed > 0 {
		return fmt.Errorf("%d proven answers do not verify", failed)
	}
	return nil
}

// sqliteName returns the file of the SQLite database of the DBOS URL db, or
// "" for one in memory.
func sqliteName(db string) string {
	name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(db, "sqlite:"), "file:"), "?")
	if name = strings.TrimPrefix(name, "//"); strings.Contains(name, ":memory:") {
		return ""
	}
	return name
}
