package userinteraction_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	ui "github.com/dsh-go/userinteraction"
)

// batch is a BatchProvider that records its calls and answers with answer.
type batch struct {
	mu     sync.Mutex // guards calls
	calls  [][]ui.Request
	answer func(ctx context.Context, reqs []ui.Request) ([]ui.Answer, error)
}

func (b *batch) Ask(ctx context.Context, req ui.Request) (ui.Answer, error) {
	answers, err := b.AskAll(ctx, []ui.Request{req})
	if len(answers) == 0 {
		return ui.Answer{}, err
	}
	return answers[0], err
}

func (b *batch) AskAll(ctx context.Context, reqs []ui.Request) ([]ui.Answer, error) {
	b.mu.Lock()
	b.calls = append(b.calls, reqs)
	b.mu.Unlock()
	return b.answer(ctx, reqs)
}

func TestAskAllValidates(t *testing.T) {
	called := false
	ctx := scope(t, ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) {
		called = true
		return ui.Answer{Text: "x"}, nil
	}))
	for _, tt := range []struct {
		reqs []ui.Request
		want string
	}{
		{nil, "invalid request: no questions"},
		{[]ui.Request{}, "invalid request: no questions"},
		{
			reqs: []ui.Request{target, reason, {Question: "q", Options: []ui.Option{{Label: " "}}}},
			want: "invalid request: questions[2]: options[0] has an empty label",
		},
		{[]ui.Request{{}, target}, "invalid request: questions[0]: question is empty"},
	} {
		answers, err := ui.AskAll(ctx, tt.reqs)
		wantCode(t, "AskAll()", err, ui.CodeInvalidRequest)
		var he *ui.HarnessError
		if errors.As(err, &he); he.Message != tt.want || answers != nil {
			t.Errorf("AskAll() = %v, %q, want no answers and %q", answers, he.Message, tt.want)
		}
	}
	if called {
		t.Fatal("provider called for an invalid batch")
	}
	// Steps 1 and 3 of Ask apply to the whole call.
	done, cancel := context.WithCancel(ctx)
	cancel()
	_, err := ui.AskAll(done, three)
	wantCode(t, "AskAll(done ctx)", err, ui.CodeAskAborted)
	_, err = ui.AskAll(ui.WithRegistry(context.Background(), &ui.Registry{}), three)
	wantCode(t, "AskAll() without provider", err, ui.CodeNoProvider)
	var r *ui.Registry
	//lint:ignore SA1012 a nil context is the input under test
	_, err = r.AskAll(nil, three)
	wantCode(t, "AskAll(nil ctx)", err, ui.CodeInvalidRequest)
}

// TestAskAllOneByOne: a provider without AskAll is asked each question in
// turn, each checked as Ask checks it; the answers before a failure are
// returned with it.
func TestAskAllOneByOne(t *testing.T) {
	var asked []string
	script := map[string]ui.Answer{
		target.Question:     {Text: "production"},
		migrations.Question: ui.Pick(ui.Option{Label: "43"}, ui.Option{Label: "41"}),
		reason.Question:     {Text: "the release"},
	}
	ctx := scope(t, ui.ProviderFunc(func(_ context.Context, req ui.Request) (ui.Answer, error) {
		asked = append(asked, req.Question)
		if ans, ok := script[req.Question]; ok {
			return ans, nil
		}
		return ui.Answer{}, ui.NewError(ui.CodeAskDeclined, "the user declined to answer", nil)
	}))
	answers, err := ui.AskAll(ctx, three)
	if want := []string{"production", "41, 43", "the release"}; err != nil || !reflect.DeepEqual(texts(answers), want) ||
		answers[0].Option.Label != "Production" {
		t.Fatalf("AskAll() = %v, %v, want production, 41, 43, the release", texts(answers), err)
	}
	if !reflect.DeepEqual(asked, []string{target.Question, migrations.Question, reason.Question}) {
		t.Fatalf("provider asked %q, want the three questions in order", asked)
	}

	asked = nil
	answers, err = ui.AskAll(ctx, []ui.Request{target, {Question: "Sure?"}, reason})
	wantCode(t, "AskAll() with a refusal", err, ui.CodeAskDeclined)
	if !reflect.DeepEqual(texts(answers), []string{"production"}) || len(asked) != 2 {
		t.Fatalf("AskAll() = %v after asking %q, want the first answer and no third question", texts(answers), asked)
	}

	script[reason.Question] = ui.Answer{Text: " "}
	answers, err = ui.AskAll(ctx, three)
	wantCode(t, "AskAll() with an empty answer", err, ui.CodeInvalidAnswer)
	if !strings.Contains(err.Error(), "questions[2]: the answer is empty") || len(answers) != 2 {
		t.Fatalf("AskAll() = %v, %v, want two answers and an error naming questions[2]", texts(answers), err)
	}
}

func TestAskAllBatchProvider(t *testing.T) {
	b := &batch{answer: func(ctx context.Context, reqs []ui.Request) ([]ui.Answer, error) {
		return []ui.Answer{{Text: "staging"}, ui.Pick(ui.Option{Label: "42"}), {Text: "tests pass"}}, nil
	}}
	answers, err := ui.AskAll(scope(t, b), three)
	if want := []string{"staging", "42", "tests pass"}; err != nil || !reflect.DeepEqual(texts(answers), want) ||
		answers[0].Option == nil {
		t.Fatalf("AskAll() = %v, %v, want staging, 42, tests pass, completed", texts(answers), err)
	}
	if len(b.calls) != 1 || len(b.calls[0]) != 3 {
		t.Fatalf("BatchProvider called %d times, want once with the three questions", len(b.calls))
	}

	errBroken := errors.New("dialog broke")
	tests := []struct {
		name  string
		given []ui.Answer
		err   error
		code  string
		want  []string // texts of the answers returned
		says  string   // part of the error
	}{
		{
			name:  "too few",
			given: []ui.Answer{{Text: "staging"}},
			code:  ui.CodeInvalidAnswer,
			want:  []string{"staging"},
			says:  "questions[1]: no answer",
		},
		{
			name:  "too many",
			given: []ui.Answer{{Text: "staging"}, {Text: "41"}, {Text: "x"}, {Text: "y"}},
			code:  ui.CodeInvalidAnswer,
			want:  []string{},
			says:  "4 answers to 3 questions",
		},
		{
			name:  "a broken rule",
			given: []ui.Answer{{Text: "staging"}, {Text: "41"}, {Text: " "}},
			code:  ui.CodeInvalidAnswer,
			want:  []string{"staging", "41"},
			says:  "questions[2]: the answer is empty",
		},
		{
			name:  "a disallowed answer",
			given: []ui.Answer{{Text: "the moon"}},
			code:  ui.CodeInvalidAnswer,
			want:  []string{},
			says:  `questions[0]: "the moon" is not one of the offered options`,
		},
		{
			name:  "declined after one",
			given: []ui.Answer{{Text: "staging"}},
			err:   ui.NewError(ui.CodeAskDeclined, "the user declined to answer", nil),
			code:  ui.CodeAskDeclined,
			want:  []string{"staging"},
			says:  "declined",
		},
		{
			name: "an uncoded error",
			err:  errBroken,
			code: ui.CodeProviderFailed,
			want: []string{},
			says: "dialog broke",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &batch{answer: func(context.Context, []ui.Request) ([]ui.Answer, error) { return tt.given, tt.err }}
			answers, err := ui.AskAll(scope(t, b), three)
			wantCode(t, "AskAll()", err, tt.code)
			if !reflect.DeepEqual(texts(answers), tt.want) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("AskAll() = %q, %v, want %q and an error saying %q", texts(answers), err, tt.want, tt.says)
			}
		})
	}
}

// TestAskAllDisposedMidBatch: a dispose while a batch is asked aborts the
// rest of it, for a plain provider and for a BatchProvider, keeping the
// answers given before.
func TestAskAllDisposedMidBatch(t *testing.T) {
	session := ui.WithRegistry(context.Background(), &ui.Registry{})
	var dispose func()
	dispose = register(t, session, ui.ProviderFunc(func(ctx context.Context, req ui.Request) (ui.Answer, error) {
		if req.Question == migrations.Question {
			go dispose() // the UI goes away while the second question is shown
			<-ctx.Done()
			return ui.Answer{}, ctx.Err()
		}
		return ui.Answer{Text: "staging"}, nil
	}))
	answers, err := ui.AskAll(session, three)
	wantDisposal(t, err)
	if !reflect.DeepEqual(texts(answers), []string{"staging"}) {
		t.Fatalf("AskAll() = %q, want the first answer", texts(answers))
	}

	session = ui.WithRegistry(context.Background(), &ui.Registry{})
	started := make(chan struct{})
	dispose = register(t, session, &batch{answer: func(ctx context.Context, reqs []ui.Request) ([]ui.Answer, error) {
		close(started)
		<-ctx.Done()
		return []ui.Answer{{Text: "production"}}, ctx.Err()
	}})
	done := make(chan struct{})
	go func() {
		defer close(done)
		answers, err = ui.AskAll(session, three)
	}()
	<-started
	dispose()
	<-done
	wantDisposal(t, err)
	if !reflect.DeepEqual(texts(answers), []string{"production"}) {
		t.Fatalf("AskAll() = %q, want the answer given before the disposal", texts(answers))
	}
}

// TestShippedBatchProvidersValidate: the BatchProviders the package ships
// refuse a batch that Registry.AskAll would refuse also when called
// directly, and open or ask none of it.
func TestShippedBatchProvidersValidate(t *testing.T) {
	many := make([]ui.Request, 101)
	for i := range many {
		many[i] = question
	}
	batches := map[string][]ui.Request{
		"no questions":     nil,
		"101 questions":    many,
		"an invalid one":   {question, {Question: " "}},
		"an invalid label": {{Question: "q", Options: []ui.Option{{Label: "a\u202e"}}}},
	}
	for name, reqs := range batches {
		inbox, replay := &ui.Inbox{}, &ui.Replay{}
		asked := false
		counting := ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) {
			asked = true
			return ui.Answer{Text: "x"}, nil
		})
		providers := map[string]ui.Provider{"Inbox": inbox, "Replay": replay, "FirstOf": ui.FirstOf(counting)}
		for pname, p := range providers {
			answers, err := p.(ui.BatchProvider).AskAll(context.Background(), reqs)
			wantCode(t, pname+".AskAll("+name+")", err, ui.CodeInvalidRequest)
			if answers != nil {
				t.Errorf("%s.AskAll(%s) = %v, want no answers", pname, name, answers)
			}
		}
		if n, m := len(inbox.Pending()), len(replay.Pending()); n != 0 || m != 0 || asked {
			t.Errorf("AskAll(%s) opened %d questions in the Inbox, %d in the Replay, asked FirstOf's member: %v; want none", name, n, m, asked)
		}
	}
}
