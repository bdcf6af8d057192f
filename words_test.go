package userinteraction_test

import (
	"context"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// TestWordsAreKeys: every word the Terminal says (through say) and the page
// says (through t and tn, and its headings' data-key) is a key of
// EnglishWords, each key is said somewhere, and no English sentence of the
// page's script escapes t.
func TestWordsAreKeys(t *testing.T) {
	src, err := os.ReadFile("provider.go")
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "provider.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	said, script, english := map[string]bool{}, "", ui.EnglishWords()
	through := map[ast.Expr]bool{} // the literals said through the table: say's key, count's, where's map
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "say" && len(n.Args) > 0 {
				ast.Inspect(n.Args[0], func(n ast.Node) bool { // a key, or keys to pick from
					if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						key, _ := strconv.Unquote(lit.Value)
						said[key], through[lit] = true, true
					}
					return true
				})
			}
		case *ast.KeyValueExpr:
			through[n.Value] = true
		case *ast.AssignStmt: // a Hint, which the page says through t
			if sel, ok := n.Lhs[0].(*ast.SelectorExpr); ok && sel.Sel.Name == "Hint" {
				through[n.Rhs[0]] = true
			}
		case *ast.BasicLit:
			if key, _ := strconv.Unquote(n.Value); english[key] == key && !through[n] && len(key) > 4 {
				t.Errorf("provider.go says %q without the table", key)
			}
		case *ast.ValueSpec:
			if n.Names[0].Name == "pageScript" || n.Names[0].Name == "inboxPage" {
				ast.Inspect(n.Values[0], func(n ast.Node) bool { // inboxPage's HTML around its style and script
					if lit, ok := n.(*ast.BasicLit); ok {
						text, _ := strconv.Unquote(lit.Value)
						script += text
					}
					return true
				})
			}
		}
		return true
	})
	for _, m := range regexp.MustCompile(`\btn?\((?:[a-z.]+ \|\| )*"((?:[^"\\]|\\.)*)"|data-key="([^"]*)"`).FindAllStringSubmatch(script, -1) {
		said[m[1]+m[2]] = true
	}
	if len(said) < 60 {
		t.Fatalf("found %d words said, want the page's and the Terminal's", len(said))
	}
	for key := range said {
		if english[key] != key {
			t.Errorf("%q is said but is no key of EnglishWords", key)
		}
	}
	_, list, _ := strings.Cut(string(src), "var english = strings.FieldsFunc(`")
	list, _, _ = strings.Cut(list, "`")
	rest := strings.Replace(string(src), list, "", 1)
	for key := range english {
		if !strings.Contains(rest, strconv.Quote(key)) {
			t.Errorf("EnglishWords has %q, which neither the page nor the Terminal says", key)
		}
	}
	for _, m := range regexp.MustCompile(`(\btn?\((?:[a-z.]+ \|\| )*|data-key=)?"([A-Z][a-z']* [a-z][^"]*)"`).FindAllStringSubmatch(script, -1) {
		if m[1] == "" {
			t.Errorf("the page says %q without t", m[2])
		}
	}
}

// TestWordsEnded: the sentence for each ending, in English and from a host's
// table, the model's and the human's text quoted.
func TestWordsEnded(t *testing.T) {
	del := ui.Option{Label: "Delete", Value: "rm"}
	deadline, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	<-deadline.Done()
	for _, tt := range []struct {
		o    ui.Outcome
		want string
	}{
		{ui.Outcome{Answer: ui.Answer{Text: "rm", Option: &del, Via: "terminal"}}, `Answered in the terminal: "Delete".`},
		{ui.Outcome{Answer: ui.Answer{Text: "rm, soon", Options: []ui.Option{del}, Via: "page"}}, `Answered on the page: "Delete", own words "soon".`},
		{ui.Outcome{Answer: ui.Answer{Text: "x\"\x1b[2J", Via: "tui"}}, `Answered in "tui": "x\"\x1b[2J".`},
		{ui.Outcome{Answer: ui.Answer{Text: "x", Via: "page\u202e: Delete"}}, `Answered elsewhere: "x".`},
		{ui.Outcome{Answer: ui.Answer{Via: "form"}}, `Answered in the form.`},
		{ui.Outcome{Answer: ui.Answer{Via: "page"}, Err: ui.NewError(ui.CodeAskDeclined, "no", nil)}, "Declined on the page."},
		{ui.Outcome{Err: ui.NewError(ui.CodeAskDeclined, "no", nil)}, "Declined on another screen."},
		{ui.Outcome{Answer: ui.Answer{Via: "page"}, Err: ui.NewError(ui.CodeAskCancelled, "x", nil)}, "Dismissed on the page."},
		{ui.Outcome{Err: ui.NewError(ui.CodeAskAborted, "ask aborted", deadline.Err())}, "No answer came before the deadline."},
		{ui.Outcome{Err: ui.NewError(ui.CodeAskAborted, "ask aborted: no answer came before the deadline", nil)}, "No answer came before the deadline."},
		{ui.Outcome{Err: ui.NewError(ui.CodeAskAborted, "ask aborted: the asker stopped", nil)}, "The agent no longer needs an answer."},
		{ui.Outcome{Err: errors.New("gone")}, "The question ended on another screen."},
	} {
		if got := ui.Words(nil).Ended(tt.o); got != tt.want {
			t.Errorf("Ended(%+v) = %q, want %q", tt.o, got, tt.want)
		}
	}
	de := ui.Words{"Declined %s.": "Abgelehnt %s.", "on the page": "auf der Seite", "Time is up.": ""}
	if got := de.Ended(ui.Outcome{Answer: ui.Answer{Via: "page"}, Err: ui.NewError(ui.CodeAskDeclined, "no", nil)}); got != "Abgelehnt auf der Seite." {
		t.Errorf("German Ended = %q", got)
	}
	if got := de.TimeLeft(time.Unix(10, 0), time.Unix(20, 0)); got != "Time is up." { // an empty word is English
		t.Errorf("TimeLeft with an empty word = %q", got)
	}
}

// TestWordsPlaceAndTimeLeft: a batch's place, and the time left as the
// Terminal writes it.
func TestWordsPlaceAndTimeLeft(t *testing.T) {
	var w ui.Words
	if got := w.Place(ui.Pending{Index: 1, Count: 3}); got != "Question 2 of 3" {
		t.Errorf("Place = %q", got)
	}
	if got := w.Place(ui.Pending{Count: 1}) + w.Place(ui.Pending{}); got != "" {
		t.Errorf("Place of a lone question = %q, want none", got)
	}
	now := time.Unix(1000, 0)
	for left, want := range map[time.Duration]string{
		0: "Time is up.", -time.Hour: "Time is up.", 300 * time.Millisecond: "Answer within 1 second.",
		59 * time.Second: "Answer within 59 seconds.", 299 * time.Second: "Answer within 4 minutes.", 119 * time.Second: "Answer within 119 seconds.",
		time.Hour: "Answer within 1 hour.", 61 * time.Minute: "Answer within 1 hour 1 minute.",
	} {
		if got := w.TimeLeft(now.Add(left), now); got != want {
			t.Errorf("TimeLeft(%v) = %q, want %q", left, got, want)
		}
	}
	if got := w.TimeLeft(time.Time{}, now); got != "" {
		t.Errorf("TimeLeft without a deadline = %q", got)
	}
}

// TestWordsTerminal: the Terminal says its words from its table, and its
// line for an answer given elsewhere is Ended's with the rows picked.
func TestWordsTerminal(t *testing.T) {
	var out strings.Builder
	term := ui.NewTerminal(strings.NewReader("\n"), &out)
	term.Words = ui.Words{"Type your answer.": "Geben Sie Ihre Antwort ein.", "Type an answer.": "Bitte eine Antwort."}
	_, err := term.Ask(context.Background(), ui.Request{Question: "Name?"})
	if want := "Geben Sie Ihre Antwort ein.\n> Bitte eine Antwort.\n> "; ui.CodeOf(err) != ui.CodeAskCancelled || !strings.Contains(out.String(), want) {
		t.Fatalf("Ask wrote %q, %v; want %q in it", out.String(), err, want)
	}
}

// TestWordsHandler: the page's stream picks the host's table by the
// browser's languages (exact tag, then its first part, else English), sends
// it before the questions, and says each ending in it.
func TestWordsHandler(t *testing.T) {
	inbox := &ui.Inbox{Words: map[string]ui.Words{"de": {"Declined %s.": "Abgelehnt %s.", "on the page": "auf der Seite"}, "pt-BR": {}}}
	long := strings.Repeat("-", 1<<20) // a hostile tag, read in time linear in its length
	ctx, _ := inboxScope(t, inbox)
	h := inbox.Handler(pageToken)
	for target, want := range map[string]string{
		"/events?lang=fr,de-AT,en": "de", "/events?lang=PT-br": "pt-BR", "/events?lang=" + strings.Repeat(",", 1<<16) + "de": "",
		"/events": "", "/events?lang=en-US,de": "de", "/events?lang=" + long + ",de": "de",
	} {
		got, cancel, _ := events(t, h, target)
		name, data := nextEvent(t, got)
		var words struct{ Lang string }
		if json.Unmarshal([]byte(data), &words); want == "" && name != "questions" || want != "" && (name != "words" || words.Lang != want) {
			t.Errorf("GET %.40s: first event %s %s, want the words of %q", target, name, data, want)
		}
		cancel()
	}
	got, cancel, _ := events(t, h, "/events?lang=de")
	defer cancel()
	nextEvent(t, got) // words
	nextList(t, got)
	done := askInbox(ctx, ui.Request{Question: "q"})
	p := nextQuestion(t, got)
	if w := authed(h, "POST", "/questions/"+p.ID, `{"action": "decline"}`); w.Code != 204 {
		t.Fatalf("decline = %d", w.Code)
	}
	<-done
	name, data := nextEvent(t, got)
	var e struct{ Said string }
	if err := json.Unmarshal([]byte(data), &e); name != "ended" || err != nil || e.Said != "Abgelehnt auf der Seite." {
		t.Fatalf("event %s %s, want the ending said in German", name, data)
	}
}

// TestWordsVerbs: a host's word whose format verbs are not its key's, in
// order (%s for %d, one missing, one more), is said in English, never as
// %!d(...). The page's t checks so too (the browser scenario "in German").
func TestWordsVerbs(t *testing.T) {
	bad := ui.Words{"Question %d of %d": "Frage %s von %d", "Answered %s.": "Beantwortet.", "Declined %s.": "Abgelehnt %s %s.",
		"Time is up.": "Zeit %d", "Answer within %s.": "Noch %s."}
	if got := bad.Place(ui.Pending{Index: 1, Count: 3}); got != "Question 2 of 3" {
		t.Errorf("Place with %%s for %%d = %q, want English", got)
	}
	if got := bad.Ended(ui.Outcome{Answer: ui.Answer{Via: "form"}}); got != "Answered in the form." {
		t.Errorf("Ended with a verb missing = %q, want English", got)
	}
	if got := bad.Ended(ui.Outcome{Err: ui.NewError(ui.CodeAskDeclined, "no", nil)}); got != "Declined on another screen." {
		t.Errorf("Ended with a verb more = %q, want English", got)
	}
	if got := bad.TimeLeft(time.Unix(10, 0), time.Unix(20, 0)); got != "Time is up." {
		t.Errorf("TimeLeft with a verb more = %q, want English", got)
	}
	if got := bad.TimeLeft(time.Unix(320, 0), time.Unix(20, 0)); got != "Noch 5 minutes." { // a word with its key's verbs
		t.Errorf("TimeLeft with the right verbs = %q", got)
	}
}
