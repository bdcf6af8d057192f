//go:build unix

package main

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// TestFigures prints, as figures and not assertions, the durable host's
// figures of CONTRIBUTING against DBOS's own on the same machine in the
// same run: after SIGKILL, the time from a process's start until its page
// lists 1,000 open questions, against the time until DBOS recovered 1,000
// workflows that wait on Recv; and the median time of an answer's POST,
// against a dbos.Send to one of those workflows. Postgres only.
func TestFigures(t *testing.T) {
	const n, answers, passes = 1000, 200, 3
	hostDB, plainDB := postgres(t), postgres(t)
	s := setup{db: hostDB, call: "figure", log: os.DevNull, timeout: "1h", calls: n}
	h := start(t, s, env("figures")...)
	var ids []string
	for i := 1; i <= n; i++ {
		ids = append(ids, questionID(fmt.Sprintf("figure-%d", i), 1))
	}
	h.waitPage(ids...)
	p := startPlain(t, plainDB, n, true)
	p.waitReady(t)

	var back, recovered []time.Duration
	for range passes {
		h.kill()
		began := time.Now()
		h = start(t, s, env("figures")...)
		h.waitPage(ids...)
		back = append(back, time.Since(began))

		p.kill()
		began = time.Now()
		p = startPlain(t, plainDB, n, false)
		p.waitReady(t)
		recovered = append(recovered, time.Since(began))
	}

	client, err := dbos.NewClient(context.Background(), dbos.ClientConfig{DatabaseURL: plainDB, AppName: "plain", Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer dbos.Shutdown(client, 5*time.Second)
	var posts, sends []time.Duration
	for i := range answers { // interleaved, so that load falls on both alike
		began := time.Now()
		if got := h.answer(ids[i], runIt); got != http.StatusNoContent {
			t.Fatalf("POST of an answer = %d, want 204", got)
		}
		posts = append(posts, time.Since(began))
		began = time.Now()
		if err := dbos.Send(client, fmt.Sprintf("plain-%d", i+1), "run", ""); err != nil {
			t.Fatal(err)
		}
		sends = append(sends, time.Since(began))
	}
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64) }
	t.Logf("figure: %d open questions back on the page after SIGKILL: %s ms (passes %v) against DBOS's recovery of %d workflows waiting on Recv: %s ms (%v): %.2f (goal <= 1.5)",
		n, ms(median(back)), back, n, ms(median(recovered)), recovered, float64(median(back))/float64(median(recovered)))
	t.Logf("figure: an answer's POST, median of %d: %s ms against a dbos.Send: %s ms: %.2f (goal <= 2)",
		answers, strconv.FormatFloat(float64(median(posts))/1e6, 'f', 2, 64), strconv.FormatFloat(float64(median(sends))/1e6, 'f', 2, 64),
		float64(median(posts))/float64(median(sends)))
}

func median(d []time.Duration) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}

func quiet() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// A plainProc is a process of plain DBOS workflows that only wait on Recv:
// the test binary, run by TestMain when DURABLE_PLAIN names their database.
type plainProc struct {
	cmd    *exec.Cmd
	ready  chan struct{} // closed once its n workflows entered their function
	exited chan struct{}
}

// startPlain starts a process of n plain workflows on db; first starts
// them, and a later process recovers them.
func startPlain(t *testing.T, db string, n int, first bool) *plainProc {
	t.Helper()
	p := &plainProc{cmd: exec.Command(os.Args[0]), ready: make(chan struct{}), exited: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), "DURABLE_PLAIN="+db, "DURABLE_PLAIN_N="+strconv.Itoa(n), "DBOS__VMID=plain", "DBOS__APPVERSION=plain")
	if first {
		p.cmd.Env = append(p.cmd.Env, "DURABLE_PLAIN_START=1")
	}
	p.cmd.Stderr = os.Stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.kill)
	go func() {
		lines := bufio.NewScanner(stdout)
		for lines.Scan() {
			if lines.Text() == "ready" {
				close(p.ready)
			}
		}
		p.cmd.Wait()
		close(p.exited)
	}()
	return p
}

func (p *plainProc) waitReady(t *testing.T) {
	t.Helper()
	select {
	case <-p.ready:
	case <-p.exited:
		t.Fatal("the plain process exited before its workflows ran")
	case <-time.After(guard):
		t.Fatalf("the plain workflows did not run within %v", guard)
	}
}

func (p *plainProc) kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

// plain is the process of the figures' plain workflows on db. It prints
// "ready" once DURABLE_PLAIN_N of them entered their function: a recovered
// workflow then goes on to its Recv, which it recorded before the crash.
func plain(db string) int {
	n, _ := strconv.Atoi(os.Getenv("DURABLE_PLAIN_N"))
	engine, err := dbos.NewContext(context.Background(), dbos.Config{AppName: "plain", DatabaseURL: db, Logger: quiet()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var entered atomic.Int64
	wait := func(ctx dbos.Context, _ string) (string, error) {
		if entered.Add(1) == int64(n) {
			fmt.Println("ready")
		}
		return dbos.Recv[string](ctx, "", forever)
	}
	dbos.RegisterWorkflow(engine, wait, dbos.WithWorkflowName("plain"))
	if err := dbos.Launch(engine); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for i := 1; i <= n && os.Getenv("DURABLE_PLAIN_START") != ""; i++ {
		if _, err := dbos.RunWorkflow(engine, wait, "", dbos.WithWorkflowID(fmt.Sprintf("plain-%d", i))); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	select {} // until killed
}
