// The seam a tool asks through, and the providers the package ships. The
// file reads in parts, each opened by a "// ----" line and its title.
//
//	Providers and the registry         the seam: Provider, Registry, Register, Ask, AskAll
//	Shared by the providers            Pending, Claim, WithClaim, EndedElsewhere, ctxErr, goCall
//	Terminal                           NewTerminal's Provider, on a text terminal
//	Form                               NewForm's Provider, for clients that render forms
//	Inbox                              a Provider for a UI outside the process
//	Inbox: the handler and its routes  Inbox.Handler, which serves an Inbox to a web browser
//	Replay                             a Provider for hosts that cannot wait: the record and its runs
//	Replay: sealed state               Seal and OpenReplay
//	Replay: the record's JSON          the record's JSON and its strict reader
//	FirstOf                            a Provider that asks several UIs at once
//	Inbox: the web page                the page's HTML, style, script and CSP
//
// Each part uses the registry, the shared part and its own sub-parts
// ("Inbox: the web page" belongs to "Inbox"), never another provider's
// part. The registry uses no part after it, and the shared part only the
// registry. TestProviderPartsDependOneWay checks both.

package userinteraction

import (
	"bufio"
	"bytes"
	"container/list"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// ----------------------------------------------------------------------------
// Providers and the registry

// Provider answers questions on behalf of the human. A UI surface implements
// it and becomes the active provider of a [Registry] with [Register].
type Provider interface {
	// Ask asks the human req and returns their answer. It may be called
	// concurrently, once per question, on the asking tool's goroutine. ctx
	// carries the caller's values. It is done when the caller gives up or
	// the registration is disposed, and Ask should then return soon,
	// typically with ctx.Err().
	//
	// The answer is [Option.Answer] of the picked option, [Pick] of several,
	// or Answer{Text: typed} for the human's own words. [Registry.Ask]
	// completes and checks it. A refusal to answer is
	// NewError([CodeAskDeclined], ...), and a dismissed question
	// NewError([CodeAskCancelled], ...). A provider that tells its human
	// their answer was taken calls [Claim] first.
	//
	// Ask must not modify req or its options, as an http.Handler must not
	// modify its Request.
	Ask(ctx context.Context, req Request) (Answer, error)
}

// BatchProvider is a [Provider] that can show several questions at once, in
// one dialog, form or round trip. It is optional, as io.WriterTo is for an
// io.Writer. [Registry.AskAll] uses it when the active provider has it.
type BatchProvider interface {
	Provider

	// AskAll answers reqs in order, under the rules of Ask. It returns one
	// answer per request, or the answers before the failed question and its
	// error. It must not modify or keep reqs.
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

// Registry holds the single active [Provider] of one scope, such as an agent
// session. Its zero value is ready to use, and a nil *Registry has none. It
// is safe for concurrent use and must not be copied after first use.
type Registry struct {
	// Ended, when set, is called once for every question asked through the
	// registry, once it ended and before Ask or AskAll returns, on the asking
	// goroutine, with the request and the Outcome that Ask returns. An
	// invalid request is a question that ended too. It is a host's audit
	// trail. It must not modify req. A panic in it propagates to the caller
	// of Ask. Set it before the registry is used.
	Ended func(req Request, o Outcome)

	// active is the registration of the active provider, or nil. Atomic so
	// that Ask finds the provider without a registry-wide lock.
	active atomic.Pointer[registration]
}

// WithRegistry returns a copy of ctx that carries r, the scope that
// [Register] and [Ask] use. A nil r hides any registry that ctx carries. A
// nil ctx is taken as context.Background().
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

// Register makes p the active provider of the registry that ctx carries, as
// [Registry.Register] does. Without a registry it returns [CodeNoRegistry].
func Register(ctx context.Context, p Provider) (dispose func(), err error) {
	return FromContext(ctx).Register(p)
}

// Ask asks req of the active provider of the registry that ctx carries, as
// [Registry.Ask] does. Without a registry it returns [CodeNoProvider].
func Ask(ctx context.Context, req Request) (Answer, error) {
	return FromContext(ctx).Ask(ctx, req)
}

// AskAll asks reqs of the active provider of the registry that ctx carries,
// as [Registry.AskAll] does. Without a registry it returns [CodeNoProvider].
func AskAll(ctx context.Context, reqs []Request) ([]Answer, error) {
	return FromContext(ctx).AskAll(ctx, reqs)
}

// Register makes p the active provider of r. It returns dispose, which
// unregisters p. It fails, leaving r as it was, with these codes.
//
//   - [CodeNoRegistry] when r is nil.
//   - [CodeInvalidProvider] when p is a nil interface, or a nil pointer or
//     func of any type.
//   - [CodeDuplicateProvider] when another provider is active.
//
// dispose is never nil, and does nothing after a failed Register. Its first
// call removes p and cancels the contexts of the asks p is answering. They
// return [CodeAskAborted], unless p still answers. p is not called again.
// Later calls do nothing, as does a stale dispose after another Register.
// dispose may be called from any goroutine, p.Ask included, and never waits
// for p.
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

// Ask asks req of the active provider of r and waits for the answer. It
// takes these steps, in order.
//
//  1. A nil ctx is [CodeInvalidRequest], and a done one [CodeAskAborted].
//  2. An invalid req is the error of [Request.Validate].
//  3. No active provider is [CodeNoProvider].
//  4. Unless its context is done already, the provider is called on the
//     caller's goroutine, holding no lock. That context carries ctx's values,
//     and ends with ctx or with the registration.
//  5. A provider's error with a code ([CodeOf]) is returned as it is. Any
//     other is [CodeProviderFailed], or [CodeAskAborted] once the context
//     ended. That wraps ctx.Err() and context.Cause(ctx) when ctx ended, but
//     no [context.Canceled] after a disposal.
//  6. The answer is completed and checked as [Answer] says, and a broken
//     rule is [CodeInvalidAnswer].
//
// The provider's answer is returned even after ctx ended or a disposal. A
// panic in the provider propagates and leaves r consistent. Then r.Ended,
// when set, gets the outcome.
func (r *Registry) Ask(ctx context.Context, req Request) (Answer, error) {
	ans, err := r.ask(ctx, req)
	if r != nil && r.Ended != nil {
		r.Ended(req, Outcome{Answer: ans, Err: err})
	}
	return ans, err
}

// ask is [Registry.Ask] before r.Ended is called.
func (r *Registry) ask(ctx context.Context, req Request) (Answer, error) {
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

// AskAll asks the active provider of r several questions at once, and
// returns their answers in order. Steps 1 to 3 of [Registry.Ask] apply to
// the whole call. No requests, or an invalid one, is [CodeInvalidRequest]
// naming it ("questions[2]: ..."). A [BatchProvider] is asked once, and any
// other provider one request after another. Each answer is checked against
// its request, and [CodeInvalidAnswer] names the question. Errors map as in
// Ask, and a disposal aborts the rest of the batch.
//
// On an error, AskAll returns it with the answers before it. Then r.Ended is
// called for each request in order, when set. The requests after the
// answered ones get the error.
func (r *Registry) AskAll(ctx context.Context, reqs []Request) ([]Answer, error) {
	answers, err := r.askAll(ctx, reqs)
	if r != nil && r.Ended != nil {
		for i := range reqs {
			o := Outcome{Err: err}
			if i < len(answers) {
				o = Outcome{Answer: answers[i]}
			}
			r.Ended(reqs[i], o)
		}
	}
	return answers, err
}

// askAll is [Registry.AskAll] before r.Ended is called.
func (r *Registry) askAll(ctx context.Context, reqs []Request) ([]Answer, error) {
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

// isNilProvider reports whether p is a nil interface, or a nil pointer or
// func of any type, whose methods would panic. The registry knows no
// provider type. A provider that cannot work says so from its own Ask.
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

// registration is one successful Register. It holds a provider and the asks
// it is answering, so that disposing it can abort them.
type registration struct {
	registry *Registry
	provider Provider

	mu       sync.Mutex                         // guards the fields below
	asks     map[uint64]context.CancelCauseFunc // the asks in flight, by number, with the funcs that cancel their providers' contexts
	next     uint64                             // the number of the next ask
	disposed bool
}

// errDisposed is the cause of the context handed to a provider whose
// registration was disposed while it was answering.
var errDisposed = errors.New("provider disposed")

// track records an ask in flight, whose provider context is cancelled by
// cancel, and returns its number. It reports false when reg is disposed.
func (reg *registration) track(cancel context.CancelCauseFunc) (n uint64, ok bool) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.disposed {
		return 0, false
	}
	if reg.asks == nil {
		reg.asks = make(map[uint64]context.CancelCauseFunc)
	}
	n, reg.next = reg.next, reg.next+1
	reg.asks[n] = cancel
	return n, true
}

// untrack forgets the ask in flight numbered n.
func (reg *registration) untrack(n uint64) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	delete(reg.asks, n)
}

// dispose unregisters reg, if it is still the active registration, and aborts
// the asks in flight on it. The cancel funcs run after reg.mu is released.
// They never call a provider, but holding no lock keeps dispose deadlock-free.
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

// An inflight is one Ask or AskAll call in flight, recorded on the
// registration whose provider answers it.
type inflight struct {
	reg    *registration
	n      uint64                  // its number in reg.asks
	caller context.Context         // the caller's ctx
	ctx    context.Context         // handed to the provider
	cancel context.CancelCauseFunc // cancels ctx
}

// begin records an ask of the caller's ctx on the active registration, or
// returns NO_PROVIDER. A registration that is disposed before the ask is
// recorded refuses it. Ask never waits for, or retries with, a newer one.
func (r *Registry) begin(ctx context.Context) (inflight, error) {
	reg := r.registration()
	if reg == nil {
		return inflight{}, noProvider(r != nil)
	}
	actx, cancel := context.WithCancelCause(ctx)
	n, ok := reg.track(cancel)
	if !ok {
		cancel(nil)
		return inflight{}, noProvider(true)
	}
	return inflight{reg: reg, n: n, caller: ctx, ctx: actx, cancel: cancel}, nil
}

// finish forgets the finished ask and releases its context.
func (a *inflight) finish() {
	a.reg.untrack(a.n)
	a.cancel(nil)
}

// askProvider asks req, valid, of the provider of a, as steps 4 to 6 of Ask
// say. which names the question in an INVALID_ANSWER ("questions[2]: ").
func (a *inflight) askProvider(req *Request, which string) (Answer, error) {
	// The provider is never called once its context is done. dispose cancels
	// a.ctx under that context's lock, so a dispose that has returned is seen
	// here. One that comes later aborts a question being asked, as any other.
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
	if err != nil {
		err = a.askErr(err)
	}
	return checkBatch(reqs, given, err)
}

// abortErr returns the ASK_ABORTED error when the provider's context of a
// is done, or nil. stage says what had happened to the question ("asked" or
// "answered"). Disposal is judged from a's own two contexts. a's context is
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
		// A nested ask took this ask's disposal for its caller's
		// cancellation. This ask knows the cause.
		return a.abortErr("answered")
	case code != "":
		return err // the human's outcome, or another plugin family's
	}
	if err := a.abortErr("answered"); err != nil {
		return err
	}
	return providerFailed(err)
}

// checkCtx returns the error of Registry.Ask for a caller's ctx that it
// cannot ask with. A nil ctx is INVALID_REQUEST, and a done one ASK_ABORTED.
func checkCtx(ctx context.Context) error {
	switch {
	case ctx == nil:
		return NewError(CodeInvalidRequest, "invalid request: context is nil", nil)
	case ctx.Err() != nil:
		return aborted(ctx, "asked")
	}
	return nil
}

// ----------------------------------------------------------------------------
// Shared by the providers

// Pending is a question that waits for an outcome. A [Replay] run asked it
// and had none recorded, or it is open in an [Inbox]. The host asks the
// human, and records or responds with the outcome under ID.
type Pending struct {
	ID       string
	Request  Request
	Batch    string    // shared by the questions of one AskAll, empty for a lone Ask
	Index    int       // the question's place in its batch, from 0
	Count    int       // the number of questions in its batch, 0 for a lone Ask
	Hint     string    // why the last response was refused, for the UI to lead with
	Deadline time.Time // the asker's deadline, when its context has one (Inbox only)
}

// Elicitation returns [Request.Elicitation] of q's request. Its message is
// led by the Hint, when there is one, and then by "Question 2 of 3." in a
// batch of several, each on a line of its own.
func (q Pending) Elicitation() Elicitation {
	form := q.Request.Elicitation()
	if q.Count > 1 {
		form.Message = fmt.Sprintf("Question %d of %d.\n", q.Index+1, q.Count) + form.Message
	}
	if q.Hint != "" {
		form.Message = q.Hint + "\n" + form.Message
	}
	return form
}

// wirePending is the JSON shape of a Pending. Its request is the JSON shape
// too, so that encoding/json reads and writes it in one pass. A Request
// field would have its JSON checked again by its methods.
type wirePending struct {
	ID       string      `json:"id"`
	Request  wireRequest `json:"request"`
	Batch    string      `json:"batch,omitempty"`
	Index    int         `json:"index,omitempty"`
	Count    int         `json:"count,omitempty"`
	Hint     string      `json:"hint,omitempty"`
	Deadline *time.Time  `json:"deadline,omitempty"`
}

// MarshalJSON encodes q as {"id", "request", "batch"?, "index"?, "count"?,
// "hint"?, "deadline"?}, the deadline in RFC 3339.
func (q Pending) MarshalJSON() ([]byte, error) {
	return json.Marshal(q.wire())
}

// wire returns q's JSON shape.
func (q *Pending) wire() wirePending {
	w := wirePending{ID: q.ID, Request: q.Request.wire(), Batch: q.Batch, Index: q.Index, Count: q.Count, Hint: q.Hint}
	if !q.Deadline.IsZero() {
		w.Deadline = &q.Deadline
	}
	return w
}

// pending returns the Pending that w is the JSON shape of.
func (w *wirePending) pending() Pending {
	q := Pending{ID: w.ID, Request: w.Request.request(), Batch: w.Batch, Index: w.Index, Count: w.Count, Hint: w.Hint}
	if w.Deadline != nil {
		q.Deadline = *w.Deadline
	}
	return q
}

// UnmarshalJSON decodes the JSON object of [Pending.MarshalJSON] into q,
// replacing every field.
func (q *Pending) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var w wirePending
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*q = w.pending()
	return nil
}

// Claim reports whether o, the answer or decline that a provider is about
// to confirm to its human, is the question's outcome, and takes it if so. A
// provider calls Claim with the ctx of its Ask before it tells its human
// their answer was taken. It tells them only when Claim returns true. In a
// [FirstOf] race only the first claim wins, and none once the asker
// stopped. A claim of [WithClaim] is asked too. Elsewhere Claim returns
// true.
func Claim(ctx context.Context, o Outcome) bool {
	c, _ := ctx.Value(claimKey{}).(claimer)
	return c == nil || c.claim(o)
}

// WithClaim returns a copy of ctx for a provider to ask another UI under.
// Before that UI tells its human their answer was taken, it calls [Claim],
// and so claim, with the question's [Outcome]. The outcome is taken only
// when claim returns true. The Inbox claims in Respond, and a refused
// outcome is [CodeNotPending] there. A host that must keep answers through
// a crash writes the outcome to durable storage in claim, and reports
// whether that worked. A claimer that ctx holds already, such as a
// [FirstOf] race, decides first. claim runs on the UI's goroutine while the
// UI holds the question, and may block. With a nil claim, WithClaim returns
// ctx.
func WithClaim(ctx context.Context, claim func(o Outcome) bool) context.Context {
	if claim == nil {
		return ctx
	}
	return context.WithValue(ctx, claimKey{}, claimer(&claimFunc{outer: ctx, take: claim}))
}

// EndedElsewhere reports the winner's outcome when [FirstOf] withdrew the
// ask of ctx because another UI won. For a batch it is the decline or the
// last answer. Otherwise, and while ctx is live, it reports false.
func EndedElsewhere(ctx context.Context) (Outcome, bool) {
	if ctx == nil || ctx.Err() == nil {
		return Outcome{}, false
	}
	var e *endedElsewhere
	if errors.As(context.Cause(ctx), &e) {
		return e.outcome, true
	}
	// A win may come as ctx ends another way, as by a deadline.
	return lostRace(ctx)
}

// A claimer decides a race between UIs for one question: [FirstOf]'s, or a
// host's of [WithClaim]. claim is [Claim] for the ask whose context holds it.
type claimer interface {
	claim(o Outcome) bool
	lostTo() (Outcome, bool) // the winner's outcome, when another UI won
}

// claimKey is the context key of the claimer of an ask in a race.
type claimKey struct{}

// claimFunc is the claimer that [WithClaim] puts in a context.
type claimFunc struct {
	outer context.Context // the context given to WithClaim, whose claimer decides first
	take  func(o Outcome) bool
}

func (c *claimFunc) claim(o Outcome) bool {
	return Claim(c.outer, o) && c.take(o)
}

func (c *claimFunc) lostTo() (Outcome, bool) {
	return lostRace(c.outer)
}

// lostRace returns the outcome of the UI that won the race ctx is an ask
// of, when another UI won it.
func lostRace(ctx context.Context) (Outcome, bool) {
	if c, ok := ctx.Value(claimKey{}).(claimer); ok {
		return c.lostTo()
	}
	return Outcome{}, false
}

// endedElsewhere is the cause of the context of a UI that FirstOf withdraws
// because another UI won, with the winner's outcome.
type endedElsewhere struct {
	outcome Outcome
}

func (e *endedElsewhere) Error() string {
	return "the question ended on another UI"
}

// ctxErr returns the error that a provider of this package returns for ctx
// before it asks, also when called without a registry. A nil ctx is
// INVALID_REQUEST, as Registry.Ask gives. Else it is ctx.Err().
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return NewError(CodeInvalidRequest, "invalid request: context is nil", nil)
	}
	return ctx.Err()
}

// errStopped is the error of a call that goCall made and that ended its
// goroutine without returning or panicking with a value: runtime.Goexit, or
// panic(nil) under GODEBUG=panicnil=1. The Terminal's reads and writes, a
// Form's elicit and FirstOf's members share it.
var errStopped = errors.New("userinteraction: a call stopped its goroutine without returning")

// goCall calls f on a goroutine of its own, so that its caller can stop
// waiting for it. It sends what came of the call on done, which has room for
// it, so the goroutine never blocks. It always sends, so that a panic or a
// Goexit leaves no caller waiting. A panic is sent as called.panicked, for
// the caller to raise again on its own goroutine. Raised on this one, it
// would end the process. A call that did not return sends stopped, the
// caller's fallback.
func goCall[T any](done chan<- called[T], stopped T, f func() T) {
	go func() {
		c := called[T]{value: stopped}
		defer func() {
			if v := recover(); v != nil {
				c.panicked = v
			}
			done <- c
		}()
		c.value = f()
	}()
}

// called is what came of a call that goCall made.
type called[T any] struct {
	value    T   // what the call returned, or goCall's stopped
	panicked any // what the call panicked with, or nil
}

// ----------------------------------------------------------------------------
// Terminal

// Terminal is a [Provider] that asks on a text terminal, or on any reader and
// writer. Make one with [NewTerminal]. A Terminal is safe for concurrent use,
// and its asks take turns.
type Terminal struct {
	in   *bufio.Reader
	out  io.Writer
	turn chan struct{} // holds a token while a question or a batch is asked

	// Guarded by turn.
	read    chan called[line]  // the read in flight, or nil
	written chan called[error] // the last write in flight, or nil
	midLine bool               // the last output is a prompt that no line answered
	columns int                // the width of the last question's rows
}

var _ BatchProvider = (*Terminal)(nil)

// NewTerminal returns a Terminal that reads the human's replies from in and
// writes to out. It buffers in, so in serves this Terminal only. A nil in
// has ended, and a nil out discards what is written.
func NewTerminal(in io.Reader, out io.Writer) *Terminal {
	if in == nil {
		in = strings.NewReader("")
	}
	if out == nil {
		out = io.Discard
	}
	return &Terminal{in: bufio.NewReader(in), out: out, turn: make(chan struct{}, 1)}
}

// Ask writes req and reads the human's reply, an answer with Via "terminal".
// An invalid req is [CodeInvalidRequest], and a zero Terminal's Ask
// [CodeInvalidProvider].
//
// Each row of req's text is led by "|" or indented under an option's number.
// Rows are as wide as $COLUMNS says, else the terminal, else 80 columns.
//
// Ask reads a line only while a question waits. A line picks options by
// number ("2", "#2") or label, several with commas, or the recommended ones
// when empty. Other text is the human's own answer, when
// [Request.CustomAllowed]. Ask says why it refuses a line, and asks again.
//
// End of input, or a read error, is [CodeAskCancelled], and a write error is
// returned as it is. When ctx is done, Ask says why and returns ctx.Err(). A
// panic of the reader or writer is raised in Ask. Run Ask under
// signal.NotifyContext for Ctrl-C to cancel it.
func (t *Terminal) Ask(ctx context.Context, req Request) (Answer, error) {
	if err := req.Validate(); err != nil {
		return Answer{}, err
	}
	if err := t.acquire(ctx); err != nil {
		return Answer{}, err
	}
	defer t.release()
	return t.ask(ctx, &req, place{count: 1})
}

// AskAll asks reqs as Ask does, one after another, each headed "Question 2
// of 3", with no other question between them. When another UI answers the
// batch, AskAll says that the answers typed here were not used.
func (t *Terminal) AskAll(ctx context.Context, reqs []Request) ([]Answer, error) {
	if err := validateAll(reqs); err != nil {
		return nil, err
	}
	if err := t.acquire(ctx); err != nil {
		return nil, err
	}
	defer t.release()
	answers := make([]Answer, 0, len(reqs))
	for i := range reqs {
		ans, err := t.ask(ctx, &reqs[i], place{index: i, count: len(reqs)})
		if err != nil {
			return answers, err
		}
		answers = append(answers, ans)
	}
	return answers, nil
}

// The Terminal's limits and defaults.
const (
	maxLine         = 1 << 20     // the longest line, in bytes, that a Terminal reads
	defaultColumns  = 80          // the width of rows when neither $COLUMNS nor the terminal says one
	minColumns      = 20          // the narrowest rows: the longest lead and a wide character fit
	descriptionRows = 3           // so that descriptions cannot push the options out of sight
	sayWait         = time.Second // how long the line that ends an ask may take to write
)

// The Terminal's notices.
const (
	staleNotice   = "A line typed before this question was shown was ignored."
	timeUpNotice  = "No answer came before the deadline."
	stoppedNotice = "The agent no longer needs an answer."
	// narrowedNotice says why a reply was not taken: the terminal wrapped
	// the question's rows again, so the human may have read a row that the
	// model's text drew.
	narrowedNotice = "The terminal got narrower, so that reply was not taken. Here is the question again."
	unkeptNotice   = "That answer could not be kept. Here is the question again."
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

// place is a question's place in what one Ask or AskAll asks.
type place struct {
	index, count int
}

// heading returns the line that heads the question at p, or "" for a lone
// question.
func (p place) heading() string {
	if p.count < 2 {
		return ""
	}
	return fmt.Sprintf("Question %d of %d", p.index+1, p.count)
}

// ask asks req, the question at p, and returns its answer. The answer of
// the last question of a batch is claimed first ([Claim]), so that only an
// answer that is taken is returned. When the ask ends without one, the
// human is told how, before ask returns.
func (t *Terminal) ask(ctx context.Context, req *Request, p place) (Answer, error) {
	typed := p.index // the answers typed here for the batch
	if err := ctx.Err(); err != nil {
		if typed > 0 { // else nothing was shown
			t.ended(ctx, err, p, typed)
		}
		return Answer{}, err
	}
	ans, err := t.answer(ctx, req, p)
	for err == nil && p.index == p.count-1 && !Claim(ctx, Outcome{Answer: ans}) {
		if ctx.Err() != nil { // another UI's answer came a moment before this one
			typed++
			err = ctx.Err()
			break
		}
		// The host's claim (WithClaim) could not keep it, as when a write
		// failed. The question is still open here: the human answers again.
		if err = t.write(ctx, wrap(t.columns, unkeptNotice)); err == nil {
			ans, err = t.answer(ctx, req, p)
		}
	}
	if err == nil {
		return ans, nil
	}
	t.ended(ctx, err, p, typed)
	return Answer{}, err
}

// answer shows req, the question at p, and reads replies until one answers
// it.
func (t *Terminal) answer(ctx context.Context, req *Request, p place) (Answer, error) {
	t.columns = columnsWide(ctx, t.out)
	width := t.columns
	labels := newReplyIndex(req)
	shown, widest := render(req, width, p.heading(), timeLeft(ctx))
	if err := t.write(ctx, shown); err != nil {
		return Answer{}, err
	}
	// The question is shown. A line that the read in flight already has was
	// typed for an earlier one.
	notice := ""
	if t.dropStale() {
		notice = wrap(width, staleNotice)
	}
	if err := t.write(ctx, notice+"> "); err != nil {
		return Answer{}, err
	}
	for {
		l, err := t.readLine(ctx)
		if err != nil {
			return Answer{}, err
		}
		if now := columnsWide(ctx, t.out); now < widest {
			// The terminal got narrower and wrapped the rows again, so a
			// wrapped part of the model's text may start a row of its own
			// there. The human replied to what that screen shows.
			t.columns, width = now, now
			shown, widest = render(req, width, p.heading(), timeLeft(ctx))
			if err := t.write(ctx, wrap(width, narrowedNotice)+shown+"> "); err != nil {
				return Answer{}, err
			}
			continue
		}
		ans, refusal, err := reply(ctx, req, labels, l)
		switch {
		case err != nil:
			return Answer{}, err
		case refusal == "":
			ans.Via = "terminal"
			if done, broken := resolve(req, ans); broken == nil {
				ans = done // complete, for the Outcome that claims it
			}
			return ans, nil
		}
		again := wrap(width, refusal)
		if len(req.Options) > 0 { // a free-form question's refusal says what to type
			again += wrap(width, accepts(req))
		}
		if err := t.write(ctx, again+"> "); err != nil {
			return Answer{}, err
		}
	}
}

// ended tells the human how the ask of the question at p ended with err,
// typed being the answers typed here for its batch. When ctx ended, that is
// where the question went. After the input ended, it is a line end.
func (t *Terminal) ended(ctx context.Context, err error, p place, typed int) {
	if ctx.Err() == nil {
		if CodeOf(err) == CodeAskCancelled && t.midLine {
			_ = t.write(ctx, "") // the host's output starts on a fresh line
		}
		return
	}
	r := rows{width: t.columns} // ctx is done: the width the question was shown at
	o, elsewhere := EndedElsewhere(ctx)
	switch {
	case elsewhere && p.count > 1:
		r.text(endedOn(o, true), "", "", 0)
	case elsewhere:
		r.text(endedOn(o, false), "", "", 1) // the model's labels: one row of the Terminal's own
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		r.text(timeUpNotice, "", "", 0)
	default:
		r.text(stoppedNotice, "", "", 0)
	}
	switch {
	case elsewhere && typed == 1:
		r.text("Your answer here was not used.", "", "", 0)
	case elsewhere && typed > 1:
		r.text(fmt.Sprintf("Your %d answers here were not used.", typed), "", "", 0)
	}
	t.say(r.String())
}

// endedOn returns the line that says how a question ended on another UI, o
// being its outcome there, or how a batch did. The answer is shown as the
// human saw it: the labels picked, then any words of their own. Each of
// them, and a Via of another name, is quoted: the line is the Terminal's
// own, and no label, words or name may add a sentence of the Terminal's to
// it ("Answered in x. Declined on the page: ...").
func endedOn(o Outcome, batch bool) string {
	where := onUI(o.Answer.Via)
	switch {
	case o.Err != nil && CodeOf(o.Err) == CodeAskDeclined && batch:
		return "The questions were declined " + where + "."
	case o.Err != nil && CodeOf(o.Err) == CodeAskDeclined:
		return "Declined " + where + "."
	case o.Err != nil:
		return "The question ended " + where + "."
	case batch:
		return "The questions were answered " + where + "."
	}
	a := o.Answer
	var shown, values []string
	if a.Option != nil {
		shown = append(shown, quote(a.Option.Label))
	}
	for _, opt := range a.Options {
		shown = append(shown, quote(opt.Label))
		values = append(values, opt.text())
	}
	words := ownWords(a.Text, strings.Join(values, ", "))
	switch {
	case a.Option != nil || words == "":
	case len(shown) > 0:
		shown = append(shown, "own words "+quote(fewMarks(words)))
	default:
		shown = append(shown, quote(fewMarks(words)))
	}
	if len(shown) == 0 {
		return "Answered " + where + "."
	}
	return "Answered " + where + ": " + strings.Join(shown, ", ") + "."
}

// onUI says where the UI that calls itself via is, for "Answered on the
// page". A via of another name is shown when it is a short plain word. Its
// text came from another UI, and may be anything.
func onUI(via string) string {
	switch via {
	case "page":
		return "on the page"
	case "terminal":
		return "in the terminal"
	case "form":
		return "in the form"
	case "inbox":
		return "in the inbox"
	case "":
		return "on another screen" // a decline, which has no Via
	}
	if len(via) > 32 || strings.TrimFunc(via, func(c rune) bool {
		return c < utf8.RuneSelf && (unicode.IsLetter(c) || unicode.IsDigit(c) || strings.ContainsRune(" -_.", c))
	}) != "" {
		return "elsewhere"
	}
	return "in " + quote(via)
}

// fewMarks returns s, words that no rule of Validate checked, with at most
// as many combining marks after one character as Validate allows. More
// draw over the rows above and below.
func fewMarks(s string) string {
	var b strings.Builder
	cut := false // some mark was left out, and b holds the rest
	marks := 0
	for i, c := range s {
		switch {
		case unicode.Is(unicode.M, c):
			marks++
		case !isJoiner(c):
			marks = 0
		}
		switch {
		case marks > maxMarks && !cut:
			cut = true
			b.WriteString(s[:i])
		case marks <= maxMarks && cut:
			b.WriteRune(c)
		}
	}
	if !cut {
		return s
	}
	return b.String()
}

// say writes s, the lines that end an ask whose ctx is done, and waits for
// them, so that they come before the host's next output. Its whole wait is
// at most sayWait. When a write is stuck in the output, s follows it, and
// say returns.
func (t *Terminal) say(s string) {
	ctx, cancel := context.WithTimeout(context.Background(), sayWait)
	defer cancel()
	// A write that ctx interrupted may have finished without saying so yet,
	// so say waits for it first.
	if t.written != nil {
		select {
		case w := <-t.written: // the interrupted write is done
			t.written = nil
			if w.panicked != nil {
				panic(w.panicked)
			}
		case <-ctx.Done():
			t.post(s)
			return
		}
	}
	_ = t.write(ctx, s)
}

// timeLeft returns the line that says how long the human has to answer, or
// "" when ctx has no deadline.
func timeLeft(ctx context.Context) string {
	deadline, ok := ctx.Deadline()
	if !ok {
		return ""
	}
	return "Answer within " + duration(time.Until(deadline)) + "."
}

// duration returns d in words, rounded to seconds under a minute, minutes
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

// columnsWide returns the width of the rows the Terminal writes to out, no
// less than minColumns: $COLUMNS when it holds a number, as POSIX says,
// else the width of the terminal that out is, else defaultColumns.
func columnsWide(ctx context.Context, out io.Writer) int {
	n, err := strconv.Atoi(os.Getenv("COLUMNS"))
	if err != nil || n <= 0 {
		n = ttyColumns(ctx, out)
	}
	switch {
	case n <= 0:
		return defaultColumns
	case n < minColumns:
		return minColumns
	}
	return n
}

// ttyColumns returns the width of the terminal that out is, or 0 when out
// is no terminal or its width cannot be read. The standard library has no
// call for it on every system, so it asks stty, which reads it from its
// input: here out, a file open on the terminal.
func ttyColumns(ctx context.Context, out io.Writer) int {
	f, ok := out.(*os.File)
	if !ok {
		return 0
	}
	if info, err := f.Stat(); err != nil || info.Mode()&os.ModeCharDevice == 0 {
		return 0
	}
	cmd := exec.CommandContext(ctx, "stty", "size")
	cmd.Stdin = f
	size, err := cmd.Output()
	if err != nil {
		return 0
	}
	return sizeColumns(string(size))
}

// sizeColumns returns the columns of size, what "stty size" prints ("24
// 80"), or 0 when it says something else.
func sizeColumns(size string) int {
	var rows, columns int
	if n, _ := fmt.Sscanf(size, "%d %d\n", &rows, &columns); n != 2 || rows <= 0 || columns <= 0 {
		return 0
	}
	return columns
}

// render returns req, headed by heading, as the Terminal writes it before
// the prompt, in rows of at most width columns, and the columns of its
// widest row. deadline is the line that says how long the human has, or "".
func render(req *Request, width int, heading, deadline string) (string, int) {
	r := rows{width: width}
	r.Grow(shownBytes(req) + 16*len(req.Options) + 256) // the text, its leads and the Terminal's lines
	if heading != "" {
		r.text(heading, "", "", 0)
	}
	if a := req.Agent; a != nil && (a.Name != "" || a.ID != "") {
		name := a.Name
		if name == "" {
			name = a.ID
		}
		r.text("from "+name, "| ", "| ", 0)
	}
	if req.Header != "" {
		r.text(req.Header, "| ", "| ", 0)
	}
	for _, l := range strings.Split(req.Question, "\n") {
		r.text(l, "| ", "| ", 0)
	}
	for i, o := range req.Options {
		number := "  "
		if o.Recommended {
			number = "* "
		}
		number += strconv.Itoa(i+1) + ". "
		under := strings.Repeat(" ", len(number)) + "| "
		r.text(o.Label, number, under, 0)
		if d := oneLine(o.Description); d != "" { // its line feeds as spaces
			r.text(d, under, under, descriptionRows)
		}
	}
	if deadline != "" {
		r.text(deadline, "", "", 0)
	}
	r.text(accepts(req), "", "", 0)
	return r.String(), r.widest
}

// wrap returns s, one of the Terminal's own lines, in rows of at most width
// columns.
func wrap(width int, s string) string {
	r := rows{width: width}
	r.text(s, "", "", 0)
	return r.String()
}

// rows builds what the Terminal writes, in rows of at most width columns:
// no row is wider than the terminal, so the terminal wraps none. Where a
// row of the model's text starts, the Terminal has put its own lead.
type rows struct {
	strings.Builder
	width  int
	widest int // the columns of the widest row written
}

// text writes s, a line without line feeds, in rows: the first led by
// first, every other by rest. The leads are ASCII. Each row holds what
// fits, broken after a word where it can. When most > 0, at most that many
// rows are written, the last cut with an ellipsis when s does not fit.
func (r *rows) text(s, first, rest string, most int) {
	if s == "" {
		r.WriteString(strings.TrimRight(first, " ") + "\n")
		return
	}
	lead := first
	for n := 1; ; n++ {
		end := fit(s, len(lead), r.width)
		more := strings.TrimLeft(s[end:], " \t") != ""
		cut := more && n == most
		if cut {
			end = fit(s, len(lead), r.width-1) // room for "…"
		}
		r.WriteString(lead)
		if row := s[:end]; !strings.Contains(row, "\t") {
			r.WriteString(row)
		} else {
			for i, col := 0, len(lead); i < end; { // a tab is written as the spaces it takes
				w, size := cellsAt(row, i, col)
				if row[i] == '\t' {
					r.WriteString(strings.Repeat(" ", w))
				} else {
					r.WriteString(row[i : i+size])
				}
				col, i = col+w, i+size
			}
		}
		cols := columnsAfter(s[:end], len(lead))
		if cut {
			r.WriteString("…")
			cols++
		}
		r.widest = max(r.widest, cols)
		r.WriteByte('\n')
		if cut || !more {
			return
		}
		s, lead = strings.TrimLeft(s[end:], " \t"), rest
	}
}

// fit returns the length of the head of s that fits in a row from column
// col to width: up to the last space that fits, or else every character
// that fits. A character of no width stays with the one before it. The
// head holds one character at least.
func fit(s string, col, width int) int {
	if len(s) <= width-col && !strings.Contains(s, "\t") {
		return len(s) // no character takes more columns than bytes, but a tab
	}
	space := -1 // where the last run of spaces that fits starts, after some text
	for i := 0; i < len(s); {
		w, size := cellsAt(s, i, col)
		switch {
		case col+w > width && space > 0:
			return space
		case col+w > width && i > 0:
			return i
		case col+w > width:
			return size
		case s[i] == ' ' || s[i] == '\t':
			if i > 0 && s[i-1] != ' ' && s[i-1] != '\t' {
				space = i
			}
		}
		col, i = col+w, i+size
	}
	return len(s)
}

// columnsAfter returns the column where s, written from column col, ends.
func columnsAfter(s string, col int) int {
	for i := 0; i < len(s); {
		w, size := cellsAt(s, i, col)
		col, i = col+w, i+size
	}
	return col
}

// cellsAt returns the columns that the character at s[i] takes when it is
// written at column col, and its length in bytes. A tab reaches the next
// multiple of 8. A character followed by U+FE0F, which asks for its emoji
// form, takes two.
func cellsAt(s string, i, col int) (w, size int) {
	switch c := s[i]; {
	case c == '\t':
		return 8 - col%8, 1
	case c < utf8.RuneSelf:
		w, size = 1, 1
	default:
		var r rune
		r, size = utf8.DecodeRuneInString(s[i:])
		w = cells(r)
	}
	if w == 1 && strings.HasPrefix(s[i+size:], "\ufe0f") {
		w = 2
	}
	return w, size
}

// cells returns the columns that c, a character a request may show, takes
// on a terminal. A mark or a joiner takes none. An East Asian wide or
// fullwidth character, or an emoji, takes two. Others take one, ambiguous
// ones too (most terminals draw them narrow).
func cells(c rune) int {
	switch {
	case c < 0x300: // ASCII and Latin-1: no marks, none wide
		return 1
	case unicode.In(c, unicode.Mn, unicode.Me) || isJoiner(c):
		return 0
	case unicode.Is(wide, c):
		return 2
	}
	return 1
}

// wide holds the characters that take two columns: Unicode's East Asian
// Wide and Fullwidth (EastAsianWidth.txt, 15.1), with the blocks of CJK,
// kana and emoji taken whole. Counting a character wider than a terminal
// draws it only wraps a row early. Counting it narrower would let the
// terminal wrap the row, so its rest would start a row of its own.
var wide = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x1100, Hi: 0x115F, Stride: 1}, // Hangul initial consonants
		{Lo: 0x231A, Hi: 0x231B, Stride: 1}, // emoji, and the few symbols below
		{Lo: 0x2329, Hi: 0x232A, Stride: 1},
		{Lo: 0x23E9, Hi: 0x23EC, Stride: 1},
		{Lo: 0x23F0, Hi: 0x23F0, Stride: 1},
		{Lo: 0x23F3, Hi: 0x23F3, Stride: 1},
		{Lo: 0x25FD, Hi: 0x25FE, Stride: 1},
		{Lo: 0x2614, Hi: 0x2615, Stride: 1},
		{Lo: 0x2648, Hi: 0x2653, Stride: 1},
		{Lo: 0x267F, Hi: 0x267F, Stride: 1},
		{Lo: 0x2693, Hi: 0x2693, Stride: 1},
		{Lo: 0x26A1, Hi: 0x26A1, Stride: 1},
		{Lo: 0x26AA, Hi: 0x26AB, Stride: 1},
		{Lo: 0x26BD, Hi: 0x26BE, Stride: 1},
		{Lo: 0x26C4, Hi: 0x26C5, Stride: 1},
		{Lo: 0x26CE, Hi: 0x26CE, Stride: 1},
		{Lo: 0x26D4, Hi: 0x26D4, Stride: 1},
		{Lo: 0x26EA, Hi: 0x26EA, Stride: 1},
		{Lo: 0x26F2, Hi: 0x26F3, Stride: 1},
		{Lo: 0x26F5, Hi: 0x26F5, Stride: 1},
		{Lo: 0x26FA, Hi: 0x26FA, Stride: 1},
		{Lo: 0x26FD, Hi: 0x26FD, Stride: 1},
		{Lo: 0x2705, Hi: 0x2705, Stride: 1},
		{Lo: 0x270A, Hi: 0x270B, Stride: 1},
		{Lo: 0x2728, Hi: 0x2728, Stride: 1},
		{Lo: 0x274C, Hi: 0x274C, Stride: 1},
		{Lo: 0x274E, Hi: 0x274E, Stride: 1},
		{Lo: 0x2753, Hi: 0x2755, Stride: 1},
		{Lo: 0x2757, Hi: 0x2757, Stride: 1},
		{Lo: 0x2795, Hi: 0x2797, Stride: 1},
		{Lo: 0x27B0, Hi: 0x27B0, Stride: 1},
		{Lo: 0x27BF, Hi: 0x27BF, Stride: 1},
		{Lo: 0x2B1B, Hi: 0x2B1C, Stride: 1},
		{Lo: 0x2B50, Hi: 0x2B50, Stride: 1},
		{Lo: 0x2B55, Hi: 0x2B55, Stride: 1},
		{Lo: 0x2E80, Hi: 0x303E, Stride: 1}, // CJK radicals, ideographic space and punctuation
		{Lo: 0x3040, Hi: 0xA4CF, Stride: 1}, // kana, bopomofo, CJK, Yi
		{Lo: 0xA960, Hi: 0xA97F, Stride: 1}, // Hangul Jamo Extended-A
		{Lo: 0xAC00, Hi: 0xD7A3, Stride: 1}, // Hangul syllables
		{Lo: 0xF900, Hi: 0xFAFF, Stride: 1}, // CJK compatibility ideographs
		{Lo: 0xFE10, Hi: 0xFE19, Stride: 1}, // vertical forms
		{Lo: 0xFE30, Hi: 0xFE6F, Stride: 1}, // CJK compatibility and small forms
		{Lo: 0xFF00, Hi: 0xFF60, Stride: 1}, // fullwidth forms
		{Lo: 0xFFE0, Hi: 0xFFE6, Stride: 1},
	},
	R32: []unicode.Range32{
		{Lo: 0x16FE0, Hi: 0x16FE4, Stride: 1},
		{Lo: 0x16FF0, Hi: 0x16FF1, Stride: 1},
		{Lo: 0x17000, Hi: 0x18CFF, Stride: 1}, // Tangut, Khitan
		{Lo: 0x18D00, Hi: 0x18D08, Stride: 1},
		{Lo: 0x1AFF0, Hi: 0x1B2FF, Stride: 1}, // kana supplements, Nushu
		{Lo: 0x1F000, Hi: 0x1FAFF, Stride: 1}, // emoji and their neighbours
		{Lo: 0x20000, Hi: 0x2FFFD, Stride: 1}, // CJK extensions
		{Lo: 0x30000, Hi: 0x3FFFD, Stride: 1},
	},
}

// accepts returns the line that says what the terminal accepts for req.
// It names the recommended options by number, as no label can.
func accepts(req *Request) string {
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
		return w.value
	case <-ctx.Done():
		return ctx.Err()
	}
}

// post starts writing s after the write in flight, and returns the channel
// that receives its outcome. Nobody waits for a post of its own. Its error
// is lost, and the next write raises its panic.
func (t *Terminal) post(s string) chan called[error] {
	if t.midLine {
		s = "\n" + s
	}
	t.midLine = strings.HasSuffix(s, "> ")
	before := t.written
	done := make(chan called[error], 1)
	goCall(done, errStopped, func() error {
		if before != nil {
			// Its error was the interrupted ask's to report. Its panic is
			// this write's, and nothing is written after it.
			if w := <-before; w.panicked != nil {
				panic(w.panicked)
			}
		}
		_, err := io.WriteString(t.out, s)
		return err
	})
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
		if l.value.err != nil || l.panicked != nil {
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
		t.read = make(chan called[line], 1)
		goCall(t.read, line{err: NewError(CodeAskCancelled, "the terminal's input failed", errStopped)}, t.scanLine)
	}
	select {
	case c := <-t.read:
		t.read = nil
		if c.panicked != nil {
			panic(c.panicked)
		}
		l := c.value
		t.midLine = t.midLine && l.err != nil // a line's end ends the prompt's line
		return l, l.err
	case <-ctx.Done():
		return line{}, ctx.Err()
	}
}

// scanLine reads the next line of input, without its "\n" or "\r\n",
// trimmed. A line of more than maxLine bytes is too long. It is skipped, not
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
}

// reply reads l, the human's reply to req, as the answer a provider returns,
// or returns the refusal to show. Its error is ctx's, when ctx ends first.
// A label is compared as Validate compares labels, and digits of any script
// are digits. "#" and a number always pick by number. A line of digits that
// is a label picks that option. When another option has that number, the
// line could mean two things and is refused. So is a line that mixes picks
// and other words, or is over maxLine bytes.
func reply(ctx context.Context, req *Request, labels *replyIndex, l line) (Answer, string, error) {
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
func replyOne(req *Request, labels *replyIndex, text string) (Answer, string) {
	key := labelKey(text) // what counts of text, for a label and for numbers alike
	num := numbers(key, len(req.Options))
	labelled, isLabel := labels.byKey[key]
	isLabel = isLabel && !num.hash
	switch {
	case isLabel && num.ok && num.problem == "" && len(num.rows) == 1 && num.rows[0] != labelled:
		return Answer{}, fmt.Sprintf("%s is option %d, and the label of option %d: type #%d or #%d.",
			quote(text), num.rows[0]+1, labelled+1, num.rows[0]+1, labelled+1)
	case isLabel:
		return req.Options[labelled].Answer(), ""
	case num.ok && num.problem != "":
		return Answer{}, num.problem
	case num.ok && len(num.rows) > 1:
		return Answer{}, "Pick one option."
	case num.ok:
		return req.Options[num.rows[0]].Answer(), ""
	case !req.CustomAllowed():
		return Answer{}, quote(text) + " is not an option: type its number."
	}
	return Answer{Text: text}, ""
}

// numbered is a reply read as option numbers.
type numbered struct {
	ok      bool   // the reply is only numbers ("1,3", "#2", "2.", "٢"), or a range of them
	hash    bool   // a number is led by "#": the reply names rows, never a label
	rows    []int  // the options the numbers pick, when problem is ""
	problem string // what is wrong with the numbers, or ""
}

// numbers reads text as option numbers of a request with n options. Each is
// digits of any script, with "#" before or "." after. Commas or white space
// separate them. A range of them ("1-3") is numbers with a problem.
func numbers(text string, n int) numbered {
	text, ok := asciiNumbers(text)
	if !ok {
		return numbered{} // most text: words
	}
	fields := strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' })
	ranged := false
	num := numbered{hash: strings.Contains(text, "#")}
	for k, f := range fields {
		fields[k] = strings.TrimSuffix(strings.TrimPrefix(f, "#"), ".")
		from, to, isRange := strings.Cut(fields[k], "-")
		switch {
		case isRange && isDigits(from) && isDigits(to):
			ranged = true
		case !isDigits(fields[k]):
			return numbered{} // "-1", "1.5", "#": not a row
		}
	}
	num.ok = true
	switch {
	case len(fields) == 0:
		num.ok = strings.Trim(text, ", ") == ""
		num.problem = "Type the number of an option."
		return num
	case ranged:
		num.problem = "Type each number, such as 1,2,3."
		return num
	}
	for _, f := range fields {
		i, err := strconv.Atoi(f)
		if err != nil || i < 1 || i > n {
			num.rows, num.problem = nil, "There is no option "+clip(f, maxQuoted)+"."
			return num
		}
		num.rows = append(num.rows, i-1)
	}
	return num
}

// asciiNumbers returns text with its digits of any script as ASCII digits,
// its white space as spaces, and its "#", ".", "-" and "," also when
// fullwidth ("＃２") or ideographic ("、") as ASCII. It reports false when
// text holds anything else.
func asciiNumbers(text string) (string, bool) {
	ascii := true
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c >= utf8.RuneSelf:
			ascii = false
		case !('0' <= c && c <= '9') && !strings.ContainsRune("#.-, \t", rune(c)):
			return "", false
		}
	}
	if ascii {
		return strings.ReplaceAll(text, "\t", " "), true
	}
	var b strings.Builder
	for _, c := range text {
		switch {
		case c == '、':
			c = ','
		case 0xFF01 <= c && c <= 0xFF5E: // fullwidth ASCII
			c -= 0xFF01 - '!'
		case unicode.IsSpace(c):
			c = ' '
		case unicode.IsDigit(c):
			c = '0' + rune(digitValue(c))
		}
		if !('0' <= c && c <= '9') && !strings.ContainsRune("#.-, ", c) {
			return "", false
		}
		b.WriteRune(c)
	}
	return b.String(), true
}

// digitValue returns the value of c, a decimal digit (Unicode Nd). Unicode
// assigns each script's digits in runs of ten from zero, and the ranges of
// unicode.Nd hold whole runs.
func digitValue(c rune) int {
	for _, r := range unicode.Nd.R16 {
		if rune(r.Lo) <= c && c <= rune(r.Hi) {
			return int(c-rune(r.Lo)) % 10
		}
	}
	for _, r := range unicode.Nd.R32 {
		if rune(r.Lo) <= c && c <= rune(r.Hi) {
			return int(c-rune(r.Lo)) % 10
		}
	}
	return -1
}

// isDigits reports whether s is one or more ASCII digits.
func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// replyIndex finds the options that a reply names by label. Labels are
// compared by their labelKey.
type replyIndex struct {
	keys   []string       // the key of each option's label
	byKey  map[string]int // the option of each key
	commas *commaLabels   // built at the first reply with a comma
}

// newReplyIndex returns the replyIndex of req's options, in time linear in
// the labels' total length.
func newReplyIndex(req *Request) *replyIndex {
	n := len(req.Options)
	x := &replyIndex{keys: make([]string, n), byKey: make(map[string]int, n)}
	for i, o := range req.Options {
		x.keys[i] = labelKey(o.Label)
		x.byKey[x.keys[i]] = i
	}
	return x
}

// replySeveral reads text, a reply to req, a MultiSelect request: the
// options it picks, or the human's own words, or the refusal to show. Text
// is cut into parts at its commas. Each pick is one part or, for a label
// with commas, several.
func replySeveral(ctx context.Context, req *Request, labels *replyIndex, text string) (Answer, string, error) {
	r := cutReply(req, labels, text)
	picks, ways, err := r.read(ctx)
	switch {
	case err != nil:
		return Answer{}, "", err
	case ways == 1 && len(picks) == 0: // only commas
		return Answer{}, "Type the number of an option.", nil
	case ways == 1:
		ans, refusal := pickAll(req, picks)
		return ans, refusal, nil
	case ways == 2:
		return Answer{}, quote(text) + " can be read in more than one way: type the numbers, such as #1,#3.", nil
	}
	ans, refusal := r.notPicks(text)
	return ans, refusal, nil
}

// cut is a MultiSelect reply cut into parts at its commas.
type cut struct {
	req    *Request
	labels *replyIndex
	key    string // the reply's labelKey, whose commas are the reply's "," and "，"
	at     []int  // where each part starts in key, and one past its end
}

// cutReply cuts text, a reply to req, into parts.
func cutReply(req *Request, labels *replyIndex, text string) *cut {
	r := &cut{req: req, labels: labels, key: labelKey(text)}
	r.at = make([]int, 1, strings.Count(r.key, ",")+2)
	for i := 0; i < len(r.key); i++ {
		if r.key[i] == ',' {
			r.at = append(r.at, i+1)
		}
	}
	r.at = append(r.at, len(r.key)+1)
	return r
}

// part returns part p's key, and reads it on its own: as option numbers,
// and as the option whose label it is, or -1.
func (r *cut) part(p int) (key string, num numbered, label int) {
	key = r.key[r.at[p] : r.at[p+1]-1]
	num = numbers(key, len(r.req.Options))
	label = -1
	if i, ok := r.labels.byKey[strings.Trim(key, " ")]; ok && !num.hash {
		label = i
	}
	return key, num, label
}

// reading is one way to read a pick in the parts of a MultiSelect reply:
// the part where it starts, and the option it picks. Or it picks what that
// part's numbers pick (byNumbers), or nothing (an empty part).
type reading struct {
	start, option int
}

// What a reading picks when it picks no one option.
const (
	byNumbers = -1
	nothing   = -2
)

// read counts the ways to read r's parts as picks, up to two, and returns
// the picks of the first. A pick is one part (numbers, a label, or nothing:
// "1,,3"), or several that together are a label with commas. One pass over
// the parts counts the ways to read the parts before each. A reading that
// is not the only one is refused, not guessed.
func (r *cut) read(ctx context.Context) (picks []int, ways int, err error) {
	parts := len(r.at) - 1
	count := make([]int, parts+1) // the ways to read the parts before e, up to 2
	last := make([]reading, parts+1)
	count[0] = 1
	add := func(e int, rd reading) {
		if count[rd.start] > 0 && count[e] < 2 {
			if count[e] == 0 {
				last[e] = rd
			}
			count[e] = min(2, count[e]+count[rd.start])
		}
	}
	commas := r.labels.commaLabels(parts)
	span := 1 // the most parts that one pick spans
	if commas != nil {
		span = max(1, commas.deepest)
	}
	node := 0  // where commas, the automaton of labels with commas, is
	reach := 0 // the last part before which some reading ends
	for q := 0; q < parts; q++ {
		if q%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		if count[q] > 0 {
			reach = q
		}
		if q-reach >= span { // no pick starts where a reading ends, here or later
			return nil, 0, nil
		}
		key, num, label := r.part(q)
		core := strings.Trim(key, " ")
		rows := num.ok && num.problem == ""
		switch {
		case rows:
			add(q+1, reading{q, byNumbers})
		case core == "": // "1,,3" or "a, b,"
			add(q+1, reading{q, nothing})
		}
		if label >= 0 && !(rows && len(num.rows) == 1 && num.rows[0] == label) { // "1" is row 1 and its label: one reading
			add(q+1, reading{q, label})
		}
		if commas == nil {
			continue
		}
		node = commas.step(node, core)
		for end := node; end != 0 && count[q+1] < 2; end = commas.nodes[end].out {
			p := q + 1 - commas.nodes[end].depth
			if !commas.nodes[end].ends || count[p] == 0 {
				continue
			}
			// The parts p to q have a label's cores. They are that label when
			// their key, with the spaces beside its commas, is.
			from := r.at[p]
			if r.key[from] == ' ' {
				from++
			}
			to := strings.TrimRight(r.key[:r.at[q+1]-1], " ")
			if i, ok := r.labels.byKey[to[from:]]; ok {
				add(q+1, reading{p, i})
			}
		}
	}
	if count[parts] != 1 {
		return nil, count[parts], nil
	}
	return r.picks(last), 1, nil
}

// picks returns the options that the one reading of r picks, in the order
// typed. last holds, for each part, the last pick of a reading of the parts
// before it.
func (r *cut) picks(last []reading) []int {
	var found []reading
	for e := len(last) - 1; e > 0; e = last[e].start {
		found = append(found, last[e])
	}
	var picks []int
	for k := len(found) - 1; k >= 0; k-- {
		switch rd := found[k]; rd.option {
		case byNumbers:
			_, num, _ := r.part(rd.start)
			picks = append(picks, num.rows...)
		case nothing:
		default:
			picks = append(picks, rd.option)
		}
	}
	return picks
}

// notPicks reads text, the reply r, that no reading of its parts picks: a
// number that is no option, a pick among other words, or the human's own
// words.
func (r *cut) notPicks(text string) (Answer, string) {
	// labelKey makes a comma of each "," and "，" and of nothing else, so
	// raw[p] is part p as typed.
	raw := strings.Split(strings.ReplaceAll(text, "，", ","), ",")
	picked := false // some part reads as a pick on its own
	other := ""     // the first part that is neither a label nor numbers
	for p := range raw {
		key, num, label := r.part(p)
		if num.ok && num.problem != "" && strings.Trim(key, " ") != "" {
			return Answer{}, num.problem
		}
		picked = picked || label >= 0 || num.ok && num.problem == ""
		if other == "" && label < 0 && !num.ok {
			other = strings.TrimSpace(raw[p])
		}
	}
	switch {
	case picked && other != "": // a pick must not hide among the human's own words
		return Answer{}, quote(other) + " is not an option: type only options, or only your own words."
	case !r.req.CustomAllowed():
		return Answer{}, quote(text) + " is not an option: type its number."
	}
	return Answer{Text: text}, ""
}

// commaLabels returns the automaton of x's labels with commas, built at the
// first reply of several parts, or nil for a reply of one part.
func (x *replyIndex) commaLabels(parts int) *commaLabels {
	if parts < 2 {
		return nil
	}
	if x.commas == nil {
		x.commas = newCommaLabels(x.keys)
	}
	return x.commas
}

// commaLabels is an Aho-Corasick automaton of the labels with commas, so
// that one pass over a reply's parts finds every such label that ends at
// each part. A reply is cut at its commas, and such a label spans several
// parts. Cut at its commas into cores (the pieces without the spaces at
// their ends), each label is a path of a trie. Node 0 is the root.
type commaLabels struct {
	keys    []string // the label keys
	nodes   []trieNode
	deepest int // the most cores of one label
	// A node's first child is the node made right after it, along the same
	// label. Only its other children, by core, are kept here: most nodes
	// have none, and the trie needs no map to follow a label.
	more map[int]map[string]int
}

// trieNode is a node of the trie of commaLabels.
type trieNode struct {
	parent int
	// The core on the edge from the parent is keys[label][from:to].
	label, from, to int
	depth           int  // the number of cores on the node's path
	ends            bool // the path is some label's
	fail            int  // the node of the longest proper suffix of the path that is a path too
	out             int  // the next node on the fail chain whose ends is set, or 0
}

// newCommaLabels returns the automaton of the label keys that hold commas,
// in time linear in their length. It builds the trie of their cores, then
// links it.
func newCommaLabels(keys []string) *commaLabels {
	size := 1
	for _, key := range keys {
		if n := strings.Count(key, ","); n > 0 {
			size += n + 1
		}
	}
	x := &commaLabels{keys: keys, nodes: make([]trieNode, 1, size), more: map[int]map[string]int{}}
	for i, key := range keys {
		if !strings.Contains(key, ",") {
			continue // a part of the reply is it, or is not
		}
		node, grown := 0, false // grown: the path left the trie, so the rest of it is new
		for from, to := 0, 0; from <= len(key); from = to + 1 {
			if to = strings.IndexByte(key[from:], ','); to < 0 {
				to = len(key)
			} else {
				to += from
			}
			c0, c1 := from, to // the core: a key has one space at most beside a comma
			if c0 < c1 && key[c0] == ' ' {
				c0++
			}
			if c0 < c1 && key[c1-1] == ' ' {
				c1--
			}
			if !grown {
				if child, ok := x.child(node, key[c0:c1]); ok {
					node = child
					continue
				}
			}
			grown = true
			child := len(x.nodes)
			if child != node+1 {
				if x.more[node] == nil {
					x.more[node] = map[string]int{}
				}
				x.more[node][key[c0:c1]] = child
			}
			x.nodes = append(x.nodes, trieNode{parent: node, label: i, from: c0, to: c1, depth: x.nodes[node].depth + 1})
			node = child
		}
		x.nodes[node].ends = true
		x.deepest = max(x.deepest, x.nodes[node].depth)
	}
	x.link()
	return x
}

// link sets the fail and out links of x's nodes, once the trie is built.
func (x *commaLabels) link() {
	// A node's fail link needs those of the nodes above it: take them by depth.
	var byDepth [][]int
	for v := 1; v < len(x.nodes); v++ {
		d := x.nodes[v].depth
		for len(byDepth) <= d {
			byDepth = append(byDepth, nil)
		}
		byDepth[d] = append(byDepth[d], v)
	}
	for _, level := range byDepth {
		for _, v := range level {
			n := &x.nodes[v]
			if n.parent != 0 {
				n.fail = x.step(x.nodes[n.parent].fail, x.core(v))
			}
			if f := n.fail; x.nodes[f].ends {
				n.out = f
			} else {
				n.out = x.nodes[f].out
			}
		}
	}
}

// core returns the core on the edge into node v.
func (x *commaLabels) core(v int) string {
	n := &x.nodes[v]
	return x.keys[n.label][n.from:n.to]
}

// child returns the child of node on core c, if it has one.
func (x *commaLabels) child(node int, c string) (int, bool) {
	if next := node + 1; next < len(x.nodes) && x.nodes[next].parent == node && x.core(next) == c {
		return next, true
	}
	next, ok := x.more[node][c]
	return next, ok
}

// step returns the node that the automaton reaches from node on core c.
func (x *commaLabels) step(node int, c string) int {
	for {
		if next, ok := x.child(node, c); ok {
			return next
		}
		if node == 0 {
			return 0
		}
		node = x.nodes[node].fail
	}
}

// recommendedAnswer picks the recommended options of req, which has options,
// for an empty line.
func recommendedAnswer(req *Request) (Answer, string) {
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
func pickAll(req *Request, named []int) (Answer, string) {
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

// ElicitFunc sends form as one form-mode elicitation/create, and returns the
// action and content of the client's response. form is MCP's params, to
// which an ACP host adds sessionId and toolCallId. It may be called
// concurrently if its SDK allows.
type ElicitFunc func(ctx context.Context, form Elicitation) (action string, content map[string]any, err error)

// Form is a [Provider] for MCP and ACP clients that render forms while the
// tool call waits. It sends each question through the [ElicitFunc] given to
// [NewForm]. It is safe for concurrent use when that ElicitFunc is.
type Form struct {
	elicit ElicitFunc
}

var _ Provider = (*Form)(nil)

// NewForm returns a Form that sends its forms through elicit. With a nil
// elicit, each Ask fails with [CodeInvalidProvider].
func NewForm(elicit ElicitFunc) *Form {
	return &Form{elicit: elicit}
}

// Ask sends req as its [Request.Elicitation] and returns the human's answer,
// read by [ElicitationAnswer] and completed as [Registry.Ask] completes it,
// with Via "form". An invalid req is [CodeInvalidRequest], and a nil *Form
// or one without an ElicitFunc [CodeInvalidProvider]. Neither is sent.
//
// When ctx is done, Ask returns ctx.Err() at once, even while elicit waits.
// An error of elicit, or of ElicitationAnswer such as a decline's, is
// returned as it is. A response that breaks the rules of [Answer] sends the
// form again, led by the reason, as [Pending.Elicitation] leads it. The third
// such response is [CodeInvalidAnswer].
func (f *Form) Ask(ctx context.Context, req Request) (Answer, error) {
	if f == nil || f.elicit == nil {
		return Answer{}, NewError(CodeInvalidProvider, "form has no ElicitFunc: make it with NewForm(elicit)", nil)
	}
	if err := req.Validate(); err != nil {
		return Answer{}, err
	}
	if err := ctxErr(ctx); err != nil {
		return Answer{}, err
	}
	q := Pending{Request: req} // its Hint: why the previous form's response was refused
	for n := 1; ; n++ {
		action, content, err := f.send(ctx, q.Elicitation())
		if ctx.Err() != nil {
			return Answer{}, ctx.Err() // the turn ended: whatever came back is moot
		}
		if err != nil {
			return Answer{}, err
		}
		given, err := ElicitationAnswer(action, content)
		// The client is at fault, not the human, so no form is sent again.
		if err != nil {
			return Answer{}, err
		}
		given.Via = "form"
		ans, broken := resolve(&req, given) // step 6 of Registry.Ask
		switch {
		case broken == nil:
			return ans, nil
		case n == maxForms:
			return Answer{}, invalidAnswer(fmt.Sprintf("%s (the last of %d refused forms)", broken.why, maxForms))
		}
		q.Hint = broken.hint
	}
}

// send sends form through f's elicit on a goroutine of its own, so that ctx
// can end the wait even when elicit ignores ctx. The goroutine ends when
// elicit returns. Its channel has room for the late response, which nobody
// reads, and a panic after ctx ended is dropped with it.
func (f *Form) send(ctx context.Context, form Elicitation) (string, map[string]any, error) {
	done := make(chan called[elicited], 1)
	goCall(done, elicited{err: errStopped}, func() elicited {
		action, content, err := f.elicit(ctx, form)
		return elicited{action, content, err}
	})
	select {
	case e := <-done:
		if e.panicked != nil {
			panic(e.panicked)
		}
		return e.value.action, e.value.content, e.value.err
	case <-ctx.Done():
		return "", nil, ctx.Err()
	}
}

// elicited is the outcome of one call of an ElicitFunc.
type elicited struct {
	action  string
	content map[string]any
	err     error
}

// ----------------------------------------------------------------------------
// Inbox

// Inbox is a [Provider] for a UI outside the process, such as a web page, a
// chat bot or an editor over a socket. The UI reads [Inbox.Pending], asks the
// human, and delivers each outcome with [Inbox.Respond]. [Inbox.Handler]
// serves such a UI to a web browser.
//
// The zero value is an empty Inbox ready to use. An Inbox is safe for
// concurrent use and must not be copied after first use. Its methods need a
// non-nil *Inbox.
type Inbox struct {
	mu      sync.Mutex           // guards the fields below
	open    list.List            // the open questions (*question), oldest first
	byID    map[string]*question // the open questions by ID; nil when none is open
	changed chan struct{}        // closed at the next change of open; nil while nobody asked for it
	ended   endings              // how the last questions that left ended
}

var _ BatchProvider = (*Inbox)(nil)

// Ask opens req as a question, with an ID of 128 bits from crypto/rand in 32
// lower-case hex digits, which another session's UI cannot guess and which
// never repeats, and waits for [Inbox.Respond]. When ctx is done
// first, the question leaves Pending and Ask returns ctx.Err(). An invalid
// req is [CodeInvalidRequest], and is not opened.
func (b *Inbox) Ask(ctx context.Context, req Request) (Answer, error) {
	if err := req.Validate(); err != nil {
		return Answer{}, err
	}
	answers, err := b.askAll(ctx, []Request{req}, false)
	if err != nil {
		return Answer{}, err
	}
	return answers[0], nil
}

// AskAll opens reqs at once under one Batch, each with its Index and the
// Count of reqs, and returns their answers in order. At the first error in
// request order, once the questions before it are answered, it returns
// their answers and the error. An error closes the questions after it, and
// a done ctx every open one. Requests that [Registry.AskAll] refuses are
// [CodeInvalidRequest], and none is opened.
func (b *Inbox) AskAll(ctx context.Context, reqs []Request) ([]Answer, error) {
	if err := validateAll(reqs); err != nil {
		return nil, err
	}
	return b.askAll(ctx, reqs, true)
}

// Pending returns the open questions, oldest first, a batch's in request
// order. Each has its asker's deadline, up to year 9999, which RFC 3339 can
// write. The result shares no memory with b, and costs a copy of the list.
func (b *Inbox) Pending() []Pending {
	b.mu.Lock()
	defer b.mu.Unlock()
	// One array holds the options of every question, and one the agents,
	// not one of each per question. A UI that reads Pending at every change
	// reads the whole list each time (BenchmarkInboxPoll).
	var nOptions, nAgents int
	for e := b.open.Front(); e != nil; e = e.Next() {
		req := &e.Value.(*question).entry.Request
		nOptions += len(req.Options)
		if req.Agent != nil {
			nAgents++
		}
	}
	out := make([]Pending, 0, b.open.Len())
	options := make([]Option, 0, nOptions)
	agents := make([]Agent, 0, nAgents)
	for e := b.open.Front(); e != nil; e = e.Next() {
		p := e.Value.(*question).entry
		if n := len(p.Request.Options); n > 0 {
			options = append(options, p.Request.Options...)
			p.Request.Options = options[len(options)-n : len(options) : len(options)] // an append copies
		}
		if p.Request.Agent != nil {
			agents = append(agents, *p.Request.Agent)
			p.Request.Agent = &agents[len(agents)-1]
		}
		out = append(out, p)
	}
	return out
}

// Respond delivers the outcome of the open question id: err, or ans when err
// is nil. An ans without Via gets "inbox". Respond returns nil once the
// outcome is delivered and the question closed.
//
// An ans that breaks a rule of [Answer] is [CodeInvalidAnswer]. The question
// stays open, and its Hint, a change of Pending, tells the human why. An id
// that is not open (never asked, answered, or given up) is [CodeNotPending],
// and nothing changes. So the first Respond wins.
//
// In a [FirstOf] race, or under [WithClaim], Respond claims a decline or the
// answer to the call's last open question ([Claim]). A refused claim, or a
// race that another UI won, is [CodeNotPending]. While a claim runs, the
// call's questions wait for it, and the rest of the Inbox goes on. A claim
// must not call Respond for a question of its own call.
func (b *Inbox) Respond(id string, ans Answer, err error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.byID[id]
	for q != nil && q.ask.claiming != nil {
		b.waitClaim(q.ask)
		q = b.byID[id]
	}
	if q == nil {
		return NewError(CodeNotPending, "question "+quote(id)+" is not pending: never asked, already answered, or given up", nil)
	}
	r := result{ans: Answer{Via: ans.Via}, err: err} // an error keeps the Via of the UI that gave it
	if err == nil {
		var broken *brokenRule
		if r.ans, broken = resolve(&q.entry.Request, ans); broken != nil {
			q.entry.Hint = broken.hint
			b.publish()
			return invalidAnswer(broken.why)
		}
	}
	if r.ans.Via == "" {
		r.ans.Via = "inbox"
	}
	if !b.take(q, r) {
		return NewError(CodeNotPending, "question "+quote(id)+" is not pending: another UI answered it first, or its asker could not keep this answer", nil)
	}
	o := r.recorded()
	b.deliver(q, r, o)
	if err != nil {
		// The call returns at q's error, so the questions after q leave now.
		q.ask.err = err
		for _, later := range q.ask.questions[q.index+1:] {
			b.deliver(later, r, o)
		}
	}
	b.publish()
	return nil
}

// Changed returns a channel that is closed at the next change of Pending: a
// question opens, closes, or gets a Hint. Call Changed before Pending to miss
// no change. A channel that nobody waits on holds no goroutine.
func (b *Inbox) Changed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.changed == nil {
		b.changed = make(chan struct{})
	}
	return b.changed
}

// Outcome reports how question id ended, once it left Pending. It reports
// false while the question is open, and for an id that b does not know. b
// keeps the outcomes of the last 1,000 questions that left.
//
// The Outcome is what [Registry.Ask] returns for the question. An ended ctx
// is [CodeAskAborted], whose message says whether the deadline passed, the
// asker stopped, or the Inbox was disposed. When [FirstOf] withdrew the
// question, it is the winner's outcome for each question of the call, as
// [EndedElsewhere] reports it. After an error ended a batch, each question
// after it reports that error, as [Registry.AskAll] does. A question
// dismissed here in a race reports the dismissal, not the winner.
func (b *Inbox) Outcome(id string) (Outcome, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.ended.get(id)
	o.Answer = o.Answer.clone()
	return o, ok
}

// A question is one request that an Inbox asks.
type question struct {
	entry Pending   // as Pending lists it, its Request a clone of the one asked
	ask   *inboxAsk // the Ask or AskAll that opened it
	index int       // its place in ask.questions
	// outcome receives the question's outcome once, when it closes, so the
	// asker always finds one. It is the responder's, or the asker's own
	// giving up.
	outcome chan result
	// The fields below are guarded by the Inbox's mu.
	elem  *list.Element // q in the Inbox's open questions; nil once closed
	given result        // the outcome it closed with
}

// An inboxAsk is one Ask or AskAll of an Inbox.
type inboxAsk struct {
	// ctx is the asker's. In a FirstOf race, a Respond claims with it
	// before it confirms an answer ([Claim]).
	ctx       context.Context
	questions []*question // in request order
	// The fields below are guarded by the Inbox's mu.
	open int   // the questions still open
	err  error // the error that ends the call, once delivered
	// claiming is closed when the claim that a Respond asks for one of
	// questions returns, and nil while none runs. The claim runs without the
	// Inbox's mu, and nothing closes a question of the call meanwhile.
	claiming chan struct{}
}

// result is the outcome of a question, an answer or the error in its place.
type result struct {
	ans Answer
	err error
}

// recorded returns the Outcome of r as [Registry.Ask] would return it, for
// a Respond's outcome r.
func (r result) recorded() Outcome {
	switch via := (Answer{Via: r.ans.Via}); {
	case r.err == nil:
		return Outcome{Answer: r.ans}
	case isTypedNil(r.err) || CodeOf(r.err) == "":
		return Outcome{Answer: via, Err: providerFailed(r.err)}
	default:
		return Outcome{Answer: via, Err: r.err}
	}
}

// take reports whether r, a Respond's outcome of q, may be confirmed to the
// UI that gave it. It may, unless q's ask is in a FirstOf race that another
// UI won. An outcome that decides the race claims it first: a decline, or
// the answer to the last open question of a call that had no error. When
// another UI won, the ask's open questions leave with its outcome. b.mu is
// held, and released while the claim runs.
func (b *Inbox) take(q *question, r result) bool {
	// A claim may write to a database, so it runs without b.mu. Meanwhile
	// the questions of q's call wait (a.claiming), so that no Respond
	// confirms an outcome while another takes the race, and no asker gives
	// up an outcome that is being taken.
	a := q.ask
	decides := a.err == nil && (r.err != nil || a.open == 1)
	wins := r.err == nil || !isTypedNil(r.err) && CodeOf(r.err) == CodeAskDeclined
	if decides && wins {
		o := Outcome{Answer: Answer{Via: r.ans.Via}, Err: r.err}
		if r.err == nil { // the answer to the batch's last question, as FirstOf reports a batch
			o.Answer = a.questions[len(a.questions)-1].given.ans
			if q.index == len(a.questions)-1 {
				o.Answer = r.ans
			}
		}
		if !b.claim(a, o) {
			b.lost(a)
			return false
		}
		return true
	}
	if _, elsewhere := EndedElsewhere(a.ctx); elsewhere {
		b.lost(a)
		return false
	}
	return true
}

// claim asks the claimer of a's ctx to take o, without b.mu, which is held
// when claim is called and when it returns, also when the claimer panics.
func (b *Inbox) claim(a *inboxAsk, o Outcome) (took bool) {
	a.claiming = make(chan struct{})
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		close(a.claiming)
		a.claiming = nil
	}()
	return Claim(a.ctx, o)
}

// waitClaim waits until no claim runs for the questions of a. b.mu is held,
// and released while it waits.
func (b *Inbox) waitClaim(a *inboxAsk) {
	for a.claiming != nil {
		claiming := a.claiming
		b.mu.Unlock()
		<-claiming
		b.mu.Lock()
	}
}

// lost closes the open questions of a, whose race another UI won, once its
// ctx says so. b.mu is held.
func (b *Inbox) lost(a *inboxAsk) {
	if _, elsewhere := EndedElsewhere(a.ctx); elsewhere {
		b.closeAsk(a)
		b.publish()
	}
}

// askAll opens reqs, which are valid, and waits for their outcomes, as
// AskAll says. A batch is marked as one in Pending.
func (b *Inbox) askAll(ctx context.Context, reqs []Request, batch bool) ([]Answer, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err // not opened: no UI sees a question already given up
	}
	deadline, _ := ctx.Deadline()
	if deadline.Year() > 9999 {
		// RFC 3339 has no such year. Pending's JSON would fail for every
		// question, and the page would show none.
		deadline = time.Time{}
	}
	a, err := b.openAll(ctx, reqs, batch, deadline)
	if err != nil {
		return nil, err
	}
	answers := make([]Answer, 0, len(reqs))
	for _, q := range a.questions {
		var r result
		select {
		case r = <-q.outcome:
		case <-ctx.Done():
			// A Respond that closed q first has delivered its outcome
			// under b.mu, so the human's answer is kept.
			b.giveUp(a)
			r = <-q.outcome
		}
		if r.err != nil {
			b.settle(a, len(answers))
			return answers, r.err // every question after q is closed by now
		}
		answers = append(answers, r.ans)
	}
	return answers, nil
}

// openAll opens reqs as the questions of one call, consecutive in Pending,
// under a Batch of their own when batch is set. An ID is not checked against
// earlier ones. Two of 2^32 random 128-bit IDs are equal with a chance of
// about 2^-65. The Batch is random too, so that it names no question.
func (b *Inbox) openAll(ctx context.Context, reqs []Request, batch bool, deadline time.Time) (*inboxAsk, error) {
	random := make([]byte, 16*(len(reqs)+1)) // an ID per question, and the Batch
	if _, err := rand.Read(random); err != nil {
		// Since Go 1.24 crypto/rand.Read never fails. Go 1.21 could.
		// Registry.Ask makes this error PROVIDER_FAILED.
		return nil, fmt.Errorf("userinteraction: Inbox: no random question ID: %w", err)
	}
	a := &inboxAsk{ctx: ctx, questions: make([]*question, len(reqs)), open: len(reqs)}
	var batchID string
	if batch {
		batchID = hex.EncodeToString(random[16*len(reqs):])
	}
	for i, req := range reqs {
		q := &question{
			entry: Pending{
				ID:       hex.EncodeToString(random[16*i : 16*(i+1)]),
				Request:  req.clone(),
				Batch:    batchID,
				Deadline: deadline,
			},
			ask:     a,
			index:   i,
			outcome: make(chan result, 1),
		}
		if batch {
			q.entry.Index, q.entry.Count = i, len(reqs)
		}
		a.questions[i] = q
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byID == nil {
		b.byID = make(map[string]*question)
	}
	for _, q := range a.questions {
		b.byID[q.entry.ID] = q
	}
	for _, q := range a.questions {
		q.elem = b.open.PushBack(q)
	}
	b.publish()
	return a, nil
}

// giveUp closes the open questions of a, as their asker's ctx is done.
func (b *Inbox) giveUp(a *inboxAsk) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.waitClaim(a) // an outcome being taken is the asker's
	if b.closeAsk(a) {
		b.publish()
	}
}

// closeAsk closes the open questions of a, whose ctx is done, and reports
// whether there were any. Each records how the ctx ended. When another UI
// won, every question of a reports the winner's outcome at once, also one
// answered here. b.mu is held.
func (b *Inbox) closeAsk(a *inboxAsk) bool {
	r, o := result{err: a.ctx.Err()}, endedBy(a.ctx)
	_, elsewhere := EndedElsewhere(a.ctx)
	changed := false
	for _, q := range a.questions {
		changed = b.deliver(q, r, o) || changed
		if elsewhere {
			b.ended.set(q.entry.ID, o)
		}
	}
	return changed
}

// endedBy returns the Outcome of a question whose asker's ctx is done, as
// Registry.Ask would return it.
func endedBy(ctx context.Context) Outcome {
	if o, elsewhere := EndedElsewhere(ctx); elsewhere {
		return o
	}
	if cause := context.Cause(ctx); ctx.Err() == context.Canceled && errors.Is(cause, errDisposed) {
		return Outcome{Err: NewError(CodeAskAborted, "ask aborted: the provider was disposed before the question was answered", cause)}
	}
	return Outcome{Err: aborted(ctx, "answered")}
}

// settle records, once a returns at the error of its question n, the
// Outcome that Registry.AskAll reports for each request. The questions
// after n report n's. When another UI won, every question reports the
// winner's.
func (b *Inbox) settle(a *inboxAsk, n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	o, elsewhere := EndedElsewhere(a.ctx)
	from := 0
	if !elsewhere {
		var kept bool
		if o, kept = b.ended.get(a.questions[n].entry.ID); !kept {
			return // forgotten already, as are the questions after it
		}
		from = n + 1
	}
	for _, q := range a.questions[from:] {
		b.ended.set(q.entry.ID, o)
	}
}

// deliver closes q with the outcome r, which Outcome reports as o, and
// reports true, or reports false when q was closed already. b.mu is held.
// Each question receives exactly one outcome, so the send never blocks.
func (b *Inbox) deliver(q *question, r result, o Outcome) bool {
	if q.elem == nil {
		return false
	}
	delete(b.byID, q.entry.ID)
	if len(b.byID) == 0 {
		// A Go map keeps the buckets of its largest size. After a burst
		// of questions, an empty Inbox drops them.
		b.byID = nil
	}
	b.open.Remove(q.elem)
	q.elem, q.given = nil, r
	q.ask.open--
	b.ended.add(q.entry.ID, o)
	q.outcome <- r
	return true
}

// publish closes the Changed channel, which makes a change of the open
// questions visible. b.mu is held.
func (b *Inbox) publish() {
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
}

// maxEnded is the number of questions whose outcome an Inbox keeps after
// they left: enough for a UI that was showing one to say how it ended, and
// a bound on the memory of a long-lived Inbox.
const maxEnded = 1000

// endings holds how the last maxEnded questions that left an Inbox ended.
type endings struct {
	ring  []ending       // in the order they left; once full, the oldest is at next
	next  int            // where the next one goes, once ring is full
	index map[string]int // the place of each in ring
}

// An ending is how one question that left an Inbox ended.
type ending struct {
	id      string
	outcome Outcome
}

// add records that question id ended with o, forgetting the oldest once
// maxEnded are kept.
func (e *endings) add(id string, o Outcome) {
	if len(e.ring) < maxEnded {
		if e.index == nil {
			e.index = make(map[string]int)
		}
		e.index[id] = len(e.ring)
		e.ring = append(e.ring, ending{id, o})
		return
	}
	delete(e.index, e.ring[e.next].id)
	e.ring[e.next] = ending{id, o}
	e.index[id] = e.next
	if e.next = (e.next + 1) % maxEnded; e.next == 0 {
		// A Go map that deletes and adds keys may keep buckets it no
		// longer needs. Once per turn of the ring, a new one holds the
		// same IDs.
		e.index = make(map[string]int, maxEnded)
		for i, end := range e.ring {
			e.index[end.id] = i
		}
	}
}

// get returns how question id ended, and whether it is kept.
func (e *endings) get(id string) (Outcome, bool) {
	i, ok := e.index[id]
	if !ok {
		return Outcome{}, false
	}
	return e.ring[i].outcome, true
}

// set replaces how question id ended, when it is still kept.
func (e *endings) set(id string, o Outcome) {
	if i, ok := e.index[id]; ok {
		e.ring[i].outcome = o
	}
}

// ----------------------------------------------------------------------------
// Inbox: the handler and its routes

// Handler returns an [http.Handler] that serves b to a web browser. Mount it
// under a prefix, and give the human the link /ask/#token=....
//
//	http.Handle("/ask/", http.StripPrefix("/ask", inbox.Handler(token)))
//
// Its routes are these.
//
//   - GET / is the page.
//   - GET /questions is [Inbox.Pending] as JSON.
//   - GET /events sends that JSON as a "questions" event at every change,
//     after an "ended" event {"id", "outcome"} ([Inbox.Outcome]) for each
//     question that left. Query open names the IDs a client shows, to learn
//     how they ended.
//   - POST /questions/{id} responds with an MCP elicitation result
//     ([ElicitationAnswer]), Via "page". It is 204, or 422 for a broken
//     rule, with "hint", or 409 when not open, each with the [HarnessError]
//     JSON. A bad body is 400, 413 or 415.
//
// Every route but the page needs token, as "Authorization: Bearer" or query
// token, else 401. A query's token may reach an access log. Handler panics
// for a token under 16 bytes. Make it with crypto/rand.
// [http.Server.Shutdown] does not wait for open streams.
func (b *Inbox) Handler(token string) http.Handler {
	if len(token) < minToken {
		panic("userinteraction: Inbox.Handler: the token is shorter than 16 bytes")
	}
	return &inboxHandler{inbox: b, token: sha256.Sum256([]byte(token)), csp: pageCSP()}
}

const (
	minToken = 16      // bytes of a Handler's token, at least
	maxBody  = 1 << 20 // bytes of a response's body, at most
	maxOpen  = 1000    // IDs of the query parameter open that count, at most
)

// inboxHandler is the handler that [Inbox.Handler] returns. It and the page
// use only what the package exports, so another UI can do all they do.
type inboxHandler struct {
	inbox *Inbox
	token [32]byte // the SHA-256 of the token: equal lengths, compared in constant time
	csp   string   // the page's Content-Security-Policy

	mu   sync.Mutex // guards the fields below
	last *snapshot  // the open questions as the streams last sent them
	// servers holds, for each server that served a stream, a channel
	// closed when it shuts down. A server is kept after it shut down: a
	// stream that starts then ends at once.
	servers map[*http.Server]chan struct{}
}

// A snapshot is the open questions at one change, as every event stream
// sends them: the list is encoded once per change, whatever the number of
// streams.
type snapshot struct {
	changed <-chan struct{} // closed at the next change
	seq     uint64          // one more than the snapshot before it
	ids     []string        // the open questions' IDs, in order
	open    map[string]bool // the same IDs
	ended   []byte          // the "ended" events of the questions that left since the snapshot before
	list    []byte          // the "questions" event
}

// ServeHTTP routes by path and method, as Go 1.21's ServeMux cannot.
func (h *inboxHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	header := w.Header()
	header.Set("X-Content-Type-Options", "nosniff")
	header.Set("Cache-Control", "no-store")
	header.Set("Referrer-Policy", "no-referrer")
	header.Set("X-Frame-Options", "DENY")
	path, method := r.URL.Path, r.Method
	if !strings.HasPrefix(path, "/") { // mounted with StripPrefix("/ask/")
		path = "/" + path
	}
	get := method == http.MethodGet || method == http.MethodHead
	page := path == "/"
	if page && get {
		header.Set("Content-Security-Policy", h.csp)
		header.Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, inboxPage)
		return
	}
	// The token keeps out other local users, other pages in the human's
	// browser (cross-site requests, DNS rebinding) and anyone who reaches the
	// port. So no Host check is needed.
	if !h.authorized(r) {
		header.Set("WWW-Authenticate", "Bearer")
		http.Error(w, "unauthorized: open the page through the link with its token", http.StatusUnauthorized)
		return
	}
	id, answer := strings.CutPrefix(path, "/questions/")
	answer = answer && id != "" && !strings.Contains(id, "/")
	switch {
	case path == "/questions" && get:
		h.serveQuestions(w)
	case path == "/events" && method == http.MethodGet:
		h.serveEvents(w, r)
	case answer && method == http.MethodPost:
		h.serveAnswer(w, r, id)
	case page || path == "/questions":
		methodNotAllowed(w, "GET, HEAD")
	case path == "/events":
		methodNotAllowed(w, "GET")
	case answer:
		methodNotAllowed(w, "POST")
	default:
		http.NotFound(w, r)
	}
}

// authorized reports whether r carries the token, in its Authorization
// header or its query.
func (h *inboxHandler) authorized(r *http.Request) bool {
	scheme, given, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if strings.EqualFold(scheme, "Bearer") && h.isToken(given) {
		return true
	}
	return h.isToken(r.URL.Query().Get("token"))
}

// isToken reports whether given is the token, in time that does not depend
// on where they differ, nor on given's length.
func (h *inboxHandler) isToken(given string) bool {
	sum := sha256.Sum256([]byte(given))
	return subtle.ConstantTimeCompare(sum[:], h.token[:]) == 1
}

// methodNotAllowed answers 405 with the methods a route allows.
func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	http.Error(w, "method not allowed: use "+allow, http.StatusMethodNotAllowed)
}

// serveQuestions writes the open questions as JSON.
func (h *inboxHandler) serveQuestions(w http.ResponseWriter) {
	data, err := json.Marshal(h.inbox.Pending())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(data)
}

// serveEvents writes the events of the open questions now and at every
// change, until the client goes away or the server shuts down. Changes that
// come while an event is written are sent as one.
func (h *inboxHandler) serveEvents(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	flush := http.NewResponseController(w).Flush
	shutdown := h.shutdown(r)
	if _, err := io.WriteString(w, "retry: 1000\n\n"); err != nil { // reconnect after a second, not three
		return
	}
	shown := shownIDs(r.URL.Query().Get("open"))
	var sent *snapshot
	for {
		s, err := h.current()
		if err != nil {
			return
		}
		ended := s.ended
		switch {
		case sent == nil:
			ended = h.endedEvents(shown, s.open)
		case s.seq != sent.seq+1: // this stream missed a change
			ended = h.endedEvents(sent.ids, s.open)
		}
		if _, err := w.Write(ended); err != nil { // shared: never appended to
			return
		}
		if _, err := w.Write(s.list); err != nil {
			return
		}
		if err := flush(); err != nil {
			return
		}
		sent = s
		select {
		case <-s.changed:
		case <-r.Context().Done():
			return
		case <-shutdown:
			return
		}
	}
}

// shownIDs returns the first maxOpen IDs of open, the query parameter, each
// once. The work and the events that follow are bounded by the IDs, not by
// how often a client repeats one.
func shownIDs(open string) []string {
	parts := strings.SplitN(open, ",", maxOpen+1)
	if len(parts) > maxOpen {
		parts = parts[:maxOpen]
	}
	seen := make(map[string]bool, len(parts))
	ids := parts[:0]
	for _, id := range parts {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids
}

// current returns the snapshot of the open questions now, which every
// stream shares.
func (h *inboxHandler) current() (*snapshot, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	changed := h.inbox.Changed() // before Pending, so that no change is missed
	if h.last != nil && h.last.changed == changed {
		return h.last, nil
	}
	pending := h.inbox.Pending()
	var list bytes.Buffer
	list.WriteString("event: questions\ndata: ")
	if err := json.NewEncoder(&list).Encode(pending); err != nil { // one line, as json.Marshal writes it, and "\n"
		return nil, err
	}
	list.WriteString("\n")
	s := &snapshot{changed: changed, ids: make([]string, len(pending)), open: make(map[string]bool, len(pending)), list: list.Bytes()}
	for i := range pending {
		s.ids[i] = pending[i].ID
		s.open[pending[i].ID] = true
	}
	if h.last != nil {
		s.seq = h.last.seq + 1
		s.ended = h.endedEvents(h.last.ids, s.open)
	}
	h.last = s
	return s, nil
}

// endedEvents returns an "ended" event for each of ids that is not open,
// with its Outcome, or null when the Inbox does not know it.
func (h *inboxHandler) endedEvents(ids []string, open map[string]bool) []byte {
	var events []byte
	for _, id := range ids {
		if id == "" || open[id] {
			continue
		}
		var outcome *Outcome
		if o, ok := h.inbox.Outcome(id); ok {
			outcome = &o
		}
		data, err := json.Marshal(struct {
			ID      string   `json:"id"`
			Outcome *Outcome `json:"outcome"`
		}{id, outcome})
		if err != nil {
			continue
		}
		events = append(append(append(events, "event: ended\ndata: "...), data...), "\n\n"...)
	}
	return events
}

// shutdown returns a channel that is closed when the server that serves r
// shuts down, or nil when r names no server. It registers with each server
// once.
func (h *inboxHandler) shutdown(r *http.Request) <-chan struct{} {
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if srv == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	done, ok := h.servers[srv]
	if !ok {
		if h.servers == nil {
			h.servers = make(map[*http.Server]chan struct{})
		}
		done = make(chan struct{})
		h.servers[srv] = done
		srv.RegisterOnShutdown(func() { close(done) })
	}
	return done
}

// serveAnswer responds to question id with the elicitation result in r's
// body.
func (h *inboxHandler) serveAnswer(w http.ResponseWriter, r *http.Request, id string) {
	if r.ContentLength > maxBody {
		http.Error(w, "the body is larger than 1 MiB", http.StatusRequestEntityTooLarge)
		return
	}
	if media, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || media != "application/json" {
		http.Error(w, "the body is not application/json", http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		http.Error(w, "the body is larger than 1 MiB", http.StatusRequestEntityTooLarge)
		return
	}
	var result struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	if err == nil {
		err = json.Unmarshal(body, &result)
	}
	if err != nil {
		http.Error(w, "the body is not an elicitation result: "+err.Error(), http.StatusBadRequest)
		return
	}
	ans, outcome := ElicitationAnswer(result.Action, result.Content)
	if CodeOf(outcome) == CodeInvalidAnswer { // a client's bug, not the human's answer
		http.Error(w, "the body is not an elicitation result: "+outcome.Error(), http.StatusBadRequest)
		return
	}
	ans.Via = "page"
	refused := h.inbox.Respond(id, ans, outcome)
	switch CodeOf(refused) {
	case "":
		w.WriteHeader(http.StatusNoContent)
	case CodeInvalidAnswer:
		hint := ""
		for _, p := range h.inbox.Pending() { // the refusal set the question's Hint
			if p.ID == id {
				hint = p.Hint
			}
		}
		writeRefusal(w, http.StatusUnprocessableEntity, refused, hint)
	default:
		writeRefusal(w, http.StatusConflict, refused, "")
	}
}

// writeRefusal writes the refused Respond's error as the JSON of its
// [HarnessError], with hint beside it when there is one.
func writeRefusal(w http.ResponseWriter, status int, refused error, hint string) {
	var e *HarnessError
	errors.As(refused, &e) // every refusal of Respond is one
	data, _ := json.Marshal(struct {
		*HarnessError
		Hint string `json:"hint,omitempty"`
	}{e, hint})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// ----------------------------------------------------------------------------
// Replay

// Replay is a [Provider] for hosts that cannot keep a tool call open while
// the human thinks. It answers from a record of outcomes, and collects the
// other questions as pending, for the host to ask and record. [Replay.Run]
// runs the call, until nothing is pending.
//
// The zero value is an empty record ready to use. A Replay is safe for
// concurrent use, and its methods need a non-nil *Replay.
type Replay struct {
	mu      sync.Mutex         // guards the fields below
	record  map[string]outcome // outcomes by question ID
	pending []Pending          // questions of this run without an outcome, in the order asked
	asked   map[string]int     // how many times this run asked each request, by the ID of its first ask
	opened  bool               // pending holds the sealed questions, until the next run starts
}

var _ BatchProvider = (*Replay)(nil)

// Ask answers req from the record: a recorded error, or a recorded answer
// completed as [Registry.Ask] completes it. A question without an outcome
// joins [Replay.Pending], and Ask returns [CodeInputRequired] at once. An
// invalid req is [CodeInvalidRequest] and is not asked. A recorded answer
// that breaks the rules of [Answer] is dropped and counted as refused, and
// the question joins Pending again with a Hint that says why. The third
// refused response is the outcome [CodeInvalidAnswer].
//
// The question's ID is the first 16 bytes, in lower-case hex, of the SHA-256
// of the request's RFC 8785 canonical JSON, a newline, and the count of equal
// requests the run asked before. Any language computes the same IDs.
func (p *Replay) Ask(ctx context.Context, req Request) (Answer, error) {
	if err := validate(&req); err != nil {
		return Answer{}, err
	}
	answers, err := p.replay([]Request{req}, false)
	if err != nil {
		return Answer{}, err
	}
	return answers[0], nil
}

// AskAll answers reqs from the record as Ask does, in order, up to the first
// recorded error. The questions up to there without an outcome join Pending
// at once, and AskAll returns [CodeInputRequired]. Their Batch is the ID of
// the first of reqs, and their Index and Count their place in reqs and
// len(reqs). Requests that [Registry.AskAll] refuses are
// [CodeInvalidRequest], and none is asked.
func (p *Replay) AskAll(ctx context.Context, reqs []Request) ([]Answer, error) {
	if err := validateAll(reqs); err != nil {
		return nil, err
	}
	return p.replay(reqs, true)
}

// Run runs call once, as one run of a tool call, and returns the questions
// left pending. The record stays, and the last run's pending questions are
// forgotten. In call's context, derived from ctx, p is the provider of a new
// [Registry], so the caller's UI is never asked. That Registry's Ended is
// the one of the registry ctx carries, if any. One Replay serves every run
// of a call, one run at a time.
//
// A call must reach the same questions in the same order on every run. It
// must ask before it acts, since what it does before an Ask happens again on
// every run.
func (p *Replay) Run(ctx context.Context, call func(ctx context.Context)) []Pending {
	r := &Registry{}
	if caller := FromContext(ctx); caller != nil {
		r.Ended = caller.Ended // the host's audit sees the run's questions
	}
	dispose, _ := r.Register(p) // cannot fail: r is new and p is not nil
	defer dispose()
	p.mu.Lock()
	p.startRun()
	p.mu.Unlock()
	call(WithRegistry(ctx, r))
	return p.Pending()
}

// Pending returns the questions this run asked that had no recorded outcome
// when asked, in the order asked. A later Record does not change it. The
// result shares no memory with p.
//
// After [OpenReplay] it returns the questions pending when the state was
// sealed: their IDs, and the Hints of refused responses. Their Requests are
// zero until the next run asks them again. They last until that run starts,
// with [Replay.Run] or with the first Ask or AskAll of a Replay registered
// without Run.
func (p *Replay) Pending() []Pending {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Pending, len(p.pending))
	for i, q := range p.pending {
		q.Request = q.Request.clone()
		out[i] = q
	}
	return out
}

// Record records the outcome of question id: err, or ans when err is nil.
// An error is kept as its {name, code, message}, and one without a code as
// [CodeProviderFailed]. [CodeInputRequired] is no outcome, and records
// nothing. Record replaces an earlier outcome of id, and an answer keeps its
// count of refused responses. The next run checks ans, as [Replay.Ask] says.
// Map a form's response with [ElicitationAnswer]. id need not be pending,
// and one that is not valid UTF-8 is ignored.
func (p *Replay) Record(id string, ans Answer, err error) {
	o := outcome{answer: ans.clone()}
	if err != nil {
		o = outcome{err: codedError(err)}
	}
	if !utf8.ValidString(id) || (o.err != nil && o.err.Code == CodeInputRequired) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.record == nil {
		p.record = make(map[string]outcome)
	}
	if o.err == nil {
		o.refused = p.record[id].refused // an answer to a question asked again
	}
	p.record[id] = o
}

// replay answers the valid requests reqs from the record, as AskAll says.
// The questions of a batch share the ID of its first as their Batch.
func (p *Replay) replay(reqs []Request, batched bool) ([]Answer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.opened { // the first ask of a Replay registered without Run starts its run
		p.startRun()
	}
	p.pending = slices.Grow(p.pending, len(reqs))
	var answers []Answer // of the questions before the first without an outcome
	var missing []string // the IDs of the questions without an outcome
	var failed error     // the first recorded error
	var batch string
	for i := range reqs {
		req := &reqs[i]
		id := p.id(req)
		if batched && i == 0 {
			batch = id
		}
		ans, answered, hint, err := p.outcome(id, req)
		if err != nil {
			failed = err // the human's outcome ends the batch
			break
		}
		if !answered {
			missing = append(missing, id)
			q := Pending{ID: id, Request: req.clone(), Batch: batch, Hint: hint}
			if batched {
				q.Index, q.Count = i, len(reqs)
			}
			p.pending = append(p.pending, q)
			continue
		}
		if len(missing) == 0 {
			answers = append(answers, ans)
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

// outcome returns the recorded outcome of question id, whose request is req:
// its answer, completed and checked as step 6 of [Registry.Ask] does, or its
// error. A question without one is not answered, and hint says why the last
// response to it was refused, if one was. A recorded answer that breaks the
// rules is not an outcome. It leaves the record, which counts it as refused
// instead. The refusal that reaches maxForms is the outcome
// [CodeInvalidAnswer], recorded as such. p.mu is held.
func (p *Replay) outcome(id string, req *Request) (ans Answer, answered bool, hint string, err error) {
	o, ok := p.record[id]
	switch {
	case !ok:
		return Answer{}, false, "", nil
	case o.err != nil:
		return Answer{}, true, "", o.err.asError()
	case o.refusal:
		return Answer{}, false, o.hint, nil
	}
	ans, broken := resolve(req, o.answer)
	if broken == nil {
		return ans, true, "", nil
	}
	if o.refused+1 >= maxForms {
		why := fmt.Sprintf("%s (the last of %d refused responses)", broken.why, maxForms)
		o = outcome{err: codedError(invalidAnswer(why))}
		p.record[id] = o
		return Answer{}, true, "", o.err.asError()
	}
	p.record[id] = outcome{refusal: true, refused: o.refused + 1, hint: broken.hint}
	return Answer{}, false, broken.hint, nil
}

// id returns the ID of req, valid, one more ask of it in this run. p.mu is
// held.
func (p *Replay) id(req *Request) string {
	canonical := appendCanonical(nil, req)
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
// canonical, asked n times before in its run.
func questionID(canonical []byte, n int) string {
	h := sha256.New()
	h.Write(canonical)
	h.Write(strconv.AppendInt([]byte{'\n'}, int64(n), 10))
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:16])
}

// startRun starts a new run on p. The record stays, and the asks and pending
// questions of the previous run (or of the sealed state) are forgotten. p.mu
// is held.
func (p *Replay) startRun() {
	p.pending, p.asked, p.opened = nil, nil, false
}

// ----------------------------------------------------------------------------
// Replay: sealed state

// Seal returns the record of p and the IDs of its pending questions as state
// for a trip through a client, such as MCP's requestState. The state is
// base64url with one '.', authenticated with HMAC-SHA256 under key. It is
// valid for ttl, rounded up to the millisecond, and a ttl that is not
// positive expires it at once. It is sealed, not encrypted: the client can
// read its answers. A key shorter than 32 bytes is an uncoded error.
//
// binding identifies the call, and must be the same in every round. Build it
// from the principal, the tool's name, and the arguments decoded and encoded
// again with json.Marshal, which sorts keys. Only its digest is stored.
func (p *Replay) Seal(key []byte, binding string, ttl time.Duration) (string, error) {
	if len(key) < minKey {
		return "", errShortKey
	}
	p.mu.Lock()
	// The record and the pending IDs under one lock, so that a Record or a
	// run meanwhile cannot seal a state where the two disagree.
	s := sealed[map[string]any]{Version: sealVersion, Expires: expiry(time.Now(), ttl), Binding: digest(binding), Record: p.entriesLocked()}
	for i := range p.pending {
		s.Pending = append(s.Pending, p.pending[i].ID)
	}
	p.mu.Unlock()
	payload, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	return stateEncoding.EncodeToString(payload) + "." + stateEncoding.EncodeToString(mac(key, payload)), nil
}

// OpenReplay returns the Replay that [Replay.Seal] sealed in state, under key
// and for binding. It holds the record, and as Pending the questions pending
// then. An empty state is the first round, and gives an empty Replay.
//
// State tampered with, expired, malformed, or sealed for another binding or
// under another key is [CodeInvalidState]. Its message tells the model to
// call the tool again from the start. Its cause tells the host which check
// failed. A state has only Seal's spelling, so any other byte, such as a line
// break or padding, is malformed. A key shorter than 32 bytes is an uncoded
// error, even for an empty state.
func OpenReplay(key []byte, binding, state string) (*Replay, error) {
	if len(key) < minKey {
		return nil, errShortKey
	}
	if state == "" {
		return &Replay{}, nil
	}
	if err := spellingErr(state); err != nil {
		return nil, invalidState(err)
	}
	data, sum, _ := strings.Cut(state, ".")
	payload, err1 := stateEncoding.DecodeString(data)
	got, err2 := stateEncoding.DecodeString(sum)
	if err1 != nil || err2 != nil {
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
	if time.Now().UnixMilli() > s.Expires {
		return nil, invalidState(errors.New("state expired"))
	}
	record, err := decodeRecord(s.Record) // valid JSON: json.Unmarshal checked the payload
	if err != nil {
		return nil, invalidState(err)
	}
	rp := &Replay{record: record, pending: make([]Pending, len(s.Pending)), opened: true}
	for i, id := range s.Pending {
		rp.pending[i] = Pending{ID: id, Hint: record[id].hint} // a refusal's hint, else ""
	}
	return rp, nil
}

// sealed is the payload of sealed state, authenticated by its MAC. Its
// fields have no JSON methods, so that encoding/json reads and writes it in
// one pass. A method's JSON, or a json.RawMessage, is checked again. Seal
// holds the record as entries (a map[string]any), encoded in the same pass.
// OpenReplay holds it raw (a json.RawMessage), for decodeRecord's strict
// reading. With a raw record Seal takes twice as long, as long as
// golang-jwt's sign of the same content, the contract's bound
// (CONTRIBUTING, "Against golang-jwt").
type sealed[Record any] struct {
	Version int      `json:"v"`
	Expires int64    `json:"exp"`  // Unix milliseconds, see expiry
	Binding string   `json:"bind"` // digest of the binding
	Record  Record   `json:"record"`
	Pending []string `json:"pending,omitempty"` // the IDs of the pending questions
}

const (
	sealVersion = 4  // 2: the MAC key is derived from the key (see mac); 3: refusals; 4: pending IDs alone, answers' Via
	minKey      = 32 // bytes of a sealing key, at least
)

// stateEncoding encodes sealed state. Strict refuses unused bits that are
// not zero, and spellingErr the line breaks that Strict still skips. So
// each state has one spelling.
var stateEncoding = base64.RawURLEncoding.Strict()

// spellingErr says why state is not spelled as Seal spells it, which is
// base64url without padding, one '.', and base64url. The decoder alone would
// skip line breaks, even when Strict, and so give one state many spellings.
func spellingErr(state string) error {
	dots := 0
	for i := 0; i < len(state); i++ {
		switch c := state[i]; {
		case c == '.':
			dots++
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_':
		default:
			return fmt.Errorf("malformed state: byte %#02x at %d", c, i)
		}
	}
	if dots != 1 {
		return fmt.Errorf("malformed state: %d dots, want 1", dots)
	}
	return nil
}

// expiry returns the expiry of state sealed at now for ttl, in Unix
// milliseconds. A positive ttl is rounded up to the next whole millisecond,
// and OpenReplay accepts state until that millisecond is over. Cut down, the
// expiry of a ttl under a millisecond would already be past. A ttl that is
// not positive gives an expiry already past.
func expiry(now time.Time, ttl time.Duration) int64 {
	end := now.Add(ttl)
	if ttl <= 0 {
		return end.UnixMilli() - 1
	}
	return end.Add(time.Millisecond - 1).UnixMilli()
}

// errShortKey is uncoded, because it is the host's configuration error, not
// the client's.
var errShortKey = errors.New("userinteraction: the sealing key is shorter than 32 bytes")

// mac returns the HMAC-SHA256 of sealed state's payload. Its key is derived
// from the whole of key, under a label of its own. Raw HMAC would pad a short
// key with zeros and hash a long one. Then a key K and K+"\x00", or a long
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

// ----------------------------------------------------------------------------
// Replay: the record's JSON

// MarshalJSON encodes the record as a JSON object from question IDs to
// outcomes. An answer is [Answer]'s JSON, with "refused" after refused
// responses, and an error [HarnessError]'s. Only refused responses give
// {"refused", "hint"}, their count and the last Hint.
func (p *Replay) MarshalJSON() ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return json.Marshal(p.entriesLocked())
}

// UnmarshalJSON replaces the record with the one data encodes. It reads
// strictly, as every language reads it. Keys match exactly and once an
// object, and none is unknown. Strings are valid UTF-8 with no escaped lone
// surrogate. Call it before the run's first Ask. On an error, or for JSON
// null, p is left as it was.
func (p *Replay) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	if !json.Valid(data) {
		var v any
		return fmt.Errorf("userinteraction: Replay record: %w", json.Unmarshal(data, &v)) // the syntax error
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

// entriesLocked returns the record's JSON values, each an answer, an error
// or a refusal. p.mu is held.
func (p *Replay) entriesLocked() map[string]any {
	entries := make(map[string]any, len(p.record))
	for id, o := range p.record {
		switch {
		case o.err != nil:
			entries[id] = o.err
		case o.refusal:
			entries[id] = refusal{Refused: o.refused, Hint: o.hint}
		case o.refused > 0:
			entries[id] = refusedAnswer{o.answer, o.refused}
		default:
			entries[id] = o.answer
		}
	}
	return entries
}

// outcome is what the record holds for a question. That is an answer, the
// coded error in its place, or a refusal. A refusal counts the responses
// refused so far and is no outcome yet.
type outcome struct {
	answer  Answer
	err     *HarnessError // nil for an answer or a refusal; never with a cause
	refusal bool          // no outcome yet: only refused responses
	refused int           // responses refused so far, from 0 to maxForms-1
	hint    string        // why the last one was refused, in a refusal
}

// refusal is the JSON of a refusal in the record.
type refusal struct {
	Refused int    `json:"refused"`
	Hint    string `json:"hint"`
}

// refusedAnswer is the JSON of an answer recorded after refused responses.
// It keeps their count, so a fourth response is never a first.
type refusedAnswer struct {
	Answer
	Refused int `json:"refused"`
}

// decodeRecord decodes a record's JSON, which must be valid, key by key.
// encoding/json would read "Answer" as "answer" and let the last of two
// equal keys win, where other languages do neither.
func decodeRecord(data []byte) (map[string]outcome, error) {
	record := make(map[string]outcome)
	r := &recordReader{data: data}
	_, err := r.object(nil, nil, func(id string) (err error) {
		if _, dup := record[id]; dup {
			return fmt.Errorf("duplicate key %s", quote(id))
		}
		if record[id], err = r.outcome(); err != nil {
			return fmt.Errorf("entry %s: %w", quote(id), err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("userinteraction: Replay record: %w", err)
	}
	for id, o := range record {
		if o.err != nil && o.err.Code == CodeInputRequired {
			delete(record, id) // no human's outcome
		}
	}
	return record, nil
}

// recordReader reads a record's JSON, which must be valid, in one pass. By
// hand, it holds OpenReplay within 1.5 times golang-jwt's parse, which
// encoding/json with a check of the keys does not (see CONTRIBUTING).
type recordReader struct {
	data []byte
	pos  int // of the next byte to read
}

// The keys of a record's objects, and what each holds.
var (
	outcomeKeys = map[string]string{"answer": "a string", "option": "an object", "options": "an array", "via": "a string",
		"refused": "a number", "hint": "a string", "name": "a string", "code": "a string", "message": "a string"}
	optionKeys = map[string]string{"label": "a string", "value": "a string", "description": "a string", "recommended": "a boolean"}
)

// outcome reads an outcome's object. An answer has an "answer", an error a
// "code", and a refusal a "refused" count and a "hint", each only the keys
// of its kind.
func (r *recordReader) outcome() (outcome, error) {
	var o outcome
	texts := map[string]string{} // the strings, numbers and booleans, as written
	seen, err := r.object(outcomeKeys, texts, func(key string) (err error) {
		if key == "option" {
			o.answer.Option, err = r.option()
		} else {
			o.answer.Options, err = r.options()
		}
		return err
	})
	has := func(key string) bool { return slices.Contains(seen, key) }
	kind := []string{"refused", "hint"} // the keys an outcome of its kind may have
	switch {
	case err != nil:
		return outcome{}, err
	case has("answer"):
		kind = []string{"answer", "option", "options", "via", "refused"}
		o.answer.Text, o.answer.Via = texts["answer"], texts["via"]
	case has("code"):
		kind = []string{"name", "code", "message"}
		o.err = &HarnessError{Name: texts["name"], Code: texts["code"], Message: texts["message"]}
	case !has("refused"):
		return outcome{}, errors.New(`an outcome has either an "answer", a "code" or a "refused" count`)
	default:
		o.refusal, o.hint = true, texts["hint"]
	}
	for _, key := range seen {
		if !slices.Contains(kind, key) {
			return outcome{}, fmt.Errorf("unknown key %s", quote(key))
		}
	}
	count := texts["refused"]
	o.refused, err = strconv.Atoi(count)
	switch {
	case has("refused") && err != nil:
		return outcome{}, fmt.Errorf(`"refused" is %s, not a whole number`, quote(count))
	case has("refused") && (o.refused < 1 || o.refused >= maxForms):
		return outcome{}, fmt.Errorf(`"refused" is %d, not from 1 to %d`, o.refused, maxForms-1)
	case o.err != nil && o.err.Code == "":
		return outcome{}, errors.New(`an outcome's "code" is empty`)
	case o.refusal && o.hint == "":
		return outcome{}, errors.New(`a refusal's "hint" is empty`)
	}
	return o, nil
}

// option reads an option's object.
func (r *recordReader) option() (*Option, error) {
	texts := map[string]string{}
	if _, err := r.object(optionKeys, texts, nil); err != nil {
		return nil, fmt.Errorf("option: %w", err)
	}
	return &Option{Label: texts["label"], Value: texts["value"], Description: texts["description"],
		Recommended: texts["recommended"] == "true"}, nil
}

// options reads an array of option objects. An empty one is nil, as
// [Answer] decodes it.
func (r *recordReader) options() ([]Option, error) {
	var opts []Option
	for r.pos++; r.more(']'); {
		o, err := r.option()
		if err != nil {
			return nil, err
		}
		opts = append(opts, *o)
	}
	return opts, nil
}

// object reads the object at r.pos, and nested reads each value. With
// keys, each key must be one of them, once, and hold what keys says, or
// null for the zero value (a count is never null). Then a string, number
// or boolean goes to texts instead, as written, and object returns the
// keys in order.
func (r *recordReader) object(keys map[string]string, texts map[string]string, nested func(key string) error) ([]string, error) {
	if r.peek() != '{' {
		return nil, fmt.Errorf("want a JSON object, not %s", r.kind())
	}
	seen := make([]string, 0, len(keys))
	for r.pos++; r.more('}'); {
		key, err := r.text()
		if err != nil {
			return nil, err
		}
		r.peek()
		r.pos++ // ':'
		r.peek()
		want, known := keys[key]
		switch got := r.kind(); {
		case keys == nil:
			err = nested(key)
		case !known:
			return nil, fmt.Errorf("unknown key %s", quote(key))
		case slices.Contains(seen, key):
			return nil, fmt.Errorf("duplicate key %s", quote(key))
		case got == "null" && key != "refused":
			r.pos += len("null")
		case got != want && want != "an object": // option says what it wants
			return nil, fmt.Errorf("%s is %s, not %s", quote(key), got, want)
		case want == "an object" || want == "an array":
			err = nested(key)
		default:
			texts[key], err = r.scalar()
		}
		if err != nil {
			return nil, err
		}
		if keys != nil {
			seen = append(seen, key)
		}
	}
	return seen, nil
}

// more skips a ',' and reports whether a value comes before end, which it
// skips.
func (r *recordReader) more(end byte) bool {
	if r.peek() == ',' {
		r.pos++
		r.peek()
	}
	if r.data[r.pos] != end {
		return true
	}
	r.pos++
	return false
}

// scalar reads the string, number or boolean at r.pos, as written.
func (r *recordReader) scalar() (string, error) {
	if r.data[r.pos] == '"' {
		return r.text()
	}
	start := r.pos
	for r.pos < len(r.data) && strings.IndexByte(",}] \t\n\r", r.data[r.pos]) < 0 {
		r.pos++
	}
	return string(r.data[start:r.pos]), nil
}

// text reads the string at r.pos. It is an error when it is not valid UTF-8
// or holds an escaped lone surrogate: Go reads both as U+FFFD, where
// JavaScript keeps a surrogate. encoding/json reads the escapes.
func (r *recordReader) text() (string, error) {
	start := r.pos
	for r.pos++; r.data[r.pos] != '"'; r.pos++ {
		if r.data[r.pos] != '\\' {
			continue
		}
		r.pos++ // the escaped byte
		if r.data[r.pos] != 'u' {
			continue
		}
		switch c := surrogate(r.data[r.pos+1:]); {
		case c == 0:
		case c < 0xdc00 && bytes.HasPrefix(r.data[r.pos+5:], []byte(`\u`)) && surrogate(r.data[r.pos+7:]) >= 0xdc00:
			r.pos += 6 // the low surrogate of a pair
		default:
			return "", fmt.Errorf("a string holds a lone surrogate %s", r.data[r.pos-1:r.pos+5])
		}
		r.pos += 4
	}
	r.pos++
	raw := r.data[start:r.pos]
	switch {
	case !utf8.Valid(raw):
		return "", errors.New("a string is not valid UTF-8")
	case bytes.IndexByte(raw, '\\') < 0:
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// surrogate returns the UTF-16 surrogate that the four hex digits at the
// start of hex escape, or 0 for any other code unit.
func surrogate(hex []byte) rune {
	c, err := strconv.ParseUint(string(hex[:4]), 16, 16)
	if err != nil || c < 0xd800 || c > 0xdfff {
		return 0
	}
	return rune(c)
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

// kinds name JSON values by their first byte, for messages. Any other
// value is a number.
var kinds = map[byte]string{'{': "an object", '[': "an array", '"': "a string", 't': "a boolean", 'f': "a boolean", 'n': "null"}

// kind names the JSON value at r.pos.
func (r *recordReader) kind() string {
	if k, ok := kinds[r.data[r.pos]]; ok {
		return k
	}
	return "a number"
}

// ----------------------------------------------------------------------------
// FirstOf

// FirstOf returns a [BatchProvider] that asks every one of providers at
// once. It returns nil, which [Registry.Register] refuses, when providers is
// empty or holds a nil one. It is safe for concurrent use when each of
// providers is.
//
// The first answer that keeps the rules of [Answer] wins, and so does the
// first [CodeAskDeclined]. A UI that tells its human their answer was taken
// claims the win first ([Claim]). The other providers are then withdrawn,
// and [EndedElsewhere] of their ctx reports the winner's outcome. Any other
// outcome drops its provider out, and when all have, the outcome of
// providers[0] is returned. When ctx ends, every provider is withdrawn, no
// answer is taken after, and the error is ctx.Err(). A [Replay] has no
// place among providers, since it never waits for the human.
//
// AskAll races whole batches, so all answers come from one UI. A provider
// that is not a BatchProvider is asked the batch one question after
// another. A decline wins with the answers before it. Ask and AskAll return
// once every provider has returned, and then raise a provider's panic
// again. An invalid request is [CodeInvalidRequest], and no provider is
// asked.
func FirstOf(providers ...Provider) Provider {
	if len(providers) == 0 {
		return nil
	}
	for _, p := range providers {
		if isNilProvider(p) {
			return nil
		}
	}
	return &firstOf{providers: slices.Clone(providers)}
}

// firstOf is the provider that FirstOf returns.
type firstOf struct {
	providers []Provider // at least one, none nil
}

var _ BatchProvider = (*firstOf)(nil)

// Ask races the providers of f for req, as FirstOf says.
func (f *firstOf) Ask(ctx context.Context, req Request) (Answer, error) {
	if err := ctxErr(ctx); err != nil {
		return Answer{}, err
	}
	if err := req.Validate(); err != nil {
		return Answer{}, err
	}
	answers, err := f.race(ctx, func(ctx context.Context, p Provider) ([]Answer, error) {
		ans, err := askChecked(ctx, p, &req, "")
		if err != nil {
			return nil, err
		}
		return []Answer{ans}, nil
	})
	if err != nil {
		return Answer{}, err
	}
	return answers[0], nil
}

// AskAll races the providers of f for the whole batch reqs, as FirstOf says.
func (f *firstOf) AskAll(ctx context.Context, reqs []Request) ([]Answer, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if err := validateAll(reqs); err != nil {
		return nil, err
	}
	return f.race(ctx, func(ctx context.Context, p Provider) ([]Answer, error) {
		return askBatchChecked(ctx, p, reqs)
	})
}

// A runOutcome is how one provider's part of a race ended.
type runOutcome struct {
	index   int // the provider's place in the arguments of FirstOf
	answers []Answer
	err     error
}

// outcome returns the question's Outcome that o stands for, once it won: the
// decline, or the last answer of a batch.
func (o *runOutcome) outcome() Outcome {
	if o.err != nil || len(o.answers) == 0 {
		return Outcome{Err: o.err}
	}
	return Outcome{Answer: o.answers[len(o.answers)-1]}
}

// errPanicElsewhere is the cause of the context of a UI that FirstOf
// withdraws because another UI panicked.
var errPanicElsewhere = errors.New("another UI panicked")

// A race is one Ask or AskAll of a FirstOf: its providers answer at once,
// each under a member context of its own.
type race struct {
	ctx     context.Context // the ask's
	members []*member       // one per provider, in argument order

	mu     sync.Mutex // guards winner and won
	winner *member    // the member whose outcome won, or nil
	won    Outcome    // the winner's outcome
}

// A member is one provider's part of a race. Its context holds it as the
// claimer of that provider's ask.
type member struct {
	race     *race
	ctx      context.Context
	withdraw context.CancelCauseFunc
}

// claim takes the race for m with the outcome o, unless another member took
// it first. The others are then withdrawn, with o as the cause. A race
// inside another, a FirstOf among FirstOf's providers, claims the outer
// race first.
func (m *member) claim(o Outcome) bool {
	r := m.race
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.winner != nil {
		return r.winner == m
	}
	// Once the asker stopped, no answer is taken: a UI that its end
	// withdrew has told its human so, and must not be contradicted.
	if r.ctx.Err() != nil || !Claim(r.ctx, o) {
		return false
	}
	r.winner, r.won = m, o
	cause := &endedElsewhere{outcome: o}
	for _, other := range r.members {
		if other != m {
			other.withdraw(cause)
		}
	}
	return true
}

// lostTo returns the outcome of the member that won m's race, when another
// member did.
func (m *member) lostTo() (Outcome, bool) {
	// A win and the end of the ask's ctx can come at once, so that m's
	// context ended without the win as its cause. The race knows the winner.
	r := m.race
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.winner == nil || r.winner == m {
		return Outcome{}, false
	}
	return r.won, true
}

// race runs ask for every provider of f at once, each under a context of its
// own derived from ctx, and returns the winning outcome once all returned.
// ask returns an error unless every answer is there and keeps the rules.
// A provider that confirms an answer to its human claims the race first
// ([Claim]). Any other winning outcome claims it when it arrives.
func (f *firstOf) race(ctx context.Context, ask func(context.Context, Provider) ([]Answer, error)) ([]Answer, error) {
	all, withdrawAll := context.WithCancelCause(ctx)
	defer withdrawAll(nil)
	r := &race{ctx: ctx, members: make([]*member, len(f.providers))}
	for i := range f.providers {
		m := &member{race: r}
		m.ctx, m.withdraw = context.WithCancelCause(context.WithValue(all, claimKey{}, claimer(m)))
		r.members[i] = m
	}
	// Buffered, so that no provider's goroutine waits to report its outcome.
	outcomes := make(chan called[runOutcome], len(f.providers))
	for i, p := range f.providers {
		i, p := i, p
		goCall(outcomes, runOutcome{index: i, err: errStopped}, func() runOutcome {
			answers, err := ask(r.members[i].ctx, p)
			return runOutcome{i, answers, err}
		})
	}
	byIndex := make([]runOutcome, len(f.providers))
	var win *runOutcome
	var panicked any // the first provider's panic
	for range f.providers {
		c := <-outcomes
		o := c.value
		byIndex[o.index] = o
		r.members[o.index].withdraw(nil) // returned: its context is done with
		switch {
		case c.panicked != nil:
			if panicked == nil {
				panicked = c.panicked
				withdrawAll(errPanicElsewhere)
			}
		case win == nil && panicked == nil && wins(o.err) && r.members[o.index].claim(o.outcome()):
			win = &o
		}
	}
	switch {
	case panicked != nil:
		panic(panicked) // nothing is swallowed, not even after a win
	case win != nil:
		return win.answers, win.err
	case ctx.Err() != nil:
		return byIndex[0].answers, ctx.Err()
	}
	return byIndex[0].answers, byIndex[0].err
}

// wins reports whether err, a provider's error in a race, wins it. A nil
// err wins, once the answers passed the rules, and so does a decline. A
// typed nil is never asked for its code, because its methods could panic.
func wins(err error) bool {
	return err == nil || !isTypedNil(err) && CodeOf(err) == CodeAskDeclined
}

// askChecked asks p the question req, valid, and checks the answer as step 6
// of [Registry.Ask] does. which names the question in an INVALID_ANSWER
// ("questions[2]: "). p is not called once ctx is done, because it was
// withdrawn.
func askChecked(ctx context.Context, p Provider, req *Request, which string) (Answer, error) {
	if err := ctx.Err(); err != nil {
		return Answer{}, err
	}
	ans, err := p.Ask(ctx, *req)
	if err != nil {
		return Answer{}, err
	}
	ans, broken := resolve(req, ans)
	if broken != nil {
		return Answer{}, invalidAnswer(which + broken.why)
	}
	return ans, nil
}

// askBatchChecked asks p the batch reqs, valid, as [Registry.AskAll] would.
// It asks once when p is a BatchProvider, else one question after another.
// It checks each answer against its request, and returns an error unless
// every question has an answer that keeps the rules.
func askBatchChecked(ctx context.Context, p Provider, reqs []Request) ([]Answer, error) {
	bp, ok := p.(BatchProvider)
	if !ok {
		answers := make([]Answer, 0, len(reqs))
		for i := range reqs {
			ans, err := askChecked(ctx, p, &reqs[i], fmt.Sprintf("questions[%d]: ", i))
			if err != nil {
				return answers, err
			}
			answers = append(answers, ans)
		}
		return answers, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	given, err := bp.AskAll(ctx, reqs)
	return checkBatch(reqs, given, err)
}

// ----------------------------------------------------------------------------
// Inbox: the web page

// pageCSP returns the page's Content-Security-Policy. It allows the page's
// own script and style by their hashes, and requests to its own origin, and
// nothing else. It uses hashes, not a nonce, since the page is static.
func pageCSP() string {
	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	return "default-src 'none'; script-src " + hash(pageScript) + "; style-src " + hash(pageStyle) +
		"; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

// inboxPage is the page that [Inbox.Handler] serves at its root. It is
// static. The questions come from its routes, read with the token in the
// page's URL fragment, which never reaches a server or its log.
const inboxPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Questions</title>
<style>` + pageStyle + `</style>
</head>
<body>
<main>
<h1>Questions from your agent</h1>
<p id="status" role="status">Connecting…</p>
<div id="questions"></div>
<section id="ended" hidden><h2>Closed</h2></section>
</main>
<script>` + pageScript + `</script>
</body>
</html>
`

// pageStyle is the page's style sheet. The model's text sits in frames
// (.text, .said) outside every control's clickable area, with line
// feeds kept only where Validate allows them, and in boxes that scroll, so
// that no text draws a row of the page's own or pushes one out of view.
const pageStyle = `
:root { color-scheme: light dark; font: 16px/1.45 system-ui, sans-serif; --mark: #2f5fb3; }
body { margin: 0; }
main { max-width: 40rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.25rem; margin: 0; }
h2 { font-size: 1rem; margin: 1.5rem 0 .5rem; }
#status { margin: .25rem 0 1rem; }
.batch { border-left: 4px solid #4a78c2; padding-left: .75rem; }
form { border: 1px solid #8888; border-radius: .5rem; padding: .75rem 1rem; margin: 0 0 1rem; }
.meta { font-size: .875rem; margin: 0 0 .25rem; } .deadline { font-weight: 600; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; overflow: auto; margin: .25rem 0; padding: .25rem .5rem; border-left: 3px solid #8887; background: #8881; }
.header { font-size: .875rem; font-weight: 700; max-height: 4.5em; }
.question { font-size: 1.0625rem; font-weight: 600; max-height: 40vh; }
.desc { font-size: .875rem; max-height: 6em; margin: .25rem 0 0 2.5rem; }
.gist { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.said { border: 1px solid #8888; border-radius: .25rem; padding: 0 .3rem; overflow-wrap: anywhere; font-weight: 400; }
fieldset { border: 0; padding: 0; margin: .5rem 0; min-width: 0; }
legend { font-size: .875rem; padding: 0; }
.option { margin: .5rem 0; }
label.pick { display: flex; flex-wrap: wrap; align-items: center; gap: .6rem; min-height: 2.75rem; box-sizing: border-box; padding: .25rem .6rem; border: 1px solid #8886; border-radius: .375rem; }
label.pick:hover { background: #8882; }
label.pick:has(:checked) { border-color: var(--mark); box-shadow: inset 0 0 0 1px var(--mark); }
label.pick input { width: 1.25rem; height: 1.25rem; margin: 0; flex: none; }
.label { flex: 1 1 4em; min-width: 0; overflow-wrap: anywhere; } /* a narrow row wraps the mark, not the label, to a line of its own */
.badge { flex: none; margin-left: auto; font-size: .75rem; font-weight: 700; color: #fff; background: var(--mark); border-radius: 1rem; padding: .1rem .55rem; }
label.own { display: block; font-size: .875rem; margin: .5rem 0; }
label.own input { display: block; width: 100%; box-sizing: border-box; font: inherit; min-height: 2.75rem; padding: .5rem; margin-top: .25rem; }
.buttons { display: flex; flex-wrap: wrap; gap: .75rem; margin-top: .75rem; }
button { font: inherit; min-height: 2.75rem; padding: .4rem 1rem; border: 1px solid #8889; border-radius: .375rem; background: #8881; color: inherit; }
button[type=submit] { background: var(--mark); border-color: var(--mark); color: #fff; font-weight: 600; }
button:disabled { opacity: .5; }
.note, .why { font-weight: 600; margin: .5rem 0 0; }
.note:empty, .why:empty { display: none; }
.refused { color: #c0262d; }
summary { line-height: 2.75rem; cursor: pointer; }
:focus-visible { outline: 3px solid #4a78c2; outline-offset: 2px; }
`

// pageScript is the page's script. It writes text only with textContent.
const pageScript = `
"use strict";
const statusLine = document.getElementById("status"), box = document.getElementById("questions"), closed = document.getElementById("ended");
const cards = new Map(); // open question ID -> the card that shows it
const groups = new Map(); // batch -> the section of its open questions
const sentIn = new Map(); // batch -> the decline or dismissal this page sent for it
let token = "", source = null, retry = 0, still = 0;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text) e.textContent = text, e.dir = "auto"; // each text in its own direction, apart from its neighbours: Hebrew and Arabic read right to left
  return e;
}

function render(list) {
  const open = new Set(list.map(q => q.id));
  for (const card of cards.values()) if (!open.has(card.id)) end(card, null); // no "ended" event told of it
  for (const q of list) {
    const card = cards.get(q.id);
    if (!card) show(q);
    else if (q.hint && !card.sending) refuse(card, q.hint);
  }
  tick(); // once a render, not once a question: the work of a render follows the list
  const n = list.length;
  statusLine.textContent = n === 0 ? "No open questions." : n === 1 ? "1 open question." : n + " open questions.";
  document.title = n > 0 ? "(" + n + ") Questions" : "Questions";
}

function show(q) {
  const r = q.request, opts = r.options || [], multi = !!r.multiSelect && opts.length > 0;
  const form = el("form"), body = el("div"), meta = el("p", "meta");
  const parent = !q.batch ? box : groups.get(q.batch) || box.appendChild(groups.set(q.batch, el("section", "batch")).get(q.batch));
  if (q.count > 1) meta.append(el("span", "place", "Question " + ((q.index || 0) + 1) + " of " + q.count), " ");
  if (r.agent) meta.append("From ", said([r.agent.name, r.agent.id].filter(Boolean).join(", ")), " ");
  if (q.deadline) meta.append(el("span", "deadline")), meta.lastChild.dataset.deadline = q.deadline;
  if (meta.childNodes.length > 0) body.append(meta);
  if (r.header) body.append(el("div", "text header", r.header));
  const text = el("div", "text question", r.question);
  text.id = "q-" + q.id;
  form.setAttribute("aria-labelledby", text.id);
  body.append(text);
  if (opts.length > 0) {
    const set = el("fieldset");
    set.append(el("legend", "", multi ? "Pick one or more:" : "Pick one:"));
    for (const o of opts) {
      const row = el("div", "option"), label = el("label", "pick"), input = el("input");
      Object.assign(input, {type: multi ? "checkbox" : "radio", name: "choice", value: o.label, checked: !!o.recommended});
      label.append(input, el("span", "label", o.label.replace(/\s+/g, " "))); // a run of spaces cannot push text to a row of its own
      if (o.recommended) label.append(el("span", "badge", "Recommended"));
      row.append(label);
      if (o.description) row.append(el("div", "text desc", o.description)); // outside the label: a click on it ticks nothing
      set.append(row);
    }
    body.append(set);
  }
  let own = null;
  if (opts.length === 0 || r.allowCustom !== false) {
    const label = el("label", "own", opts.length > 0 ? "Or your own answer:" : "Your answer:");
    own = Object.assign(el("input"), {type: "text", autocomplete: "off", dir: "auto"});
    label.append(own);
    body.append(label);
    if (opts.length > 0 && !multi) { // own words and a pick exclude each other, so the human sees what is sent
      own.addEventListener("input", () => { for (const i of picks(form, false)) i.checked = false; });
      for (const i of picks(form, false)) i.addEventListener("change", () => { own.value = ""; });
    }
  }
  const note = el("p", "note"), buttons = el("div", "buttons");
  note.setAttribute("role", "alert");
  const submit = el("button", "", "Send answer"), decline = el("button", "", "Decline to answer"), dismiss = el("button", "", "Dismiss here");
  submit.type = "submit", decline.type = dismiss.type = "button";
  buttons.append(submit, decline, dismiss);
  body.append(buttons, note); // a refusal moves none of the question's own controls
  form.append(el("p", "why"), body);
  const card = {id: q.id, form, body, note, batch: q.batch, index: q.index || 0, count: q.count || 0, sent: "", sending: false, left: undefined};
  form.addEventListener("submit", e => {
    e.preventDefault();
    const content = {}, chosen = picks(form, true).map(i => i.value);
    if (multi) content.choice = chosen; else if (chosen.length > 0) content.choice = chosen[0];
    if (own && own.value.trim() !== "") content.text = own.value;
    send(card, {action: "accept", content});
  });
  decline.addEventListener("click", () => send(card, {action: "decline"}));
  dismiss.addEventListener("click", () => send(card, {action: "cancel"}));
  cards.set(q.id, card);
  parent.append(form);
  if (q.hint) refuse(card, q.hint);
}

function picks(form, checked) {
  return Array.from(form.querySelectorAll("input[name=choice]" + (checked ? ":checked" : "")));
}

// end shows how a question ended: the outcome from the stream, or null
// when the Inbox no longer knows. Its controls show what was answered, and
// the card moves below the open ones, collapsed.
function end(card, outcome) {
  if (card.sending) return void (card.left = outcome || card.left || null); // the POST's response comes first
  if (!cards.delete(card.id)) return;
  const group = card.form.parentElement;
  card.form.remove();
  if (group !== box && group.childElementCount === 0) group.remove(), groups.delete(card.batch);
  const [why, answer] = describe(card, outcome);
  for (const i of picks(card.form, false)) i.checked = false;
  if (answer) for (const i of picks(card.form, false)) i.checked = (answer.options || [answer.option]).some(o => o && o.label === i.value);
  const own = card.form.querySelector("input[type=text]");
  if (own) own.value = answer ? ownWords(answer) : "";
  for (const c of card.form.elements) c.disabled = true;
  for (const e of card.form.querySelectorAll(".buttons, .deadline")) e.remove();
  card.form.querySelector(".why").replaceChildren(...why);
  const more = el("details"), gist = el("p", "text gist", card.form.querySelector(".question").textContent.trim().split("\n")[0]);
  more.append(el("summary", "", "Show the question"), card.body);
  card.form.append(card.note, gist, more); // the note stays in view: "Too late", "Not used"
  closed.hidden = false;
  closed.insertBefore(card.form, closed.children[1] || null);
  if (closed.childElementCount > 51) closed.lastElementChild.remove(); // the last 50
  if (card.batch && !card.sent && !sentIn.has(card.batch) && outcome && (outcome.answer ? !["page", "inbox"].includes(outcome.answer.via) : outcome.error.code === "ASK_DECLINED"))
    for (const other of closed.querySelectorAll("form[data-batch]"))
      if (other.dataset.batch === card.batch) other.querySelector(".note").replaceChildren("Not used: the batch was ", ...(outcome.answer ? ["answered ", ...where(outcome.answer.via)] : ["declined"]), ".");
}

// describe returns the line that says how a question ended, and the
// answer its controls show, if any.
function describe(card, o) {
  if (!o) return [["This question is no longer open."], null];
  if (o.error) {
    const c = o.error.code, mine = card.sent || sentIn.get(card.batch);
    if (c === "ASK_DECLINED") return [[mine === "decline" ? "You declined to answer." : "Declined."], null];
    if (c === "ASK_CANCELLED" && mine === "cancel") return [["Dismissed here. If the agent asked on another screen too, the question is still open there."], null];
    if (c === "ASK_CANCELLED") return [["Dismissed on another page."], null];
    if (c === "ASK_ABORTED") return [[/deadline/.test(o.error.message) ? "Time ran out." : "The agent no longer needs an answer."], null];
    return [["Closed: ", said(o.error.message)], null];
  }
  const a = o.answer, via = a.via || "";
  if (card.sent) return [["You answered: ", said(picked(a))], a];
  if (card.count > 1 && card.index < card.count - 1 && !["page", "inbox", ""].includes(via)) // the batch's last answer: not this question's
    return [["The batch was answered ", ...where(via), "."], null];
  return [["Answered ", ...where(via), ": ", said(picked(a))], a];
}

function where(via) { // the UI that answered, in the page's words, or framed as the host named it
  return via === "page" ? ["on another page"] : via === "terminal" ? ["in the terminal"] : !via || via === "inbox" ? ["elsewhere"] : ["in ", said(via)];
}

function said(text) {
  text = text.replace(/\s+/g, " ").replace(/(\p{M}{4})\p{M}+/gu, "$1"); // a remote client's words: as few marks as Validate allows
  return el("span", "said", text.length > 200 ? text.slice(0, 200) + "…" : text);
}

function picked(a) { // what the human picked or typed, as they saw it
  const own = ownWords(a);
  return (a.options || (a.option ? [a.option] : [])).map(o => o.label).concat(own ? [own] : []).join(", ");
}

function ownWords(a) {
  const chosen = a.options || (a.option ? [a.option] : []);
  if (chosen.length === 0) return a.answer;
  const join = chosen.map(o => o.value || o.label).join(", ");
  return a.answer.startsWith(join + ", ") ? a.answer.slice(join.length + 2) : "";
}

async function send(card, body) {
  if (card.sending || card.sent) return; // one answer at a time: a second Enter sends nothing
  card.sending = true, card.note.textContent = "";
  let res = null, refusal = {};
  try {
    res = await fetch("questions/" + encodeURIComponent(card.id), {
      method: "POST",
      headers: {"Authorization": "Bearer " + token, "Content-Type": "application/json"},
      body: JSON.stringify(body),
    });
    if (res.status !== 204) refusal = await res.json().catch(() => ({}));
  } catch (e) {} // not sent: res stays null
  card.sending = false;
  if (res === null) refuse(card, "Not sent: the connection is lost. Try again.");
  else if (res.status === 204) {
    card.sent = body.action;
    if (body.action === "accept") card.form.dataset.batch = card.batch || ""; // an answer the batch may not use
    else if (card.batch) sentIn.set(card.batch, body.action);
    for (const c of card.form.elements) c.disabled = true; // until the stream says how it ended
  } else if (res.status === 422) refuse(card, refusal.hint || refusal.message || "This answer was refused.");
  else if (res.status === 409) refuse(card, "Too late: this question is no longer open, and your answer was not used.");
  else refuse(card, "Not sent (HTTP " + res.status + "). Try again.");
  if (card.left !== undefined) end(card, card.left);
}

function refuse(card, why) {
  card.note.classList.add("refused"), card.note.textContent = why;
}

function tick() {
  for (const d of document.querySelectorAll("[data-deadline]")) {
    const s = Math.max(0, Math.round((Date.parse(d.dataset.deadline) - Date.now()) / 1000));
    const m = Math.floor(s / 60), rest = String(s % 60).padStart(2, "0");
    d.textContent = s > 0 ? "Answer within " + m + ":" + rest + "." : "Time is up.";
  }
}

// connect follows the event stream, naming the questions shown, so that
// the stream tells how those that closed meanwhile ended. It reconnects
// itself, a second after an error, once a check says the token is right.
function connect() {
  if (clearTimeout(retry), source) source.close();
  const open = Array.from(cards.keys()).join(",");
  source = new EventSource("events?token=" + encodeURIComponent(token) + (open ? "&open=" + open : ""));
  source.addEventListener("questions", e => render(JSON.parse(e.data)));
  source.addEventListener("ended", e => { const m = JSON.parse(e.data); if (cards.has(m.id)) end(cards.get(m.id), m.outcome); });
  source.onerror = () => { source.close(); statusLine.textContent = "Connection lost: reconnecting…"; retry = setTimeout(recheck, 1000); };
}

async function recheck() {
  try {
    const res = await fetch("questions", {headers: {"Authorization": "Bearer " + token}});
    if (res.status === 401) return void (statusLine.textContent = "This link's token is wrong: open the link the host printed.");
  } catch (e) {}
  connect();
}

function start() { // the token as it is in the fragment: percent-decoded, and a "+" stays a "+"
  const m = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  try { token = m ? decodeURIComponent(m[1]) : ""; } catch (e) { token = m[1]; }
  if (token !== "") return connect();
  if (source) source.close(), clearTimeout(retry);
  statusLine.textContent = "Open this page through the link the host printed: it ends with #token=…";
}

// A control that moved under a still pointer (a question above left, a hint or a wrapped line moved it) takes
// no click for a moment: the click was meant for what was drawn there. Places are the page's: scrolling moves none.
const placed = new WeakMap(), moved = new WeakMap(), watch = new ResizeObserver(track);
function track() {
  for (const c of box.querySelectorAll("label, button, input, summary")) {
    const r = c.getBoundingClientRect(), at = (r.left + scrollX) + "," + (r.top + scrollY);
    if (placed.has(c) && placed.get(c) !== at) moved.set(c, Date.now()), still = Date.now() + 600;
    placed.set(c, at);
  }
}
watch.observe(box), watch.observe(statusLine);
box.addEventListener("click", e => {
  track(); // a change laid out since the last observation, and not painted yet
  const c = e.target.closest("label, button, input, summary");
  if (e.detail > 0 && c && Date.now() - (moved.get(c) || 0) < 600) e.preventDefault(), e.stopPropagation(); // a button's listener too
}, true);
addEventListener("hashchange", start);
setInterval(tick, 1000);
start();
`
