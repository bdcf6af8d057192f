//go:build unix

package main

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The tests of several processes on one Postgres database. They run only
// when DURABLE_TEST_DB names a Postgres server (.ci/run and postgres.sh set
// it), each on a database of its own.

func postgres(t *testing.T) string {
	t.Helper()
	url := os.Getenv("DURABLE_TEST_DB")
	if url == "" {
		t.Skip("DURABLE_TEST_DB names no Postgres server: .ci/run and postgres.sh set it")
	}
	return newDatabase(t, url)
}

// env is the environment of the process of executor id: every process of
// the host has the same application version.
func env(id string) []string {
	return []string{"DBOS__VMID=" + id, "DBOS__APPVERSION=shared-test"}
}

// waitPage polls the page of h until GET /questions lists the questions
// ids, in any order, and returns the list.
func (h *host) waitPage(ids ...string) []pending {
	h.t.Helper()
	want := slices.Sorted(slices.Values(ids))
	var got []string
	for end := time.Now().Add(guard); time.Now().Before(end); {
		list := h.questions()
		got = got[:0]
		for _, q := range list {
			got = append(got, q.ID)
		}
		if slices.Sort(got); slices.Equal(got, want) {
			return list
		}
		select {
		case <-h.exited:
			h.t.Fatalf("the host exited:\n%s", h.errors())
		case <-time.After(10 * time.Millisecond): // polls another process
		}
	}
	h.t.Fatalf("the page lists %q, want %q", got, want)
	return nil
}

// TestProcessesShareOnePage: three processes on one Postgres database, each
// with an executor ID of its own, each running one call of the tool. Every
// page lists the questions of all three. One is killed while its question
// waits and started again with its ID: its question is still on every page.
// Each question is answered on another process's page, and each tool
// completes and acts once. A broken answer gets 422 and its hint on every
// page; a second answer gets 409.
func TestProcessesShareOnePage(t *testing.T) {
	db := postgres(t)
	names := []string{"a", "b", "c"}
	var setups []setup
	var hosts []*host
	var ids []string
	for _, name := range names {
		s := setup{db: db, call: "call-" + name, log: filepath.Join(t.TempDir(), "migrations.log"), timeout: "1h"}
		setups = append(setups, s)
		hosts = append(hosts, start(t, s, env(name)...))
		ids = append(ids, questionID(s.call, 1))
	}
	for _, h := range hosts {
		h.waitPage(ids...)
	}

	hosts[2].kill()
	hosts[0].waitPage(ids...) // an open question outlives its process
	hosts[2] = start(t, setups[2], env("c")...)
	hosts[2].waitPage(ids...)

	if got := hosts[1].answer(ids[0], `{"action":"accept","content":{"choice":"Nope"}}`); got != http.StatusUnprocessableEntity {
		t.Errorf("POST of an answer that is not an option = %d, want 422", got)
	}
	for _, q := range hosts[2].questions() {
		if q.ID == ids[0] && !strings.Contains(q.Hint, "not one of the options") {
			t.Errorf("after the broken answer, the hint on another page is %q, want why it was refused", q.Hint)
		}
	}

	bodies := []string{runIt, `{"action":"accept","content":{"choice":"Dry run first"}}`, runIt}
	results := []string{"migration mode: run", "migration mode: dry-run", "migration mode: run"}
	for i := range hosts {
		other := hosts[(i+1)%len(hosts)]
		if got := other.answer(ids[i], bodies[i]); got != http.StatusNoContent {
			t.Fatalf("POST of the answer to %s's question on %s's page = %d, want 204", names[i], names[(i+1)%3], got)
		}
	}
	for i, h := range hosts {
		if got := h.waitResult(setups[i], nil, true); got != results[i] {
			t.Errorf("%s's tool completed with %q, want %q", names[i], got, results[i])
		}
	}
	if got := hosts[2].answer(ids[0], runIt); got != http.StatusConflict {
		t.Errorf("POST of a second answer on a third page = %d, want 409", got)
	}
	for _, h := range hosts {
		h.waitPage()
	}

	// A recovered workflow may run on any of the processes: count the acts
	// of each call in every process's log.
	var lines []string
	for _, s := range setups {
		data, _ := os.ReadFile(s.log) // none when that process acted for no call
		lines = append(lines, strings.FieldsFunc(string(data), func(r rune) bool { return r == '\n' })...)
	}
	var want []string
	for i, s := range setups {
		want = append(want, s.call+": "+results[i])
	}
	if slices.Sort(lines); !slices.Equal(lines, want) {
		t.Errorf("the tools' logs hold %q, want %q: each call's result once", lines, want)
	}
}
