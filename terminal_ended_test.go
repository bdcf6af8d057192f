package userinteraction_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// These tests check what the Terminal tells the human about how a question
// ended, and that it has told it by the time Ask returns: the program's next
// output, or its exit, comes after.

// elsewhere returns a provider that answers as another UI once the
// Terminal's question is on the screen (shown receives), with ans or err.
func elsewhere(shown <-chan struct{}, ans ui.Answer, err error) ui.Provider {
	return ui.ProviderFunc(func(ctx context.Context, req ui.Request) (ui.Answer, error) {
		select {
		case <-shown:
		case <-ctx.Done():
			return ui.Answer{}, ctx.Err()
		}
		return ans, err
	})
}

// TestTerminalSaysHowItEnded: when another UI answers or declines, when the
// deadline passes, or when the asker stops, the Terminal writes one line
// that says so, and the line is in its output when Ask has returned. Where
// another UI answered, the line names it from the answer's Via and shows
// the rows picked, then their labels. A line written after the program's next
// one, or lost when it exits, or a decline that reads as an answer, fails.
func TestTerminalSaysHowItEnded(t *testing.T) {
	deploy := ui.Request{
		Question: "Deploy?",
		Options:  []ui.Option{{Label: "Delete", Value: "delete"}, {Label: "Keep", Value: "keep"}},
	}
	tests := []struct {
		name string
		req  ui.Request
		ans  ui.Answer // the other UI's answer
		err  error     // or its error
		want string
	}{
		{name: "answered on the page", req: deploy, ans: ui.Answer{Text: "delete", Via: "page"}, want: `Answered on the page: #1 "Delete".`},
		{name: "answered in the form", req: deploy, ans: ui.Answer{Text: "keep", Via: "form"}, want: `Answered in the form: #2 "Keep".`},
		{name: "answered in a named client", req: deploy, ans: ui.Answer{Text: "keep", Via: "Claude Code"}, want: `Answered in "Claude Code": #2 "Keep".`},
		{name: "answered by a UI with a hostile name", req: deploy, ans: ui.Answer{Text: "keep", Via: "page\x1b[2J: Delete"}, want: `Answered elsewhere: #2 "Keep".`},
		{name: "answered by a UI without a name", req: deploy, ans: ui.Answer{Text: "keep"}, want: `Answered on another screen: #2 "Keep".`},
		{
			name: "picks and own words",
			req:  services,
			ans:  ui.Answer{Options: []ui.Option{{Label: "api"}, {Label: "web"}}, Text: "the cron\x1b[K", Via: "page"},
			want: `Answered on the page: #1 #3 "api", "web", own words "the cron\x1b[K".`,
		},
		{name: "own words", req: freeForm, ans: ui.Answer{Text: "feature/x", Via: "inbox"}, want: `Answered in the inbox: "feature/x".`},
		{name: "declined", req: deploy, err: ui.NewError(ui.CodeAskDeclined, "declined", nil), want: "Declined on another screen."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, typing := io.Pipe()
			defer typing.Close()
			out := newPromptWriter()
			shown := make(chan struct{})
			go func() {
				<-out.prompted
				close(shown)
			}()
			_, err := ui.FirstOf(ui.NewTerminal(in, out), elsewhere(shown, tt.ans, tt.err)).Ask(context.Background(), tt.req)
			if (err != nil) != (tt.err != nil) {
				t.Fatalf("Ask() = %v, want the other UI's outcome", err)
			}
			// FirstOf returns once the Terminal's Ask has returned.
			if want := "\n> \n" + tt.want + "\n"; !strings.HasSuffix(out.String(), want) {
				t.Fatalf("when Ask returned, the Terminal had written %q, want it to end with %q", out.String(), want)
			}
		})
	}

	for _, tt := range []struct {
		name string
		ctx  func() (context.Context, func())
		want string
	}{
		{
			name: "the deadline passed",
			ctx: func() (context.Context, func()) {
				ctx := newDeadlineContext(time.Minute)
				return ctx, func() { close(ctx.done) }
			},
			want: "No answer came before the deadline.",
		},
		{
			name: "the asker stopped",
			ctx:  func() (context.Context, func()) { return context.WithCancel(context.Background()) },
			want: "The agent no longer needs an answer.",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, typing := io.Pipe()
			defer typing.Close()
			out := newPromptWriter()
			ctx, end := tt.ctx()
			done := make(chan error, 1)
			go func() {
				_, err := ui.NewTerminal(in, out).Ask(ctx, deleteIt)
				done <- err
			}()
			<-out.prompted
			end()
			if err := <-done; err != ctx.Err() {
				t.Fatalf("Terminal.Ask() = %v, want %v", err, ctx.Err())
			}
			if want := "\n> \n" + tt.want + "\n"; !strings.HasSuffix(out.String(), want) {
				t.Fatalf("when Ask returned, the Terminal had written %q, want it to end with %q", out.String(), want)
			}
		})
	}
}

// TestTerminalBatchAnsweredElsewhere: when another UI answers a whole batch
// while the human has typed part of it here, the Terminal says where the
// batch was answered and that the answers typed here were not used, never
// dropping them without a word.
func TestTerminalBatchAnsweredElsewhere(t *testing.T) {
	in, typing := io.Pipe()
	defer typing.Close()
	out := newPromptWriter()
	second := make(chan struct{})
	go func() {
		<-out.prompted
		_, _ = io.WriteString(typing, "2\n") // the first question, answered here
		<-out.prompted
		close(second)
	}()
	page := ui.ProviderFunc(func(ctx context.Context, req ui.Request) (ui.Answer, error) {
		<-second // FirstOf asks a provider that is not a BatchProvider one question after another
		if len(req.Options) > 0 {
			return req.Options[0].Answer(), nil
		}
		return ui.Answer{Text: "the page's", Via: "page"}, nil
	})
	answers, err := ui.FirstOf(ui.NewTerminal(in, out), page).(ui.BatchProvider).AskAll(context.Background(),
		[]ui.Request{freeForm, deleteIt, question})
	if err != nil || len(answers) != 3 || answers[2].Via != "page" {
		t.Fatalf("AskAll() = %+v, %v, want the page's three answers", answers, err)
	}
	got := out.String()
	if want := "Question 2 of 3\n"; !strings.Contains(got, want) {
		t.Fatalf("the Terminal wrote %q, want the second question shown", got)
	}
	if want := "\n> \nThe questions were answered on the page.\nYour answer here was not used.\n"; !strings.HasSuffix(got, want) {
		t.Fatalf("when AskAll returned, the Terminal had written %q, want it to end with %q", got, want)
	}
}

// TestTerminalShowsAgent: the request's agent is on a row of its own, led
// by the mark of the model's text: its name, or its ID when it has none.
func TestTerminalShowsAgent(t *testing.T) {
	for _, tt := range []struct {
		agent *ui.Agent
		want  string
	}{
		{agent: &ui.Agent{ID: "a1", Name: "cleanup-bot"}, want: "| from cleanup-bot\n| Delete notes.txt?\n"},
		{agent: &ui.Agent{ID: "a1"}, want: "| from a1\n| Delete notes.txt?\n"},
		{agent: &ui.Agent{}, want: "| Delete notes.txt?\n"},
	} {
		req := deleteIt
		req.Agent = tt.agent
		_, out, _ := askTerminal(t, req, "")
		if !strings.HasPrefix(out, tt.want) {
			t.Errorf("agent %+v: the Terminal wrote %q, want it to start with %q", *tt.agent, out, tt.want)
		}
		checkScreen(t, req, strings.TrimSuffix(out, "\n"), 80)
	}
}

// TestTerminalAnswersVia: every answer the Terminal gives names it as the
// UI that answered, through a registry too.
func TestTerminalAnswersVia(t *testing.T) {
	term := ui.NewTerminal(strings.NewReader("2\n2\nfeature/x\n1,3\n"), io.Discard)
	ans, err := term.Ask(context.Background(), deleteIt)
	if err != nil || ans.Via != "terminal" {
		t.Fatalf("Terminal.Ask() = %s via %q, %v, want via terminal", show(ans), ans.Via, err)
	}
	answers, err := ui.AskAll(scope(t, term), []ui.Request{deleteIt, freeForm, steps})
	if err != nil || len(answers) != 3 {
		t.Fatalf("AskAll() = %+v, %v, want three answers", answers, err)
	}
	for i, a := range answers {
		if a.Via != "terminal" {
			t.Errorf("AskAll() answer %d = %s via %q, want via terminal", i, show(a), a.Via)
		}
	}
}

// expiringWriter records what is written, and passes the deadline of ctx
// while it writes the first prompt: the write is done, but the Terminal may
// see the deadline before it learns that.
type expiringWriter struct {
	mu      sync.Mutex
	out     strings.Builder
	expire  func()
	expired bool
}

func (w *expiringWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.out.Write(p)
	if !w.expired && strings.HasSuffix(string(p), "> ") {
		w.expired = true
		w.expire()
		runtime.Gosched() // the Terminal sees the deadline before this write returns
	}
	return len(p), nil
}

func (w *expiringWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.String()
}

// TestTerminalSaysBeforeReturningAfterAWrite: the deadline passes just as
// the prompt is written. The line that says so is in the output when Ask
// returns, every time. Else the Terminal took the prompt's write, done but
// not yet reported, for one stuck in the output, and wrote the line after
// returning (1 try in 20 in TestEndingsRace under -race).
func TestTerminalSaysBeforeReturningAfterAWrite(t *testing.T) {
	for i := 0; i < 300; i++ {
		in, typing := io.Pipe()
		step := newExpiring(context.Background())
		out := &expiringWriter{expire: step.expire}
		_, err := ui.NewTerminal(in, out).Ask(step, ui.Request{Question: "Deploy?"})
		said := out.String()
		typing.Close()
		if err != context.DeadlineExceeded || !strings.HasSuffix(said, "No answer came before the deadline.\n") {
			t.Fatalf("try %d: when Terminal.Ask() returned %v, it had written %q, want the deadline's line at its end", i, err, said)
		}
	}
}

// TestTerminalAsksAgainWhenAnAnswerIsNotKept: when the host's keep
// (WithKeep) cannot keep the human's answer, as when its durable write
// fails, the Terminal says so and asks again, and the next answer it keeps
// is the one returned. It neither waits for a ctx that does not end nor
// drops the human's answer without a word.
func TestTerminalAsksAgainWhenAnAnswerIsNotKept(t *testing.T) {
	var offered []string
	keeps := func(o []ui.Outcome) error {
		offered = append(offered, o[0].Answer.Text)
		if len(offered) == 1 {
			return errors.New("the database is away") // the first write fails
		}
		return nil
	}
	var out strings.Builder
	term := ui.NewTerminal(strings.NewReader("1\n2\n"), &out)
	ctx := ui.WithKeep(context.Background(), keeps)
	ans, err := term.Ask(ctx, ui.Request{Question: "Deploy where?", Options: []ui.Option{{Label: "Staging"}, {Label: "Production"}}})
	if err != nil || ans.Text != "Production" {
		t.Fatalf("Ask() = %s, %v, want the answer kept, Production", show(ans), err)
	}
	if want := []string{"Staging", "Production"}; strings.Join(offered, ",") != strings.Join(want, ",") {
		t.Fatalf("keep was given %q, want %q", offered, want)
	}
	if got := out.String(); strings.Count(got, "Deploy where?") != 2 || !strings.Contains(got, "That answer could not be kept.") {
		t.Fatalf("the Terminal wrote %q, want the question twice, with the reason between", got)
	}
}

// endedLine asks req at a Terminal raced by another UI, which answers ans
// once the question is shown; narrowTo, when set, is the terminal's width
// from then on ($COLUMNS). It returns what the Terminal wrote after its
// prompt: the line that says how the question ended.
func endedLine(t *testing.T, req ui.Request, ans ui.Answer, narrowTo int) string {
	t.Helper()
	in, typing := io.Pipe()
	defer typing.Close()
	out := newPromptWriter()
	shown := make(chan struct{})
	go func() {
		<-out.prompted
		if narrowTo > 0 {
			os.Setenv("COLUMNS", strconv.Itoa(narrowTo)) // restored by the caller's t.Setenv
		}
		close(shown)
	}()
	if _, err := ui.FirstOf(ui.NewTerminal(in, out), elsewhere(shown, ans, nil)).Ask(context.Background(), req); err != nil {
		t.Fatalf("Ask() = %v, want the other UI's answer", err)
	}
	said := out.String()
	i := strings.LastIndex(said, "\n> \n")
	if i < 0 {
		t.Fatalf("the Terminal wrote %q, want its prompt, then how the question ended", said)
	}
	return said[i+len("\n> \n"):]
}

// checkEndedRows fails unless ending, drawn at width columns, takes at most
// two screen rows, no line of it is wider than the terminal, and a row that
// starts with the model's text (a label in quotes) is led by "| ", as every
// row of the model's text is. It returns the rows.
func checkEndedRows(t *testing.T, ending string, width int) []string {
	t.Helper()
	for _, l := range strings.Split(ending, "\n") {
		if n := columns(l); n > width {
			t.Fatalf("width %d: a line of %d columns, which the terminal wraps: %q", width, n, l)
		}
	}
	rows := screen(strings.TrimSuffix(ending, "\n"), width)
	if len(rows) > 2 {
		t.Fatalf("width %d: the ending takes %d rows, want at most 2:\n%s", width, len(rows), strings.Join(rows, "\n"))
	}
	own := map[string]bool{"Answered": true, "on": true, "the": true, "page:": true}
	for _, r := range rows[1:] {
		if f := strings.Fields(r); !strings.HasPrefix(r, "| ") && (len(f) == 0 || !own[f[0]] && !strings.HasPrefix(f[0], "#")) {
			t.Fatalf("width %d: the row %q starts with the model's text without the lead \"| \":\n%s", width, r, strings.Join(rows, "\n"))
		}
	}
	return rows
}

// TestTerminalEndedNamesTheRow: the line that says another UI answered
// names the row numbers of the picks first, then their labels, so that it
// says which option at 20 to 24 columns too (it read "Answered on the…"),
// and two labels that share their first 64 runes read apart. It takes at
// most two rows at the terminal's width, the numbers whole, the labels cut
// with an ellipsis.
func TestTerminalEndedNamesTheRow(t *testing.T) {
	long := strings.Repeat("Delete the merged branches of the api service ", 2) // 92 runes
	twins := ui.Request{Question: "Clean up?", Options: []ui.Option{{Label: long + "and their tags"}, {Label: long + "but keep their tags"}}}
	for width := 20; width <= 80; width++ {
		t.Setenv("COLUMNS", strconv.Itoa(width))
		var endings []string
		for row, o := range twins.Options {
			ending := endedLine(t, twins, ui.Answer{Text: o.Label, Via: "page"}, 0)
			checkEndedRows(t, ending, width)
			if number := fmt.Sprintf("#%d", row+1); !strings.Contains(ending, number) {
				t.Fatalf("width %d: the Terminal ended with %q, want it to name %s", width, ending, number)
			}
			endings = append(endings, ending)
		}
		if endings[0] == endings[1] {
			t.Fatalf("width %d: both answers end with %q, want them apart", width, endings[0])
		}
	}

	t.Setenv("COLUMNS", "80")
	deleteAll := ui.Request{Question: "Clean up?", Options: []ui.Option{{Label: "Keep"}, {Label: "Delete all"}}}
	if got, want := endedLine(t, deleteAll, ui.Answer{Text: "Delete all", Via: "page"}, 0), "Answered on the page: #2 \"Delete all\".\n"; got != want {
		t.Fatalf("the Terminal ended with %q, want %q", got, want)
	}
}

// TestTerminalEndedAtTheWidthOfNow: the terminal got narrower after the
// question was shown, from 80 columns to 40, as when the human splits a tmux
// pane. The line that says another UI answered is wrapped at the width of
// when it is written. Wrapped at 80, the terminal wrapped it again, and part
// of the label started a screen row with no lead.
func TestTerminalEndedAtTheWidthOfNow(t *testing.T) {
	t.Setenv("COLUMNS", "80")
	label := "Delete every merged branch but the release branches and their tags"
	req := ui.Request{Question: "Clean up?", Options: []ui.Option{{Label: "Keep"}, {Label: label}}}
	ending := endedLine(t, req, ui.Answer{Text: label, Via: "page"}, 40)
	if rows := checkEndedRows(t, ending, 40); !strings.Contains(ending, "#2") {
		t.Fatalf("the Terminal ended with\n%s\nwant it to name #2", strings.Join(rows, "\n"))
	}
}
