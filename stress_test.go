package userinteraction

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
)

// stressPanic is the value a panicking stress provider panics with.
type stressPanic struct{ id int }

// stressProvider returns provider number id of the stress test; its kind
// (answer, block until done, fail, decline, panic) follows from id.
func stressProvider(id int) Provider {
	return ProviderFunc(func(ctx context.Context, req Request) (Answer, error) {
		switch id % 5 {
		case 0:
			if len(req.Options) > 0 {
				return req.Options[id%len(req.Options)].Answer(), nil
			}
			return Answer{Text: fmt.Sprint("p", id)}, nil
		case 1:
			<-ctx.Done()
			return Answer{}, ctx.Err()
		case 2:
			return Answer{}, errors.New("provider broke")
		case 3:
			return Answer{}, NewError(CodeAskDeclined, "the user declined to answer", nil)
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

var stressOptions = []Option{{Label: "a"}, {Label: "b", Value: "B"}, {Label: "c", Recommended: true}}

// TestStress asks from many goroutines while others register and dispose
// providers of every kind, and checks the invariants of the contract: each Ask
// returns its provider's answer or an allowed coded error, never two providers
// are active, a stale dispose never removes a newer registration, and no
// goroutine or in-flight bookkeeping outlives the asks.
func TestStress(t *testing.T) {
	const (
		askers     = 8
		asksEach   = 2000
		registrars = 2
	)
	start := runtime.NumGoroutine()
	r := &Registry{}
	var (
		active        atomic.Int32 // registrations held by registrars: never above 1
		mu            sync.Mutex   // guards registrations
		registrations []*registration
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
				id := i*registrars + w
				p := stressProvider(id)
				dispose, err := r.Register(p)
				if err != nil {
					if code := CodeOf(err); code != CodeDuplicateProvider {
						t.Errorf("Register() error = %v, want nil or DUPLICATE_PROVIDER", err)
					}
					runtime.Gosched()
					continue
				}
				if n := active.Add(1); n != 1 {
					t.Errorf("%d providers active at once, want 1", n)
				}
				mu.Lock()
				registrations = append(registrations, r.active.Load())
				mu.Unlock()
				stale() // an earlier registration's dispose: must not remove p
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
		// release would still be registered with it (or, behind an
		// opaqueContext, watched by a goroutine) when the leak check runs.
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

	if g := r.active.Load(); g != nil {
		t.Fatalf("a provider is still active after every registration was disposed")
	}
	for _, g := range registrations {
		if n, disposed := g.inFlight(); n != 0 || !disposed {
			t.Fatalf("registration holds %d asks in flight (disposed %v), want none, disposed", n, disposed)
		}
	}
	if len(registrations) == 0 {
		t.Fatal("no Register succeeded")
	}
	waitGoroutines(t, start)
	t.Logf("%d registrations; outcomes of %d asks: %s", len(registrations), askers*asksEach, &tally)
}

// outcomes counts how stress asks ended, by code, "answered" or "panicked",
// to show in the test log that every path was exercised.
type outcomes struct {
	mu sync.Mutex // guards n
	n  map[string]int
}

func (o *outcomes) count(err error) {
	key := CodeOf(err)
	switch {
	case errors.Is(err, errDisposed):
		key += " (disposed)"
	case err == nil:
		key = "answered"
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
func stressAsk(t *testing.T, r *Registry, tally *outcomes, session context.Context, asker, i int) {
	req := Request{Question: "q"}
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
	ans, err := r.Ask(ctx, req)
	tally.count(err)
	if err != nil {
		switch CodeOf(err) {
		case CodeNoProvider, CodeAskAborted, CodeProviderFailed, CodeAskDeclined:
		default:
			t.Errorf("Ask() error = %v, want NO_PROVIDER, ASK_ABORTED, PROVIDER_FAILED or ASK_DECLINED", err)
		}
		return
	}
	switch {
	case len(req.Options) == 0 && strings.HasPrefix(ans.Text, "p") && ans.Option == nil:
	case len(req.Options) > 0 && ans.Option != nil && textIndex(req.Options, ans.Text) >= 0:
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

// inFlight returns the number of asks g records as in flight and whether g
// is disposed.
func (g *registration) inFlight() (n int, disposed bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.asks), g.disposed
}

// TestInFlightBookkeeping checks that an ask removes its entry when it returns,
// by any path, and that dispose drops the whole table.
func TestInFlightBookkeeping(t *testing.T) {
	r := &Registry{}
	started, release := make(chan struct{}), make(chan struct{})
	dispose, err := r.Register(ProviderFunc(func(ctx context.Context, req Request) (Answer, error) {
		switch req.Question {
		case "panic":
			panic("boom")
		case "fail":
			return Answer{}, errors.New("broken")
		case "block":
			started <- struct{}{}
			<-release
		}
		return Answer{Text: "ok"}, nil
	}))
	if err != nil {
		t.Fatalf("Register() error = %v", err)
	}
	g := r.active.Load()
	for _, q := range []string{"q", "fail", "panic"} {
		func() {
			defer func() { _ = recover() }()
			_, _ = r.Ask(context.Background(), Request{Question: q})
		}()
		if n, _ := g.inFlight(); n != 0 {
			t.Fatalf("%d asks in flight after Ask(%q) returned, want 0", n, q)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = r.Ask(context.Background(), Request{Question: "block"})
	}()
	<-started
	if n, _ := g.inFlight(); n != 1 {
		t.Fatalf("%d asks in flight while one is pending, want 1", n)
	}
	dispose()
	if n, disposed := g.inFlight(); n != 0 || !disposed || g.asks != nil {
		t.Fatalf("disposed registration keeps %d asks (map %v, disposed %v), want none", n, g.asks, disposed)
	}
	close(release)
	<-done
}

// TestDisposedBeforeRecorded covers the window in which Ask has found a
// registration that is disposed before Ask records the question on it: the
// disposed registration refuses the ask, and Ask returns NO_PROVIDER at once
// without calling the provider or looking for the newer one. A registry whose
// active registration is the disposed one stands for an Ask that loaded it
// just before the dispose.
func TestDisposedBeforeRecorded(t *testing.T) {
	r := &Registry{}
	called := false
	old, err := r.Register(ProviderFunc(func(context.Context, Request) (Answer, error) {
		called = true
		return Answer{Text: "old"}, nil
	}))
	if err != nil {
		t.Fatalf("Register() error = %v", err)
	}
	g := r.active.Load()
	old()
	if _, ok := g.track(func(error) {}); ok {
		t.Fatal("track() on a disposed registration = true, want false")
	}
	newer, err := r.Register(stressProvider(0))
	if err != nil {
		t.Fatalf("Register() error = %v", err)
	}
	defer newer()
	stale := &Registry{}
	stale.active.Store(g)
	_, err = stale.Ask(context.Background(), Request{Question: "q"})
	if CodeOf(err) != CodeNoProvider || called {
		t.Fatalf("Ask() through a disposed registration = %v (provider called %v), want NO_PROVIDER, not called", err, called)
	}
}
