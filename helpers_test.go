package userinteraction_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

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
func scope(t testing.TB, p ui.Provider) context.Context {
	t.Helper()
	ctx := ui.WithRegistry(context.Background(), &ui.Registry{})
	t.Cleanup(register(t, ctx, p))
	return ctx
}

// register registers p in the registry of ctx and returns its dispose func,
// failing the test when Register fails.
func register(t testing.TB, ctx context.Context, p ui.Provider) (dispose func()) {
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

// askAnswer asks req of a provider that answers ans.
func askAnswer(t *testing.T, req ui.Request, ans ui.Answer) (ui.Answer, error) {
	t.Helper()
	return ui.Ask(scope(t, ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) { return ans, nil })), req)
}

// askWith asks req of a provider that answers ans and returns Ask's error.
func askWith(t *testing.T, req ui.Request, ans ui.Answer) error {
	_, err := askAnswer(t, req, ans)
	return err
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
	if a.Via != "" {
		s += " via " + a.Via
	}
	return s + "}"
}

// myError is an error type whose methods need a non-nil receiver.
type myError struct{ msg string }

func (e *myError) Error() string { return e.msg }

func (e *myError) Unwrap() error { return errors.New(e.msg) }

// marshal returns the JSON of v, failing the test when it has none.
func marshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal(%T) error = %v", v, err)
	}
	return b
}

// run runs tool once on rp and returns the tool's result and the questions
// left pending.
func run(rp *ui.Replay, tool func(context.Context) string) (string, []ui.Pending) {
	var result string
	pending := rp.Run(context.Background(), func(ctx context.Context) { result = tool(ctx) })
	return result, pending
}

// firstID returns the ID of the first ask of req in a run.
func firstID(req ui.Request) string {
	var rp ui.Replay
	_, _ = rp.Ask(context.Background(), req)
	return rp.Pending()[0].ID
}

var (
	whereTo = ui.Request{
		Question:       "Deploy where?",
		Options:        []ui.Option{{Label: "Staging", Value: "staging"}, {Label: "Production", Value: "production"}},
		DisallowCustom: true,
	}
	yesNo = []ui.Option{{Label: "Yes"}, {Label: "No", Recommended: true}}
)

// deployTool asks two questions, the second depending on the first answer,
// and acts only after both.
func deployTool(ctx context.Context) string {
	target, err := ui.Ask(ctx, whereTo)
	if err != nil {
		return "not deployed: " + ui.CodeOf(err)
	}
	ok, err := ui.Ask(ctx, ui.Request{Question: "Deploy to " + target.Text + " now?", Options: yesNo})
	if err != nil {
		return "not deployed: " + ui.CodeOf(err)
	}
	return "deploy to " + target.Text + ": " + ok.Text
}

var (
	deleteIt = ui.Request{
		Question:       "Delete notes.txt?",
		Options:        []ui.Option{{Label: "Delete"}, {Label: "Keep"}},
		DisallowCustom: true,
	}
	freeForm = ui.Request{Question: "Name the branch."}
)

// writerFunc is an io.Writer that calls itself.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// offeredText reports whether text is the value (or label) of an option of
// req.
func offeredText(req ui.Request, text string) bool {
	for _, o := range req.Options {
		if o.Answer().Text == text {
			return true
		}
	}
	return false
}

// The batch of three questions that the AskAll tests ask of each provider.
var (
	target = ui.Request{
		Header:   "Target",
		Question: "Which environment?",
		Options: []ui.Option{
			{Label: "Staging", Value: "staging", Recommended: true},
			{Label: "Production", Value: "production"},
		},
		DisallowCustom: true,
	}
	migrations = ui.Request{
		Header:      "Migrations",
		Question:    "Which migrations?",
		Options:     []ui.Option{{Label: "41"}, {Label: "42"}, {Label: "43"}},
		MultiSelect: true,
	}
	reason = ui.Request{Question: "Why now?"}
	three  = []ui.Request{target, migrations, reason}
)

// texts returns the Text of each answer.
func texts(answers []ui.Answer) []string {
	out := []string{}
	for _, a := range answers {
		out = append(out, a.Text)
	}
	return out
}

// bytesPerRun returns the average number of heap bytes that f allocates.
func bytesPerRun(runs int, f func()) uint64 {
	f() // warm up, as testing.AllocsPerRun does
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < runs; i++ {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(runs)
}

// manyOptions returns a request with n options, each with a description, so
// that the form's message holds one line per option.
func manyOptions(n int) ui.Request {
	req := ui.Request{Question: "Which file?"}
	for i := 0; i < n; i++ {
		req.Options = append(req.Options, ui.Option{Label: fmt.Sprint("file-", i), Description: "a file of the repository"})
	}
	return req
}

// wantValidate checks req.Validate(): nil when want is empty, else
// INVALID_REQUEST with a message containing want.
func wantValidate(t *testing.T, req ui.Request, want string) {
	t.Helper()
	err := req.Validate()
	if want == "" {
		if err != nil {
			t.Fatalf("Validate() = %v, want nil", err)
		}
		return
	}
	wantCode(t, "Validate()", err, ui.CodeInvalidRequest)
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("Validate() = %q, want a message containing %q", err, want)
	}
}
