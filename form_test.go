package userinteraction_test

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// response is a client's response to one form.
type response struct {
	action  string
	content map[string]any
	err     error
}

// formClient stands for an MCP or ACP client: it records the forms it is
// sent and answers them with its responses, in order.
type formClient struct {
	mu        sync.Mutex
	forms     []ui.Elicitation
	responses []response
}

func (c *formClient) elicit(_ context.Context, form ui.Elicitation) (string, map[string]any, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forms = append(c.forms, form)
	if len(c.responses) == 0 {
		return "", nil, errors.New("the test has no response for this form")
	}
	r := c.responses[0]
	c.responses = c.responses[1:]
	return r.action, r.content, r.err
}

// sent returns the forms c was sent.
func (c *formClient) sent() []ui.Elicitation {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.forms
}

func accept(content map[string]any) response { return response{action: "accept", content: content} }

var (
	pickEnv = ui.Request{Header: "Env", Question: "Deploy where?", Options: []ui.Option{
		{Label: "Staging", Value: "stg", Recommended: true},
		{Label: "Production", Description: "the live site"},
	}}
	pickSteps = ui.Request{
		Question:    "Which steps?",
		Options:     []ui.Option{{Label: "lint"}, {Label: "test", Value: "unit"}, {Label: "build"}},
		MultiSelect: true,
	}
)

// TestFormOutcomes asks through a registered Form, whose client answers
// one form with each kind of response.
func TestFormOutcomes(t *testing.T) {
	elicitErr := errors.New("connection closed")
	tests := []struct {
		name    string
		req     ui.Request
		resp    response
		want    ui.Answer // when code is ""
		code    string
		wantErr error // found by errors.Is, when set
	}{
		{"pick", pickEnv, accept(map[string]any{"choice": "Production"}),
			ui.Answer{Text: "Production", Option: &pickEnv.Options[1], Via: "form"}, "", nil},
		{"the default pick", pickEnv, accept(map[string]any{"choice": "Staging", "text": ""}),
			ui.Answer{Text: "stg", Option: &pickEnv.Options[0], Via: "form"}, "", nil},
		{"picks", pickSteps, accept(map[string]any{"choice": []any{"build", "lint"}}),
			ui.Answer{Text: "lint, build", Options: []ui.Option{pickSteps.Options[0], pickSteps.Options[2]}, Via: "form"}, "", nil},
		{"picks and text", pickSteps, accept(map[string]any{"choice": []any{"test"}, "text": "and the logs"}),
			ui.Answer{Text: "unit, and the logs", Options: []ui.Option{pickSteps.Options[1]}, Via: "form"}, "", nil},
		{"text beside options", pickEnv, accept(map[string]any{"choice": "Staging", "text": "the canary"}),
			ui.Answer{Text: "the canary", Via: "form"}, "", nil},
		{"text", freeForm, accept(map[string]any{"text": "feature/x"}), ui.Answer{Text: "feature/x", Via: "form"}, "", nil},
		{"decline", pickEnv, response{action: "decline"}, ui.Answer{}, ui.CodeAskDeclined, nil},
		{"cancel", pickSteps, response{action: "cancel"}, ui.Answer{}, ui.CodeAskCancelled, nil},
		{"elicit error", pickEnv, response{err: elicitErr}, ui.Answer{}, ui.CodeProviderFailed, elicitErr},
		{"coded elicit error", pickEnv, response{err: ui.NewError(ui.CodeAskDeclined, "the user closed the session", nil)},
			ui.Answer{}, ui.CodeAskDeclined, nil},
		{"unknown action", pickEnv, response{action: "later"}, ui.Answer{}, ui.CodeInvalidAnswer, nil},
		{"choice of another type", pickEnv, accept(map[string]any{"choice": 2.0}), ui.Answer{}, ui.CodeInvalidAnswer, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := &formClient{responses: []response{tt.resp}}
			ans, err := ui.Ask(scope(t, ui.NewForm(client.elicit)), tt.req)
			if n := len(client.sent()); n != 1 {
				t.Fatalf("forms sent = %d, want 1", n)
			}
			if got, want := client.sent()[0], tt.req.Elicitation(); !reflect.DeepEqual(got, want) {
				t.Fatalf("form sent = %+v, want %+v", got, want)
			}
			if tt.code != "" {
				wantCode(t, "Ask()", err, tt.code)
				if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
					t.Fatalf("Ask() = %v, want it to wrap %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(ans, tt.want) {
				t.Fatalf("Ask() = %s, %v, want %s", show(ans), err, show(tt.want))
			}
		})
	}
}

// TestFormDirect calls Form.Ask without a registry: its answer is already
// complete, and an elicit error comes back as it is.
func TestFormDirect(t *testing.T) {
	client := &formClient{responses: []response{accept(map[string]any{"choice": "Staging"})}}
	ans, err := ui.NewForm(client.elicit).Ask(context.Background(), pickEnv)
	want := pickEnv.Options[0].Answer()
	want.Via = "form"
	if err != nil || !reflect.DeepEqual(ans, want) {
		t.Fatalf("Ask() = %s, %v, want %s", show(ans), err, show(want))
	}

	elicitErr := errors.New("connection closed")
	client = &formClient{responses: []response{{err: elicitErr}}}
	if _, err := ui.NewForm(client.elicit).Ask(context.Background(), pickEnv); err != elicitErr {
		t.Fatalf("Ask() = %v, want %v", err, elicitErr)
	}

	client = &formClient{}
	_, err = ui.NewForm(client.elicit).Ask(context.Background(), ui.Request{Question: " "})
	wantCode(t, "Ask() of an invalid request", err, ui.CodeInvalidRequest)
	if n := len(client.sent()); n != 0 {
		t.Fatalf("forms sent for an invalid request = %d, want 0", n)
	}

	for name, f := range map[string]*ui.Form{"nil *Form": nil, "NewForm(nil)": ui.NewForm(nil), "zero Form": {}} {
		_, err := f.Ask(context.Background(), pickEnv)
		wantCode(t, name+".Ask()", err, ui.CodeInvalidProvider)
		// The message says how to make a working Form: the registry knows no provider.
		var he *ui.HarnessError
		if errors.As(err, &he); he == nil || !strings.Contains(he.Message, "NewForm(elicit)") || !strings.Contains(he.Message, "ElicitFunc") {
			t.Errorf("%s.Ask() = %v, want a message that says NewForm(elicit) needs an ElicitFunc", name, err)
		}
	}

	client = &formClient{}
	var nilCtx context.Context
	_, err = ui.NewForm(client.elicit).Ask(nilCtx, pickEnv)
	wantCode(t, "Ask() with a nil context", err, ui.CodeInvalidRequest)
	if n := len(client.sent()); n != 0 {
		t.Fatalf("forms sent with a nil context = %d, want 0", n)
	}
}

// TestFormContextDone: when the caller's context is done by the time elicit
// returns, Ask returns ctx.Err() whatever elicit returned.
func TestFormContextDone(t *testing.T) {
	for _, tt := range []struct {
		name string
		resp response
	}{
		{"an answer", accept(map[string]any{"choice": "Production"})},
		{"a broken answer", accept(map[string]any{"choice": "Nowhere"})},
		{"cancel", response{action: "cancel"}},
		{"an error", response{err: errors.New("request cancelled")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			client := &formClient{responses: []response{tt.resp}}
			f := ui.NewForm(func(ctx context.Context, form ui.Elicitation) (string, map[string]any, error) {
				cancel() // the turn is cancelled while the form is shown
				return client.elicit(ctx, form)
			})
			if _, err := f.Ask(ctx, pickEnv); err != context.Canceled {
				t.Fatalf("Ask() = %v, want %v", err, context.Canceled)
			}
			if n := len(client.sent()); n != 1 {
				t.Fatalf("forms sent = %d, want 1", n)
			}
		})
	}

	t.Run("through a registry", func(t *testing.T) {
		ctx, cancel := context.WithCancel(ui.WithRegistry(context.Background(), &ui.Registry{}))
		defer cancel()
		f := ui.NewForm(func(context.Context, ui.Elicitation) (string, map[string]any, error) {
			cancel()
			return "cancel", nil, nil
		})
		defer register(t, ctx, f)()
		_, err := ui.Ask(ctx, pickEnv)
		wantCode(t, "Ask()", err, ui.CodeAskAborted)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Ask() = %v, want it to wrap %v", err, context.Canceled)
		}
	})

	t.Run("done before the form", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		client := &formClient{responses: []response{accept(map[string]any{"choice": "Production"})}}
		if _, err := ui.NewForm(client.elicit).Ask(ctx, pickEnv); err != context.Canceled {
			t.Fatalf("Ask() = %v, want %v", err, context.Canceled)
		}
		if n := len(client.sent()); n != 0 {
			t.Fatalf("forms sent = %d, want 0", n)
		}
	})
}

// TestFormResend: a response that breaks the request's rules is not an
// answer. The form goes again, led by one line that says why.
func TestFormResend(t *testing.T) {
	strictSteps := pickSteps
	strictSteps.DisallowCustom = true
	strictEnv := pickEnv
	strictEnv.DisallowCustom = true
	tests := []struct {
		name   string
		req    ui.Request
		broken map[string]any
		lead   string
	}{
		{"empty picks beside the text field", pickSteps, map[string]any{"choice": []any{}, "text": ""},
			"Pick at least one option, or type your own answer."},
		{"nothing beside the text field", pickEnv, map[string]any{},
			"Pick an option, or type your own answer."},
		{"empty picks", strictSteps, map[string]any{"choice": []any{}},
			"Pick at least one option."},
		{"no pick", strictEnv, map[string]any{"choice": ""},
			"Pick an option."},
		{"blank text", freeForm, map[string]any{"text": "  "},
			"Type your answer."},
		{"a pick on a free-form question", freeForm, map[string]any{"choice": "x"},
			"Type your answer."},
		{"a label not offered", pickEnv, map[string]any{"choice": "Moon"},
			`"Moon" is not one of the options: pick one of those listed.`},
		{"a pick not offered", pickSteps, map[string]any{"choice": []any{"lint", "deploy"}},
			`"deploy" is not one of the options: pick one of those listed.`},
		{"a pick twice", pickSteps, map[string]any{"choice": []any{"lint", "lint"}},
			"Pick each option only once."},
		{"several picks for one", pickEnv, map[string]any{"choice": []any{"Staging", "Production"}},
			"Pick only one option."},
		{"text where none is allowed", strictEnv, map[string]any{"choice": "Staging", "text": "the canary"},
			"Pick from the options: this question takes no answer of your own."},
		{"picks and text where none is allowed", strictSteps, map[string]any{"choice": []any{"lint"}, "text": "and more"},
			"Pick from the options: this question takes no answer of your own."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The second response answers: "main", "Production" or "build",
			// whose texts are their labels.
			fixed, want := map[string]any{"text": "main"}, "main"
			switch {
			case tt.req.MultiSelect:
				fixed, want = map[string]any{"choice": []any{"build"}}, "build"
			case len(tt.req.Options) > 0:
				fixed, want = map[string]any{"choice": "Production"}, "Production"
			}
			client := &formClient{responses: []response{accept(tt.broken), accept(fixed)}}
			ans, err := ui.Ask(scope(t, ui.NewForm(client.elicit)), tt.req)
			if err != nil || ans.Text != want {
				t.Fatalf("Ask() = %s, %v, want %q", show(ans), err, want)
			}
			forms := client.sent()
			if len(forms) != 2 {
				t.Fatalf("forms sent = %d, want 2", len(forms))
			}
			form := tt.req.Elicitation()
			if !reflect.DeepEqual(forms[0], form) {
				t.Fatalf("first form = %+v, want %+v", forms[0], form)
			}
			form.Message = tt.lead + "\n" + form.Message
			if !reflect.DeepEqual(forms[1], form) {
				t.Fatalf("second form = %+v, want %+v", forms[1], form)
			}
		})
	}
}

// TestFormGivesUp: after 3 forms that all broke the rules, INVALID_ANSWER
// naming the last broken rule; no fourth form is sent.
func TestFormGivesUp(t *testing.T) {
	empty := accept(map[string]any{"choice": []any{}})
	client := &formClient{responses: []response{
		empty,
		accept(map[string]any{"choice": []any{"x"}}),
		empty,
		accept(map[string]any{"choice": []any{"lint"}}),
	}}
	_, err := ui.Ask(scope(t, ui.NewForm(client.elicit)), pickSteps)
	wantCode(t, "Ask()", err, ui.CodeInvalidAnswer)
	want := "invalid answer: the answer is empty (the last of 3 refused forms)"
	if msg := err.(*ui.UserInteractionError).Message; msg != want {
		t.Fatalf("Ask() message = %q, want the last broken rule and the count of forms", msg)
	}
	forms := client.sent()
	if len(forms) != 3 {
		t.Fatalf("forms sent = %d, want 3", len(forms))
	}
	for i, lead := range []string{
		"",
		"Pick at least one option, or type your own answer.\n",
		`"x" is not one of the options: pick one of those listed.` + "\n",
	} {
		if want := lead + pickSteps.Elicitation().Message; forms[i].Message != want {
			t.Fatalf("form %d message = %q, want %q", i+1, forms[i].Message, want)
		}
	}
}

// TestFormAskAll: a registry asks a batch of a Form one form per question,
// in turn, and stops at the first outcome that is not an answer.
func TestFormAskAll(t *testing.T) {
	reqs := []ui.Request{pickEnv, pickSteps, freeForm}
	client := &formClient{responses: []response{
		accept(map[string]any{"choice": "Production"}),
		accept(map[string]any{"choice": []any{}}), // sent again
		accept(map[string]any{"choice": []any{"lint", "test"}}),
		accept(map[string]any{"text": "feature/x"}),
	}}
	answers, err := ui.AskAll(scope(t, ui.NewForm(client.elicit)), reqs)
	var got []string
	for _, a := range answers {
		got = append(got, a.Text)
	}
	if want := []string{"Production", "lint, unit", "feature/x"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("AskAll() = %q, %v, want %q", got, err, want)
	}
	var questions []string
	for _, f := range client.sent() {
		questions = append(questions, f.Message[strings.LastIndex(f.Message, "\n")+1:])
	}
	want := []string{"Production: the live site", "Which steps?", "Which steps?", "Name the branch."}
	if !reflect.DeepEqual(questions, want) {
		t.Fatalf("forms sent end with %q, want %q", questions, want)
	}

	client = &formClient{responses: []response{accept(map[string]any{"choice": "Staging"}), {action: "decline"}}}
	answers, err = ui.AskAll(scope(t, ui.NewForm(client.elicit)), reqs)
	wantCode(t, "AskAll()", err, ui.CodeAskDeclined)
	if len(answers) != 1 || answers[0].Text != "stg" || len(client.sent()) != 2 {
		t.Fatalf("AskAll() = %d answers after %d forms, want 1 answer (stg) after 2 forms",
			len(answers), len(client.sent()))
	}
}

// TestFormRegister: the registry refuses a nil *Form, and knows nothing
// more of Forms: a Form that cannot send is registered, and each of its asks
// fails with INVALID_PROVIDER, saying how to make a working one.
func TestFormRegister(t *testing.T) {
	ctx := ui.WithRegistry(context.Background(), &ui.Registry{})
	_, err := ui.Register(ctx, (*ui.Form)(nil))
	wantCode(t, "Register(nil *Form)", err, ui.CodeInvalidProvider)
	for name, p := range map[string]ui.Provider{"NewForm(nil)": ui.NewForm(nil), "zero Form": &ui.Form{}} {
		ctx := ui.WithRegistry(context.Background(), &ui.Registry{})
		dispose, err := ui.Register(ctx, p)
		if err != nil {
			t.Fatalf("Register(%s) = %v, want nil", name, err)
		}
		_, err = ui.Ask(ctx, pickEnv)
		wantCode(t, "Ask() of "+name, err, ui.CodeInvalidProvider)
		if !strings.Contains(err.Error(), "NewForm") {
			t.Errorf("Ask() of %s = %v, want a message that names NewForm", name, err)
		}
		dispose()
	}
}

// TestFormConcurrent asks one Form from several goroutines at once; run
// with -race.
func TestFormConcurrent(t *testing.T) {
	f := ui.NewForm(func(_ context.Context, form ui.Elicitation) (string, map[string]any, error) {
		return "accept", map[string]any{"text": form.Message}, nil
	})
	ctx := scope(t, f)
	const n = 8
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		q := strings.Repeat("?", i+1)
		go func() {
			ans, err := ui.Ask(ctx, ui.Request{Question: q})
			if err == nil && ans.Text != q {
				err = errors.New("answer " + ans.Text + " to question " + q)
			}
			errs <- err
		}()
	}
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Fatalf("Ask() = %v, want nil", err)
		}
	}
}

// TestFormElicitIgnoresContext: when ctx ends while an elicit that ignores
// ctx still blocks, Ask returns at once, and the response that comes later
// is dropped. No goroutine outlives the elicit.
func TestFormElicitIgnoresContext(t *testing.T) {
	for _, tt := range []struct {
		name string
		end  func(cancel context.CancelFunc, dispose func())
		ask  func(ctx context.Context, f *ui.Form) error
		want func(t *testing.T, err error)
	}{
		{
			name: "direct, cancelled",
			end:  func(cancel context.CancelFunc, _ func()) { cancel() },
			ask:  func(ctx context.Context, f *ui.Form) error { _, err := f.Ask(ctx, pickEnv); return err },
			want: func(t *testing.T, err error) {
				if err != context.Canceled {
					t.Fatalf("Ask() = %v, want %v", err, context.Canceled)
				}
			},
		},
		{
			name: "registered, disposed",
			end:  func(_ context.CancelFunc, dispose func()) { dispose() },
			ask:  func(ctx context.Context, _ *ui.Form) error { _, err := ui.Ask(ctx, pickEnv); return err },
			want: func(t *testing.T, err error) { wantCode(t, "Ask()", err, ui.CodeAskAborted) },
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			started, release, returned := make(chan struct{}), make(chan struct{}), make(chan struct{})
			f := ui.NewForm(func(context.Context, ui.Elicitation) (string, map[string]any, error) {
				defer close(returned)
				close(started)
				<-release // a client that ignores ctx
				return "accept", map[string]any{"choice": "Production"}, nil
			})
			ctx, cancel := context.WithCancel(ui.WithRegistry(context.Background(), &ui.Registry{}))
			defer cancel()
			dispose := register(t, ctx, f)
			defer dispose()
			done := make(chan error, 1)
			go func() { done <- tt.ask(ctx, f) }()
			<-started
			tt.end(cancel, dispose)
			select {
			case err := <-done:
				tt.want(t, err)
			case <-time.After(10 * time.Second): // a failure, not synchronisation
				close(release)
				t.Fatal("Ask() still waits for an elicit that ignores ctx, after ctx ended")
			}
			close(release)
			<-returned
			waitGoroutines(t, before)
		})
	}
}

// TestFormElicitPanics: a panic in elicit reaches the caller of Ask, on the
// caller's goroutine, as a provider's panic does.
func TestFormElicitPanics(t *testing.T) {
	f := ui.NewForm(func(context.Context, ui.Elicitation) (string, map[string]any, error) {
		panic("the SDK broke")
	})
	defer func() {
		if v := recover(); v != "the SDK broke" {
			t.Fatalf("recover() = %v, want the elicit's panic", v)
		}
	}()
	_, _ = f.Ask(context.Background(), pickEnv)
	t.Fatal("Ask() returned, want the elicit's panic")
}
