// Command durable runs the README's migrate tool as a DBOS workflow, so that
// its question survives a crash, a restart or a redeploy, and serves the
// question on the Inbox's page.
//
//	go run . -db sqlite:durable.db
//
// It prints the page's URL and, once the human answered, the tool's result.
// Kill it while the question waits and start it again: DBOS recovers the
// workflow, the question is on the page again with the same deadline, and
// the answer reaches the tool once.
//
// A Postgres URL in -db, such as postgres://user:pass@host:5432/db, runs
// the host on several processes that share the database (shared.go): the
// page of any of them shows every process's open questions, and an answer
// posted to any of them reaches the workflow wherever it runs. Give each
// process its own DBOS__VMID and all of them the same DBOS__APPVERSION,
// and keep both across its restarts.
//
// The page's URL outlives a restart, and so does a tab open on it: the
// host keeps its token in a file beside the SQLite database (its name and
// ".token", mode 0600), or in the Postgres database, one for all its
// processes; USERINTERACTION_TOKEN (16 bytes or more) overrides it. A
// question asked again after a restart keeps its ID, and on SQLite the page
// is served once the recovered questions are open again: the tab shows each
// question once.
//
// With -rp localhost (the page's host name), the page enrols passkeys and
// proves answers with them, and -proof makes every question require a
// proven answer, as a tool's Request.RequireProof does. The host keeps the
// accepted keys and their signature counters in its SQLite database
// (passkeys.go), and each receipt in the outcome its workflow recorded:
// "go run . -verify" prints VerifyProof's verdict on each proven answer. On
// Postgres the page has no passkeys: -rp and -verify are refused, and so is
// a proven question, with ASK_UNSUPPORTED.
//
// DBOS recovers at launch only the workflows of its own application
// version (DBOS__APPVERSION, by default a hash of the binary) and executor
// ID (DBOS__VMID). The host prints one line on stderr for each workflow
// that waits for another version (on SQLite, or another executor) and
// leaves it waiting: resumed here, this build's code would run over steps
// that another recorded. Start the host with that version, when its tool
// asks the same questions in the same order, or run that build. Processes
// that share a database each need their own DBOS__VMID: a process recovers,
// at its start, the unfinished workflows of its own ID, even those another
// process still runs. On SQLite each page shows its own process's questions
// only.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	_ "github.com/dbos-inc/dbos-transact-golang/dbos/driver/sqlite"
	"github.com/dsh-go/userinteraction"
)

// migrate is a tool: it asks before it acts.
func migrate(ctx context.Context) string {
	ans, err := userinteraction.Ask(ctx, userinteraction.Request{
		Question: "Run migration 42 on production?",
		Options: []userinteraction.Option{
			{Label: "Run it", Value: "run"},
			{Label: "Dry run first", Value: "dry-run", Recommended: true, Description: "prints the statements, changes nothing"},
		},
	})
	if err != nil {
		return "not migrated: " + userinteraction.CodeOf(err)
	}
	return "migration mode: " + ans.Text
}

var (
	db      = flag.String("db", "sqlite:durable.db", "the DBOS system database: a sqlite: or a postgres:// URL")
	addr    = flag.String("addr", "127.0.0.1:8080", "where the page listens")
	call    = flag.String("call", "migrate-1", "the workflow ID of the tool call: a new one runs the tool again")
	calls   = flag.Int("calls", 1, "how many tool calls to run; more than one have the IDs call-1, call-2, ...")
	timeout = flag.Duration("timeout", 24*time.Hour, "how long a question waits for its answer, or 0 for ever")
	logFile = flag.String("log", "migrations.log", "the file that the tool's result is appended to")
	rp      = flag.String("rp", "", "the page's host name, such as localhost: the page enrols passkeys for it and proves answers with them (SQLite only)")
	proof   = flag.Bool("proof", false, "require each question's answer proven by a passkey, as a tool's Request.RequireProof does")
	audit   = flag.Bool("verify", false, "print VerifyProof's verdict on each proven answer recorded in -db, and exit")
)

// inbox holds the questions open in this process, on SQLite. Its page shows
// them. keys is the table of its accepted passkeys (passkeys.go).
var (
	inbox = &userinteraction.Inbox{}
	keys  *passkeys
)

// An asker is the provider of one workflow's questions, with the first
// failure of the engine in an ask.
type asker interface {
	userinteraction.Provider
	Err() error
}

// newAsker returns the asker of a workflow: a durable on SQLite, a
// sharedAsker on Postgres.
var newAsker func(wf dbos.Context) asker

// migrateCall is one call of the tool as a DBOS workflow. Each of its
// questions is a durable step, and so is what it does with the answers.
func migrateCall(ctx dbos.Context, _ string) (string, error) {
	asker := newAsker(ctx)
	reg := &userinteraction.Registry{}
	dispose, err := reg.Register(asker)
	if err != nil {
		return "", err
	}
	defer dispose()
	result := migrate(userinteraction.WithRegistry(ctx, reg))
	if err := asker.Err(); err != nil {
		return "", err // cancelled, or another process runs the workflow now
	}
	id, err := dbos.GetWorkflowID(ctx)
	if err != nil {
		return "", err
	}
	// The tool's act, here a line in a file, is a step: it runs once the
	// answer is kept, and a recovered workflow does not run it again.
	_, err = dbos.RunAsStep(ctx, func(ctx context.Context) (int, error) {
		if err := ctx.Err(); err != nil {
			return 0, err // the workflow was cancelled: its ask did not end
		}
		return 0, appendLine(*logFile, id+": "+result)
	}, dbos.WithStepName("act"))
	return result, err
}

func appendLine(name, line string) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(f, line); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "durable:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	onPostgres := strings.HasPrefix(*db, "postgres")
	if onPostgres && (*rp != "" || *audit) {
		return errors.New("-rp and -verify need SQLite: on Postgres the page has no passkeys, and a proven question is refused")
	}
	if !onPostgres {
		var err error
		if keys, err = openPasskeys(ctx, *db); err != nil {
			return err
		}
		if *audit {
			all, err := keys.all(ctx)
			if err != nil {
				return err
			}
			return verify(ctx, *db, all)
		}
	}
	engine, err := dbos.NewContext(context.Background(), dbos.Config{
		AppName:     "durable",
		DatabaseURL: *db,
		Logger:      slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return err
	}
	dbos.RegisterWorkflow(engine, migrateCall, dbos.WithWorkflowName("migrate"))
	token := os.Getenv("USERINTERACTION_TOKEN")
	var src userinteraction.Source = inbox
	if onPostgres {
		shared, err := openShared(ctx, *db, engine)
		if err != nil {
			return err
		}
		if token == "" {
			token, err = shared.token(ctx, newToken())
		}
		if err != nil {
			return err
		}
		newAsker = func(wf dbos.Context) asker { return &sharedAsker{dbos: wf, db: shared, timeout: *timeout} }
		src = shared
	} else {
		if token == "" {
			token, err = fileToken(*db)
		}
		if err != nil {
			return err
		}
		all, err := keys.all(ctx)
		if err != nil {
			return err
		}
		inbox.RelyingParty, inbox.AcceptPasskey = *rp, keys.accept
		if err := inbox.SetPasskeys(all); err != nil {
			return err
		}
		newAsker = func(wf dbos.Context) asker { return &durable{dbos: wf, inbox: inbox, timeout: *timeout} }
	}
	if len(token) < 16 {
		return errors.New("USERINTERACTION_TOKEN is shorter than 16 bytes")
	}
	page := userinteraction.Handler(src, token)
	if err := dbos.Launch(engine); err != nil { // recovers this executor's workflows of this version that did not end
		return err
	}
	defer dbos.Shutdown(engine, 5*time.Second)
	recovered, err := waiting(engine, onPostgres)
	if err != nil {
		return err
	}
	if !onPostgres { // on Postgres, an open question's row outlives its process
		awaitRecovered(ctx, engine, recovered)
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/ask/", http.StripPrefix("/ask", page))
	if !onPostgres { // an enrolment's key holds the registration's counter
		mux.HandleFunc("POST /ask/passkey", func(w http.ResponseWriter, r *http.Request) {
			http.StripPrefix("/ask", page).ServeHTTP(w, r)
			if err := keys.sync(inbox.Passkeys()); err != nil {
				fmt.Fprintln(os.Stderr, "durable: the passkeys' counters could not be written:", err)
			}
		})
	}
	server := &http.Server{Handler: mux}
	go server.Serve(ln)
	defer server.Close()
	at := ln.Addr().String()
	if _, port, _ := net.SplitHostPort(at); *rp == "localhost" { // a passkey's relying party is never an IP address
		at = net.JoinHostPort(*rp, port)
	}
	fmt.Fprintf(os.Stderr, "Answer the agent's questions at http://%s/ask/#token=%s\n", at, token)

	// The same ID as before a crash gives the workflow that Launch recovered.
	for i := 1; i <= *calls; i++ {
		id := *call
		if *calls > 1 {
			id = fmt.Sprintf("%s-%d", *call, i)
		}
		handle, err := dbos.RunWorkflow(engine, migrateCall, "", dbos.WithWorkflowID(id))
		if err != nil {
			return err
		}
		go func() {
			result, err := handle.GetResult()
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", id, err)
				return
			}
			fmt.Printf("%s: %s\n", id, result)
		}()
	}
	<-ctx.Done() // until then the page stays up, and refuses a late answer
	return nil
}

func newToken() string {
	secret := make([]byte, 16)
	rand.Read(secret) // never fails since Go 1.24
	return hex.EncodeToString(secret)
}

// fileToken returns the page's token that the file beside the SQLite
// database db keeps (its name and ".token", mode 0600), after writing a new
// one there at the first start. A database in memory keeps none.
func fileToken(db string) (string, error) {
	name := sqliteName(db)
	if name == "" {
		return newToken(), nil
	}
	name += ".token"
	token := newToken()
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_, err = f.WriteString(token + "\n")
		return token, errors.Join(err, f.Close())
	}
	data, err := os.ReadFile(name)
	if token = strings.TrimSpace(string(data)); err == nil && len(token) < 16 {
		err = fmt.Errorf("%s holds no token of 16 bytes or more: remove it, and a new one is made", name)
	}
	return token, err
}

// waiting returns the workflows that Launch recovered: this executor's of
// this version that did not end (pending, or enqueued by the recovery). It says on stderr, one line each, which
// others wait, since DBOS would leave them waiting without a word: on
// SQLite any other one, on Postgres this executor's of another version (the
// others are other processes'). The host does not resume them itself: a
// workflow runs this build's code over the steps another build recorded,
// which holds only if the tool asks the same questions in the same order,
// something the host cannot know; the operator can.
func waiting(engine dbos.Context, onPostgres bool) ([]string, error) {
	executor, version := dbos.GetExecutorID(engine), dbos.GetApplicationVersion(engine)
	filters := []dbos.ListWorkflowsOption{dbos.WithFilterStatus(dbos.WorkflowStatusPending, dbos.WorkflowStatusEnqueued), dbos.WithFilterLoadInput(false), dbos.WithFilterLoadOutput(false)}
	if onPostgres {
		filters = append(filters, dbos.WithFilterExecutorIDs(executor))
	}
	list, err := dbos.ListWorkflows(engine, filters...)
	if err != nil {
		return nil, err
	}
	var ours []string
	for _, wf := range list {
		if wf.ExecutorID == executor && wf.ApplicationVersion == version {
			ours = append(ours, wf.ID)
			continue
		}
		fmt.Fprintf(os.Stderr, "durable: workflow %q waits for executor %q of application version %q, and this process is %q of %q: "+
			"it does not resume here. Start this host with DBOS__VMID=%[2]q DBOS__APPVERSION=%[3]q, "+
			"if its tool asks the same questions in the same order, or the build of that version.\n",
			wf.ID, wf.ExecutorID, wf.ApplicationVersion, executor, version)
	}
	return ours, nil
}

// awaitRecovered returns once each workflow of ids has its question open on
// the Inbox again, or ended, so that a tab open across a restart, which
// connects again at once, finds the question under its ID rather than
// closed. A workflow that asks nothing within 10 s, as one that acts for
// long, does not hold the page longer.
func awaitRecovered(ctx context.Context, engine dbos.Context, ids []string) {
	ended := make(chan string, len(ids))
	left := make(map[string]bool)
	for _, id := range ids {
		left[id] = true
		handle, err := dbos.RetrieveWorkflow[string](engine, id)
		if err != nil {
			ended <- id
			continue
		}
		go func() {
			handle.GetResult()
			ended <- id
		}()
	}
	late := time.After(10 * time.Second)
	for {
		changed := inbox.Changed()
		for _, q := range inbox.Pending() {
			for wf := range left {
				if id, _ := asking.Load(wf); id == q.ID {
					delete(left, wf)
				}
			}
		}
		if len(left) == 0 {
			return
		}
		select {
		case id := <-ended:
			delete(left, id)
		case <-changed:
		case <-ctx.Done():
			return
		case <-late:
			fmt.Fprintf(os.Stderr, "durable: %d recovered workflows asked nothing within 10 s: the page serves without their questions for now\n", len(left))
			return
		}
	}
}
