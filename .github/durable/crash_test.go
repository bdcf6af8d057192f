//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/dsh-go/userinteraction"
	"github.com/jackc/pgx/v5"
)

// The crash tests run the host as a real process on a database that
// outlives it, kill it with SIGKILL and start it again. DURABLE_TEST_DB
// names a Postgres database to run them on instead of a SQLite file in a
// temporary directory (postgres.sh and .ci/run make one); each test then
// has a database of its own on that server.

const token = "crash-test-token-0123456789"

// hostBin is the host, built once by TestMain.
var hostBin string

func TestMain(m *testing.M) {
	if db := os.Getenv("DURABLE_PLAIN"); db != "" {
		os.Exit(plain(db)) // a process of the figures' plain DBOS workflows
	}
	dir, err := os.MkdirTemp("", "durable-host")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	hostBin = filepath.Join(dir, "durable")
	build := exec.Command("go", "build", "-o", hostBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "go build of the host:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// guard bounds every wait of these tests: a wait that reaches it is a
// failure, never a way to let time pass.
const guard = 2 * time.Minute

// A setup is one test's database, tool call, log file and question timeout.
type setup struct {
	db, call, log, timeout string
	calls                  int      // the tool calls, IDs call-1, call-2, ..., when more than one
	args                   []string // more flags
}

func newSetup(t *testing.T) setup {
	dir := t.TempDir()
	s := setup{db: "sqlite:" + filepath.Join(dir, "durable.db"), call: "migrate-1", log: filepath.Join(dir, "migrations.log"), timeout: "1h"}
	if pg := os.Getenv("DURABLE_TEST_DB"); pg != "" {
		s.db = newDatabase(t, pg)
	}
	return s
}

// newDatabase creates a database of its own for t on the Postgres server of
// url, and returns its URL.
func newDatabase(t *testing.T, url string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("test_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// onPostgres skips t on Postgres, where every page shows the questions of
// every process that shares the database.
func onPostgres(t *testing.T) {
	if os.Getenv("DURABLE_TEST_DB") != "" {
		t.Skip("on Postgres every page shows every process's questions: TestProcessesShareOnePage covers several processes")
	}
}

// another returns a setup for a second process on the database of s, with
// a call and a log of its own.
func (s setup) another(t *testing.T) setup {
	return setup{db: s.db, call: s.call + "-another", log: filepath.Join(t.TempDir(), "migrations.log"), timeout: s.timeout}
}

// A host is one running process of the host.
type host struct {
	t       *testing.T
	cmd     *exec.Cmd
	url     string      // of the page's routes, such as http://127.0.0.1:4242/ask
	token   string      // the page's, from the link it printed
	results chan string // the lines it prints on stdout: the tool's results
	logged  chan string // the lines it prints on stderr, while not full
	exited  chan struct{}

	mu     sync.Mutex
	stderr bytes.Buffer
}

// start starts the host on s, with env added to its environment, and waits
// until its page is served.
func start(t *testing.T, s setup, env ...string) *host {
	t.Helper()
	h := &host{t: t, results: make(chan string, max(s.calls, 1)+10), logged: make(chan string, 100), exited: make(chan struct{})}
	h.cmd = exec.Command(hostBin, "-db", s.db, "-addr", "127.0.0.1:0", "-call", s.call, "-log", s.log, "-timeout", s.timeout,
		"-calls", fmt.Sprint(max(s.calls, 1)))
	h.cmd.Args = append(h.cmd.Args, s.args...)
	h.cmd.Env = append(append(os.Environ(), "USERINTERACTION_TOKEN="+token), env...)
	stdout, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := h.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.kill)
	served := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			line := lines.Text()
			if rest, ok := strings.CutPrefix(line, "Answer the agent's questions at "); ok {
				served <- rest
			}
			h.mu.Lock()
			h.stderr.WriteString(line + "\n")
			h.mu.Unlock()
			select {
			case h.logged <- line:
			default:
			}
		}
	}()
	var reading sync.WaitGroup
	reading.Add(1)
	go func() {
		defer reading.Done()
		lines := bufio.NewScanner(stdout)
		for lines.Scan() {
			h.results <- lines.Text()
		}
	}()
	go func() {
		reading.Wait() // Wait closes the pipes: read them to the end first
		h.cmd.Wait()
		close(h.exited)
	}()
	select {
	case link := <-served:
		var ok bool
		if h.url, h.token, ok = strings.Cut(link, "/#token="); !ok {
			t.Fatalf("the host printed the link %q, want one ending in /#token=...", link)
		}
	case <-h.exited:
		t.Fatalf("the host exited before it served its page:\n%s", h.errors())
	case <-time.After(guard):
		t.Fatalf("the host served no page within %v:\n%s", guard, h.errors())
	}
	return h
}

func (h *host) errors() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stderr.String()
}

// kill kills the process with SIGKILL, as a crash or an OOM kill would, and
// waits until it is gone.
func (h *host) kill() {
	h.cmd.Process.Signal(syscall.SIGKILL)
	<-h.exited
}

// A pending question as the page's JSON has it, with its deadline as the
// page reads it.
type pending struct {
	userinteraction.Pending
	DeadlineJSON string
}

// events returns the open questions at every change, from the page's event
// stream, as the page reads them.
func (h *host) events() <-chan []pending {
	h.t.Helper()
	res, err := http.Get(h.url + "/events?token=" + h.token)
	if err != nil {
		h.t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		h.t.Fatalf("GET /events = %s, want 200 OK", res.Status)
	}
	h.t.Cleanup(func() { res.Body.Close() })
	events := make(chan []pending, 100)
	go func() {
		defer close(events)
		lines := bufio.NewScanner(res.Body)
		lines.Buffer(nil, 1<<20)
		event, open := "", []pending(nil)
		for lines.Scan() {
			if name, ok := strings.CutPrefix(lines.Text(), "event: "); ok {
				event = name // "questions" once, then "question" for one that opened or got a hint, "ended" for one that left
			}
			data, ok := strings.CutPrefix(lines.Text(), "data: ")
			switch {
			case !ok:
				continue
			case event == "questions":
				open = decodePending(h.t, []byte(data))
			case event == "question":
				q := decodePending(h.t, []byte("["+data+"]"))
				open = append(slices.DeleteFunc(open, func(p pending) bool { return p.ID == q[0].ID }), q...)
			case event == "ended":
				var ended struct{ ID string }
				_ = json.Unmarshal([]byte(data), &ended)
				open = slices.DeleteFunc(open, func(p pending) bool { return p.ID == ended.ID })
			}
			events <- slices.Clone(open)
		}
	}()
	return events
}

// reconnect connects to the page's event stream as a tab that shows the
// questions ids does, and returns the IDs that the stream says ended, and
// the open questions that it lists then.
func (h *host) reconnect(ids ...string) (ended []string, open []pending) {
	h.t.Helper()
	res, err := http.Get(h.url + "/events?token=" + h.token + "&open=" + strings.Join(ids, ","))
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		h.t.Fatalf("GET /events = %s, want 200 OK", res.Status)
	}
	lines := bufio.NewScanner(res.Body)
	lines.Buffer(nil, 1<<20)
	event := ""
	for lines.Scan() {
		if name, ok := strings.CutPrefix(lines.Text(), "event: "); ok {
			event = name
		}
		data, ok := strings.CutPrefix(lines.Text(), "data: ")
		switch {
		case ok && event == "ended":
			var e struct{ ID string }
			if err := json.Unmarshal([]byte(data), &e); err != nil {
				h.t.Fatalf("the ended event %s: %v", data, err)
			}
			ended = append(ended, e.ID)
		case ok && event == "questions":
			return ended, decodePending(h.t, []byte(data))
		}
	}
	h.t.Fatalf("the event stream ended before it listed the open questions: %v", lines.Err())
	return nil, nil
}

func idsOf(list []pending) []string {
	var ids []string
	for _, q := range list {
		ids = append(ids, q.ID)
	}
	return ids
}

func decodePending(t *testing.T, data []byte) []pending {
	var list []userinteraction.Pending
	var raw []struct {
		Deadline string `json:"deadline"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Errorf("the page's JSON %s: %v", data, err)
	}
	json.Unmarshal(data, &raw)
	out := make([]pending, len(list))
	for i := range list {
		out[i] = pending{list[i], raw[i].Deadline}
	}
	return out
}

// questions returns GET /questions: the page's JSON.
func (h *host) questions() []pending {
	h.t.Helper()
	res, err := http.Get(h.url + "/questions?token=" + h.token)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		h.t.Fatalf("GET /questions = %s, %v, want 200 OK", res.Status, err)
	}
	return decodePending(h.t, data)
}

// waitQuestion waits until the page shows one question, and returns it.
func (h *host) waitQuestion(events <-chan []pending) pending {
	h.t.Helper()
	for {
		select {
		case list, ok := <-events:
			if !ok {
				h.t.Fatalf("the page's event stream ended before a question opened:\n%s", h.errors())
			}
			if len(list) > 1 {
				h.t.Fatalf("the page shows %d questions, want the tool's one", len(list))
			}
			if len(list) == 1 {
				return list[0]
			}
		case <-h.exited:
			h.t.Fatalf("the host exited:\n%s", h.errors())
		case <-time.After(guard):
			h.t.Fatalf("no question opened within %v:\n%s", guard, h.errors())
		}
	}
}

// answer posts the page's response to question id and returns its status.
func (h *host) answer(id, body string) int {
	h.t.Helper()
	req, err := http.NewRequest("POST", h.url+"/questions/"+id, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatalf("POST /questions/%s: %v", id, err)
	}
	res.Body.Close()
	return res.StatusCode
}

const runIt = `{"action":"accept","content":{"choice":"Run it"}}`

// waitResult waits for the tool's result. A question that the page shows
// meanwhile fails the test when asked is false: the host asked again.
func (h *host) waitResult(s setup, events <-chan []pending, asked bool) string {
	h.t.Helper()
	for {
		select {
		case line := <-h.results:
			result, ok := strings.CutPrefix(line, s.call+": ")
			if !ok {
				h.t.Fatalf("the host printed %q, want %q and the tool's result", line, s.call+": ")
			}
			return result
		case list, ok := <-events:
			if !ok {
				events = nil // the stream ended: wait for the result alone
			}
			if len(list) > 0 && !asked {
				h.t.Fatalf("the page shows %q, want no question: the host asked again what it had recorded", list[0].Request.Question)
			}
		case <-h.exited:
			h.t.Fatalf("the host exited before the tool completed:\n%s", h.errors())
		case <-time.After(guard):
			h.t.Fatalf("the tool did not complete within %v:\n%s", guard, h.errors())
		}
	}
}

// acts returns the results that the tool's act wrote for the call of s, one
// per time it acted. Each line is the call's ID and the result.
func acts(t *testing.T, s setup) []string {
	t.Helper()
	return actsIn(t, s.log, s.call)
}

// actsIn returns the results that the tool's act wrote to log for call.
func actsIn(t *testing.T, log, call string) []string {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("the tool's log: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i, line := range lines {
		result, ok := strings.CutPrefix(line, call+": ")
		if !ok {
			t.Errorf("the tool's log has %q, want a line of call %s", line, call)
		}
		lines[i] = result
	}
	return lines
}

// actsIfAny is actsIn, or none when the tool never acted there.
func actsIfAny(t *testing.T, log, call string) []string {
	t.Helper()
	if _, err := os.Stat(log); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return actsIn(t, log, call)
}

// newClient returns a DBOS client of the database db, as an operator's tool
// or DBOS Conductor has.
func newClient(t *testing.T, db string) dbos.Client {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	client, err := dbos.NewClient(context.Background(), dbos.ClientConfig{DatabaseURL: db, AppName: "durable", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dbos.Shutdown(client, 5*time.Second) })
	return client
}

// TestQuestionSurvivesCrash: a question open when the host is killed is on
// the page of the next process, with the same request and deadline. The
// page's answer there reaches the tool, which acts once, and a second answer
// is refused. A third process finds the call done and acts no more.
func TestQuestionSurvivesCrash(t *testing.T) {
	s := newSetup(t)
	first := start(t, s)
	before := first.waitQuestion(first.events())
	if before.Request.Question != "Run migration 42 on production?" || before.Deadline.IsZero() {
		t.Fatalf("the page shows %+v, want the tool's question with a deadline", before.Pending)
	}
	first.kill()

	second := start(t, s)
	// A tab that stayed open across the crash connects again, naming the
	// question it shows: the question is still open under that ID.
	if ended, open := second.reconnect(before.ID); len(ended) > 0 || !slices.Equal(idsOf(open), []string{before.ID}) {
		t.Errorf("a tab open across the crash gets %q ended and %q open, want none ended and %s open: the question once, under its ID", ended, idsOf(open), before.ID)
	}
	events := second.events()
	after := second.waitQuestion(events)
	if after.ID != before.ID {
		t.Errorf("after the crash the question's ID is %s, want %s, as before it", after.ID, before.ID)
	}
	wantRequest, _ := json.Marshal(before.Request)
	if got, _ := json.Marshal(after.Request); string(got) != string(wantRequest) {
		t.Errorf("after the crash the page shows %s, want %s", got, wantRequest)
	}
	if after.DeadlineJSON != before.DeadlineJSON {
		t.Errorf("after the crash the deadline is %s, want %s, as set before it", after.DeadlineJSON, before.DeadlineJSON)
	}
	if got := second.answer(after.ID, runIt); got != http.StatusNoContent {
		t.Fatalf("POST of the answer = %d, want 204", got)
	}
	if got := second.answer(after.ID, runIt); got != http.StatusConflict {
		t.Errorf("POST of a second answer = %d, want 409", got)
	}
	if got := second.waitResult(s, events, true); got != "migration mode: run" {
		t.Errorf("the tool's result = %q, want %q", got, "migration mode: run")
	}
	if got := acts(t, s); len(got) != 1 || got[0] != "migration mode: run" {
		t.Errorf("the tool acted %d times: %q, want once", len(got), got)
	}
	second.kill()

	third := start(t, s)
	if got := third.waitResult(s, third.events(), false); got != "migration mode: run" {
		t.Errorf("the third process gives the result %q, want %q", got, "migration mode: run")
	}
	if got := third.questions(); len(got) != 0 {
		t.Errorf("the third process's page shows %d questions, want none", len(got))
	}
	if got := acts(t, s); len(got) != 1 {
		t.Errorf("after a third process the tool acted %d times: %q, want once", len(got), got)
	}
}

// TestAnswerSurvivesCrash: the host is killed right after the page's 204,
// before the tool acts. The next process completes the tool with that
// answer without asking again, and refuses a second answer.
//
// The tool's log is a named pipe that nobody reads while the first process
// runs, so its act blocks and the kill lands between the answer and the act
// every time. The next process writes a file in its place.
func TestAnswerSurvivesCrash(t *testing.T) {
	s := newSetup(t)
	if err := syscall.Mkfifo(s.log, 0o600); err != nil {
		t.Fatal(err)
	}
	first := start(t, s)
	q := first.waitQuestion(first.events())
	if got := first.answer(q.ID, runIt); got != http.StatusNoContent {
		t.Fatalf("POST of the answer = %d, want 204", got)
	}
	first.kill()
	if err := os.Remove(s.log); err != nil {
		t.Fatal(err)
	}

	second := start(t, s)
	events := second.events()
	if got := second.waitResult(s, events, false); got != "migration mode: run" {
		t.Errorf("after the crash the tool's result = %q, want %q: the answer given before it", got, "migration mode: run")
	}
	if got := second.answer(q.ID, runIt); got != http.StatusConflict {
		t.Errorf("POST of a second answer after the crash = %d, want 409", got)
	}
	if got := acts(t, s); len(got) != 1 || got[0] != "migration mode: run" {
		t.Errorf("the tool acted %d times: %q, want once", len(got), got)
	}
}

// TestDeadlinePassesWhileDown: a question whose deadline passes while no
// host runs ends at that deadline, not at a new one. The next process does
// not show it, and the tool completes with ASK_ABORTED at once.
func TestDeadlinePassesWhileDown(t *testing.T) {
	s := newSetup(t)
	s.timeout = "3s" // long enough for the question to show on a loaded machine
	first := start(t, s)
	q := first.waitQuestion(first.events())
	first.kill()
	<-time.After(time.Until(q.Deadline)) // the deadline passes while no host runs

	second := start(t, s)
	if got := second.waitResult(s, second.events(), false); got != "not migrated: ASK_ABORTED" {
		t.Errorf("after its deadline passed the tool's result = %q, want %q", got, "not migrated: ASK_ABORTED")
	}
	if got := acts(t, s); len(got) != 1 {
		t.Errorf("the tool acted %d times: %q, want once", len(got), got)
	}
}

// TestTakeOver: two processes on one database, each with an
// executor ID and a call of its own. The first is killed while its question
// waits. Resuming its workflow, as DBOS Conductor or an operator does for a
// machine that died, hands the workflow to the second process: the question
// is on the second one's page, with its deadline, and its answer there
// completes the first call once. DBOS recovers only a process's own
// executor ID at launch, so without that resume the question would wait for
// a process with the first one's ID.
func TestTakeOver(t *testing.T) {
	onPostgres(t)
	x := newSetup(t)
	y := x.another(t)
	a := start(t, x, "DBOS__VMID=a")
	qa := a.waitQuestion(a.events())
	if qa.Deadline.IsZero() {
		t.Fatalf("the page shows %+v, want the tool's question with a deadline", qa.Pending)
	}
	b := start(t, y, "DBOS__VMID=b")
	events := b.events()
	qb := b.waitQuestion(events)
	a.kill()

	client := newClient(t, x.db)
	if _, err := dbos.ResumeWorkflow[string](client, x.call); err != nil {
		t.Fatalf("ResumeWorkflow(%s) = %v", x.call, err)
	}
	var qx pending
	for qx.ID == "" {
		select {
		case list := <-events:
			for _, q := range list {
				if q.ID != qb.ID {
					qx = q
				}
			}
		case <-time.After(guard):
			t.Fatalf("the first process's question is not on the second one's page within %v:\n%s", guard, b.errors())
		}
	}
	if qx.DeadlineJSON != qa.DeadlineJSON {
		t.Errorf("on the second process the deadline is %s, want %s, as the first one set it", qx.DeadlineJSON, qa.DeadlineJSON)
	}
	if got := b.answer(qx.ID, runIt); got != http.StatusNoContent {
		t.Fatalf("POST of the answer on the second process = %d, want 204", got)
	}
	handle, err := dbos.RetrieveWorkflow[string](client, x.call)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := handle.GetResult(dbos.WithHandleTimeout(guard)); got != "migration mode: run" || err != nil {
		t.Errorf("the first call's result = %q, %v, want %q", got, err, "migration mode: run")
	}
	if got := actsIn(t, y.log, x.call); len(got) != 1 || got[0] != "migration mode: run" {
		t.Errorf("the second process acted %d times: %q, want once, for the first call", len(got), got)
	}
	if got := b.answer(qb.ID, `{"action":"accept","content":{"choice":"Dry run first"}}`); got != http.StatusNoContent {
		t.Errorf("POST of the answer to the second call = %d, want 204", got)
	}
	if got := b.waitResult(y, events, true); got != "migration mode: dry-run" {
		t.Errorf("the second call's result = %q, want %q", got, "migration mode: dry-run")
	}
}

// TestStaleProcessRefused: a workflow resumed while its first process still
// runs it has two executions, and only the one that owns it now can keep an
// answer. The first process's page refuses the answer to its stale question
// with 409, since DBOS refuses that execution's checkpoint, and the stale
// execution does not act. The owner's question, on whichever page's process
// took the workflow, completes the call once.
func TestStaleProcessRefused(t *testing.T) {
	onPostgres(t)
	x := newSetup(t)
	y := x.another(t)
	a := start(t, x, "DBOS__VMID=a")
	aEvents := a.events()
	qa := a.waitQuestion(aEvents)
	b := start(t, y, "DBOS__VMID=b")
	bEvents := b.events()
	qb := b.waitQuestion(bEvents)

	client := newClient(t, x.db)
	if _, err := dbos.ResumeWorkflow[string](client, x.call); err != nil {
		t.Fatalf("ResumeWorkflow(%s) = %v", x.call, err)
	}
	var owner *host // the process whose page shows the new execution's question
	var qx pending
	for owner == nil {
		var list []pending
		var on *host
		select {
		case list = <-aEvents:
			on = a
		case list = <-bEvents:
			on = b
		case <-time.After(guard):
			t.Fatalf("no page shows the resumed workflow's question within %v", guard)
		}
		for _, q := range list { // on b, it may have the ID it had on a
			if on == a && q.ID != qa.ID || on == b && q.ID != qb.ID {
				owner, qx = on, q
			}
		}
	}
	t.Logf("the resumed workflow runs on the process with executor ID %s", map[*host]string{a: "a", b: "b"}[owner])
	if qx.DeadlineJSON != qa.DeadlineJSON {
		t.Errorf("the resumed question's deadline is %s, want %s, as first set", qx.DeadlineJSON, qa.DeadlineJSON)
	}
	if got := a.answer(qa.ID, runIt); got != http.StatusConflict {
		t.Errorf("POST of an answer to the stale execution's question = %d, want 409", got)
	}
	if got := owner.answer(qx.ID, runIt); got != http.StatusNoContent {
		t.Fatalf("POST of the answer to the owner's question = %d, want 204", got)
	}
	handle, err := dbos.RetrieveWorkflow[string](client, x.call)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := handle.GetResult(dbos.WithHandleTimeout(guard)); got != "migration mode: run" || err != nil {
		t.Errorf("the call's result = %q, %v, want %q", got, err, "migration mode: run")
	}
	if got := append(actsIfAny(t, x.log, x.call), actsIfAny(t, y.log, x.call)...); len(got) != 1 || got[0] != "migration mode: run" {
		t.Errorf("the two processes acted %d times: %q, want once", len(got), got)
	}
}

// TestOtherVersionSaysSo: a question waits when the host is killed, and the
// next process is of another application version, which DBOS does not
// recover. It says so on stderr, naming the workflow and how to resume it,
// and does not ask. A process of the first version then resumes the
// question, under its ID and with its deadline, and the tool acts once.
func TestOtherVersionSaysSo(t *testing.T) {
	s := newSetup(t)
	first := start(t, s, "DBOS__APPVERSION=v1")
	before := first.waitQuestion(first.events())
	first.kill()

	second := start(t, s, "DBOS__APPVERSION=v2")
	want := `workflow "migrate-1" waits for executor "local" of application version "v1", and this process is "local" of "v2"`
	if got := second.errors(); !strings.Contains(got, want) || !strings.Contains(got, `DBOS__VMID="local" DBOS__APPVERSION="v1"`) {
		t.Errorf("another version's process wrote on stderr:\n%s\nwant a line with %q and how to resume it", got, want)
	}
	if got := second.questions(); len(got) != 0 && os.Getenv("DURABLE_TEST_DB") == "" {
		t.Errorf("another version's page shows %d questions, want none: its process does not resume the workflow", len(got))
	}
	second.kill()

	third := start(t, s, "DBOS__APPVERSION=v1")
	events := third.events()
	after := third.waitQuestion(events)
	if after.ID != before.ID || after.DeadlineJSON != before.DeadlineJSON {
		t.Errorf("the first version's process shows %s with the deadline %s, want %s with %s", after.ID, after.DeadlineJSON, before.ID, before.DeadlineJSON)
	}
	if strings.Contains(third.errors(), "does not resume here") {
		t.Errorf("the first version's process says a workflow does not resume:\n%s", third.errors())
	}
	if got := third.answer(after.ID, runIt); got != http.StatusNoContent {
		t.Fatalf("POST of the answer = %d, want 204", got)
	}
	if got := third.waitResult(s, events, true); got != "migration mode: run" {
		t.Errorf("the tool's result = %q, want %q", got, "migration mode: run")
	}
	if got := acts(t, s); len(got) != 1 {
		t.Errorf("the tool acted %d times: %q, want once", len(got), got)
	}
}

// TestTokenKept: without USERINTERACTION_TOKEN the host makes a token at
// its first start and keeps it, in a file beside the SQLite database that
// only its user reads, or in the Postgres database, which a second process
// shares: the page's link stays valid across a restart and works on every
// process. USERINTERACTION_TOKEN overrides it.
func TestTokenKept(t *testing.T) {
	s := newSetup(t)
	first := start(t, s, "USERINTERACTION_TOKEN=")
	if len(first.token) != 32 || strings.Trim(first.token, "0123456789abcdef") != "" {
		t.Fatalf("the host's token is %q, want 32 hex digits", first.token)
	}
	q := first.waitQuestion(first.events())
	if os.Getenv("DURABLE_TEST_DB") == "" {
		name := strings.TrimPrefix(s.db, "sqlite:") + ".token"
		info, err := os.Stat(name)
		if err != nil {
			t.Fatalf("the token's file: %v", err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Errorf("the token's file has the mode %v, want 0600", info.Mode().Perm())
		}
	} else {
		other := start(t, s.another(t), "USERINTERACTION_TOKEN=", "DBOS__VMID=other")
		if other.token != first.token {
			t.Errorf("a second process on the database prints the token %q, want the first one's %q", other.token, first.token)
		}
		if got := idsOf(other.questions()); !slices.Contains(got, q.ID) { // the first one's link, on the second process
			t.Errorf("the second process's page lists %q, want the first one's question %s", got, q.ID)
		}
	}
	first.kill()

	second := start(t, s, "USERINTERACTION_TOKEN=")
	if second.token != first.token {
		t.Errorf("after a restart the token is %q, want %q, as before it", second.token, first.token)
	}
	if got := idsOf(second.questions()); !slices.Contains(got, q.ID) {
		t.Errorf("after a restart the page lists %q, want %s", got, q.ID)
	}
	second.kill()

	third := start(t, s)
	if third.token != token {
		t.Errorf("with USERINTERACTION_TOKEN set the host prints the token %q, want %q", third.token, token)
	}
}
