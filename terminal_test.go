package userinteraction_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

var (
	deployWhere = ui.Request{
		Header:   "Deploy",
		Question: "Deploy where?",
		Options: []ui.Option{
			{Label: "Staging", Description: "the test cluster", Recommended: true},
			{Label: "Production"},
			{Label: "Both"},
		},
	}
	services = ui.Request{
		Question:    "Restart which services?",
		Options:     []ui.Option{{Label: "api"}, {Label: "worker"}, {Label: "web"}},
		MultiSelect: true,
	}
	steps = ui.Request{
		Question: "Which steps?",
		Options: []ui.Option{
			{Label: "lint", Recommended: true},
			{Label: "test", Value: "unit"},
			{Label: "build"},
			{Label: "deploy", Recommended: true},
		},
		MultiSelect:    true,
		DisallowCustom: true,
	}
)

// askTerminal asks req through a Registry of a Terminal that reads input,
// and returns the answer, what the terminal wrote and the error.
func askTerminal(t *testing.T, req ui.Request, input string) (ui.Answer, string, error) {
	t.Helper()
	var out bytes.Buffer
	ans, err := ui.Ask(scope(t, ui.NewTerminal(strings.NewReader(input), &out)), req)
	return ans, out.String(), err
}

func TestTerminalShowsQuestion(t *testing.T) {
	tests := []struct {
		req  ui.Request
		want string
	}{
		{
			req: deployWhere,
			want: "| Deploy\n| Deploy where?\n" +
				"* 1. Staging\n     | the test cluster\n  2. Production\n  3. Both\n" +
				"1-3, Enter for 1, or type your own answer\n> ",
		},
		{
			req: steps,
			want: "| Which steps?\n" +
				"* 1. lint\n  2. test\n  3. build\n* 4. deploy\n" +
				"one or more of 1-4, such as 1,4, or Enter for 1,4\n> ",
		},
		{req: deleteIt, want: "| Delete notes.txt?\n  1. Delete\n  2. Keep\n1-2\n> "},
		{
			req:  ui.Request{Question: "Go?", Options: []ui.Option{{Label: "Go"}}},
			want: "| Go?\n  1. Go\n1, or type your own answer\n> ",
		},
		{req: freeForm, want: "| Name the branch.\nType your answer.\n> "},
	}
	for _, tt := range tests {
		_, out, err := askTerminal(t, tt.req, "")
		wantCode(t, "Ask() at end of input", err, ui.CodeAskCancelled)
		if out != tt.want+"\n" { // the line end after end of input
			t.Errorf("terminal wrote %q, want %q", out, tt.want)
		}
	}
}

// TestTerminalReplies checks how the terminal reads each reply, through Ask:
// the answer after Ask completed it, or the refusals it wrote before the
// line that answered.
func TestTerminalReplies(t *testing.T) {
	tests := []struct {
		name     string
		req      ui.Request
		input    string
		want     string   // the answer's text
		refusals []string // lines written after refused replies, in order
	}{
		{name: "number", req: deployWhere, input: "2\n", want: "Production"},
		{name: "number with spaces and CRLF", req: deployWhere, input: "  3 \r\n", want: "Both"},
		{name: "label in any case", req: deployWhere, input: "pRoDuCtIoN\n", want: "Production"},
		{
			name:  "label typed with a zero-width space",
			req:   ui.Request{Question: "q", Options: []ui.Option{{Label: "Yes", Value: "y"}, {Label: "No"}}},
			input: "Ye\u200bs\n",
			want:  "y",
		},
		{
			name:  "label with a default-ignorable mark, typed without",
			req:   ui.Request{Question: "q", Options: []ui.Option{{Label: "No\u034f", Value: "n"}}},
			input: "NO\n",
			want:  "n",
		},
		{name: "labels typed as the answer shows them", req: steps, input: "lint, Build\n", want: "lint, build"},
		{name: "labels typed without spaces", req: steps, input: "deploy,test\n", want: "unit, deploy"},
		{name: "labels typed, custom allowed", req: services, input: "api, worker\n", want: "api, worker"},
		{
			name:     "labels and own words",
			req:      services,
			input:    "api, the cron\nthe cron\n",
			want:     "the cron",
			refusals: []string{`"the cron" is not an option: type only options, or only your own words.`},
		},
		{
			name:     "a label typed twice",
			req:      steps,
			input:    "lint, lint\n1\n",
			want:     "lint",
			refusals: []string{"Option 1 is given twice."},
		},
		{
			name:     "a label typed twice, custom allowed",
			req:      services,
			input:    "api, API\napi\n",
			want:     "api",
			refusals: []string{"Option 1 is given twice."},
		},
		{
			name: "a whole label that holds a comma",
			req: ui.Request{
				Question:    "q",
				Options:     []ui.Option{{Label: "a"}, {Label: "b"}, {Label: "a, b", Value: "both"}},
				MultiSelect: true,
			},
			input: "a, b\n",
			want:  "both",
		},
		{
			name: "labels that hold commas",
			req: ui.Request{
				Question:       "q",
				Options:        []ui.Option{{Label: "Read, write"}, {Label: "Execute"}},
				MultiSelect:    true,
				DisallowCustom: true,
			},
			input:    "Read, write, Execute\n1,2\n",
			want:     "Read, write, Execute",
			refusals: []string{"Some labels hold commas: type the numbers of the options, such as #1,#2."},
		},
		{
			name: "a label that holds a comma, alone",
			req: ui.Request{
				Question:       "q",
				Options:        []ui.Option{{Label: "Read, write", Value: "rw"}, {Label: "Execute"}},
				MultiSelect:    true,
				DisallowCustom: true,
			},
			input: "read,\u00a0 WRITE\n",
			want:  "rw",
		},
		{
			name:  "label with spaces around it",
			req:   ui.Request{Question: "q", Options: []ui.Option{{Label: " Padded ", Value: "p"}}, DisallowCustom: true},
			input: "padded\n",
			want:  "p",
		},
		{name: "Enter for the recommended option", req: deployWhere, input: "\n", want: "Staging"},
		{name: "own words", req: deployWhere, input: "the canary\n", want: "the canary"},
		{
			name:     "a number is always an option's",
			req:      deployWhere,
			input:    "7\n1\n",
			want:     "Staging",
			refusals: []string{"There is no option 7."},
		},
		{name: "zero", req: deployWhere, input: "0\n1\n", want: "Staging", refusals: []string{"There is no option 0."}},
		{
			name:     "several numbers on a single-select",
			req:      deployWhere,
			input:    "1,2\n2\n",
			want:     "Production",
			refusals: []string{"Pick one option."},
		},
		{
			name:     "commas only",
			req:      deployWhere,
			input:    ",\n2\n",
			want:     "Production",
			refusals: []string{"Type the number of an option."},
		},
		{name: "negative number is text", req: deployWhere, input: "-1\n", want: "-1"},
		{
			name:     "custom text disallowed",
			req:      deleteIt,
			input:    "later\n1\n",
			want:     "Delete",
			refusals: []string{`"later" is not an option: type its number.`},
		},
		{
			name:     "no recommendation for Enter",
			req:      deleteIt,
			input:    "\n2\n",
			want:     "Keep",
			refusals: []string{"No option is recommended: type a number."},
		},
		{name: "several numbers", req: steps, input: "4,1\n", want: "lint, deploy"},
		{name: "several numbers with spaces", req: steps, input: "2 3\n", want: "unit, build"},
		{name: "Enter for the recommended options", req: steps, input: "\n", want: "lint, deploy"},
		{name: "a label picks one", req: steps, input: "BUILD\n", want: "build"},
		{name: "a number twice", req: steps, input: "1,1\n1\n", want: "lint", refusals: []string{"Option 1 is given twice."}},
		{
			name:     "out of range among several",
			req:      steps,
			input:    "1,5\n1 2\n",
			want:     "lint, unit",
			refusals: []string{"There is no option 5."},
		},
		{name: "free-form takes numbers as text", req: freeForm, input: "42\n", want: "42"},
		{
			name:     "free-form needs text",
			req:      freeForm,
			input:    "\n  \nfeature/x\n",
			want:     "feature/x",
			refusals: []string{"Type an answer.", "Type an answer."},
		},
		{
			name:     "invalid UTF-8",
			req:      freeForm,
			input:    "caf\xe9\ncafé\n",
			want:     "café",
			refusals: []string{"That line is not valid UTF-8."},
		},
		{
			name:     "a line over 1 MiB",
			req:      freeForm,
			input:    strings.Repeat("x", 1<<20+1) + "\r\nshort\n",
			want:     "short",
			refusals: []string{"That line is longer than 1048576 bytes."},
		},
		{
			name:  "a line of 1 MiB",
			req:   freeForm,
			input: strings.Repeat("x", 1<<20) + "\r\n",
			want:  strings.Repeat("x", 1<<20),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ans, out, err := askTerminal(t, tt.req, tt.input)
			if err != nil || ans.Text != tt.want {
				t.Fatalf("Ask() = %s, %v, want %q", show(ans), err, tt.want)
			}
			var refusals []string
			for _, l := range strings.Split(out, "\n") {
				if refusal := strings.TrimPrefix(l, "> "); refusal != l && refusal != "" {
					refusals = append(refusals, refusal)
				}
			}
			if strings.Join(refusals, "|") != strings.Join(tt.refusals, "|") {
				t.Fatalf("refusals = %q, want %q; the terminal wrote:\n%s", refusals, tt.refusals, out)
			}
		})
	}
}

// TestTerminalEndOfInput: input that ends before a whole line, even with a
// number typed, is ASK_CANCELLED: typing "1" and then Ctrl-D must not
// confirm a deletion.
func TestTerminalEndOfInput(t *testing.T) {
	for _, input := range []string{"", "1", "Delete", "9\n"} {
		ans, _, err := askTerminal(t, deleteIt, input)
		wantCode(t, "Ask() with input "+input, err, ui.CodeAskCancelled)
		if ans.Text != "" {
			t.Fatalf("Ask() = %s, want no answer", show(ans))
		}
	}
}

// TestTerminalReadError: a read error is ASK_CANCELLED with the error as
// cause, not a silent end of input.
func TestTerminalReadError(t *testing.T) {
	errDisk := errors.New("read /dev/tty: input/output error")
	_, err := ui.Ask(scope(t, ui.NewTerminal(iotest.ErrReader(errDisk), io.Discard)), question)
	wantCode(t, "Ask()", err, ui.CodeAskCancelled)
	if !errors.Is(err, errDisk) {
		t.Fatalf("Ask() error = %v, want it to wrap the read error", err)
	}
}

// TestTerminalWriteError: a write error ends the ask with that error, which
// Ask reports as PROVIDER_FAILED.
func TestTerminalWriteError(t *testing.T) {
	errGone := errors.New("write /dev/tty: broken pipe")
	term := ui.NewTerminal(strings.NewReader("1\n"), writerFunc(func([]byte) (int, error) { return 0, errGone }))
	if _, err := term.Ask(context.Background(), deleteIt); err != errGone {
		t.Fatalf("Terminal.Ask() error = %v, want the write error", err)
	}
	_, err := ui.Ask(scope(t, term), deleteIt)
	wantCode(t, "Ask()", err, ui.CodeProviderFailed)
	if !errors.Is(err, errGone) {
		t.Fatalf("Ask() error = %v, want it to wrap the write error", err)
	}
}

// TestTerminalPipedAnswers: answers piped in answer the questions in order,
// one line each.
func TestTerminalPipedAnswers(t *testing.T) {
	ctx := scope(t, ui.NewTerminal(strings.NewReader("2\n\nfeature/x\n"), io.Discard))
	for _, tt := range []struct {
		req  ui.Request
		want string
	}{{deleteIt, "Keep"}, {deployWhere, "Staging"}, {freeForm, "feature/x"}} {
		if ans, err := ui.Ask(ctx, tt.req); err != nil || ans.Text != tt.want {
			t.Fatalf("Ask(%q) = %s, %v, want %q", tt.req.Question, show(ans), err, tt.want)
		}
	}
	_, err := ui.Ask(ctx, freeForm)
	wantCode(t, "Ask() after the input ended", err, ui.CodeAskCancelled)
}

// promptWriter collects what a terminal writes and reports each prompt on
// prompted.
type promptWriter struct {
	mu       sync.Mutex // guards out
	out      strings.Builder
	prompted chan struct{}
}

func newPromptWriter() *promptWriter { return &promptWriter{prompted: make(chan struct{}, 8)} }

func (w *promptWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.out.Write(p)
	w.mu.Unlock()
	if bytes.HasSuffix(p, []byte("> ")) {
		w.prompted <- struct{}{}
	}
	return len(p), nil
}

func (w *promptWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.String()
}

// TestTerminalHonoursContext: a cancelled step returns at once although no
// input comes; the line typed later answers the next question, whose output
// starts on a fresh line.
func TestTerminalHonoursContext(t *testing.T) {
	in, typing := io.Pipe()
	defer typing.Close()
	out := newPromptWriter()
	session := scope(t, ui.NewTerminal(in, out))

	ctx, cancel := context.WithCancel(session)
	done := askAsync(ctx, freeForm)
	<-out.prompted
	cancel()
	err := <-done
	wantCode(t, "Ask()", err, ui.CodeAskAborted)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Ask() error = %v, want it to wrap context.Canceled", err)
	}

	go func() {
		<-out.prompted
		_, _ = io.WriteString(typing, "later\n")
	}()
	if ans, err := ui.Ask(session, question); err != nil || ans.Text != "later" {
		t.Fatalf("Ask() = %s, %v, want the line typed later", show(ans), err)
	}
	if want := "Type your answer.\n> \nThe agent no longer needs an answer.\n| Proceed?\n"; !strings.Contains(out.String(), want) {
		t.Fatalf("terminal wrote %q, want the next question on a fresh line (%q)", out, want)
	}
}

// TestTerminalTakesTurns: concurrent asks are asked one at a time, each
// whole, and one that waits for its turn honours its own context.
func TestTerminalTakesTurns(t *testing.T) {
	in, typing := io.Pipe()
	defer typing.Close()
	out := newPromptWriter()
	session := scope(t, ui.NewTerminal(in, out))

	first := make(chan ui.Answer, 1)
	go func() {
		ans, _ := ui.Ask(session, deleteIt)
		first <- ans
	}()
	<-out.prompted // the first question has the turn

	ctx, cancel := context.WithCancel(session)
	waiting := askAsync(ctx, deployWhere)
	cancel()
	if err := <-waiting; ui.CodeOf(err) != ui.CodeAskAborted || !errors.Is(err, context.Canceled) {
		t.Fatalf("Ask() waiting for its turn = %v, want ASK_ABORTED wrapping context.Canceled", err)
	}

	second := make(chan ui.Answer, 1)
	go func() {
		ans, _ := ui.Ask(session, freeForm)
		second <- ans
	}()
	_, _ = io.WriteString(typing, "2\n")
	if ans := <-first; ans.Text != "Keep" {
		t.Fatalf("first Ask() = %s, want Keep", show(ans))
	}
	<-out.prompted
	_, _ = io.WriteString(typing, "main\n")
	if ans := <-second; ans.Text != "main" {
		t.Fatalf("second Ask() = %s, want main", show(ans))
	}
	if want := "1-2\n> | Name the branch.\n"; !strings.Contains(out.String(), want) {
		t.Fatalf("terminal wrote %q, want the questions one after the other", out)
	}
	if strings.Contains(out.String(), deployWhere.Question) {
		t.Fatalf("terminal wrote %q, want nothing of the cancelled question", out)
	}
}

// endlessLine is a reader of a line of n bytes of 'x', then "\n1\n".
type endlessLine struct{ n int }

func (r *endlessLine) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return copy(p, "\n1\n"), io.EOF
	}
	k := len(p)
	if k > r.n {
		k = r.n
	}
	for i := range p[:k] {
		p[i] = 'x'
	}
	r.n -= k
	return k, nil
}

// TestTerminalLongLineMemory: a line far over 1 MiB is refused without
// being buffered: reading a 64 MiB line allocates a small part of that.
func TestTerminalLongLineMemory(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ans, err := ui.NewTerminal(&endlessLine{n: 64 << 20}, io.Discard).Ask(context.Background(), deleteIt)
	runtime.ReadMemStats(&after)
	if err != nil || ans.Option == nil || ans.Option.Label != "Delete" {
		t.Fatalf("Terminal.Ask() = %s, %v, want Delete after the long line", show(ans), err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Fatalf("reading a 64 MiB line allocated %d bytes, want at most 8 MiB", got)
	}
}

// TestTerminalNotMadeByNewTerminal: Register refuses a nil Terminal; a zero
// Terminal registers, and its Ask fails with INVALID_PROVIDER naming
// NewTerminal instead of hanging. A nil context is INVALID_REQUEST, as
// Registry.Ask gives it, not a panic.
func TestTerminalNotMadeByNewTerminal(t *testing.T) {
	ctx := ui.WithRegistry(context.Background(), &ui.Registry{})
	dispose, err := ui.Register(ctx, &ui.Terminal{})
	if err != nil {
		t.Fatalf("Register(zero Terminal) = %v, want nil", err)
	}
	_, err = ui.Ask(ctx, question)
	wantCode(t, "Ask() of a zero Terminal", err, ui.CodeInvalidProvider)
	if !strings.Contains(err.Error(), "NewTerminal") {
		t.Errorf("Ask() of a zero Terminal = %v, want a message that names NewTerminal", err)
	}
	dispose()
	_, err = ui.Register(ui.WithRegistry(context.Background(), &ui.Registry{}), (*ui.Terminal)(nil))
	wantCode(t, "Register(nil *Terminal)", err, ui.CodeInvalidProvider)
	var out bytes.Buffer
	var nilCtx context.Context
	_, err = ui.NewTerminal(strings.NewReader("1\n"), &out).Ask(nilCtx, freeForm)
	wantCode(t, "Terminal.Ask() with a nil context", err, ui.CodeInvalidRequest)
	_, err = ui.NewTerminal(strings.NewReader("1\n"), &out).AskAll(nilCtx, []ui.Request{freeForm})
	wantCode(t, "Terminal.AskAll() with a nil context", err, ui.CodeInvalidRequest)
	if out.Len() > 0 {
		t.Fatalf("the Terminal wrote %q with a nil context, want nothing", out.String())
	}
	_, err = ui.Ask(scope(t, ui.NewTerminal(nil, nil)), question)
	wantCode(t, "Ask() of NewTerminal(nil, nil)", err, ui.CodeAskCancelled)
}

// TestTerminalAskAll: a batch is asked one question after another, each
// headed with its place and then its header, and answered in order, also
// when a registry's AskAll asks it.
func TestTerminalAskAll(t *testing.T) {
	var out bytes.Buffer
	term := ui.NewTerminal(strings.NewReader("2\n\nfeature/x\n"), &out)
	answers, err := term.AskAll(context.Background(), []ui.Request{deleteIt, steps, freeForm})
	if err != nil || len(answers) != 3 || answers[0].Option.Label != "Keep" || len(answers[1].Options) != 2 ||
		answers[2].Text != "feature/x" {
		t.Fatalf("Terminal.AskAll() = %+v, %v, want Keep, the recommended steps, feature/x", answers, err)
	}
	for i, heading := range []string{
		"Question 1 of 3\n| Delete notes.txt?",
		"> Question 2 of 3\n| Which steps?",
		"> Question 3 of 3\n| Name the branch.",
	} {
		if !strings.Contains(out.String(), heading) {
			t.Errorf("question %d: terminal wrote %q, want %q", i+1, out.String(), heading)
		}
	}

	// Through a registry: numbers pick several options, a header follows the place.
	out.Reset()
	ctx := scope(t, ui.NewTerminal(strings.NewReader("2\n1,3\nthe release\n"), &out))
	answers, err = ui.AskAll(ctx, three)
	if err != nil || !reflect.DeepEqual(texts(answers), []string{"production", "41, 43", "the release"}) {
		t.Fatalf("AskAll() = %q, %v, want production, 41, 43, the release", texts(answers), err)
	}
	for _, heading := range []string{
		"Question 1 of 3\n| Target\n",
		"Question 2 of 3\n| Migrations\n",
		"Question 3 of 3\n| Why now?\n",
	} {
		if !strings.Contains(out.String(), heading) {
			t.Errorf("terminal wrote %q, want %q", out.String(), heading)
		}
	}

	// The answers before a failure are kept.
	term = ui.NewTerminal(strings.NewReader("1\n"), io.Discard)
	answers, err = term.AskAll(context.Background(), []ui.Request{deleteIt, freeForm})
	wantCode(t, "Terminal.AskAll() at end of input", err, ui.CodeAskCancelled)
	if len(answers) != 1 || answers[0].Option.Label != "Delete" {
		t.Fatalf("Terminal.AskAll() = %+v, want the first answer before the error", answers)
	}
}

// blockingWriter is an output that takes writes only when released, and
// reports each write that starts on started.
type blockingWriter struct {
	started chan struct{}
	release chan struct{}
	mu      sync.Mutex // guards out
	out     strings.Builder
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	w.started <- struct{}{}
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.Write(p)
}

// TestTerminalHonoursContextWhileWriting: a write that blocks does not hold
// an ask whose ctx is done, nor the turn; it finishes before the next write,
// and the line that says how the ask ended comes between them.
func TestTerminalHonoursContextWhileWriting(t *testing.T) {
	w := &blockingWriter{started: make(chan struct{}, 4), release: make(chan struct{})}
	session := scope(t, ui.NewTerminal(strings.NewReader("2\n"), w))
	ctx, cancel := context.WithCancel(session)
	done := askAsync(ctx, deleteIt)
	<-w.started
	cancel()
	if err := <-done; ui.CodeOf(err) != ui.CodeAskAborted || !errors.Is(err, context.Canceled) {
		t.Fatalf("Ask() with its write blocked = %v, want ASK_ABORTED wrapping context.Canceled", err)
	}
	close(w.release) // the output drains
	if ans, err := ui.Ask(session, deleteIt); err != nil || ans.Text != "Keep" {
		t.Fatalf("next Ask() = %s, %v, want Keep", show(ans), err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	want := "| " + deleteIt.Question + "\n  1. Delete\n  2. Keep\n1-2\nThe agent no longer needs an answer.\n| " + deleteIt.Question
	if got := w.out.String(); !strings.HasPrefix(got, want) {
		t.Fatalf("terminal wrote %q, want the interrupted question, how it ended, then the next one: %q", got, want)
	}
}

// TestTerminalTypedLabelsPick: labels typed as the answer's Text shows them
// pick those options, also where custom answers are allowed: the model and a
// tool reading Options must agree.
func TestTerminalTypedLabelsPick(t *testing.T) {
	ans, _, err := askTerminal(t, services, "api, WORKER\n")
	if err != nil || ans.Text != "api, worker" || len(ans.Options) != 2 ||
		ans.Options[0].Label != "api" || ans.Options[1].Label != "worker" {
		t.Fatalf("Ask() = %s, %v, want the picks api and worker", show(ans), err)
	}
}

// TestTerminalShowsNoHiddenText: the model writes the request, so no text of
// it may move the cursor, clear the screen, set the title or reorder what the
// human reads. Such a request is refused before anything is written, and
// what Validate lets through is written as it is.
func TestTerminalShowsNoHiddenText(t *testing.T) {
	refused := []ui.Request{
		{Question: "Pick one", Options: []ui.Option{{Label: "Delete it\r  1. Keep it (safe)\x1b[K"}, {Label: "Keep it"}}},
		{Question: "Proceed?\x1b[2J\x1b[H"},
		{Question: "Proceed?", Header: "\x1b]0;title\x07"},
		{Question: "Proceed?", Options: []ui.Option{{Label: "Keep \u202eeteleD"}}},
		{Question: "Pay\t\u202e100 USD\u202c?"},
		{Question: "Pay?", Options: []ui.Option{{Label: "Pay", Description: "now \u2067x\u2069"}}},
	}
	for _, req := range refused {
		var out bytes.Buffer
		_, err := ui.NewTerminal(strings.NewReader("1\n"), &out).Ask(context.Background(), req)
		wantCode(t, "Terminal.Ask()", err, ui.CodeInvalidRequest)
		if out.Len() > 0 {
			t.Errorf("Terminal.Ask(%q) wrote %q, want nothing", req.Question, out.String())
		}
	}
	req := ui.Request{Question: "Pay\t100 USD?\nSure?", Options: []ui.Option{
		{Label: "Pay", Description: "now"},
		{Label: "Cancel", Description: "no changes\n\n\t\n  1. Keep everything (recommended)"},
	}}
	_, out, err := askTerminal(t, req, "1\n")
	// A description is written on rows of its own, its line feeds as spaces,
	// so it cannot forge option rows. A tab is written as spaces.
	want := "| Pay   100 USD?\n| Sure?\n" +
		"  1. Pay\n     | now\n" +
		"  2. Cancel\n     | no changes 1. Keep everything (recommended)\n"
	if err != nil || !strings.HasPrefix(out, want) {
		t.Fatalf("Ask() wrote %q, %v, want it to start with %q", out, err, want)
	}
}

// TestTerminalPanicReachesCaller: a panic in the Terminal's reader or writer
// is raised again on the asking goroutine, where the caller recovers it. It
// runs in a child process, since a panic on a goroutine of the Terminal's own
// would end the test binary.
func TestTerminalPanicReachesCaller(t *testing.T) {
	if os.Getenv("UI_TERMINAL_PANIC_CHILD") == "1" {
		for _, term := range []*ui.Terminal{
			ui.NewTerminal(panicking{}, io.Discard),
			ui.NewTerminal(strings.NewReader("1\n"), panicking{}),
			ui.NewTerminal(panickingNil{}, io.Discard),
			ui.NewTerminal(strings.NewReader("1\n"), panickingNil{}),
		} {
			fmt.Println(recoverAsk(scope(t, term)))
		}
		return
	}
	tests := []struct {
		godebug string
		want    []string
	}{
		{
			godebug: "",
			want: []string{
				"recovered: panicking reader",
				"recovered: panicking writer",
				"recovered: panic called with nil argument",
			},
		},
		// Here recover returns nil for panic(nil): the Terminal must still not wait forever.
		{
			godebug: "panicnil=1",
			want: []string{
				"recovered: panicking reader",
				"recovered: panicking writer",
				"ASK_CANCELLED",
				"stopped its goroutine",
			},
		},
	}
	for _, tt := range tests {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTerminalPanicReachesCaller$", "-test.count=1")
		cmd.Env = append(os.Environ(), "UI_TERMINAL_PANIC_CHILD=1", "GODEBUG="+tt.godebug)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("GODEBUG=%s: the child process failed: %v\n%s", tt.godebug, err, out)
		}
		for _, want := range tt.want {
			if !strings.Contains(string(out), want) {
				t.Errorf("GODEBUG=%s: the child process printed %q, want %q", tt.godebug, out, want)
			}
		}
	}
}

// TestTerminalReaderStopsItsGoroutine: a reader or writer that ends its
// goroutine without returning (runtime.Goexit, as t.FailNow does) ends the
// ask with an error; it does not leave the ask waiting forever.
func TestTerminalReaderStopsItsGoroutine(t *testing.T) {
	for _, term := range []*ui.Terminal{
		ui.NewTerminal(exiting{}, io.Discard),
		ui.NewTerminal(strings.NewReader("1\n"), exiting{}),
	} {
		// The deadline only stops a failing test from hanging: nothing waits for it.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := term.Ask(ctx, freeForm)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) || err == nil || !strings.Contains(err.Error(), "stopped its goroutine") {
			t.Errorf("Terminal.Ask() = %v, want the error that the reader or writer stopped", err)
		}
	}
}

// exiting is a reader and writer whose every call ends its goroutine.
type exiting struct{}

func (exiting) Read([]byte) (int, error)  { runtime.Goexit(); return 0, nil }
func (exiting) Write([]byte) (int, error) { runtime.Goexit(); return 0, nil }

// panickingNil is a reader and writer whose every call panics with nil.
type panickingNil struct{}

func (panickingNil) Read([]byte) (int, error)  { panic(nil) }
func (panickingNil) Write([]byte) (int, error) { panic(nil) }

// recoverAsk asks a question in ctx and returns what the caller recovered,
// or else Ask's error.
func recoverAsk(ctx context.Context) (s string) {
	defer func() {
		if v := recover(); v != nil {
			s = fmt.Sprint("recovered: ", v)
		}
	}()
	_, err := ui.Ask(ctx, freeForm)
	return fmt.Sprint("returned: ", err)
}

// panicking is a reader and writer whose every call panics.
type panicking struct{}

func (panicking) Read([]byte) (int, error)  { panic("panicking reader") }
func (panicking) Write([]byte) (int, error) { panic("panicking writer") }
