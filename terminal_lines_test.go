package userinteraction_test

import (
	"bytes"
	"context"
	"io"

	"strings"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// TestTerminalOwnLinesCannotBeForged: no text of the request reads as one of
// the Terminal's rows or marks. A question that holds copies of option rows,
// a label that ends in "(recommended)" or in the row mark, a header that
// reads as a row, a description with line feeds: each is written so that
// the rows and marks are the Terminal's alone.
func TestTerminalOwnLinesCannotBeForged(t *testing.T) {
	tests := []struct {
		name string
		req  ui.Request
	}{
		{
			name: "a question that holds option rows",
			req: ui.Request{
				Question:       "Deploy to production?\n  1. Cancel (recommended)\n* 1. Cancel\n  2. Deploy\n",
				Options:        []ui.Option{{Label: "Deploy"}, {Label: "Cancel"}},
				DisallowCustom: true,
			},
		},
		{
			name: "a label that ends in the recommended mark",
			req: ui.Request{
				Question:    "Restart which?",
				Options:     []ui.Option{{Label: "api (recommended)"}, {Label: "worker", Recommended: true}, {Label: "* 3. web"}},
				MultiSelect: true,
			},
		},
		{
			name: "a header that reads as a row and the prompt",
			req: ui.Request{
				Header:   "  1. Keep",
				Question: "> Question 1 of 1\n1-2, Enter for 1\n\n\tdone",
				Options:  []ui.Option{{Label: "Delete"}, {Label: "Keep"}},
			},
		},
		{
			name: "a description of white space, and an agent",
			req: ui.Request{
				Agent:    &ui.Agent{ID: "~ "},
				Question: "Pay?",
				Options:  []ui.Option{{Label: "Pay", Description: " \n\t"}, {Label: "Cancel", Description: "\n"}},
			},
		},
		{
			name: "a description with rows in it",
			req: ui.Request{
				Question: "Pay?",
				Options: []ui.Option{
					{Label: "Pay", Description: "now\n  2. Cancel (recommended)\n\t* 2. Cancel"},
					{Label: "Cancel"},
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, out, err := askTerminal(t, tt.req, "")
			wantCode(t, "Ask() at end of input", err, ui.CodeAskCancelled)
			checkScreen(t, tt.req, strings.TrimSuffix(out, "\n"), 80) // the line end after end of input
		})
	}
}

// TestTerminalRepliesPickWhatTheyMean: a reply picks the options the human
// meant and only those. It is row numbers or one whole label; in a
// MultiSelect, labels joined by commas, when no label holds a comma. A
// label of digits that is no row number is a label, "#" and a number is
// always a row, and a reply that could mean two things, or mixes numbers
// and labels, is refused with a way to say it. Nothing meant as picks
// becomes the human's own words.
func TestTerminalRepliesPickWhatTheyMean(t *testing.T) {
	replicas := ui.Request{Question: "How many replicas?", Options: []ui.Option{{Label: "2"}, {Label: "4"}, {Label: "8"}}}
	ports := ui.Request{Question: "Which port?", Options: []ui.Option{{Label: "8080"}, {Label: "3000"}}, MultiSelect: true}
	watch := ui.Request{
		Question:    "Watch what?",
		Options:     []ui.Option{{Label: "logs"}, {Label: "traces"}, {Label: "metrics"}, {Label: "alerts"}},
		MultiSelect: true,
	}
	commas := ui.Request{
		Question:    "Grant what?",
		Options:     []ui.Option{{Label: "a, b"}, {Label: "a"}, {Label: "b"}, {Label: "Read, write"}},
		MultiSelect: true,
	}
	hashes := ui.Request{Question: "Which?", Options: []ui.Option{{Label: "#2"}, {Label: "b"}, {Label: "c"}}}
	hashMany := ui.Request{
		Question:    "Which?",
		Options:     []ui.Option{{Label: "#3"}, {Label: "a, b"}, {Label: "#1"}, {Label: "a"}, {Label: "b"}},
		MultiSelect: true,
	}
	tests := []struct {
		name     string
		req      ui.Request
		input    string
		want     string   // the answer's text
		picks    int      // the options picked
		refusals []string // lines written after refused replies, in order
	}{
		{
			name:     "a label and a number",
			req:      watch,
			input:    "metrics, 4\n#3,#4\n",
			want:     "metrics, alerts",
			picks:    2,
			refusals: []string{`"metrics, 4" mixes numbers and labels: type #3,#4.`},
		},
		{
			name:     "a number and labels",
			req:      watch,
			input:    "1, TRACES,alerts\n#1,#2,#4\n",
			want:     "logs, traces, alerts",
			picks:    3,
			refusals: []string{`"1, TRACES,alerts" mixes numbers and labels: type #1,#2,#4.`},
		},
		{name: "labels typed in fullwidth forms", req: watch, input: "ｌｏｇｓ，ＴＲＡＣＥＳ\n", want: "logs, traces", picks: 2},
		{name: "numbers with #", req: watch, input: "#4 #2\n", want: "traces, alerts", picks: 2},
		{
			name:     "a label that is another row's number",
			req:      replicas,
			input:    "2\n#1\n",
			want:     "2",
			picks:    1,
			refusals: []string{`"2" is option 2, and the label of option 1: type #2 or #1.`},
		},
		{name: "a row that is also its label", req: ui.Request{Question: "q", Options: []ui.Option{{Label: "1"}, {Label: "two"}}}, input: "1\n", want: "1", picks: 1},
		{name: "# picks the row", req: replicas, input: "#2\n", want: "4", picks: 1},
		{
			name:     "numbers, one of them another row's label",
			req:      ui.Request{Question: "How many?", Options: replicas.Options, MultiSelect: true},
			input:    "2, 3\n#2,#3\n",
			want:     "4, 8",
			picks:    2,
			refusals: []string{`"2, 3" is option 2,3, and the label of option 1: type #2,#3 or #1.`},
		},
		{name: "a label of digits that is no row", req: replicas, input: "8\n", want: "8", picks: 1},
		{name: "a port", req: ports, input: "8080\n", want: "8080", picks: 1},
		{name: "two ports", req: ports, input: "8080, 3000\n", want: "8080, 3000", picks: 2},
		{
			name:     "a port and a row",
			req:      ports,
			input:    "8080, 2\n#1,#2\n",
			want:     "8080, 3000",
			picks:    2,
			refusals: []string{`"8080, 2" mixes numbers and labels: type #1,#2.`},
		},
		{
			name:     "a number that is no row and no label",
			req:      ports,
			input:    "8081\n3000\n",
			want:     "3000",
			picks:    1,
			refusals: []string{"There is no option 8081."},
		},
		{name: "a whole label with a comma", req: commas, input: "A,  b\n", want: "a, b", picks: 1},
		{
			name:     "labels joined where a label holds a comma",
			req:      commas,
			input:    "a,b\n#2,#3\n",
			want:     "a, b",
			picks:    2,
			refusals: []string{"Some labels hold commas: type the numbers of the options, such as #1,#2."},
		},
		{
			name:     "a label with a comma among others",
			req:      commas,
			input:    "b, read,  WRITE\n3,4\n",
			want:     "b, Read, write",
			picks:    2,
			refusals: []string{"Some labels hold commas: type the numbers of the options, such as #1,#2."},
		},
		{
			name:     "a pick beside other words",
			req:      watch,
			input:    "metrics, and the disk\nthe disk\n",
			want:     "the disk",
			refusals: []string{`"and the disk" is not an option: type only options, or only your own words.`},
		},
		{
			name:     "a row beside other words",
			req:      watch,
			input:    "2, or so\n2\n",
			want:     "traces",
			picks:    1,
			refusals: []string{`"or so" is not an option: type only options, or only your own words.`},
		},
		{name: "own words with commas", req: watch, input: "none, thanks\n", want: "none, thanks"},
		{name: "# alone", req: replicas, input: "#\n", want: "#"},
		{name: "a number as its row shows it", req: watch, input: "2., #4.\n", want: "traces, alerts", picks: 2},
		{
			name:     "a range",
			req:      watch,
			input:    "1-3\n1,2,3\n",
			want:     "logs, traces, metrics",
			picks:    3,
			refusals: []string{"Type each number, such as 1,2,3."},
		},
		{
			name:     "labels that differ in their spaces only",
			req:      ui.Request{Question: "q", Options: []ui.Option{{Label: "a, b"}, {Label: "a ,b"}, {Label: "c"}}, MultiSelect: true},
			input:    "c, A ,B\nA ,B\n",
			want:     "a ,b",
			picks:    1,
			refusals: []string{"Some labels hold commas: type the numbers of the options, such as #1,#2."},
		},
		{name: "a range that is a label", req: ui.Request{Question: "q", Options: []ui.Option{{Label: "1-3"}, {Label: "4-6"}}}, input: "4-6\n", want: "4-6", picks: 1},
		{
			name:     "own words where none are allowed",
			req:      steps,
			input:    "all of them, please\n1\n",
			want:     "lint",
			picks:    1,
			refusals: []string{`"all of them, please" is not an option: type its number.`},
		},
		{
			name:  "a row and its own label",
			req:   ui.Request{Question: "q", Options: []ui.Option{{Label: "1"}, {Label: "2"}}, MultiSelect: true},
			input: "2, 1\n",
			want:  "1, 2",
			picks: 2,
		},
		{
			name: "a label found after a longer one failed",
			req: ui.Request{
				Question:    "q",
				Options:     []ui.Option{{Label: "y, z, z"}, {Label: "z, w"}, {Label: "y"}},
				MultiSelect: true,
			},
			input:    "Y, z, W\n#2,#3\n",
			want:     "z, w, y",
			picks:    2,
			refusals: []string{"Some labels hold commas: type the numbers of the options, such as #1,#2."},
		},
		{
			name: "a label that ends another",
			req: ui.Request{
				Question:    "q",
				Options:     []ui.Option{{Label: "a, b, c"}, {Label: "b, c"}, {Label: "a"}},
				MultiSelect: true,
			},
			input: "a, b, c\n",
			want:  "a, b, c",
			picks: 1,
		},
		{name: "commas only", req: watch, input: ", ,\n1\n", want: "logs", picks: 1, refusals: []string{"Type the number of an option."}},
		// Digits of any script are digits, as an input method types them.
		{name: "a fullwidth digit", req: deployWhere, input: "２\n", want: "Production", picks: 1},
		{name: "fullwidth digits and a comma", req: watch, input: "１,３\n", want: "logs, metrics", picks: 2},
		{name: "fullwidth digits, comma and #", req: watch, input: "＃１，＃４\n", want: "logs, alerts", picks: 2},
		{name: "ideographic comma and space", req: watch, input: "１、３\u3000４\n", want: "logs, metrics, alerts", picks: 3},
		{name: "an Arabic-Indic digit", req: deployWhere, input: "٢\n", want: "Production", picks: 1},
		{name: "Devanagari digits", req: watch, input: "१ ४\n", want: "logs, alerts", picks: 2},
		{name: "a digit of another script out of range", req: deployWhere, input: "٩\n1\n", want: "Staging", picks: 1, refusals: []string{"There is no option 9."}},
		// What a refusal says to type is accepted: "#2" is row 2, whatever the labels.
		{name: "# and a row whose label is #2", req: hashes, input: "#2\n", want: "b", picks: 1},
		{name: "a label that is a row number, then #", req: replicas, input: "2\n#2\n", want: "4", picks: 1,
			refusals: []string{`"2" is option 2, and the label of option 1: type #2 or #1.`}},
		{name: "rows by # among labels #1 and #3", req: hashMany, input: "#1,#3\n", want: "#3, #1", picks: 2},
		{name: "joined labels, then the numbers the refusal gave", req: hashMany, input: "a,b\n#2,#3\n", want: "a, b, #1", picks: 2,
			refusals: []string{"Some labels hold commas: type the numbers of the options, such as #1,#2."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ans, out, err := askTerminal(t, tt.req, tt.input)
			picks := len(ans.Options)
			if ans.Option != nil {
				picks = 1
			}
			if err != nil || ans.Text != tt.want || picks != tt.picks {
				t.Fatalf("Ask() = %s, %v, want %q with %d picks", show(ans), err, tt.want, tt.picks)
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

// TestTerminalEmptyReplyAndEndOfInput: an empty reply to a free-form question
// is refused with one line, and after end of input the Terminal ends its
// last line, so the host's next output starts on a fresh line.
func TestTerminalEmptyReplyAndEndOfInput(t *testing.T) {
	_, out, err := askTerminal(t, freeForm, "\n")
	wantCode(t, "Ask() at end of input", err, ui.CodeAskCancelled)
	if want := "| Name the branch.\nType your answer.\n> Type an answer.\n> \n"; out != want {
		t.Fatalf("the Terminal wrote %q, want %q", out, want)
	}
	_, out, err = askTerminal(t, deleteIt, "1")
	wantCode(t, "Ask() at end of input in a line", err, ui.CodeAskCancelled)
	if !strings.HasSuffix(out, "\n> \n") {
		t.Fatalf("the Terminal wrote %q, want it to end its last line", out)
	}
}

// deadlineContext is a context with a deadline that ends only when the
// test closes done, so that no test waits on, or races, a clock.
type deadlineContext struct {
	context.Context
	deadline time.Time
	done     chan struct{}
}

func newDeadlineContext(timeout time.Duration) *deadlineContext {
	return &deadlineContext{Context: context.Background(), deadline: time.Now().Add(timeout), done: make(chan struct{})}
}

func (c *deadlineContext) Deadline() (time.Time, bool) { return c.deadline, true }
func (c *deadlineContext) Done() <-chan struct{}       { return c.done }

func (c *deadlineContext) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// TestTerminalSaysTheDeadline: with a deadline, the Terminal says how long
// the human has, rounded: seconds under a minute, then minutes, then hours.
func TestTerminalSaysTheDeadline(t *testing.T) {
	tests := []struct {
		timeout time.Duration
		want    string
	}{
		{timeout: 200 * time.Millisecond, want: "Answer within 1 second.\n"},
		{timeout: -time.Second, want: "Time is up.\n"},
		{timeout: 45 * time.Second, want: "Answer within 45 seconds.\n"},
		{timeout: 2 * time.Minute, want: "Answer within 2 minutes.\n"},
		{timeout: 90 * time.Second, want: "Answer within 90 seconds.\n"},
		{timeout: time.Hour, want: "Answer within 1 hour.\n"},
		{timeout: 150 * time.Minute, want: "Answer within 2 hours 30 minutes.\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		_, err := ui.NewTerminal(strings.NewReader("1\n"), &out).Ask(newDeadlineContext(tt.timeout), deleteIt)
		if want := "  2. Keep\n" + tt.want + "1-2\n> "; err != nil || !strings.Contains(out.String(), want) {
			t.Errorf("Terminal.Ask() with a timeout of %v wrote %q, %v, want %q", tt.timeout, out.String(), err, want)
		}
	}
	var out bytes.Buffer
	if _, err := ui.NewTerminal(strings.NewReader("1\n"), &out).Ask(context.Background(), deleteIt); err != nil ||
		strings.Contains(out.String(), "within") {
		t.Errorf("Terminal.Ask() without a deadline wrote %q, %v, want no time", out.String(), err)
	}
}

// FuzzTerminalReplies types a line at a Terminal asked a request of fuzzed
// labels. Whatever both hold, the reply is read without a panic, and it is
// an answer that passes Ask's checks, or a refusal (the input then ends).
// The fuzzer writes one option per line of labels.
func FuzzTerminalReplies(f *testing.F) {
	f.Add("a, b\na\nb", "a, b", uint64(0), true, false)
	f.Add("2\n4\n8", "2", uint64(1), false, false)
	f.Add("y, z, z\nz, w\ny", "Y, z, W", uint64(0), true, true)
	f.Add(",\n,,\n, ,", ",,, ,,", uint64(5), true, false)
	f.Add("8080\n3000", "8080, #2, 1-2, 2.", uint64(0), true, true)
	f.Fuzz(func(t *testing.T, labels, reply string, recommended uint64, multi, disallow bool) {
		req := fuzzRequest("Which?", "", labels, "", recommended, disallow)
		req.MultiSelect = multi
		if req.Validate() != nil || strings.ContainsAny(reply, "\r\n") {
			return
		}
		ans, err := ui.Ask(scope(t, ui.NewTerminal(strings.NewReader(reply+"\n"), io.Discard)), req)
		if err != nil && ui.CodeOf(err) != ui.CodeAskCancelled {
			t.Fatalf("Ask(%+v) with the reply %q = %v, want an answer or a refusal", req, reply, err)
		}
		if err == nil && strings.TrimSpace(ans.Text) == "" {
			t.Fatalf("Ask(%+v) with the reply %q = %s, want an answer with text", req, reply, show(ans))
		}
	})
}
