package userinteraction_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	ui "github.com/dsh-go/userinteraction"
)

// The causes that FirstOf gives the context of a withdrawn UI, by their text:
// the test package cannot name the package's own errors.
const (
	answeredElsewhere = "the question ended on another UI"
	panicElsewhere    = "another UI panicked"
)

// racer is a UI in a FirstOf race. Its Ask closes called, waits for every
// channel of after (or for its ctx to end), and then does do. It records
// the cause of its ctx as it returns, then closes returned. It is asked at
// most once.
type racer struct {
	do       func(ctx context.Context) (ui.Answer, error)
	after    []<-chan struct{}
	called   chan struct{}
	returned chan struct{}
	cause    error // context.Cause of its ctx as Ask returned; read after returned is closed
}

func newRacer(do func(context.Context) (ui.Answer, error), after ...<-chan struct{}) *racer {
	return &racer{do: do, after: after, called: make(chan struct{}), returned: make(chan struct{})}
}

func (r *racer) Ask(ctx context.Context, _ ui.Request) (ui.Answer, error) {
	defer r.leave(ctx)
	if err := r.enter(ctx); err != nil {
		return ui.Answer{}, err
	}
	return r.do(ctx)
}

// enter reports the call and waits for the racer's turn.
func (r *racer) enter(ctx context.Context) error {
	close(r.called)
	for _, c := range r.after {
		select {
		case <-c:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// leave records how the racer's ctx stood, and reports the return.
func (r *racer) leave(ctx context.Context) {
	r.cause = context.Cause(ctx)
	close(r.returned)
}

func (r *racer) base() *racer { return r }

// batchRacer is a racer that is a BatchProvider: its AskAll does doAll,
// and its Ask does it for one question.
type batchRacer struct {
	*racer
	doAll func(ctx context.Context, reqs []ui.Request) ([]ui.Answer, error)
}

func newBatchRacer(doAll func(context.Context, []ui.Request) ([]ui.Answer, error), after ...<-chan struct{}) batchRacer {
	return batchRacer{racer: newRacer(nil, after...), doAll: doAll}
}

func (b batchRacer) Ask(ctx context.Context, req ui.Request) (ui.Answer, error) {
	answers, err := b.AskAll(ctx, []ui.Request{req})
	if len(answers) == 0 {
		return ui.Answer{}, err
	}
	return answers[0], err
}

func (b batchRacer) AskAll(ctx context.Context, reqs []ui.Request) ([]ui.Answer, error) {
	defer b.leave(ctx)
	if err := b.enter(ctx); err != nil {
		return nil, err
	}
	return b.doAll(ctx, reqs)
}

// answers returns what a racer does to answer text.
func answers(text string) func(context.Context) (ui.Answer, error) {
	return func(context.Context) (ui.Answer, error) { return ui.Answer{Text: text}, nil }
}

// fails returns what a racer does to fail with err.
func fails(err error) func(context.Context) (ui.Answer, error) {
	return func(context.Context) (ui.Answer, error) { return ui.Answer{}, err }
}

// blocks is what a racer does to wait until it is withdrawn.
func blocks(ctx context.Context) (ui.Answer, error) {
	<-ctx.Done()
	return ui.Answer{}, ctx.Err()
}

// answersLate returns what a racer does to answer text once it is withdrawn.
func answersLate(text string) func(context.Context) (ui.Answer, error) {
	return func(ctx context.Context) (ui.Answer, error) {
		<-ctx.Done()
		return ui.Answer{Text: text}, nil
	}
}

// batchAnswers returns what a batch racer does to answer texts, then err.
func batchAnswers(err error, texts ...string) func(context.Context, []ui.Request) ([]ui.Answer, error) {
	return func(context.Context, []ui.Request) ([]ui.Answer, error) {
		answers := []ui.Answer{}
		for _, text := range texts {
			answers = append(answers, ui.Answer{Text: text})
		}
		return answers, err
	}
}

// batchBlocks is what a batch racer does to wait until it is withdrawn.
func batchBlocks(ctx context.Context, _ []ui.Request) ([]ui.Answer, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// member is a racer or a batchRacer.
type member interface {
	ui.Provider
	base() *racer
}

// providers returns the members as providers.
func providers(members []member) []ui.Provider {
	out := []ui.Provider{}
	for _, m := range members {
		out = append(out, m)
	}
	return out
}

// checkReturned fails the test unless every member that was called has
// returned, and its ctx ended with the cause withdrawn names (by index), or
// did not end. Call it as soon as FirstOf returns: that every member
// returned before proves that no goroutine of the ask outlives it.
func checkReturned(t *testing.T, members []member, withdrawn map[int]string) {
	t.Helper()
	for i, m := range members {
		r := m.base()
		select {
		case <-r.called:
		default:
			if withdrawn[i] != "" {
				t.Errorf("racer %d was not called, want it called and withdrawn", i)
			}
			continue
		}
		select {
		case <-r.returned:
		default:
			t.Errorf("racer %d had not returned when FirstOf returned", i)
			<-r.returned // the test would race with it
		}
		got := ""
		if r.cause != nil {
			got = r.cause.Error()
		}
		if got != withdrawn[i] {
			t.Errorf("racer %d: context.Cause = %q, want %q", i, got, withdrawn[i])
		}
	}
}

func TestFirstOfAsk(t *testing.T) {
	declined := ui.NewError(ui.CodeAskDeclined, "the human declined", nil)
	cancelled := ui.NewError(ui.CodeAskCancelled, "input ended", nil)
	unsupported := ui.NewError(ui.CodeAskUnsupported, "cannot show it", nil)
	uncoded := errors.New("socket closed")
	type race struct {
		name      string
		members   func() []member
		want      string // the winning answer's text; "" when an error wins
		wantErr   error  // found by errors.Is in the error that wins
		wantCode  string // the code of the error that wins, when wantErr is nil
		withdrawn map[int]string
	}
	races := []race{
		{
			name: "the first answer wins",
			members: func() []member {
				slow := newRacer(blocks)
				return []member{slow, newRacer(answers("Delete"), slow.called)}
			},
			want:      "Delete",
			withdrawn: map[int]string{0: answeredElsewhere},
		},
		{
			name: "an answer that breaks the rules does not win",
			members: func() []member {
				broken := newRacer(answers("Maybe"))
				idle := newRacer(blocks)
				return []member{broken, newRacer(answers("Keep"), broken.returned, idle.called), idle}
			},
			want:      "Keep",
			withdrawn: map[int]string{2: answeredElsewhere},
		},
		{
			name: "a decline wins",
			members: func() []member {
				slow, late := newRacer(blocks), newRacer(answersLate("Delete"))
				return []member{slow, newRacer(fails(declined), slow.called, late.called), late}
			},
			wantErr:   declined,
			withdrawn: map[int]string{0: answeredElsewhere, 2: answeredElsewhere},
		},
		{
			name: "a late answer is dropped",
			members: func() []member {
				late := newRacer(answersLate("Keep"))
				return []member{late, newRacer(answers("Delete"), late.called)}
			},
			want:      "Delete",
			withdrawn: map[int]string{0: answeredElsewhere},
		},
		{
			name: "all dropped out: the first in argument order",
			members: func() []member {
				third := newRacer(fails(unsupported))
				second := newRacer(fails(uncoded), third.returned)
				return []member{newRacer(fails(cancelled), second.returned), second, third}
			},
			wantErr: cancelled,
		},
		{
			name: "all dropped out: the first broke the rules",
			members: func() []member {
				second := newRacer(fails(cancelled))
				return []member{newRacer(answers(" "), second.returned), second}
			},
			wantCode: ui.CodeInvalidAnswer,
		},
		{
			name: "a decline that comes last wins",
			members: func() []member {
				first := newRacer(fails(uncoded))
				return []member{first, newRacer(fails(declined), first.returned)}
			},
			wantErr: declined, // a decline still wins when it comes last
		},
	}
	// Each way of dropping out lets the others go on.
	for _, drop := range []struct {
		name string
		do   func(context.Context) (ui.Answer, error)
	}{
		{"ASK_CANCELLED", fails(cancelled)},
		{"ASK_UNSUPPORTED", fails(unsupported)},
		{"INVALID_ANSWER", fails(ui.NewError(ui.CodeInvalidAnswer, "invalid answer", nil))},
		{"INPUT_REQUIRED", fails(ui.NewError(ui.CodeInputRequired, "input required", nil))},
		{"ASK_ABORTED", fails(ui.NewError(ui.CodeAskAborted, "ask aborted", nil))},
		{"PROVIDER_FAILED", fails(ui.NewError(ui.CodeProviderFailed, "provider failed", nil))},
		{"an uncoded error", fails(uncoded)},
		{"context.Canceled of its own", fails(context.Canceled)},
		{"a typed nil error", fails((*myError)(nil))},
		{"an answer that is no option", answers("Maybe")},
		{"an empty answer", answers("")},
		{"runtime.Goexit", func(context.Context) (ui.Answer, error) { runtime.Goexit(); return ui.Answer{}, nil }},
	} {
		drop := drop
		races = append(races, race{
			name: "drops out: " + drop.name,
			members: func() []member {
				dropped := newRacer(drop.do)
				return []member{dropped, newRacer(answers("Keep"), dropped.returned)}
			},
			want: "Keep",
		})
	}
	for _, tt := range races {
		for _, via := range []string{"FirstOf", "Registry"} {
			t.Run(via+"/"+tt.name, func(t *testing.T) {
				members := tt.members()
				first := ui.FirstOf(providers(members)...)
				var ans ui.Answer
				var err error
				if via == "FirstOf" {
					ans, err = first.Ask(context.Background(), deleteIt)
				} else {
					ans, err = ui.Ask(scope(t, first), deleteIt)
				}
				checkReturned(t, members, tt.withdrawn)
				switch {
				case tt.want != "":
					if err != nil || ans.Text != tt.want || ans.Option == nil || ans.Option.Label != tt.want {
						t.Fatalf("Ask() = %s, %v, want %q with its option", show(ans), err, tt.want)
					}
				case tt.wantErr != nil:
					if !errors.Is(err, tt.wantErr) {
						t.Fatalf("Ask() = %s, %v, want %v", show(ans), err, tt.wantErr)
					}
				default:
					wantCode(t, "Ask()", err, tt.wantCode)
				}
			})
		}
	}
}

// TestFirstOfAllDroppedUncoded: through the registry, the first member's
// uncoded error is PROVIDER_FAILED with it as cause, as for any provider.
func TestFirstOfAllDroppedUncoded(t *testing.T) {
	uncoded := errors.New("socket closed")
	second := newRacer(fails(ui.NewError(ui.CodeAskUnsupported, "cannot show it", nil)))
	members := []member{newRacer(fails(uncoded), second.returned), second}
	_, err := ui.Ask(scope(t, ui.FirstOf(providers(members)...)), question)
	checkReturned(t, members, nil)
	wantCode(t, "Ask()", err, ui.CodeProviderFailed)
	if !errors.Is(err, uncoded) {
		t.Fatalf("Ask() = %v, want the first member's error as cause", err)
	}
}

// TestFirstOfCompletes: the winner's answer comes out of FirstOf completed
// by the rules of Answer, and the registry completes it again unchanged.
func TestFirstOfCompletes(t *testing.T) {
	first := ui.FirstOf(newRacer(answers("production")))
	ans, err := first.Ask(context.Background(), whereTo)
	if err != nil || ans.Option == nil || *ans.Option != whereTo.Options[1] {
		t.Fatalf("Ask() = %s, %v, want production with its option", show(ans), err)
	}
	again, err := ui.Ask(scope(t, ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) { return ans, nil })), whereTo)
	if err != nil || !reflect.DeepEqual(again, ans) {
		t.Fatalf("Ask() = %s, %v, want %s unchanged", show(again), err, show(ans))
	}
}

// TestFirstOfCtxEnds: when the ask's ctx ends, every member is withdrawn
// with that ctx's cause, and FirstOf returns ctx.Err(): ASK_ABORTED through
// the registry, also when the registration is disposed mid-ask.
func TestFirstOfCtxEnds(t *testing.T) {
	stop := errors.New("the step was stopped")
	for _, via := range []string{"FirstOf", "Registry", "dispose"} {
		t.Run(via, func(t *testing.T) {
			// The first member's own error is not what FirstOf returns.
			cancelled := func(ctx context.Context) (ui.Answer, error) {
				<-ctx.Done()
				return ui.Answer{}, ui.NewError(ui.CodeAskCancelled, "input ended", nil)
			}
			members := []member{newRacer(cancelled), newRacer(blocks), newBatchRacer(batchBlocks)}
			first := ui.FirstOf(providers(members)...)
			session := ui.WithRegistry(context.Background(), &ui.Registry{})
			dispose := register(t, session, first)
			defer dispose()
			ctx, cancel := context.WithCancelCause(session)
			defer cancel(nil)
			wantCause := stop.Error()
			if via == "dispose" {
				wantCause = "provider disposed"
			}
			done := make(chan error, 1)
			go func() {
				var err error
				if via == "FirstOf" {
					_, err = first.Ask(ctx, question)
				} else {
					_, err = ui.Ask(ctx, question)
				}
				checkReturned(t, members, map[int]string{0: wantCause, 1: wantCause, 2: wantCause})
				done <- err
			}()
			for _, m := range members {
				<-m.base().called
			}
			if via == "dispose" {
				dispose()
			} else {
				cancel(stop)
			}
			err := <-done
			switch via {
			case "FirstOf":
				if err != context.Canceled {
					t.Fatalf("Ask() = %v, want context.Canceled", err)
				}
			case "Registry":
				wantCode(t, "Ask()", err, ui.CodeAskAborted)
				if !errors.Is(err, context.Canceled) || !errors.Is(err, stop) {
					t.Fatalf("Ask() = %v, want it to wrap context.Canceled and the cause", err)
				}
			case "dispose":
				wantCode(t, "Ask()", err, ui.CodeAskAborted)
				if errors.Is(err, context.Canceled) {
					t.Fatalf("Ask() = %v, want a disposal, not context.Canceled", err)
				}
			}
		})
	}
}

// TestFirstOfChecksFirst: a nil or done ctx and an invalid request call no
// member.
func TestFirstOfChecksFirst(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	members := []member{newRacer(answers("x")), newBatchRacer(batchAnswers(nil, "x"))}
	first := ui.FirstOf(providers(members)...).(ui.BatchProvider)
	for _, tt := range []struct {
		name string
		ask  func() error
		want string
	}{
		//lint:ignore SA1012 a nil context is the input under test
		{"Ask(nil ctx)", func() error { _, err := first.Ask(nil, question); return err }, ui.CodeInvalidRequest},
		//lint:ignore SA1012 a nil context is the input under test
		{"AskAll(nil ctx)", func() error { _, err := first.AskAll(nil, three); return err }, ui.CodeInvalidRequest},
		{"Ask(invalid)", func() error { _, err := first.Ask(context.Background(), ui.Request{}); return err }, ui.CodeInvalidRequest},
		{"AskAll(invalid)", func() error { _, err := first.AskAll(context.Background(), []ui.Request{reason, {}}); return err }, ui.CodeInvalidRequest},
		{"AskAll(none)", func() error { _, err := first.AskAll(context.Background(), nil); return err }, ui.CodeInvalidRequest},
		{"Ask(done ctx)", func() error { _, err := first.Ask(done, question); return err }, ""},
		{"AskAll(done ctx)", func() error { _, err := first.AskAll(done, three); return err }, ""},
	} {
		err := tt.ask()
		if tt.want != "" {
			wantCode(t, tt.name, err, tt.want)
		} else if err != context.Canceled {
			t.Errorf("%s = %v, want context.Canceled", tt.name, err)
		}
	}
	for i, m := range members {
		select {
		case <-m.base().called:
			t.Errorf("racer %d was called, want no member called", i)
		default:
		}
	}
}

// TestFirstOfPanics: a member's panic reaches the caller of Ask, on the
// caller's goroutine, once the other members are withdrawn and returned.
func TestFirstOfPanics(t *testing.T) {
	panics := func(context.Context) (ui.Answer, error) { panic("ui panic") }
	for _, tt := range []struct {
		name      string
		members   func() []member
		withdrawn map[int]string
	}{
		{
			name: "the others are withdrawn",
			members: func() []member {
				slow := newRacer(blocks)
				return []member{slow, newRacer(panics, slow.called)}
			},
			withdrawn: map[int]string{0: panicElsewhere},
		},
		{
			name: "a panic after a win",
			members: func() []member {
				withdrawn := newRacer(func(ctx context.Context) (ui.Answer, error) {
					<-ctx.Done()
					panic("ui panic")
				})
				return []member{withdrawn, newRacer(answers("Delete"), withdrawn.called)}
			},
			withdrawn: map[int]string{0: answeredElsewhere},
		},
		{
			name: "a panic in a batch",
			members: func() []member {
				slow := newBatchRacer(batchBlocks)
				return []member{slow, newBatchRacer(func(context.Context, []ui.Request) ([]ui.Answer, error) { panic("ui panic") }, slow.called)}
			},
			withdrawn: map[int]string{0: panicElsewhere},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			members := tt.members()
			ctx := scope(t, ui.FirstOf(providers(members)...))
			func() {
				defer func() {
					if r := recover(); r != "ui panic" {
						t.Fatalf("recover() = %v, want the member's panic", r)
					}
					checkReturned(t, members, tt.withdrawn)
				}()
				if _, ok := members[0].(batchRacer); ok {
					_, _ = ui.AskAll(ctx, []ui.Request{deleteIt})
				} else {
					_, _ = ui.Ask(ctx, deleteIt)
				}
				t.Fatal("Ask() returned, want the member's panic")
			}()
			if ui.FromContext(ctx).Provider() == nil {
				t.Fatal("Provider() = nil after a panic, want FirstOf's provider")
			}
		})
	}
}

// sequential is a provider that is no BatchProvider. It answers each
// question with answer, and records the questions it was asked.
type sequential struct {
	asked  []string // written by the member's goroutine, read after FirstOf returns
	answer func(ctx context.Context, i int) (ui.Answer, error)
}

func (s *sequential) Ask(ctx context.Context, req ui.Request) (ui.Answer, error) {
	s.asked = append(s.asked, req.Question)
	return s.answer(ctx, len(s.asked)-1)
}

// TestFirstOfAskAll: batches race whole, never stitched from several UIs,
// and a member that is no BatchProvider is asked one question after another.
func TestFirstOfAskAll(t *testing.T) {
	declined := ui.NewError(ui.CodeAskDeclined, "the human declined", nil)
	cancelled := ui.NewError(ui.CodeAskCancelled, "input ended", nil)
	for _, tt := range []struct {
		name      string
		members   func() []member
		want      []string
		wantErr   error
		withdrawn map[int]string
	}{
		{
			name: "a partial batch does not win",
			members: func() []member {
				partial := newBatchRacer(batchAnswers(cancelled, "staging", "41"))
				return []member{partial, newBatchRacer(batchAnswers(nil, "production", "42, 43", "tests pass"), partial.returned)}
			},
			want: []string{"production", "42, 43", "tests pass"},
		},
		{
			name: "a batch with a broken answer does not win",
			members: func() []member {
				broken := newBatchRacer(batchAnswers(nil, "nowhere", "41", "now"))
				return []member{broken, newBatchRacer(batchAnswers(nil, "staging", "42", "why not"), broken.returned)}
			},
			want: []string{"staging", "42", "why not"},
		},
		{
			name: "a batch with too few answers does not win",
			members: func() []member {
				short := newBatchRacer(batchAnswers(nil, "staging", "41"))
				return []member{short, newBatchRacer(batchAnswers(nil, "staging", "42", "why not"), short.returned)}
			},
			want: []string{"staging", "42", "why not"},
		},
		{
			name: "a batch with too many answers does not win",
			members: func() []member {
				long := newBatchRacer(batchAnswers(nil, "staging", "41", "now", "more"))
				return []member{long, newBatchRacer(batchAnswers(nil, "staging", "42", "why not"), long.returned)}
			},
			want: []string{"staging", "42", "why not"},
		},
		{
			name: "the first whole batch wins",
			members: func() []member {
				slow, late := newBatchRacer(batchBlocks), newRacer(answersLate("now"))
				return []member{slow, newBatchRacer(batchAnswers(nil, "production", "41", "now"), slow.called, late.called), late}
			},
			want:      []string{"production", "41", "now"},
			withdrawn: map[int]string{0: answeredElsewhere, 2: answeredElsewhere},
		},
		{
			name: "a decline wins with the answers before it",
			members: func() []member {
				slow := newBatchRacer(batchBlocks)
				return []member{slow, newBatchRacer(batchAnswers(declined, "staging"), slow.called)}
			},
			want:      []string{"staging"},
			wantErr:   declined,
			withdrawn: map[int]string{0: answeredElsewhere},
		},
		{
			name: "all dropped out: the first member's answers and error",
			members: func() []member {
				second := newBatchRacer(batchAnswers(errors.New("socket closed"), "production", "42"))
				return []member{newBatchRacer(batchAnswers(cancelled, "staging"), second.returned), second}
			},
			want:    []string{"staging"},
			wantErr: cancelled,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			members := tt.members()
			got, err := ui.AskAll(scope(t, ui.FirstOf(providers(members)...)), three)
			checkReturned(t, members, tt.withdrawn)
			if !reflect.DeepEqual(texts(got), tt.want) || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("AskAll() = %q, %v, want %q, %v", texts(got), err, tt.want, tt.wantErr)
			}
		})
	}

	t.Run("one by one", func(t *testing.T) {
		slow := newBatchRacer(batchBlocks)
		each := &sequential{answer: func(_ context.Context, i int) (ui.Answer, error) {
			<-slow.called
			return ui.Answer{Text: []string{"staging", "41, 43", "tests pass"}[i]}, nil
		}}
		first := ui.FirstOf(slow, each)
		got, err := ui.AskAll(scope(t, first), three)
		checkReturned(t, []member{slow}, map[int]string{0: answeredElsewhere})
		if want := []string{"staging", "41, 43", "tests pass"}; err != nil || !reflect.DeepEqual(texts(got), want) {
			t.Fatalf("AskAll() = %q, %v, want %q", texts(got), err, want)
		}
		if want := []string{target.Question, migrations.Question, reason.Question}; !reflect.DeepEqual(each.asked, want) {
			t.Fatalf("asked %q, want %q in turn", each.asked, want)
		}
	})

	t.Run("one by one, up to the first error", func(t *testing.T) {
		for _, fail := range []struct {
			name   string
			answer ui.Answer
			err    error
		}{
			{"an error", ui.Answer{}, cancelled},
			{"a broken answer", ui.Answer{Text: "nowhere"}, nil},
		} {
			failed := make(chan struct{})
			each := &sequential{answer: func(_ context.Context, i int) (ui.Answer, error) {
				if i == 0 {
					return ui.Answer{Text: "staging"}, nil
				}
				defer close(failed)
				if fail.err == nil {
					return fail.answer, nil
				}
				return ui.Answer{}, fail.err
			}}
			// The second question is target again, which "nowhere" does not answer.
			req := []ui.Request{target, target, reason}
			other := newBatchRacer(batchAnswers(nil, "production", "production", "why not"), failed)
			got, err := ui.AskAll(scope(t, ui.FirstOf(each, other)), req)
			checkReturned(t, []member{other}, nil)
			if want := []string{"production", "production", "why not"}; err != nil || !reflect.DeepEqual(texts(got), want) {
				t.Fatalf("%s: AskAll() = %q, %v, want %q", fail.name, texts(got), err, want)
			}
			if len(each.asked) != 2 {
				t.Fatalf("%s: asked %q, want the batch to end at its second question", fail.name, each.asked)
			}
		}
	})

	t.Run("one by one, withdrawn between questions", func(t *testing.T) {
		asked := make(chan struct{})
		each := &sequential{answer: func(ctx context.Context, i int) (ui.Answer, error) {
			close(asked) // a second call would panic
			<-ctx.Done()
			return ui.Answer{Text: "staging"}, nil // too late
		}}
		other := newBatchRacer(batchAnswers(nil, "production", "41", "now"), asked)
		got, err := ui.AskAll(scope(t, ui.FirstOf(each, other)), three)
		checkReturned(t, []member{other}, nil)
		if want := []string{"production", "41", "now"}; err != nil || !reflect.DeepEqual(texts(got), want) {
			t.Fatalf("AskAll() = %q, %v, want %q", texts(got), err, want)
		}
		if len(each.asked) != 1 {
			t.Fatalf("asked %q, want no question asked once withdrawn", each.asked)
		}
	})

	t.Run("one by one, all dropped out", func(t *testing.T) {
		each := &sequential{answer: func(_ context.Context, i int) (ui.Answer, error) {
			if i == 0 {
				return ui.Answer{Text: "staging"}, nil
			}
			return ui.Answer{Text: "nowhere"}, nil
		}}
		got, err := ui.AskAll(scope(t, ui.FirstOf(each)), []ui.Request{target, target})
		wantCode(t, "AskAll()", err, ui.CodeInvalidAnswer)
		var he *ui.HarnessError
		if errors.As(err, &he); !reflect.DeepEqual(texts(got), []string{"staging"}) || he.Message != `invalid answer: questions[1]: "nowhere" is not one of the offered options` {
			t.Fatalf("AskAll() = %q, %q, want [staging] and questions[1] named", texts(got), he.Message)
		}
	})
}

// TestFirstOfNil: FirstOf of nothing, or of a nil provider, is nil, which
// Register refuses with INVALID_PROVIDER.
func TestFirstOfNil(t *testing.T) {
	var nilFunc ui.ProviderFunc
	for _, tt := range []struct {
		name      string
		providers []ui.Provider
	}{
		{"FirstOf()", nil},
		{"FirstOf(nil)", []ui.Provider{nil}},
		{"FirstOf((*Inbox)(nil))", []ui.Provider{(*ui.Inbox)(nil)}},
		{"FirstOf(ProviderFunc(nil))", []ui.Provider{nilFunc}},
		{"FirstOf(p, nil)", []ui.Provider{answering("x"), nil}},
		{"FirstOf(p, (*Terminal)(nil))", []ui.Provider{answering("x"), (*ui.Terminal)(nil)}},
	} {
		p := ui.FirstOf(tt.providers...)
		if p != nil {
			t.Errorf("%s = %#v, want nil", tt.name, p)
		}
		var r ui.Registry
		_, err := r.Register(p)
		wantCode(t, tt.name+" Register()", err, ui.CodeInvalidProvider)
	}
}

// TestFirstOfOne: FirstOf of one provider is a BatchProvider that asks it,
// and FirstOf keeps no reference to the caller's slice.
func TestFirstOfOne(t *testing.T) {
	members := []ui.Provider{answering("yes")}
	first := ui.FirstOf(members...)
	members[0] = answering("no")
	bp, ok := first.(ui.BatchProvider)
	if !ok {
		t.Fatalf("FirstOf(p) = %T, want a BatchProvider", first)
	}
	ans, err := bp.Ask(context.Background(), question)
	if err != nil || ans.Text != "yes" {
		t.Fatalf("Ask() = %s, %v, want yes", show(ans), err)
	}
	got, err := bp.AskAll(context.Background(), []ui.Request{question, question})
	if err != nil || !reflect.DeepEqual(texts(got), []string{"yes", "yes"}) {
		t.Fatalf("AskAll() = %q, %v, want [yes yes]", texts(got), err)
	}
}

// TestFirstOfInbox: many asks at once through FirstOf of an Inbox and a UI
// that answers at once; each asker gets that answer, and the Inbox's
// questions are withdrawn.
func TestFirstOfInbox(t *testing.T) {
	inbox := &ui.Inbox{}
	ctx := scope(t, ui.FirstOf(inbox, answering("Keep")))
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ans, err := ui.Ask(ctx, deleteIt); err != nil || ans.Text != "Keep" {
				errs <- fmt.Errorf("Ask() = %s, %v, want Keep", show(ans), err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if p := inbox.Pending(); len(p) != 0 {
		t.Fatalf("Pending() = %d questions after every ask returned, want none", len(p))
	}
}

// BenchmarkFirstOfAsk is a question through a registry whose provider is
// FirstOf of a UI that answers at once and one that waits to be withdrawn,
// beside BenchmarkAsk's plain provider.
func BenchmarkFirstOfAsk(b *testing.B) {
	waits := ui.ProviderFunc(func(ctx context.Context, _ ui.Request) (ui.Answer, error) {
		<-ctx.Done()
		return ui.Answer{}, ctx.Err()
	})
	ctx := scope(b, ui.FirstOf(waits, answering("yes")))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ui.Ask(ctx, question); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFirstOfFormPairs: a Form races the Terminal and the Inbox as any UI
// does. The winner's answer keeps its Via, and the UI that lost learns the
// winner's outcome: the Form's elicit from its ctx, the Inbox in Outcome.
func TestFirstOfFormPairs(t *testing.T) {
	req := ui.Request{Question: "Deploy where?", Options: []ui.Option{{Label: "Staging"}, {Label: "Production"}}}

	// The Form's client has the form open when the human answers on the page.
	t.Run("Inbox wins over Form", func(t *testing.T) {
		form, shown, lost := withdrawnForm()
		inbox := &ui.Inbox{}
		done := askInbox(scope(t, ui.FirstOf(form, inbox)), req)
		id := waitPending(t, inbox, 1)[0].ID
		<-shown
		if err := inbox.Respond(id, ui.Answer{Text: "Production", Via: "page"}, nil); err != nil {
			t.Fatalf("Respond() = %v, want nil", err)
		}
		if o := receive(t, done); o.err != nil || o.answers[0].Text != "Production" || o.answers[0].Via != "page" {
			t.Fatalf("Ask() = %v via %s, want Production via page", o, o.answers[0].Via)
		}
		if o := <-lost; o.Answer.Text != "Production" || o.Answer.Via != "page" {
			t.Fatalf("the Form's EndedElsewhere() = %+v, want the page's answer", o)
		}
	})

	// The client answers the form while the question is open on the page.
	t.Run("Form wins over Inbox", func(t *testing.T) {
		inbox := &ui.Inbox{}
		opened := make(chan string, 1)
		form := ui.NewForm(func(ctx context.Context, _ ui.Elicitation) (string, map[string]any, error) {
			<-opened // the page shows the question
			return "accept", map[string]any{"choice": "Staging"}, nil
		})
		done := askInbox(scope(t, ui.FirstOf(form, inbox)), req)
		id := waitPending(t, inbox, 1)[0].ID
		opened <- id
		if o := receive(t, done); o.err != nil || o.answers[0].Text != "Staging" || o.answers[0].Via != "form" {
			t.Fatalf("Ask() = %v, want Staging via form", o)
		}
		if o, ok := inbox.Outcome(id); !ok || o.Answer.Text != "Staging" || o.Answer.Via != "form" {
			t.Fatalf("Inbox.Outcome() = %+v, %v, want the form's answer", o, ok)
		}
		wantCode(t, "a late Respond", inbox.Respond(id, ui.Answer{Text: "Production"}, nil), ui.CodeNotPending)
	})

	// The human types at the terminal while the client shows the form.
	t.Run("Terminal wins over Form", func(t *testing.T) {
		form, shown, lost := withdrawnForm()
		in, typing := io.Pipe()
		var out strings.Builder
		term := ui.NewTerminal(in, &lockedWriter{w: &out})
		go func() {
			<-shown
			_, _ = io.WriteString(typing, "2\n")
		}()
		ans, err := ui.Ask(scope(t, ui.FirstOf(form, term)), req)
		if err != nil || ans.Text != "Production" || ans.Via != "terminal" {
			t.Fatalf("Ask() = %s, %v, want Production via terminal", show(ans), err)
		}
		if o := <-lost; o.Answer.Text != "Production" || o.Answer.Via != "terminal" {
			t.Fatalf("the Form's EndedElsewhere() = %+v, want the terminal's answer", o)
		}
	})
}

// withdrawnForm returns a Form whose client shows its form (shown closes)
// until FirstOf withdraws it, and then reports EndedElsewhere on lost.
func withdrawnForm() (form *ui.Form, shown <-chan struct{}, lost <-chan ui.Outcome) {
	showing, ended := make(chan struct{}), make(chan ui.Outcome, 1)
	form = ui.NewForm(func(ctx context.Context, _ ui.Elicitation) (string, map[string]any, error) {
		close(showing)
		<-ctx.Done()
		o, _ := ui.EndedElsewhere(ctx)
		ended <- o
		return "", nil, ctx.Err()
	})
	return form, showing, ended
}

// lockedWriter is an io.Writer safe for the Terminal's writes and the
// test's reads.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestFirstOfTakesNothingOnceTheAskerStopped: once the ask's ctx is done, an
// answer that comes late is not taken, so no UI that told its human "the
// agent no longer needs an answer" is contradicted.
func TestFirstOfTakesNothingOnceTheAskerStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	shown := make(chan struct{})
	late := ui.ProviderFunc(func(ctx context.Context, _ ui.Request) (ui.Answer, error) {
		close(shown)
		<-ctx.Done()
		return ui.Answer{Text: "Delete"}, nil
	})
	go func() {
		<-shown
		cancel()
	}()
	_, err := ui.FirstOf(late, newRacer(blocks)).Ask(ctx, ui.Request{Question: "Delete?"})
	if err != context.Canceled {
		t.Fatalf("Ask() = %v, want context.Canceled", err)
	}
}
