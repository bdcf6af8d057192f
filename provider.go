package userinteraction

import (
	"bufio"
	"container/list"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// ----------------------------------------------------------------------------
// Providers and the registry

// Provider answers questions on behalf of the human. A UI surface implements
// it and becomes the active provider of a [Registry] with [Register].
//
// Ask may be called concurrently, once per question, on the asking tool's
// goroutine. ctx carries the caller's values. It is done when the caller
// gives up or the registration is disposed, and Ask should then return soon,
// typically with ctx.Err(). Ask returns [Option.Answer] of the option the
// human picked, [Pick] of several, or Answer{Text: typed} for their own
// words. [Registry.Ask] completes and checks it. A human who refuses to
// answer is NewError([CodeAskDeclined], ...), a dismissed question
// NewError([CodeAskCancelled], ...).
//
// Ask must not modify req or its options, which belong to the caller, as an
// http.Handler must not modify its Request. This holds for every method of
// a provider that is given requests.
type Provider interface {
	Ask(ctx context.Context, req Request) (Answer, error)
}

// BatchProvider is implemented by a provider that can show several questions
// at once: one dialog, one form, one round trip. It is optional, as
// io.WriterTo is for an io.Writer. [Registry.AskAll] uses it when the active
// provider has it.
//
// AskAll answers reqs, in order, under the rules of Ask. It returns one
// answer per request, or the answers before the question that failed and
// that question's error. It must not keep reqs.
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

// Pending is a question that waits for an outcome: a [Replay] run asked it
// and had none recorded, or it is open in an [Inbox]. The host asks the
// human and records the outcome under ID, or responds with it.
//
// Batch is shared by the questions of one AskAll, and empty for a lone Ask,
// so that a UI can show a batch as one dialog. Hint says why the last
// response was refused, for the UI to lead with. Deadline is the asker's
// deadline, when its context has one (Inbox only).
//
// Its JSON is {"id", "request", "batch"?, "hint"?, "deadline"?}, the
// deadline in RFC 3339.
type Pending struct {
	ID       string
	Request  Request
	Batch    string
	Hint     string
	Deadline time.Time
}

// Elicitation returns q's request as a form, [Request.Elicitation], its
// message led by the Hint line when there is one.
func (q Pending) Elicitation() Elicitation {
	form := q.Request.Elicitation()
	if q.Hint != "" {
		form.Message = q.Hint + "\n" + form.Message
	}
	return form
}

// wirePending is the JSON shape of a Pending.
type wirePending struct {
	ID       string     `json:"id"`
	Request  Request    `json:"request"`
	Batch    string     `json:"batch,omitempty"`
	Hint     string     `json:"hint,omitempty"`
	Deadline *time.Time `json:"deadline,omitempty"`
}

// MarshalJSON encodes q as described on [Pending].
func (q Pending) MarshalJSON() ([]byte, error) {
	w := wirePending{ID: q.ID, Request: q.Request, Batch: q.Batch, Hint: q.Hint}
	if !q.Deadline.IsZero() {
		w.Deadline = &q.Deadline
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes the JSON object described on [Pending] into q,
// replacing every field.
func (q *Pending) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var w wirePending
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*q = Pending{ID: w.ID, Request: w.Request, Batch: w.Batch, Hint: w.Hint}
	if w.Deadline != nil {
		q.Deadline = *w.Deadline
	}
	return nil
}

// Registry holds the single active [Provider] of one scope, typically one
// agent session. A host puts it in the session's context with [WithRegistry].
//
// The zero value is an empty registry ready to use. A nil *Registry never has
// a provider: Ask returns [CodeNoProvider] and Register [CodeNoRegistry]. A
// Registry is safe for concurrent use and must not be copied after first use.
type Registry struct {
	// active is the registration of the active provider, or nil. Atomic so
	// that Ask finds the provider without a registry-wide lock.
	active atomic.Pointer[registration]
}

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

// AskAll is FromContext(ctx).AskAll(ctx, reqs): it asks the active provider
// of the registry that ctx carries several questions at once. See
// [Registry.AskAll].
func AskAll(ctx context.Context, reqs []Request) ([]Answer, error) {
	return FromContext(ctx).AskAll(ctx, reqs)
}

// Register makes p the active provider of r and returns the func that
// unregisters it. It fails, leaving r as it was, with:
//
//   - [CodeNoRegistry] when r is nil;
//   - [CodeInvalidProvider] when p is nil: a nil interface, or a nil pointer
//     or func of any type;
//   - [CodeDuplicateProvider] when another provider is active.
//
// dispose is never nil. After a failed Register it does nothing. Its first
// call removes p and cancels the contexts of the asks p is answering. Those
// asks return [CodeAskAborted], unless p still answers: the answer is kept.
// p is not called again. Later calls do nothing, and so does a stale dispose
// after another Register. dispose may be called from any goroutine, p.Ask
// included, and never waits for p.
func (r *Registry) Register(p Provider) (dispose func(), err error) {
	if r == nil {
		return noop, NewError(CodeNoRegistry, "context has no registry: the host must call WithRegistry", nil)
	}
	if isNilProvider(p) {
		return noop, NewError(CodeInvalidProvider, "provider is nil", nil)
	}
	reg := &registration{registry: r, provider: p}
	if !r.active.CompareAndSwap(nil, reg) {
		return noop, NewError(CodeDuplicateProvider, "another provider is already registered: call its dispose first", nil)
	}
	return reg.dispose, nil
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
// answer. It is safe for concurrent use. It goes in this order:
//
//  1. A nil ctx is [CodeInvalidRequest]. A done ctx is [CodeAskAborted].
//  2. An invalid req is the [CodeInvalidRequest] of [Request.Validate].
//  3. No active provider is [CodeNoProvider].
//  4. The provider is called on the caller's goroutine, holding no lock. Its
//     context carries ctx's values, and is done when ctx is done or the
//     registration is disposed. It is not called once that context is done.
//  5. A provider's error with a code ([CodeOf]) is returned as it is. Any
//     other error, or a [CodeAskAborted] of this ask's disposal, is mapped.
//     A context that ended is [CodeAskAborted]. It wraps ctx.Err() and
//     context.Cause(ctx) when ctx ended, and not [context.Canceled] when the
//     disposal did. Else the error is [CodeProviderFailed], with it as cause.
//  6. The answer is completed and checked against req, as [Answer] says.
//     A broken rule is [CodeInvalidAnswer].
//
// An answer is returned even when ctx ended or the provider was disposed
// meanwhile: the human's input is never lost. A panic in the provider
// propagates to the caller and leaves r consistent.
func (r *Registry) Ask(ctx context.Context, req Request) (Answer, error) {
	if err := checkCtx(ctx); err != nil {
		return Answer{}, err
	}
	if err := validate(&req); err != nil {
		return Answer{}, err
	}
	a, err := r.begin(ctx)
	if err != nil {
		return Answer{}, err
	}
	defer a.finish()
	return a.askProvider(&req, "")
}

// AskAll asks the active provider of r several questions at once and
// returns their answers in order. It is Ask for a batch. Steps 1 to 3 apply
// to the whole call: no requests, or an invalid one, is [CodeInvalidRequest]
// naming it ("questions[2]: ..."). A [BatchProvider] is asked once. Any other
// provider is asked one request after another. Each answer is checked
// against its request, and [CodeInvalidAnswer] names the question. Errors
// are mapped as by Ask, and a disposal aborts the rest of the batch.
//
// On an error, AskAll returns it with the answers given before it: a prefix
// of reqs, possibly empty. The human's input is never lost.
func (r *Registry) AskAll(ctx context.Context, reqs []Request) ([]Answer, error) {
	if err := checkCtx(ctx); err != nil {
		return nil, err
	}
	if err := validateAll(reqs); err != nil {
		return nil, err
	}
	a, err := r.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer a.finish()
	if bp, ok := a.reg.provider.(BatchProvider); ok {
		return a.askBatch(bp, reqs)
	}
	return a.askEach(reqs)
}

// registryKey is the context key of the Registry. It is unexported, so only
// WithRegistry and FromContext reach it.
type registryKey struct{}

// noop is the dispose func of a failed Register.
func noop() {}

// isNilProvider reports whether p is nil: a nil interface, or a nil pointer
// or func of any type, whose methods would panic. The registry knows no
// provider type: a provider that cannot work says so from its own Ask.
func isNilProvider(p Provider) bool {
	if p == nil {
		return true
	}
	switch v := reflect.ValueOf(p); v.Kind() {
	case reflect.Pointer, reflect.Func:
		return v.IsNil()
	}
	return false
}

// registration returns the active registration, or nil. r may be nil.
func (r *Registry) registration() *registration {
	if r == nil {
		return nil
	}
	return r.active.Load()
}

// registration is one successful Register: a provider and the asks it is
// answering, so that disposing it can abort them. One mutex is enough, as
// for the connections net/http's Server tracks for Shutdown: it is held for
// a slice update, while the human behind every ask takes seconds.
type registration struct {
	registry *Registry
	provider Provider

	mu sync.Mutex // guards asks, free and disposed
	// asks holds, in the slot that track gave each ask in flight, the func
	// that cancels the context its provider was handed; a finished ask's
	// slot is nil and listed in free, for the next ask to reuse. So the
	// slices grow only to the most asks ever in flight at once, and an ask
	// costs no allocation. (A map, as net/http keeps, is re-seeded by the
	// runtime each time it becomes empty: at the end of nearly every ask.)
	// Dispose drops both, so no finished ask stays referenced.
	asks     []context.CancelCauseFunc
	free     []int
	disposed bool
}

// errDisposed is the cause of the context handed to a provider whose
// registration was disposed while it was answering.
var errDisposed = errors.New("provider disposed")

// track records an ask in flight, whose provider context is cancelled by
// cancel, and returns its slot. It reports false when reg is disposed.
func (reg *registration) track(cancel context.CancelCauseFunc) (slot int, ok bool) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.disposed {
		return 0, false
	}
	if last := len(reg.free) - 1; last >= 0 {
		slot, reg.free = reg.free[last], reg.free[:last]
		reg.asks[slot] = cancel
	} else {
		slot, reg.asks = len(reg.asks), append(reg.asks, cancel)
	}
	return slot, true
}

// untrack forgets the ask in flight in slot.
func (reg *registration) untrack(slot int) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.disposed {
		return // dispose dropped the slots
	}
	reg.asks[slot] = nil
	reg.free = append(reg.free, slot)
}

// dispose unregisters reg, if it is still the active registration, and aborts
// the asks in flight on it. The cancel funcs run after reg.mu is released:
// they never call a provider, but holding no lock keeps dispose deadlock-free.
func (reg *registration) dispose() {
	reg.registry.active.CompareAndSwap(reg, nil)
	reg.mu.Lock()
	asks := reg.asks
	reg.asks, reg.free, reg.disposed = nil, nil, true
	reg.mu.Unlock()
	for _, cancel := range asks {
		if cancel != nil {
			cancel(errDisposed)
		}
	}
}

// An inflight is one Ask or AskAll call in flight, recorded on the
// registration whose provider answers it.
type inflight struct {
	reg    *registration
	slot   int                     // its slot in reg.asks
	caller context.Context         // the caller's ctx
	ctx    context.Context         // handed to the provider
	cancel context.CancelCauseFunc // cancels ctx
}

// begin records an ask of the caller's ctx on the active registration, or
// returns NO_PROVIDER. A registration that is disposed before the ask is
// recorded refuses it: Ask never waits for, or retries with, a newer one.
func (r *Registry) begin(ctx context.Context) (inflight, error) {
	if r == nil {
		return inflight{}, NewError(CodeNoProvider, "no provider: the context carries no registry (the host must call WithRegistry)", nil)
	}
	reg := r.registration()
	if reg == nil {
		return inflight{}, noProvider()
	}
	actx, cancel := context.WithCancelCause(ctx)
	slot, ok := reg.track(cancel)
	if !ok {
		cancel(nil)
		return inflight{}, noProvider()
	}
	return inflight{reg: reg, slot: slot, caller: ctx, ctx: actx, cancel: cancel}, nil
}

// finish forgets the finished ask and releases its context.
func (a *inflight) finish() {
	a.reg.untrack(a.slot)
	a.cancel(nil)
}

// askProvider asks req, valid, of the provider of a, as steps 4 to 6 of Ask
// say. which names the question in an INVALID_ANSWER ("questions[2]: ").
func (a *inflight) askProvider(req *Request, which string) (Answer, error) {
	// The provider is never called once its context is done. dispose cancels
	// a.ctx under that context's lock, so a dispose that has returned is seen
	// here; one that comes later aborts a question being asked, as any other.
	if err := a.abortErr("asked"); err != nil {
		return Answer{}, err
	}
	ans, err := a.reg.provider.Ask(a.ctx, *req)
	if err != nil {
		return Answer{}, a.askErr(err)
	}
	ans, broken := resolve(req, ans)
	if broken != nil {
		return Answer{}, invalidAnswer(which + broken.why)
	}
	return ans, nil
}

// askEach asks reqs, valid, of the provider of a one after another, as Ask
// asks each, up to the first error.
func (a *inflight) askEach(reqs []Request) ([]Answer, error) {
	answers := make([]Answer, 0, len(reqs))
	for i := range reqs {
		ans, err := a.askProvider(&reqs[i], fmt.Sprintf("questions[%d]: ", i))
		if err != nil {
			return answers, err
		}
		answers = append(answers, ans)
	}
	return answers, nil
}

// askBatch asks reqs, valid, of bp, the provider of a, in one call, and
// checks each answer against its request.
func (a *inflight) askBatch(bp BatchProvider, reqs []Request) ([]Answer, error) {
	if err := a.abortErr("asked"); err != nil {
		return nil, err
	}
	given, err := bp.AskAll(a.ctx, reqs)
	if len(given) > len(reqs) {
		return nil, invalidAnswer(fmt.Sprintf("%d answers to %d questions", len(given), len(reqs)))
	}
	answers := make([]Answer, 0, len(given))
	for i, ans := range given {
		ans, broken := resolve(&reqs[i], ans)
		if broken != nil {
			return answers, invalidAnswer(fmt.Sprintf("questions[%d]: %s", i, broken.why))
		}
		answers = append(answers, ans)
	}
	switch {
	case err != nil:
		return answers, a.askErr(err)
	case len(answers) < len(reqs):
		return answers, invalidAnswer(fmt.Sprintf("questions[%d]: no answer", len(answers)))
	}
	return answers, nil
}

// abortErr returns the ASK_ABORTED error when the provider's context of a
// is done, or nil. stage says what had happened to the question ("asked" or
// "answered"). Disposal is judged from a's own two contexts: a's context is
// done while the caller's is live only when a's registration was disposed.
func (a *inflight) abortErr(stage string) error {
	switch {
	case a.caller.Err() != nil:
		return aborted(a.caller, stage)
	case a.ctx.Err() != nil:
		return NewError(CodeAskAborted, "ask aborted: the provider was disposed before the question was "+stage, context.Cause(a.ctx))
	}
	return nil
}

// askErr returns the error Ask returns for err, the provider's error.
func (a *inflight) askErr(err error) error {
	if isTypedNil(err) {
		return providerFailed(err)
	}
	switch code := CodeOf(err); {
	case code == CodeAskAborted && a.caller.Err() == nil && a.ctx.Err() != nil:
		// A nested ask that took this ask's disposal for its caller's
		// cancellation: this ask knows the cause.
		return a.abortErr("answered")
	case code != "":
		return err // the human's outcome, or another plugin family's
	}
	if err := a.abortErr("answered"); err != nil {
		return err
	}
	return providerFailed(err)
}

// checkCtx returns the error for a caller's ctx that Ask cannot ask with, a
// nil or a done one, else nil.
func checkCtx(ctx context.Context) error {
	if ctx == nil {
		return errNilCtx()
	}
	if ctx.Err() != nil {
		return aborted(ctx, "asked")
	}
	return nil
}

// errNilCtx returns the INVALID_REQUEST error of a nil context.
func errNilCtx() error {
	return NewError(CodeInvalidRequest, "invalid request: context is nil", nil)
}

// ctxErr returns the error that a provider of this package returns for ctx
// before it asks, also when called without a registry: the INVALID_REQUEST
// of a nil ctx, as Registry.Ask gives, or ctx.Err().
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return errNilCtx()
	}
	return ctx.Err()
}

// noProvider returns the NO_PROVIDER error of a registry where no UI is
// registered.
func noProvider() error {
	return NewError(CodeNoProvider, "no provider: no UI is registered to answer the question", nil)
}

// providerFailed returns the PROVIDER_FAILED error for err, an uncoded error
// from a provider. Its message ends with err's text, cut short and escaped
// (escape): the text may come from a remote client. A typed nil is named,
// not kept: calling its methods could panic in the caller.
func providerFailed(err error) *UserInteractionError {
	if isTypedNil(err) {
		return NewError(CodeProviderFailed, fmt.Sprintf("provider failed: it returned a nil %T as its error", err), nil)
	}
	return NewError(CodeProviderFailed, "provider failed: "+escape(clip(err.Error(), maxProviderText)), err)
}

// isTypedNil reports whether err is a typed nil: a nil pointer, map, slice,
// func or chan in a non-nil error interface.
func isTypedNil(err error) bool {
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

// ----------------------------------------------------------------------------
// Terminal

// Terminal is a [Provider] that asks on a text terminal, or on any reader and
// writer. Make one with [NewTerminal]: a zero Terminal's Ask is
// [CodeInvalidProvider]. It is safe for concurrent use: asks take turns, each
// under its own ctx.
//
// The request's text is written as it is, and no text of it can pass for
// the Terminal's own lines. Each line of the header and the question starts
// with "| ". An option row starts with its number, and a recommended one
// with "*" before it. The Terminal's other lines start with neither.
//
// A Terminal reads only while a question waits, so piped answers answer
// questions in order. A line that arrived before the question was shown
// is ignored, with a line that says so. It handles no signals: run the tool
// step under signal.NotifyContext for Ctrl-C to cancel the question.
type Terminal struct {
	in   *bufio.Reader
	out  io.Writer
	turn chan struct{} // holds a token while a question or a batch is asked

	// Guarded by turn:
	read    chan line    // the read in flight, or nil
	written chan written // the last write in flight, or nil
	midLine bool         // the last output is a prompt that no line answered
}

var _ BatchProvider = (*Terminal)(nil)

// NewTerminal returns a Terminal that reads the human's replies from in,
// through a buffer of its own (in is for this Terminal only), and writes to
// out. A nil in is an input that has ended, a nil out discards what is
// written.
func NewTerminal(in io.Reader, out io.Writer) *Terminal {
	if in == nil {
		in = strings.NewReader("")
	}
	if out == nil {
		out = io.Discard
	}
	return &Terminal{in: bufio.NewReader(in), out: out, turn: make(chan struct{}, 1)}
}

// Ask writes the header, the question, the options numbered from 1 and a
// line saying what it accepts. When ctx has a deadline, it says how long the
// human has. Then it reads one line, trimmed:
//
//   - A number picks that option, and so does "#" and the number.
//   - A label picks that option, compared as Validate compares labels.
//   - For MultiSelect, numbers and labels separated by commas pick several.
//   - An empty line picks the recommended option or options.
//   - Other text is the human's own answer, when [Request.CustomAllowed].
//
// A line of digits is a number, unless it is a label and no option has that
// number. A line that could mean two things, a line that mixes picks and
// other words, a line over 1 MiB, and any other line it cannot take are
// refused with a line saying why, and the question is asked again.
//
// End of input, even within a line, is [CodeAskCancelled], as is a read
// error. A write error ends the ask. An invalid req is [CodeInvalidRequest],
// and nothing is written. When ctx is done, Ask returns ctx.Err() at once.
// The Terminal then says so if the deadline passed or another UI answered
// (see [FirstOf]). A panic of the reader or writer is raised again in Ask.
func (t *Terminal) Ask(ctx context.Context, req Request) (Answer, error) {
	if err := req.Validate(); err != nil {
		return Answer{}, err
	}
	if err := t.acquire(ctx); err != nil {
		return Answer{}, err
	}
	defer t.release()
	return t.askOne(ctx, req, "")
}

// AskAll asks reqs one after another, each headed with its place ("Question
// 2 of 3"), with no other question in between. It returns the answers up to
// the first error, as [BatchProvider] says.
func (t *Terminal) AskAll(ctx context.Context, reqs []Request) ([]Answer, error) {
	if err := validateAll(reqs); err != nil {
		return nil, err
	}
	if err := t.acquire(ctx); err != nil {
		return nil, err
	}
	defer t.release()
	answers := make([]Answer, 0, len(reqs))
	for i, req := range reqs {
		ans, err := t.askOne(ctx, req, fmt.Sprintf("Question %d of %d\n", i+1, len(reqs)))
		if err != nil {
			return answers, err
		}
		answers = append(answers, ans)
	}
	return answers, nil
}

// maxLine is the longest line, in bytes, that a Terminal reads.
const maxLine = 1 << 20

// The Terminal's notices.
const (
	staleNotice     = "A line typed before this question was shown was ignored."
	elsewhereNotice = "This question was answered elsewhere."
	timeUpNotice    = "No answer came in time."
)

// acquire waits for the terminal's turn, or for ctx.
func (t *Terminal) acquire(ctx context.Context) error {
	if t.turn == nil {
		return NewError(CodeInvalidProvider, "the Terminal has no input: make it with NewTerminal", nil)
	}
	if err := ctxErr(ctx); err != nil {
		return err
	}
	select {
	case t.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release ends the turn that acquire began.
func (t *Terminal) release() { <-t.turn }

// askOne asks req, headed by place, and tells the human how an ask that
// failed ended.
func (t *Terminal) askOne(ctx context.Context, req Request, place string) (Answer, error) {
	if err := ctx.Err(); err != nil {
		return Answer{}, err
	}
	ans, err := t.answer(ctx, req, place)
	if err != nil {
		t.end(ctx, err)
	}
	return ans, err
}

// answer shows req, headed by place, and reads replies until one answers it.
func (t *Terminal) answer(ctx context.Context, req Request, place string) (Answer, error) {
	labels := newReplyIndex(req)
	if err := t.write(ctx, place+render(req)+timeLeft(ctx)+accepts(req)+"\n"); err != nil {
		return Answer{}, err
	}
	// The question is shown: a line that the read in flight already has was
	// typed for an earlier one.
	notice := ""
	if t.dropStale() {
		notice = staleNotice + "\n"
	}
	if err := t.write(ctx, notice+"> "); err != nil {
		return Answer{}, err
	}
	for {
		l, err := t.readLine(ctx)
		if err != nil {
			return Answer{}, err
		}
		ans, refusal, err := reply(ctx, req, labels, l)
		if err != nil || refusal == "" {
			return ans, err
		}
		again := refusal + "\n"
		if len(req.Options) > 0 { // a free-form question's refusal says what to type
			again += accepts(req) + "\n"
		}
		if err := t.write(ctx, again+"> "); err != nil {
			return Answer{}, err
		}
	}
}

// end writes what the human should know about an ask that ended with err:
// where its ctx went, or a line end after the input ended.
func (t *Terminal) end(ctx context.Context, err error) {
	switch {
	case ctx.Err() == nil:
		if CodeOf(err) == CodeAskCancelled && t.midLine {
			_ = t.write(ctx, "") // the input ended: the host's output starts on a fresh line
		}
	case errors.Is(context.Cause(ctx), errAnsweredElsewhere):
		t.post(elsewhereNotice + "\n")
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		t.post(timeUpNotice + "\n")
	}
}

// timeLeft returns the line that says how long the human has to answer, or
// "" when ctx has no deadline.
func timeLeft(ctx context.Context) string {
	deadline, ok := ctx.Deadline()
	if !ok {
		return ""
	}
	return "Answer within " + duration(time.Until(deadline)) + ".\n"
}

// duration returns d in words, rounded: seconds under a minute, minutes
// under an hour, then hours and minutes.
func duration(d time.Duration) string {
	count := func(n int64, unit string) string {
		if n == 1 {
			return "1 " + unit
		}
		return strconv.FormatInt(n, 10) + " " + unit + "s"
	}
	switch d = d.Round(time.Second); {
	case d < time.Second:
		return count(1, "second")
	case d < time.Minute:
		return count(int64(d/time.Second), "second")
	}
	switch d = d.Round(time.Minute); {
	case d < time.Hour:
		return count(int64(d/time.Minute), "minute")
	case d%time.Hour == 0:
		return count(int64(d/time.Hour), "hour")
	}
	return count(int64(d/time.Hour), "hour") + " " + count(int64(d%time.Hour/time.Minute), "minute")
}

// render returns req as the terminal writes it, before the prompt. The
// request's text is written as Validate lets it through.
func render(req Request) string {
	var b strings.Builder
	if req.Header != "" {
		writeText(&b, req.Header)
	}
	writeText(&b, req.Question)
	for i, o := range req.Options {
		mark := "  "
		if o.Recommended {
			mark = "* "
		}
		fmt.Fprintf(&b, "%s%d. %s", mark, i+1, o.Label)
		if o.Description != "" {
			b.WriteString(" - " + oneLine(o.Description))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// writeText writes s, the model's text, each line led by "| ": so no line of
// it reads as an option row or another line of the Terminal's own.
func writeText(b *strings.Builder, s string) {
	for _, l := range strings.Split(s, "\n") {
		if l == "" {
			b.WriteString("|\n")
		} else {
			b.WriteString("| " + l + "\n")
		}
	}
}

// accepts returns the line that says what the terminal accepts for req.
// It names the recommended options by number, as no label can.
func accepts(req Request) string {
	n := len(req.Options)
	if n == 0 {
		return "Type your answer."
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
	for i, o := range req.Options {
		if o.Recommended {
			recommended = append(recommended, strconv.Itoa(i+1))
		}
	}
	if len(recommended) > 0 {
		ways = append(ways, "Enter for "+strings.Join(recommended, ","))
	}
	if req.CustomAllowed() {
		ways = append(ways, "type your own answer")
	}
	if last := len(ways) - 1; last > 0 {
		ways[last] = "or " + ways[last]
	}
	return strings.Join(ways, ", ")
}

// write writes s, first ending a line left open by a prompt ("> ") that no
// line answered. It writes on a goroutine of its own so that ctx can end the
// wait. A write that ctx interrupts finishes before the next one starts.
func (t *Terminal) write(ctx context.Context, s string) error {
	done := t.post(s)
	select {
	case w := <-done:
		t.written = nil
		if w.panicked != nil {
			panic(w.panicked)
		}
		return w.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// post starts writing s after the write in flight, and returns the channel
// that receives its outcome. Nobody waits for a post of its own: its error
// is lost, its panic is raised by the next write.
func (t *Terminal) post(s string) chan written {
	if t.midLine {
		s = "\n" + s
	}
	t.midLine = strings.HasSuffix(s, "> ")
	before := t.written
	done := make(chan written, 1)
	go func() {
		w := written{err: errStopped}
		defer func() { // always sends: a panic, or Goexit, must not leave Ask waiting
			if v := recover(); v != nil {
				w = written{panicked: v}
			}
			done <- w
		}()
		if before != nil {
			if w = <-before; w.panicked != nil { // its error was the interrupted ask's to report
				return
			}
		}
		_, w.err = io.WriteString(t.out, s)
	}()
	t.written = done
	return done
}

// dropStale drops the line that the read in flight has already read, if
// any, and reports whether it did. An end of input or a panic stays for
// readLine.
func (t *Terminal) dropStale() bool {
	if t.read == nil {
		return false
	}
	select {
	case l := <-t.read:
		if l.err != nil || l.panicked != nil {
			t.read <- l
			return false
		}
		t.read = nil
		return true
	default:
		return false
	}
}

// readLine returns the next line of input, reading it on a goroutine of its
// own so that ctx can end the wait. A read that ctx interrupts stays in
// flight, and its line is dropped if it comes before the next question.
func (t *Terminal) readLine(ctx context.Context) (line, error) {
	if t.read == nil {
		read := make(chan line, 1)
		go func() {
			l := line{err: NewError(CodeAskCancelled, "the terminal's input failed", errStopped)}
			defer func() { // always sends: a panic, or Goexit, must not leave Ask waiting
				if v := recover(); v != nil {
					l = line{panicked: v}
				}
				read <- l
			}()
			l = t.scanLine()
		}()
		t.read = read
	}
	select {
	case l := <-t.read:
		t.read = nil
		if l.panicked != nil {
			panic(l.panicked)
		}
		t.midLine = t.midLine && l.err != nil // a line's end ends the prompt's line
		return l, l.err
	case <-ctx.Done():
		return line{}, ctx.Err()
	}
}

// scanLine reads the next line of input, without its "\n" or "\r\n",
// trimmed. A line of more than maxLine bytes is too long: it is skipped, not
// kept.
func (t *Terminal) scanLine() line {
	var buf []byte
	tooLong := false
	for {
		chunk, err := t.in.ReadSlice('\n')
		if !tooLong && len(buf)+len(chunk) <= maxLine+len("\r\n") {
			buf = append(buf, chunk...)
		} else {
			buf, tooLong = nil, true
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == nil:
			text := strings.TrimSuffix(strings.TrimSuffix(string(buf), "\n"), "\r")
			return line{text: strings.TrimSpace(text), tooLong: tooLong || len(text) > maxLine}
		case err == io.EOF && len(buf) == 0 && !tooLong:
			return line{err: NewError(CodeAskCancelled, "the terminal's input ended", nil)}
		case err == io.EOF:
			return line{err: NewError(CodeAskCancelled, "the terminal's input ended in the middle of a line", nil)}
		default:
			return line{err: NewError(CodeAskCancelled, "the terminal's input failed", err)}
		}
	}
}

// line is a line read from a Terminal's input, or why there is none.
type line struct {
	text    string
	tooLong bool
	err     error // ASK_CANCELLED at the end of the input or on a read error
	// panicked is what the reader panicked with, recovered on the Terminal's
	// goroutine so that Ask raises it again on the caller's, as a provider's
	// panic; nil when it did not panic.
	panicked any
}

// written is the outcome of a write to a Terminal's output.
type written struct {
	err      error
	panicked any // what the writer panicked with, as in line
}

// errStopped is the error of a read or write whose call ended its goroutine
// without returning or panicking with a value: runtime.Goexit, or panic(nil)
// under GODEBUG=panicnil=1.
var errStopped = errors.New("userinteraction: the Terminal's reader or writer stopped its goroutine")

// replyIndex finds the options that a reply names by label, in time linear
// in the reply's length. Labels are compared by their labelKey.
type replyIndex struct {
	keys  []string       // the key of each option's label
	byKey map[string]int // the option of each key
	// A MultiSelect reply is cut at its commas into parts, and a label with
	// commas spans several. Such labels, cut at their commas into cores (the
	// pieces without the spaces at their ends), are the patterns of an
	// Aho-Corasick automaton, built at the first reply with a comma. So one
	// pass over the parts finds every label that ends at each part. Node 0
	// is the root, and fail, ends, out and depth have one entry per node.
	cores map[string]int // a number for each core
	next  map[uint64]int // an edge (a node and the next core) leads to a node
	fail  []int          // the node of the longest proper suffix of the path that is a path too
	ends  []int          // an option whose cores are the path, or -1
	out   []int          // the next node on the fail chain whose ends is set, or 0
	depth []int          // the number of cores on the path
	also  []int          // for each option: another with the same cores, or -1
}

// edge returns the key of the automaton's edge from node on core c.
func edge(node, c int) uint64 { return uint64(node)<<32 | uint64(c) }

// newReplyIndex returns the replyIndex of req's options, in time linear in
// the labels' total length.
func newReplyIndex(req Request) *replyIndex {
	n := len(req.Options)
	x := &replyIndex{keys: make([]string, n), byKey: make(map[string]int, n)}
	for i, o := range req.Options {
		x.keys[i] = labelKey(o.Label)
		x.byKey[x.keys[i]] = i
	}
	return x
}

// buildAutomaton builds x's automaton, once: only a MultiSelect reply with
// a comma needs it.
func (x *replyIndex) buildAutomaton() {
	if x.next != nil {
		return
	}
	n := len(x.keys)
	nodes := 1
	for _, key := range x.keys {
		if strings.Contains(key, ",") {
			nodes += strings.Count(key, ",") + 1
		}
	}
	x.cores, x.next, x.also = map[string]int{}, make(map[uint64]int, nodes), make([]int, n)
	x.fail, x.ends, x.out = make([]int, 1, nodes), make([]int, 1, nodes), make([]int, 1, nodes)
	x.depth, x.ends[0] = make([]int, 1, nodes), -1
	parent, cores := make([]int, 1, nodes), make([]int, 1, nodes)
	for i, key := range x.keys {
		x.also[i] = -1
		if !strings.Contains(key, ",") {
			continue // byKey finds it in one part
		}
		node := 0
		for _, c := range strings.Split(key, ",") {
			c := x.core(strings.TrimSuffix(strings.TrimPrefix(c, " "), " "))
			child, ok := x.next[edge(node, c)]
			if !ok {
				child = len(x.fail)
				x.next[edge(node, c)] = child
				x.fail, x.ends, x.out = append(x.fail, 0), append(x.ends, -1), append(x.out, 0)
				x.depth = append(x.depth, x.depth[node]+1)
				parent, cores = append(parent, node), append(cores, c)
			}
			node = child
		}
		x.also[i], x.ends[node] = x.ends[node], i
	}
	// A node's fail link needs its parent's: take the nodes by depth.
	var byDepth [][]int
	for v := 1; v < len(x.fail); v++ {
		for len(byDepth) <= x.depth[v] {
			byDepth = append(byDepth, nil)
		}
		byDepth[x.depth[v]] = append(byDepth[x.depth[v]], v)
	}
	for _, level := range byDepth {
		for _, v := range level {
			if u := parent[v]; u != 0 {
				x.fail[v] = x.step(x.fail[u], cores[v])
			}
			if f := x.fail[v]; x.ends[f] >= 0 {
				x.out[v] = f
			} else {
				x.out[v] = x.out[f]
			}
		}
	}
}

// core returns the number of core c, a new one if c has none.
func (x *replyIndex) core(c string) int {
	id, ok := x.cores[c]
	if !ok {
		id = len(x.cores)
		x.cores[c] = id
	}
	return id
}

// step returns the node that the automaton reaches from node on core c.
func (x *replyIndex) step(node int, c int) int {
	for {
		if next, ok := x.next[edge(node, c)]; ok {
			return next
		}
		if node == 0 {
			return 0
		}
		node = x.fail[node]
	}
}

// reply reads l, the human's reply to req, as the answer a provider returns,
// or returns the refusal to show. Its error is ctx's, when ctx ends first.
func reply(ctx context.Context, req Request, labels *replyIndex, l line) (Answer, string, error) {
	text := l.text
	switch {
	case l.tooLong:
		return Answer{}, fmt.Sprintf("That line is longer than %d bytes.", maxLine), nil
	case !utf8.ValidString(text):
		return Answer{}, "That line is not valid UTF-8.", nil
	case len(req.Options) == 0 && text == "":
		return Answer{}, "Type an answer.", nil
	case len(req.Options) == 0:
		return Answer{Text: text}, "", nil
	case text == "":
		ans, refusal := recommendedAnswer(req)
		return ans, refusal, nil
	case !req.MultiSelect:
		ans, refusal := replyOne(req, labels, text)
		return ans, refusal, nil
	}
	return replySeveral(ctx, req, labels, text)
}

// replyOne reads text, a reply to req, a single-select request.
func replyOne(req Request, labels *replyIndex, text string) (Answer, string) {
	labelled, isLabel := labels.byKey[labelKey(text)]
	rows, isNumber, problem := numbers(text, len(req.Options))
	switch {
	case isLabel && problem == "" && len(rows) == 1 && rows[0] != labelled:
		return Answer{}, fmt.Sprintf("%s is option %d, and the label of option %d: type #%d or #%d.",
			quote(text), rows[0]+1, labelled+1, rows[0]+1, labelled+1)
	case isLabel:
		return req.Options[labelled].Answer(), ""
	case isNumber && problem != "":
		return Answer{}, problem
	case isNumber && len(rows) > 1:
		return Answer{}, "Pick one option."
	case isNumber:
		return req.Options[rows[0]].Answer(), ""
	case !req.CustomAllowed():
		return Answer{}, quote(text) + " is not an option: type its number."
	}
	return Answer{Text: text}, ""
}

// numbers reads text as option numbers of a request with n options: each
// digits, with "#" before or "." after, separated by commas or white space.
// isNumber reports whether text is only such numbers, or a range of them
// ("1-3"), and problem says what is wrong with them, if anything.
func numbers(text string, n int) (rows []int, isNumber bool, problem string) {
	for i := 0; i < len(text); i++ {
		if c := text[i]; !('0' <= c && c <= '9') && !strings.ContainsRune("#.-, \t", rune(c)) {
			return nil, false, "" // most text: words
		}
	}
	fields := strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	ranged := false
	for k, f := range fields {
		fields[k] = strings.TrimSuffix(strings.TrimPrefix(f, "#"), ".")
		from, to, isRange := strings.Cut(fields[k], "-")
		switch {
		case isRange && isDigits(from) && isDigits(to):
			ranged = true
		case !isDigits(fields[k]):
			return nil, false, "" // "-1", "1.5": not a row
		}
	}
	switch {
	case len(fields) == 0:
		return nil, strings.Trim(text, ", \t") == "", "Type the number of an option."
	case ranged:
		return nil, true, "Type each number, such as 1,2,3."
	}
	for _, f := range fields {
		i, err := strconv.Atoi(f)
		if err != nil || i < 1 || i > n {
			return nil, true, "There is no option " + clip(f, maxQuoted) + "."
		}
		rows = append(rows, i-1)
	}
	return rows, true, ""
}

// isDigits reports whether s is one or more ASCII digits.
func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// reading is one way to read a pick in the parts of a MultiSelect reply:
// the options it names, and the part where it starts.
type reading struct {
	picks []int
	start int
}

// replySeveral reads text, a reply to req, a MultiSelect request. Text is
// cut into parts at its commas, and each pick is one part or, for a label
// with commas, several. One pass over the parts counts the ways to read the
// parts before each, up to two: a reading that is not the only one is
// refused, not guessed.
func replySeveral(ctx context.Context, req Request, labels *replyIndex, text string) (Answer, string, error) {
	raw := strings.Split(text, ",")
	key := labelKey(text)
	keyed := strings.Split(key, ",") // labelKey keeps every comma, so keyed[p] is raw[p]'s key
	parts := len(raw)
	if parts > 1 {
		labels.buildAutomaton()
	}
	ways := make([]int, parts+1) // the ways to read the parts before e, up to 2
	last := make([]reading, parts+1)
	ways[0] = 1
	add := func(e int, r reading) {
		if ways[r.start] == 0 || ways[e] == 2 ||
			(ways[e] > 0 && last[e].start == r.start && slices.Equal(last[e].picks, r.picks)) {
			return
		}
		if ways[e] == 0 {
			last[e] = r
		}
		ways[e] = min(2, ways[e]+ways[r.start])
	}
	picked := false // some part reads as a pick on its own
	state, offset := 0, 0
	starts := make([]int, parts) // where each part starts in key
	for q := 0; q < parts; q++ {
		if q%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return Answer{}, "", err
			}
		}
		starts[q] = offset
		offset += len(keyed[q]) + len(",")
		core := strings.TrimSuffix(strings.TrimPrefix(keyed[q], " "), " ")
		if rows, isNumber, problem := numbers(raw[q], len(req.Options)); isNumber && problem == "" {
			add(q+1, reading{rows, q})
			picked = true
		}
		if core == "" { // "1,,3" or "a, b,"
			add(q+1, reading{nil, q})
		} else if i, ok := labels.byKey[core]; ok {
			add(q+1, reading{[]int{i}, q})
			picked = true
		}
		if c, ok := labels.cores[core]; ok {
			state = labels.step(state, c)
		} else {
			state = 0 // no label holds this core
		}
		for node := state; node != 0; node = labels.out[node] {
			p := q + 1 - labels.depth[node]
			for i := labels.ends[node]; i >= 0 && ways[p] > 0 && ways[q+1] < 2; i = labels.also[i] {
				from := starts[p] + len(keyed[p]) - len(strings.TrimPrefix(keyed[p], " "))
				to := starts[q] + len(strings.TrimSuffix(keyed[q], " "))
				if sameLabel(key[from:to], req.Options[i].Label) { // the same cores, and the same spaces
					add(q+1, reading{[]int{i}, p})
				}
			}
		}
	}
	switch ways[parts] {
	case 1:
		var found []reading
		for e := parts; e > 0; e = last[e].start {
			found = append(found, last[e])
		}
		var named []int
		for k := len(found) - 1; k >= 0; k-- {
			named = append(named, found[k].picks...)
		}
		if len(named) == 0 { // only commas
			return Answer{}, "Type the number of an option.", nil
		}
		ans, refusal := pickAll(req, named)
		return ans, refusal, nil
	case 2:
		return Answer{}, quote(text) + " can be read in more than one way: type the numbers, such as #1,#3.", nil
	}
	for _, r := range raw {
		if _, isNumber, problem := numbers(r, len(req.Options)); isNumber && problem != "" && strings.TrimSpace(r) != "" {
			return Answer{}, problem, nil
		}
	}
	other := "" // the first part that is no pick on its own
	for p := 0; p < parts && other == ""; p++ {
		if _, isLabel := labels.byKey[strings.Trim(keyed[p], " ")]; !isLabel {
			if _, isNumber, _ := numbers(raw[p], len(req.Options)); !isNumber {
				other = strings.TrimSpace(raw[p])
			}
		}
	}
	switch {
	case picked && other != "": // a pick must not hide among the human's own words
		return Answer{}, quote(other) + " is not an option: type only options, or only your own words.", nil
	case !req.CustomAllowed():
		return Answer{}, quote(text) + " is not an option: type its number.", nil
	}
	return Answer{Text: text}, "", nil
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

// pickAll picks the options of req, a MultiSelect request, at the indexes
// named, by number or by label, unless one is named twice.
func pickAll(req Request, named []int) (Answer, string) {
	picked := make([]bool, len(req.Options))
	picks := make([]Option, 0, len(named))
	for _, i := range named {
		if picked[i] {
			return Answer{}, fmt.Sprintf("Option %d is given twice.", i+1)
		}
		picked[i] = true
		picks = append(picks, req.Options[i])
	}
	return Pick(picks...), ""
}

// ----------------------------------------------------------------------------
// Form

// ElicitFunc sends form as one form-mode elicitation/create and returns the
// client's response: its action and content. With MCP, form is the request's
// params. With ACP, the host adds sessionId and toolCallId beside it. An
// ElicitFunc may be called concurrently when its SDK allows it.
type ElicitFunc func(ctx context.Context, form Elicitation) (action string, content map[string]any, err error)

// Form is a [Provider] for MCP and ACP clients that render forms while the
// tool call waits. It sends each question as [Request.Elicitation] through
// its [ElicitFunc] and maps the response back with [ElicitationAnswer]. Make
// one with [NewForm].
//
// Form is safe for concurrent use when its ElicitFunc is. It has no AskAll:
// [Registry.AskAll] sends one form per question, in turn. A nil *Form, or a
// Form without an ElicitFunc, fails each Ask with [CodeInvalidProvider].
type Form struct {
	elicit ElicitFunc
}

var _ Provider = (*Form)(nil)

// NewForm returns a Form that sends its forms through elicit. With a nil
// elicit, each Ask fails with [CodeInvalidProvider].
func NewForm(elicit ElicitFunc) *Form {
	return &Form{elicit: elicit}
}

// Ask sends req as a form and returns the human's answer, completed as
// [Registry.Ask] completes it.
//
// When ctx is done before a form goes out, or by the time elicit returns,
// Ask returns ctx.Err(). An error from elicit is returned as it is.
// "decline" is [CodeAskDeclined], "cancel" [CodeAskCancelled]. A response
// that [ElicitationAnswer] cannot read is its [CodeInvalidAnswer], at once:
// the client is at fault, not the human. A response that breaks the rules of
// [Answer] is not an answer. The form is sent again, its message led by one
// line that says why. After 3 such forms Ask returns [CodeInvalidAnswer]
// naming the last broken rule. An invalid req is [CodeInvalidRequest] and
// is not sent.
func (f *Form) Ask(ctx context.Context, req Request) (Answer, error) {
	if f == nil || f.elicit == nil {
		return Answer{}, NewError(CodeInvalidProvider, "form has no elicit func: make it with NewForm", nil)
	}
	if err := req.Validate(); err != nil {
		return Answer{}, err
	}
	if err := ctxErr(ctx); err != nil {
		return Answer{}, err
	}
	var lead string // why the previous form's response was refused
	for n := 1; ; n++ {
		form := req.Elicitation()
		if lead != "" {
			form.Message = lead + "\n" + form.Message
		}
		action, content, err := f.elicit(ctx, form)
		if ctx.Err() != nil {
			return Answer{}, ctx.Err() // the turn ended: whatever came back is moot
		}
		if err != nil {
			return Answer{}, err
		}
		given, err := ElicitationAnswer(action, content)
		if err != nil {
			return Answer{}, err
		}
		ans, broken := resolve(&req, given) // step 6 of Registry.Ask
		switch {
		case broken == nil:
			return ans, nil
		case n == maxForms:
			return Answer{}, invalidAnswer(fmt.Sprintf("%s (the last of %d refused forms)", broken.why, maxForms))
		}
		lead = broken.hint
	}
}

// maxForms is how many times Form sends one question before it gives up.
const maxForms = 3

// ----------------------------------------------------------------------------
// Inbox

// Inbox is a [Provider] for a UI outside the process, such as a web page, a
// chat bot or an editor over a socket, that answers by ID whenever it
// connects. Ask opens a question and waits. The UI reads [Inbox.Pending],
// asks the human, and delivers each outcome with [Inbox.Respond].
// [Inbox.Changed] tells it when to read Pending again.
//
// A question's ID is 128 bits from crypto/rand in 32 lower-case hex digits:
// another session's UI cannot guess it, and no ID repeats. A question is open
// from its Ask until Respond delivers its outcome, or until the asker's ctx
// is done: the caller's step ended, or the registration was disposed. The
// zero value is an empty Inbox ready to use. An Inbox is
// safe for concurrent use and must not be copied after first use. Its
// methods need a non-nil *Inbox.
type Inbox struct {
	mu      sync.Mutex           // guards the fields below
	open    list.List            // the open questions (*question), oldest first
	byID    map[string]*question // the open questions by ID
	changed chan struct{}        // closed at the next change of open; nil while nobody asked for it
}

var _ BatchProvider = (*Inbox)(nil)

// Ask opens req as a question and waits for the outcome that
// [Inbox.Respond] delivers. When ctx is done first, the question leaves
// Pending and Ask returns ctx.Err(). An outcome delivered before that is
// returned all the same. An invalid req is [CodeInvalidRequest] and is not
// opened.
func (b *Inbox) Ask(ctx context.Context, req Request) (Answer, error) {
	if err := req.Validate(); err != nil {
		return Answer{}, err
	}
	answers, err := b.askAll(ctx, []Request{req})
	if err != nil {
		return Answer{}, err
	}
	return answers[0], nil
}

// AskAll opens reqs at once, consecutive in Pending, and returns their
// answers in request order. At the first error in request order, once the
// questions before it are answered, it returns their answers and that error.
// An error outcome closes the questions after it at once. A done ctx closes
// every open one. Their answers could not be returned.
func (b *Inbox) AskAll(ctx context.Context, reqs []Request) ([]Answer, error) {
	if err := validateAll(reqs); err != nil {
		return nil, err
	}
	return b.askAll(ctx, reqs)
}

// Pending returns the open questions, oldest first. A batch's questions are
// consecutive, in request order. The result shares no memory with b.
func (b *Inbox) Pending() []Pending {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Pending, 0, b.open.Len())
	for e := b.open.Front(); e != nil; e = e.Next() {
		q := e.Value.(*question)
		out = append(out, Pending{ID: q.id, Request: q.req.clone()})
	}
	return out
}

// Respond delivers the outcome of the open question id, as a live provider
// returns it: ans when err is nil, else err. It returns nil when the outcome
// is delivered, and the question is closed. An ans that breaks a rule of
// [Answer] for the question's request is refused with [CodeInvalidAnswer],
// and the question stays open for another try. An id that is not open
// (never asked, already answered, or given up) is refused with
// [CodeNotPending]: the first Respond of a question wins. A refused Respond
// changes nothing.
func (b *Inbox) Respond(id string, ans Answer, err error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.byID[id]
	if q == nil {
		return NewError(CodeNotPending, "question "+quote(id)+" is not pending: never asked, already answered, or given up", nil)
	}
	r := result{err: err}
	if err == nil {
		var broken *brokenRule
		if r.ans, broken = resolve(&q.req, ans); broken != nil {
			return invalidAnswer(broken.why)
		}
	}
	b.deliver(q, r)
	if err != nil {
		// The call returns at q's error: the questions after q leave now.
		for _, later := range q.call[q.index+1:] {
			b.deliver(later, r)
		}
	}
	b.publish()
	return nil
}

// Changed returns a channel that is closed at the next change of Pending: a
// question opened, answered or given up. Then call Changed again. Call it
// before Pending to miss no change. A channel that nobody waits on holds no
// goroutine.
func (b *Inbox) Changed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.changed == nil {
		b.changed = make(chan struct{})
	}
	return b.changed
}

// A question is one request that an Inbox asks.
type question struct {
	id    string
	req   Request     // a clone of the request asked
	call  []*question // the questions of its Ask or AskAll, in request order
	index int         // its place in call
	// outcome receives the question's outcome once, when it closes, so the
	// asker always finds one: the responder's, or its own giving up.
	outcome chan result
	elem    *list.Element // q in the Inbox's open questions; nil once closed. Guarded by the Inbox's mu
}

// result is the outcome of a question: an answer, or the error in its place.
type result struct {
	ans Answer
	err error
}

// askAll opens reqs, which are valid, and waits for their outcomes, as
// AskAll says.
func (b *Inbox) askAll(ctx context.Context, reqs []Request) ([]Answer, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err // not opened: no UI sees a question already given up
	}
	call, err := b.openAll(reqs)
	if err != nil {
		return nil, err
	}
	answers := make([]Answer, 0, len(call))
	for _, q := range call {
		var r result
		select {
		case r = <-q.outcome:
		case <-ctx.Done():
			// A Respond that closed q first has delivered its outcome
			// under b.mu: the human's answer is kept.
			b.giveUp(call, ctx.Err())
			r = <-q.outcome
		}
		if r.err != nil {
			return answers, r.err // every question after q is closed by now
		}
		answers = append(answers, r.ans)
	}
	return answers, nil
}

// openAll opens reqs as the questions of one call, consecutive in Pending.
// An ID is not checked against earlier ones: two of 2^32 random 128-bit IDs
// are equal with a chance of about 2^-65.
func (b *Inbox) openAll(reqs []Request) ([]*question, error) {
	random := make([]byte, 16*len(reqs))
	if _, err := rand.Read(random); err != nil {
		// Since Go 1.24 crypto/rand.Read never fails. Go 1.21 could.
		// Registry.Ask makes this error PROVIDER_FAILED.
		return nil, fmt.Errorf("userinteraction: Inbox: no random question ID: %w", err)
	}
	call := make([]*question, len(reqs))
	for i, req := range reqs {
		call[i] = &question{
			id:      hex.EncodeToString(random[16*i : 16*(i+1)]),
			req:     req.clone(),
			call:    call,
			index:   i,
			outcome: make(chan result, 1),
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byID == nil {
		b.byID = make(map[string]*question)
	}
	for _, q := range call {
		b.byID[q.id] = q
	}
	for _, q := range call {
		q.elem = b.open.PushBack(q)
	}
	b.publish()
	return call, nil
}

// giveUp closes the open questions of call with err, as their asker's ctx
// is done.
func (b *Inbox) giveUp(call []*question, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	changed := false
	for _, q := range call {
		changed = b.deliver(q, result{err: err}) || changed
	}
	if changed {
		b.publish()
	}
}

// deliver closes q with the outcome r and reports true, or reports false when
// q was closed already. b.mu is held. Each question receives exactly one
// outcome, so the send never blocks.
func (b *Inbox) deliver(q *question, r result) bool {
	if q.elem == nil {
		return false
	}
	delete(b.byID, q.id)
	b.open.Remove(q.elem)
	q.elem = nil
	q.outcome <- r
	return true
}

// publish makes a change of the open questions visible: it closes the
// Changed channel. b.mu is held.
func (b *Inbox) publish() {
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
}

// ----------------------------------------------------------------------------
// Replay

// Replay is a [Provider] for hosts that cannot keep a tool call open while
// the human thinks. It answers questions from a record of outcomes and
// collects the others as pending. The host runs the call with [Replay.Run],
// asks the pending questions out of band and records their outcomes with
// [Replay.Record]. Then it runs the call again, until nothing is pending.
// The tools do not change: they call [Ask] as always.
//
// A question's ID is the first 16 bytes, in lower-case hex, of the SHA-256
// of the request's RFC 8785 canonical JSON (JSON.stringify with sorted
// keys), a newline, and the count of equal requests the run asked before.
// Any language computes the same IDs. So a call must reach the same
// questions in the same order on every run. It must ask before it acts:
// what it does before an Ask happens again on every run.
//
// The zero value is an empty record ready to use. A Replay is safe for
// concurrent use. Its methods need a non-nil *Replay.
type Replay struct {
	mu      sync.Mutex         // guards the fields below
	record  map[string]outcome // outcomes by question ID
	pending []Pending          // questions of this run without an outcome, in the order asked
	asked   map[string]int     // how many times this run asked each request, by the ID of its first ask
	opened  bool               // pending holds the sealed questions, until the next run starts
}

var _ BatchProvider = (*Replay)(nil)

// Ask answers req from the record: a recorded answer, which [Registry.Ask]
// then checks as any provider's, or a recorded error. A question without an
// outcome joins [Replay.Pending] and Ask returns [CodeInputRequired]. An
// invalid req is [CodeInvalidRequest] and is not asked. Ask never waits, and
// ignores ctx.
func (p *Replay) Ask(ctx context.Context, req Request) (Answer, error) {
	if err := req.Validate(); err != nil {
		return Answer{}, err
	}
	answers, err := p.replay([]Request{req})
	if err != nil {
		return Answer{}, err
	}
	return answers[0], nil
}

// AskAll answers reqs from the record as Ask does, in order, up to the first
// recorded error. It puts every question up to there without an outcome into
// Pending at once, and then returns [CodeInputRequired]. A question's ID is
// the same whether it is asked by Ask or within AskAll.
func (p *Replay) AskAll(ctx context.Context, reqs []Request) ([]Answer, error) {
	if err := validateAll(reqs); err != nil {
		return nil, err
	}
	return p.replay(reqs)
}

// Run runs call once, as one run of a tool call, and returns the questions
// left pending. It starts a new run on p: the record stays, and the previous
// run's pending questions are forgotten. It makes p the provider of a new
// [Registry] in a context derived from ctx, so the caller's UI is never
// asked. It calls call with that context, then disposes p. One Replay can
// serve every run of a call, one run at a time: runs that overlap on one
// Replay forget each other's questions.
func (p *Replay) Run(ctx context.Context, call func(ctx context.Context)) []Pending {
	p.mu.Lock()
	p.startRun()
	p.mu.Unlock()
	r := &Registry{}
	dispose, _ := r.Register(p) // cannot fail: r is new and p is not nil
	defer dispose()
	call(WithRegistry(ctx, r))
	return p.Pending()
}

// Pending returns the questions this run asked that had no recorded outcome
// when asked, in the order asked. A later Record does not change it. After
// [OpenReplay] it returns the questions pending when the state was sealed,
// until the next run starts: [Replay.Run], or the first Ask or AskAll of a
// Replay registered without Run. The result shares no memory with p.
func (p *Replay) Pending() []Pending {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Pending, len(p.pending))
	for i, q := range p.pending {
		out[i] = Pending{ID: q.ID, Request: q.Request.clone()}
	}
	return out
}

// Record records the outcome of question id, as a live provider returns it:
// ans when err is nil, else err, kept as its {name, code, message} (an
// uncoded error as [CodeProviderFailed]). It replaces an earlier outcome of
// id, which need not be pending: the record may come from an earlier run. An
// error of code [CodeInputRequired] is no outcome and records nothing, and an
// id that is not valid UTF-8 is ignored.
func (p *Replay) Record(id string, ans Answer, err error) {
	o := outcome{answer: ans.clone()}
	if err != nil {
		o = outcome{err: recordedError(err)}
	}
	if !utf8.ValidString(id) || (o.err != nil && o.err.Code == CodeInputRequired) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.record == nil {
		p.record = make(map[string]outcome)
	}
	p.record[id] = o
}

// MarshalJSON encodes the record, not the pending questions: a JSON object
// that maps question IDs to outcomes. An answer is encoded as [Answer]
// encodes it, an error as [HarnessError] does.
func (p *Replay) MarshalJSON() ([]byte, error) {
	return json.Marshal(p.entries())
}

// UnmarshalJSON replaces the record with the one data encodes. It reads
// strictly, as other languages read: keys match exactly, case and all,
// unknown keys are refused, and so is a key twice in one object. Call it
// before the run's first Ask. On an error p is left as it was. JSON null
// changes nothing.
func (p *Replay) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	record, err := decodeRecord(data)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.record = record
	return nil
}

// Seal returns the record and the pending questions of p as state for a
// trip through a client, such as MCP's requestState. The state is URL-safe
// ASCII, authenticated with HMAC-SHA256 under key, and valid for ttl (expired
// at once when ttl is not positive). It is bound to binding, which
// identifies the call: the principal, the tool's name and its arguments, for
// example. Only a digest of binding is stored. The state is sealed, not
// encrypted: the client can read the answers it holds. A key shorter than
// 32 bytes is an uncoded error: the host's configuration error, not the
// client's.
func (p *Replay) Seal(key []byte, binding string, ttl time.Duration) (string, error) {
	if len(key) < minKey {
		return "", errShortKey
	}
	s := sealed[map[string]any]{
		Version: sealVersion,
		Expires: time.Now().Add(ttl).UnixMilli(),
		Binding: digest(binding),
		Record:  p.entries(),
		Pending: p.Pending(),
	}
	payload, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	return stateEncoding.EncodeToString(payload) + "." + stateEncoding.EncodeToString(mac(key, payload)), nil
}

// OpenReplay returns the Replay that [Replay.Seal] sealed in state, under key
// and for binding: its record, and as Pending the questions that were pending
// then, so that the host records the responses to exactly those. An empty
// state is the first round: a new, empty Replay.
//
// State that is tampered with, expired, sealed for another binding or under
// another key, or malformed is [CodeInvalidState]. Its message tells the
// model to call the tool again from the start, and its cause tells the host
// which check failed. A key shorter than 32 bytes is an uncoded error, as
// for Seal, also when state is empty.
func OpenReplay(key []byte, binding, state string) (*Replay, error) {
	if len(key) < minKey {
		return nil, errShortKey
	}
	if state == "" {
		return &Replay{}, nil
	}
	data, sum, ok := strings.Cut(state, ".")
	payload, err1 := stateEncoding.DecodeString(data)
	got, err2 := stateEncoding.DecodeString(sum)
	if !ok || err1 != nil || err2 != nil {
		return nil, invalidState(errors.New("malformed state"))
	}
	if !hmac.Equal(got, mac(key, payload)) {
		return nil, invalidState(errors.New("state tampered with or sealed under another key"))
	}
	var s sealed[json.RawMessage]
	if err := json.Unmarshal(payload, &s); err != nil || s.Version != sealVersion {
		return nil, invalidState(errors.New("malformed state"))
	}
	if s.Binding != digest(binding) {
		return nil, invalidState(errors.New("state sealed for another call"))
	}
	if time.Now().UnixMilli() >= s.Expires {
		return nil, invalidState(errors.New("state expired"))
	}
	record, err := decodeRecord(s.Record)
	if err != nil {
		return nil, invalidState(err)
	}
	return &Replay{record: record, pending: s.Pending, opened: true}, nil
}

// replay answers the valid requests reqs from the record, as AskAll says.
func (p *Replay) replay(reqs []Request) ([]Answer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.opened { // the first ask of a Replay registered without Run starts its run
		p.startRun()
	}
	var answers []Answer // of the questions before the first without an outcome
	var missing []string // the IDs of the questions without an outcome
	var failed error     // the first recorded error
	for i := range reqs {
		req := &reqs[i]
		id := p.id(req)
		o, ok := p.record[id]
		if !ok {
			missing = append(missing, id)
			p.pending = append(p.pending, Pending{ID: id, Request: req.clone()})
			continue
		}
		if o.err != nil {
			failed = o.error() // the human's outcome ends the batch
			break
		}
		if len(missing) == 0 {
			answers = append(answers, o.answer.clone())
		}
	}
	switch len(missing) {
	case 0:
		return answers, failed
	case 1:
		return answers, NewError(CodeInputRequired, "input required: question "+missing[0]+
			" has no recorded answer; the host asks it and runs the call again", nil)
	}
	return answers, NewError(CodeInputRequired, fmt.Sprintf("input required: %d questions, the first %s, have no recorded answer; "+
		"the host asks them and runs the call again", len(missing), missing[0]), nil)
}

// id returns the ID of req, valid, one more ask of it in this run. p.mu is
// held.
func (p *Replay) id(req *Request) string {
	var scratch [256]byte // enough for most requests, without a heap buffer
	canonical := appendCanonical(scratch[:0], req)
	first := questionID(canonical, 0) // the ID of req's first ask: its key in p.asked
	if p.asked == nil {
		p.asked = make(map[string]int)
	}
	n := p.asked[first]
	p.asked[first] = n + 1
	if n == 0 {
		return first
	}
	return questionID(canonical, n)
}

// questionID returns the ID of the request whose canonical JSON is
// canonical, asked n times before in its run. It appends the count in the
// spare capacity of canonical, which keeps its length: a caller can ask for
// another count.
func questionID(canonical []byte, n int) string {
	buf := append(canonical, '\n')
	buf = strconv.AppendInt(buf, int64(n), 10)
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:16])
}

// startRun starts a new run on p: the record stays, the asks and pending
// questions of the previous run (or of the sealed state) are forgotten. p.mu
// is held. The map of asks is cleared, not dropped: the next run fills it
// again without allocating, and it keeps the size of the largest run.
func (p *Replay) startRun() {
	p.pending, p.opened = nil, false
	clear(p.asked)
}

// entries returns the record as encoding/json encodes it: each outcome as
// its answer or its error. They are values without a MarshalJSON method,
// whose output encoding/json would check again, taking longer than the
// encoding itself.
func (p *Replay) entries() map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	entries := make(map[string]any, len(p.record))
	for id, o := range p.record {
		if o.err != nil {
			entries[id] = o.err
		} else {
			entries[id] = wireAnswer(o.answer)
		}
	}
	return entries
}

// ----------------------------------------------------------------------------
// Replay: sealed state

// sealed is the payload of sealed state, authenticated by its MAC. Seal
// holds its record as entries (a map[string]any), encoded in the same pass,
// since a json.RawMessage would be checked again once encoded. OpenReplay
// holds it raw (a json.RawMessage), for decodeRecord's strict reading.
type sealed[Record any] struct {
	Version int       `json:"v"`
	Expires int64     `json:"exp"`  // Unix milliseconds
	Binding string    `json:"bind"` // digest of the binding
	Record  Record    `json:"record"`
	Pending []Pending `json:"pending,omitempty"`
}

const (
	sealVersion = 2  // 2: the MAC key is derived from the key (see mac)
	minKey      = 32 // bytes of a sealing key, at least
)

// stateEncoding encodes sealed state. It is Strict, so each state has one
// spelling.
var stateEncoding = base64.RawURLEncoding.Strict()

// errShortKey is the host's configuration error, not the client's: uncoded.
var errShortKey = errors.New("userinteraction: the sealing key is shorter than 32 bytes")

// mac returns the HMAC-SHA256 of sealed state's payload. Its key is derived
// from the whole of key, under a label of its own: raw HMAC would pad a short
// key with zeros and hash a long one, so that a key K and K+"\x00", or a long
// key and its SHA-256, would open each other's state.
func mac(key, payload []byte) []byte {
	derived := sha256.New()
	derived.Write([]byte("userinteraction seal\n"))
	derived.Write(key)
	h := hmac.New(sha256.New, derived.Sum(nil))
	h.Write(payload)
	return h.Sum(nil)
}

// digest returns the SHA-256 of a binding, in hex.
func digest(binding string) string {
	sum := sha256.Sum256([]byte(binding))
	return hex.EncodeToString(sum[:])
}

// invalidState returns the INVALID_STATE error for state that cause says
// why OpenReplay refused. Its message tells the model what to do, and no
// more of why.
func invalidState(cause error) error {
	return NewError(CodeInvalidState, "invalid state: the answers of this call cannot be used, so call the tool again from the start", cause)
}

// ----------------------------------------------------------------------------
// Replay: the record's JSON

// outcome is a recorded outcome: an answer, or the coded error in its place.
type outcome struct {
	answer Answer
	err    *HarnessError // nil for an answer; never with a cause
}

// recordedError returns the {name, code, message} that stands for err in a
// record: its own when it carries a code, else the PROVIDER_FAILED that
// Registry.Ask would return for it.
func recordedError(err error) *HarnessError {
	var he *HarnessError
	if isTypedNil(err) || CodeOf(err) == "" {
		he = &providerFailed(err).HarnessError
	} else {
		errors.As(err, &he)
	}
	return &HarnessError{Name: he.Name, Code: he.Code, Message: he.Message}
}

// error returns the recorded error as Ask returns it: a *UserInteractionError
// when it is named so.
func (o outcome) error() error {
	if o.err.Name == errorName {
		return NewError(o.err.Code, o.err.Message, nil)
	}
	he := *o.err
	return &he
}

// decodeRecord decodes a record's JSON in one pass, key by key, so that it
// sees every key as written: encoding/json alone would read "Answer" as
// "answer", where other languages read only "answer", and would let the last
// of two equal keys win, where other readers keep the first. So an outcome's
// keys are exact, unknown keys are refused, and so is a key that appears
// twice in one object, at any depth.
func decodeRecord(data []byte) (map[string]outcome, error) {
	fail := func(err error) (map[string]outcome, error) {
		return nil, fmt.Errorf("userinteraction: Replay record: %w", err)
	}
	if !json.Valid(data) {
		var v any
		return fail(json.Unmarshal(data, &v)) // the syntax error
	}
	r := &recordReader{data: data}
	record := make(map[string]outcome)
	if r.peek() != '{' {
		return fail(fmt.Errorf("want a JSON object, not %s", r.kind()))
	}
	err := r.fields(nil, func(id string) error {
		if _, dup := record[id]; dup {
			return fmt.Errorf("userinteraction: Replay record: duplicate key %s", quote(id))
		}
		var o outcome
		if err := o.read(r); err != nil {
			return fmt.Errorf("userinteraction: Replay record entry %s: %w", quote(id), err)
		}
		record[id] = o
		return nil
	})
	if err != nil {
		return nil, err
	}
	for id, o := range record {
		if o.err != nil && o.err.Code == CodeInputRequired {
			delete(record, id)
		}
	}
	return record, nil
}

// Keys of a record's objects.
var (
	outcomeKeys = []string{"answer", "option", "options", "name", "code", "message"}
	optionKeys  = []string{"label", "value", "description", "recommended"}
)

// read reads an outcome's JSON object from r, strictly: see decodeRecord.
// It has an "answer" or a "code", and only the keys of that kind of outcome.
func (o *outcome) read(r *recordReader) error {
	if r.peek() != '{' {
		return fmt.Errorf("want a JSON object, not %s", r.kind())
	}
	var ans Answer
	var he HarnessError
	var hasAnswer, hasCode bool
	var answerKey, errorKey string // a key of an answer, and of an error, when read
	err := r.fields(outcomeKeys, func(key string) (err error) {
		switch key {
		case "answer":
			hasAnswer, answerKey = true, key
			ans.Text, err = r.string(key)
		case "option":
			answerKey = key
			ans.Option, err = r.option()
		case "options":
			answerKey = key
			ans.Options, err = r.options()
		case "name":
			errorKey = key
			he.Name, err = r.string(key)
		case "code":
			hasCode, errorKey = true, key
			he.Code, err = r.string(key)
		case "message":
			errorKey = key
			he.Message, err = r.string(key)
		}
		return err
	})
	switch {
	case err != nil:
		return err
	case hasAnswer == hasCode:
		return errors.New(`an outcome has either an "answer" or a "code"`)
	case hasAnswer && errorKey != "":
		return fmt.Errorf("unknown key %s", quote(errorKey))
	case hasCode && answerKey != "":
		return fmt.Errorf("unknown key %s", quote(answerKey))
	case hasCode && he.Code == "":
		return errors.New(`an outcome's "code" is empty`)
	case hasCode:
		*o = outcome{err: &he}
	default:
		*o = outcome{answer: ans}
	}
	return nil
}

// recordReader reads a record's JSON, which json.Valid accepted, in one
// pass. (json.Decoder's Token reads keys as written too, but it builds an
// error value after each string in an object: 57 allocations an entry.)
type recordReader struct {
	data []byte
	pos  int // of the next byte to read
}

// peek skips white space and returns the byte at r.pos, or 0 at the end.
func (r *recordReader) peek() byte {
	for ; r.pos < len(r.data); r.pos++ {
		if c := r.data[r.pos]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c
		}
	}
	return 0
}

// kind names the JSON value at r.pos, for messages.
func (r *recordReader) kind() string {
	switch r.data[r.pos] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// fields reads the JSON object that starts at r.pos, and has value read the
// value of each key. A key must be one of keys, exactly, and appear once;
// nil keys allow any key, and value checks that it appears once.
func (r *recordReader) fields(keys []string, value func(key string) error) error {
	var buf [8]string
	seen := buf[:0] // a list: an object with keys has a handful
	r.pos++         // '{'
	for {
		switch r.peek() {
		case '}':
			r.pos++
			return nil
		case ',':
			r.pos++
			r.peek()
		}
		k := r.text()
		if keys != nil {
			if !slices.Contains(keys, k) {
				return fmt.Errorf("unknown key %s", quote(k))
			}
			if slices.Contains(seen, k) {
				return fmt.Errorf("duplicate key %s", quote(k))
			}
			seen = append(seen, k)
		}
		r.peek()
		r.pos++ // ':'
		r.peek()
		if err := value(k); err != nil {
			return err
		}
	}
}

// text reads the JSON string at r.pos. One without escapes, and valid UTF-8,
// is its bytes; any other is decoded by encoding/json, which knows every
// escape and replaces invalid UTF-8 as it always has.
func (r *recordReader) text() string {
	start, plain := r.pos, true
	for r.pos++; r.data[r.pos] != '"'; r.pos++ {
		if r.data[r.pos] == '\\' {
			plain = false
			r.pos++ // the escaped byte, maybe a '"'
		}
	}
	r.pos++
	raw := r.data[start:r.pos]
	if plain && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	_ = json.Unmarshal(raw, &s) // cannot fail: json.Valid accepted raw
	return s
}

// string reads the value of key, a JSON string or null ("").
func (r *recordReader) string(key string) (string, error) {
	switch r.data[r.pos] {
	case '"':
		return r.text(), nil
	case 'n':
		r.pos += len("null")
		return "", nil
	}
	return "", fmt.Errorf("%s is %s, not a string", quote(key), r.kind())
}

// option reads the value of "option": an option's JSON object, or null.
func (r *recordReader) option() (*Option, error) {
	if r.data[r.pos] == 'n' {
		r.pos += len("null")
		return nil, nil
	}
	o, err := r.optionObject()
	return &o, err
}

// options reads the value of "options": a JSON array of options, or null;
// an empty array is nil, as [Answer] decodes it.
func (r *recordReader) options() ([]Option, error) {
	switch r.data[r.pos] {
	case 'n':
		r.pos += len("null")
		return nil, nil
	case '[':
		// an array: read below
	default:
		return nil, fmt.Errorf(`"options" is %s, not an array`, r.kind())
	}
	var opts []Option
	r.pos++ // '['
	for {
		switch r.peek() {
		case ']':
			r.pos++
			return opts, nil
		case ',':
			r.pos++
			r.peek()
		}
		o, err := r.optionObject()
		if err != nil {
			return nil, err
		}
		opts = append(opts, o)
	}
}

// optionObject reads an option's JSON object, strictly.
func (r *recordReader) optionObject() (Option, error) {
	var o Option
	if r.data[r.pos] != '{' {
		return o, fmt.Errorf("option: want a JSON object, not %s", r.kind())
	}
	err := r.fields(optionKeys, func(key string) (err error) {
		switch key {
		case "label":
			o.Label, err = r.string(key)
		case "value":
			o.Value, err = r.string(key)
		case "description":
			o.Description, err = r.string(key)
		case "recommended":
			o.Recommended, err = r.boolean(key)
		}
		return err
	})
	if err != nil {
		return o, fmt.Errorf("option: %w", err)
	}
	return o, nil
}

// boolean reads the value of key, a JSON boolean or null (false).
func (r *recordReader) boolean(key string) (bool, error) {
	switch r.data[r.pos] {
	case 't':
		r.pos += len("true")
		return true, nil
	case 'f':
		r.pos += len("false")
		return false, nil
	case 'n':
		r.pos += len("null")
		return false, nil
	}
	return false, fmt.Errorf("%s is %s, not a boolean", quote(key), r.kind())
}

// ----------------------------------------------------------------------------
// FirstOf

// errAnsweredElsewhere is the cause of the context of a UI that FirstOf
// withdraws because another UI answered first.
var errAnsweredElsewhere = errors.New("another UI answered the question")
