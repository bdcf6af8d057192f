package userinteraction

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Provider answers questions on behalf of the human: a UI surface implements it
// and becomes the active provider of a [Registry] with [Register].
//
// Ask is called on the asking tool's goroutine, once per question, and may be
// called concurrently for several questions. ctx carries the caller's values
// and is done when the caller gives up or when the registration is disposed;
// Ask must return soon after that, typically with ctx.Err(). On success it
// returns the human's choice as [Option.Answer] of an offered option, or their
// own text as Answer{Text: text}; [Registry.Ask] completes and checks the
// answer. When the human explicitly refuses it should return
// NewError([CodeAskDeclined], …) and when the UI dismissed the question
// NewError([CodeAskCancelled], …); coded errors reach the caller unchanged,
// other errors become [CodeProviderFailed].
type Provider interface {
	Ask(ctx context.Context, req Request) (Answer, error)
}

// ProviderFunc is an adapter to allow the use of ordinary functions as
// providers. If f is a function with the appropriate signature,
// ProviderFunc(f) is a [Provider] that calls f. A nil ProviderFunc is rejected
// by [Registry.Register] with [CodeInvalidProvider].
type ProviderFunc func(ctx context.Context, req Request) (Answer, error)

// Ask calls f(ctx, req).
func (f ProviderFunc) Ask(ctx context.Context, req Request) (Answer, error) {
	return f(ctx, req)
}

var _ Provider = ProviderFunc(nil)

// Registry holds the single active [Provider] of one scope, typically one
// agent session; a host puts it in the session's context with [WithRegistry].
//
// The zero value is an empty registry ready to use. A nil *Registry is valid
// too: it never has a provider, so Ask returns [CodeNoProvider] and Register
// returns [CodeNoRegistry]. A Registry is safe for concurrent use and must not
// be copied after first use.
type Registry struct {
	// active is the registration of the active provider, or nil. Atomic so that
	// Ask finds the provider without a registry-wide lock.
	active atomic.Pointer[registration]
}

// registration is one successful Register: a provider and the asks it is
// answering, so that disposing it can abort them.
type registration struct {
	registry *Registry
	provider Provider
	// stripes record the asks in flight, spread over several locks so that
	// concurrent asks rarely touch the same one; dispose visits them all.
	// With a single lock, or with a stripe picked at random for every ask,
	// parallel asks were slower than serial ones: the lock's cache line
	// travelled between processors on every ask.
	stripes []stripe
	// recent keeps, per processor, the stripe that processor used last (a
	// sync.Pool's per-processor cache is the processor affinity the standard
	// library offers), so that a processor keeps to one stripe; next hands out
	// stripes in turn when it has none. The runtime drops the pool's contents
	// at garbage collections, which only costs a processor its stripe.
	recent sync.Pool
	next   atomic.Uint32
}

// stripe is one lock's share of a registration's asks in flight. It is 64
// bytes, a common cache line size, so that stripes locked on different
// processors rarely share a line.
type stripe struct {
	mu sync.Mutex // guards cancels, free and disposed
	// cancels holds, at the slot each ask was given, the func that cancels the
	// context its provider was handed; free lists the empty slots for reuse.
	// A slot is cleared when its ask returns, and the table is dropped on
	// dispose, so no finished ask stays referenced.
	cancels  []context.CancelCauseFunc
	free     []int
	disposed bool
}

// maxStripes bounds the memory of a registration on large machines.
const maxStripes = 64

// newRegistration returns a registration of p in r with two stripes per
// processor: enough that two concurrent asks rarely pick the same one.
func newRegistration(r *Registry, p Provider) *registration {
	n := min(2*runtime.GOMAXPROCS(0), maxStripes)
	return &registration{registry: r, provider: p, stripes: make([]stripe, n)}
}

// errDisposed is the cause of the context handed to a provider whose
// registration was disposed while it was answering.
var errDisposed = errors.New("provider disposed")

// Register makes p the active provider of r and returns the func that
// unregisters it.
//
// Register fails, leaving r as it was, with [CodeNoRegistry] when r is nil,
// [CodeInvalidProvider] when p is nil (or a nil [ProviderFunc]), and
// [CodeDuplicateProvider] when another provider is active: a UI must dispose
// its predecessor first.
//
// dispose is never nil; after a failed Register it does nothing. The first
// call removes p and aborts the asks p is still answering: the contexts they
// handed p are cancelled and those Ask calls return [CodeAskAborted] once p
// returns. Later calls do nothing, and neither does a stale dispose after
// another provider has been registered. dispose may be called from any
// goroutine, including from within p.Ask, and never waits for p.
func (r *Registry) Register(p Provider) (dispose func(), err error) {
	if r == nil {
		return noop, NewError(CodeNoRegistry, "context has no registry; the host must call WithRegistry", nil)
	}
	if f, ok := p.(ProviderFunc); p == nil || ok && f == nil {
		return noop, NewError(CodeInvalidProvider, "provider is nil", nil)
	}
	g := newRegistration(r, p)
	if !r.active.CompareAndSwap(nil, g) {
		return noop, NewError(CodeDuplicateProvider, "another provider is already registered", nil)
	}
	return g.dispose, nil
}

func noop() {}

// Provider returns the active provider of r, or nil when there is none or r
// is nil.
func (r *Registry) Provider() Provider {
	if g := r.registration(); g != nil {
		return g.provider
	}
	return nil
}

// Ask asks the active provider of r the question req and waits for the answer.
// It checks, in this order:
//
//  1. ctx is nil: [CodeInvalidRequest]. ctx is already done: [CodeAskAborted]
//     wrapping context.Cause(ctx). The provider is not called.
//  2. req.Validate fails: that [CodeInvalidRequest] error; the provider is not called.
//  3. No provider is active (or r is nil): [CodeNoProvider].
//  4. The provider is called on the caller's goroutine with a context that
//     carries ctx's values and is done when ctx is done or the registration is
//     disposed. No lock is held meanwhile, so providers may ask nested questions.
//  5. The provider's error is returned unchanged when it carries a code
//     ([CodeOf] is not ""). Otherwise, when that context is done, Ask returns
//     [CodeAskAborted]: for ctx, errors.Is(err, context.Canceled) or
//     errors.Is(err, context.DeadlineExceeded) holds and a custom cause is
//     wrapped too; for disposal, neither holds. Any other error becomes
//     [CodeProviderFailed] wrapping it.
//  6. The answer is completed and checked: an Option that was not offered
//     (compared by Label) is [CodeInvalidAnswer]; a set Option fills an empty
//     Text with its Value or Label; a Text equal to an offered option's Value
//     (or Label when it has no Value) fills a nil Option with a copy of the
//     first such option. A Text that is empty or only white space is
//     [CodeInvalidAnswer], and so, when ![Request.CustomAllowed], is a Text
//     that is no offered option's Value (or Label when it has no Value).
//
// An answer is returned even when ctx was cancelled while the provider was
// answering: the human's input is not lost. A panic in the provider propagates
// to the caller of Ask and leaves r consistent. Ask is safe for concurrent use.
func (r *Registry) Ask(ctx context.Context, req Request) (Answer, error) {
	if ctx == nil {
		return Answer{}, NewError(CodeInvalidRequest, "invalid request: context is nil", nil)
	}
	if ctx.Err() != nil {
		return Answer{}, aborted(ctx, "ask aborted before the question was asked")
	}
	if err := req.Validate(); err != nil {
		return Answer{}, err
	}
	askCtx, cancel := context.WithCancelCause(ctx)
	g, s, slot := r.track(cancel)
	if g == nil {
		cancel(nil)
		return Answer{}, noProvider()
	}
	defer s.done(slot, cancel)
	ans, err := g.provider.Ask(askCtx, req)
	if err != nil {
		return Answer{}, providerError(askCtx, err)
	}
	return resolve(req, ans)
}

// registration returns the active registration, or nil; r may be nil.
func (r *Registry) registration() *registration {
	if r == nil {
		return nil
	}
	return r.active.Load()
}

// track records an ask in flight, cancelled by cancel, on the active
// registration and returns that registration, the stripe and the slot the
// ask was given, or a nil registration when no provider is active (or r is
// nil).
func (r *Registry) track(cancel context.CancelCauseFunc) (*registration, *stripe, int) {
	for {
		g := r.registration()
		if g == nil {
			return nil, nil, -1
		}
		if s, slot, ok := g.add(cancel); ok {
			return g, s, slot
		}
		// g was disposed after Load: it is no longer active, and a newer
		// provider may be, so look again rather than fail a question that
		// never reached g.
	}
}

// add records an ask in flight on the stripe of the current processor: the
// one it used last, or else the next in turn. It returns the stripe and the
// ask's slot there, and reports false when g is already disposed.
func (g *registration) add(cancel context.CancelCauseFunc) (s *stripe, slot int, ok bool) {
	s, _ = g.recent.Get().(*stripe)
	if s == nil {
		s = &g.stripes[g.next.Add(1)%uint32(len(g.stripes))]
	}
	slot, ok = s.add(cancel)
	g.recent.Put(s)
	return s, slot, ok
}

// add records an ask in flight and returns its slot; it reports false when
// the registration is already disposed.
func (s *stripe) add(cancel context.CancelCauseFunc) (slot int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.disposed {
		return -1, false
	}
	if n := len(s.free); n > 0 {
		slot, s.free = s.free[n-1], s.free[:n-1]
		s.cancels[slot] = cancel
		return slot, true
	}
	s.cancels = append(s.cancels, cancel)
	return len(s.cancels) - 1, true
}

// done forgets the ask in flight at slot and releases its context.
func (s *stripe) done(slot int, cancel context.CancelCauseFunc) {
	s.mu.Lock()
	if !s.disposed {
		s.cancels[slot] = nil
		s.free = append(s.free, slot)
	}
	s.mu.Unlock()
	cancel(nil)
}

// dispose unregisters g, if it is still the active registration, and aborts
// the asks in flight on it.
func (g *registration) dispose() {
	g.registry.active.CompareAndSwap(g, nil)
	for i := range g.stripes {
		g.stripes[i].dispose()
	}
}

// dispose marks s disposed and aborts its asks. The cancel funcs run after
// s.mu is released: they never call a provider, but holding no lock keeps
// dispose trivially deadlock-free.
func (s *stripe) dispose() {
	s.mu.Lock()
	cancels := s.cancels
	s.cancels, s.free, s.disposed = nil, nil, true
	s.mu.Unlock()
	for _, cancel := range cancels {
		if cancel != nil {
			cancel(errDisposed)
		}
	}
}

func noProvider() error {
	return NewError(CodeNoProvider, "no provider is registered to answer the question", nil)
}

// providerError classifies an error returned by a provider that was handed ctx.
func providerError(ctx context.Context, err error) error {
	switch {
	case CodeOf(err) != "":
		return err
	case ctx.Err() != nil:
		return aborted(ctx, "ask aborted before the question was answered")
	default:
		return NewError(CodeProviderFailed, "provider failed", err)
	}
}

// aborted returns the ASK_ABORTED error for the done context ctx. Its cause is
// the disposal, or ctx.Err() together with context.Cause(ctx) when the caller
// set a cause of its own, so that errors.Is finds both.
func aborted(ctx context.Context, message string) error {
	err, cause := ctx.Err(), context.Cause(ctx)
	switch {
	case cause == errDisposed:
		return NewError(CodeAskAborted, "ask aborted: the provider was disposed before the question was answered", cause)
	case cause != nil && !errors.Is(cause, err):
		err = fmt.Errorf("%w: %w", err, cause)
	}
	return NewError(CodeAskAborted, message, err)
}

// resolve completes the provider's answer ans to req and checks it.
func resolve(req Request, ans Answer) (Answer, error) {
	if ans.Option != nil {
		o := findLabel(req.Options, ans.Option.Label)
		if o == nil {
			return Answer{}, invalidAnswer(fmt.Sprintf("answer picks option %q, which was not offered", ans.Option.Label))
		}
		if *ans.Option != *o {
			c := *o
			ans.Option = &c
		}
		if ans.Text == "" {
			ans.Text = o.text()
		}
	}
	match := findText(req.Options, ans.Text)
	if ans.Option == nil && match != nil {
		c := *match
		ans.Option = &c
	}
	if blank(ans.Text) {
		return Answer{}, invalidAnswer("answer is empty")
	}
	if match == nil && !req.CustomAllowed() {
		return Answer{}, invalidAnswer(fmt.Sprintf("answer %q is not one of the offered options", ans.Text))
	}
	return ans, nil
}

// findLabel returns the option labelled label, or nil.
func findLabel(opts []Option, label string) *Option {
	for i := range opts {
		if opts[i].Label == label {
			return &opts[i]
		}
	}
	return nil
}

// findText returns the first option whose Value, or Label when it has no
// Value, is text, or nil.
func findText(opts []Option, text string) *Option {
	for i := range opts {
		if opts[i].text() == text {
			return &opts[i]
		}
	}
	return nil
}

func invalidAnswer(message string) error {
	return NewError(CodeInvalidAnswer, "invalid answer: "+message, nil)
}

// registryKey is the context key of the Registry; unexported so that only
// WithRegistry and FromContext reach it.
type registryKey struct{}

// WithRegistry returns a copy of ctx that carries r, the scope that
// [Register] and [Ask] use. A nil r hides any registry that ctx carries, so
// Register returns [CodeNoRegistry] and Ask [CodeNoProvider]. A nil ctx is
// taken as context.Background().
func WithRegistry(ctx context.Context, r *Registry) context.Context {
	if ctx == nil {
		ctx = context.Background()
	}
	return context.WithValue(ctx, registryKey{}, r)
}

// FromContext returns the Registry that ctx carries, or nil when it carries
// none or ctx is nil.
func FromContext(ctx context.Context) *Registry {
	if ctx == nil {
		return nil
	}
	r, _ := ctx.Value(registryKey{}).(*Registry)
	return r
}

// Register is FromContext(ctx).Register(p): it makes p the active provider
// of the registry that ctx carries, or returns [CodeNoRegistry] when ctx
// carries none.
func Register(ctx context.Context, p Provider) (dispose func(), err error) {
	return FromContext(ctx).Register(p)
}

// Ask is FromContext(ctx).Ask(ctx, req): it asks the active provider of the
// registry that ctx carries and returns [CodeNoProvider] when there is none.
// See [Registry.Ask] for the full semantics.
func Ask(ctx context.Context, req Request) (Answer, error) {
	return FromContext(ctx).Ask(ctx, req)
}
