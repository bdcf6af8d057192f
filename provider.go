package userinteraction

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Provider answers questions on behalf of the human: a UI surface implements it
// and becomes the active provider of a [Registry] with [Register].
//
// Ask may be called concurrently, once per question, on the asking tool's
// goroutine. ctx carries the caller's values and is done when the caller gives
// up or the registration is disposed; Ask should then return soon, typically
// with ctx.Err(). It returns [Option.Answer] of the option the human picked,
// [Pick] of several (for a MultiSelect request) or Answer{Text: typed} for
// their own words, and [Registry.Ask] completes and checks it. A human who
// refuses to answer is NewError([CodeAskDeclined], ...), a dismissed question
// NewError([CodeAskCancelled], ...). Ask must not modify req or its options,
// which belong to the caller, as an http.Handler must not modify its Request.
type Provider interface {
	Ask(ctx context.Context, req Request) (Answer, error)
}

// BatchProvider is implemented by a provider that can show several questions
// at once: one dialog, one form, one round trip. It is optional, as
// io.WriterTo is for an io.Writer; [Registry.AskAll] uses it when the active
// provider has it.
//
// AskAll answers reqs, in order, under the same rules as Ask: it returns one
// answer per request, or the answers of the questions answered before the
// one that failed and that question's error. It must not keep or modify reqs.
type BatchProvider interface {
	Provider
	AskAll(ctx context.Context, reqs []Request) ([]Answer, error)
}

// ProviderFunc is an adapter to allow the use of ordinary functions as
// providers. If f is a function with the appropriate signature,
// ProviderFunc(f) is a [Provider] that calls f.
type ProviderFunc func(ctx context.Context, req Request) (Answer, error)

// Ask calls f(ctx, req).
func (f ProviderFunc) Ask(ctx context.Context, req Request) (Answer, error) {
	return f(ctx, req)
}

var _ Provider = ProviderFunc(nil)

// Registry holds the single active [Provider] of one scope, typically one
// agent session; a host puts it in the session's context with [WithRegistry].
//
// The zero value is an empty registry ready to use. A nil *Registry never has
// a provider: Ask returns [CodeNoProvider] and Register [CodeNoRegistry]. A
// Registry is safe for concurrent use and must not be copied after first use.
type Registry struct {
	// active is the registration of the active provider, or nil. Atomic so
	// that Ask finds the provider without a registry-wide lock.
	active atomic.Pointer[registration]
}

// registration is one successful Register: a provider and the asks it is
// answering, so that disposing it can abort them. One mutex is enough, as
// for the connections net/http's Server tracks for Shutdown: it is held for
// a map update, while the human behind every ask takes seconds.
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
// unregisters it. It fails, leaving r as it was, with [CodeNoRegistry] when r
// is nil, [CodeInvalidProvider] when p is nil (a nil ProviderFunc, *Replay or
// *Terminal too), and [CodeDuplicateProvider] when another provider is active.
//
// dispose is never nil; after a failed Register it does nothing. Its first
// call removes p and cancels the contexts of the asks p is answering, which
// then return [CodeAskAborted] unless p still answers (the answer is kept);
// p is not called again. Later calls, and a stale dispose after another
// Register, do nothing. dispose may be called from any goroutine, p.Ask
// included, and never waits for p.
func (r *Registry) Register(p Provider) (dispose func(), err error) {
	if r == nil {
		return noop, NewError(CodeNoRegistry, "context has no registry; the host must call WithRegistry", nil)
	}
	if isNilProvider(p) {
		return noop, NewError(CodeInvalidProvider, "provider is nil", nil)
	}
	reg := &registration{registry: r, provider: p}
	if !r.active.CompareAndSwap(nil, reg) {
		return noop, NewError(CodeDuplicateProvider, "another provider is already registered", nil)
	}
	return reg.dispose, nil
}

func noop() {}

// isNilProvider reports whether p is nil or a nil value of a provider type of
// this package, whose methods would panic. Other typed nils are accepted, as
// their methods may work on a nil receiver.
func isNilProvider(p Provider) bool {
	switch p := p.(type) {
	case nil:
		return true
	case ProviderFunc:
		return p == nil
	case *Replay:
		return p == nil
	case *Terminal:
		return p == nil
	}
	return false
}

// Provider returns the active provider of r, or nil when there is none or r
// is nil.
func (r *Registry) Provider() Provider {
	if reg := r.registration(); reg != nil {
		return reg.provider
	}
	return nil
}

// Ask asks the active provider of r the question req and waits for the
// answer. It is safe for concurrent use, and checks in this order:
//
//  1. ctx is nil: [CodeInvalidRequest]; ctx is done: [CodeAskAborted].
//  2. req.Validate fails: that [CodeInvalidRequest].
//  3. No provider is active: [CodeNoProvider].
//  4. The provider is called on the caller's goroutine, holding no lock, with
//     a context that carries ctx's values and is done when ctx is done or the
//     registration is disposed. It is not called once that context is done.
//  5. A provider's error with a code ([CodeOf] is not "") is returned as it
//     is, except an [CodeAskAborted] while ctx is live: that is this ask's
//     disposal. A context that ended is [CodeAskAborted]: when ctx ended, it
//     wraps ctx.Err() and context.Cause(ctx); when the disposal did,
//     errors.Is(err, context.Canceled) is false. Any other error is
//     [CodeProviderFailed], with that error as its cause.
//  6. The answer is completed and checked against req as [Answer] says;
//     [CodeInvalidAnswer] when it breaks a rule.
//
// An answer is returned even when ctx ended or the provider was disposed
// meanwhile: the human's input is never lost. A panic in the provider
// propagates to the caller and leaves r consistent.
func (r *Registry) Ask(ctx context.Context, req Request) (Answer, error) {
	if err := usable(ctx); err != nil {
		return Answer{}, err
	}
	if err := req.Validate(); err != nil {
		return Answer{}, err
	}
	a, err := r.start(ctx)
	if err != nil {
		return Answer{}, err
	}
	defer a.end()
	// The provider is never called once its context is done. dispose cancels
	// a.ctx under that context's lock, so a dispose that has returned is seen
	// here; one that comes later aborts a question being asked, as any other.
	if err := a.ended("asked"); err != nil {
		return Answer{}, err
	}
	ans, err := a.reg.provider.Ask(a.ctx, req)
	if err != nil {
		return Answer{}, a.failure(err)
	}
	return resolve(req, ans)
}

// usable returns the error for a caller's ctx that Ask cannot ask with: nil,
// or already done.
func usable(ctx context.Context) error {
	if ctx == nil {
		return NewError(CodeInvalidRequest, "invalid request: context is nil", nil)
	}
	if ctx.Err() != nil {
		return aborted(ctx, "asked")
	}
	return nil
}

// registration returns the active registration, or nil; r may be nil.
func (r *Registry) registration() *registration {
	if r == nil {
		return nil
	}
	return r.active.Load()
}

// An ask is one Ask or AskAll call recorded on the registration whose
// provider answers it.
type ask struct {
	reg    *registration
	n      uint64                  // its number in reg.asks
	caller context.Context         // the caller's ctx
	ctx    context.Context         // handed to the provider
	cancel context.CancelCauseFunc // cancels ctx
}

// start records an ask of the caller's ctx on the active registration, or
// returns NO_PROVIDER. A registration that is disposed before the ask is
// recorded refuses it: Ask never waits for, or retries with, a newer one.
func (r *Registry) start(ctx context.Context) (ask, error) {
	reg := r.registration()
	if reg == nil {
		return ask{}, noProvider()
	}
	actx, cancel := context.WithCancelCause(ctx)
	n, ok := reg.track(cancel)
	if !ok {
		cancel(nil)
		return ask{}, noProvider()
	}
	return ask{reg: reg, n: n, caller: ctx, ctx: actx, cancel: cancel}, nil
}

// end forgets the finished ask and releases its context.
func (a ask) end() {
	a.reg.untrack(a.n)
	a.cancel(nil)
}

// ended returns the ASK_ABORTED error when the provider's context of a is
// done, or nil; stage says what had happened to the question ("asked" or
// "answered"). Disposal is judged from a's own two contexts: a's context is
// done while the caller's is live only when a's registration was disposed.
func (a ask) ended(stage string) error {
	switch {
	case a.caller.Err() != nil:
		return aborted(a.caller, stage)
	case a.ctx.Err() != nil:
		return NewError(CodeAskAborted, "ask aborted: the provider was disposed before the question was "+stage, context.Cause(a.ctx))
	}
	return nil
}

// failure maps err, returned by the provider of a, to the error Ask returns.
func (a ask) failure(err error) error {
	if isNil(err) {
		return providerFailed(err)
	}
	switch code := CodeOf(err); {
	case code == CodeAskAborted && a.caller.Err() == nil && a.ctx.Err() != nil:
		// A nested ask that took this ask's disposal for its caller's
		// cancellation: this ask knows the cause.
		return a.ended("answered")
	case code != "":
		return err // the human's outcome, or another plugin family's
	}
	if err := a.ended("answered"); err != nil {
		return err
	}
	return providerFailed(err)
}

// track records an ask in flight, whose provider context is cancelled by
// cancel, and returns its number; it reports false when reg is disposed.
func (reg *registration) track(cancel context.CancelCauseFunc) (n uint64, ok bool) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.disposed {
		return 0, false
	}
	if reg.asks == nil {
		reg.asks = make(map[uint64]context.CancelCauseFunc)
	}
	reg.lastAsk++
	reg.asks[reg.lastAsk] = cancel
	return reg.lastAsk, true
}

// untrack forgets the ask in flight numbered n.
func (reg *registration) untrack(n uint64) {
	reg.mu.Lock()
	delete(reg.asks, n)
	reg.mu.Unlock()
}

// dispose unregisters reg, if it is still the active registration, and aborts
// the asks in flight on it. The cancel funcs run after reg.mu is released:
// they never call a provider, but holding no lock keeps dispose deadlock-free.
func (reg *registration) dispose() {
	reg.registry.active.CompareAndSwap(reg, nil)
	reg.mu.Lock()
	asks := reg.asks
	reg.asks, reg.disposed = nil, true
	reg.mu.Unlock()
	for _, cancel := range asks {
		cancel(errDisposed)
	}
}

func noProvider() error {
	return NewError(CodeNoProvider, "no provider is registered to answer the question", nil)
}

// providerFailed returns the PROVIDER_FAILED error for err, an uncoded error
// from a provider. A typed nil is named, not kept: calling its methods could
// panic in the caller.
func providerFailed(err error) *UserInteractionError {
	if isNil(err) {
		return NewError(CodeProviderFailed, fmt.Sprintf("provider failed: it returned a nil %T as its error", err), nil)
	}
	return NewError(CodeProviderFailed, "provider failed: "+clip(err.Error(), maxProviderText), err)
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

// aborted returns the ASK_ABORTED error for the done caller's context ctx,
// before the question was stage ("asked" or "answered"). It wraps ctx.Err()
// and, when the caller set a cause of its own, context.Cause(ctx) too, so
// that errors.Is finds both, also when the cause itself wraps
// context.Canceled or context.DeadlineExceeded.
func aborted(ctx context.Context, stage string) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		err = fmt.Errorf("%w: %w", err, cause)
	}
	return NewError(CodeAskAborted, "ask aborted before the question was "+stage, err)
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
	if isNull(data) {
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
		return fmt.Errorf("an outcome is a JSON object, not %s", clip(string(data), maxQuoted))
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

// Terminal is a [Provider] that asks on a text terminal, or on any reader and
// writer: a TTY, a pipe, a test. It writes the header, the question, the
// options numbered from 1 (each with its description and a "(recommended)"
// mark) and a line saying what it accepts, then reads the human's reply,
// one line, trimmed:
//
//   - a number picks that option, and for a MultiSelect request several
//     numbers separated by commas or spaces ("1,3", "1 3") pick several;
//     with options, a line of only digits, commas and spaces is always
//     read as numbers;
//   - an option's label, in any case, picks that option;
//   - an empty line picks the recommended option (or options), if any;
//   - any other text is the human's own answer, when [Request.CustomAllowed].
//
// Anything else (a number that is no option or is given twice, text where
// custom answers are not allowed, a line over 1 MiB) is refused with a line
// that says why, and the question is asked again. End of input, also in the
// middle of a line, is [CodeAskCancelled], and so is a read error, with that
// error as cause; a write error ends the ask with that error.
//
// A Terminal reads only while a question waits, so answers piped in answer
// the questions in order. When ctx is done, Ask returns ctx.Err() at once;
// a read in flight then answers the next question, whose output starts on a
// fresh line. A Terminal installs no signal handler: a host that wants
// Ctrl-C to cancel the question runs the tool step under
// signal.NotifyContext. It is safe for concurrent use: asks take turns,
// each waiting under its own ctx. Make one with [NewTerminal].
type Terminal struct {
	in   *bufio.Reader
	out  io.Writer
	turn chan struct{} // holds a token while a question or a batch is asked

	// Guarded by turn:
	read    chan line // the read in flight, or nil
	midLine bool      // the last output is a prompt that no line answered
}

var _ BatchProvider = (*Terminal)(nil)

// line is a line read from a Terminal's input, or why there is none.
type line struct {
	text    string
	tooLong bool
	err     error // ASK_CANCELLED at the end of the input or on a read error
}

// maxLine is the longest line, in bytes, that a Terminal reads.
const maxLine = 1 << 20

// NewTerminal returns a Terminal that reads the human's replies from in, through
// a buffer of its own (in is for this Terminal only), and writes to out. A nil
// in is an input that has ended, a nil out discards what is written.
func NewTerminal(in io.Reader, out io.Writer) *Terminal {
	if in == nil {
		in = strings.NewReader("")
	}
	if out == nil {
		out = io.Discard
	}
	return &Terminal{in: bufio.NewReader(in), out: out, turn: make(chan struct{}, 1)}
}

// Ask asks req on the terminal and returns the human's reply; see
// [Terminal].
func (t *Terminal) Ask(ctx context.Context, req Request) (Answer, error) {
	if err := t.take(ctx); err != nil {
		return Answer{}, err
	}
	defer t.give()
	return t.ask(ctx, req, "")
}

// AskAll asks reqs one after another, each headed with its place ("Question
// 2 of 3"), with no other question in between, and returns the answers up to
// the first error; see [BatchProvider].
func (t *Terminal) AskAll(ctx context.Context, reqs []Request) ([]Answer, error) {
	if err := t.take(ctx); err != nil {
		return nil, err
	}
	defer t.give()
	answers := make([]Answer, 0, len(reqs))
	for i, req := range reqs {
		ans, err := t.ask(ctx, req, fmt.Sprintf("Question %d of %d\n", i+1, len(reqs)))
		if err != nil {
			return answers, err
		}
		answers = append(answers, ans)
	}
	return answers, nil
}

// take waits for the terminal's turn, or for ctx.
func (t *Terminal) take(ctx context.Context) error {
	if t.turn == nil {
		return errors.New("userinteraction: the Terminal was not made by NewTerminal")
	}
	select {
	case t.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// give ends the turn that take began.
func (t *Terminal) give() { <-t.turn }

// ask shows req, headed by place, and reads replies until one answers it.
func (t *Terminal) ask(ctx context.Context, req Request, place string) (Answer, error) {
	if err := ctx.Err(); err != nil {
		return Answer{}, err
	}
	if err := t.write(place + render(req) + prompt(req)); err != nil {
		return Answer{}, err
	}
	for {
		l, err := t.readLine(ctx)
		if err != nil {
			return Answer{}, err
		}
		ans, refusal := reply(req, l)
		if refusal == "" {
			return ans, nil
		}
		if err := t.write(refusal + "\n" + prompt(req)); err != nil {
			return Answer{}, err
		}
	}
}

// write writes s, first ending a line left open by a prompt that no line
// answered. A prompt ends with "> " and leaves the line open.
func (t *Terminal) write(s string) error {
	if t.midLine {
		s = "\n" + s
	}
	_, err := io.WriteString(t.out, s)
	t.midLine = strings.HasSuffix(s, "> ")
	return err
}

// readLine returns the next line of input, reading it on a goroutine of its
// own so that ctx can end the wait; a read that ctx interrupts stays in
// flight for the next question.
func (t *Terminal) readLine(ctx context.Context) (line, error) {
	if t.read == nil {
		read := make(chan line, 1)
		go func() { read <- t.next() }()
		t.read = read
	}
	select {
	case l := <-t.read:
		t.read, t.midLine = nil, false
		return l, l.err
	case <-ctx.Done():
		return line{}, ctx.Err()
	}
}

// next reads the next line of input, without its "\n" or "\r\n", trimmed. It
// keeps at most maxLine bytes of a line and skips the rest.
func (t *Terminal) next() line {
	var buf []byte
	tooLong := false
	for {
		chunk, err := t.in.ReadSlice('\n')
		if !tooLong && len(buf)+len(chunk) <= maxLine {
			buf = append(buf, chunk...)
		} else {
			buf, tooLong = nil, true
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == nil:
			return line{text: strings.TrimSpace(string(buf)), tooLong: tooLong}
		case err == io.EOF && len(buf) == 0 && !tooLong:
			return line{err: NewError(CodeAskCancelled, "the terminal's input ended", nil)}
		case err == io.EOF:
			return line{err: NewError(CodeAskCancelled, "the terminal's input ended in the middle of a line", nil)}
		default:
			return line{err: NewError(CodeAskCancelled, "the terminal's input failed", err)}
		}
	}
}

// render returns req as the terminal writes it, before the prompt.
func render(req Request) string {
	var b strings.Builder
	if req.Header != "" {
		b.WriteString(req.Header + "\n")
	}
	b.WriteString(req.Question + "\n")
	for i, o := range req.Options {
		fmt.Fprintf(&b, "  %d. %s", i+1, o.Label)
		if o.Recommended {
			b.WriteString(" (recommended)")
		}
		if o.Description != "" {
			b.WriteString(" - " + o.Description)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// prompt returns the line that says what the terminal accepts for req, and
// the prompt "> ".
func prompt(req Request) string {
	n := len(req.Options)
	if n == 0 {
		return "Type your answer.\n> "
	}
	numbers := "1"
	if n > 1 {
		numbers = fmt.Sprintf("1-%d", n)
	}
	var ways []string
	switch {
	case req.MultiSelect && n > 1:
		ways = append(ways, fmt.Sprintf("one or more of %s, such as 1,%d", numbers, n))
	default:
		ways = append(ways, numbers)
	}
	var recommended []string
	for _, o := range req.Options {
		if o.Recommended {
			recommended = append(recommended, o.Label)
		}
	}
	if len(recommended) > 0 {
		ways = append(ways, "Enter for "+strings.Join(recommended, " and "))
	}
	if req.CustomAllowed() {
		ways = append(ways, "type your own answer")
	}
	if last := len(ways) - 1; last > 0 {
		ways[last] = "or " + ways[last]
	}
	return strings.Join(ways, ", ") + "\n> "
}

// reply reads l, the human's reply to req, as the answer a provider returns,
// or returns the refusal to show.
func reply(req Request, l line) (Answer, string) {
	text := l.text
	switch {
	case l.tooLong:
		return Answer{}, fmt.Sprintf("That line is longer than %d bytes.", maxLine)
	case !utf8.ValidString(text):
		return Answer{}, "That line is not valid UTF-8."
	case len(req.Options) == 0 && text == "":
		return Answer{}, "Type an answer."
	case len(req.Options) == 0:
		return Answer{Text: text}, ""
	case text == "":
		return recommendedAnswer(req)
	case strings.Trim(text, "0123456789, \t") == "":
		return numbered(req, text)
	}
	for _, o := range req.Options {
		if strings.EqualFold(text, o.Label) {
			return o.Answer(), ""
		}
	}
	if !req.CustomAllowed() {
		return Answer{}, quote(text) + " is not an option: type its number."
	}
	return Answer{Text: text}, ""
}

// recommendedAnswer picks the recommended options of req, which has options,
// for an empty line.
func recommendedAnswer(req Request) (Answer, string) {
	var picks []Option
	for _, o := range req.Options {
		if o.Recommended {
			picks = append(picks, o)
		}
	}
	switch {
	case len(picks) == 0:
		return Answer{}, "No option is recommended: type a number."
	case req.MultiSelect:
		return Pick(picks...), ""
	}
	return picks[0].Answer(), ""
}

// numbered picks the options of req that text numbers.
func numbered(req Request, text string) (Answer, string) {
	fields := strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	switch {
	case len(fields) == 0:
		return Answer{}, "Type the number of an option."
	case len(fields) > 1 && !req.MultiSelect:
		return Answer{}, "Pick one option."
	}
	picked := make([]bool, len(req.Options))
	var picks []Option
	for _, f := range fields {
		i, err := strconv.Atoi(f)
		switch {
		case err != nil || i < 1 || i > len(req.Options):
			return Answer{}, "There is no option " + clip(f, maxQuoted) + "."
		case picked[i-1]:
			return Answer{}, fmt.Sprintf("Option %d is given twice.", i)
		}
		picked[i-1] = true
		picks = append(picks, req.Options[i-1])
	}
	if !req.MultiSelect {
		return picks[0].Answer(), ""
	}
	return Pick(picks...), ""
}
