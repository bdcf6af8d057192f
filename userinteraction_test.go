package userinteraction_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// answering is a provider that always answers text.
func answering(text string) ui.Provider {
	return ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) {
		return ui.Answer{Text: text}, nil
	})
}

// fixed is a comparable provider that always answers text.
type fixed struct{ text string }

func (f *fixed) Ask(context.Context, ui.Request) (ui.Answer, error) {
	return ui.Answer{Text: f.text}, nil
}

// failing is a provider that always returns err.
func failing(err error) ui.Provider {
	return ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) {
		return ui.Answer{}, err
	})
}

// scope returns a context carrying a new registry with p registered; the
// registration is disposed when the test ends.
func scope(t *testing.T, p ui.Provider) context.Context {
	t.Helper()
	ctx := ui.WithRegistry(context.Background(), &ui.Registry{})
	t.Cleanup(register(t, ctx, p))
	return ctx
}

// register registers p in the registry of ctx and returns its dispose func,
// failing the test when Register fails.
func register(t *testing.T, ctx context.Context, p ui.Provider) (dispose func()) {
	t.Helper()
	dispose, err := ui.Register(ctx, p)
	if err != nil {
		t.Fatalf("Register() error = %v, want nil", err)
	}
	return dispose
}

// wantCode fails the test unless err is a *UserInteractionError with code.
func wantCode(t *testing.T, call string, err error, code string) {
	t.Helper()
	var uie *ui.UserInteractionError
	if !errors.As(err, &uie) {
		t.Fatalf("%s error = %v, want a *UserInteractionError with code %s", call, err, code)
	}
	if uie.Code != code || uie.Name != "UserInteractionError" {
		t.Fatalf("%s error = {%s %s %q}, want code %s", call, uie.Name, uie.Code, uie.Message, code)
	}
	if m := uie.Message; m == "" || strings.ToLower(m[:1]) != m[:1] || strings.HasSuffix(m, ".") {
		t.Fatalf("%s error message = %q, want lower-case text without a trailing period", call, m)
	}
}

var question = ui.Request{Question: "Proceed?"}

// The five behaviours of the original TypeScript suite.

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

func TestAskWithoutProvider(t *testing.T) {
	ctx := ui.WithRegistry(context.Background(), &ui.Registry{})
	_, err := ui.Ask(ctx, question)
	wantCode(t, "Ask()", err, ui.CodeNoProvider)
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

// Register.

func TestRegisterErrors(t *testing.T) {
	tests := []struct {
		name string
		ctx  context.Context
		p    ui.Provider
		code string
	}{
		{"no registry", context.Background(), answering("x"), ui.CodeNoRegistry},
		{"nil context", nil, answering("x"), ui.CodeNoRegistry},
		{"registry hidden by nil", ui.WithRegistry(ui.WithRegistry(context.Background(), &ui.Registry{}), nil), answering("x"), ui.CodeNoRegistry},
		{"nil provider", ui.WithRegistry(context.Background(), &ui.Registry{}), nil, ui.CodeInvalidProvider},
		{"nil ProviderFunc", ui.WithRegistry(context.Background(), &ui.Registry{}), ui.ProviderFunc(nil), ui.CodeInvalidProvider},
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

// Ask.

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

// askAsync asks req on a goroutine of its own and returns the channel that
// receives Ask's error.
func askAsync(ctx context.Context, req ui.Request) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := ui.Ask(ctx, req)
		done <- err
	}()
	return done
}

// blocking returns a provider that reports each call on started and then
// waits for its context to be done.
func blocking(started chan<- struct{}) ui.Provider {
	return ui.ProviderFunc(func(ctx context.Context, _ ui.Request) (ui.Answer, error) {
		started <- struct{}{}
		<-ctx.Done()
		return ui.Answer{}, ctx.Err()
	})
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
		{"cancel", func(ctx context.Context) (context.Context, context.CancelFunc, func()) {
			ctx, cancel := context.WithCancel(ctx)
			return ctx, cancel, cancel
		}, []error{context.Canceled}, []error{context.DeadlineExceeded}},
		{"cancel with cause", func(ctx context.Context) (context.Context, context.CancelFunc, func()) {
			ctx, cancel := context.WithCancelCause(ctx)
			return ctx, func() { cancel(nil) }, func() { cancel(errStop) }
		}, []error{context.Canceled, errStop}, []error{context.DeadlineExceeded}},
		{"cancel with a cause that wraps context.Canceled", func(ctx context.Context) (context.Context, context.CancelFunc, func()) {
			ctx, cancel := context.WithCancelCause(ctx)
			return ctx, func() { cancel(nil) }, func() { cancel(errStopWrapsCanceled) }
		}, []error{context.Canceled, errStopWrapsCanceled}, []error{context.DeadlineExceeded}},
		{"deadline with a cause that wraps DeadlineExceeded", func(ctx context.Context) (context.Context, context.CancelFunc, func()) {
			ctx, cancel := context.WithTimeoutCause(ctx, time.Millisecond, errSlowWrapsDeadline)
			return ctx, cancel, nil
		}, []error{context.DeadlineExceeded, errSlowWrapsDeadline}, []error{context.Canceled}},
		{"deadline", func(ctx context.Context) (context.Context, context.CancelFunc, func()) {
			// The provider waits for the context, so the deadline passes while
			// the question is pending (or, on a slow machine, before it is asked:
			// the same error either way).
			ctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
			return ctx, cancel, nil
		}, []error{context.DeadlineExceeded}, []error{context.Canceled}},
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
	err := <-done
	wantCode(t, "Ask()", err, ui.CodeAskAborted)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Ask() error = %v, want a disposal cause, not the caller's", err)
	}
	if !strings.Contains(err.Error(), "disposed") {
		t.Fatalf("Ask() error = %q, want it to say the provider was disposed", err)
	}
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
// (errors.Is finds context.Canceled), not a disposal of its own provider.
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
	if outer := <-done; outer != err {
		t.Fatalf("Ask() error = %v, want the provider's coded error %v unchanged", outer, err)
	}
}

// TestCopiedRegistryNeverSpins: a Registry copied after use (vet reports it,
// but it happens) answers NO_PROVIDER once the registration it copied is
// disposed, instead of looping.
func TestCopiedRegistryNeverSpins(t *testing.T) {
	var r ui.Registry
	dispose, err := r.Register(answering("yes"))
	if err != nil {
		t.Fatalf("Register() error = %v", err)
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

// myError is an error type whose methods need a non-nil receiver.
type myError struct{ msg string }

func (e *myError) Error() string { return e.msg }
func (e *myError) Unwrap() error { return errors.New(e.msg) }

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

func TestNilErrorReceivers(t *testing.T) {
	var he *ui.HarnessError
	var uie *ui.UserInteractionError
	if got := ui.CodeOf(he); got != "" {
		t.Errorf("CodeOf((*HarnessError)(nil)) = %q, want \"\"", got)
	}
	if got := ui.CodeOf(uie); got != "" {
		t.Errorf("CodeOf((*UserInteractionError)(nil)) = %q, want \"\"", got)
	}
	if got := ui.CodeOf(fmt.Errorf("wrapped: %w", uie)); got != "" {
		t.Errorf("CodeOf(wrapped (*UserInteractionError)(nil)) = %q, want \"\"", got)
	}
	if he.Error() != "<nil>" || uie.Error() != "<nil>" || he.Unwrap() != nil || uie.Unwrap() != nil {
		t.Errorf("nil receivers: Error() = %q, %q, Unwrap() = %v, %v, want <nil> and nil", he.Error(), uie.Error(), he.Unwrap(), uie.Unwrap())
	}
}

// TestProviderFailedCarriesCause: the model learns why the provider failed.
func TestProviderFailedCarriesCause(t *testing.T) {
	cause := errors.New("elicitation/create cannot be sent while serving a request")
	_, err := ui.Ask(scope(t, failing(cause)), question)
	var he *ui.HarnessError
	if !errors.As(err, &he) || he.Code != ui.CodeProviderFailed || he.Message != "provider failed: "+cause.Error() {
		t.Fatalf("Ask() error = %v, want PROVIDER_FAILED with message %q", err, "provider failed: "+cause.Error())
	}
}

// TestErrorMessagesStayShort: an error quotes user and provider text only as
// a short prefix, so that no model-facing error grows with its input.
func TestErrorMessagesStayShort(t *testing.T) {
	huge := strings.Repeat("é", 1<<19) // 1 MiB
	label := ui.Request{Question: "q", Options: []ui.Option{{Label: huge}, {Label: huge}}}
	tests := []struct {
		name string
		err  error
		code string
	}{
		{"duplicate label", label.Validate(), ui.CodeInvalidRequest},
		{"option not offered", askWith(t, ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}}}, ui.Answer{Option: &ui.Option{Label: huge}}), ui.CodeInvalidAnswer},
		{"custom text disallowed", askWith(t, ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}}, DisallowCustom: true}, ui.Answer{Text: huge}), ui.CodeInvalidAnswer},
		{"text disagrees with option", askWith(t, ui.Request{Question: "q", Options: []ui.Option{{Label: huge}}}, ui.Answer{Text: huge + "!", Option: &ui.Option{Label: huge}}), ui.CodeInvalidAnswer},
		{"provider failed", func() error { _, err := ui.Ask(scope(t, failing(errors.New(huge))), question); return err }(), ui.CodeProviderFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCode(t, "error", tt.err, tt.code)
			var he *ui.HarnessError
			errors.As(tt.err, &he)
			b, err := json.Marshal(he)
			if err != nil || len(b) >= 4096 {
				t.Fatalf("json.Marshal(error) = %d bytes, %v, want under 4 KiB", len(b), err)
			}
			if !strings.Contains(he.Message, strings.Repeat("é", 64)+"…") || strings.Contains(he.Message, strings.Repeat("é", 65)) {
				t.Fatalf("message = %q, want the text cut after 64 runes with an ellipsis", he.Message)
			}
		})
	}
}

// askWith asks req of a provider that answers ans and returns Ask's error.
func askWith(t *testing.T, req ui.Request, ans ui.Answer) error {
	_, err := askAnswer(t, req, ans)
	return err
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

func TestAskResolvesAnswer(t *testing.T) {
	yes := ui.Option{Label: "Yes", Value: "y", Description: "go ahead"}
	no := ui.Option{Label: "No", Recommended: true}
	maybe := ui.Option{Label: "Maybe", Value: "y"} // shares yes's value
	opts := []ui.Option{yes, no, maybe}
	ptr := func(o ui.Option) *ui.Option { return &o }
	tests := []struct {
		name   string
		req    ui.Request
		answer ui.Answer
		want   ui.Answer
		code   string
	}{
		{"free text", ui.Request{Question: "q"}, ui.Answer{Text: "anything"}, ui.Answer{Text: "anything"}, ""},
		{"option fills text with value", ui.Request{Question: "q", Options: opts}, ui.Answer{Option: ptr(yes)}, ui.Answer{Text: "y", Option: ptr(yes)}, ""},
		{"option fills text with label", ui.Request{Question: "q", Options: opts}, ui.Answer{Option: ptr(no)}, ui.Answer{Text: "No", Option: ptr(no)}, ""},
		{"Option.Answer", ui.Request{Question: "q", Options: opts, DisallowCustom: true}, no.Answer(), ui.Answer{Text: "No", Option: ptr(no)}, ""},
		{"text fills option by value", ui.Request{Question: "q", Options: opts}, ui.Answer{Text: "y"}, ui.Answer{Text: "y", Option: ptr(yes)}, ""},
		{"text fills option by label", ui.Request{Question: "q", Options: opts}, ui.Answer{Text: "No"}, ui.Answer{Text: "No", Option: ptr(no)}, ""},
		{"label of option with value is custom", ui.Request{Question: "q", Options: opts}, ui.Answer{Text: "Yes"}, ui.Answer{Text: "Yes"}, ""},
		{"custom text allowed", ui.Request{Question: "q", Options: opts}, ui.Answer{Text: "later"}, ui.Answer{Text: "later"}, ""},
		{"option is made canonical", ui.Request{Question: "q", Options: opts}, ui.Answer{Option: &ui.Option{Label: "Yes", Value: "forged"}}, ui.Answer{Text: "y", Option: ptr(yes)}, ""},
		{"option with its own text", ui.Request{Question: "q", Options: opts}, ui.Answer{Text: "y, but only today", Option: ptr(yes)}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"text of another option", ui.Request{Question: "q", Options: opts, DisallowCustom: true}, ui.Answer{Text: "No", Option: ptr(yes)}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"option with its own text, value shared", ui.Request{Question: "q", Options: opts}, ui.Answer{Text: "y", Option: ptr(maybe)}, ui.Answer{Text: "y", Option: ptr(maybe)}, ""},
		{"text of option's label when it has a value", ui.Request{Question: "q", Options: opts}, ui.Answer{Text: "Yes", Option: ptr(yes)}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"disallowed custom text", ui.Request{Question: "q", Options: opts, DisallowCustom: true}, ui.Answer{Text: "later"}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"disallowed label of option with value", ui.Request{Question: "q", Options: opts, DisallowCustom: true}, ui.Answer{Text: "Yes"}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"disallowed option with its own text", ui.Request{Question: "q", Options: opts, DisallowCustom: true}, ui.Answer{Text: "y?", Option: ptr(yes)}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"disallowed text matches option", ui.Request{Question: "q", Options: opts, DisallowCustom: true}, ui.Answer{Text: "No"}, ui.Answer{Text: "No", Option: ptr(no)}, ""},
		{"DisallowCustom without options is free-form", ui.Request{Question: "q", DisallowCustom: true}, ui.Answer{Text: "free"}, ui.Answer{Text: "free"}, ""},
		{"empty answer", ui.Request{Question: "q"}, ui.Answer{}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"blank answer", ui.Request{Question: "q", Options: opts}, ui.Answer{Text: " \t\n"}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"option not offered", ui.Request{Question: "q", Options: opts}, ui.Answer{Option: &ui.Option{Label: "Never"}}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"option on free-form request", ui.Request{Question: "q"}, ui.Answer{Text: "x", Option: &ui.Option{Label: "x"}}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"one of Options is read as Option", ui.Request{Question: "q", Options: opts, DisallowCustom: true}, ui.Pick(no), ui.Answer{Text: "No", Option: ptr(no)}, ""},
		{"Options and Option agree", ui.Request{Question: "q", Options: opts}, ui.Answer{Option: ptr(yes), Options: []ui.Option{yes}}, ui.Answer{Text: "y", Option: ptr(yes)}, ""},
		{"Options and Option disagree", ui.Request{Question: "q", Options: opts}, ui.Answer{Option: ptr(yes), Options: []ui.Option{no}}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"two Options on single-select", ui.Request{Question: "q", Options: opts}, ui.Pick(yes, no), ui.Answer{}, ui.CodeInvalidAnswer},
		{"Options not offered", ui.Request{Question: "q", Options: opts}, ui.Pick(ui.Option{Label: "Never"}), ui.Answer{}, ui.CodeInvalidAnswer},
		{"MultiSelect without options is free-form", ui.Request{Question: "q", MultiSelect: true}, ui.Answer{Text: "free"}, ui.Answer{Text: "free"}, ""},
		{"MultiSelect without options takes no picks", ui.Request{Question: "q", MultiSelect: true}, ui.Pick(ui.Option{Label: "x"}), ui.Answer{}, ui.CodeInvalidAnswer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := scope(t, ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) {
				return tt.answer, nil
			}))
			got, err := ui.Ask(ctx, tt.req)
			if tt.code != "" {
				wantCode(t, "Ask()", err, tt.code)
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Ask() = %s, %v, want %s", show(got), err, show(tt.want))
			}
			if got.Option != nil && &tt.req.Options[0] == got.Option {
				t.Fatal("Ask() answer aliases the request's options, want a copy")
			}
		})
	}
}

func TestAskResolvesMultiSelect(t *testing.T) {
	a := ui.Option{Label: "a", Value: "A"}
	b := ui.Option{Label: "b"}
	c := ui.Option{Label: "c", Value: "C", Recommended: true}
	d := ui.Option{Label: "d", Value: "A"} // shares a's value
	req := ui.Request{Question: "Which?", Options: []ui.Option{a, b, c, d}, MultiSelect: true}
	strict := req
	strict.DisallowCustom = true
	ptr := func(o ui.Option) *ui.Option { return &o }
	opts := func(o ...ui.Option) []ui.Option { return o }
	tests := []struct {
		name   string
		req    ui.Request
		answer ui.Answer
		want   ui.Answer // zero when code is set
		code   string
	}{
		{"picks in offered order", strict, ui.Pick(c, a), ui.Answer{Text: "A, C", Options: opts(a, c)}, ""},
		{"one pick", strict, ui.Pick(b), ui.Answer{Text: "b", Options: opts(b)}, ""},
		{"Option.Answer is one pick", strict, a.Answer(), ui.Answer{Text: "A", Options: opts(a)}, ""},
		{"Option counts as one pick", strict, ui.Answer{Option: ptr(b), Options: opts(d, a)}, ui.Answer{Text: "A, b, A", Options: opts(a, b, d)}, ""},
		{"text equal to the join is kept", strict, ui.Answer{Text: "A, C", Options: opts(c, a)}, ui.Answer{Text: "A, C", Options: opts(a, c)}, ""},
		{"blank text with picks", strict, ui.Answer{Text: " \t", Options: opts(b)}, ui.Answer{Text: "b", Options: opts(b)}, ""},
		{"own words appended", req, ui.Answer{Text: "and the logs", Options: opts(c, b)}, ui.Answer{Text: "b, C, and the logs", Options: opts(b, c)}, ""},
		{"own words disallowed", strict, ui.Answer{Text: "and the logs", Options: opts(b)}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"text of one pick with another pick", strict, ui.Answer{Text: "A", Option: ptr(a), Options: opts(b)}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"no picks, text picks an option", strict, ui.Answer{Text: "C"}, ui.Answer{Text: "C", Options: opts(c)}, ""},
		{"no picks, shared value picks the first", strict, ui.Answer{Text: "A"}, ui.Answer{Text: "A", Options: opts(a)}, ""},
		{"no picks, own words", req, ui.Answer{Text: "none of these"}, ui.Answer{Text: "none of these"}, ""},
		{"no picks, own words disallowed", strict, ui.Answer{Text: "none of these"}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"no picks, a join is not a pick", strict, ui.Answer{Text: "A, C"}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"picks are made canonical", strict, ui.Pick(ui.Option{Label: "c", Value: "forged"}), ui.Answer{Text: "C", Options: opts(c)}, ""},
		{"empty", req, ui.Answer{}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"blank", req, ui.Answer{Text: " "}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"Pick of nothing", req, ui.Pick(), ui.Answer{}, ui.CodeInvalidAnswer},
		{"label twice", req, ui.Pick(a, a), ui.Answer{}, ui.CodeInvalidAnswer},
		{"Option repeats a pick", req, ui.Answer{Option: ptr(a), Options: opts(a)}, ui.Answer{}, ui.CodeInvalidAnswer},
		{"not offered", req, ui.Pick(a, ui.Option{Label: "z"}), ui.Answer{}, ui.CodeInvalidAnswer},
		{"Option not offered", req, ui.Answer{Option: &ui.Option{Label: "z"}}, ui.Answer{}, ui.CodeInvalidAnswer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := askAnswer(t, tt.req, tt.answer)
			if tt.code != "" {
				wantCode(t, "Ask()", err, tt.code)
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Ask() = %s, %v, want %s", show(got), err, show(tt.want))
			}
			for i := range got.Options {
				for j := range tt.req.Options {
					if &got.Options[i] == &tt.req.Options[j] {
						t.Fatal("Ask() answer's Options alias the request's options, want copies")
					}
				}
			}
		})
	}
}

// askAnswer asks req of a provider that answers ans.
func askAnswer(t *testing.T, req ui.Request, ans ui.Answer) (ui.Answer, error) {
	t.Helper()
	return ui.Ask(scope(t, ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) { return ans, nil })), req)
}

func TestPick(t *testing.T) {
	offered := []ui.Option{{Label: "a"}, {Label: "b", Value: "B"}}
	got := ui.Pick(offered...)
	if got.Text != "" || got.Option != nil || !reflect.DeepEqual(got.Options, offered) {
		t.Fatalf("Pick() = %s, want Options %+v and nothing else", show(got), offered)
	}
	got.Options[0].Label = "changed"
	if offered[0].Label != "a" {
		t.Fatal("Pick() aliases its arguments, want copies")
	}
	if got := ui.Pick(); got.Options != nil {
		t.Fatalf("Pick() = %s, want an empty answer", show(got))
	}
}

// TestAskAnswerNeverAliasesRequest checks that an answer whose Option points
// into the request's options comes back as a copy, so that a caller that keeps
// answers cannot change a request template it reuses, or the other way round.
func TestAskAnswerNeverAliasesRequest(t *testing.T) {
	req := ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}, {Label: "b", Value: "B"}}}
	ctx := scope(t, ui.ProviderFunc(func(_ context.Context, req ui.Request) (ui.Answer, error) {
		return ui.Answer{Option: &req.Options[1]}, nil // the same backing array as the caller's
	}))
	ans, err := ui.Ask(ctx, req)
	if err != nil || ans.Option == nil || *ans.Option != req.Options[1] {
		t.Fatalf("Ask() = %s, %v, want option b", show(ans), err)
	}
	if ans.Option == &req.Options[1] {
		t.Fatal("Ask() answer's Option points into req.Options, want a copy")
	}
}

// show formats an Answer with its Option, not the Option's address.
func show(a ui.Answer) string {
	s := fmt.Sprintf("{%q", a.Text)
	if a.Option != nil {
		s += fmt.Sprintf(" option %+v", *a.Option)
	}
	if a.Options != nil {
		s += fmt.Sprintf(" options %+v", a.Options)
	}
	return s + "}"
}

// Request.

func TestRequestValidate(t *testing.T) {
	many := make([]ui.Option, 40)
	for i := range many {
		many[i] = ui.Option{Label: fmt.Sprint("option ", i)}
	}
	manyDup := append(append([]ui.Option(nil), many...), ui.Option{Label: "option 7"})
	tests := []struct {
		name string
		req  ui.Request
		want string // "" for valid, else a fragment of the message
	}{
		{"minimal", ui.Request{Question: "q"}, ""},
		{"full", ui.Request{Question: "q", Header: "h", Options: []ui.Option{{Label: "a", Value: "1", Description: "d", Recommended: true}, {Label: "b"}}, DisallowCustom: true, Agent: &ui.Agent{ID: "1", Name: "n"}}, ""},
		{"shared value", ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Value: "v"}, {Label: "b", Value: "v"}}}, ""},
		{"DisallowCustom without options", ui.Request{Question: "q", DisallowCustom: true}, ""},
		{"many options", ui.Request{Question: "q", Options: many}, ""},
		{"empty question", ui.Request{}, "question is empty"},
		{"blank question", ui.Request{Question: " \t\n"}, "question is empty"},
		{"invalid UTF-8 question", ui.Request{Question: "q\xff"}, "question is not valid UTF-8"},
		{"invalid UTF-8 header", ui.Request{Question: "q", Header: "\xc3"}, "header is not valid UTF-8"},
		{"invalid UTF-8 agent", ui.Request{Question: "q", Agent: &ui.Agent{Name: "\xff"}}, "agent is not valid UTF-8"},
		{"empty label", ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}, {Value: "v"}}}, "options[1] has an empty label"},
		{"blank label", ui.Request{Question: "q", Options: []ui.Option{{Label: "\u00a0 "}}}, "options[0] has an empty label"},
		{"invalid UTF-8 label", ui.Request{Question: "q", Options: []ui.Option{{Label: "a\xff"}}}, "options[0] is not valid UTF-8"},
		{"invalid UTF-8 value", ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Value: "\xff"}}}, "options[0] is not valid UTF-8"},
		{"invalid UTF-8 description", ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Description: "\xff"}}}, "options[0] is not valid UTF-8"},
		{"duplicate labels", ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}, {Label: "b"}, {Label: "a", Value: "other"}}}, `options[0] and options[2] have the same label "a"`},
		{"duplicate labels in a long list", ui.Request{Question: "q", Options: manyDup}, `options[7] and options[40] have the same label "option 7"`},
		{"two recommended", ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Recommended: true}, {Label: "b"}, {Label: "c", Recommended: true}}}, "options[0] and options[2] are both recommended"},
		{"MultiSelect with two recommended", ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Recommended: true}, {Label: "b"}, {Label: "c", Recommended: true}}, MultiSelect: true}, ""},
		{"MultiSelect without options", ui.Request{Question: "q", MultiSelect: true, DisallowCustom: true}, ""},
		{"MultiSelect with duplicate labels", ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}, {Label: "a"}}, MultiSelect: true}, `options[0] and options[1] have the same label "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			wantCode(t, "Validate()", err, ui.CodeInvalidRequest)
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate() = %q, want a message containing %q", err, tt.want)
			}
		})
	}
}

func TestRequestCustomAllowed(t *testing.T) {
	opts := []ui.Option{{Label: "a"}}
	tests := []struct {
		req  ui.Request
		want bool
	}{
		{ui.Request{Question: "q"}, true},
		{ui.Request{Question: "q", DisallowCustom: true}, true},
		{ui.Request{Question: "q", Options: opts}, true},
		{ui.Request{Question: "q", Options: opts, DisallowCustom: true}, false},
	}
	for _, tt := range tests {
		if got := tt.req.CustomAllowed(); got != tt.want {
			t.Errorf("%+v.CustomAllowed() = %v, want %v", tt.req, got, tt.want)
		}
	}
}

func TestRequestJSON(t *testing.T) {
	tests := []struct {
		name string
		req  ui.Request
		wire string
	}{
		{"minimal", ui.Request{Question: "q"}, `{"question":"q"}`},
		{"empty", ui.Request{}, `{"question":""}`},
		{"header", ui.Request{Question: "q", Header: "h"}, `{"question":"q","header":"h"}`},
		{"options, custom allowed", ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}, {Label: "b", Value: "2", Description: "d", Recommended: true}}},
			`{"question":"q","options":[{"label":"a"},{"label":"b","value":"2","description":"d","recommended":true}]}`},
		{"custom disallowed", ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}}, DisallowCustom: true},
			`{"question":"q","options":[{"label":"a"}],"allowCustom":false}`},
		{"agent", ui.Request{Question: "q", Agent: &ui.Agent{ID: "1", Name: "n"}}, `{"question":"q","agent":{"id":"1","name":"n"}}`},
		{"multi-select", ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Recommended: true}, {Label: "b", Recommended: true}}, MultiSelect: true},
			`{"question":"q","options":[{"label":"a","recommended":true},{"label":"b","recommended":true}],"multiSelect":true}`},
		{"everything", ui.Request{Question: "q", Header: "h", Options: []ui.Option{{Label: "a"}}, DisallowCustom: true, MultiSelect: true, Agent: &ui.Agent{Name: "n"}},
			`{"question":"q","header":"h","options":[{"label":"a"}],"allowCustom":false,"multiSelect":true,"agent":{"name":"n"}}`},
		{"empty agent", ui.Request{Question: "q", Agent: &ui.Agent{}}, `{"question":"q","agent":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range []any{tt.req, &tt.req} {
				b, err := json.Marshal(v)
				if err != nil || string(b) != tt.wire {
					t.Fatalf("json.Marshal(%T) = %s, %v, want %s", v, b, err, tt.wire)
				}
			}
			got := ui.Request{Question: "stale", DisallowCustom: true}
			if err := json.Unmarshal([]byte(tt.wire), &got); err != nil || !reflect.DeepEqual(got, tt.req) {
				t.Fatalf("json.Unmarshal(%s) = %+v, %v, want %+v", tt.wire, got, err, tt.req)
			}
		})
	}
}

func TestRequestUnmarshalTypeScriptShapes(t *testing.T) {
	tests := []struct {
		wire string
		want ui.Request
	}{
		{`{"question":"q","allowCustom":true}`, ui.Request{Question: "q"}},
		{`{"question":"q","allowCustom":null}`, ui.Request{Question: "q"}},
		{`{"question":"q","allowCustom":false}`, ui.Request{Question: "q", DisallowCustom: true}},
		{`{"question":"q","options":[]}`, ui.Request{Question: "q"}},
		{`{"question":"q","signal":{},"extra":1}`, ui.Request{Question: "q"}},
		{`{"question":"q","agent":null,"header":""}`, ui.Request{Question: "q"}},
		{`{"question":"q","multiSelect":false}`, ui.Request{Question: "q"}},
		{`{"question":"q","multiSelect":null}`, ui.Request{Question: "q"}},
	}
	for _, tt := range tests {
		var got ui.Request
		if err := json.Unmarshal([]byte(tt.wire), &got); err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("json.Unmarshal(%s) = %+v, %v, want %+v", tt.wire, got, err, tt.want)
		}
	}
	kept := ui.Request{Question: "kept", DisallowCustom: true}
	if err := json.Unmarshal([]byte(`null`), &kept); err != nil || kept.Question != "kept" || !kept.DisallowCustom {
		t.Errorf("json.Unmarshal(null) = %+v, %v, want the request unchanged", kept, err)
	}
	for _, bad := range []string{`[]`, `{"question":1}`, `{"allowCustom":"no"}`, `{"options":{}}`, `{`} {
		var got ui.Request
		err := json.Unmarshal([]byte(bad), &got)
		if err == nil {
			t.Errorf("json.Unmarshal(%s) error = nil, want an error", bad)
		} else if strings.Contains(err.Error(), "wire") {
			t.Errorf("json.Unmarshal(%s) error = %q, want it to name Request, not the internal type", bad, err)
		}
	}
	var got ui.Request
	if err := json.Unmarshal([]byte(`{"question":1}`), &got); err == nil || !strings.Contains(err.Error(), "Request.question") {
		t.Errorf("json.Unmarshal error = %v, want it to name Request.question", err)
	}

	// A TypeScript surface that does not know multiSelect still decodes the
	// request, as a single-select question.
	var older struct {
		Question    string      `json:"question"`
		Options     []ui.Option `json:"options"`
		AllowCustom *bool       `json:"allowCustom"`
	}
	wire := marshal(t, ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}, {Label: "b"}}, MultiSelect: true})
	if err := json.Unmarshal(wire, &older); err != nil || older.Question != "q" || len(older.Options) != 2 {
		t.Errorf("json.Unmarshal(%s) into an older shape = %+v, %v, want the question and its options", wire, older, err)
	}
}

func TestAnswerJSON(t *testing.T) {
	tests := []struct {
		ans  ui.Answer
		wire string
	}{
		{ui.Answer{Text: "free"}, `{"answer":"free"}`},
		{ui.Option{Label: "Yes", Value: "y"}.Answer(), `{"answer":"y","option":{"label":"Yes","value":"y"}}`},
		{ui.Answer{}, `{"answer":""}`},
		{ui.Answer{Text: "A, b", Options: []ui.Option{{Label: "a", Value: "A"}, {Label: "b"}}}, `{"answer":"A, b","options":[{"label":"a","value":"A"},{"label":"b"}]}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.ans)
		if err != nil || string(b) != tt.wire {
			t.Errorf("json.Marshal(%s) = %s, %v, want %s", show(tt.ans), b, err, tt.wire)
		}
		var got ui.Answer
		if err := json.Unmarshal([]byte(tt.wire), &got); err != nil || !reflect.DeepEqual(got, tt.ans) {
			t.Errorf("json.Unmarshal(%s) = %s, %v, want %s", tt.wire, show(got), err, show(tt.ans))
		}
	}
	// Decoding replaces every field; an empty "options" array decodes as nil;
	// null leaves the answer unchanged; errors name Answer.
	got := ui.Answer{Text: "stale", Option: &ui.Option{Label: "stale"}}
	if err := json.Unmarshal([]byte(`{"answer":"x","options":[]}`), &got); err != nil || !reflect.DeepEqual(got, ui.Answer{Text: "x"}) {
		t.Errorf("json.Unmarshal = %s, %v, want {x} alone", show(got), err)
	}
	if err := json.Unmarshal([]byte(`null`), &got); err != nil || got.Text != "x" {
		t.Errorf("json.Unmarshal(null) = %s, %v, want the answer unchanged", show(got), err)
	}
	for _, bad := range []string{`{"answer":1}`, `[]`, `{"options":{}}`} {
		if err := json.Unmarshal([]byte(bad), &got); err == nil || !strings.Contains(err.Error(), "Answer") || strings.Contains(err.Error(), "wire") {
			t.Errorf("json.Unmarshal(%s) error = %v, want an error that names Answer", bad, err)
		}
	}
}

func TestOptionAnswer(t *testing.T) {
	o := ui.Option{Label: "Yes", Description: "d", Recommended: true}
	a := o.Answer()
	if a.Text != "Yes" || a.Option == nil || *a.Option != o {
		t.Fatalf("Answer() = %s, want {Yes %+v}", show(a), o)
	}
	a.Option.Label = "changed"
	if o.Label != "Yes" {
		t.Fatal("Answer().Option aliases the option, want a copy")
	}
	if got := (ui.Option{Label: "Yes", Value: "y"}).Answer().Text; got != "y" {
		t.Fatalf("Answer().Text = %q, want the value y", got)
	}
}

// Errors.

func TestErrors(t *testing.T) {
	cause := errors.New("eof")
	err := ui.NewError(ui.CodeAskCancelled, "input closed", cause)
	if got, want := err.Error(), "ASK_CANCELLED: input closed: eof"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	if got, want := ui.NewError(ui.CodeNoProvider, "none", nil).Error(), "NO_PROVIDER: none"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	if got, want := (&ui.HarnessError{Message: "bare"}).Error(), "bare"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	wrapped := fmt.Errorf("tool: %w", err)
	var he *ui.HarnessError
	if !errors.As(wrapped, &he) || he != &err.HarnessError {
		t.Fatalf("errors.As(%v, *HarnessError) = %v, want the embedded HarnessError", wrapped, he)
	}
	var uie *ui.UserInteractionError
	if !errors.As(wrapped, &uie) || uie != err {
		t.Fatalf("errors.As(%v, *UserInteractionError) = %v, want err", wrapped, uie)
	}
	if !errors.Is(wrapped, cause) {
		t.Fatalf("errors.Is(%v, cause) = false, want true", wrapped)
	}
	for _, v := range []any{he, err} {
		b, jerr := json.Marshal(v)
		want := `{"name":"UserInteractionError","code":"ASK_CANCELLED","message":"input closed"}`
		if jerr != nil || string(b) != want {
			t.Fatalf("json.Marshal(%T) = %s, %v, want %s", v, b, jerr, want)
		}
	}
}

func TestCodeOf(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{errors.New("plain"), ""},
		{ui.NewError(ui.CodeAskDeclined, "no", nil), ui.CodeAskDeclined},
		{fmt.Errorf("a: %w", fmt.Errorf("b: %w", ui.NewError(ui.CodeInvalidAnswer, "x", nil))), ui.CodeInvalidAnswer},
		{&ui.HarnessError{Code: "CUSTOM"}, "CUSTOM"},
		{errors.Join(errors.New("first"), ui.NewError(ui.CodeNoProvider, "x", nil)), ui.CodeNoProvider},
	}
	for _, tt := range tests {
		if got := ui.CodeOf(tt.err); got != tt.want {
			t.Errorf("CodeOf(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestErrorCodeValues(t *testing.T) {
	codes := map[string]string{
		ui.CodeNoProvider: "NO_PROVIDER", ui.CodeDuplicateProvider: "DUPLICATE_PROVIDER",
		ui.CodeInvalidProvider: "INVALID_PROVIDER", ui.CodeNoRegistry: "NO_REGISTRY",
		ui.CodeAskAborted: "ASK_ABORTED", ui.CodeInvalidRequest: "INVALID_REQUEST",
		ui.CodeInvalidAnswer: "INVALID_ANSWER", ui.CodeProviderFailed: "PROVIDER_FAILED",
		ui.CodeAskDeclined: "ASK_DECLINED", ui.CodeAskCancelled: "ASK_CANCELLED",
		ui.CodeInputRequired: "INPUT_REQUIRED",
	}
	if len(codes) != 11 {
		t.Fatalf("%d distinct codes, want 11", len(codes))
	}
	for got, want := range codes {
		if got != want {
			t.Errorf("code constant = %q, want %q", got, want)
		}
	}
}

// writerFunc is an io.Writer that calls itself.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestTerminalHonoursContext checks the terminal provider of the examples: a
// cancelled step returns at once although no input comes, and a line typed
// later answers the next question.
func TestTerminalHonoursContext(t *testing.T) {
	in, typing := io.Pipe()
	defer typing.Close()
	prompted := make(chan struct{}, 1)
	term := newTerminal(in, writerFunc(func(p []byte) (int, error) {
		if strings.HasPrefix(string(p), "> ") {
			prompted <- struct{}{}
		}
		return len(p), nil
	}))
	session := scope(t, term)

	ctx, cancel := context.WithCancel(session)
	done := askAsync(ctx, question)
	<-prompted
	cancel()
	err := <-done
	wantCode(t, "Ask()", err, ui.CodeAskAborted)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Ask() error = %v, want it to wrap context.Canceled", err)
	}

	go func() {
		<-prompted
		_, _ = typing.Write([]byte("later\n"))
	}()
	if ans, err := ui.Ask(session, question); err != nil || ans.Text != "later" {
		t.Fatalf("Ask() = %+v, %v, want the line typed later", ans, err)
	}
}

// TestTerminalReadError: a read error ends the input as ASK_CANCELLED with the
// error as cause, not as a silent end of input.
func TestTerminalReadError(t *testing.T) {
	errDisk := errors.New("read /dev/tty: input/output error")
	session := scope(t, newTerminal(iotest.ErrReader(errDisk), io.Discard))
	_, err := ui.Ask(session, question)
	wantCode(t, "Ask()", err, ui.CodeAskCancelled)
	if !errors.Is(err, errDisk) {
		t.Fatalf("Ask() error = %v, want it to wrap the read error", err)
	}
}

// TestTerminalParseLine checks the terminal example's reading of input lines,
// since UIs copy it: a typo must never become an answer.
func TestTerminalParseLine(t *testing.T) {
	opts := []ui.Option{{Label: "a", Recommended: true}, {Label: "b"}, {Label: "c", Recommended: true}}
	single := ui.Request{Question: "q", Options: opts[:2], DisallowCustom: true}
	custom := ui.Request{Question: "q", Options: opts[:2]}
	multi := ui.Request{Question: "q", Options: opts, MultiSelect: true, DisallowCustom: true}
	free := ui.Request{Question: "q"}
	tests := []struct {
		req  ui.Request
		line string
		want string // the answer's text after Ask, or "" when the line is refused
	}{
		{single, "2", "b"}, {single, " 1 ", "a"}, {single, "", "a"}, {single, "3", ""}, {single, "0", ""},
		{single, "1,2", ""}, {single, "b", ""}, {single, "-1", ""},
		{custom, "7", ""}, {custom, "later", "later"}, {custom, "", "a"},
		{multi, "3,1", "a, c"}, {multi, "", "a, c"}, {multi, "1, 2", "a, b"}, {multi, "1,1", ""}, {multi, "1,4", ""},
		{multi, "1,", ""}, {multi, "x", ""},
		{free, "42", "42"}, {free, "", ""}, {free, "  spaced  ", "spaced"},
	}
	for _, tt := range tests {
		ans, ok := parseLine(tt.req, tt.line)
		if !ok {
			if tt.want != "" {
				t.Errorf("parseLine(%q) refused, want %q", tt.line, tt.want)
			}
			continue
		}
		got, err := askAnswer(t, tt.req, ans)
		if err != nil || got.Text != tt.want {
			t.Errorf("parseLine(%q) then Ask() = %s, %v, want %q", tt.line, show(got), err, tt.want)
		}
	}
}
