package userinteraction_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

func TestAskDelegatesToProvider(t *testing.T) {
	var got ui.Request
	ctx := scope(t, ui.ProviderFunc(func(_ context.Context, req ui.Request) (ui.Answer, error) {
		got = req
		return ui.Answer{Text: "yes"}, nil
	}))
	req := ui.Request{Question: "Proceed?", Header: "Deploy", Agent: &ui.Agent{ID: "a1", Name: "coder"}}
	ans, err := ui.Ask(ctx, req)
	if err != nil || ans.Text != "yes" || ans.Option != nil {
		t.Fatalf("Ask() = %+v, %v, want {yes <nil>}, nil", ans, err)
	}
	if !reflect.DeepEqual(got, req) {
		t.Fatalf("provider got %+v, want %+v", got, req)
	}
}

// TestMessagesSayWhatToDo: a wrong use gets a message that names its fix.
func TestMessagesSayWhatToDo(t *testing.T) {
	_, noUI := ui.Ask(ui.WithRegistry(context.Background(), &ui.Registry{}), question)
	_, noRegistry := ui.Ask(context.Background(), question)
	_, nilRegistry := ui.Ask(ui.WithRegistry(context.Background(), nil), question)
	_, duplicate := ui.Register(scope(t, answering("first")), answering("second"))
	_, askAllNoRegistry := ui.AskAll(context.Background(), []ui.Request{question})
	tests := []struct {
		name string
		err  error
		code string
		want string
	}{
		{"no UI registered", noUI, ui.CodeNoProvider, "no UI is registered"},
		{"no registry in the context", noRegistry, ui.CodeNoProvider, "WithRegistry"},
		{"a nil registry in the context", nilRegistry, ui.CodeNoProvider, "WithRegistry"},
		{"AskAll without a registry", askAllNoRegistry, ui.CodeNoProvider, "WithRegistry"},
		{"another UI registered", duplicate, ui.CodeDuplicateProvider, "dispose"},
	}
	for _, tt := range tests {
		wantCode(t, tt.name, tt.err, tt.code)
		if !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("%s: %v, want a message that says %q", tt.name, tt.err, tt.want)
		}
	}
	if strings.Contains(noUI.Error(), "WithRegistry") {
		t.Errorf("no UI registered: %v, want no word of WithRegistry: the registry is there", noUI)
	}
}

func TestDisposeTwiceThenNoProvider(t *testing.T) {
	ctx := ui.WithRegistry(context.Background(), &ui.Registry{})
	dispose := register(t, ctx, answering("yes"))
	dispose()
	dispose()
	if p := ui.FromContext(ctx).Provider(); p != nil {
		t.Fatalf("Provider() = %v, want nil", p)
	}
	_, err := ui.Ask(ctx, question)
	wantCode(t, "Ask()", err, ui.CodeNoProvider)
}

func TestDuplicateRegisterKeepsFirst(t *testing.T) {
	ctx := scope(t, answering("first"))
	dispose, err := ui.Register(ctx, answering("second"))
	wantCode(t, "Register()", err, ui.CodeDuplicateProvider)
	if dispose == nil {
		t.Fatal("Register() dispose = nil, want a no-op func")
	}
	dispose() // must not remove the first provider
	ans, err := ui.Ask(ctx, question)
	if err != nil || ans.Text != "first" {
		t.Fatalf("Ask() = %+v, %v, want first", ans, err)
	}
}

func TestAskAlreadyCancelled(t *testing.T) {
	called := false
	ctx := scope(t, ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) {
		called = true
		return ui.Answer{Text: "yes"}, nil
	}))
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err := ui.Ask(ctx, question)
	wantCode(t, "Ask()", err, ui.CodeAskAborted)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Ask() error = %v, want it to wrap context.Canceled", err)
	}
	if called {
		t.Fatal("provider was called for an already cancelled context")
	}
}

func TestAskAlreadyCancelledKeepsCause(t *testing.T) {
	for _, cause := range []error{errors.New("user pressed stop"), errStopWrapsCanceled} {
		ctx, cancel := context.WithCancelCause(scope(t, answering("yes")))
		cancel(cause)
		_, err := ui.Ask(ctx, question)
		wantCode(t, "Ask()", err, ui.CodeAskAborted)
		if !errors.Is(err, context.Canceled) || !errors.Is(err, cause) {
			t.Errorf("Ask() error = %v, want errors.Is to find context.Canceled and %v", err, cause)
		}
	}
}

func TestRegisterErrors(t *testing.T) {
	tests := []struct {
		name string
		ctx  context.Context
		p    ui.Provider
		code string
	}{
		{"no registry", context.Background(), answering("x"), ui.CodeNoRegistry},
		{"nil context", nil, answering("x"), ui.CodeNoRegistry},
		{
			name: "registry hidden by nil",
			ctx:  ui.WithRegistry(ui.WithRegistry(context.Background(), &ui.Registry{}), nil),
			p:    answering("x"),
			code: ui.CodeNoRegistry,
		},
		{"nil provider", ui.WithRegistry(context.Background(), &ui.Registry{}), nil, ui.CodeInvalidProvider},
		{
			name: "nil ProviderFunc",
			ctx:  ui.WithRegistry(context.Background(), &ui.Registry{}),
			p:    ui.ProviderFunc(nil),
			code: ui.CodeInvalidProvider,
		},
		{"nil *Replay", ui.WithRegistry(context.Background(), &ui.Registry{}), (*ui.Replay)(nil), ui.CodeInvalidProvider},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dispose, err := ui.Register(tt.ctx, tt.p)
			wantCode(t, "Register()", err, tt.code)
			if dispose == nil {
				t.Fatal("Register() dispose = nil, want a no-op func")
			}
			dispose()
			if r := ui.FromContext(tt.ctx); r.Provider() != nil {
				t.Fatalf("Provider() = %v after a failed Register, want nil", r.Provider())
			}
		})
	}
}

func TestStaleDisposeKeepsNewerProvider(t *testing.T) {
	ctx := ui.WithRegistry(context.Background(), &ui.Registry{})
	disposeOld := register(t, ctx, answering("old"))
	disposeOld()
	disposeNew := register(t, ctx, answering("new"))
	defer disposeNew()
	disposeOld() // stale: must not remove "new"
	ans, err := ui.Ask(ctx, question)
	if err != nil || ans.Text != "new" {
		t.Fatalf("Ask() = %+v, %v, want new", ans, err)
	}
}

func TestRegistryZeroValueAndNil(t *testing.T) {
	var r ui.Registry
	if p := r.Provider(); p != nil {
		t.Fatalf("zero Registry Provider() = %v, want nil", p)
	}
	p := &fixed{text: "zero"}
	dispose, err := r.Register(p)
	if err != nil {
		t.Fatalf("zero Registry Register() error = %v, want nil", err)
	}
	if got := r.Provider(); got != p {
		t.Fatalf("Provider() = %v after Register, want %v", got, p)
	}
	ans, err := r.Ask(context.Background(), question)
	if err != nil || ans.Text != "zero" {
		t.Fatalf("Ask() = %+v, %v, want zero", ans, err)
	}
	dispose()

	var nilr *ui.Registry
	if p := nilr.Provider(); p != nil {
		t.Fatalf("nil Registry Provider() = %v, want nil", p)
	}
	_, err = nilr.Ask(context.Background(), question)
	wantCode(t, "nil Registry Ask()", err, ui.CodeNoProvider)
	_, err = nilr.Register(p)
	wantCode(t, "nil Registry Register()", err, ui.CodeNoRegistry)
}

func TestContextScoping(t *testing.T) {
	if r := ui.FromContext(context.Background()); r != nil {
		t.Fatalf("FromContext(Background) = %p, want nil", r)
	}
	//lint:ignore SA1012 a nil context is the input under test
	if r := ui.FromContext(nil); r != nil {
		t.Fatalf("FromContext(nil) = %p, want nil", r)
	}
	r := &ui.Registry{}
	//lint:ignore SA1012 a nil context is the input under test
	if got := ui.FromContext(ui.WithRegistry(nil, r)); got != r {
		t.Fatalf("FromContext(WithRegistry(nil, r)) = %p, want %p", got, r)
	}
	// Two sessions never see each other's provider.
	a := scope(t, answering("a"))
	b := ui.WithRegistry(context.Background(), &ui.Registry{})
	if _, err := ui.Ask(b, question); ui.CodeOf(err) != ui.CodeNoProvider {
		t.Fatalf("Ask(other session) error = %v, want NO_PROVIDER", err)
	}
	if ans, err := ui.Ask(a, question); err != nil || ans.Text != "a" {
		t.Fatalf("Ask() = %+v, %v, want a", ans, err)
	}
}

func TestAskNilContext(t *testing.T) {
	//lint:ignore SA1012 a nil context is the input under test
	_, err := ui.Ask(nil, question)
	wantCode(t, "Ask(nil)", err, ui.CodeInvalidRequest)
	var r ui.Registry
	//lint:ignore SA1012 a nil context is the input under test
	_, err = r.Ask(nil, question)
	wantCode(t, "Registry.Ask(nil)", err, ui.CodeInvalidRequest)
}

func TestAskInvalidRequestSkipsProvider(t *testing.T) {
	called := false
	ctx := scope(t, ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) {
		called = true
		return ui.Answer{Text: "x"}, nil
	}))
	_, err := ui.Ask(ctx, ui.Request{Question: " "})
	wantCode(t, "Ask()", err, ui.CodeInvalidRequest)
	if called {
		t.Fatal("provider was called for an invalid request")
	}
	// Validation comes before the provider lookup.
	_, err = ui.Ask(ui.WithRegistry(context.Background(), &ui.Registry{}), ui.Request{})
	wantCode(t, "Ask() without provider", err, ui.CodeInvalidRequest)
}

func TestAskProviderContext(t *testing.T) {
	type key struct{}
	ctx := scope(t, ui.ProviderFunc(func(ctx context.Context, _ ui.Request) (ui.Answer, error) {
		v, _ := ctx.Value(key{}).(string)
		if ctx.Err() != nil {
			return ui.Answer{}, ctx.Err()
		}
		return ui.Answer{Text: v}, nil
	}))
	ans, err := ui.Ask(context.WithValue(ctx, key{}, "carried"), question)
	if err != nil || ans.Text != "carried" {
		t.Fatalf("Ask() = %+v, %v, want the caller's value", ans, err)
	}
}

func TestAskRunsProviderOnCallersGoroutine(t *testing.T) {
	ctx := scope(t, ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) {
		panic("provider panic")
	}))
	// Only a panic on this goroutine can be recovered here.
	func() {
		defer func() {
			if r := recover(); r != "provider panic" {
				t.Fatalf("recover() = %v, want the provider's panic", r)
			}
		}()
		_, _ = ui.Ask(ctx, question)
		t.Fatal("Ask() returned, want the provider's panic")
	}()
	// The registry stays consistent: the provider is still active and a
	// duplicate is still rejected.
	if ui.FromContext(ctx).Provider() == nil {
		t.Fatal("Provider() = nil after a panic, want the provider")
	}
	if _, err := ui.Register(ctx, answering("x")); ui.CodeOf(err) != ui.CodeDuplicateProvider {
		t.Fatalf("Register() error = %v, want DUPLICATE_PROVIDER", err)
	}
}

func TestAskHoldsNoLockWhileProviderRuns(t *testing.T) {
	reg := &ui.Registry{}
	ctx := ui.WithRegistry(context.Background(), reg)
	var inner ui.Answer
	var innerErr, dupErr error
	dispose := register(t, ctx, ui.ProviderFunc(func(ctx context.Context, req ui.Request) (ui.Answer, error) {
		if req.Question == "inner" {
			return ui.Answer{Text: "inner answer"}, nil
		}
		inner, innerErr = ui.Ask(ctx, ui.Request{Question: "inner"})
		_, dupErr = ui.Register(ctx, answering("dup"))
		_ = reg.Provider()
		return ui.Answer{Text: "outer answer"}, nil
	}))
	defer dispose()
	ans, err := ui.Ask(ctx, ui.Request{Question: "outer"})
	if err != nil || ans.Text != "outer answer" {
		t.Fatalf("Ask() = %+v, %v, want outer answer", ans, err)
	}
	if innerErr != nil || inner.Text != "inner answer" {
		t.Fatalf("nested Ask() = %+v, %v, want inner answer", inner, innerErr)
	}
	wantCode(t, "nested Register()", dupErr, ui.CodeDuplicateProvider)
}

var (
	errStopWrapsCanceled = fmt.Errorf("user pressed stop: %w", context.Canceled)
	errSlowWrapsDeadline = fmt.Errorf("step budget spent: %w", context.DeadlineExceeded)
)

func TestAskAbortCauses(t *testing.T) {
	errStop := errors.New("user pressed stop")
	tests := []struct {
		name string
		// scope derives the caller's context and returns the func that aborts
		// it once the question is pending; nil when it expires by itself.
		scope   func(context.Context) (context.Context, context.CancelFunc, func())
		wantIs  []error
		wantNot []error
	}{
		{
			name: "cancel",
			scope: func(ctx context.Context) (context.Context, context.CancelFunc, func()) {
				ctx, cancel := context.WithCancel(ctx)
				return ctx, cancel, cancel
			},
			wantIs:  []error{context.Canceled},
			wantNot: []error{context.DeadlineExceeded},
		},
		{
			name: "cancel with cause",
			scope: func(ctx context.Context) (context.Context, context.CancelFunc, func()) {
				ctx, cancel := context.WithCancelCause(ctx)
				return ctx, func() { cancel(nil) }, func() { cancel(errStop) }
			},
			wantIs:  []error{context.Canceled, errStop},
			wantNot: []error{context.DeadlineExceeded},
		},
		{
			name: "cancel with a cause that wraps context.Canceled",
			scope: func(ctx context.Context) (context.Context, context.CancelFunc, func()) {
				ctx, cancel := context.WithCancelCause(ctx)
				return ctx, func() { cancel(nil) }, func() { cancel(errStopWrapsCanceled) }
			},
			wantIs:  []error{context.Canceled, errStopWrapsCanceled},
			wantNot: []error{context.DeadlineExceeded},
		},
		{
			name: "deadline with a cause that wraps DeadlineExceeded",
			scope: func(ctx context.Context) (context.Context, context.CancelFunc, func()) {
				ctx, cancel := context.WithTimeoutCause(ctx, time.Millisecond, errSlowWrapsDeadline)
				return ctx, cancel, nil
			},
			wantIs:  []error{context.DeadlineExceeded, errSlowWrapsDeadline},
			wantNot: []error{context.Canceled},
		},
		{
			name: "deadline",
			scope: func(ctx context.Context) (context.Context, context.CancelFunc, func()) {
				// The provider waits for the context, so the deadline passes while
				// the question is pending (or, on a slow machine, before it is asked:
				// the same error either way).
				ctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
				return ctx, cancel, nil
			},
			wantIs:  []error{context.DeadlineExceeded},
			wantNot: []error{context.Canceled},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			started := make(chan struct{}, 1)
			ctx, release, abort := tt.scope(scope(t, blocking(started)))
			defer release()
			done := askAsync(ctx, question)
			if abort != nil {
				<-started
				abort()
			}
			err := <-done
			wantCode(t, "Ask()", err, ui.CodeAskAborted)
			for _, target := range tt.wantIs {
				if !errors.Is(err, target) {
					t.Errorf("errors.Is(%v, %v) = false, want true", err, target)
				}
			}
			for _, target := range tt.wantNot {
				if errors.Is(err, target) {
					t.Errorf("errors.Is(%v, %v) = true, want false", err, target)
				}
			}
		})
	}
}

func TestDisposeAbortsInFlightAsk(t *testing.T) {
	ctx := ui.WithRegistry(context.Background(), &ui.Registry{})
	started := make(chan struct{}, 1)
	dispose := register(t, ctx, blocking(started))
	done := askAsync(ctx, question)
	<-started
	dispose()
	wantDisposal(t, <-done)
	// Hot reload: a new provider takes the next question.
	dispose2 := register(t, ctx, answering("reloaded"))
	defer dispose2()
	if ans, err := ui.Ask(ctx, question); err != nil || ans.Text != "reloaded" {
		t.Fatalf("Ask() = %+v, %v, want reloaded", ans, err)
	}
}

// TestDisposalJudgedPerAsk: a provider that bridges to another session asks
// there with its own context. When the first provider is disposed, the nested
// ask's provider is alive: the nested ask reports its caller's cancellation
// (errors.Is finds context.Canceled), and the outer ask its own disposal.
func TestDisposalJudgedPerAsk(t *testing.T) {
	other := ui.WithRegistry(context.Background(), &ui.Registry{})
	started := make(chan struct{}, 1)
	t.Cleanup(register(t, other, blocking(started)))

	session := ui.WithRegistry(context.Background(), &ui.Registry{})
	nested := make(chan error, 1)
	dispose := register(t, session, ui.ProviderFunc(func(ctx context.Context, req ui.Request) (ui.Answer, error) {
		_, err := ui.Ask(ui.WithRegistry(ctx, ui.FromContext(other)), req)
		nested <- err
		return ui.Answer{}, err
	}))
	done := askAsync(session, question)
	<-started
	dispose()
	err := <-nested
	wantCode(t, "nested Ask()", err, ui.CodeAskAborted)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("nested Ask() error = %v, want its caller's context.Canceled", err)
	}
	wantDisposal(t, <-done)
}

// TestDisposalOfNestedAsk: a provider that asks a nested question of its own
// registry and returns that error gets the nested ask's ASK_ABORTED, which
// wraps context.Canceled, when the provider is disposed. The outer Ask reports
// its own disposal, since its caller did not cancel anything; other coded
// errors of the provider still pass through.
func TestDisposalOfNestedAsk(t *testing.T) {
	session := ui.WithRegistry(context.Background(), &ui.Registry{})
	started := make(chan struct{}, 1)
	dispose := register(t, session, ui.ProviderFunc(func(ctx context.Context, req ui.Request) (ui.Answer, error) {
		if req.Question == "nested" {
			started <- struct{}{}
			<-ctx.Done()
			return ui.Answer{}, ctx.Err()
		}
		return ui.Ask(ctx, ui.Request{Question: "nested"})
	}))
	done := askAsync(session, question)
	<-started
	dispose()
	wantDisposal(t, <-done)

	declined := ui.NewError(ui.CodeAskDeclined, "the user declined to answer", nil)
	session = ui.WithRegistry(context.Background(), &ui.Registry{})
	dispose = register(t, session, ui.ProviderFunc(func(ctx context.Context, req ui.Request) (ui.Answer, error) {
		dispose() // the UI goes away while the human's refusal is on its way
		return ui.Answer{}, declined
	}))
	if _, err := ui.Ask(session, question); err != declined {
		t.Fatalf("Ask() error = %v, want the provider's ASK_DECLINED unchanged", err)
	}
}

// wantDisposal fails the test unless err is the ASK_ABORTED of a disposal:
// it says so, and errors.Is finds neither context error.
func wantDisposal(t *testing.T, err error) {
	t.Helper()
	wantCode(t, "Ask()", err, ui.CodeAskAborted)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Ask() error = %v, want a disposal, not the caller's cancellation", err)
	}
	if !strings.Contains(err.Error(), "disposed") {
		t.Fatalf("Ask() error = %q, want it to say the provider was disposed", err)
	}
}

// TestCopiedRegistryAfterDispose: a Registry copied after use (vet reports
// it, but it happens) answers NO_PROVIDER, at once, once the registration it
// copied is disposed.
func TestCopiedRegistryAfterDispose(t *testing.T) {
	var r ui.Registry
	dispose, err := r.Register(answering("yes"))
	if err != nil {
		t.Fatalf("Register() error = %v, want nil", err)
	}
	var copied ui.Registry
	reflect.ValueOf(&copied).Elem().Set(reflect.ValueOf(&r).Elem()) // what *copy = r does, unseen by vet
	if ans, err := copied.Ask(context.Background(), question); err != nil || ans.Text != "yes" {
		t.Fatalf("copied Ask() = %+v, %v, want yes", ans, err)
	}
	dispose()
	_, err = copied.Ask(context.Background(), question)
	wantCode(t, "copied Ask() after dispose", err, ui.CodeNoProvider)
}

func TestDisposeDoesNotWaitForProvider(t *testing.T) {
	ctx := ui.WithRegistry(context.Background(), &ui.Registry{})
	started, release := make(chan struct{}), make(chan struct{})
	// This provider ignores its context and answers only when released.
	dispose := register(t, ctx, ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) {
		close(started)
		<-release
		return ui.Answer{Text: "late but kept"}, nil
	}))
	type result struct {
		ans ui.Answer
		err error
	}
	done := make(chan result, 1)
	go func() {
		ans, err := ui.Ask(ctx, question)
		done <- result{ans, err}
	}()
	<-started
	dispose() // must return while the provider is still blocked
	close(release)
	res := <-done
	if res.err != nil || res.ans.Text != "late but kept" {
		t.Fatalf("Ask() = %+v, %v, want the answer given after dispose", res.ans, res.err)
	}
}

func TestDisposeFromWithinProvider(t *testing.T) {
	ctx := ui.WithRegistry(context.Background(), &ui.Registry{})
	var dispose func()
	dispose = register(t, ctx, ui.ProviderFunc(func(ctx context.Context, _ ui.Request) (ui.Answer, error) {
		dispose()
		<-ctx.Done()
		return ui.Answer{}, ctx.Err()
	}))
	_, err := ui.Ask(ctx, question)
	wantCode(t, "Ask()", err, ui.CodeAskAborted)
}

func TestAnswerNotLostToLateCancel(t *testing.T) {
	parent := ui.WithRegistry(context.Background(), &ui.Registry{})
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	dispose := register(t, ctx, ui.ProviderFunc(func(pctx context.Context, _ ui.Request) (ui.Answer, error) {
		cancel() // the caller gives up while the human answers
		<-pctx.Done()
		return ui.Answer{Text: "answered anyway"}, nil
	}))
	defer dispose()
	ans, err := ui.Ask(ctx, question)
	if err != nil || ans.Text != "answered anyway" {
		t.Fatalf("Ask() = %+v, %v, want the human's answer", ans, err)
	}
}

func TestAskProviderErrors(t *testing.T) {
	errBoom := errors.New("boom")
	declined := ui.NewError(ui.CodeAskDeclined, "the user declined to answer", nil)
	cancelled := ui.NewError(ui.CodeAskCancelled, "the user closed the dialog", nil)
	foreign := &ui.HarnessError{Name: "OtherError", Code: "OTHER", Message: "other"}
	uncoded := &ui.HarnessError{Name: "OtherError", Message: "no code"}
	tests := []struct {
		name      string
		err       error
		code      string
		unchanged bool
		cause     error
	}{
		{"plain error", errBoom, ui.CodeProviderFailed, false, errBoom},
		{"wrapped plain error", fmt.Errorf("dialog: %w", errBoom), ui.CodeProviderFailed, false, errBoom},
		{"context error without cancellation", context.Canceled, ui.CodeProviderFailed, false, context.Canceled},
		{"declined", declined, ui.CodeAskDeclined, true, nil},
		{"cancelled", cancelled, ui.CodeAskCancelled, true, nil},
		{"wrapped coded", fmt.Errorf("acp: %w", cancelled), ui.CodeAskCancelled, true, nil},
		{"foreign harness error", foreign, "OTHER", true, nil},
		{"wrapped foreign harness error", fmt.Errorf("bridge: %w", foreign), "OTHER", true, nil},
		{"harness error without code", uncoded, ui.CodeProviderFailed, false, uncoded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ui.Ask(scope(t, failing(tt.err)), question)
			if got := ui.CodeOf(err); got != tt.code {
				t.Fatalf("CodeOf(Ask()) = %q (%v), want %q", got, err, tt.code)
			}
			if tt.unchanged && err != tt.err {
				t.Fatalf("Ask() error = %#v, want the provider's error unchanged", err)
			}
			if tt.cause != nil && !errors.Is(err, tt.cause) {
				t.Fatalf("Ask() error = %v, want it to wrap %v", err, tt.cause)
			}
			var he *ui.HarnessError // works for every error out of Ask
			if !errors.As(err, &he) || he.Code != tt.code {
				t.Fatalf("errors.As(%v, *HarnessError) = %v, want code %s", err, he, tt.code)
			}
		})
	}
}

// TestAskTypedNilErrors: a provider that returns a typed nil error gets
// PROVIDER_FAILED, and nothing panics, neither inside Ask nor in a caller that
// inspects the error.
func TestAskTypedNilErrors(t *testing.T) {
	for _, err := range []error{(*ui.UserInteractionError)(nil), (*ui.HarnessError)(nil), (*myError)(nil)} {
		_, got := ui.Ask(scope(t, failing(err)), question)
		wantCode(t, fmt.Sprintf("Ask() with a provider's %T(nil)", err), got, ui.CodeProviderFailed)
		if !strings.Contains(got.Error(), fmt.Sprintf("nil %T", err)) {
			t.Errorf("Ask() error = %q, want it to name the nil %T", got, err)
		}
		_ = errors.Is(got, context.Canceled) // walks the chain: must not panic
	}
}

func TestAskCodedErrorPassesThroughAfterCancel(t *testing.T) {
	session := ui.WithRegistry(context.Background(), &ui.Registry{})
	ctx, cancel := context.WithCancel(session)
	defer cancel()
	dispose := register(t, ctx, ui.ProviderFunc(func(pctx context.Context, _ ui.Request) (ui.Answer, error) {
		cancel() // the step is cancelled while the dialog is open
		<-pctx.Done()
		return ui.Answer{}, ui.NewError(ui.CodeAskCancelled, "dialog closed", pctx.Err())
	}))
	defer dispose()
	_, err := ui.Ask(ctx, question)
	wantCode(t, "Ask()", err, ui.CodeAskCancelled)
}

// errHookContext is a caller's context that runs hook whenever Ask, or the
// context package on its behalf, asks whether it is done, so that a test can
// act at each of those points.
type errHookContext struct {
	context.Context
	hook func()
}

func (c errHookContext) Err() error {
	c.hook()
	return c.Context.Err()
}

func (c errHookContext) Done() <-chan struct{} {
	c.hook()
	return c.Context.Done()
}

// TestDisposedProviderNeverCalled disposes the provider, from another
// goroutine as a UI's teardown does, at each point where Ask consults the
// caller's context, and checks that a provider whose dispose has returned is
// never called: before the question is recorded Ask returns NO_PROVIDER,
// after it ASK_ABORTED.
func TestDisposedProviderNeverCalled(t *testing.T) {
	seen := map[string]bool{}
	for k := 1; ; k++ {
		var r ui.Registry
		disposed := false // set once dispose has returned
		called := false
		dispose, err := r.Register(ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) {
			if disposed {
				t.Errorf("hook %d: provider called after its dispose returned", k)
			}
			called = true
			return ui.Answer{Text: "yes"}, nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		ctx := errHookContext{context.Background(), func() {
			if calls++; calls == k {
				done := make(chan struct{})
				go func() { dispose(); close(done) }()
				<-done
				disposed = true
			}
		}}
		_, err = r.Ask(ctx, question)
		switch {
		case calls < k: // the hook never fired: every point has been tried
			if !seen[ui.CodeNoProvider] || !seen[ui.CodeAskAborted] {
				t.Fatalf("outcomes %v, want NO_PROVIDER (disposed before the ask was recorded) and ASK_ABORTED (after)", seen)
			}
			return
		case called:
			if err != nil {
				t.Fatalf("hook %d: Ask() error = %v after the provider answered, want its answer", k, err)
			}
		case ui.CodeOf(err) == ui.CodeNoProvider:
		default:
			wantDisposal(t, err)
		}
		seen[ui.CodeOf(err)] = true
	}
}

// TestDisposeRacesAsk disposes the provider while an Ask is under way, again
// and again, and checks every outcome: either the provider was called and its
// answer is returned, or it was not and Ask says why, NO_PROVIDER or the
// disposal's ASK_ABORTED. It retries, bounded, until a dispose lands between
// recording the question and calling the provider: the disposer spins on
// another goroutine and disposes as soon as Ask first consults the caller's
// context, so that the two race closely.
func TestDisposeRacesAsk(t *testing.T) {
	const tries = 20000
	seen := map[string]int{}
	for i := 0; i < tries && seen[ui.CodeAskAborted] == 0; i++ {
		var r ui.Registry
		var called atomic.Bool
		dispose, err := r.Register(ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) {
			called.Store(true)
			return ui.Answer{Text: "yes"}, nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		var fire atomic.Bool
		disposed := make(chan struct{})
		go func() {
			for !fire.Load() {
				runtime.Gosched()
			}
			dispose()
			close(disposed)
		}()
		ctx := errHookContext{context.Background(), func() { fire.Store(true) }}
		ans, err := r.Ask(ctx, question)
		fire.Store(true)
		<-disposed
		switch {
		case called.Load():
			if err != nil || ans.Text != "yes" {
				t.Fatalf("Ask() = %+v, %v after the provider answered, want its answer", ans, err)
			}
			seen["answered"]++
		case ui.CodeOf(err) == ui.CodeNoProvider:
			seen[ui.CodeNoProvider]++
		default:
			wantDisposal(t, err)
			seen[ui.CodeAskAborted]++
		}
	}
	t.Logf("outcomes: %v", seen)
}
