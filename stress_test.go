package userinteraction_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// stressPanic is the value a panicking stress provider panics with.
type stressPanic struct{ id int }

// stressProvider returns provider number id of the stress test; its kind
// (answer, block until done, fail, decline, panic) follows from id.
func stressProvider(id int) ui.Provider {
	return ui.ProviderFunc(func(ctx context.Context, req ui.Request) (ui.Answer, error) {
		switch id % 5 {
		case 0:
			if len(req.Options) > 0 {
				return req.Options[id%len(req.Options)].Answer(), nil
			}
			return ui.Answer{Text: fmt.Sprint("p", id)}, nil
		case 1:
			<-ctx.Done()
			return ui.Answer{}, ctx.Err()
		case 2:
			return ui.Answer{}, errors.New("provider broke")
		case 3:
			return ui.Answer{}, ui.NewError(ui.CodeAskDeclined, "the user declined to answer", nil)
		default:
			panic(stressPanic{id})
		}
	})
}

// opaqueContext is a context.Context that the context package cannot see
// through, so a context derived from it with a cancel func watches it from a
// goroutine of its own until cancelled: a leak check for every ask whose
// context Ask does not release.
type opaqueContext struct{ context.Context }

func (opaqueContext) Value(any) any { return nil }

var stressOptions = []ui.Option{{Label: "a"}, {Label: "b", Value: "B"}, {Label: "c", Recommended: true}}

// TestStress asks from many goroutines while others register and dispose
// providers of every kind, and checks the contract's invariants: each Ask
// returns its provider's answer or an allowed coded error, never are two
// providers active, a stale dispose never removes a newer registration, and
// no goroutine outlives the asks.
func TestStress(t *testing.T) {
	const (
		askers     = 8
		asksEach   = 2000
		registrars = 2
	)
	start := runtime.NumGoroutine()
	r := &ui.Registry{}
	var (
		active        atomic.Int32 // registrations held by registrars: never above 1
		registrations atomic.Int32
		wg            sync.WaitGroup // registrars
		askWG         sync.WaitGroup
		stop          = make(chan struct{}) // closed when the askers are done
		tally         outcomes
	)
	for w := 0; w < registrars; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			stale := func() {}
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				dispose, err := r.Register(stressProvider(i*registrars + w))
				if err != nil {
					if code := ui.CodeOf(err); code != ui.CodeDuplicateProvider {
						t.Errorf("Register() error = %v, want nil or DUPLICATE_PROVIDER", err)
					}
					runtime.Gosched()
					continue
				}
				if n := active.Add(1); n != 1 {
					t.Errorf("%d providers active at once, want 1", n)
				}
				registrations.Add(1)
				stale() // an earlier registration's dispose: must not remove this one
				if r.Provider() == nil {
					t.Errorf("Provider() = nil after a stale dispose, want the newer provider")
				}
				runtime.Gosched()
				active.Add(-1)
				dispose()
				stale = dispose
			}
		}(w)
	}
	for a := 0; a < askers; a++ {
		askWG.Add(1)
		// A session outlives its asks, so an ask context that Ask did not
		// release would still be watched by a goroutine (behind an
		// opaqueContext) when the leak check runs.
		session, end := context.WithCancel(context.Background())
		defer end()
		go func(a int) {
			defer askWG.Done()
			for i := 0; i < asksEach; i++ {
				stressAsk(t, r, &tally, session, a, i)
			}
		}(a)
	}
	askWG.Wait()
	close(stop)
	wg.Wait()

	if p := r.Provider(); p != nil {
		t.Fatalf("Provider() = %v after every registration was disposed, want nil", p)
	}
	if registrations.Load() == 0 {
		t.Fatal("no Register succeeded")
	}
	waitGoroutines(t, start)
	t.Logf("%d registrations; outcomes of %d asks: %s", registrations.Load(), askers*asksEach, &tally)
}

// outcomes counts how stress asks ended, by code, "answered" or "panicked",
// to show in the test log that every path was exercised.
type outcomes struct {
	mu sync.Mutex // guards n
	n  map[string]int
}

func (o *outcomes) count(err error) {
	key := ui.CodeOf(err)
	switch {
	case err == nil:
		key = "answered"
	case key == ui.CodeAskAborted && strings.Contains(err.Error(), "disposed"):
		key += " (disposed)"
	case key == "":
		key = err.Error()
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.n == nil {
		o.n = make(map[string]int)
	}
	o.n[key]++
}

func (o *outcomes) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return fmt.Sprint(o.n)
}

// stressAsk asks r once, in one of several ways chosen by i, and checks the
// outcome against what the providers may return.
func stressAsk(t *testing.T, r *ui.Registry, tally *outcomes, session context.Context, asker, i int) {
	req := ui.Request{Question: "q"}
	if i%2 == 1 {
		req.Options, req.DisallowCustom = stressOptions, i%4 == 1
	}
	ctx := session
	switch i % 7 {
	case 0:
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(session)
		cancel()
	case 3:
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(session)
		defer cancel()
		go cancel() // races with the provider
	}
	if asker%2 == 1 {
		ctx = opaqueContext{ctx}
	}
	defer func() {
		if v := recover(); v != nil {
			tally.count(errors.New("panicked"))
			if _, ok := v.(stressPanic); !ok {
				t.Errorf("Ask() panicked with %v, want a provider's panic", v)
			}
		}
	}()
	var ans ui.Answer
	var err error
	if i%5 == 4 {
		var answers []ui.Answer
		answers, err = r.AskAll(ctx, []ui.Request{req})
		if err == nil {
			ans = answers[0]
		}
	} else {
		ans, err = r.Ask(ctx, req)
	}
	tally.count(err)
	if err != nil {
		switch ui.CodeOf(err) {
		case ui.CodeNoProvider, ui.CodeAskAborted, ui.CodeProviderFailed, ui.CodeAskDeclined:
		default:
			t.Errorf("Ask() error = %v, want NO_PROVIDER, ASK_ABORTED, PROVIDER_FAILED or ASK_DECLINED", err)
		}
		return
	}
	switch {
	case len(req.Options) == 0 && strings.HasPrefix(ans.Text, "p") && ans.Option == nil:
	case len(req.Options) > 0 && ans.Option != nil && offeredText(req, ans.Text):
	default:
		t.Errorf("Ask(%+v) = %+v, want a provider's answer", req, ans)
	}
}

// waitGoroutines waits until no more than n goroutines run, failing the test
// when they do not wind down. The goroutines of the test have all returned:
// this only lets the runtime finish tearing them down.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, want %d; leaked:\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		runtime.Gosched()
	}
}

// TestFinishedAsksAreForgotten: a registration keeps no trace of the asks it
// answered, whichever way they ended, so a long-lived UI does not grow with
// the questions it has answered: 50,000 asks leave the heap as it was.
func TestFinishedAsksAreForgotten(t *testing.T) {
	if testing.Short() {
		t.Skip("heap figures in -short mode are not needed")
	}
	var r ui.Registry
	dispose, err := r.Register(ui.ProviderFunc(func(_ context.Context, req ui.Request) (ui.Answer, error) {
		switch req.Question {
		case "panic":
			panic("boom")
		case "fail":
			return ui.Answer{}, errors.New("broken")
		}
		return ui.Answer{Text: "ok"}, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer dispose()
	questions := []ui.Request{{Question: "q"}, {Question: "fail"}, {Question: "panic"}}
	ask := func(req ui.Request) {
		defer func() { _ = recover() }()
		_, _ = r.Ask(context.Background(), req)
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	for i := 0; i < 50000; i++ {
		ask(questions[i%len(questions)])
	}
	if grown := int64(heap()) - int64(before); grown > 1<<20 {
		t.Fatalf("the heap grew by %d bytes over 50000 asks, want under 1 MiB: the registration keeps finished asks", grown)
	}
}
