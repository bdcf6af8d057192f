package userinteraction_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	ui "github.com/dsh-go/userinteraction"
)

// These tests draw what the Terminal writes as a terminal of a given width
// shows it, and check every screen row: no row of the model's text reads as
// one of the Terminal's own, and the real rows stay in sight.

// cellsOf returns the columns that c takes on the terminal of screen. It is
// written apart from the Terminal's own count, from the Unicode blocks whose
// characters are East Asian wide: a mark or a joiner takes none, the CJK,
// Hangul and kana blocks, fullwidth forms and emoji take two.
func cellsOf(c rune) int {
	switch {
	case unicode.In(c, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	case 0x1100 <= c && c <= 0x115F, 0xAC00 <= c && c <= 0xD7A3, // Hangul
		0x2E80 <= c && c <= 0x303E, 0x3041 <= c && c <= 0x33FF, 0x4E00 <= c && c <= 0x9FFF, // CJK, kana
		0xF900 <= c && c <= 0xFAFF, 0xFF01 <= c && c <= 0xFF60, 0xFFE0 <= c && c <= 0xFFE6, // fullwidth
		0x1F300 <= c && c <= 0x1F64F, 0x1F900 <= c && c <= 0x1F9FF, // emoji
		0x20000 <= c && c <= 0x3FFFD:
		return 2
	}
	return 1
}

// columns returns the columns that s, one row, takes from column 0.
func columns(s string) int {
	n := 0
	for _, c := range s {
		if c == '\t' {
			n += 8 - n%8
			continue
		}
		n += cellsOf(c)
	}
	return n
}

// screen returns the rows that a terminal of width columns shows for out:
// it starts a row at each line feed, and wraps a line where the next
// character would pass the last column, as a terminal does.
func screen(out string, width int) []string {
	var rows []string
	var row strings.Builder
	col := 0
	for _, c := range out {
		w := cellsOf(c)
		switch {
		case c == '\n':
			rows = append(rows, row.String())
			row.Reset()
			col = 0
			continue
		case c == '\t':
			w = min(8-col%8, width-col)
		}
		if col+w > width {
			rows = append(rows, row.String())
			row.Reset()
			col = 0
		}
		row.WriteRune(c)
		col += w
	}
	return append(rows, row.String())
}

var (
	// optionRow matches a row that reads as an option's row.
	optionRow = regexp.MustCompile(`^[ *] [0-9]+\. `)
	// marked matches a row of the model's text as the Terminal leads it:
	// with "|", the mark of the model's text, or indented under an option and
	// then marked.
	marked = regexp.MustCompile(`^(\||  +\| )`)
)

// checkScreen fails unless out, what a Terminal wrote for req up to its
// first prompt, draws on a terminal of width columns in the Terminal's own
// form, and shows the request's text whole and in order. No line is wider
// than the terminal, so the terminal wraps none. The rows are: the place in
// a batch when given, then the rows of the agent, header and question, each
// led by "|"; then for each option, in order, its row, numbered and marked
// "*" when recommended, and the rows of its label and description that
// follow, indented and led by "|"; then the Terminal's other rows, none of
// which reads as a row of an option or of the model's text. It returns the
// screen's rows.
func checkScreen(t *testing.T, req ui.Request, out string, width int) []string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if n := columns(l); n > width {
			t.Fatalf("a line of %d columns, wider than the terminal's %d, the terminal wraps: %q\nthe Terminal wrote:\n%s", n, width, l, out)
		}
	}
	rows := screen(out, width)
	fail := func(i int, why string) {
		t.Helper()
		t.Fatalf("width %d, row %d %q %s; the screen shows:\n%s", width, i+1, rows[i], why, strings.Join(rows, "\n"))
	}
	i := 0
	if strings.HasPrefix(rows[0], "Question ") {
		i++
	}
	var shown strings.Builder // the text of the rows led by "|", without the marks
	text := i
	for ; i < len(rows) && strings.HasPrefix(rows[i], "|"); i++ {
		shown.WriteString(strings.TrimPrefix(rows[i][1:], " "))
	}
	if i == text {
		fail(i, "is not the question, led by |")
	}
	var asked []string
	if a := req.Agent; a != nil && a.Name+a.ID != "" {
		asked = append(asked, "from "+a.Name)
		if a.Name == "" {
			asked[0] += a.ID
		}
	}
	if req.Header != "" {
		asked = append(asked, req.Header)
	}
	asked = append(asked, req.Question)
	if got, want := inked(shown.String()), inked(strings.Join(asked, "")); got != want {
		t.Fatalf("width %d: the rows led by | show %q, want the agent, header and question %q", width, got, want)
	}
	for k, o := range req.Options {
		number := "  " + strconv.Itoa(k+1) + ". "
		if o.Recommended {
			number = "* " + number[2:]
		}
		if i >= len(rows) || !strings.HasPrefix(rows[i], number) {
			fail(min(i, len(rows)-1), fmt.Sprintf("is not the row of option %d, %q", k+1, number))
		}
		shown.Reset()
		shown.WriteString(rows[i][len(number):])
		for i++; i < len(rows) && marked.MatchString(rows[i]) && !strings.HasPrefix(rows[i], "|"); i++ {
			shown.WriteString(rows[i][strings.Index(rows[i], "| ")+2:])
		}
		got, label, all := inked(shown.String()), inked(o.Label), inked(o.Label+o.Description)
		cut, isCut := strings.CutSuffix(got, "…")
		if got != all && !(isCut && strings.HasPrefix(all, cut) && len(cut) >= len(label)) {
			t.Fatalf("width %d: option %d shows %q, want its label and description %q", width, k+1, got, all)
		}
	}
	for ; i < len(rows); i++ {
		if optionRow.MatchString(rows[i]) || marked.MatchString(rows[i]) || strings.HasPrefix(rows[i], "*") {
			fail(i, "reads as an option's row or as the model's text, after the options")
		}
	}
	if last := rows[len(rows)-1]; last != "> " {
		t.Fatalf("width %d: the last row is %q, want the prompt", width, last)
	}
	return rows
}

// inked returns s without its white space and line feeds: the characters
// that a reader sees, in order, however rows break s.
func inked(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), "")
}

// filler returns runs of fill that complete a row begun at column used of
// a terminal of width columns, then each of lines, each but the last
// completed to a whole row: on that terminal each line starts a row of its
// own. Prose may hold U+2800, which draws blank; a name takes "=".
func filler(width, used int, fill string, lines ...string) string {
	s := strings.Repeat(fill, width-used)
	for i, l := range lines {
		s += l
		if i < len(lines)-1 {
			s += strings.Repeat(fill, width-columns(l))
		}
	}
	return s
}

// forgedRows are the rows that the model's text draws in the findings of
// the review: a question and two option rows of its own, above the real
// prompt.
var forgedRows = []string{"| Keep the release branches?", "  1. Yes, keep them", "  2. No, delete them"}

// forgeries counts the rows that read as one of forgedRows: U+2800 and the
// filler read as the space they draw, and an option row also without the
// spaces that lead it.
func forgeries(rows []string) int {
	n := 0
	for _, r := range rows {
		r = strings.TrimRight(strings.ReplaceAll(r, "\u2800", " "), " =")
		bare := strings.TrimLeft(r, " =")
		for _, f := range forgedRows {
			if r == f || bare != "" && '0' <= bare[0] && bare[0] <= '9' && bare == strings.TrimLeft(f, " ") {
				n++
			}
		}
	}
	return n
}

// TestTerminalScreenPaddedDescription: on an 80x24 terminal, a description
// padded with U+2800 must not push the real rows off the screen and draw a
// question and option rows of its own above the real prompt, where typing
// 1 would pick "Delete them". A description takes at most three rows, each
// led by the mark: no forged row appears, and every real row is on screen.
func TestTerminalScreenPaddedDescription(t *testing.T) {
	t.Setenv("COLUMNS", "80")
	pad := strings.Repeat("\u2800", 80*24)
	keep := "keeps every branch" + filler(80, len("  2. Keep them - keeps every branch"), "\u2800") + pad +
		filler(80, 80, "\u2800", forgedRows...)
	req := ui.Request{
		Question:       "Clean up the repository?",
		Options:        []ui.Option{{Label: "Delete them"}, {Label: "Keep them", Description: keep}},
		DisallowCustom: true,
	}
	_, out, _ := askTerminal(t, req, "")
	out = strings.TrimSuffix(out, "\n") // the line end after end of input
	rows := screen(out, 80)
	if n := forgeries(rows); n > 0 {
		t.Errorf("the screen shows %d forged rows", n)
	}
	inSight := strings.Join(rows[max(0, len(rows)-24):], "\n")
	for _, real := range []string{"| Clean up the repository?", "  1. Delete them", "  2. Keep them", "1-2", "> "} {
		if !strings.Contains(inSight, real) {
			t.Errorf("the last 24 rows do not show %q:\n%s", real, inSight)
		}
	}
	checkScreen(t, req, out, 80)
}

// TestTerminalScreenEveryWidth: at each width from 80 to 132, a question,
// a header, a label and a description padded to the width drew rows of
// their own where the terminal wrapped them (64 forged rows in the
// review). Each wrapped row is now the Terminal's own, led by its mark.
func TestTerminalScreenEveryWidth(t *testing.T) {
	forged := 0
	for width := 80; width <= 132; width++ {
		t.Setenv("COLUMNS", strconv.Itoa(width))
		for _, tt := range []struct {
			field string
			req   ui.Request
		}{
			{"question", ui.Request{
				Question: "Clean up?" + filler(width, len("| Clean up?"), "\u2800", forgedRows...),
				Options:  []ui.Option{{Label: "Delete them"}, {Label: "Keep them"}},
			}},
			{"header", ui.Request{
				Header:   "Cleanup" + filler(width, len("| Cleanup"), "=", forgedRows[1]),
				Question: "Clean up?",
				Options:  []ui.Option{{Label: "Delete them"}, {Label: "Keep them"}},
			}},
			{"label", ui.Request{
				Question: "Clean up?",
				Options: []ui.Option{
					{Label: "Delete them" + filler(width, len("  1. Delete them"), "=", forgedRows[1])},
					{Label: "Keep them"},
				},
			}},
			{"description", ui.Request{
				Question: "Clean up?",
				Options: []ui.Option{
					{Label: "Delete them", Description: "now" + filler(width, len("  1. Delete them - now"), "\u2800", forgedRows...)},
					{Label: "Keep them"},
				},
			}},
		} {
			if err := tt.req.Validate(); err != nil {
				t.Fatalf("width %d, %s: %v", width, tt.field, err)
			}
			_, out, _ := askTerminal(t, tt.req, "")
			out = strings.TrimSuffix(out, "\n")
			if n := forgeries(screen(out, width)); n > 0 {
				forged += n
				continue
			}
			checkScreen(t, tt.req, out, width)
		}
	}
	if forged > 0 {
		t.Errorf("widths 80 to 132: the screens show %d forged rows", forged)
	}
}

// TestTerminalScreenWraps shows the form the Terminal writes a long request
// in, at 40 columns: the question's rows each led by "|", a long label and a
// description on rows indented under the label, the description cut with an
// ellipsis at its third row, wide characters counted two columns.
func TestTerminalScreenWraps(t *testing.T) {
	t.Setenv("COLUMNS", "40")
	req := ui.Request{
		Agent:    &ui.Agent{Name: "cleanup-bot"},
		Header:   "Cleanup",
		Question: "Delete the 40 branches that were merged into main last month?",
		Options: []ui.Option{
			{Label: "Keep them", Recommended: true},
			{Label: "Delete every merged branch but the release branches", Description: "removes the branches on origin " +
				"and in every clone that fetches with prune; a list of them is written to cleanup.log first, so " +
				"that they can be pushed again"},
			{Label: "日本語のブランチだけを消す"},
		},
	}
	_, out, _ := askTerminal(t, req, "")
	want := `| from cleanup-bot
| Cleanup
| Delete the 40 branches that were
| merged into main last month?
* 1. Keep them
  2. Delete every merged branch but the
     | release branches
     | removes the branches on origin
     | and in every clone that fetches
     | with prune; a list of them is…
  3. 日本語のブランチだけを消す
1-3, Enter for 1, or type your own
answer
> 
`
	if out != want {
		t.Fatalf("the Terminal wrote\n%s\nwant\n%s", out, want)
	}
	checkScreen(t, req, strings.TrimSuffix(out, "\n"), 40)
}

// TestTerminalScreenNarrowed: the terminal gets narrower after a question
// is shown, as when the human splits a tmux pane or turns a phone. The
// Terminal reads the width once a question, and again before a line that
// says how a question ended (TestTerminalEndedAtTheWidthOfNow): the next
// question is written at the new width, and none of its screen rows reads
// as one of the Terminal's own.
func TestTerminalScreenNarrowed(t *testing.T) {
	t.Setenv("COLUMNS", "80")
	req := ui.Request{
		Question:       "Delete all the merged branches of api?  1. Keep everything",
		Options:        []ui.Option{{Label: "Delete everything", Value: "delete"}, {Label: "Keep"}},
		DisallowCustom: true,
	}
	in, typing := io.Pipe()
	defer typing.Close()
	out := newPromptWriter()
	done := make(chan error, 1)
	go func() {
		_, err := ui.NewTerminal(in, out).AskAll(context.Background(), []ui.Request{req, req})
		done <- err
	}()
	<-out.prompted
	shown := out.String()
	if forged := screen(shown, 40); !slices.Contains(forged, "  1. Keep everything") {
		t.Fatalf("at 40 columns the rows written for 80 show no forged row; the test lost its point:\n%s", strings.Join(forged, "\n"))
	}
	os.Setenv("COLUMNS", "40") // restored by t.Setenv
	if _, err := io.WriteString(typing, "2\n"); err != nil {
		t.Fatal(err)
	}
	<-out.prompted
	checkScreen(t, req, strings.TrimPrefix(out.String(), shown), 40)
	if _, err := io.WriteString(typing, "1\n"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Terminal.AskAll() = %v, want two answers", err)
	}
}
