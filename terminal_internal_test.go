package userinteraction

// These tests need the Terminal's internals: the read in flight, and the
// cause with which FirstOf withdraws a question.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode"
)

// watchedWriter collects what a terminal writes and reports each write on
// wrote.
type watchedWriter struct {
	mu    sync.Mutex // guards out
	out   strings.Builder
	wrote chan string
}

func newWatchedWriter() *watchedWriter { return &watchedWriter{wrote: make(chan string, 16)} }

func (w *watchedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.out.Write(p)
	w.mu.Unlock()
	w.wrote <- string(p)
	return len(p), nil
}

func (w *watchedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.String()
}

// readingReader reads from r and reports each read that starts on reading,
// so a test knows that the Terminal's read is in flight.
type readingReader struct {
	r       io.Reader
	reading chan struct{}
}

func (r readingReader) Read(p []byte) (int, error) {
	r.reading <- struct{}{}
	return r.r.Read(p)
}

// TestTerminalDropsLineTypedBefore: a line that arrived before a question
// was shown never answers it. The human typed "1" for "Show the diff
// first?" after that ask was cancelled: it must not push.
func TestTerminalDropsLineTypedBefore(t *testing.T) {
	pipe, typing := io.Pipe()
	defer typing.Close()
	in := readingReader{r: pipe, reading: make(chan struct{}, 4)}
	out := newWatchedWriter()
	term := NewTerminal(in, out)
	showDiff := Request{Question: "Show the diff first?", Options: []Option{{Label: "Yes"}, {Label: "No"}}, DisallowCustom: true}
	push := Request{
		Question:       "Force-push to main?",
		Options:        []Option{{Label: "Push", Value: "push"}, {Label: "Cancel", Value: "cancel"}},
		DisallowCustom: true,
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := term.Ask(ctx, showDiff)
		done <- err
	}()
	<-in.reading // the question is shown, and the Terminal waits for its line
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("Terminal.Ask() = %v, want context.Canceled", err)
	}
	_, _ = io.WriteString(typing, "1\n") // typed for the question that went away
	l := <-term.read                     // the line has arrived; no ask holds the turn
	term.read <- l

	go func() {
		<-in.reading // the next question is shown
		_, _ = io.WriteString(typing, "2\n")
	}()
	ans, err := term.Ask(context.Background(), push)
	if err != nil || ans.Text != "cancel" {
		t.Fatalf("Terminal.Ask(%q) = %+v, %v, want cancel, typed after it was shown", push.Question, ans, err)
	}
	if want := "1-2\nA line typed before this question was shown was ignored.\n> "; !strings.Contains(out.String(), want) {
		t.Fatalf("the Terminal wrote %q, want %q", out.String(), want)
	}
}

// TestTerminalInputEndedBeforeQuestion: an end of input that the read in
// flight met before the next question is not a line typed for another
// question: the next ask ends with ASK_CANCELLED, and says nothing of it.
func TestTerminalInputEndedBeforeQuestion(t *testing.T) {
	pipe, typing := io.Pipe()
	in := readingReader{r: pipe, reading: make(chan struct{}, 4)}
	out := newWatchedWriter()
	term := NewTerminal(in, out)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := term.Ask(ctx, Request{Question: "Proceed?"})
		done <- err
	}()
	<-in.reading
	cancel()
	<-done
	typing.Close()
	l := <-term.read // the end of input has arrived
	term.read <- l
	_, err := term.Ask(context.Background(), Request{Question: "Really?"})
	if CodeOf(err) != CodeAskCancelled {
		t.Fatalf("Terminal.Ask() = %v, want ASK_CANCELLED", err)
	}
	if got := out.String(); strings.Contains(got, "ignored") || !strings.HasSuffix(got, "> \n") {
		t.Fatalf("the Terminal wrote %q, want no notice, and its last line ended", got)
	}
}

// aMomentBefore is the context of a FirstOf race whose other member wins
// at the moment the Terminal's answer comes to be decided: when the race's
// turn is asked for, before it is taken.
type aMomentBefore struct {
	context.Context
	once *sync.Once
	win  func()
}

func (m aMomentBefore) Done() <-chan struct{} {
	m.once.Do(m.win)
	return nil // never: the race's ask goes on
}

// TestTerminalAnswerBeatenByAMoment: the human's answer arrives a moment
// after another UI's won the race. The Terminal does not return it as if it
// was taken: it says where the question was answered and that this answer
// was not used, and returns ctx's error once ctx ends.
func TestTerminalAnswerBeatenByAMoment(t *testing.T) {
	for _, tt := range []struct {
		name  string
		asked func(*Terminal, context.Context) error
		want  string
	}{
		{
			name: "a question",
			asked: func(term *Terminal, ctx context.Context) error {
				ans, err := term.Ask(ctx, Request{Question: "Delete?", Options: []Option{{Label: "Delete"}, {Label: "Keep"}}})
				if ans.Text != "" {
					t.Errorf("Terminal.Ask() = %+v, want no answer", ans)
				}
				return err
			},
			want: "> Answered on the page: #2 \"Keep\".\nYour answer here was not used.\n", // piped: the line typed is not echoed
		},
		{
			name: "the last question of a batch",
			asked: func(term *Terminal, ctx context.Context) error {
				answers, err := term.AskAll(ctx, []Request{{Question: "Why?"}, {Question: "Delete?", Options: []Option{{Label: "Keep"}}}})
				if len(answers) != 1 {
					t.Errorf("Terminal.AskAll() = %+v, want the first answer only", answers)
				}
				return err
			},
			want: "> The questions were answered on the page.\nYour 2 answers here were not used.\n",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			term := NewTerminal(strings.NewReader("because\n1\n"), &out)
			ctx, withdraw := context.WithCancelCause(context.Background())
			keep := Option{Label: "Keep"}
			winner := []Outcome{{Answer: Answer{Text: "Keep", Option: &keep, Via: "page"}}}
			race := &decision{members: []context.CancelCauseFunc{withdraw, func(error) {}}, turn: make(chan struct{}, 1)}
			race.over = aMomentBefore{context.Background(), new(sync.Once), func() { race.set(1, winner) }}
			ctx = withSeat(ctx, &seat{d: race})
			if err := tt.asked(term, ctx); err != context.Canceled {
				t.Fatalf("Terminal's ask = %v, want context.Canceled", err)
			}
			if !strings.HasSuffix(out.String(), tt.want) {
				t.Fatalf("the Terminal wrote %q, want it to end with %q", out.String(), tt.want)
			}
		})
	}
}

// endingContext is a context that ends the first time Err is called once
// it is armed: the test of whether reading a reply honours ctx.
type endingContext struct {
	context.Context
	armed atomic.Bool
	once  sync.Once
	done  chan struct{}
}

func (c *endingContext) Done() <-chan struct{} { return c.done }

func (c *endingContext) Err() error {
	if c.armed.Load() {
		c.once.Do(func() { close(c.done) })
	}
	select {
	case <-c.done:
		return context.Canceled
	default:
		return nil
	}
}

// armingReader reads from r and arms ctx once it has read a line.
type armingReader struct {
	r   io.Reader
	ctx *endingContext
}

func (a armingReader) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if strings.Contains(string(p[:n]), "\n") {
		a.ctx.armed.Store(true)
	}
	return n, err
}

// TestTerminalReplyHonoursContext: reading a long reply stops when ctx ends
// (picking all of 4,000 options by label once took 2 s, with ctx ignored
// meanwhile).
func TestTerminalReplyHonoursContext(t *testing.T) {
	req := Request{Question: "Which?", MultiSelect: true}
	var labels []string
	for i := 0; i < 1000; i++ {
		labels = append(labels, fmt.Sprint("service-", i))
		req.Options = append(req.Options, Option{Label: labels[i]})
	}
	ctx := &endingContext{Context: context.Background(), done: make(chan struct{})}
	in := armingReader{r: strings.NewReader(strings.Join(labels, ", ") + "\n"), ctx: ctx}
	ans, err := NewTerminal(in, io.Discard).Ask(ctx, req)
	if err != context.Canceled {
		t.Fatalf("Terminal.Ask() = %d picks, %v, want context.Canceled while the reply was read", len(ans.Options), err)
	}
}

// TestTerminalCells: the Terminal counts the columns a character takes as a
// terminal draws it, or more. A character from U+1100 on takes two, marks
// and joiners none, a tab reaches the next multiple of 8, and a character
// asking for its emoji form (U+FE0F) takes two.
func TestTerminalCells(t *testing.T) {
	for _, tt := range []struct {
		s    string
		col  int // where s starts
		want int // the columns it takes
	}{
		{s: "a", want: 1},
		{s: "é", want: 1},
		{s: "e\u0301\u0301", want: 1},
		{s: "日本", want: 4},
		{s: "한국", want: 4},
		{s: "ｱｲ", want: 4}, // halfwidth katakana, drawn narrow: counted wider, a row only wraps early
		{s: "２", want: 2},
		{s: "\u3000", want: 2},
		{s: "\u2800", want: 2},
		{s: "🚀", want: 2},
		{s: "👩\u200d💻", want: 4}, // each part, which some terminals draw apart: never fewer
		{s: "✔\ufe0f", want: 2},
		{s: "#\ufe0f\u20e3", want: 2},
		{s: "\t", want: 8},
		{s: "\t", col: 5, want: 3},
		{s: "ab\t", col: 8, want: 8},
	} {
		got := 0
		for i := 0; i < len(tt.s); {
			w, size := cellsAt(tt.s, i, tt.col+got)
			got, i = got+w, i+size
		}
		if got != tt.want {
			t.Errorf("the columns of %q at column %d = %d, want %d", tt.s, tt.col, got, tt.want)
		}
	}
}

// TestTerminalCellsOfScripts checks the Terminal's table of wide characters
// against the standard library's script tables: every character of the
// scripts that terminals draw two columns wide counts two, and every mark
// counts none.
func TestTerminalCellsOfScripts(t *testing.T) {
	for c := rune(0); c <= 0x3FFFF; c++ {
		switch {
		case !unicode.IsGraphic(c):
		case unicode.In(c, unicode.Mn, unicode.Me):
			if w, _ := cellsAt(string(c), 0, 0); w != 0 {
				t.Errorf("the columns of %U, a mark, = %d, want 0", c, w)
			}
		case unicode.In(c, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Bopomofo, unicode.Yi) &&
			!(0xFF61 <= c && c <= 0xFFDC) && c >= 0x2E80, // halfwidth forms are narrow
			0xAC00 <= c && c <= 0xD7A3, // Hangul syllables
			0xFF01 <= c && c <= 0xFF60: // fullwidth forms
			if w, _ := cellsAt(string(c), 0, 0); w != 2 {
				t.Errorf("the columns of %U %q = %d, want 2", c, c, w)
			}
		}
	}
}

// TestTerminalColumns: the Terminal's rows are as wide as $COLUMNS says,
// at least 20, else as wide as the terminal it writes to, else 80. Output
// that is no terminal (a buffer, a file, /dev/null) has no width of its own.
func TestTerminalColumns(t *testing.T) {
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for _, tt := range []struct {
		columns string
		out     io.Writer
		want    int
	}{
		{"", io.Discard, 80}, {"132", io.Discard, 132}, {"40", null, 40}, {"12", io.Discard, 20},
		{"0", io.Discard, 80}, {"-40", io.Discard, 80}, {"wide", io.Discard, 80}, {" 40", io.Discard, 80},
		{"", file, 80}, {"", null, 80},
	} {
		t.Setenv("COLUMNS", tt.columns)
		if got := columnsWide(context.Background(), tt.out); got != tt.want {
			t.Errorf("with COLUMNS=%q, writing to %T, the rows are %d columns wide, want %d", tt.columns, tt.out, got, tt.want)
		}
	}
	for _, tt := range []struct {
		size string
		want int
	}{{"24 80\n", 80}, {"50 132\n", 132}, {"0 0\n", 0}, {"24\n", 0}, {"", 0}, {"stty: invalid argument\n", 0}} {
		if got := sizeColumns(tt.size); got != tt.want {
			t.Errorf("sizeColumns(%q) = %d, want %d", tt.size, got, tt.want)
		}
	}
}

// TestTerminalDigitsOfEveryScript: digitValue rests on Unicode's promise
// that each script's decimal digits come in runs of ten from zero: the
// ranges of unicode.Nd, in the tables of the Go that builds this, hold
// whole runs. Each digit of each range then has its value.
func TestTerminalDigitsOfEveryScript(t *testing.T) {
	check := func(lo, hi, stride uint32) {
		if stride != 1 || (hi-lo+1)%10 != 0 {
			t.Errorf("unicode.Nd holds %U-%U (stride %d), not whole runs of ten digits", lo, hi, stride)
		}
		for c := lo; c <= hi; c++ {
			if got, want := digitValue(rune(c)), int(c-lo)%10; got != want {
				t.Errorf("digitValue(%U) = %d, want %d", c, got, want)
			}
		}
	}
	for _, r := range unicode.Nd.R16 {
		check(uint32(r.Lo), uint32(r.Hi), uint32(r.Stride))
	}
	for _, r := range unicode.Nd.R32 {
		check(r.Lo, r.Hi, r.Stride)
	}
	if got := digitValue('x'); got != -1 {
		t.Errorf("digitValue('x') = %d, want -1", got)
	}
}

// TestTerminalLabelKeyKeepsCommas: a MultiSelect reply is cut into parts at
// the commas of its labelKey, and its parts as typed at its own commas and
// fullwidth commas (replies.several). That holds while labelKey makes a
// comma of each of those and of no other character, which this checks.
func TestTerminalLabelKeyKeepsCommas(t *testing.T) {
	for _, s := range []string{"a, b", " ,a ,, b, ", ",\u200b,\u00a0,", "a，b、c﹐d", "Ａ, Ｂ", ",\u0301", "，，"} {
		if got, want := strings.Count(labelKey(s), ","), strings.Count(s, ",")+strings.Count(s, "，"); got != want {
			t.Errorf("labelKey(%q) = %q holds %d commas, want %d", s, labelKey(s), got, want)
		}
	}
}

// TestTerminalEndedOn: the line that says how a question ended on another
// UI names the UI from the answer's Via, as a person says it, and shows the
// answer as the human there saw it: the rows picked, their labels, then
// their own words. A Via that is no plain short name is not shown. Every
// text that is not the Terminal's own sits in quotes, so that no label,
// words or Via make the line read as another of the Terminal's own: a Via
// "x. Declined on the page", chosen by a remote client as its name, read
// "Answered in x. Declined on the page: Delete.", and a label "Keep. Your
// answer here was not used" added a notice of the Terminal's. A remote
// client's words keep at most 4 marks on one character, as Validate allows
// the model's text, so that they cannot draw over the rows around the line.
func TestTerminalEndedOn(t *testing.T) {
	del, keep := Option{Label: "Delete", Value: "rm"}, Option{Label: "Keep"}
	notice := Option{Label: "Keep. Your answer here was not used", Value: "rm"}
	now := Option{Label: "Keep \"now\""}
	req := &Request{Question: "q", Options: []Option{del, keep, notice, now}}
	declined := NewError(CodeAskDeclined, "declined", nil)
	marks := strings.Repeat("\u0353\u0358\u0346\u034c", 15)
	for _, tt := range []struct {
		o     Outcome
		batch bool
		want  string
	}{
		{o: Outcome{Answer: Answer{Text: "rm", Option: &del, Via: "page"}}, want: `Answered on the page: #1 "Delete".`},
		{o: Outcome{Answer: Answer{Text: "rm", Option: &del, Via: "terminal"}}, want: `Answered in the terminal: #1 "Delete".`},
		{o: Outcome{Answer: Answer{Text: "Keep", Option: &keep, Via: "form"}}, want: `Answered in the form: #2 "Keep".`},
		{o: Outcome{Answer: Answer{Text: "rm, Keep", Options: []Option{del, keep}, Via: "slack-bot 2"}}, want: `Answered in "slack-bot 2": #1 #2 "Delete", "Keep".`},
		{o: Outcome{Answer: Answer{Text: "rm, not now", Options: []Option{del}, Via: "inbox"}}, want: `Answered in the inbox: #1 "Delete", own words "not now".`},
		{o: Outcome{Answer: Answer{Text: "later\u202e", Via: strings.Repeat("x", 33)}}, want: `Answered elsewhere: "later\u202e".`},
		{o: Outcome{Answer: Answer{Text: "later", Via: "pagé"}}, want: `Answered elsewhere: "later".`},
		{o: Outcome{Answer: Answer{Text: "rm", Option: &del, Via: "x. Declined on the page"}}, want: `Answered in "x. Declined on the page": #1 "Delete".`},
		{o: Outcome{Answer: Answer{Text: "rm", Option: &notice, Via: "page"}}, want: `Answered on the page: #3 "Keep. Your answer here was not used".`},
		{o: Outcome{Answer: Answer{Text: "Keep \"now\"", Option: &now, Via: "page"}}, want: `Answered on the page: #4 "Keep \"now\"".`},
		{o: Outcome{Answer: Answer{Text: "x" + marks + "y", Via: "page"}}, want: "Answered on the page: \"x\u0353\u0358\u0346\u034cy\"."},
		{o: Outcome{}, want: "Answered on another screen."},
		{o: Outcome{Err: declined}, want: "Declined on another screen."},
		{o: Outcome{Answer: Answer{Via: "page"}, Err: declined}, want: "Declined on the page."},
		{o: Outcome{Err: declined}, batch: true, want: "The questions were declined on another screen."},
		{o: Outcome{Answer: Answer{Text: "rm", Option: &del, Via: "page"}}, batch: true, want: "The questions were answered on the page."},
		{o: Outcome{Err: errors.New("gone")}, want: "The question ended on another screen."},
		{o: Outcome{Answer: Answer{Via: "page"}, Err: errors.New("gone")}, batch: true, want: "The question ended on the page."},
	} {
		r := rows{width: 200}
		if r.ended(nil, tt.o, req, tt.batch); r.String() != tt.want+"\n" {
			t.Errorf("the ending of %+v, batch %v = %q, want %q", tt.o, tt.batch, r.String(), tt.want)
		}
	}
}

// TestTerminalBatchEndsBetweenQuestions: when the asker stops after the
// human answered a question of a batch and before the next is shown, the
// Terminal says so, and AskAll returns the answer given.
func TestTerminalBatchEndsBetweenQuestions(t *testing.T) {
	ctx := &endingContext{Context: context.Background(), done: make(chan struct{})}
	var out strings.Builder
	term := NewTerminal(armingReader{r: strings.NewReader("main\n"), ctx: ctx}, &out)
	answers, err := term.AskAll(ctx, []Request{{Question: "Which branch?"}, {Question: "Why?"}})
	if err != context.Canceled || len(answers) != 1 || answers[0].Text != "main" {
		t.Fatalf("Terminal.AskAll() = %+v, %v, want the first answer and context.Canceled", answers, err)
	}
	if want := "> The agent no longer needs an answer.\n"; !strings.HasSuffix(out.String(), want) || strings.Contains(out.String(), "Why?") {
		t.Fatalf("the Terminal wrote %q, want it to end with %q, the second question not shown", out.String(), want)
	}
}
