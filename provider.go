package userinteraction

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
)

// Provider answers questions on behalf of the human: a UI surface implements it
// and becomes the active provider of a [Registry] with [Register].
//
// Ask is called on the asking tool's goroutine, once per question, and may be
// called concurrently for several questions. ctx carries the caller's values
// and is done when the caller gives up or when the registration is disposed;
// Ask should return soon after that, typically with ctx.Err(). On success it
// returns the human's choice as [Option.Answer] of an offered option, several
// choices (for a MultiSelect request) as [Pick], or their own text as
// Answer{Text: text}; [Registry.Ask] completes and checks the answer. When the human explicitly refuses it should return
// NewError([CodeAskDeclined], …) and when the UI dismissed the question
// NewError([CodeAskCancelled], …). Coded errors reach the caller unchanged;
// other errors become [CodeAskAborted] when ctx is done, else
// [CodeProviderFailed].
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
// answering, so that disposing it can abort them. One mutex is enough, as for
// the connections net/http's Server tracks for Shutdown: it is held for a map
// update, while the human behind every ask takes seconds.
type registration struct {
	registry *Registry
	provider Provider

	mu sync.Mutex // guards asks, lastAsk and disposed
	// asks maps each ask in flight, by its number, to the func that cancels
	// the context its provider was handed. Dispose drops the map, so no
	// finished ask stays referenced.
	asks     map[uint64]context.CancelCauseFunc
	lastAsk  uint64 // the number of the latest ask
	disposed bool
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
// call removes p and cancels the contexts of the asks p is still answering, so
// that a p which honours its context returns; those Ask calls return
// [CodeAskAborted], unless p still returns an answer, which Ask returns (the
// human's input is never lost). Later calls do nothing, and neither does a
// stale dispose after another provider has been registered. dispose may be
// called from any goroutine, including from within p.Ask, and never waits for p.
func (r *Registry) Register(p Provider) (dispose func(), err error) {
	if r == nil {
		return noop, NewError(CodeNoRegistry, "context has no registry; the host must call WithRegistry", nil)
	}
	if f, ok := p.(ProviderFunc); p == nil || ok && f == nil {
		return noop, NewError(CodeInvalidProvider, "provider is nil", nil)
	}
	g := &registration{registry: r, provider: p}
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
//     wrapping ctx.Err() and context.Cause(ctx). The provider is not called.
//  2. req.Validate fails: that [CodeInvalidRequest] error; the provider is not called.
//  3. No provider is active (or r is nil): [CodeNoProvider]. So it is when the
//     provider Ask found is disposed before Ask records the question on it;
//     once recorded, a disposal aborts the question as in step 5, even if the
//     provider has not been called yet. Ask never waits for a newer provider.
//  4. The provider is called on the caller's goroutine with a context that
//     carries ctx's values and is done when ctx is done or the registration is
//     disposed. No lock is held meanwhile, so providers may ask nested
//     questions, register and dispose.
//  5. An error from the provider that carries a code ([CodeOf] is not "") is
//     returned unchanged. Otherwise, when ctx is done by now, [CodeAskAborted]
//     wrapping ctx.Err() and context.Cause(ctx), so that errors.Is finds both;
//     when only the disposal ended the provider's context, [CodeAskAborted]
//     whose cause is the disposal (errors.Is(err, context.Canceled) is false).
//     Any other error, a typed nil included, becomes [CodeProviderFailed] with
//     that error as cause and its text, cut short, in the message.
//  6. The answer is completed and checked against req (see [Answer]); an answer
//     that breaks a rule is [CodeInvalidAnswer]. Options in the result are
//     copies, never pointers into req.Options.
//
// An answer is returned even when ctx was cancelled or the provider disposed
// while the provider was answering: the human's input is not lost. A panic in
// the provider propagates to the caller of Ask and leaves r consistent. Ask is
// safe for concurrent use.
//
// Every error that Ask creates is a *[UserInteractionError]; a coded error
// from the provider passes through as it is. So use [CodeOf], or errors.As
// with a *[HarnessError]: both work for every error out of Ask.
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
	g := r.registration()
	if g == nil {
		return Answer{}, noProvider()
	}
	askCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	n, ok := g.track(cancel)
	if !ok {
		return Answer{}, noProvider()
	}
	defer g.untrack(n)
	ans, err := g.provider.Ask(askCtx, req)
	if err != nil {
		return Answer{}, failure(ctx, askCtx, err)
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

// track records an ask in flight, whose provider context is cancelled by
// cancel, and returns its number; it reports false when g is already disposed.
func (g *registration) track(cancel context.CancelCauseFunc) (n uint64, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.disposed {
		return 0, false
	}
	if g.asks == nil {
		g.asks = make(map[uint64]context.CancelCauseFunc)
	}
	g.lastAsk++
	g.asks[g.lastAsk] = cancel
	return g.lastAsk, true
}

// untrack forgets the ask in flight numbered n.
func (g *registration) untrack(n uint64) {
	g.mu.Lock()
	delete(g.asks, n)
	g.mu.Unlock()
}

// dispose unregisters g, if it is still the active registration, and aborts
// the asks in flight on it. The cancel funcs run after g.mu is released: they
// never call a provider, but holding no lock keeps dispose deadlock-free.
func (g *registration) dispose() {
	g.registry.active.CompareAndSwap(g, nil)
	g.mu.Lock()
	asks := g.asks
	g.asks, g.disposed = nil, true
	g.mu.Unlock()
	for _, cancel := range asks {
		cancel(errDisposed)
	}
}

func noProvider() error {
	return NewError(CodeNoProvider, "no provider is registered to answer the question", nil)
}

// failure classifies err, returned by a provider that was handed askCtx, a
// context derived from the caller's ctx. Disposal is judged from these two
// contexts, so a nested ask whose caller's context was ended by another
// registration's disposal reports its caller's cancellation.
func failure(ctx, askCtx context.Context, err error) error {
	switch {
	case isNil(err):
		return providerFailed(err)
	case CodeOf(err) != "":
		return err
	case ctx.Err() != nil:
		return aborted(ctx, "ask aborted before the question was answered")
	case askCtx.Err() != nil:
		return NewError(CodeAskAborted, "ask aborted: the provider was disposed before the question was answered", context.Cause(askCtx))
	default:
		return providerFailed(err)
	}
}

// providerFailed returns the PROVIDER_FAILED error for err, an uncoded error
// from a provider. A typed nil is named, not kept: calling its methods could
// panic in the caller.
func providerFailed(err error) *UserInteractionError {
	if isNil(err) {
		return NewError(CodeProviderFailed, fmt.Sprintf("provider failed: it returned a nil %T as its error", err), nil)
	}
	return NewError(CodeProviderFailed, "provider failed: "+clip(err.Error()), err)
}

// isNil reports whether err is a typed nil: a nil pointer, map, slice, func
// or chan in a non-nil error interface.
func isNil(err error) bool {
	switch v := reflect.ValueOf(err); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		return v.IsNil()
	}
	return false
}

// aborted returns the ASK_ABORTED error for the done context ctx. It wraps
// ctx.Err() and, when the caller set a cause of its own, context.Cause(ctx)
// too, so that errors.Is finds both, also when the cause itself wraps
// context.Canceled or context.DeadlineExceeded.
func aborted(ctx context.Context, message string) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		err = fmt.Errorf("%w: %w", err, cause)
	}
	return NewError(CodeAskAborted, message, err)
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

// Replay is a [Provider] for hosts that cannot keep a tool call open while the
// human thinks: an MCP server on protocol 2026-07-28, whose tools must return
// their questions in the tool result (multi round-trip requests); a web
// backend whose human answers an hour later; an agent that must survive a
// restart with a question pending. The tool does not change: it still calls
// [Ask] and gets an answer or an error.
//
// The host runs the call with a new Replay as the provider of a [Registry]
// scoped to that call, and re-runs the call until nothing is pending:
//
//   - Ask answers a question from the record when the question's ID has an
//     outcome there: a recorded answer is returned (and [Registry.Ask] checks it
//     against the request as for any provider), a recorded error as that coded
//     error. Otherwise the question joins [Replay.Pending] and Ask returns
//     [CodeInputRequired].
//   - After the run, the host checks Pending, not the tool's result (a tool
//     that swallows INPUT_REQUIRED cannot fool it). When questions are pending,
//     the host asks the human out of band, for example as the inputRequests of
//     an MCP result, and keeps the record: json.Marshal of the *Replay.
//   - With the outcomes, the host starts the next run from a new Replay:
//     json.Unmarshal of the kept record, then [Replay.Record] of each new
//     outcome under its question's ID. One Replay serves one run of one call.
//
// A question's ID depends only on the request's JSON and on how many equal
// requests (equal JSON) the run asked before it, so it is the same in every
// run, in another process, on another machine and after a restart. Two
// different questions never share an ID, and the same question asked twice in
// one run gets two. IDs are 32 lower-case hex digits, safe as JSON object
// keys (MCP uses them as inputRequests keys) and in URLs and file names.
//
// The record's JSON is one object that maps IDs to outcomes: an answer as
// {"answer", "option"?, "options"?}, as [Answer] encodes, or an error as
// {"name", "code", "message"}, as [HarnessError] encodes. It is stable, so a
// host may keep it in MCP's requestState, a database row or a file. It is not
// authenticated: a host that hands it to an untrusted client (MCP's
// requestState goes through the client) must sign or encrypt it and reject
// state that fails the check, or the client can answer on the human's behalf.
//
// Replay only works for a call that is deterministic up to its questions: every
// run must reach the same questions (equal in every field, Agent included) in
// the same order, and the call must ask before it acts. Whatever the call does before an Ask happens again on every
// run, so it must not have side effects there; questions asked from several
// goroutines at once get their IDs in the order they arrive.
//
// The zero value is an empty record ready to use; its methods need a non-nil
// *Replay. A Replay is safe for concurrent use and must not be copied after
// first use.
type Replay struct {
	mu      sync.Mutex         // guards the fields below
	record  map[string]outcome // outcomes by question ID
	pending []Pending          // questions of this run without an outcome, in the order asked
	asked   map[string]int     // how many times this run asked each request, by its JSON
}

var _ Provider = (*Replay)(nil)

// Pending is a question that a run asked and that had no recorded outcome. The
// host asks the human and records the outcome under ID before the next run.
type Pending struct {
	ID      string  `json:"id"`
	Request Request `json:"request"`
}

// Ask answers req from the record, or records req as pending and returns
// [CodeInputRequired]; see [Replay]. An invalid req is [CodeInvalidRequest]
// and does not count as asked. ctx is not used: Ask never waits.
func (p *Replay) Ask(ctx context.Context, req Request) (Answer, error) {
	if err := req.Validate(); err != nil {
		return Answer{}, err
	}
	key, _ := json.Marshal(req) // a valid Request always encodes
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.asked == nil {
		p.asked = make(map[string]int)
	}
	n := p.asked[string(key)]
	p.asked[string(key)] = n + 1
	id := questionID(key, n)
	if o, ok := p.record[id]; ok {
		return o.result()
	}
	p.pending = append(p.pending, Pending{ID: id, Request: req.clone()})
	return Answer{}, NewError(CodeInputRequired, "input required: question "+id+" has no recorded answer; the host asks it and runs the call again", nil)
}

// questionID returns the ID of the ask number n (from 0) in a run of the
// request whose JSON is key: the first 16 bytes of a SHA-256, in hex. JSON
// holds no raw newline, so the hashed text, key and n after a newline, is
// different for every pair of key and n.
func questionID(key []byte, n int) string {
	h := sha256.New()
	h.Write(key)
	fmt.Fprintf(h, "\n%d", n)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Pending returns the questions this run asked that had no recorded outcome
// when asked, in the order asked; a later Record does not change it. The
// result is a copy: it shares no memory with p or with the requests asked.
func (p *Replay) Pending() []Pending {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Pending, len(p.pending))
	for i, q := range p.pending {
		out[i] = Pending{ID: q.ID, Request: q.Request.clone()}
	}
	return out
}

// Record records the outcome of the question id, as a live provider returns
// it: ans when err is nil, else err, which is kept as its {name, code, message}
// (an uncoded error as [CodeProviderFailed] with its text, cut short). It
// replaces an earlier outcome of id. id need not be pending: the record may
// come from an earlier run. Record only outcomes the human gave; a question
// whose asking failed on the host's side stays unrecorded and is asked again.
func (p *Replay) Record(id string, ans Answer, err error) {
	o := outcome{answer: ans.clone()}
	if err != nil {
		o = outcome{err: recorded(err)}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.record == nil {
		p.record = make(map[string]outcome)
	}
	p.record[id] = o
}

// MarshalJSON encodes the record, the recorded outcomes by ID, as described on
// [Replay]; the pending questions are not part of it.
func (p *Replay) MarshalJSON() ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.record == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(p.record)
}

// UnmarshalJSON replaces the record with the one data encodes; call it before
// the run's first Ask. An entry that is neither an answer nor an error is an
// error, and p is left unchanged. JSON null leaves p unchanged.
func (p *Replay) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(data, &entries); err != nil {
		return fmt.Errorf("userinteraction: Replay record: %w", err)
	}
	record := make(map[string]outcome, len(entries))
	for id, raw := range entries {
		var o outcome
		if err := json.Unmarshal(raw, &o); err != nil {
			return fmt.Errorf("userinteraction: Replay record entry %s: %w", quote(id), err)
		}
		record[id] = o
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.record = record
	return nil
}

// outcome is a recorded outcome: an answer, or the coded error in its place.
type outcome struct {
	answer Answer
	err    *HarnessError // nil for an answer; never with a cause
}

// recorded returns the {name, code, message} that stands for err in a record:
// its own when it carries a code, else the PROVIDER_FAILED that Registry.Ask
// would return for it.
func recorded(err error) *HarnessError {
	var he *HarnessError
	if isNil(err) || CodeOf(err) == "" {
		he = &providerFailed(err).HarnessError
	} else {
		errors.As(err, &he)
	}
	return &HarnessError{Name: he.Name, Code: he.Code, Message: he.Message}
}

// result returns the outcome as Replay.Ask returns it: a copy of the answer,
// or the error, a *UserInteractionError when it is named so.
func (o outcome) result() (Answer, error) {
	switch {
	case o.err == nil:
		return o.answer.clone(), nil
	case o.err.Name == errorName:
		return Answer{}, NewError(o.err.Code, o.err.Message, nil)
	default:
		he := *o.err
		return Answer{}, &he
	}
}

func (o outcome) MarshalJSON() ([]byte, error) {
	if o.err != nil {
		return json.Marshal(o.err)
	}
	return json.Marshal(o.answer)
}

func (o *outcome) UnmarshalJSON(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return fmt.Errorf("an outcome is a JSON object, not %s", clip(string(data)))
	}
	_, isAnswer := fields["answer"]
	_, isError := fields["code"]
	switch {
	case isAnswer && !isError:
		*o = outcome{}
		return json.Unmarshal(data, &o.answer)
	case isError && !isAnswer:
		*o = outcome{err: new(HarnessError)}
		return json.Unmarshal(data, o.err)
	default:
		return errors.New(`an outcome has either an "answer" or a "code"`)
	}
}
