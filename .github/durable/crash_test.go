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
)

// The crash tests run the host as a real process on a database that
// outlives it, kill it with SIGKILL and start it again. DURABLE_TEST_DB
// names a Postgres database to run them on instead of a SQLite file in a
// temporary directory (postgres.sh makes one); each test's calls then have
// IDs of their own.

const token = "crash-test-token-0123456789"

// hostBin is the host, built once by TestMain.
var hostBin string

func TestMain(m *testing.M) {
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
}

func newSetup(t *testing.T) setup {
	dir := t.TempDir()
	s := setup{db: "sqlite:" + filepath.Join(dir, "durable.db"), call: "migrate-1", log: filepath.Join(dir, "migrations.log"), timeout: "1h"}
	if pg := os.Getenv("DURABLE_TEST_DB"); pg != "" {
		s.db, s.call = pg, fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())
	}
	return s
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
	results chan string // the lines it prints on stdout: the tool's results
	exited  chan struct{}

	mu     sync.Mutex
	stderr bytes.Buffer
}

// start starts the host on s, with env added to its environment, and waits
// until its page is served.
func start(t *testing.T, s setup, env ...string) *host {
	t.Helper()
	h := &host{t: t, results: make(chan string, 10), exited: make(chan struct{})}
	h.cmd = exec.Command(hostBin, "-db", s.db, "-addr", "127.0.0.1:0", "-call", s.call, "-log", s.log, "-timeout", s.timeout)
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
				served <- strings.TrimSuffix(rest, "/#token="+token)
			}
			h.mu.Lock()
			h.stderr.WriteString(line + "\n")
			h.mu.Unlock()
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
	case h.url = <-served:
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
	res, err := http.Get(h.url + "/events?token=" + token)
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
	res, err := http.Get(h.url + "/questions?token=" + token)
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
	req.Header.Set("Authorization", "Bearer "+token)
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

// acts returns the lines that the tool's act wrote, one per time it acted.
func acts(t *testing.T, s setup) []string {
	t.Helper()
	data, err := os.ReadFile(s.log)
	if err != nil {
		t.Fatalf("the tool's log: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// actsIfAny is acts, or none when the tool never acted.
func actsIfAny(t *testing.T, s setup) []string {
	t.Helper()
	if _, err := os.Stat(s.log); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return acts(t, s)
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
	events := second.events()
	after := second.waitQuestion(events)
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
	if after.ID != before.ID {
		if got := second.answer(before.ID, runIt); got != http.StatusConflict {
			t.Errorf("POST of an answer to the ID before the crash = %d, want 409", got)
		}
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
	if got := acts(t, y); len(got) != 1 || got[0] != "migration mode: run" {
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
		for _, q := range list {
			if q.ID != qa.ID && q.ID != qb.ID {
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
	if got := append(actsIfAny(t, x), actsIfAny(t, y)...); len(got) != 1 || got[0] != "migration mode: run" {
		t.Errorf("the two processes acted %d times: %q, want once", len(got), got)
	}
}
