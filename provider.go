// The seam a tool asks through, and the providers the package ships. The
// file reads in parts, each opened by a "// ----" line and its title.
//
//	Providers and the registry           the seam, Ask and AskAll, and where a question is decided
//	Shared by the providers              Pending, goCall and await
//	Terminal                             NewTerminal's Provider, on a text terminal
//	Form                                 NewForm's Provider, for clients that render forms
//	Inbox                                a Provider for a UI outside the process
//	Inbox: the handler, over any Source  Handler, which serves a Source (an Inbox) to a web browser
//	Inbox: Web Push                      the push key, subscriptions, and the messages (RFC 8291, 8292)
//	Replay                               a Provider for hosts that cannot wait: the record and its runs
//	Replay: sealed state                 Seal and OpenReplay
//	Replay: the record's JSON            the record's JSON and its strict reader
//	FirstOf                              a Provider that asks several UIs at once
//	Inbox: the web page                  the page's HTML, style, script and CSP
//
// Each part uses the registry, the shared part and its own sub-parts
// ("Inbox: the web page" belongs to "Inbox"), never another provider's
// part. The registry uses no part after it, and the shared part only the
// registry. TestProviderPartsDependOneWay checks both.

package userinteraction

import (
	"bufio"
	"bytes"
	"cmp"
	"container/list"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"math/bits"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"runtime"
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
	// concurrently, on the asker's goroutine. ctx carries the caller's values.
	// It ends when the caller gives up or the registration is disposed, and Ask
	// should then return soon.
	//
	// The answer is [Option.Answer], a [Pick], or Answer{Text: typed}, with Via
	// naming the UI. A refusal is [CodeAskDeclined] and a dismissal
	// [CodeAskCancelled], each with Answer{Via: ...}. A UI that tells its human
	// an answer was taken calls [Decide] first. Ask must not modify req.
	Ask(ctx context.Context, req Request) (Answer, error)
}

// BatchProvider is a [Provider] that can show several questions at once.
// [Registry.AskAll] uses it when the active provider has it.
type BatchProvider interface {
	Provider

	// AskAll answers reqs in order, under Ask's rules: an answer each, or those
	// before the failed one and its error. It must not modify or keep reqs.
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

// Registry holds the active [Provider] of one scope, such as an agent session.
// Its zero value is ready to use, and a nil *Registry has none. It is safe for
// concurrent use.
type Registry struct {
	// Ended, when set, is called once for each question asked through r, when
	// it ended, before Ask or AskAll returns. It gets the request and the
	// Outcome Ask returns. An invalid request ends too, and INPUT_REQUIRED is
	// no ending. It is a host's audit trail, and must not modify req. A panic
	// in it reaches the caller. Set it before r is used.
	Ended func(req Request, o Outcome)

	active atomic.Pointer[registration] // nil when none; atomic, so Ask takes no registry-wide lock
}

// WithRegistry returns a copy of ctx that carries r, for [Register] and [Ask].
// A nil r hides a registry ctx carries. A nil ctx is context.Background().
func WithRegistry(ctx context.Context, r *Registry) context.Context {
	return context.WithValue(cmp.Or(ctx, context.Background()), registryKey{}, r)
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

// Register makes p the active provider of r, and returns dispose, which
// unregisters p. It fails, leaving r as it was, with [CodeNoRegistry] for a nil
// r, [CodeInvalidProvider] for a nil interface, pointer or func p, and
// [CodeDuplicateProvider] when another provider is active.
//
// dispose is never nil. Its first call removes p and ends the contexts of the
// asks p is answering. They return [CodeAskAborted] unless p answers. Later
// calls, and a failed Register's, do nothing. dispose may be called from any
// goroutine, and never waits for p.
func (r *Registry) Register(p Provider) (dispose func(), err error) {
	reg := &registration{registry: r, provider: p}
	switch {
	case r == nil:
		return noop, NewError(CodeNoRegistry, "context has no registry: the host must call WithRegistry", nil)
	case isNilProvider(p):
		return noop, NewError(CodeInvalidProvider, "provider is nil", nil)
	case !r.active.CompareAndSwap(nil, reg):
		return noop, NewError(CodeDuplicateProvider, "another provider is already registered: call its dispose first", nil)
	}
	return reg.dispose, nil
}

// runWith runs call under a new Registry of p, with the Ended of ctx's registry.
func runWith(ctx context.Context, p Provider, call func(ctx context.Context)) {
	r := &Registry{}
	if caller := FromContext(ctx); caller != nil {
		r.Ended = caller.Ended
	}
	dispose, _ := r.Register(p) // cannot fail
	defer dispose()
	call(WithRegistry(ctx, r))
}

// Provider returns the active provider of r, or nil when none is or r is nil.
func (r *Registry) Provider() Provider {
	if reg := r.registration(); reg != nil {
		return reg.provider
	}
	return nil
}

// Ask asks req of the active provider of r and waits for the answer.
//
//  1. A nil ctx is [CodeInvalidRequest], and a done one [CodeAskAborted].
//  2. An invalid req is the error of [Request.Validate].
//  3. No active provider is [CodeNoProvider].
//  4. The provider is called holding no lock.
//  5. A provider's coded error ([CodeOf]) is returned as it is, another as
//     [CodeProviderFailed], or [CodeAskAborted] once its ctx ended.
//  6. The answer is completed and checked as [Answer] says, or is
//     [CodeInvalidAnswer].
//
// An answer wins over ctx's end, and one handed to [Decide] is returned. A
// provider's panic propagates.
func (r *Registry) Ask(ctx context.Context, req Request) (Answer, error) {
	o := r.call(ctx, &req, nil)
	return o[0].Answer, o[0].Err
}

// AskAll asks the active provider of r several questions at once, and returns
// their answers in order. It takes the steps of [Registry.Ask]. Errors name the
// question ("questions[2]: ..."). A [BatchProvider] is asked once, any other
// provider once a question. On an error, AskAll returns the answers before it.
// r.Ended gets each request, those after the error with the error.
func (r *Registry) AskAll(ctx context.Context, reqs []Request) ([]Answer, error) {
	return answersOf(r.call(ctx, nil, reqs))
}

// answersOf returns the answers of o up to its first error, and that error.
func answersOf(o []Outcome) ([]Answer, error) {
	var answers []Answer
	for _, x := range o {
		if x.Err != nil {
			return answers, x.Err
		}
		answers = append(answers, x.Answer)
	}
	return answers, nil
}

func outcomesOf(answers []Answer, err error) []Outcome {
	o := make([]Outcome, len(answers), len(answers)+1)
	for i := range answers {
		o[i].Answer = answers[i]
	}
	if err != nil {
		o = append(o, Outcome{Err: err})
	}
	return o
}

// call asks req as Ask does, or else reqs as AskAll does, and audits them.
func (r *Registry) call(ctx context.Context, req *Request, reqs []Request) (ended []Outcome) {
	var a *inflight
	defer func() {
		if ended == nil && a != nil { // a panic: audit what a UI was told
			ended = a.done
			if a.p != nil { // once the outcome on its way, if any, is decided
				decided, _ := seatOf(a.p).d.settle(nil)
				ended = append(ended, decided...)
			}
		}
		r.audit(req, reqs, ended, a)
	}()
	err := ctxErr(ctx)
	switch {
	case err != nil && ctx != nil:
		err = aborted(ctx, "asked")
	case err == nil && req != nil:
		err = validate(req)
	case err == nil:
		err = validateAll(reqs)
	}
	if err == nil {
		a, err = r.begin(ctx)
	}
	if err != nil {
		return []Outcome{{Err: err}}
	}
	defer a.finish()
	if req != nil {
		a.req[0] = *req // the caller's req stays on its stack
		return a.ask(a.req[:], 0, 1, -1)
	}
	if _, ok := a.reg.provider.(BatchProvider); ok {
		return a.ask(reqs, 0, len(reqs), 0)
	}
	for i := range reqs {
		if o := a.ask(reqs, i, i+1, i); o[0].Err != nil {
			break
		}
	}
	return a.done
}

// audit calls r.Ended with the outcome of req, or else of each of reqs, but
// INPUT_REQUIRED and those a provider audited.
func (r *Registry) audit(req *Request, reqs []Request, ended []Outcome, a *inflight) {
	if r == nil || r.Ended == nil || len(ended) == 0 {
		return
	}
	if req != nil {
		reqs = []Request{*req}
	}
	for i := range reqs {
		o := ended[min(i, len(ended)-1)]
		switch {
		case i >= len(ended) && o.Err == nil: // a panic ended the batch
			return
		case CodeOf(o.Err) == CodeInputRequired:
		case a != nil && a.audited(i):
		default:
			r.Ended(reqs[i], o)
		}
	}
}

type registryKey struct{ questionID bool } // true: the key of WithQuestionID's ID

func noop() {}

func isNilProvider(p Provider) bool {
	v := reflect.ValueOf(p)
	return p == nil || (v.Kind() == reflect.Pointer || v.Kind() == reflect.Func) && v.IsNil()
}

func (r *Registry) registration() *registration {
	if r == nil {
		return nil
	}
	return r.active.Load()
}

// registration is one successful Register.
type registration struct {
	registry *Registry
	provider Provider

	mu   sync.Mutex // guards asks
	asks *inflight  // the asks in flight, linked by their next and prev
}

var errDisposed = errors.New("provider disposed")

// dispose unregisters reg and aborts its asks, holding no lock while it does.
func (reg *registration) dispose() {
	reg.registry.active.CompareAndSwap(reg, nil)
	reg.mu.Lock()
	var cancels []context.CancelCauseFunc
	for a := reg.asks; a != nil; a = a.next {
		cancels = append(cancels, a.cancel)
	}
	reg.asks = nil
	reg.mu.Unlock()
	for _, cancel := range cancels {
		cancel(errDisposed)
	}
}

// An inflight is one Ask or AskAll in flight on a registration.
type inflight struct {
	reg        *registration
	prev, next *inflight               // in reg.asks, guarded by reg.mu
	caller     context.Context         // the caller's ctx
	ctx        context.Context         // handed to the provider: ends with caller or a disposal
	cancel     context.CancelCauseFunc // cancels ctx

	// Written on the caller's goroutine only.
	first providerAsk  // the provider's first call, an Ask's only one
	p     *providerAsk // the provider's call in flight
	done  []Outcome    // the decided outcomes so far
	req   [1]Request   // the request of an Ask
}

// A providerAsk is one call of the registry's provider: its context and its
// outcome's decision, made only when the provider asks for its seat ([Decide],
// [FirstOf], [WithKeep]), so that an Ask that needs none costs no more.
type providerAsk struct {
	context.Context
	reqs  []Request    // the questions of the call
	first int          // the index of reqs[0] that errors name, or -1
	top   *providerAsk // the ask's first call, whose told holds this call's

	mu      sync.Mutex // guards the fields below
	d       *decision  // made at the first Value(seatKey)
	settled []Outcome  // the call's decided outcome, where a d made later starts
	told    []int      // on the first call: the requests a provider audited, by index in the ask's reqs

	one [1]Outcome // the outcome of a call of one question
}

// Value returns the seat of the call for seatKey, else ctx's values.
func (p *providerAsk) Value(key any) any {
	if key != (seatKey{}) {
		return p.Context.Value(key)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.d == nil {
		p.d = &decision{reqs: p.reqs, first: p.first, call: p.top, decided: p.settled, turn: make(chan struct{}, 1)}
		p.d.home.d = p.d
	}
	return &p.d.home
}

// begin records an ask on the active registration, and never waits for a newer.
func (r *Registry) begin(ctx context.Context) (*inflight, error) {
	reg := r.registration()
	if reg == nil {
		return nil, noProvider(r != nil)
	}
	a := &inflight{reg: reg, caller: ctx}
	a.ctx, a.cancel = context.WithCancelCause(ctx)
	reg.mu.Lock()
	if reg.registry.active.Load() != reg { // disposed
		reg.mu.Unlock()
		a.cancel(nil) // holding no lock: a parent's AfterFunc stop is the caller's code
		return nil, noProvider(true)
	}
	if a.next = reg.asks; a.next != nil {
		a.next.prev = a
	}
	reg.asks = a
	reg.mu.Unlock()
	return a, nil
}

// finish untracks a, and cancels its ctx.
func (a *inflight) finish() {
	reg := a.reg
	reg.mu.Lock()
	switch {
	case a.prev != nil:
		a.prev.next = a.next
	case reg.asks == a:
		reg.asks = a.next
	}
	if a.next != nil {
		a.next.prev = a.prev
	}
	a.prev, a.next = nil, nil
	reg.mu.Unlock()
	a.cancel(nil)
}

func (a *inflight) audited(i int) bool {
	a.first.mu.Lock()
	defer a.first.mu.Unlock()
	return slices.Contains(a.first.told, i)
}

// ask asks reqs[from:to] of a's provider in one call, by steps 4 to 6 of Ask,
// and returns their decided outcomes. first is -1 in an Ask, else from. An
// AskAll's BatchProvider is asked all.
func (a *inflight) ask(reqs []Request, from, to, first int) []Outcome {
	// dispose cancels a.ctx before it returns, so a dispose that returned is seen
	// here. A later one aborts the question as asked.
	if err := a.abortErr("asked"); err != nil {
		a.done = append(a.done, Outcome{Err: err})
		return a.done[len(a.done)-1:]
	}
	p := &a.first
	if a.done != nil { // a later call of an AskAll
		p = new(providerAsk)
	}
	p.Context, p.reqs, p.first, p.top, a.p = a.ctx, reqs[from:to], first, &a.first, p
	o := p.one[:]
	if bp, ok := a.reg.provider.(BatchProvider); ok && first >= 0 {
		o = outcomesOf(bp.AskAll(p, reqs))
	} else {
		ans, err := a.reg.provider.Ask(p, reqs[from])
		o[0] = Outcome{Answer: ans, Err: err} // beside an error, checked keeps only its Via
	}
	// An uncoded error, or an ASK_ABORTED a nested ask may have taken from
	// this disposal, is this ask's own abort once its ctx ended. checked codes
	// the rest, and names a typed nil, whose methods could panic.
	if n := len(o); n > 0 && o[n-1].Err != nil && !isTypedNil(o[n-1].Err) {
		if code := CodeOf(o[n-1].Err); code == "" || code == CodeAskAborted && a.caller.Err() == nil {
			o[n-1].Err = cmp.Or(a.abortErr("answered"), o[n-1].Err)
		}
	}
	decided := checked(p.reqs, o, p.first) // decided, unless another was
	p.mu.Lock()
	d := p.d
	p.settled = decided // a seat made later finds it decided
	p.mu.Unlock()
	if d != nil {
		decided, _ = d.settle(decided)
	}
	if a.done == nil {
		a.done = decided
	} else {
		a.done = append(a.done, decided...)
	}
	a.p = nil
	return decided
}

// checked returns o completed by step 6 of Ask, or ended by INVALID_ANSWER.
func checked(reqs []Request, o []Outcome, first int) []Outcome {
	done, err := complete(reqs, o, first)
	if err != nil {
		done = append(done, Outcome{Err: err})
	}
	return done
}

// abortErr returns ASK_ABORTED once the provider's context is done, for stage.
func (a *inflight) abortErr(stage string) error {
	switch {
	case a.caller.Err() != nil:
		return aborted(a.caller, stage)
	case a.ctx.Err() != nil:
		return endedBy(a.ctx, stage)
	}
	return nil
}

// ctxErr returns a provider's error for a nil or done ctx.
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return NewError(CodeInvalidRequest, "invalid request: context is nil", nil)
	}
	return ctx.Err()
}

// endedBy returns the ASK_ABORTED of a disposal, else as [aborted] says.
func endedBy(ctx context.Context, stage string) error {
	if cause := context.Cause(ctx); ctx.Err() == context.Canceled && errors.Is(cause, errDisposed) {
		return NewError(CodeAskAborted, "ask aborted: the provider was disposed before the question was "+stage, cause)
	}
	return aborted(ctx, stage)
}

// Decide hands o, the human's outcome on a provider's UI, to the one place that
// decides the question of ctx: a [Registry]'s ask or a [FirstOf] race, after
// any [WithKeep]. o holds an Outcome per question, up to an error.
//
// A UI tells its human an answer was taken only once Decide returned nil, with
// the decided outcomes. Else o was not taken: [CodeNotPending] when another UI
// answered or the asker stopped, [CodeNotKept] when a keep failed,
// [CodeInvalidAnswer] for a broken rule. A race takes only answers or a
// decline. Without a registry, race or keep, Decide returns o.
func Decide(ctx context.Context, o ...Outcome) ([]Outcome, error) {
	s := seatOf(ctx)
	if s == nil {
		return o, nil
	}
	decided, lost, err := s.offer(slices.Clone(o))
	if lost && ctx.Err() == nil {
		<-ctx.Done() // this UI lost: once ctx, which may lag, ends, it can tell its human how
	}
	return decided, err
}

// WithKeep returns a copy of ctx, a provider's, under which [Decide] has keep
// keep each outcome before a UI is told. keep runs holding no lock. Its error
// is [CodeNotKept], and the question stays open, but a [CodeNotPending] that
// says the question is over here.
func WithKeep(ctx context.Context, keep func(o []Outcome) error) context.Context {
	if ctx = cmp.Or(ctx, context.Background()); keep == nil {
		return ctx
	}
	d := &decision{up: seatOf(ctx), keep: keep, turn: make(chan struct{}, 1)}
	d.home.d = d
	return withSeat(ctx, &d.home)
}

// EndedElsewhere reports the winner's outcome once [FirstOf] withdrew the ask
// of ctx because another UI won: for a batch, the decline or the last answer.
func EndedElsewhere(ctx context.Context) (Outcome, bool) {
	if o, ok := wonElsewhere(ctx); ok {
		return o[len(o)-1], true
	}
	return Outcome{}, false
}

// wonElsewhere returns the outcomes another member won with, once ctx is done.
func wonElsewhere(ctx context.Context) ([]Outcome, bool) {
	if ctx == nil || ctx.Err() == nil {
		return nil, false
	}
	var e *endedElsewhere
	if errors.As(context.Cause(ctx), &e) {
		return e.outcomes, true
	}
	// ctx may end another way, such as by a deadline, as another member wins.
	for s := seatOf(ctx); s != nil; s = s.d.up { // each race, a nested one's too
		if s.d.members == nil {
			continue
		}
		if won, by := s.d.settle(nil); won != nil {
			return won, by != s.n
		}
	}
	return nil, false
}

// endedElsewhere is the cause of a member's context when another member won.
type endedElsewhere struct{ outcomes []Outcome }

func (e *endedElsewhere) Error() string { return "the question ended on another UI" }

// A decision decides the outcome of one provider's ask: a Registry's, a FirstOf
// race's, or one under WithKeep. An outcome on its way holds the turn of each
// decision from its seat up to the top, and no lock. So no other outcome of the
// question is decided meanwhile, and a keep holds up only its own question.
type decision struct {
	home    seat                      // the seat of a provider's ask outside a race
	up      *seat                     // the seat of this decision's own ask; nil at the top
	reqs    []Request                 // the questions; nil under a keep
	first   int                       // the index of reqs[0] that errors name, or -1
	keep    func(o []Outcome) error   // a WithKeep's keep, or nil
	over    context.Context           // a race's ask: once done, nothing is taken
	call    *providerAsk              // a registry's first call, which holds what was audited
	members []context.CancelCauseFunc // a race's, withdrawn once another won
	turn    chan struct{}             // holds a token while an outcome is on its way, and guards the fields below

	decided []Outcome // nil until decided
	by      int       // the seat that decided
}

// A seat is one provider's ask at a decision: in a race, its member.
type seat struct {
	d *decision
	n int
}

type seatKey struct{}

func seatOf(ctx context.Context) *seat {
	if ctx == nil {
		return nil
	}
	s, _ := ctx.Value(seatKey{}).(*seat)
	return s
}

func withSeat(ctx context.Context, s *seat) context.Context {
	return context.WithValue(ctx, seatKey{}, s)
}

// offer decides o at s, as Decide says. It takes the turn of each decision up
// to the top, checks o, runs the keeps once every turn is held, and then sets o
// at each. lost reports that a race refused o.
func (s *seat) offer(o []Outcome) (decided []Outcome, lost bool, err error) {
	var held []*seat
	defer func() {
		for _, h := range held {
			<-h.d.turn
		}
	}()
	for at := s; at != nil; at = at.d.up {
		if elsewhere, err := at.d.take(at.n); err != nil {
			return nil, elsewhere && at.d.members != nil, err
		}
		held = append(held, at)
		if at.d.reqs != nil { // not a keep's; above the first, completing changes nothing
			if o, err = complete(at.d.reqs, o, at.d.first); err != nil {
				return nil, false, err
			}
		}
		if at.d.members != nil && !wins(o) {
			return o, false, nil // a UI that drops out decides nothing
		}
	}
	for _, h := range held {
		if h.d.keep == nil {
			continue
		}
		if err := h.d.keep(o); CodeOf(err) == CodeNotPending {
			return nil, false, err // a keep that knows the question is over here
		} else if err != nil {
			return nil, false, NewError(CodeNotKept, "not kept: the host could not keep the answer, and the question is still open", err)
		}
	}
	for _, h := range held {
		if h.d.keep == nil { // a keep decides nothing
			h.d.set(h.n, o)
		}
	}
	return o, false, nil
}

// take takes d's turn for seat n once it is free, unless d is decided or its
// race over. elsewhere reports another seat's decision, or the race's end.
func (d *decision) take(n int) (elsewhere bool, err error) {
	over := cmp.Or(d.over, context.Background()) // outside a race, an ask that never ends
	select {
	case d.turn <- struct{}{}:
	case <-over.Done():
		return true, notPending("the asker stopped waiting for it")
	}
	switch {
	case over.Err() != nil:
		elsewhere, err = true, notPending("the asker stopped waiting for it")
	case d.decided != nil:
		elsewhere, err = d.by != n, notPending("it was answered already, maybe on another UI")
	default:
		return false, nil
	}
	<-d.turn
	return elsewhere, err
}

// set marks o decided by seat n, under d's turn, and withdraws a race's others.
func (d *decision) set(n int, o []Outcome) {
	d.decided, d.by = o, n
	cause := &endedElsewhere{outcomes: o}
	for i, withdraw := range d.members {
		if i != n {
			withdraw(cause)
		}
	}
}

// settle decides o, unless another was, once no outcome is on its way. It
// returns the decided outcomes and their seat. A nil o decides nothing.
func (d *decision) settle(o []Outcome) ([]Outcome, int) {
	d.turn <- struct{}{}
	defer func() { <-d.turn }()
	if d.decided == nil {
		d.decided = o
	}
	return d.decided, d.by
}

// wins reports whether o can win a race. A typed nil's methods could panic.
func wins(o []Outcome) bool {
	if len(o) == 0 {
		return false
	}
	err := o[len(o)-1].Err
	return err == nil || !isTypedNil(err) && CodeOf(err) == CodeAskDeclined
}

// kept reports whether an outcome of the ask of ctx is kept by a keep.
func kept(ctx context.Context) bool {
	for s := seatOf(ctx); s != nil; s = s.d.up {
		if s.d.keep != nil {
			return true
		}
	}
	return false
}

// auditedAlready marks request i of ctx's registry call as audited already.
func auditedAlready(ctx context.Context, i int) {
	if s := seatOf(ctx); s != nil && s.d.call != nil {
		s.d.call.mu.Lock()
		s.d.call.told = append(s.d.call.told, max(s.d.first, 0)+i) // its index in the ask's
		s.d.call.mu.Unlock()
	}
}

func notPending(why string) error {
	return NewError(CodeNotPending, "not pending: "+why, nil)
}

// ----------------------------------------------------------------------------
// Shared by the providers

// Pending is a question that waits for an outcome: one a [Replay] run asked
// without a record, or one open in an [Inbox].
type Pending struct {
	ID       string    `json:"id"`
	Request  Request   `json:"request"`
	Batch    string    `json:"batch,omitempty"` // shared by the questions of one AskAll
	Index    int       `json:"index,omitempty"` // its place in its batch, from 0
	Count    int       `json:"count,omitempty"` // the questions in its batch, 0 for a lone Ask
	Hint     string    `json:"hint,omitempty"`  // why the last response was refused
	Deadline time.Time `json:"deadline"`        // the asker's deadline, if any (Inbox only)
}

// Elicitation returns [Request.Elicitation] of q's request, its message led by
// the Hint and by "Question 2 of 3." in a batch, each on a line.
func (q Pending) Elicitation() Elicitation {
	form := q.Request.Elicitation()
	if q.Count > 1 {
		form.Message = Words(nil).Place(q) + ".\n" + form.Message
	}
	if q.Hint != "" {
		form.Message = q.Hint + "\n" + form.Message
	}
	return form
}

// clone returns a copy of q that shares no memory with q.
func (q Pending) clone() Pending {
	q.Request = q.Request.clone()
	return q
}

// MarshalJSON encodes q as {"id", "request", "batch"?, "index"?, "count"?,
// "hint"?, "deadline"?}, the deadline in RFC 3339.
func (q Pending) MarshalJSON() ([]byte, error) {
	type plain Pending // without its methods
	w := struct {
		ID      string      `json:"id"`
		Request wireRequest `json:"request"` // not Request's MarshalJSON, whose output json would copy and scan again
		plain
		Deadline *time.Time `json:"deadline,omitempty"`
	}{ID: q.ID, Request: q.Request.wire(), plain: plain(q)}
	if !q.Deadline.IsZero() {
		w.Deadline = &q.Deadline
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes the JSON of [Pending.MarshalJSON] into q.
func (q *Pending) UnmarshalJSON(data []byte) error {
	type plain Pending // without its methods
	var w plain
	if err := json.Unmarshal(data, &w); err != nil || isNull(data) {
		return err // null changes nothing
	}
	*q = Pending(w)
	return nil
}

// Words is a UI's own words in one language, each keyed by its English text
// (see [EnglishWords]), with its format verbs, such as %d, in the same order.
// A nil Words, a missing key, or a word with other verbs says it in English.
type Words map[string]string

// EnglishWords returns every key of [Words], each mapped to itself: the list
// a translator translates. Each call returns a new map.
func EnglishWords() Words {
	w := make(Words, len(english))
	for _, key := range english {
		w[key] = key
	}
	return w
}

// english lists the words that the page and the Terminal say, split at "|".
var english = strings.FieldsFunc(`Questions from your agent|Closed|Questions|No open questions.|1 open question.|%d open questions.|From %s
Pick one or more:|Pick one:|Recommended|Or your own answer:|Your answer:|Send answer|Decline to answer|Dismiss here
You answered: %s|This question is no longer open.|You declined to answer.
Dismissed here. If the agent asked on another screen too, the question is still open there.
Not used: the batch was answered %s.|Not used: the batch was declined.|Show the question
Not sent: the connection is lost. Try again.|This answer was refused.|Your answer could not be kept. Send it again.
Too late: this question is no longer open, and your answer was not used.|Not sent (HTTP %d). Try again.
Answer within %s.|Time is up.|Connection lost: reconnecting…
The agent stopped. This page reconnects if it starts again.|The agent stopped before this was answered.
This cannot be answered until the connection is back.|This link's token is wrong: open the link the host printed.
Open this page through the link the host printed: it ends with #token=…
This moved as you clicked: look again, then click.|Question %d of %d|Answered %s: %s.|Declined %s.|Dismissed %s.
No answer came before the deadline.|The agent no longer needs an answer.|The question ended %s.|Answered %s.
on the page|in the terminal|in the form|in the inbox|on another screen|elsewhere|in %s|own words %s|%d options
%d second|%d seconds|%d minute|%d minutes|%d hour|%d hours|A question waits|From your agent|Notify me of new questions
A line typed before this question was shown was ignored.|That answer could not be kept. Here is the question again.
The questions were declined %s.|The questions were answered %s.|Your answer here was not used.
Your %d answers here were not used.|from %s|Type your answer.|one or more of 1-%d, such as 1,%d|1-%d|Enter for %s
type your own answer|or %s|That line is longer than %d bytes.|That line is not valid UTF-8.|Type an answer.
No option is recommended: type a number.|%s is not an option: type its number.|Pick one option.
Option %d is given twice.|%s is option %s, and the label of option %d: type %s or #%d.|Type the number of an option.
Some labels hold commas: type the numbers of the options, such as #1,#2.
%s is not an option: type only options, or only your own words.|%s mixes numbers and labels: type %s.
Type each number, such as 1,2,3.|There is no option %s.|Add a passkey|Answers|Passkey added.|Passkey not added: %s|Your passkey signs this answer.|Not sent: your passkey did not sign. Try again, or add a passkey.|This question needs your passkey: add one on this page, then send again.`, func(c rune) bool { return c == '|' || c == '\n' })

var verb = regexp.MustCompile(`%.`) // a format verb, as Sprintf's; the page's t checks them so too

// say returns w's word for key, formatted with args: key itself unless the
// word has key's format verbs in order.
func (w Words) say(key string, args ...any) string {
	if own := w[key]; own != "" && slices.Equal(verb.FindAllString(own, -1), verb.FindAllString(key, -1)) {
		key = own
	}
	if len(args) == 0 {
		return key
	}
	return fmt.Sprintf(key, args...)
}

// Ended returns the sentence for how a question ended with o, as the page and
// the Terminal say it: `Answered in the terminal: "Keep".`, "Declined on the
// page.", "No answer came before the deadline.". Text of the model or the
// human in it is quoted. The Terminal puts the rows' numbers before the picks
// ("#1"), and says a batch's ending once.
func (w Words) Ended(o Outcome) string {
	where, picks := w.where(o.Answer.Via), w.picks(o.Answer)
	switch code := CodeOf(o.Err); {
	case o.Err == nil && len(picks) == 0:
		return w.say("Answered %s.", where)
	case o.Err == nil:
		return w.say("Answered %s: %s.", where, strings.Join(picks, ", "))
	case code == CodeAskDeclined:
		return w.say("Declined %s.", where)
	case code == CodeAskCancelled:
		return w.say("Dismissed %s.", where)
	case code == CodeAskAborted && (errors.Is(o.Err, context.DeadlineExceeded) || strings.Contains(o.Err.Error(), "deadline")):
		return w.say("No answer came before the deadline.")
	case code == CodeAskAborted:
		return w.say("The agent no longer needs an answer.")
	}
	return w.say("The question ended %s.", where)
}

// Place returns where q stands in its batch, "Question 2 of 3", or "" for a
// question asked alone.
func (w Words) Place(q Pending) string {
	if q.Count <= 1 {
		return ""
	}
	return w.say("Question %d of %d", q.Index+1, q.Count)
}

// TimeLeft returns the words for the time from now to deadline, as the
// Terminal writes them: "Answer within 5 minutes." (never more than is left;
// seconds under 2 minutes), then "Time is up.". A zero deadline is "".
func (w Words) TimeLeft(deadline, now time.Time) string {
	switch {
	case deadline.IsZero():
		return ""
	case !deadline.After(now):
		return w.say("Time is up.")
	}
	d := max(deadline.Sub(now).Round(time.Second), time.Second)
	parts := []time.Duration{0, 0, d / time.Second}       // hours, minutes, seconds: seconds under 2 minutes
	if m := d.Truncate(time.Minute); d >= 2*time.Minute { // never more than is left
		parts = []time.Duration{m / time.Hour, m % time.Hour / time.Minute, 0}
	}
	var left []string
	for i, n := range parts {
		if n > 0 {
			left = append(left, w.say([]string{"%d hour", "%d hours", "%d minute", "%d minutes", "%d second", "%d seconds"}[2*i+int(min(n-1, 1))], n))
		}
	}
	return w.say("Answer within %s.", strings.Join(left, " "))
}

// where says where via is, as "on the page". Another name shows when plain.
func (w Words) where(via string) string {
	const plain = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 -_."
	known := map[string]string{"page": "on the page", "terminal": "in the terminal", "form": "in the form",
		"inbox": "in the inbox", "": "on another screen"} // a decline may have no Via
	switch where, ok := known[via]; {
	case ok:
		return w.say(where)
	case len(via) > 32 || strings.TrimLeft(via, plain) != "":
		return w.say("elsewhere")
	}
	return w.say("in %s", quote(via))
}

// picks returns a's picks quoted, then its own words.
func (w Words) picks(a Answer) []string {
	picks, quoted, values := a.Options, []string(nil), []string(nil)
	if a.Option != nil {
		picks = []Option{*a.Option}
	}
	for _, opt := range picks {
		quoted, values = append(quoted, quoteTheirs(opt.Label)), append(values, opt.text())
	}
	switch words := ownWords(a.Text, strings.Join(values, ", ")); {
	case a.Option != nil || words == "":
	case len(quoted) > 0:
		quoted = append(quoted, w.say("own words %s", quoteTheirs(words)))
	default:
		quoted = append(quoted, quoteTheirs(words))
	}
	return quoted
}

// quoteTheirs quotes s with at most maxMarks marks a character.
func quoteTheirs(s string) string {
	var b strings.Builder
	for i, marks := 0, 0; i < len(s); {
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.Is(unicode.M, c):
			marks++
		case !isJoiner(c):
			marks = 0
		}
		if marks <= maxMarks {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return quote(b.String())
}

// firstLine returns s's first line, leading spaces, tabs and newlines skipped.
func firstLine(s string) string { return strings.SplitN(strings.TrimLeft(s, " \t\n"), "\n", 2)[0] }

// hmacSHA256 returns HMAC-SHA-256 of data under key: HKDF's extract, and its
// expand of one block when data ends with 1.
func hmacSHA256(key, data []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(data)
	return m.Sum(nil)
}

// errStopped is what goCall gives for runtime.Goexit or panic(nil).
var errStopped = errors.New("userinteraction: a call stopped its goroutine without returning")

// goCall calls f on a goroutine of its own, so that its caller can stop
// waiting. It always sends on done, which has room. A panic is sent, for the
// caller to raise: raised here, it would end the process.
func goCall[T any](done chan<- called[T], stopped T, f func() T) {
	go func() {
		c := called[T]{value: stopped}
		defer func() {
			c.panicked = recover()
			done <- c
		}()
		c.value = f()
	}()
}

// await waits for ctx or the call of goCall in *c, and raises its panic.
func await[T any](ctx context.Context, c *chan called[T]) (T, error) {
	var v called[T]
	if *c != nil {
		select {
		case v = <-*c:
			*c = nil
		case <-ctx.Done():
			return v.value, ctx.Err()
		}
	}
	if v.panicked != nil {
		panic(v.panicked)
	}
	return v.value, nil
}

type called[T any] struct {
	value    T   // what the call returned, or stopped
	panicked any // what it panicked with, or nil
}

// ----------------------------------------------------------------------------
// Terminal

// Terminal is a [Provider] that asks on a text terminal, or on any reader
// and writer. Make one with [NewTerminal].
type Terminal struct {
	// Quiet, set before the first Ask, turns off the bell and the desktop
	// notification (OSC 9 and 777) that each question written sends a terminal.
	Quiet bool

	in   *bufio.Reader
	out  io.Writer
	turn chan struct{} // holds a token while a question or batch is asked
	// Guarded by turn:
	read    chan called[line]  // the read in flight, or nil
	written chan called[error] // the last write in flight, or nil
	midLine bool               // the last output is a prompt no line answered
	columns int                // the width of the question shown last
	// Words are its own words, English when nil. Set it before t is used.
	Words Words
}

// NewTerminal returns a Terminal that reads replies from in, buffered, and
// writes to out. A nil in has ended; a nil out discards. Its asks ring a
// terminal, unless Quiet.
func NewTerminal(in io.Reader, out io.Writer) *Terminal {
	in, out = cmp.Or[io.Reader](in, strings.NewReader("")), cmp.Or(out, io.Discard)
	return &Terminal{in: bufio.NewReader(in), out: out, turn: make(chan struct{}, 1)}
}

// Ask writes req and reads the human's reply, an answer with Via "terminal".
// Concurrent asks take turns. Rows of req's text are led by "|", as wide as
// $COLUMNS or the terminal.
//
// A reply is row numbers ("1,3", "#2") or one whole label. In a MultiSelect,
// labels joined by commas pick several, when no label holds a comma. Enter
// picks the recommended options. Other text is the human's own answer, where
// allowed. A refused reply is told why.
//
// End of input is [CodeAskCancelled]. When ctx is done, Ask says why and
// returns ctx.Err(). Run it under signal.NotifyContext for Ctrl-C.
func (t *Terminal) Ask(ctx context.Context, req Request) (Answer, error) {
	o := outcomesOf(t.asks(ctx, []Request{req}, req.Validate()))
	return o[0].Answer, o[0].Err
}

// AskAll asks reqs as Ask does, in turn, each headed "Question 2 of 3".
// When another UI answers the batch, it says the answers here were unused.
func (t *Terminal) AskAll(ctx context.Context, reqs []Request) ([]Answer, error) {
	return t.asks(ctx, reqs, validateAll(reqs))
}

// asks asks reqs in turn, unless they are invalid, t is not made by
// NewTerminal, or ctx is nil or ends before t's turn is taken.
func (t *Terminal) asks(ctx context.Context, reqs []Request, invalid error) ([]Answer, error) {
	invalid = cmp.Or(invalid, unproven("the terminal cannot give one", reqs...))
	if t.turn == nil && invalid == nil {
		invalid = NewError(CodeInvalidProvider, "the Terminal has no input: make it with NewTerminal", nil)
	}
	if err := cmp.Or(invalid, ctxErr(ctx)); err != nil {
		return nil, err
	}
	select {
	case t.turn <- struct{}{}:
		defer func() { <-t.turn }() // the turn given back
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	answers := make([]Answer, 0, len(reqs))
	for i := range reqs {
		ans, err := t.ask(ctx, &reqs[i], answers, len(reqs))
		if err != nil {
			return answers, err
		}
		answers = append(answers, ans)
	}
	return answers, nil
}

const (
	maxLine         = 1 << 20     // bytes of a line, at most
	defaultColumns  = 80          // when neither $COLUMNS nor the terminal says
	minColumns      = 20          // the longest lead and a wide character fit
	descriptionRows = 3           // so descriptions push no options out of sight
	sayWait         = time.Second // how long writing an ask's ending may take
)

// ask asks req, the question after the answers before in a batch of n. The
// last question's answer goes to [Decide] with them, so only an answer taken
// is returned. Else the human is told how the ask ended.
func (t *Terminal) ask(ctx context.Context, req *Request, before []Answer, n int) (Answer, error) {
	i, typed := len(before), len(before) // typed: the answers typed here for the batch
	if err := ctx.Err(); err != nil {
		if typed > 0 { // else nothing was shown
			t.ended(ctx, req, err, n > 1, typed)
		}
		return Answer{}, err
	}
	ans, err := t.answer(ctx, req, i, n, t.bell(req))
	for err == nil && i == n-1 {
		decided, refused := Decide(ctx, outcomesOf(slices.Concat(before, []Answer{ans}), nil)...)
		if refused == nil {
			return decided[len(decided)-1].Answer, nil
		}
		if CodeOf(refused) != CodeNotKept { // another UI's came a moment before
			typed, err = typed+1, cmp.Or(ctx.Err(), refused)
		} else if err = t.write(ctx, wrap(t.columns, t.Words.say("That answer could not be kept. Here is the question again."))); err == nil { // the question is open
			ans, err = t.answer(ctx, req, i, n, "")
		}
	}
	if err == nil {
		return ans, nil
	}
	t.ended(ctx, req, err, n > 1, typed)
	return Answer{}, err
}

// answer shows req, after bell, and reads replies until one answers.
func (t *Terminal) answer(ctx context.Context, req *Request, i, n int, bell string) (Answer, error) {
	t.columns = columnsWide(ctx, t.out)
	deadline, _ := ctx.Deadline()
	if err := t.write(ctx, bell+render(t.Words, req, t.columns, i, n, t.Words.TimeLeft(deadline, time.Now()))); err != nil {
		return Answer{}, err
	}
	replies := &replies{req: req, byKey: make(map[string]int, len(req.Options)), w: t.Words}
	for i, o := range req.Options {
		key := labelKey(o.Label)
		replies.byKey[key], replies.commas = i, replies.commas || strings.Contains(key, ",")
	}
	prompt := ""
	select {
	case l := <-t.read: // a line the read in flight has was typed before the question; never, when t.read is nil
		if l.value.err == nil && l.panicked == nil {
			t.read, prompt = nil, wrap(t.columns, t.Words.say("A line typed before this question was shown was ignored."))
		} else {
			t.read <- l // an end of input or a panic, which the next read meets
		}
	default:
	}
	for {
		if err := t.write(ctx, prompt+"> "); err != nil {
			return Answer{}, err
		}
		ans, refusal, err := replies.read(ctx, t.readLine(ctx))
		switch {
		case err != nil:
			return Answer{}, err
		case refusal == "":
			ans.Via = "terminal"
			if done, broken := resolve(req, ans); broken == nil {
				ans = done
			}
			return ans, nil
		}
		prompt = wrap(t.columns, refusal)
		if len(req.Options) > 0 { // a free-form refusal says what to type
			prompt += wrap(t.columns, accepts(t.Words, req))
		}
	}
}

// ended tells the human how the ask of req ended with err.
func (t *Terminal) ended(ctx context.Context, req *Request, err error, batch bool, typed int) {
	if ctx.Err() == nil {
		if CodeOf(err) == CodeAskCancelled && t.midLine {
			_ = t.write(ctx, "") // the host's output starts on a fresh line
		}
		return
	}
	wait, cancel := context.WithTimeout(context.Background(), sayWait)
	defer cancel()
	r, w := rows{width: columnsWide(wait, t.out)}, t.Words
	o, elsewhere := EndedElsewhere(ctx)
	if !elsewhere { // as the page says it
		o = Outcome{Err: aborted(ctx, "answered")}
	}
	r.ended(w, o, req, batch)
	switch {
	case elsewhere && typed == 1:
		r.text(w.say("Your answer here was not used."), "", "", 0)
	case elsewhere && typed > 1:
		r.text(w.say("Your %d answers here were not used.", typed), "", "", 0)
	}
	// Before the host's next output, after a write ctx interrupted: post chains it.
	_ = t.write(wait, r.String())
}

// ended writes in two rows at most how req, or its batch, ended with o:
// [Words.Ended]'s sentence, with the rows picked before the picks.
func (r *rows) ended(w Words, o Outcome, req *Request, batch bool) {
	a, where, quoted := o.Answer, w.where(o.Answer.Via), strings.Join(w.picks(o.Answer), ", ")
	switch {
	case batch && CodeOf(o.Err) == CodeAskDeclined:
		r.text(w.say("The questions were declined %s.", where), "", "", 0)
	case batch && o.Err == nil:
		r.text(w.say("The questions were answered %s.", where), "", "", 0)
	case batch || o.Err != nil || quoted == "": // a batch's other endings say it as a question's
		r.text(w.Ended(o), "", "", 0)
	}
	if batch || o.Err != nil || quoted == "" {
		return
	}
	numbers, row := []string(nil), labelIndexes(req.Options)
	if a.Option != nil {
		a.Options = []Option{*a.Option}
	}
	for _, opt := range a.Options {
		if i, ok := row[opt.Label]; ok {
			numbers = append(numbers, "#"+strconv.Itoa(i+1))
		}
	}
	own := func() string {
		return strings.TrimSuffix(w.say("Answered %s: %s.", where, strings.Join(numbers, " ")), " .")
	}
	if strings.Count(wrap(r.width, own()), "\n") > 2 { // a long name
		where = w.say("elsewhere")
	}
	if strings.Count(wrap(r.width, own()), "\n") > 2 { // too many numbers
		numbers = []string{w.say("%d options", len(numbers))}
	}
	line := w.say("Answered %s: %s.", where, strings.TrimSpace(strings.Join(numbers, " ")+" "+quoted))
	switch {
	case fit(line, 0, r.width) == len(line):
		r.WriteString(line + "\n")
	case fit(own(), 0, r.width) == len(own()):
		r.WriteString(own() + "\n")
		r.text(quoted, "| ", "| ", 1)
	default:
		r.text(own(), "", "", 0)
	}
}

// bell returns BEL and the desktop notifications OSC 9 and 777 for req, on a
// terminal: a title and req's first row, cut. No control passes Validate.
func (t *Terminal) bell(req *Request) string {
	switch {
	case t.Quiet || terminal(t.out) == nil:
		return ""
	case runtime.GOOS == "windows": // a console without VT mode shows escapes
		return "\a"
	}
	a := cmp.Or(req.Agent, &Agent{})
	r, title := rows{width: 100}, cmp.Or(a.Name, a.ID, t.Words.say("A question waits"))
	r.text(strings.ReplaceAll(title, ";", ","), "", "", 1) // no ";", 777's separator; one row each, cut with "…", tabs as spaces
	r.text(firstLine(req.Question), "", "", 1)
	title, body, _ := strings.Cut(strings.TrimSuffix(r.String(), "\n"), "\n")
	return "\x1b]9;" + title + ": " + body + "\a\x1b]777;notify;" + title + ";" + body + "\a\a"
}

// terminal returns out as a terminal's file, or nil.
func terminal(out io.Writer) *os.File {
	f, _ := out.(*os.File)
	if info, err := f.Stat(); err != nil || info.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return f
}

// columnsWide returns $COLUMNS, else stty's width of out, else 80.
func columnsWide(ctx context.Context, out io.Writer) int {
	n, err := strconv.Atoi(os.Getenv("COLUMNS"))
	if f := terminal(out); f != nil && (err != nil || n <= 0) {
		cmd := exec.CommandContext(ctx, "stty", "size")
		cmd.Stdin = f
		size, _ := cmd.Output()
		n = sizeColumns(string(size))
	}
	if n <= 0 {
		return defaultColumns
	}
	return max(n, minColumns)
}

// sizeColumns returns the columns in size, what "stty size" prints, or 0.
func sizeColumns(size string) int {
	var rows, columns int
	if n, _ := fmt.Sscanf(size, "%d %d\n", &rows, &columns); n != 2 || rows <= 0 || columns <= 0 {
		return 0
	}
	return columns
}

// render writes req, question i of n, in rows as wide as width.
func render(w Words, req *Request, width, i, n int, deadline string) string {
	r := rows{width: width}
	if n > 1 {
		r.text(w.Place(Pending{Index: i, Count: n}), "", "", 0)
	}
	if a := req.Agent; a != nil && a.Name+a.ID != "" {
		r.text(w.say("from %s", cmp.Or(a.Name, a.ID)), "| ", "| ", 0)
	}
	if req.Header != "" {
		r.text(req.Header, "| ", "| ", 0)
	}
	for _, l := range strings.Split(req.Question, "\n") {
		r.text(l, "| ", "| ", 0)
	}
	for row, o := range req.Options {
		number := "  " + strconv.Itoa(row+1) + ". "
		if o.Recommended {
			number = "* " + number[2:]
		}
		under := strings.Repeat(" ", len(number)) + "| "
		r.text(o.Label, number, under, 0)
		if d := oneLine(o.Description); d != "" { // its line feeds as spaces
			r.text(d, under, under, descriptionRows)
		}
	}
	if deadline != "" {
		r.text(deadline, "", "", 0)
	}
	r.text(accepts(w, req), "", "", 0)
	return r.String()
}

func wrap(width int, s string) string {
	r := rows{width: width}
	r.text(s, "", "", 0)
	return r.String()
}

type rows struct {
	strings.Builder
	width int
}

// text writes s in rows led by first, then rest; most > 0 cuts the last of most with "…".
func (r *rows) text(s, first, rest string, most int) {
	lead := first
	if s == "" { // a row of its lead alone, without a trailing space
		lead = strings.TrimRight(first, " ")
	}
	for n := 1; ; n++ {
		end := fit(s, len(lead), r.width)
		more := strings.TrimLeft(s[end:], " \t") != ""
		cut := more && n == most
		if cut {
			end = fit(s, len(lead), r.width-1) // room for "…"
		}
		r.WriteString(lead)
		for i, col := 0, len(lead); i < end; { // a tab as the spaces it takes
			w, size := cellsAt(s, i, col)
			if s[i] == '\t' {
				r.WriteString(strings.Repeat(" ", w))
			} else {
				r.WriteString(s[i : i+size])
			}
			col, i = col+w, i+size
		}
		if cut {
			r.WriteString("…")
		}
		r.WriteByte('\n')
		if cut || !more {
			return
		}
		s, lead = strings.TrimLeft(s[end:], " \t"), rest
	}
}

// fit returns the length of the head of s that fits from col to width: to a
// space, else all, else one character.
func fit(s string, col, width int) int {
	space := 0 // where the last run of spaces that fits starts, after the first character
	for i := 0; i < len(s); {
		w, size := cellsAt(s, i, col)
		if col+w > width {
			return cmp.Or(space, i, size)
		}
		if (s[i] == ' ' || s[i] == '\t') && i > 0 && s[i-1] != ' ' && s[i-1] != '\t' {
			space = i
		}
		col, i = col+w, i+size
	}
	return len(s)
}

// cellsAt returns the columns and length of the character at s[i], at col: as
// a terminal draws it, or more, as counting wider only wraps a row early.
func cellsAt(s string, i, col int) (w, size int) {
	c, size := utf8.DecodeRuneInString(s[i:])
	switch {
	case c == '\t':
		return 8 - col%8, 1
	case c >= 0x300 && (unicode.In(c, unicode.Mn, unicode.Me) || isJoiner(c)): // no mark comes before U+0300
		return 0, size
	case c >= 0x1100 || strings.HasPrefix(s[i+size:], "\ufe0f"): // wide, or asking for its emoji form
		return 2, size
	}
	return 1, size
}

func accepts(w Words, req *Request) string {
	n := len(req.Options)
	ways := []string{"1"}
	switch {
	case n == 0:
		return w.say("Type your answer.")
	case req.MultiSelect && n > 1:
		ways[0] = w.say("one or more of 1-%d, such as 1,%d", n, n)
	case n > 1:
		ways[0] = w.say("1-%d", n)
	}
	if rows := recommended(req.Options); rows != nil {
		ways = append(ways, w.say("Enter for %s", strings.ReplaceAll(rowList(rows), "#", "")))
	}
	if req.CustomAllowed() {
		ways = append(ways, w.say("type your own answer"))
	}
	if last := len(ways) - 1; last > 0 {
		ways[last] = w.say("or %s", ways[last])
	}
	return strings.Join(ways, ", ")
}

func (t *Terminal) write(ctx context.Context, s string) error {
	t.post(s)
	failed, err := await(ctx, &t.written)
	return cmp.Or(err, failed)
}

func (t *Terminal) post(s string) {
	if t.midLine {
		s = "\n" + s
	}
	t.midLine = strings.HasSuffix(s, "> ")
	before := t.written
	t.written = make(chan called[error], 1)
	goCall(t.written, errStopped, func() error {
		_, _ = await(context.Background(), &before) // its panic is this write's
		_, err := io.WriteString(t.out, s)
		return err
	})
}

func (t *Terminal) readLine(ctx context.Context) line {
	if t.read == nil {
		t.read = make(chan called[line], 1)
		goCall(t.read, line{err: NewError(CodeAskCancelled, "the terminal's input failed", errStopped)}, t.scanLine)
	}
	l, err := await(ctx, &t.read) // l is the zero line when ctx ended first
	t.midLine = t.midLine && (err != nil || l.err != nil)
	l.err = cmp.Or(err, l.err)
	return l
}

// scanLine reads a line, trimmed. One over maxLine bytes reads as tooLong.
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
		case err == bufio.ErrBufferFull: // the line goes on
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

type line struct {
	text    string
	tooLong bool
	err     error // ASK_CANCELLED at the end of input or a read error, or ctx's
}

type replies struct {
	req    *Request
	byKey  map[string]int // the option of each label, by its labelKey
	commas bool           // a label holds a comma, so no reply joins labels
	w      Words
}

// read reads l as an answer or a refusal, in linear time.
func (r *replies) read(ctx context.Context, l line) (Answer, string, error) {
	text, opts, w := l.text, r.req.Options, r.w
	var rows []int
	switch {
	case l.err != nil:
		return Answer{}, "", l.err
	case l.tooLong:
		return Answer{}, w.say("That line is longer than %d bytes.", maxLine), nil
	case !utf8.ValidString(text):
		return Answer{}, w.say("That line is not valid UTF-8."), nil
	case len(opts) == 0 && text == "":
		return Answer{}, w.say("Type an answer."), nil
	case len(opts) == 0:
		return Answer{Text: text}, "", nil
	case text == "":
		if rows = recommended(opts); rows == nil {
			return Answer{}, w.say("No option is recommended: type a number."), nil
		}
	default:
		key := labelKey(text)
		picks, label, refusal := r.pick(text, key)
		var err error
		if r.req.MultiSelect && picks == nil && !label && strings.Contains(key, ",") {
			picks, refusal, err = r.several(ctx, text, key)
		}
		switch {
		case err != nil || refusal != "":
			return Answer{}, refusal, err
		case picks == nil && !r.req.CustomAllowed():
			return Answer{}, w.say("%s is not an option: type its number.", quote(text)), nil
		case picks == nil:
			return Answer{Text: text}, "", nil
		}
		rows = picks
	}
	if len(rows) > 1 && !r.req.MultiSelect {
		return Answer{}, w.say("Pick one option."), nil
	}
	picked, picks := make([]bool, len(opts)), make([]Option, 0, len(rows))
	for _, i := range rows {
		if picked[i] {
			return Answer{}, w.say("Option %d is given twice.", i+1), nil
		}
		picked[i] = true
		picks = append(picks, opts[i])
	}
	return Pick(picks...), "", nil // completed by resolve, one pick as an Option
}

// pick reads text, whose labelKey is key, as row numbers ("#2"), a label, or
// neither. Numbers that are another row's label are refused.
func (r *replies) pick(text, key string) (rows []int, label bool, refusal string) {
	rows, hash, problem := numbers(r.w, key, len(r.req.Options))
	i, isLabel := r.byKey[key]
	for _, row := range rows { // "2 3" or "2, 3", where "2" is another row's label
		if j, ok := r.byKey[strconv.Itoa(row+1)]; ok && j != row && !isLabel {
			i, isLabel = j, true
		}
	}
	switch isLabel = isLabel && !hash; {
	case isLabel && rows != nil && !slices.Equal(rows, []int{i}):
		list := rowList(rows)
		return nil, true, r.w.say("%s is option %s, and the label of option %d: type %s or #%d.",
			quote(text), strings.ReplaceAll(list, "#", ""), i+1, list, i+1)
	case rows != nil:
		return rows, false, ""
	case isLabel:
		return []int{i}, true, ""
	}
	return nil, false, problem
}

// several reads text, whose labelKey is key, between commas; nothing is own words.
func (r *replies) several(ctx context.Context, text, key string) ([]int, string, error) {
	var picks []int
	numbered, labelled, other := false, false, "" // other: the first part that picks nothing
	typed := strings.ReplaceAll(text, "，", ",")   // the commas of labelKey are "," and "，"
	for n, more := 0, true; more; n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		var part, as string
		part, key, more = strings.Cut(key, ",")
		as, typed, _ = strings.Cut(typed, ",")
		if part, as = strings.Trim(part, " "), strings.TrimSpace(as); part == "" {
			continue // "1,,3" or "a, b,"
		}
		rows, label, refusal := r.pick(as, part)
		switch {
		case refusal != "":
			return nil, refusal, nil
		case rows == nil && other == "":
			other = as
		}
		numbered, labelled = numbered || rows != nil && !label, labelled || label
		picks = append(picks, rows...)
	}
	switch {
	case picks == nil && other == "":
		return nil, r.w.say("Type the number of an option."), nil
	case picks == nil:
		return nil, "", nil
	case labelled && r.commas:
		return nil, r.w.say("Some labels hold commas: type the numbers of the options, such as #1,#2."), nil
	case other != "":
		return nil, r.w.say("%s is not an option: type only options, or only your own words.", quote(other)), nil
	case numbered && labelled:
		return nil, r.w.say("%s mixes numbers and labels: type %s.", quote(text), rowList(picks)), nil
	}
	return picks, "", nil
}

func recommended(opts []Option) (rows []int) {
	for i, o := range opts {
		if o.Recommended {
			rows = append(rows, i)
		}
	}
	return rows
}

// rowList returns rows as a reply names them: "#1,#3".
func rowList(rows []int) string {
	list := make([]string, len(rows))
	for i, row := range rows {
		list[i] = "#" + strconv.Itoa(row+1)
	}
	return strings.Join(list, ",")
}

// numbers reads key as row numbers ("#2", "2."), in digits of any script.
func numbers(w Words, key string, n int) (rows []int, hash bool, problem string) {
	var ascii []byte // labelKey made fullwidth forms ASCII
	for _, c := range key {
		switch {
		case c == '、':
			c = ','
		case c >= utf8.RuneSelf && unicode.IsDigit(c):
			c = '0' + rune(digitValue(c))
		}
		if !strings.ContainsRune("0123456789#.-, ", c) {
			return nil, false, "" // most text: words
		}
		ascii = append(ascii, byte(c))
	}
	fields := strings.FieldsFunc(string(ascii), func(r rune) bool { return r == ',' || r == ' ' })
	for _, f := range fields {
		f = strings.TrimSuffix(strings.TrimPrefix(f, "#"), ".")
		from, to, ranged := strings.Cut(f, "-")
		i, err := strconv.Atoi(f)
		switch {
		case ranged && isDigits(from) && isDigits(to):
			problem = w.say("Type each number, such as 1,2,3.")
		case !isDigits(f):
			return nil, false, "" // "-1", "1.5", "#": not a row
		case problem == "" && (err != nil || i < 1 || i > n):
			problem = w.say("There is no option %s.", clip(f, maxQuoted))
		}
		rows = append(rows, i-1)
	}
	if len(fields) == 0 {
		problem = w.say("Type the number of an option.")
	}
	if problem != "" {
		rows = nil
	}
	return rows, bytes.IndexByte(ascii, '#') >= 0, problem
}

// digitValue returns the value of c, a digit of any script, or -1.
func digitValue(c rune) int {
	if !unicode.IsDigit(c) {
		return -1
	}
	start := c
	for unicode.IsDigit(start - 1) {
		start--
	}
	return int(c-start) % 10
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// ----------------------------------------------------------------------------
// Form

// ElicitFunc sends form as one elicitation/create in form mode, and returns the
// action and content of the client's response. It may be called concurrently if
// its SDK allows.
type ElicitFunc func(ctx context.Context, form Elicitation) (action string, content map[string]any, err error)

// Form is a [Provider] for MCP and ACP clients that render forms while the tool
// call waits. It is safe for concurrent use when its [ElicitFunc] is.
type Form struct {
	elicit ElicitFunc
}

// NewForm returns a Form that sends its forms through elicit. With a nil
// elicit, Ask fails with [CodeInvalidProvider].
func NewForm(elicit ElicitFunc) *Form {
	return &Form{elicit: elicit}
}

// Ask sends req as its [Request.Elicitation], and returns the answer
// [ElicitationAnswer] reads, completed, with Via "form". An invalid req or Form
// is not sent.
//
// When ctx is done, Ask returns ctx.Err() at once, even while elicit waits. An
// error of elicit or ElicitationAnswer is returned as it is. A response that
// breaks the rules of [Answer] sends the form again, led by the reason. The
// third is [CodeInvalidAnswer].
func (f *Form) Ask(ctx context.Context, req Request) (Answer, error) {
	if f == nil || f.elicit == nil {
		return Answer{}, NewError(CodeInvalidProvider, "form has no ElicitFunc: make it with NewForm(elicit)", nil)
	}
	if err := cmp.Or(req.Validate(), unproven("a form cannot carry one", req), ctxErr(ctx)); err != nil {
		return Answer{}, err
	}
	q := Pending{Request: req} // its Hint: why the last response was refused
	for n := 1; ; n++ {
		// On a goroutine of its own, so that ctx ends the wait even when elicit
		// ignores it. A late response, or panic, is dropped.
		form, done := q.Elicitation(), make(chan called[Outcome], 1)
		goCall(done, Outcome{Err: errStopped}, func() Outcome {
			action, content, err := f.elicit(ctx, form)
			given, invalid := ElicitationAnswer(action, content) // the client's error: no form is sent again
			return Outcome{given, cmp.Or(err, invalid)}
		})
		o, _ := await(ctx, &done)
		if err := cmp.Or(ctx.Err(), o.Err); err != nil {
			return Answer{}, err // once ctx is done, whatever came back is moot
		}
		o.Answer.Via = "form"
		ans, broken := resolve(&req, o.Answer)
		switch {
		case broken == nil:
			return ans, nil
		case n == maxForms:
			return Answer{}, invalidAnswer(fmt.Sprintf("%s (the last of %d refused forms)", broken.why, maxForms))
		}
		q.Hint = broken.hint
	}
}

// Wait runs call while the client answers its questions in forms that elicit
// sends, as a [Form] does, each answer's Via via: for a host that keeps the call
// open, such as an MCP server before protocol 2026-07-28. A batch the client
// cannot show is [CodeAskUnsupported] before any of its forms is sent: any when
// elicit is nil (the client shows no forms), one of several picks without
// multiSelect. The caller's registry audits, as with [Replay.Run]. Wait may be
// called concurrently when elicit may.
func Wait(ctx context.Context, elicit ElicitFunc, multiSelect bool, via string, call func(ctx context.Context)) {
	runWith(ctx, waiter{NewForm(elicit), elicit != nil, multiSelect, via}, call)
}

// waiter is Wait's provider: a Form, once the client can show the whole batch.
type waiter struct {
	form         *Form
	forms, multi bool // the client shows forms, and forms of several picks
	via          string
}

func (w waiter) Ask(ctx context.Context, req Request) (Answer, error) {
	o := outcomesOf(w.AskAll(ctx, []Request{req}))
	return o[0].Answer, o[0].Err
}

func (w waiter) AskAll(ctx context.Context, reqs []Request) ([]Answer, error) {
	for _, r := range reqs {
		if err := unproven("an MCP client cannot carry one in this revision", r); err != nil || !w.forms || r.MultiSelect && len(r.Options) > 0 && !w.multi {
			return nil, cmp.Or[error](err, NewError(CodeAskUnsupported, "the client cannot show this kind of question, so ask it another way", nil))
		}
	}
	var answers []Answer
	for _, r := range reqs {
		ans, err := w.form.Ask(ctx, r)
		if err != nil {
			return answers, err
		}
		ans.Via = w.via
		answers = append(answers, ans)
	}
	return answers, nil
}

// ----------------------------------------------------------------------------
// Inbox

// Inbox is a [Provider] for a UI outside the process, such as a web page. Its
// zero value is ready to use. It is safe for concurrent use.
type Inbox struct {
	// PushContact (mailto: or https:) is whom push services tell of a problem;
	// Apple's needs a real one. PushLoopback allows http push endpoints on a
	// loopback address, for tests. Set them before first use.
	PushContact  string
	PushLoopback bool
	// Words are the page's words in languages other than English, by BCP 47
	// tag ("de", "pt-BR"). Handler reads them; set them before calling it.
	Words map[string]Words
	// RelyingParty is the page's host name for passkeys (WebAuthn's RP ID), such as
	// "localhost"; empty, Ask refuses a proven question ([CodeAskUnsupported]).
	// AcceptPasskey accepts a passkey the page enrols (nil: none), called with
	// no lock held with one entry of [VerifyProof]'s keys. Set them before first use.
	RelyingParty  string
	AcceptPasskey func(key []byte) error

	mu      sync.Mutex // guards the fields below
	push    pusher
	keys    []passkey            // the accepted passkeys
	nonces  []nonce              // the last 1,000, oldest first
	open    list.List            // the open *questions, oldest first
	byID    map[string]*question // the open questions by ID; nil when none is
	changed chan struct{}        // closed at the next change; nil while nobody asked
	ended   endings
	log     []change // the last maxEnded changes; change n at log[(n-1)%maxEnded]
	seq     uint64   // the number of the last change
}

// A change is one entry of an Inbox's log: a question that opened or got a
// Hint, read from the open questions when reported, or one that ended.
type change struct {
	id    string
	ended *Outcome // nil for a question that opened or got a Hint
}

// Ask opens req as a question, whose ID is 32 random hex digits unless [WithQuestionID]
// names it, and waits for [Inbox.Respond] to deliver its outcome. When ctx is done
// first, the question closes and Ask returns ctx.Err().
func (b *Inbox) Ask(ctx context.Context, req Request) (Answer, error) {
	o := b.ask(ctx, []Request{req}, false, req.Validate())
	return o[0].Answer, o[0].Err
}

// AskAll opens reqs under one Batch, and returns their answers in order. At an
// error, it returns the answers before it, once they are given.
func (b *Inbox) AskAll(ctx context.Context, reqs []Request) ([]Answer, error) {
	return answersOf(b.ask(ctx, reqs, true, validateAll(reqs)))
}

// WithQuestionID returns a copy of ctx under which [Inbox.Ask] names its question id, if 32 lowercase hex
// digits and not open, else a random ID, as AskAll does: a host's recovered question keeps its ID.
func WithQuestionID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, registryKey{questionID: true}, id)
}

// Pending returns the open questions, oldest first, a batch's in order. The
// result shares no memory with b.
func (b *Inbox) Pending() []Pending {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Pending, 0, b.open.Len())
	for e := b.open.Front(); e != nil; e = e.Next() {
		out = append(out, e.Value.(*question).entry.clone())
	}
	return out
}

// Respond delivers the outcome of the open question id: err, or else ans.
// ans.Via names the UI, also beside err (Answer{Via: "tui"} with a decline);
// empty, it is "inbox". Respond returns nil once the outcome is taken
// ([Decide]) and the question closed.
//
// An ans that breaks a rule of [Answer] is [CodeInvalidAnswer], and an outcome
// a keep could not keep [CodeNotKept]: the question stays open, its Hint says
// why. An id that is not open is [CodeNotPending], so the first Respond wins.
func (b *Inbox) Respond(id string, ans Answer, err error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.byID[id]
	if q != nil && q.call.deciding != nil && kept(q.call.ctx) { // a keep may call Respond: never wait for it
		return NewError(CodeNotKept, "not kept: another answer to this question is being kept; send yours again if it stays open", nil)
	}
	if q != nil { // another outcome of its call may be on its way
		b.over(q.call)
		q = b.byID[id]
	}
	if q == nil {
		return notPending("question " + quote(id) + " was never asked, was answered, or was given up")
	}
	ans.Via = cmp.Or(ans.Via, "inbox")
	if !q.entry.Request.RequireProof {
		ans.Proof = nil // only a receipt b checks is carried
	}
	o, broken := checkOutcome(&q.entry.Request, Outcome{Answer: ans, Err: err})
	if err == nil && broken == nil && q.entry.Request.RequireProof { // a decline needs no proof
		broken = b.proven(id, &q.entry.Request, o.Answer)
	}
	if broken != nil {
		q.entry.Hint = broken.hint
		b.note(id, nil)
		b.publish()
		return invalidAnswer(broken.why)
	}
	c := q.call
	q.given = &o
	outs := c.outcomes()
	if outs == nil && c.ctx.Err() != nil { // the asker left a batch: too late
		q.given = nil
		b.giveUp(c)
		return notPending("question " + quote(id) + " was given up")
	}
	if outs == nil { // a batch waits for the questions before this one
		for _, left := range c.questions[q.entry.Index:] { // an error ends the questions after it too
			if b.leave(left, o); o.Err == nil {
				break
			}
		}
		b.publish()
		return nil
	}
	decided, refused := b.decide(c, outs)
	q.given = nil // decided, or to be given again
	switch {
	case refused == nil:
		b.end(c, decided, decided)
	case CodeOf(refused) == CodeNotKept:
		q.entry.Hint = "Your answer could not be kept. Send it again."
		b.note(id, nil)
		b.publish()
	case c.ctx.Err() != nil: // the asker stopped, or another UI won
		b.giveUp(c)
	}
	return refused
}

// Changes reports the changes after cursor, as [Source] says. b keeps the last
// 1,000; an older cursor is an error, and a UI reads again from "". A
// question's ending is in them before its asker's Ask returns. A UI that
// follows them draws from them alone: [Inbox.Pending] may be ahead.
func (b *Inbox) Changes(ctx context.Context, cursor string) ([]Change, string, error) {
	for {
		changed := b.Changed()
		b.mu.Lock()
		out, next, err := b.changesAfter(cursor)
		b.mu.Unlock()
		if err != nil || len(out) > 0 || cursor == "" {
			return out, next, err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, cursor, ctx.Err()
		}
	}
}

// changesAfter returns the changes after cursor. b.mu is held.
func (b *Inbox) changesAfter(cursor string) ([]Change, string, error) {
	next := strconv.FormatUint(b.seq, 10)
	var out []Change
	if cursor == "" {
		for e := b.open.Front(); e != nil; e = e.Next() {
			out = append(out, Change{Pending: e.Value.(*question).entry.clone()})
		}
		return out, next, nil
	}
	from, err := strconv.ParseUint(cursor, 10, 64)
	if err != nil || from > b.seq || b.seq-from > uint64(len(b.log)) {
		return nil, next, errors.New("userinteraction: Inbox: cursor " + quote(cursor) + " is not one of the last 1,000 changes")
	}
	seen := make(map[string]bool)
	for n := from + 1; n <= b.seq; n++ {
		c := b.log[(n-1)%maxEnded]
		if c.ended != nil {
			if seen[c.id] { // asked again (WithQuestionID): it is open after this ending
				out, seen[c.id] = slices.DeleteFunc(out, func(o Change) bool { return o.Ended == nil && o.Pending.ID == c.id }), false
			}
			out = append(out, Change{Pending: Pending{ID: c.id}, Ended: &Outcome{Answer: c.ended.Answer.clone(), Err: c.ended.Err}})
		} else if q := b.byID[c.id]; q != nil && !seen[c.id] { // as it is now; its ending follows when it left
			seen[c.id] = true
			out = append(out, Change{Pending: q.entry.clone()})
		}
	}
	return out, next, nil
}

// Changed returns a channel closed at the next change of Pending: a question
// opens, closes, or gets a Hint. Call it before Pending to miss no change.
func (b *Inbox) Changed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.changed == nil {
		b.changed = make(chan struct{})
	}
	return b.changed
}

// Outcome reports how question id ended, once it left Pending: what
// [Registry.Ask] returns for it. Another UI's win replaces a batch's answer. b
// keeps the last 1,000 outcomes.
func (b *Inbox) Outcome(id string) (Outcome, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.ended.byID[id]
	if b.byID[id] != nil { // asked again under its ID (WithQuestionID): open
		return Outcome{}, false
	}
	o.Answer = o.Answer.clone()
	return o, ok
}

type question struct {
	entry Pending // as Pending lists it; its Index is its place in call.questions
	call  *inboxCall
	// Guarded by the Inbox's mu.
	elem  *list.Element // in the open list; nil once it left
	given *Outcome      // what Respond gave it, or nil
}

type inboxCall struct {
	ctx       context.Context // the asker's
	questions []*question     // in request order
	done      chan []Outcome  // gets the call's outcomes, once
	// Guarded by the Inbox's mu.
	deciding chan struct{} // closed once the outcome on its way is decided
	over     bool          // its outcomes went to done
	pushed   []*int        // the subscriptions its opening went to, by their sending
}

// outcomes returns c's outcomes once each question up to an error has one, else nil.
func (c *inboxCall) outcomes() []Outcome {
	o := make([]Outcome, 0, len(c.questions))
	for _, q := range c.questions {
		if q.given == nil {
			return nil
		}
		if o = append(o, *q.given); q.given.Err != nil {
			break
		}
	}
	return o
}

// ask opens reqs, unless invalid, and waits for their outcomes. It checks no
// ID: two of 2^32 random ones are equal with a chance of 2^-65.
func (b *Inbox) ask(ctx context.Context, reqs []Request, batch bool, invalid error) []Outcome {
	noKeys := "" // why this inbox cannot prove an answer, if it cannot
	if b.RelyingParty == "" {
		noKeys = "this inbox takes no passkey: its RelyingParty is empty"
	}
	if err := cmp.Or(invalid, unproven(noKeys, reqs...), ctxErr(ctx)); err != nil { // no UI sees a question given up already
		return []Outcome{{Err: err}}
	}
	random := make([]byte, 16*(len(reqs)+1)) // an ID a question, and the Batch
	if _, err := rand.Read(random); err != nil {
		return []Outcome{{Err: fmt.Errorf("userinteraction: Inbox: no random question ID: %w", err)}} // as Go 1.22's could
	}
	deadline, _ := ctx.Deadline()
	if deadline.Year() > 9999 {
		deadline = time.Time{} // RFC 3339 has no such year
	}
	c := &inboxCall{ctx: ctx, questions: make([]*question, len(reqs)), done: make(chan []Outcome, 1)}
	b.mu.Lock()
	if b.byID == nil {
		b.byID = make(map[string]*question)
	}
	for i, req := range reqs {
		q := &question{call: c, entry: Pending{ID: hex.EncodeToString(random[16*i : 16*(i+1)]), Request: req.clone(), Deadline: deadline}}
		if id, _ := ctx.Value(registryKey{questionID: true}).(string); !batch && len(id) == 32 && strings.Trim(id, "0123456789abcdef") == "" && b.byID[id] == nil {
			q.entry.ID = id
		}
		if batch {
			q.entry.Batch = hex.EncodeToString(random[16*len(reqs):])
			q.entry.Index, q.entry.Count = i, len(reqs)
		}
		c.questions[i], b.byID[q.entry.ID] = q, q
		q.elem = b.open.PushBack(q)
		b.note(q.entry.ID, nil)
	}
	b.notify(c, &c.questions[0].entry.Request)
	b.publish()
	b.mu.Unlock()
	select {
	case o := <-c.done:
		return o
	case <-ctx.Done():
		b.mu.Lock()
		b.giveUp(c)
		b.mu.Unlock()
		return <-c.done
	}
}

// decide hands outs to [Decide] without b.mu, which is held before and after.
func (b *Inbox) decide(c *inboxCall, outs []Outcome) ([]Outcome, error) {
	c.deciding = make(chan struct{})
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		close(c.deciding)
		c.deciding = nil
	}()
	return Decide(c.ctx, outs...)
}

// over reports whether c is over, once no outcome of c is on its way. b.mu is held.
func (b *Inbox) over(c *inboxCall) bool {
	for ch := c.deciding; ch != nil; ch = c.deciding {
		b.mu.Unlock()
		<-ch
		b.mu.Lock()
	}
	return c.over
}

// end closes c: its questions leave with o, and its ask returns returned. b.mu is held.
func (b *Inbox) end(c *inboxCall, o, returned []Outcome) {
	for i, q := range c.questions {
		b.leave(q, o[min(i, len(o)-1)])
	}
	c.over = true
	c.done <- returned
	b.publish()
}

// giveUp closes c, whose ctx is done, unless an outcome was decided. b.mu is
// held, and released while another UI's outcome on its way is decided.
func (b *Inbox) giveUp(c *inboxCall) {
	if b.over(c) { // an outcome on its way wins
		return
	}
	var given []Outcome // the answers before the first question without one
	for _, q := range c.questions {
		if q.given == nil || q.given.Err != nil {
			break
		}
		given = append(given, *q.given)
	}
	b.mu.Unlock()
	o, elsewhere := wonElsewhere(c.ctx) // waits for a keep of another UI's answer
	if !elsewhere {                     // how ctx ended is this UI's outcome, for the one place that decides
		ended := append(slices.Clip(given), Outcome{Err: endedBy(c.ctx, "answered")})
		var err error
		if o, err = Decide(c.ctx, ended...); err != nil {
			o = ended
		}
	}
	b.mu.Lock()
	if !b.over(c) {
		b.end(c, o, append(given, Outcome{Err: c.ctx.Err()}))
	}
}

func (b *Inbox) leave(q *question, o Outcome) {
	if q.elem != nil {
		b.open.Remove(q.elem)
		q.elem = nil
		if delete(b.byID, q.entry.ID); len(b.byID) == 0 {
			b.byID = nil // a map keeps its largest size's buckets
		}
		b.note(q.entry.ID, &o)
		if !slices.ContainsFunc(q.call.questions, func(q *question) bool { return q.elem != nil }) { // the last of its call
			b.notify(q.call, nil)
		}
	}
	b.ended.put(q.entry.ID, o)
}

// note logs a change of question id. b.mu is held.
func (b *Inbox) note(id string, ended *Outcome) {
	if b.seq++; len(b.log) < maxEnded {
		b.log = append(b.log, change{id, ended})
	} else {
		b.log[(b.seq-1)%maxEnded] = change{id, ended}
	}
}

func (b *Inbox) publish() {
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
}

// maxEnded bounds the outcomes an Inbox keeps of questions that left.
const maxEnded = 1000

type endings struct {
	byID  map[string]Outcome
	order []string // byID's keys as they left; once full, the oldest at next
	next  int
}

func (e *endings) put(id string, o Outcome) {
	if e.byID == nil {
		e.byID = make(map[string]Outcome)
	}
	if _, ok := e.byID[id]; !ok && len(e.order) < maxEnded {
		e.order = append(e.order, id)
	} else if !ok {
		delete(e.byID, e.order[e.next])
		e.order[e.next], e.next = id, (e.next+1)%maxEnded
		if e.next == 0 { // before Go 1.24, a map that deletes and adds keeps growing
			e.byID = maps.Clone(e.byID)
		}
	}
	e.byID[id] = o
}

// Nonce returns a fresh nonce for the page's passkey, 16 random bytes in
// base64url ("" if none): valid 5 minutes, for an enrolment or once a question.
// b keeps the last 1,000.
func (b *Inbox) Nonce() string {
	n := make([]byte, 16)
	if _, err := rand.Read(n); err != nil {
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nonces = append(b.nonces[max(0, len(b.nonces)-maxEnded+1):], nonce{value: b64.EncodeToString(n), at: time.Now()})
	return b64.EncodeToString(n)
}

// Enroll keeps a passkey the page made, JSON {"credential", "publicKey" (SPKI
// DER), "clientData", "authenticatorData"} in base64url, if AcceptPasskey accepts
// it: attestation "none", so the token and AcceptPasskey are the trust. A
// failed check is [CodeInvalidRequest], naming it. [Handler] serves it at POST
// /passkey (204, 400, or 403 when refused), and a nonce at GET /passkey.
func (b *Inbox) Enroll(registration []byte) error {
	var r struct{ Credential, PublicKey, ClientData, AuthenticatorData string }
	var c struct{ Type, Challenge, Origin string }
	_ = json.Unmarshal(registration, &r)
	decode := func(s string) []byte { d, _ := b64.DecodeString(s); return d }
	client, auth, id := decode(r.ClientData), decode(r.AuthenticatorData), decode(r.Credential)
	_ = json.Unmarshal(client, &c)
	rp, k, why := sha256.Sum256([]byte(b.RelyingParty)), passkey{Credential: r.Credential, PublicKey: r.PublicKey, RelyingParty: b.RelyingParty}, ""
	key, _ := json.Marshal(k) // no counter yet
	b.mu.Lock()
	switch { // auth: the RP ID's SHA-256 (32 bytes), flags (1), counter (4), AAGUID (16), the credential ID's length (2), the ID
	case len(auth) < 55 || !bytes.Equal(auth[:32], rp[:]) || auth[32]&(userPresent|userVerified|attested) != userPresent|userVerified|attested || int(auth[53])<<8|int(auth[54]) != len(id) || !bytes.HasPrefix(auth[55:], id):
		why = "the authenticator data is not the relying party's, with the user present and verified, for this credential"
	case !addable(b.keys, k):
		why = "the key is no P-256 ECDSA or Ed25519 SPKI, or is accepted already, or 100 are"
	case c.Type != "webauthn.create" || !fromRP(c.Origin, b.RelyingParty) || !b.spend(c.Challenge, ""): // last: a refusal spends none
		why = "the client data is no registration from the relying party's origin under a fresh nonce of this inbox's"
	}
	b.mu.Unlock()
	if why != "" {
		return NewError(CodeInvalidRequest, "invalid request: passkey: "+why, nil)
	} else if b.AcceptPasskey == nil {
		return errors.New("userinteraction: Inbox: no AcceptPasskey accepts a passkey")
	} else if err := b.AcceptPasskey(key); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if k.Counter = binary.BigEndian.Uint32(auth[33:]); !addable(b.keys, k) { // another enrolment of it came first
		return NewError(CodeInvalidRequest, "invalid request: passkey: it is accepted already, or 100 are", nil)
	}
	b.keys = append(b.keys, k)
	return nil
}

// Passkeys returns the accepted passkeys, [VerifyProof]'s keys with their
// "counter", which a host keeps for SetPasskeys; "[]" when none.
func (b *Inbox) Passkeys() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	data, _ := json.Marshal(append([]passkey{}, b.keys...))
	return data
}

// SetPasskeys replaces the accepted passkeys with those of Passkeys' JSON. A
// bad one, or a 101st, is [CodeInvalidRequest] and leaves b as it was.
func (b *Inbox) SetPasskeys(keys []byte) error {
	var in, set []passkey
	ok := json.Unmarshal(keys, &in) == nil
	for _, k := range in {
		ok, set = ok && addable(set, k), append(set, k)
	}
	if !ok {
		return NewError(CodeInvalidRequest, `invalid request: the passkeys are not the JSON of at most 100 {"credential", "publicKey" (P-256 ECDSA or Ed25519 SPKI), "relyingParty", "counter"}, of distinct credentials, in base64url`, nil)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.keys = set
	return nil
}

// proven returns why ans, completed, is no proven answer to question id of
// req, else spends its nonce and keeps its counter. b.mu is held.
func (b *Inbox) proven(id string, req *Request, ans Answer) *brokenRule {
	if ans.Proof == nil {
		return &brokenRule{why: "the question requires a passkey's proof that a human answered", hint: "This question needs your passkey: add one on this page, then send again."}
	}
	keys, _ := json.Marshal(b.keys)
	nonce, counter, why := verifyProof(keys, *req, ans, id)
	i := slices.IndexFunc(b.keys, func(k passkey) bool { return k.Credential == ans.Proof.Credential })
	switch {
	case why != "":
	case b.keys[i].Counter != 0 && counter <= b.keys[i].Counter: // 0 after 0: a synced passkey
		why = "its signature counter did not go up"
	case !b.spend(nonce, id):
		why = "its nonce is not this inbox's, unused for this question and under 5 minutes old"
	default:
		b.keys[i].Counter = counter
		return nil
	}
	return &brokenRule{why: "proof: " + why, hint: "Your passkey's proof was refused: " + why + ". Send again."}
}

// spend reports whether s is a nonce of b's under 5 minutes old and unspent on
// question id ("": an enrolment), and spends it.
func (b *Inbox) spend(s, id string) bool {
	i := slices.IndexFunc(b.nonces, func(n nonce) bool {
		return n.value == s && !slices.Contains(n.spent, id) && time.Since(n.at) < 5*time.Minute
	})
	if i >= 0 {
		b.nonces[i].spent = append(b.nonces[i].spent, id)
	}
	return i >= 0
}

// addable reports whether k may join keys: a credential in base64url not among
// them, a P-256 ECDSA or Ed25519 key, a relying party, a 100th at most.
func addable(keys []passkey, k passkey) bool {
	id, err := b64.Strict().DecodeString(k.Credential)
	return err == nil && len(id) > 0 && k.RelyingParty != "" && passkeyOf(k.PublicKey) != nil &&
		len(keys) < 100 && !slices.ContainsFunc(keys, func(o passkey) bool { return o.Credential == k.Credential })
}

type passkey struct {
	Credential   string `json:"credential"`
	PublicKey    string `json:"publicKey"`
	RelyingParty string `json:"relyingParty"`
	Counter      uint32 `json:"counter,omitempty"`
}

type nonce struct {
	value string
	at    time.Time
	spent []string // the questions answered under it, "" an enrolment
}

// ----------------------------------------------------------------------------
// Inbox: the handler, over any Source

// Source is the questions a page shows and answers: an [Inbox], or a host's
// view of questions kept elsewhere, such as in a database that several
// processes share. [Handler] serves any Source, calling its methods
// concurrently, one request's calls on that request's goroutine.
type Source interface {
	// Changes returns the changes after cursor, oldest first, and the cursor
	// after them, else waits for one or for ctx to be done (then ctx.Err()).
	// Cursor "" gets at once every open question, oldest first, a batch's in
	// order. An error, such as a cursor too old to know, ends a page's event
	// stream, and the page connects again. A source over a database may poll,
	// at most every 250 ms.
	Changes(ctx context.Context, cursor string) ([]Change, string, error)
	// Respond delivers the human's outcome of question id, as [Inbox.Respond].
	Respond(id string, ans Answer, err error) error
	// Outcome reports how question id ended, as [Inbox.Outcome].
	Outcome(id string) (Outcome, bool)
}

// A Change is a question that opened or got a Hint, or one that ended.
type Change struct {
	Pending Pending  // the question as it is now; only its ID once it ended: a UI keeps what it showed
	Ended   *Outcome // how it ended; nil while it is open
}

// Handler returns Handler(b, token).
func (b *Inbox) Handler(token string) http.Handler { return Handler(b, token) }

// Handler returns an [http.Handler] that serves src to a web browser; the
// human's link is /ask/#token=... when mounted as
//
//	http.Handle("/ask/", http.StripPrefix("/ask", userinteraction.Handler(inbox, token)))
//
// GET / (the page) and /sw.js (its worker) need no token; the others need
// token (16 bytes or more, else Handler panics) as a bearer or a query's. GET
// /questions lists the open questions; GET /events streams them as
// "questions", then each [Change] as "question" or "ended", until src.Changes
// fails, a peer goes, or Shutdown (within a second, what changed, then
// "stopped"). POST /questions/{id} takes an MCP elicitation result: 204, or a
// [HarnessError]'s JSON (422 or 503 with "hint", 409); a bad body is 400, 413
// or 415.
func Handler(src Source, token string) http.Handler {
	if len(token) < 16 {
		panic("userinteraction: Handler: the token is shorter than 16 bytes")
	}
	h := &handler{src: src, token: sha256.Sum256([]byte(token)), mux: http.NewServeMux()}
	h.mux.HandleFunc(pagePattern, static(pageCSP(), "text/html", inboxPage))
	h.mux.HandleFunc(workerPattern, static("default-src 'none'", "text/javascript", workerScript))
	h.mux.HandleFunc("GET /questions", h.serveQuestions)
	h.mux.HandleFunc("GET /events", h.serveEvents)
	h.mux.HandleFunc("HEAD /events", getOnly) // else GET's route waits for changes
	h.mux.HandleFunc("/events", getOnly)      // else other methods' 405 allows HEAD
	h.mux.HandleFunc("POST /questions/{id}", h.serveAnswer)
	if b, ok := src.(*Inbox); ok && b != nil { // a Source of another kind has no words or push
		h.words = maps.Clone(b.Words)
		h.mux.HandleFunc("GET /push", func(w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, http.StatusOK, map[string]string{"key": b.PushKey()})
		})
		post := func(take func([]byte) error) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody)) // one cut short is no JSON
				if err := take(body); CodeOf(err) == CodeInvalidRequest {
					writeJSON(w, http.StatusBadRequest, err)
				} else if err != nil { // AcceptPasskey refused it
					writeJSON(w, http.StatusForbidden, map[string]string{"message": err.Error()})
				} else {
					w.WriteHeader(http.StatusNoContent)
				}
			}
		}
		h.mux.HandleFunc("POST /push", post(b.Subscribe))
		h.mux.HandleFunc("POST /passkey", post(b.Enroll))
		h.mux.HandleFunc("GET /passkey", func(w http.ResponseWriter, _ *http.Request) {
			var keys []struct{ Credential string }
			_ = json.Unmarshal(b.Passkeys(), &keys)
			ids := []string{}
			for _, k := range keys {
				ids = append(ids, k.Credential)
			}
			writeJSON(w, http.StatusOK, map[string]any{"relyingParty": b.RelyingParty, "nonce": b.Nonce(), "credentials": ids})
		})
	}
	return h
}

const (
	maxBody     = 1 << 20 // bytes of a response's body, at most
	maxOpen     = 1000    // IDs of the query's open that count, at most
	pagePattern = "GET /{$}"
	// The service worker's script: its fetch has no token, as a page's link.
	workerPattern = "GET /sw.js"
)

// handler uses only exported names, so that another UI can do all it does.
type handler struct {
	src   Source
	token [32]byte // the token's SHA-256, compared in constant time
	mux   *http.ServeMux
	words map[string]Words // by BCP 47 tag
	// A context per server that served a stream, cancelled at its shutdown,
	// which ends its streams then and later.
	servers sync.Map
}

// ServeHTTP checks the token before routing: a client without it learns no path.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	header := w.Header()
	header.Set("X-Content-Type-Options", "nosniff")
	header.Set("Cache-Control", "no-store")
	header.Set("Referrer-Policy", "no-referrer")
	header.Set("X-Frame-Options", "DENY")
	if !strings.HasPrefix(r.URL.Path, "/") { // StripPrefix("/ask/"): ServeMux needs the slash
		r = r.Clone(r.Context())
		r.URL.Path, r.URL.RawPath = "/"+r.URL.Path, ""
	}
	// The token keeps out other local users, other sites (cross-site requests,
	// DNS rebinding) and anyone who reaches the port: no Host check is needed.
	if _, pattern := h.mux.Handler(r); pattern != pagePattern && pattern != workerPattern && !h.authorized(r) {
		header.Set("WWW-Authenticate", "Bearer")
		http.Error(w, "unauthorized: open the page through the link with its token", http.StatusUnauthorized)
		return
	}
	h.mux.ServeHTTP(w, r)
}

func (h *handler) authorized(r *http.Request) bool {
	scheme, given, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	return strings.EqualFold(scheme, "Bearer") && h.isToken(given) || h.isToken(r.URL.Query().Get("token"))
}

// isToken reports whether given is the token, in time independent of given.
func (h *handler) isToken(given string) bool {
	sum := sha256.Sum256([]byte(given))
	return subtle.ConstantTimeCompare(sum[:], h.token[:]) == 1
}

func getOnly(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Allow", http.MethodGet)
	http.Error(w, "method not allowed: use GET", http.StatusMethodNotAllowed)
}

// static serves text, of media type kind in UTF-8, under policy csp.
func static(csp, kind, text string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Security-Policy", csp)
		w.Header().Set("Content-Type", kind+"; charset=utf-8")
		_, _ = io.WriteString(w, text)
	}
}

func (h *handler) open(ctx context.Context) ([]Pending, error) {
	changes, _, err := h.src.Changes(ctx, "")
	list := make([]Pending, len(changes))
	for i, c := range changes {
		list[i] = c.Pending
	}
	return list, err
}

func (h *handler) serveQuestions(w http.ResponseWriter, r *http.Request) {
	list, err := h.open(r.Context())
	if err != nil {
		http.Error(w, "the questions cannot be read now: try again", http.StatusServiceUnavailable)
		return
	}
	writeJSON(w, http.StatusOK, list) // a Pending's JSON fails only for a deadline after year 9999
}

// writeJSON writes v's JSON, with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	data, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// serveEvents writes the open questions, then what changed, those during a write as one.
func (h *handler) serveEvents(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop, rc, stopping := h.shutdown(r), http.NewResponseController(w), make(chan struct{})
	after := context.AfterFunc(stop, func() { // a tab that reads nothing holds up no Shutdown
		_ = rc.SetWriteDeadline(time.Now().Add(time.Second))
		cancel()
		close(stopping)
	})
	defer func() {
		if !after() {
			<-stopping // rc is the handler's until it returns
		}
	}()
	changes, cursor, err := h.src.Changes(ctx, "")
	if err != nil {
		http.Error(w, "the questions cannot be read now: try again", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	events := []byte("retry: 1000\n\n") // reconnect after a second, not three
	tag, words := h.language(cmp.Or(r.URL.Query().Get("lang"), r.Header.Get("Accept-Language")))
	if words != nil { // before the questions; English needs none
		events = appendEvent(events, "words", map[string]any{"lang": tag, "words": words})
	}
	list, open := make([]Pending, len(changes)), make(map[string]bool, len(changes))
	for i, c := range changes {
		list[i], open[c.Pending.ID] = c.Pending, true
	}
	shown := strings.SplitN(r.URL.Query().Get("open"), ",", maxOpen+1)
	for _, id := range shown[:min(len(shown), maxOpen)] { // the rest is one part, unsplit
		if id != "" && !open[id] {
			open[id] = true // one event for an ID named twice
			e := endedEvent{ID: id}
			if o, ok := h.src.Outcome(id); ok {
				e = endedEvent{id, &o, words.Ended(o)}
			}
			events = appendEvent(events, "ended", e)
		}
	}
	events = appendEvent(events, "questions", list)
	for stopped := false; ; {
		if _, err := w.Write(events); err != nil || rc.Flush() != nil || stopped {
			return
		}
		changes, cursor, err = h.src.Changes(ctx, cursor)
		if stopped = err != nil && stop.Err() != nil; stopped { // the server shuts down: what changed until now, then "stopped"
			changes, _, _ = h.src.Changes(ctx, cursor) // ctx is done: a Source returns the changes it holds
		} else if err != nil {
			return
		}
		events = events[:0]
		for _, c := range changes {
			if c.Ended != nil {
				events = appendEvent(events, "ended", endedEvent{c.Pending.ID, c.Ended, words.Ended(*c.Ended)})
			} else {
				events = appendEvent(events, "question", c.Pending)
			}
		}
		if stopped {
			events = appendEvent(events, "stopped", nil)
		}
	}
}

type endedEvent struct {
	ID      string   `json:"id"`
	Outcome *Outcome `json:"outcome"`
	Said    string   `json:"said,omitempty"` // Words.Ended in the page's language
}

// language returns the first tag of langs ("de-AT,en;q=0.8") that h has
// words for, exactly or by its first part ("de"), with them; else English.
func (h *handler) language(langs string) (string, Words) {
	for _, tag := range strings.SplitN(langs, ",", 17)[:min(16, strings.Count(langs, ",")+1)] {
		tag, _, _ = strings.Cut(strings.TrimSpace(tag), ";")
		for _, t := range []string{tag, strings.SplitN(tag, "-", 2)[0]} {
			for key, words := range h.words {
				if strings.EqualFold(key, t) {
					return key, words
				}
			}
		}
	}
	return "en", nil
}

func appendEvent(events []byte, name string, v any) []byte {
	data, _ := json.Marshal(v) // as serveQuestions says
	return fmt.Appendf(events, "event: %s\ndata: %s\n\n", name, data)
}

// shutdown returns a context cancelled when r's server shuts down.
func (h *handler) shutdown(r *http.Request) context.Context {
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if srv == nil {
		return context.Background()
	}
	ctx, cancel := context.WithCancel(context.Background())
	if done, loaded := h.servers.LoadOrStore(srv, ctx); loaded {
		cancel()
		return done.(context.Context)
	}
	srv.RegisterOnShutdown(cancel)
	return ctx
}

func (h *handler) serveAnswer(w http.ResponseWriter, r *http.Request) {
	if media, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || media != "application/json" {
		http.Error(w, "the body is not application/json", http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if errors.As(err, new(*http.MaxBytesError)) {
		http.Error(w, "the body is larger than 1 MiB", http.StatusRequestEntityTooLarge)
		return
	}
	var result struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
		Proof   *Receipt       `json:"proof"`
	}
	if err == nil {
		err = json.Unmarshal(body, &result)
	}
	ans, outcome := ElicitationAnswer(result.Action, result.Content)
	if err == nil && CodeOf(outcome) == CodeInvalidAnswer { // a client's bug, not the human's answer
		err = outcome
	}
	if err != nil {
		http.Error(w, "the body is not an elicitation result: "+err.Error(), http.StatusBadRequest)
		return
	}
	ans.Via, ans.Proof = "page", result.Proof
	id := r.PathValue("id")
	var refused *HarnessError
	if !errors.As(h.src.Respond(id, ans, outcome), &refused) {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	reply := struct {
		*HarnessError
		Hint string `json:"hint,omitempty"`
	}{HarnessError: refused}
	// A broken rule, or an answer not kept: the question stays open.
	status, open := map[string]int{CodeInvalidAnswer: http.StatusUnprocessableEntity, CodeNotKept: http.StatusServiceUnavailable}[refused.Code]
	if open { // read as GET /questions: no dearer than it
		pending, _ := h.open(r.Context())
		if i := slices.IndexFunc(pending, func(p Pending) bool { return p.ID == id }); i >= 0 {
			reply.Hint = pending[i].Hint
		}
	}
	writeJSON(w, cmp.Or(status, http.StatusConflict), reply)
}

// ----------------------------------------------------------------------------
// Inbox: Web Push

// PushKey returns b's push key (VAPID, RFC 8292), made on first use: a P-256
// public key in base64url, or "" when no random key could be made. [Handler]
// serves it at GET /push, and [Inbox.Subscribe] at POST /push (204, or 400 and
// the error's JSON).
func (b *Inbox) PushKey() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b64.EncodeToString(b.vapid().pub)
}

// Subscribe adds a browser's PushSubscription, as JSON, in place of one of the
// same endpoint; a bad one, or a 101st, is [CodeInvalidRequest]. An endpoint
// gets an encrypted message (RFC 8291) as each question, or batch, opens and
// ends, and is dropped when its service answers 404 or 410.
func (b *Inbox) Subscribe(subscription []byte) error {
	var s pushSub
	err := json.Unmarshal(subscription, &s)
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.push.add(s, err, b.PushLoopback)
}

// PushState returns b's push key and subscriptions, a secret a host keeps
// across restarts (at exit, say), as JSON: {"key": the private key's 32 bytes
// in base64url, "subscriptions": [...]}; nil when no key could be made.
func (b *Inbox) PushState() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.vapid().key == nil {
		return nil
	}
	data, _ := json.Marshal(pusher{Key: b64.EncodeToString(b.push.key.D.FillBytes(make([]byte, 32))), Subs: append([]pushSub{}, b.push.Subs...)})
	return data
}

// SetPushState replaces b's push key and subscriptions with those of
// PushState's JSON. Bad JSON, key or subscription is [CodeInvalidRequest],
// naming it, and leaves b as it was.
func (b *Inbox) SetPushState(data []byte) error {
	var st, p pusher
	err := json.Unmarshal(data, &st)
	d, _ := b64.DecodeString(st.Key)
	if err != nil || p.setKey(d) != nil {
		return NewError(CodeInvalidRequest, `the push state is not the JSON of {"key": a P-256 private key of 32 bytes in base64url, "subscriptions": [...]}`, nil)
	}
	for _, s := range st.Subs {
		if err := p.add(s, nil, b.PushLoopback); err != nil {
			return err
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.push.key, b.push.pub, b.push.Subs = p.key, p.pub, p.Subs
	return nil
}

var b64 = base64.RawURLEncoding

var pushClient = &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

type pusher struct {
	Key  string            `json:"key"` // in PushState's JSON only
	Subs []pushSub         `json:"subscriptions"`
	key  *ecdsa.PrivateKey // nil until first use
	pub  []byte            // key's public key, uncompressed
}

type pushSub struct {
	Endpoint string `json:"endpoint"`
	Keys     struct {
		P256dh string `json:"p256dh"`
		Auth   string `json:"auth"`
	} `json:"keys"`
	ua, auth []byte         // the keys decoded
	sending  *int           // its messages on their way, at most 8 but for endings of openings sent; more are dropped
	last     *chan struct{} // closed once its last message went; nil at first
}

// setKey makes scalar d p's key, which Go 1.22's ecdsa cannot read.
func (p *pusher) setKey(d []byte) error {
	k, err := ecdh.P256().NewPrivateKey(d)
	if err == nil {
		p.pub = k.PublicKey().Bytes()
		x, y := new(big.Int).SetBytes(p.pub[1:33]), new(big.Int).SetBytes(p.pub[33:])
		p.key = &ecdsa.PrivateKey{PublicKey: ecdsa.PublicKey{Curve: elliptic.P256(), X: x, Y: y}, D: new(big.Int).SetBytes(d)}
	}
	return err
}

// add checks s, which failed to read when err is not nil, and puts it in p.
func (p *pusher) add(s pushSub, err error, loopback bool) error {
	u, err1 := url.Parse(s.Endpoint)
	s.ua, _ = b64.DecodeString(strings.TrimRight(s.Keys.P256dh, "="))
	s.auth, _ = b64.DecodeString(strings.TrimRight(s.Keys.Auth, "="))
	s.Keys.P256dh, s.Keys.Auth = b64.EncodeToString(s.ua), b64.EncodeToString(s.auth) // kept without padding, however long
	_, err2 := ecdh.P256().NewPublicKey(s.ua)
	s.sending, s.last = new(int), new(chan struct{})
	i := slices.IndexFunc(p.Subs, func(o pushSub) bool { return o.Endpoint == s.Endpoint })
	why := ""
	switch {
	case err != nil:
		why = "it is not a PushSubscription's JSON"
	case err1 != nil || len(s.Endpoint) > 2048 || u.Host == "" || u.User != nil || u.Scheme != "https" && !(loopback && u.Scheme == "http" && net.ParseIP(u.Hostname()).IsLoopback()):
		why = "its endpoint is not an https URL of at most 2,048 bytes (nor, with PushLoopback, an http URL of a loopback address)"
	case err2 != nil || len(s.auth) != 16:
		why = "its keys are not a P-256 public key (p256dh) and 16 bytes (auth) in base64url"
	case i >= 0: // its queue kept: an ending never overtakes its opening
		s.sending, s.last = p.Subs[i].sending, p.Subs[i].last
		p.Subs[i] = s
	case len(p.Subs) == 100:
		why = "the inbox holds 100 push subscriptions already"
	default:
		p.Subs = append(p.Subs, s)
	}
	if why != "" {
		return NewError(CodeInvalidRequest, "the push subscription is refused: "+why, nil)
	}
	return nil
}

// vapid returns b's push, with a key made now if need be. b.mu is held.
func (b *Inbox) vapid() *pusher {
	if b.push.key == nil {
		if k, err := ecdh.P256().GenerateKey(rand.Reader); err == nil {
			_ = b.push.setKey(k.Bytes())
		}
	}
	return &b.push
}

// notify sends each subscription, on a goroutine of its own, the message of
// c: its first question's ID, req's first line cut to 100 characters and
// agent's name, or, without req, that it ended, with its batch. b.mu is held.
func (b *Inbox) notify(c *inboxCall, req *Request) {
	if len(b.push.Subs) == 0 || b.vapid().key == nil {
		return // no work on an Ask while no page subscribed
	}
	p, id := b.push, c.questions[0].entry.ID
	msg := map[string]any{"id": id, "ended": true, "batch": c.questions[0].entry.Batch} // the batch closes each question's notification
	if req != nil {
		r := []rune(firstLine(req.Question))
		msg = map[string]any{"id": id, "text": string(r[:min(len(r), 100)]), "agent": cmp.Or(req.Agent, &Agent{}).Name}
	}
	plain, _ := json.Marshal(msg)
	for _, s := range p.Subs {
		if *s.sending < 8 || req == nil && slices.Contains(c.pushed, s.sending) { // an opening's ending always goes
			*s.sending++
			c.pushed = append(c.pushed, s.sending) // for its ending, when this is its opening
			prev, done := *s.last, make(chan struct{})
			*s.last = done
			go func() {
				if prev != nil {
					<-prev // one message at a time to a subscription, in order
				}
				b.send(s, pushRequest(s, plain, p, b.PushContact, id, time.Now()))
				close(done)
			}()
		}
	}
}

// send sends req to s, and drops s when its push service says it is gone.
func (b *Inbox) send(s pushSub, req *http.Request) {
	resp, err := pushClient.Do(req)
	b.mu.Lock()
	defer b.mu.Unlock()
	if *s.sending--; err == nil && resp.Body.Close() == nil && (resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone) {
		b.push.Subs = slices.DeleteFunc(b.push.Subs, func(o pushSub) bool { return o.Endpoint == s.Endpoint })
	}
}

// pushRequest returns the request that sends plain to s, encrypted under a new
// key and salt, with a VAPID header of p's key and contact valid for 12 hours.
// A message of the same topic replaces it while it waits at the push service.
func pushRequest(s pushSub, plain []byte, p pusher, contact, topic string, now time.Time) *http.Request {
	u, _ := url.Parse(s.Endpoint) // add parsed it
	claims, _ := json.Marshal(struct {
		Aud string `json:"aud"`
		Exp int64  `json:"exp"`
		Sub string `json:"sub,omitempty"`
	}{u.Scheme + "://" + u.Host, now.Add(12 * time.Hour).Unix(), contact})
	token := b64.EncodeToString([]byte(`{"typ":"JWT","alg":"ES256"}`)) + "." + b64.EncodeToString(claims)
	digest := sha256.Sum256([]byte(token))
	r, sig, err := ecdsa.Sign(rand.Reader, p.key, digest[:])
	as, err2 := ecdh.P256().GenerateKey(rand.Reader)
	salt := make([]byte, 16)
	if _, err3 := rand.Read(salt); err != nil || err2 != nil || err3 != nil {
		return &http.Request{} // Do fails: no random bytes
	}
	token += "." + b64.EncodeToString(append(r.FillBytes(make([]byte, 32)), sig.FillBytes(make([]byte, 32))...))
	req, _ := http.NewRequest(http.MethodPost, s.Endpoint, bytes.NewReader(encryptPush(plain, s.ua, s.auth, salt, as)))
	req.Header = http.Header{"Content-Encoding": {"aes128gcm"}, "Content-Type": {"application/octet-stream"}, "Ttl": {"86400"}, "Topic": {topic},
		"Urgency": {"high"}, "Authorization": {"vapid t=" + token + ", k=" + b64.EncodeToString(p.pub)}}
	return req
}

// encryptPush returns plain encrypted for key ua and secret auth as RFC 8291
// says, in one record of aes128gcm (RFC 8188).
func encryptPush(plain, ua, auth, salt []byte, as *ecdh.PrivateKey) []byte {
	uaKey, _ := ecdh.P256().NewPublicKey(ua) // add checked it
	secret, _ := as.ECDH(uaKey)
	asPublic := as.PublicKey().Bytes()
	prk := hmacSHA256(salt, hmacSHA256(hmacSHA256(auth, secret), slices.Concat([]byte("WebPush: info\x00"), ua, asPublic, []byte{1})))
	block, _ := aes.NewCipher(hmacSHA256(prk, []byte("Content-Encoding: aes128gcm\x00\x01"))[:16])
	gcm, _ := cipher.NewGCM(block)
	head := append(slices.Clip(salt), 0, 0, 0x10, 0, 65) // record size 4096, and the key's length
	nonce := hmacSHA256(prk, []byte("Content-Encoding: nonce\x00\x01"))[:12]
	return gcm.Seal(append(head, asPublic...), nonce, append(slices.Clip(plain), 2), nil)
}

// ----------------------------------------------------------------------------
// Replay

// Replay is a [Provider] that answers from a record, for hosts that cannot keep
// a tool call open. Its zero value is an empty record. It is safe for
// concurrent use.
type Replay struct {
	mu      sync.Mutex         // guards the fields below
	record  map[string]outcome // by question ID
	pending []Pending          // this run's questions without an outcome
	asked   map[string]int     // this run's asks of each request, by its first ask's ID; nil before its first
	noProof string             // why an answer recorded cannot be proven, if it cannot
}

// Ask answers req from the record: a recorded error, or a recorded answer
// completed as [Registry.Ask] completes it. A question without one joins
// [Replay.Pending], and Ask returns [CodeInputRequired]. A recorded answer that
// breaks the rules of [Answer] is dropped and counted as refused, and the
// question is pending again with a Hint that says why. The third refusal is the
// outcome [CodeInvalidAnswer].
//
// The question's ID is the first 16 bytes, in lower-case hex, of the SHA-256 of
// the request's RFC 8785 canonical JSON, a newline, and the count of equal
// requests the run asked before.
func (p *Replay) Ask(ctx context.Context, req Request) (Answer, error) {
	o := p.replay(ctx, []Request{req}, false, validate(&req))
	return o[0].Answer, o[0].Err
}

// AskAll answers reqs as Ask does, up to the first recorded error. Those
// pending share the first one's ID as their Batch.
func (p *Replay) AskAll(ctx context.Context, reqs []Request) ([]Answer, error) {
	o := p.replay(ctx, reqs, true, validateAll(reqs))
	if last := o[len(o)-1]; last.Err != nil && last.Answer.Via != "" {
		o, _ = Decide(ctx, o...) // a recorded decline says where it was declined
	}
	return answersOf(o)
}

// Run runs call once, as one run of a tool call, and returns the questions left
// pending. In call's context, p is the provider of a new [Registry], whose
// Ended is that of ctx's registry. One Replay serves every run of a call, one
// run at a time.
//
// A call must reach the same questions in the same order on every run. It must
// ask before it acts: what it does before an Ask happens again on every run.
func (p *Replay) Run(ctx context.Context, call func(ctx context.Context)) []Pending {
	p.mu.Lock()
	p.pending, p.asked = nil, nil // a new run
	p.mu.Unlock()
	runWith(ctx, p, call)
	return p.Pending()
}

// Pending returns the questions this run asked without a recorded outcome, in
// order, sharing no memory with p. After [OpenReplay] they are those of the
// sealed state, until the next run starts.
func (p *Replay) Pending() []Pending {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Pending, len(p.pending))
	for i, q := range p.pending {
		out[i] = q.clone()
	}
	return out
}

// outcome is what the record holds: an answer, an error, or a refusal, which has a hint.
type outcome struct {
	answer  Answer        // beside an error, only its Via
	err     *HarnessError // never with a cause
	refused int           // responses refused so far
	hint    string        // why the last one was refused
	audited bool          // a run's registry audited it
}

// Record records the outcome of question id: err, with ans's Via, or else ans.
// An error is kept as its {name, code, message}, an uncoded one as
// [CodeProviderFailed]. [CodeInputRequired] records nothing. Record replaces an
// earlier outcome of id. The next run checks ans, as [Replay.Ask] says. id need
// not be pending. One that is not valid UTF-8 is ignored.
func (p *Replay) Record(id string, ans Answer, err error) {
	o := outcome{answer: ans.clone()}
	if err != nil {
		o = outcome{answer: Answer{Via: ans.Via}, err: codedError(err)}
	}
	o.answer.Via = cleanVia(o.answer.Via)
	if !utf8.ValidString(id) || (o.err != nil && o.err.Code == CodeInputRequired) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.record == nil {
		p.record = make(map[string]outcome)
	}
	if o.err == nil {
		o.refused = p.record[id].refused // an answer keeps the count
	}
	p.record[id] = o
}

// replay answers reqs from the record, unless invalid, and tells ctx's registry
// which were audited before.
func (p *Replay) replay(ctx context.Context, reqs []Request, batched bool, invalid error) []Outcome {
	if err := cmp.Or(invalid, unproven(p.noProof, reqs...)); err != nil {
		return []Outcome{{Err: err}}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var given []Outcome  // before the first question without one
	var missing []string // the IDs of questions without one
	var batch string
asks:
	for i := range reqs {
		id := p.id(&reqs[i])
		if batched && i == 0 {
			batch = id
		}
		switch o, answered, hint := p.outcome(id, &reqs[i]); {
		case !answered:
			missing = append(missing, id)
			q := Pending{ID: id, Request: reqs[i].clone(), Batch: batch, Hint: hint}
			if batched {
				q.Index, q.Count = i, len(reqs)
			}
			p.pending = append(p.pending, q)
		case len(missing) == 0:
			entry := p.record[id]
			for j := i; entry.audited && j < len(reqs) && (j == i || o.Err != nil); j++ {
				auditedAlready(ctx, j) // an error stands for those after it
			}
			entry.audited = true
			p.record[id] = entry
			if given = append(given, o); o.Err != nil {
				return given
			}
		case o.Err != nil:
			break asks // the human's outcome ends the batch
		}
	}
	if len(missing) > 0 {
		given = append(given, Outcome{Err: NewError(CodeInputRequired, fmt.Sprintf("input required: no recorded answer to %d of "+
			"the questions, the first %s; the host asks the human and runs the call again", len(missing), missing[0]), nil)})
	}
	return given
}

// outcome returns the recorded outcome of id, or a refusal's hint, as
// [Replay.Ask] says: completed, or a broken answer counted as refused.
func (p *Replay) outcome(id string, req *Request) (o Outcome, answered bool, hint string) {
	r, ok := p.record[id]
	switch {
	case r.err != nil:
		return Outcome{Answer: r.answer, Err: r.err.asError()}, true, ""
	case !ok || r.hint != "": // none, or a refusal's hint
		return Outcome{}, false, r.hint
	}
	ans, broken := resolve(req, r.answer)
	if broken == nil {
		return Outcome{Answer: ans}, true, ""
	}
	if r.refused+1 >= maxForms {
		err := invalidAnswer(fmt.Sprintf("%s (the last of %d refused responses)", broken.why, maxForms))
		p.record[id] = outcome{err: codedError(err)}
		return Outcome{Err: err}, true, ""
	}
	p.record[id] = outcome{refused: r.refused + 1, hint: broken.hint}
	return Outcome{}, false, broken.hint
}

// id returns the ID of one more ask of req in this run.
func (p *Replay) id(req *Request) string {
	canonical := appendCanonical(nil, req)
	first := questionID(canonical, 0) // its key in p.asked
	if p.asked == nil {
		p.asked, p.pending = make(map[string]int), nil // a run's first ask: no sealed question stands
	}
	n := p.asked[first]
	p.asked[first] = n + 1
	if n == 0 {
		return first
	}
	return questionID(canonical, n)
}

func questionID(canonical []byte, n int) string {
	sum := sha256.Sum256(strconv.AppendInt(append(canonical, '\n'), int64(n), 10))
	return hex.EncodeToString(sum[:16])
}

// ----------------------------------------------------------------------------
// Replay: sealed state

// Seal returns p's record and pending IDs as state for a trip through a client,
// such as MCP's requestState. The state is base64url with one '.',
// authenticated with HMAC-SHA256 under key. It expires after ttl, rounded up to
// the millisecond. It is sealed, not encrypted: the client can read its
// answers. A key under 32 bytes is an uncoded error.
//
// binding identifies the call, the same in every round: the principal, the
// tool's name, and the arguments decoded and encoded again with json.Marshal.
// Only its digest is stored.
func (p *Replay) Seal(key []byte, binding string, ttl time.Duration) (string, error) {
	if len(key) < minKey {
		return "", errShortKey
	}
	p.mu.Lock() // one lock, so that the record and pending IDs agree
	s := sealed[map[string]any]{Version: sealVersion, Expires: expiry(time.Now(), ttl), Binding: digest(binding), Record: p.entriesLocked()}
	for i := range p.pending {
		s.Pending = append(s.Pending, p.pending[i].ID)
	}
	p.mu.Unlock()
	payload, _ := json.Marshal(s) // of strings, numbers and bools: it cannot fail
	return stateEncoding.EncodeToString(payload) + "." + stateEncoding.EncodeToString(mac(key, payload)), nil
}

// OpenReplay returns the Replay that [Replay.Seal] sealed in state under key,
// for binding. An empty state is the first round: an empty Replay.
//
// State tampered with, expired, malformed, or sealed for another binding or key
// is [CodeInvalidState]. Its message tells the model to call the tool again,
// and its cause tells the host why. Only Seal's spelling is valid: a line break
// or padding is malformed. A key under 32 bytes is an uncoded error, even for
// an empty state.
func OpenReplay(key []byte, binding, state string) (*Replay, error) {
	data, sum, dotted := strings.Cut(state, ".")
	payload, err1 := stateEncoding.DecodeString(data)
	got, err2 := stateEncoding.DecodeString(sum)
	switch {
	case len(key) < minKey:
		return nil, errShortKey
	case state == "":
		return &Replay{}, nil
	case !dotted || err1 != nil || err2 != nil || strings.ContainsAny(state, "\r\n"): // line breaks, which Strict skips
		return nil, invalidState(errors.New("malformed state"))
	case !hmac.Equal(got, mac(key, payload)):
		return nil, invalidState(errors.New("state tampered with or sealed under another key"))
	}
	var s sealed[map[string]entry]
	err := json.Unmarshal(payload, &s)
	switch {
	case errors.As(err, new(*json.SyntaxError)) || err == nil && s.Version != sealVersion:
		return nil, invalidState(errors.New("malformed state"))
	case s.Binding != digest(binding):
		return nil, invalidState(errors.New("state sealed for another call"))
	case time.Now().UnixMilli() > s.Expires:
		return nil, invalidState(errors.New("state expired"))
	}
	record, err := readRecord(payload, 1, s.Record, err)
	if err != nil {
		return nil, invalidState(err)
	}
	rp := &Replay{record: record, pending: make([]Pending, len(s.Pending))}
	for i, id := range s.Pending {
		rp.pending[i] = Pending{ID: id, Hint: record[id].hint} // a refusal's hint
	}
	return rp, nil
}

// Round runs one round of call for a host whose client answers in its next
// call, such as an MCP server on protocol 2026-07-28. It opens state ("" at
// first) as [OpenReplay], records responses (question ID to {"action",
// "content"}, as JSON or a value that marshals to it) with Via via, runs call,
// and seals what is left for ten minutes. An unreadable response is
// [CodeInvalidAnswer]. It returns the forms left, by ID, and their state; none
// once call is done. On OpenReplay's error call does not run. Round is safe for
// concurrent use.
func Round(ctx context.Context, key []byte, binding, state string, responses any, via string, call func(ctx context.Context)) (forms map[string]Elicitation, next string, err error) {
	rp, err := OpenReplay(key, binding, state)
	if err != nil {
		return nil, "", err
	}
	rp.noProof = "an MCP client cannot carry one in this revision"
	raw, _ := json.Marshal(responses) // one that fails is none
	var byID map[string]json.RawMessage
	_ = json.Unmarshal(raw, &byID)   // not an object: none
	for _, q := range rp.Pending() { // only those asked
		if r, ok := byID[q.ID]; ok {
			var res struct {
				Action  string         `json:"action"`
				Content map[string]any `json:"content"`
			}
			if json.Unmarshal(r, &res) != nil {
				res.Action = "" // unread: INVALID_ANSWER
			}
			ans, err := ElicitationAnswer(res.Action, res.Content)
			ans.Via = via
			rp.Record(q.ID, ans, err)
		}
	}
	left := rp.Run(ctx, call)
	if len(left) == 0 {
		return nil, "", nil
	}
	next, _ = rp.Seal(key, binding, 10*time.Minute) // OpenReplay checked the key
	forms = make(map[string]Elicitation, len(left))
	for _, q := range left {
		forms[q.ID] = q.Elicitation() // led by its Hint
	}
	return forms, next, nil
}

// sealed is the payload of sealed state, read and written in one pass.
type sealed[Record any] struct {
	Version int      `json:"v"`
	Expires int64    `json:"exp"`  // Unix milliseconds, see expiry
	Binding string   `json:"bind"` // digest of the binding
	Record  Record   `json:"record"`
	Pending []string `json:"pending,omitempty"`
}

const (
	sealVersion = 4  // 2: mac; 3: refusals; 4: pending IDs, Via
	minKey      = 32 // bytes of a sealing key, at least
)

// stateEncoding, Strict, refuses unused bits that are not zero, padding and
// bytes outside base64url: a state has one spelling, as OpenReplay says.
var stateEncoding = base64.RawURLEncoding.Strict()

// expiry returns the Unix millisecond after which state sealed at now expires.
func expiry(now time.Time, ttl time.Duration) int64 {
	end := now.Add(ttl)
	if ttl <= 0 {
		return end.UnixMilli() - 1
	}
	return end.Add(time.Millisecond - 1).UnixMilli()
}

// errShortKey is uncoded: it is the host's error, not the client's.
var errShortKey = errors.New("userinteraction: the sealing key is shorter than 32 bytes")

// mac returns the HMAC-SHA256 of payload under a key derived from key: raw HMAC
// pads a short key with zeros, so K and K+"\x00" would open each other's state.
func mac(key, payload []byte) []byte {
	derived := sha256.Sum256(append([]byte("userinteraction seal\n"), key...))
	return hmacSHA256(derived[:], payload)
}

func digest(binding string) string {
	sum := sha256.Sum256([]byte(binding))
	return hex.EncodeToString(sum[:])
}

// ----------------------------------------------------------------------------
// Replay: the record's JSON

// MarshalJSON encodes the record as a JSON object from question IDs to
// outcomes: an [Answer]'s JSON, a [HarnessError]'s with "via", or {"refused",
// "hint"}. An outcome may add "refused" and "audited".
func (p *Replay) MarshalJSON() ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return json.Marshal(p.entriesLocked())
}

// entriesLocked returns the record's JSON values.
func (p *Replay) entriesLocked() map[string]any {
	entries := make(map[string]any, len(p.record))
	for id, o := range p.record {
		switch {
		case o.err != nil:
			entries[id] = struct {
				*HarnessError
				Via     string `json:"via,omitempty"`
				Audited bool   `json:"audited,omitempty"`
			}{o.err, o.answer.Via, o.audited}
		case o.hint != "":
			entries[id] = struct {
				Refused int    `json:"refused"`
				Hint    string `json:"hint"`
			}{o.refused, o.hint}
		default:
			entries[id] = struct {
				Answer
				Refused int  `json:"refused,omitempty"`
				Audited bool `json:"audited,omitempty"`
			}{o.answer, o.refused, o.audited}
		}
	}
	return entries
}

// UnmarshalJSON replaces the record with the one data encodes, before a run's
// first Ask. It reads strictly: each key as written and once, none unknown, and
// valid UTF-8 without escaped lone surrogates. On an error p is unchanged.
func (p *Replay) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var entries map[string]entry
	err := json.Unmarshal(data, &entries)
	if errors.As(err, new(*json.SyntaxError)) {
		return fmt.Errorf("userinteraction: Replay record: %w", err)
	}
	record, err := readRecord(data, 0, entries, err)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.record = record
	return nil
}

// entry is an outcome of any kind in a record's JSON.
type entry struct {
	Answer  string          `json:"answer"`
	Option  *Option         `json:"option"`
	Options []*Option       `json:"options"`
	Via     string          `json:"via"`
	Refused json.RawMessage `json:"refused"` // raw: a whole number, not null or "1"
	Audited bool            `json:"audited"`
	Hint    string          `json:"hint"`
	Name    string          `json:"name"`
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Proof   *Receipt        `json:"proof"`
}

// The keys of an outcome, a bit each in its kinds' sets, and those of an option.
var (
	outcomeKeys = []string{"answer", "option", "options", "via", "refused", "audited", "hint", "name", "code", "message", "proof"}
	optionKeys  = []string{"label", "value", "description", "recommended"}
	receiptKeys = []string{"credential", "signed", "clientData", "authenticatorData", "signature"}
)

const (
	answerKeys  = 0b10000111111
	errorKeys   = 0b1110101000
	refusalKeys = 0b0001010000
)

// readRecord returns the record of entries, decoded from data. Keys are checked
// first: encoding/json reads "Answer" as "answer" and lets the last of two win.
func readRecord(data []byte, depth int, entries map[string]entry, err error) (map[string]outcome, error) {
	keys, kerr := recordKeys(data, depth)
	if err = errors.Join(kerr, err); err != nil {
		return nil, fmt.Errorf("userinteraction: Replay record: %w", err)
	}
	record := make(map[string]outcome, len(entries))
	for id, e := range entries {
		o, err := e.outcome(keys[id])
		if err != nil {
			return nil, fmt.Errorf("userinteraction: Replay record: entry %s: %w", quote(id), err)
		}
		if o.err == nil || o.err.Code != CodeInputRequired {
			record[id] = o
		}
	}
	return record, nil
}

// outcome returns the outcome e is, with only its kind's keys.
func (e *entry) outcome(has uint16) (outcome, error) {
	kind := uint16(refusalKeys)
	switch {
	case has&1 != 0: // "answer"
		kind = answerKeys
	case has&(1<<8) != 0: // "code"
		kind = errorKeys
	case has&(1<<4) == 0:
		return outcome{}, errors.New(`an outcome has either an "answer", a "code" or a "refused" count`)
	}
	if extra := has &^ kind; extra != 0 {
		return outcome{}, fmt.Errorf("unknown key %s", quote(outcomeKeys[bits.TrailingZeros16(extra)]))
	}
	o := outcome{answer: Answer{Text: e.Answer, Option: e.Option, Via: cleanVia(e.Via), Proof: e.Proof}, audited: e.Audited, hint: e.Hint}
	for _, opt := range e.Options {
		if opt == nil {
			return outcome{}, errors.New("option: want a JSON object, not null")
		}
		o.answer.Options = append(o.answer.Options, *opt)
	}
	if has&(1<<4) != 0 { // "refused"
		n, err := strconv.Atoi(string(e.Refused))
		if err != nil || n < 1 || n >= maxForms {
			return outcome{}, fmt.Errorf(`"refused" is %s, not a whole number from 1 to %d`, e.Refused, maxForms-1)
		}
		o.refused = n
	}
	switch {
	case kind == errorKeys && e.Code == "":
		return outcome{}, errors.New(`an outcome's "code" is empty`)
	case kind == errorKeys:
		o.answer, o.err = Answer{Via: o.answer.Via}, &HarnessError{Name: e.Name, Code: e.Code, Message: e.Message}
	case kind == refusalKeys && e.Hint == "":
		return outcome{}, errors.New(`a refusal's "hint" is empty`)
	}
	return o, nil
}

// recordKeys checks data's keys and returns each outcome's. An escaped lone
// surrogate is refused: Go reads it as U+FFFD, JavaScript keeps it.
func recordKeys(data []byte, depth int) (map[string]uint16, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("a string is not valid UTF-8")
	}
	var open []byte     // the open '{' and '['
	var option []string // the keys of the option or receipt being read
	keys := map[string]uint16{}
	id, field := "", "" // the outcome being read, and its key being read
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{', '[':
			open, option = append(open, data[i]), option[:0]
		case '}', ']':
			open = open[:len(open)-1]
		case '"':
			start := i
			end, plain, err := stringEnd(data, i)
			if err != nil {
				return nil, err
			}
			i = end - 1 // the loop's i++ comes to the byte after the string
			if after := bytes.TrimLeft(data[end:], " \t\r\n"); len(after) == 0 || after[0] != ':' {
				continue // a value, not a key
			}
			key := string(data[start+1 : i])
			if !plain {
				_ = json.Unmarshal(data[start:i+1], &key) // valid JSON: cannot fail
			}
			in := len(open) - 1 - depth // 0 the record, 1 an outcome, 2 or 3 an option
			k := slices.Index(outcomeKeys, key)
			bit := uint16(1) << max(k, 0)
			_, seen := keys[key]
			isOption, known := in == 2 || in == 3 && open[len(open)-2] == '[', optionKeys
			if field == "proof" {
				known = receiptKeys
			}
			switch {
			case in == 1 && k < 0, isOption && !slices.Contains(known, key):
				return nil, fmt.Errorf("%sunknown key %s", entryOf(in, id), quote(key))
			case in == 0 && seen, in == 1 && keys[id]&bit != 0, isOption && slices.Contains(option, key):
				return nil, fmt.Errorf("%sduplicate key %s", entryOf(in, id), quote(key))
			case in == 0:
				id, keys[key] = key, 0
			case in == 1:
				keys[id], field = keys[id]|bit, key
			case isOption:
				option = append(option, key)
			}
		}
	}
	return keys, nil
}

func entryOf(in int, id string) string {
	if in == 0 {
		return ""
	}
	return "entry " + quote(id) + ": "
}

// stringEnd returns the end of the string at data[i], and whether it is unescaped.
func stringEnd(data []byte, i int) (end int, plain bool, err error) {
	escape := func(k int) uint64 { // the code unit that data[k:] escapes, or 0
		if !bytes.HasPrefix(data[k:], []byte(`\u`)) {
			return 0
		}
		c, _ := strconv.ParseUint(string(data[k+2:k+6]), 16, 16)
		return c
	}
	plain = true
	for i++; data[i] != '"'; i++ {
		if data[i] != '\\' {
			continue
		}
		plain = false
		switch c := escape(i); {
		case c < 0xd800 || c > 0xdfff:
			i++ // the escaped byte
		case c < 0xdc00 && escape(i+6) >= 0xdc00 && escape(i+6) <= 0xdfff:
			i += 11 // a pair
		default:
			return 0, false, fmt.Errorf("a string holds a lone surrogate %s", data[i:i+6])
		}
	}
	return i + 1, plain, nil
}

// ----------------------------------------------------------------------------
// FirstOf

// FirstOf returns a [BatchProvider] that asks all of providers at once, and
// takes the first answer or decline. It returns nil when providers is empty or
// holds a nil one.
func FirstOf(providers ...Provider) Provider {
	if len(providers) == 0 || slices.ContainsFunc(providers, isNilProvider) {
		return nil
	}
	return &firstOf{providers: slices.Clone(providers)}
}

type firstOf struct {
	providers []Provider // at least one, none nil
}

// Ask asks req of every provider at once. The first valid answer or
// [CodeAskDeclined] wins ([Decide]), and the other providers are withdrawn:
// [EndedElsewhere] of their ctx reports the winner's outcome. Any other outcome
// drops its provider out. When all have, the first provider's outcome is
// returned. When ctx ends first, Ask returns ctx.Err().
//
// Ask returns once every provider returned, and then raises a provider's panic
// again. A [Replay] has no place among providers: it never waits.
func (f *firstOf) Ask(ctx context.Context, req Request) (Answer, error) {
	o := f.race(ctx, []Request{req}, -1, req.Validate())
	return o[0].Answer, o[0].Err
}

// AskAll races whole batches, as Ask races questions, so all answers come from
// one UI. It asks a provider that is no BatchProvider a question at a time,
// each decided as its own: such a UI is not told when another wins the batch
// after it answered, so a UI that tells its human is a BatchProvider.
func (f *firstOf) AskAll(ctx context.Context, reqs []Request) ([]Answer, error) {
	return answersOf(f.race(ctx, reqs, 0, validateAll(reqs)))
}

// race asks reqs, unless invalid, of every provider at once, and returns the
// decided outcomes once all returned. first is -1 for an Ask and 0 for an AskAll.
func (f *firstOf) race(ctx context.Context, reqs []Request, first int, invalid error) []Outcome {
	if err := cmp.Or(invalid, ctxErr(ctx)); err != nil {
		return []Outcome{{Err: err}}
	}
	all, withdrawAll := context.WithCancelCause(ctx)
	defer withdrawAll(nil)
	n := len(f.providers)
	d := &decision{up: seatOf(ctx), reqs: reqs, first: first, over: ctx, members: make([]context.CancelCauseFunc, n), turn: make(chan struct{}, 1)}
	seats, ctxs, outs := make([]seat, n), make([]context.Context, n), make([][]Outcome, n)
	for i := range f.providers {
		seats[i] = seat{d, i}
		ctxs[i], d.members[i] = context.WithCancelCause(withSeat(all, &seats[i]))
	}
	returned := make(chan called[int], n) // buffered: no member waits to report
	for i, p := range f.providers {
		goCall(returned, i, func() int { outs[i] = askMember(ctxs[i], p, reqs, first); return i })
	}
	var panicked any // the first provider's panic
	for range f.providers {
		c := <-returned
		i := c.value
		d.members[i](nil) // its context is done with
		switch {
		case c.panicked != nil && panicked == nil:
			panicked = c.panicked
			withdrawAll(errors.New("another UI panicked"))
		case panicked == nil && wins(outs[i]): // answers, checked by offer, or a decline
			// Refused once another won, ctx ended or a rule broke. Not kept, it
			// is this provider's error: the tool never gets an unkept answer.
			if _, _, err := seats[i].offer(outs[i]); CodeOf(err) == CodeNotKept {
				outs[i] = []Outcome{{Err: err}}
			}
		}
	}
	switch o, _ := d.settle(nil); { // once an outcome on its way is decided
	case panicked != nil:
		panic(panicked) // even after a win
	case o != nil:
		return o
	case ctx.Err() != nil:
		return []Outcome{{Err: ctx.Err()}}
	case wins(outs[0]): // an answer that broke a rule
		return checked(reqs, outs[0], first)
	case outs[0] == nil: // the first provider stopped its goroutine
		return []Outcome{{Err: errStopped}}
	}
	return outs[0]
}

// askMember asks p reqs, in one call when it can, else each decided on its own.
func askMember(ctx context.Context, p Provider, reqs []Request, first int) []Outcome {
	if bp, ok := p.(BatchProvider); ok && first == 0 && ctx.Err() == nil {
		return outcomesOf(bp.AskAll(ctx, reqs))
	}
	var o []Outcome
	for i := range reqs {
		if err := ctx.Err(); err != nil {
			return append(o, Outcome{Err: err}) // withdrawn already
		}
		qctx := ctx
		if first == 0 { // a Decide of one question decides no batch
			d := &decision{reqs: reqs[i : i+1], first: i, over: ctx, turn: make(chan struct{}, 1)}
			d.home.d = d
			qctx = withSeat(ctx, &d.home)
		}
		ans, err := p.Ask(qctx, reqs[i])
		if err != nil {
			return append(o, Outcome{Answer: Answer{Via: ans.Via}, Err: err})
		}
		if o = append(o, checked(reqs[i:i+1], []Outcome{{Answer: ans}}, i)...); o[len(o)-1].Err != nil {
			return o // as the registry's batch would
		}
	}
	return o
}

// ----------------------------------------------------------------------------
// Inbox: the web page

// pageCSP allows the page's own script and style, by hash, and its origin.
func pageCSP() string {
	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	return "default-src 'none'; script-src " + hash(pageScript) + "; style-src " + hash(pageStyle) +
		"; connect-src 'self'; worker-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

// workerScript is the page's service worker: it shows a push's question unless a page is in view, closes its
// notifications (a batch's, each question's) when it ends, and on a click focuses or opens the page (with the
// token of its own URL's query, as the event stream's), telling it the question.
const workerScript = `"use strict";
const t = s => s; // the worker's words; a table of them replaces it
const cut = s => typeof s === "string" ? Array.from(s).slice(0, 100).join("") : "";
const pages = () => clients.matchAll({type: "window", includeUncontrolled: true}).then(cs => cs.filter(c => c.url.startsWith(registration.scope)));
addEventListener("push", e => {
  let m = null;
  try { m = e.data.json(); } catch (_) {}
  if (!m || typeof m.id !== "string") return;
  e.waitUntil(m.ended === true ? registration.getNotifications().then(ns => ns.forEach(n => (n.tag === m.id || m.batch && (n.data || {}).batch === m.batch) && n.close())) :
    pages().then(ps => ps.some(p => p.visibilityState === "visible") || registration.showNotification(cut(m.text) || t("A question waits"),
      {body: cut(m.agent) || t("From your agent"), tag: m.id, data: {id: m.id}})));
});
addEventListener("notificationclick", e => {
  const id = String((e.notification.data || {}).id);
  e.notification.close();
  e.waitUntil(pages().then(ps => ps.length ? (ps[0].postMessage({id}), ps[0].focus()) :
    clients.openWindow(registration.scope + "#" + location.search.slice(1)).then(c => c && c.postMessage({id}))));
});
`

// inboxPage is the static page of [Inbox.Handler], without the tags HTML
// implies (head, body). The token is in the URL's fragment, which never
// reaches a server or its log.
const inboxPage = `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Questions</title>
<style>` + pageStyle + `</style>
<main>
<h1 data-key="Questions from your agent">Questions from your agent</h1>
<p id="status" role="status">Connecting…</p>
<div id="questions"></div>
<section id="ended" hidden><h2 data-key="Closed">Closed</h2></section>
</main>
<script>` + pageScript + `</script>
`

// pageStyle is the page's style sheet. The model's text sits in scrolling frames (.text, .said) outside
// every clickable area, so that it can draw no row of the page's own. A card is contained: a change lays
// out and paints its card alone (at the largest valid batch, on screen in 10 to 50 ms, not 230 to 620).
const pageStyle = `
:root { color-scheme: light dark; font: 16px/1.45 system-ui, sans-serif; --mark: #2f5fb3; }
body { margin: 0; }
main { max-width: 40rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.25rem; margin: 0; }
h2 { font-size: 1rem; margin: 1.5rem 0 .5rem; }
#status { margin: .25rem 0 1rem; } #notify, #passkey { margin: 0 .75rem 1rem 0; }
.batch { border-left: 4px solid #4a78c2; padding-left: .75rem; }
form { border: 1px solid #8888; border-radius: .5rem; padding: .75rem 1rem; margin: 0 0 1rem; contain: content; }
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
.note, .why { font-weight: 600; margin: .5rem 0 0; overflow-wrap: anywhere; }
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
let token = "", source = null, retry = 0, still = 0, off = false, stopped = false, words = {}; // off: the host is out of reach; still: until when a click may be held (600 ms after the last move), which the browser scenarios wait for

function t(key, ...args) { // the host's words for this page's language if they have key's verbs (as Words.say), else the English key
  const word = Object.hasOwn(words, key) && words[key] || key, verbs = s => String(s.match(/%./g));
  let i = 0;
  return (verbs(word) === verbs(key) ? word : key).replace(/%[ds]/g, v => i < args.length ? args[i++] : v);
}
function tn(key, node) { const [a, b] = t(key, "\0").split("\0"); return [a, node, b]; } // a framed text in a sentence
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text) e.textContent = text, e.dir = "auto"; // each text in its own direction, apart from its neighbours: Hebrew and Arabic read right to left
  return e;
}

// render reconciles the whole list, which the stream sends as the tab connects; then each event draws what changed.
function render(list) {
  const open = new Set(list.map(q => q.id));
  notice(w => w.getNotifications().then(ns => ns.forEach(n => open.has(n.tag) || n.close()))); // closed while no page was
  for (const card of cards.values()) if (!open.has(card.id)) end(card, null); else card.form.querySelector(".why").textContent = ""; // no "ended" event told of it; or open again
  for (const q of list) update(q);
  count(cards.size);
}
function update(q) { // a question that opened, or whose hint changed
  const card = cards.get(q.id) || show(q);
  if (q.hint && !card.sending) refuse(card, t(q.hint)); // a hint that is a key, in this page's language
}
function count(n) {
  statusLine.textContent = n === 0 ? t("No open questions.") : n === 1 ? t("1 open question.") : t("%d open questions.", n);
  document.title = (n > 0 ? "(" + n + ") " : "") + t("Questions");
}
function show(q) {
  const r = q.request, opts = r.options || [], multi = !!r.multiSelect && opts.length > 0;
  const form = el("form"), body = el("div"), meta = el("p", "meta");
  const parent = !q.batch ? box : groups.get(q.batch) || box.appendChild(groups.set(q.batch, el("section", "batch")).get(q.batch));
  if (q.count > 1) meta.append(el("span", "place", t("Question %d of %d", (q.index || 0) + 1, q.count)), " ");
  if (r.agent) meta.append(...tn("From %s", said([r.agent.name, r.agent.id].filter(Boolean).join(", "))), " ");
  if (q.deadline) meta.append(el("span", "deadline")), meta.lastChild.dataset.deadline = q.deadline, countdown(meta.lastChild);
  if (meta.childNodes.length > 0) body.append(meta);
  if (r.header) body.append(el("div", "text header", r.header));
  body.append(Object.assign(el("div", "text question", r.question), {id: "q-" + q.id}));
  form.setAttribute("aria-labelledby", "q-" + q.id);
  if (opts.length > 0) {
    const set = el("fieldset");
    set.append(el("legend", "", multi ? t("Pick one or more:") : t("Pick one:")));
    for (const o of opts) {
      const row = el("div", "option"), label = el("label", "pick"), input = el("input");
      Object.assign(input, {type: multi ? "checkbox" : "radio", name: "choice", value: o.label, checked: !!o.recommended});
      label.append(input, el("span", "label", o.label.replace(/\s+/g, " "))); // a run of spaces cannot push text to a row of its own
      if (o.recommended) label.append(el("span", "badge", t("Recommended")));
      row.append(label);
      if (o.description) row.append(el("div", "text desc", o.description)); // outside the label: a click on it ticks nothing
      set.append(row);
    }
    body.append(set);
  }
  let own = null;
  if (opts.length === 0 || r.allowCustom !== false) {
    const label = el("label", "own", opts.length > 0 ? t("Or your own answer:") : t("Your answer:"));
    own = Object.assign(el("input"), {type: "text", autocomplete: "off", dir: "auto"});
    label.append(own);
    body.append(label);
    if (opts.length > 0 && !multi) { // own words and a pick exclude each other, so the human sees what is sent
      own.addEventListener("input", () => { for (const i of picks(form, false)) i.checked = false; });
      for (const i of picks(form, false)) i.addEventListener("change", () => { own.value = ""; });
    }
  }
  const note = el("p", "note"), buttons = el("div", "buttons");
  if (note.setAttribute("role", "alert"), r.requireProof) body.append(el("p", "meta", t("Your passkey signs this answer.")));
  const submit = el("button", "", t("Send answer")), decline = el("button", "", t("Decline to answer")), dismiss = el("button", "", t("Dismiss here"));
  submit.type = "submit", decline.type = dismiss.type = "button";
  buttons.append(submit, decline, dismiss);
  body.append(buttons, note); // a refusal moves none of the question's own controls
  form.append(el("p", "why"), body);
  const card = {id: q.id, form, body, note, batch: q.batch, index: q.index || 0, count: q.count || 0, sent: "", answer: null, sending: false, left: undefined, request: r};
  submit.addEventListener("click", e => { // not the form's submission, which looks at every form of the page
    e.preventDefault();
    const content = {}, chosen = picks(form, true).map(i => i.value);
    if (multi) content.choice = chosen; else if (chosen.length > 0) content.choice = chosen[0];
    if (own && own.value.trim() !== "") content.text = own.value;
    send(card, {action: "accept", content});
  });
  decline.addEventListener("click", () => send(card, {action: "decline"}));
  dismiss.addEventListener("click", () => send(card, {action: "cancel"}));
  cards.set(q.id, card), form.born = changes; // a control drawn after a move did not move
  parent.append(form), moved(place(form, true));
  if (q.id === wanted) reach(q.id);
  if (document.hidden) notice(w => w.showNotification(Array.from(r.question.trim().split("\n")[0]).slice(0, 100).join("") || t("A question waits"), {body: r.agent && r.agent.name || t("From your agent"), tag: q.id, data: {id: q.id, batch: q.batch}}));
  return card;
}
function picks(form, checked) { return Array.from(form.querySelectorAll("input[name=choice]" + (checked ? ":checked" : ""))); }

// end shows how a question ended: m is the stream's "ended" event (its outcome, and the sentence that says it
// in this page's language), or null when the Inbox no longer knows. Its controls show what was answered (what
// this page sent), and the card moves below the open ones, collapsed.
function end(card, m) {
  if (cards.delete(card.id)) count(cards.size), notice(w => w.getNotifications({tag: card.id}).then(ns => ns.forEach(n => n.close())));
  if (card.sending) return void (card.left = m || card.left || null); // the POST's response comes first
  if (card.over) return;
  card.over = true, moved(place(card.form, false));
  const group = card.form.parentElement;
  card.form.remove();
  if (group !== box && group.childElementCount === 0) group.remove(), groups.delete(card.batch);
  const [why, shown] = describe(card, m);
  for (const i of picks(card.form, false)) i.checked = !!shown && shown.labels.includes(i.value);
  const own = card.form.querySelector("input[type=text]");
  if (own) own.value = shown ? shown.words : "";
  for (const c of card.form.querySelectorAll("input, button")) c.disabled = true;
  for (const e of card.form.querySelectorAll(".buttons, .deadline")) e.remove();
  card.form.querySelector(".why").replaceChildren(...why);
  const more = el("details"), gist = el("p", "text gist", card.form.querySelector(".question").textContent.trim().split("\n")[0]);
  more.append(el("summary", "", t("Show the question")), card.body);
  card.form.append(card.note, gist, more); // the note stays in view: too late, not used
  closed.hidden = false;
  closed.insertBefore(card.form, closed.children[1] || null);
  if (closed.childElementCount > 51) closed.lastElementChild.remove(); // the last 50
  const note = unused(card, m && m.outcome); // this card's answer too, when sent here
  if (note) for (const other of closed.querySelectorAll("form[data-batch]")) if (other.dataset.batch === card.batch) other.querySelector(".note").textContent = note;
}
function unused(card, o) { // the note of the answers sent here for a batch that another UI ended with o, or null
  if (!card.batch || sentIn.has(card.batch) || !o || (o.answer ? ["page", "inbox"].includes(o.answer.via) : o.error.code !== "ASK_DECLINED")) return null;
  return o.answer ? t("Not used: the batch was answered %s.", t({terminal: "in the terminal", form: "in the form"}[o.answer.via] || "elsewhere")) : t("Not used: the batch was declined.");
}
// describe returns the line that says how a question ended, and the answer its controls show, if any:
// an answer sent here as it was sent, whichever outcome the stream tells.
function describe(card, m) {
  const o = m && m.outcome, code = o && o.error && o.error.code, mine = card.sent || sentIn.get(card.batch);
  if (card.answer) return [tn("You answered: %s", said(spoken(card.answer))), card.answer];
  if (!o) return [[t("This question is no longer open.")], null];
  if (code === "ASK_DECLINED" && mine === "decline") return [[t("You declined to answer.")], null];
  if (code === "ASK_CANCELLED" && mine === "cancel") return [[t("Dismissed here. If the agent asked on another screen too, the question is still open there.")], null];
  return [[m.said], o.answer ? answerOf(o.answer) : null];
}
function said(text) {
  text = text.replace(/\s+/g, " ").replace(/(\p{M}{4})\p{M}+/gu, "$1"); // a remote client's words: as few marks as Validate allows
  return el("span", "said", text.length > 200 ? text.slice(0, 200) + "…" : text);
}
function answerOf(a) { // the labels picked and the own words of an answer, as a card keeps what it sent
  const chosen = a.options || (a.option ? [a.option] : []), join = chosen.map(o => o.value || o.label).join(", ");
  return {labels: chosen.map(o => o.label), words: chosen.length === 0 ? a.answer : a.answer.startsWith(join + ", ") ? a.answer.slice(join.length + 2) : ""};
}
function spoken(answer) { return answer.labels.concat(answer.words ? [answer.words] : []).join(", "); } // as the human saw it
async function send(card, body) {
  if (card.sending || card.sent) return; // one answer at a time: a second Enter sends nothing
  card.sending = true, say(card.note, "", "");
  let res = null, refusal = {}, signed = body.action !== "accept" || !card.request.requireProof; // a decline or a dismissal needs no passkey
  try {
    if (!signed) body.proof = await prove(card.id, card.request, body.content), signed = true;
    res = await fetch("questions/" + encodeURIComponent(card.id), {method: "POST", headers: headers(), body: JSON.stringify(body)});
    if (res.status !== 204) refusal = await res.json().catch(() => ({}));
  } catch (e) {} // not sent: res stays null
  card.sending = false;
  if (!signed || res === null) refuse(card, signed ? t("Not sent: the connection is lost. Try again.") : t("Not sent: your passkey did not sign. Try again, or add a passkey."));
  else if (res.status === 204) {
    card.sent = body.action;
    if (body.action === "accept") card.answer = {labels: [].concat(body.content.choice || []), words: body.content.text || ""}, card.form.dataset.batch = card.batch || "";
    else if (card.batch) sentIn.set(card.batch, body.action);
    for (const c of card.form.querySelectorAll("input, button")) c.disabled = true; // until the stream says how it ended
  } else if (res.status === 422) refuse(card, t(refusal.hint || refusal.message || "This answer was refused."));
  else if (res.status === 503) refuse(card, t(refusal.hint || "Your answer could not be kept. Send it again.")); // NOT_KEPT: still open here
  else if (res.status === 409) refuse(card, t("Too late: this question is no longer open, and your answer was not used."));
  else refuse(card, res.status === 401 ? t("This link's token is wrong: open the link the host printed.") : t("Not sent (HTTP %d). Try again.", res.status));
  if (card.left !== undefined) end(card, card.left);
}
function refuse(card, why) { say(card.note, why, " refused"); }
function say(note, text, cls) { // a note that grows or shrinks its card moves the controls below it
  const h = note.offsetHeight;
  note.className = "note" + cls, note.textContent = text;
  if (note.offsetHeight !== h) moved(place(note, true));
}
function countdown(d) {
  const s = Math.max(0, Math.round((Date.parse(d.dataset.deadline) - Date.now()) / 1000));
  d.textContent = off ? "" : s > 0 ? t("Answer within %s.", Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0")) : t("Time is up.");
}

// Notifications come through the page's service worker, as phones show them only from one: while the page is hidden,
// a question that opens shows one, closed when it ends (or, the page closed, by the next page's list); a click on one
// brings its card into view, focused (reach).
const sw = isSecureContext && "Notification" in window && navigator.serviceWorker, bell = el("button", "", t("Notify me of new questions"));
let worker = null, shown = Promise.resolve(), wanted = ""; // shown: the notifications' changes, in order; wanted: a card a click asked for
Object.assign(bell, {type: "button", id: "notify", hidden: !sw || Notification.permission !== "default", onclick: () => Notification.requestPermission().then(p =>
  p !== "default" && (bell.hidden = true, moved(place(box, false)), p === "granted" && allow()))}), statusLine.after(bell);
if (sw) sw.onmessage = e => reach(String((e.data || {}).id));
function allow() { // registers the worker (its URL holds the token, for a page it opens), and gives the host a push subscription if it takes one
  const push = w => fetch("push", {headers: headers()}).then(res => res.ok && w.pushManager &&
    res.json().then(k => w.pushManager.subscribe({userVisibleOnly: true, applicationServerKey: k.key})).then(sub => fetch("push", {method: "POST", headers: headers(), body: JSON.stringify(sub)})));
  (worker = worker || sw.register("sw.js?token=" + encodeURIComponent(token)).then(() => sw.ready)).then(push).catch(() => {});
}
// Passkeys (WebAuthn) prove that a human answered: the enrol button offers one to the host, and a proven card's
// send button has it sign (user verified) the canonical JSON of a fresh nonce of the host's, the question's ID and
// request, and the answer as sent, one card at a time. canon is RFC 8785 for what a request holds: keys sorted.
const keyed = isSecureContext && !!window.PublicKeyCredential, enrol = el("button", "", t("Add a passkey"));
const headers = () => ({"Authorization": "Bearer " + token, "Content-Type": "application/json"});
const bytes = s => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), c => c.charCodeAt(0));
const b64 = b => btoa(Array.from(new Uint8Array(b), c => String.fromCharCode(c)).join("")).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const canon = v => JSON.stringify(v, (k, x) => x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a < b ? -1 : 1)) : x);
Object.assign(enrol, {type: "button", id: "passkey", hidden: true, onclick: enroll}), bell.after(enrol);
async function passkey(body) { // GET: the relying party, a nonce and the accepted credentials; with a body, an enrolment
  const res = await fetch("passkey", body ? {method: "POST", headers: headers(), body: JSON.stringify(body)} : {headers: headers()});
  const m = res.status === 204 ? null : await res.json();
  if (!res.ok) throw new Error(m.message);
  return m;
}
async function enroll() {
  try {
    const p = await passkey(), c = await navigator.credentials.create({publicKey: {challenge: bytes(p.nonce), attestation: "none",
      rp: {id: p.relyingParty, name: t("Questions")}, user: {id: crypto.getRandomValues(new Uint8Array(16)), name: "answers", displayName: t("Answers")},
      pubKeyCredParams: [{type: "public-key", alg: -7}, {type: "public-key", alg: -8}], authenticatorSelection: {userVerification: "required", residentKey: "preferred"}}});
    const r = c.response;
    await passkey({credential: b64(c.rawId), publicKey: b64(r.getPublicKey()), clientData: b64(r.clientDataJSON), authenticatorData: b64(r.getAuthenticatorData())});
    statusLine.textContent = t("Passkey added.");
  } catch (e) { statusLine.textContent = t("Passkey not added: %s", e.message || String(e)); }
}
async function prove(id, request, content) { // a proven card's receipt
  const p = await passkey(), answer = {labels: [].concat(content.choice || []), text: (content.text || "").replace(/\p{Cs}/gu, "\ufffd")}; // a lone surrogate as Go reads it
  const signed = new TextEncoder().encode(canon({nonce: p.nonce, questions: [{answer, id, request}]}));
  const a = await navigator.credentials.get({publicKey: {challenge: await crypto.subtle.digest("SHA-256", signed), rpId: p.relyingParty,
    userVerification: "required", allowCredentials: p.credentials.map(c => ({type: "public-key", id: bytes(c)}))}}), r = a.response;
  return {credential: a.id, signed: b64(signed), clientData: b64(r.clientDataJSON), authenticatorData: b64(r.authenticatorData), signature: b64(r.signature)};
}
function notice(f) { if (worker && Notification.permission === "granted") shown = shown.then(() => worker).then(f).catch(() => {}); }
function reach(id) { const card = cards.get(id); if (wanted = card ? "" : id, card) card.form.querySelector("input, button").focus({preventScroll: true}), card.form.scrollIntoView(); }

// connect follows the event stream, naming the questions shown, so that the stream tells how those that
// closed meanwhile ended. It reconnects itself, a second after an error, once a check says the token is right.
function connect() {
  if (clearTimeout(retry), source) source.close();
  const open = Array.from(cards.keys()).join(",");
  const lang = "&lang=" + encodeURIComponent(navigator.languages.join(","));
  source = new EventSource("events?token=" + encodeURIComponent(token) + lang + (open ? "&open=" + open : ""));
  source.addEventListener("words", e => { // the host's table for this page's language, before the questions
    const m = JSON.parse(e.data);
    words = m.words, document.documentElement.lang = m.lang, document.querySelectorAll("h1, h2").forEach(h => { h.textContent = t(h.dataset.key); });
  });
  source.addEventListener("questions", e => { off = stopped = false, render(JSON.parse(e.data)); }); // the whole list, once a connection
  source.addEventListener("stopped", () => { stopped = true; }); // the host shuts down: its endings came first
  source.addEventListener("question", e => { update(JSON.parse(e.data)), count(cards.size); });
  source.addEventListener("ended", e => { const m = JSON.parse(e.data); if (cards.has(m.id)) end(cards.get(m.id), m.outcome && m); });
  source.onerror = () => { source.close(), lost(stopped); retry = setTimeout(recheck, 1000); };
}
function lost(away) { // what the page knows while it reconnects; when the host is away, no card can be answered (one answered here waits) and no countdown runs
  statusLine.textContent = stopped ? t("The agent stopped. This page reconnects if it starts again.") : t("Connection lost: reconnecting…");
  if (!away) return;
  off = true, moved(place(box, false)); // a line on each card moves its controls; the countdowns stop at the next second
  for (const c of cards.values()) if (!c.sent) c.form.querySelector(".why").textContent = stopped ? t("The agent stopped before this was answered.") : t("This cannot be answered until the connection is back.");
}
async function recheck() {
  try {
    const res = await fetch("questions", {headers: {"Authorization": "Bearer " + token}});
    if (res.status === 401) return void (statusLine.textContent = t("This link's token is wrong: open the link the host printed."));
  } catch (e) { lost(true); } // the host cannot be reached
  connect();
}
function start() { // the token as it is in the fragment: percent-decoded, and a "+" stays a "+"
  const m = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  try { token = m ? decodeURIComponent(m[1]) : ""; } catch (e) { token = m[1]; }
  if (token !== "") return void (sw && Notification.permission === "granted" && allow(), keyed && enrol.hidden && passkey().then(p => p.relyingParty && (enrol.hidden = false, moved(place(box, false))), () => {}), connect());
  if (source) source.close(), clearTimeout(retry);
  statusLine.textContent = t("Open this page through the link the host printed: it ends with #token=…");
}

// A control that moved under a still pointer (a question above left, a hint or a wrapped line moved it) takes
// no click for 600 ms: the click was meant for what was drawn there, and its card says so. The page knows
// what it moves: moves holds the places after which controls moved, in document order (so a click looks at
// one), each with when and its number. Scrolling moves nothing; a control drawn after a move did not move.
const moves = [];
let changes = 0, shape = "";
function place(node, after) { const r = document.createRange(); return after ? r.setStartAfter(node) : r.setStartBefore(node), r; } // live: it stays when node leaves
function moved(from) {
  const now = Date.now();
  while (moves.length && now - moves[0].at >= 600) moves.shift();
  while (moves.length && moves[moves.length - 1].from.compareBoundaryPoints(Range.START_TO_START, from) >= 0) moves.pop();
  moves.push({from, at: now, n: ++changes});
  if (moves.length > 16) moves.splice(0, 17, {from: moves[0].from, at: now, n: changes}); // a burst: one place
  still = now + 600;
}
function layout() { // a zoom or a turned phone (the box's width), or a status line that wraps, moves every control
  const s = box.clientWidth + " " + statusLine.offsetHeight;
  if (shape && s !== shape) moved(place(box, false));
  shape = s;
}
const watch = new ResizeObserver(layout); watch.observe(box), watch.observe(statusLine);
box.parentElement.addEventListener("click", e => {
  layout(); // a change laid out, and not painted yet
  const c = e.target.closest("label, button, input, summary"), form = c && c.closest("form"), now = Date.now();
  const m = form && moves.find(m => m.n > form.born && now - m.at < 600);
  if (e.detail > 0 && m && m.from.comparePoint(c, 0) > 0) { // a button's listener is stopped too
    e.preventDefault(), e.stopPropagation(), say(form.querySelector(".note"), t("This moved as you clicked: look again, then click."), "");
  }
}, true);
addEventListener("hashchange", start);
setInterval(() => { for (const d of document.querySelectorAll("[data-deadline]")) countdown(d); }, 1000);
start();
`
