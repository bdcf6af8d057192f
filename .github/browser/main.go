// Command browser drives Debian's chromium, headless, over the page that
// Inbox.Handler serves from a real Inbox on 127.0.0.1: real clicks, ticked
// boxes, typed words, two tabs, a reload, a lost connection, hostile text.
// .ci/run runs it; it prints one line per scenario and "N passed, N failed".
//
//	go run .                    # the scenarios
//	go run . -run 'batch|token' # the scenarios whose names match
//	go run . -shots /tmp/inbox  # and screenshots, phone and desktop sized
//	go run . -bench             # the page's figures against a floor (bench.go)
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	ui "github.com/dsh-go/userinteraction"
)

// wait bounds every wait for the page, so that a bug fails a scenario
// instead of hanging the run.
const wait = 15 * time.Second

// site is the Inbox and the server that shows it.
type site struct {
	inbox   *ui.Inbox
	session context.Context // the registry's, with the Inbox registered
	token   string
	addr    string // 127.0.0.1:port
	mux     *http.ServeMux
	streams *streams // the Inbox's handler at /ask/, whose event streams a scenario can drop
	shots   string   // the folder of -shots, or ""
	mu      sync.Mutex
	server  *http.Server
}

// streams serves h, and drops its event streams as a lost network does: cut
// ends every open stream and holds each new one until mend.
type streams struct {
	h    http.Handler
	mu   sync.Mutex
	live map[int]context.CancelFunc // the open streams, by number
	n    int                        // the number of the last stream
	down chan struct{}              // closed by mend; nil while the streams are up
}

func (x *streams) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if path.Base(r.URL.Path) != "events" {
		x.h.ServeHTTP(w, r)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	for {
		x.mu.Lock()
		down := x.down
		if down == nil {
			x.n++
			n := x.n
			x.live[n] = cancel
			x.mu.Unlock()
			x.h.ServeHTTP(w, r.WithContext(ctx))
			x.mu.Lock()
			delete(x.live, n)
			x.mu.Unlock()
			return
		}
		x.mu.Unlock()
		select {
		case <-down:
		case <-ctx.Done():
			return
		}
	}
}

// cut ends the open event streams, and holds new ones until mend.
func (x *streams) cut() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.down == nil {
		x.down = make(chan struct{})
	}
	for _, cancel := range x.live {
		cancel()
	}
}

// mend lets the held event streams and new ones through.
func (x *streams) mend() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.down != nil {
		close(x.down)
		x.down = nil
	}
}

// start serves the Inbox's handler at /ask/ on s.addr.
func (s *site) start() error {
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return err
	}
	s.addr = ln.Addr().String()
	s.mu.Lock()
	s.server = &http.Server{Handler: s.mux, ReadHeaderTimeout: 5 * time.Second}
	srv := s.server
	s.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
	return nil
}

// stop closes the server and every connection it holds, the event streams
// included.
func (s *site) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.server.Close()
}

// shutdown shuts the server down as a host that exits does: its event
// streams end after telling what changed.
func (s *site) shutdown() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	return s.server.Shutdown(ctx)
}

// pageURL is the URL a host prints for the human.
func (s *site) pageURL() string { return "http://" + s.addr + "/ask/#token=" + s.token }

// outcome is what one Ask or AskAll returned.
type outcome struct {
	answers []ui.Answer
	err     error
}

// ask asks reqs on a goroutine, one by Ask and several by AskAll, and waits
// until they are open. Its channel receives the outcome.
// askShown asks req of the site's session and waits until tab t shows it.
// It returns the channel of the ask's outcome and the question's ID.
func (s *site) askShown(t *tab, req ui.Request) (<-chan outcome, string, error) {
	done, p, err := s.ask(s.session, req)
	if err != nil {
		return nil, "", err
	}
	return done, p[0].ID, t.until(shown(p[0].ID))
}

func (s *site) ask(ctx context.Context, reqs ...ui.Request) (<-chan outcome, []ui.Pending, error) {
	before := len(s.inbox.Pending())
	done := make(chan outcome, 1)
	go func() {
		if len(reqs) == 1 {
			ans, err := ui.Ask(ctx, reqs[0])
			done <- outcome{[]ui.Answer{ans}, err}
			return
		}
		answers, err := ui.AskAll(ctx, reqs)
		done <- outcome{answers, err}
	}()
	deadline := time.After(wait)
	for {
		changed := s.inbox.Changed()
		if p := s.inbox.Pending(); len(p) >= before+len(reqs) {
			return done, p[len(p)-len(reqs):], nil
		}
		select {
		case <-changed:
		case <-deadline:
			return nil, nil, errors.New("the questions did not open")
		}
	}
}

// result waits for the outcome of an ask.
func result(done <-chan outcome) (outcome, error) {
	select {
	case o := <-done:
		return o, nil
	case <-time.After(wait):
		return outcome{}, errors.New("the ask did not return")
	}
}

// tab is one browser tab on the page, with what it saw.
type tab struct {
	ctx context.Context
	mu  sync.Mutex
	bad []string // requests elsewhere, CSP violations, exceptions, dialogs
}

// open opens a new tab of browser on the page.
func (s *site) open(browser context.Context) (*tab, context.CancelFunc, error) {
	ctx, cancel := chromedp.NewContext(browser)
	t := &tab{ctx: ctx}
	base := "http://" + s.addr + "/"
	if err := chromedp.Do(ctx); err != nil { // creates the tab; no timeout on this first run
		cancel()
		return nil, nil, err
	}
	if err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			if u := ev.Request.URL; !strings.HasPrefix(u, base) && !strings.HasPrefix(u, "data:") {
				t.note("request to " + u)
			}
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError && !strings.Contains(ev.Entry.Text, "ERR_CONNECTION_REFUSED") &&
				!strings.Contains(ev.Entry.Text, "Failed to load resource") {
				t.note("console: " + ev.Entry.Text)
			}
		case *runtime.EventExceptionThrown:
			t.note("exception: " + ev.ExceptionDetails.Text)
		case *page.EventJavascriptDialogOpening:
			t.note("dialog: " + ev.Message)
		}
	}); err != nil {
		cancel()
		return nil, nil, err
	}
	err := chromedp.Do(ctx,
		chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
			if _, err := cdp.Call(ctx, tt, network.Enable, network.EnableParams{}); err != nil {
				return err
			}
			_, err := cdp.Call(ctx, tt, log.Enable, cdp.Empty{})
			return err
		}),
		chromedp.Navigate(s.pageURL()),
	)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	return t, cancel, nil
}

func (t *tab) note(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.bad = append(t.bad, s)
}

// forget drops what the tab saw so far.
func (t *tab) forget() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.bad = nil
}

// problems returns what the tab saw that it must not.
func (t *tab) problems() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.bad) == 0 {
		return nil
	}
	return errors.New(strings.Join(t.bad, "; "))
}

// do runs actions on the tab, each wait bounded.
func (t *tab) do(actions ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(t.ctx, wait)
	defer cancel()
	return chromedp.Do(ctx, actions...)
}

// until waits until the JavaScript expression js is true on the page.
func (t *tab) until(js string) error {
	ctx, cancel := context.WithTimeout(t.ctx, wait)
	defer cancel()
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(50*time.Millisecond)))
		// A poll runs in the page's JavaScript context, which a navigation
		// replaces: then it polls the new one.
		if err != nil && ctx.Err() == nil && strings.Contains(err.Error(), "Cannot find context with specified id") {
			continue
		}
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", js, err)
		}
		return nil
	}
}

// eval returns the value of the JavaScript expression js.
func eval[T any](t *tab, js string) (T, error) {
	ctx, cancel := context.WithTimeout(t.ctx, wait)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](js))
}

// card is the CSS selector of the form that shows question id.
func card(id string) string { return `form[aria-labelledby="q-` + id + `"]` }

// shown is the JavaScript test that question id is on the page.
func shown(id string) string { return "document.querySelector('" + card(id) + "') !== null" }

// option is the XPath of the option labelled label on question id's card.
func option(id, label string) chromedp.Search {
	return chromedp.Search(`//form[@aria-labelledby="q-` + id + `"]//label[.//span[@class="label"][.="` + label + `"]]`)
}

// button is the XPath of the button named name on question id's card.
func button(id, name string) chromedp.Search {
	return chromedp.Search(`//form[@aria-labelledby="q-` + id + `"]//button[.="` + name + `"]`)
}

// noteOf is the JavaScript text of the note on question id's card.
func noteOf(id string) string {
	return "((document.querySelector('" + card(id) + " .note') || {}).textContent || '')"
}

// whyOf is the JavaScript text of the line that says how question id ended.
func whyOf(id string) string {
	return "((document.querySelector('" + card(id) + " .why') || {}).textContent || '')"
}

// endedAs is the JavaScript test that question id's card sits with the
// ended ones, collapsed, and says why.
func endedAs(id, why string) string {
	return "(document.querySelector('#ended " + card(id) + " details:not([open])') !== null && " + whyOf(id) + " === " + fmt.Sprintf("%q", why) + ")"
}

// checked is the JavaScript list of the ticked options of question id.
func checked(id string) string {
	return "Array.from(document.querySelectorAll('" + card(id) + " input[name=choice]:checked')).map(i => i.value).join('|')"
}

// scenario is one thing a human does on the page.
type scenario struct {
	name string
	run  func(s *site, browser context.Context) error
}

// onOneTab runs f on a new tab, then checks what the tab saw.
func onOneTab(f func(s *site, t *tab) error) func(*site, context.Context) error {
	return func(s *site, browser context.Context) error {
		t, cancel, err := s.open(browser)
		if err != nil {
			return err
		}
		defer cancel()
		if err := f(s, t); err != nil {
			return err
		}
		return t.problems()
	}
}

// want compares an ask's outcome with the text, or the code, it should be.
func want(done <-chan outcome, texts ...string) error {
	o, err := result(done)
	if err != nil {
		return err
	}
	var got []string
	if o.err != nil {
		got = append(got, ui.CodeOf(o.err))
	}
	for _, a := range o.answers {
		if o.err == nil {
			got = append(got, a.Text)
		}
	}
	if strings.Join(got, "|") != strings.Join(texts, "|") {
		return fmt.Errorf("Ask() = %q (%v), want %q", got, o.err, texts)
	}
	return nil
}

var yesNo = []ui.Option{{Label: "Yes"}, {Label: "No", Recommended: true}}

var region = ui.Request{
	Header:   "Region",
	Question: "Where should the bucket live?",
	Options: []ui.Option{
		{Label: "Europe", Value: "eu", Description: "Frankfurt; the data stays in the EU", Recommended: true},
		{Label: "America", Value: "us", Description: "Virginia"},
	},
	DisallowCustom: true,
}

var scenarios = []scenario{
	{"a click on an option", onOneTab(func(s *site, t *tab) error {
		done, id, err := s.askShown(t, region)
		if err != nil {
			return err
		}
		pre, err := eval[bool](t, "document.querySelector('"+card(id)+" input[value=Europe]').checked")
		if err != nil || !pre {
			return fmt.Errorf("the recommended option is not preselected (%v)", err)
		}
		if err := t.do(chromedp.Click(option(id, "America")), chromedp.Click(button(id, "Send answer"))); err != nil {
			return err
		}
		if err := want(done, "us"); err != nil {
			return err
		}
		if err := t.until(endedAs(id, "You answered: America")); err != nil {
			return err
		}
		return t.until(checked(id) + " === 'America'")
	})},
	{"ticked boxes", onOneTab(func(s *site, t *tab) error {
		req := ui.Request{
			Question:    "Which migrations?",
			Options:     []ui.Option{{Label: "41"}, {Label: "42", Recommended: true}, {Label: "43"}},
			MultiSelect: true,
		}
		done, id, err := s.askShown(t, req)
		if err != nil {
			return err
		}
		if err := t.do(chromedp.Click(option(id, "41")), chromedp.Click(option(id, "42")), chromedp.Click(option(id, "43")),
			chromedp.Click(button(id, "Send answer"))); err != nil {
			return err
		}
		return want(done, "41, 43")
	})},
	{"own words, by keyboard alone", onOneTab(func(s *site, t *tab) error {
		done, p, err := s.ask(s.session, ui.Request{Question: "Name the branch."})
		if err != nil {
			return err
		}
		if err := t.until(shown(p[0].ID)); err != nil {
			return err
		}
		// Tab reaches the page's notify control (shown while notifications are not yet asked), then the text
		// field; Enter sends it.
		if err := t.do(chromedp.KeyEvent("\t")); err != nil {
			return err
		}
		if err := t.until("document.activeElement.id === 'notify'"); err != nil {
			return err
		}
		if err := t.do(chromedp.KeyEvent("\t"), chromedp.KeyEvent("fix-42 ünïcode"), chromedp.KeyEvent("\r")); err != nil {
			return err
		}
		return want(done, "fix-42 ünïcode")
	})},
	{"decline", onOneTab(func(s *site, t *tab) error {
		done, p, err := s.ask(s.session, region)
		if err != nil {
			return err
		}
		if err := t.until(shown(p[0].ID)); err != nil {
			return err
		}
		if err := t.do(chromedp.Click(button(p[0].ID, "Decline to answer"))); err != nil {
			return err
		}
		if err := want(done, ui.CodeAskDeclined); err != nil {
			return err
		}
		if err := t.until(endedAs(p[0].ID, "You declined to answer.")); err != nil {
			return err
		}
		return t.until(checked(p[0].ID) + " === ''") // not the preselected Europe
	})},
	{"a refused answer shows its hint", onOneTab(func(s *site, t *tab) error {
		req := ui.Request{Question: "Which checks?", Options: []ui.Option{{Label: "lint"}, {Label: "test"}}, MultiSelect: true, DisallowCustom: true}
		done, id, err := s.askShown(t, req)
		if err != nil {
			return err
		}
		if err := t.do(chromedp.Click(button(id, "Send answer"))); err != nil {
			return err
		}
		if err := t.until(noteOf(id) + " === 'Pick at least one option.'"); err != nil {
			return err
		}
		if p := s.inbox.Pending(); len(p) != 1 || p[0].Hint != "Pick at least one option." {
			return fmt.Errorf("Pending() = %+v after the refusal, want the question open with its hint", p)
		}
		if err := t.do(chromedp.Click(option(id, "test")), chromedp.Click(button(id, "Send answer"))); err != nil {
			return err
		}
		return want(done, "test")
	})},
	{"two tabs answer one question: one wins, the other is told", func(s *site, browser context.Context) error {
		a, cancelA, err := s.open(browser)
		if err != nil {
			return err
		}
		defer cancelA()
		b, cancelB, err := s.open(browser)
		if err != nil {
			return err
		}
		defer cancelB()
		done, p, err := s.ask(s.session, region)
		if err != nil {
			return err
		}
		id := p[0].ID
		for _, t := range []*tab{a, b} {
			if err := t.until(shown(id)); err != nil {
				return err
			}
		}
		if err := a.do(chromedp.Click(option(id, "America"))); err != nil {
			return err
		}
		// Both click Answer at once: A for America, B for Europe. The loser's
		// button may be gone before its click lands: that click gives up
		// soon, and the ask's outcome names the winner.
		var clicks sync.WaitGroup
		for _, t := range []*tab{a, b} {
			clicks.Add(1)
			go func(t *tab) {
				defer clicks.Done()
				ctx, cancel := context.WithTimeout(t.ctx, 3*time.Second)
				defer cancel()
				_ = chromedp.Do(ctx, chromedp.Click(button(id, "Send answer")))
			}(t)
		}
		clicks.Wait()
		o, err := result(done)
		if err != nil || o.err != nil {
			return fmt.Errorf("Ask() = %v, %v", o, err)
		}
		winner, loser, label := a, b, "America"
		if o.answers[0].Text == "eu" {
			winner, loser, label = b, a, "Europe"
		}
		if err := winner.until(endedAs(id, "You answered: "+label)); err != nil {
			return err
		}
		if err := loser.until(endedAs(id, s.said(id))); err != nil {
			why, _ := eval[string](loser, whyOf(id))
			note, _ := eval[string](loser, noteOf(id))
			return fmt.Errorf("%w: the loser's card reads %q, %q", err, why, note)
		}
		if err := loser.until(checked(id) + " === '" + label + "'"); err != nil {
			return err
		}
		return errors.Join(a.problems(), b.problems())
	}},
	{"a reload mid-question", onOneTab(func(s *site, t *tab) error {
		done, id, err := s.askShown(t, ui.Request{Question: "Why now?"})
		if err != nil {
			return err
		}
		if err := t.do(chromedp.SendKeys(card(id)+" input[type=text]", "half an answer"), chromedp.Reload()); err != nil {
			return err
		}
		if err := t.until(shown(id)); err != nil {
			return err
		}
		if err := t.do(chromedp.SendKeys(card(id)+" input[type=text]", "the release is today\r")); err != nil {
			return err
		}
		return want(done, "the release is today")
	})},
	{"the asker stopped while the question was shown", onOneTab(func(s *site, t *tab) error {
		step, cancel := context.WithCancel(s.session)
		defer cancel()
		done, p, err := s.ask(step, region)
		if err != nil {
			return err
		}
		id := p[0].ID
		if err := t.until(shown(id)); err != nil {
			return err
		}
		cancel()
		if err := want(done, ui.CodeAskAborted); err != nil {
			return err
		}
		if err := t.until(endedAs(id, s.said(id))); err != nil {
			return err
		}
		return t.until("document.querySelector('" + card(id) + " input').disabled && " + checked(id) + " === ''")
	})},
	{"hostile text is shown as text", onOneTab(func(s *site, t *tab) error {
		req := ui.Request{
			Header:   "<script>alert(2)</script>",
			Question: "<img src=x onerror=alert(1)>\n</p><b>bold?</b>",
			Options: []ui.Option{
				{Label: "<b>Yes</b>", Description: "</label><input type=checkbox checked>"},
				{Label: "\"><svg onload=alert(3)>"},
			},
			Agent: &ui.Agent{Name: "<iframe src=//attacker.example>", ID: "');alert(4);//"},
		}
		done, id, err := s.askShown(t, req)
		if err != nil {
			return err
		}
		got, err := eval[string](t, "document.getElementById('q-"+id+"').textContent")
		if err != nil || got != req.Question {
			return fmt.Errorf("the question reads %q (%v), want %q", got, err, req.Question)
		}
		n, err := eval[int](t, "document.querySelectorAll('img, svg, iframe, b, script').length")
		if err != nil || n != 1 { // the page's own script
			return fmt.Errorf("%d elements img, svg, iframe, b or script, want the page's one script (%v)", n, err)
		}
		if err := t.do(chromedp.Click(option(id, "<b>Yes</b>")), chromedp.Click(button(id, "Send answer"))); err != nil {
			return err
		}
		return want(done, "<b>Yes</b>")
	})},
	{"a batch is one group, question 1 of 2", onOneTab(func(s *site, t *tab) error {
		done, p, err := s.ask(s.session, ui.Request{Question: "First?"}, ui.Request{Question: "Second?"})
		if err != nil {
			return err
		}
		for _, q := range p {
			if err := t.until(shown(q.ID)); err != nil {
				return err
			}
		}
		got, err := eval[string](t, "Array.from(document.querySelectorAll('section.batch .place')).map(e => e.textContent).join('|')")
		if err != nil || got != "Question 1 of 2|Question 2 of 2" {
			return fmt.Errorf("the batch reads %q (%v), want Question 1 of 2|Question 2 of 2", got, err)
		}
		if err := t.do(chromedp.SendKeys(card(p[1].ID)+" input[type=text]", "two\r"),
			chromedp.SendKeys(card(p[0].ID)+" input[type=text]", "one\r")); err != nil {
			return err
		}
		return want(done, "one", "two")
	})},
	{"a deadline counts down", onOneTab(func(s *site, t *tab) error {
		step, cancel := context.WithTimeout(s.session, 90*time.Second)
		defer cancel()
		done, p, err := s.ask(step, region)
		if err != nil {
			return err
		}
		id := p[0].ID
		if err := t.until("/^Answer within 1:[23]\\d\\.$/.test((document.querySelector('" + card(id) + " .deadline') || {}).textContent)"); err != nil {
			return err
		}
		cancel()
		return want(done, ui.CodeAskAborted)
	})},
	{"a link without its token, or with a wrong one, says so", func(s *site, browser context.Context) error {
		t, cancel, err := s.open(browser)
		if err != nil {
			return err
		}
		defer cancel()
		for _, tt := range []struct{ url, status string }{
			{"http://" + s.addr + "/ask/", "Open this page through the link the host printed"},
			{"http://" + s.addr + "/ask/#token=not-the-token-0123456789", "This link's token is wrong"},
		} {
			if err := t.do(chromedp.Navigate(tt.url), chromedp.Reload()); err != nil {
				return err
			}
			if err := t.until("document.getElementById('status').textContent.startsWith(" + fmt.Sprintf("%q", tt.status) + ")"); err != nil {
				return err
			}
		}
		return nil // the console reports the refused stream: no check of t.problems
	}},
	{"a lost connection: reconnects and reads the list again", onOneTab(func(s *site, t *tab) error {
		if err := t.until("document.getElementById('status').textContent.includes('open question')"); err != nil {
			return err
		}
		s.stop()
		if err := t.until("document.getElementById('status').textContent.includes('Connection lost')"); err != nil {
			return err
		}
		done, p, err := s.ask(s.session, ui.Request{Question: "Asked while the page was away?"})
		if err != nil {
			return err
		}
		if err := s.start(); err != nil {
			return err
		}
		if err := t.until(shown(p[0].ID)); err != nil {
			return err
		}
		if err := t.do(chromedp.SendKeys(card(p[0].ID)+" input[type=text]", "yes\r")); err != nil {
			return err
		}
		return want(done, "yes")
	})},
}

func main() {
	shots := flag.String("shots", "", "a folder for screenshots of the page, phone and desktop sized")
	only := flag.String("run", "", "run only the scenarios whose name matches this regular expression")
	benchmarks := flag.Bool("bench", false, "instead of the scenarios, measure the page against a hand-written floor")
	flag.Parse()
	started := time.Now()
	if err := run(*shots, regexp.MustCompile(*only), *benchmarks); err != nil {
		fmt.Fprintln(os.Stderr, "browser:", err)
		os.Exit(1)
	}
	fmt.Printf("browser done in %.1f s\n", time.Since(started).Seconds())
}

func run(shots string, only *regexp.Regexp, benchmarks bool) error {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		return fmt.Errorf("no chromium: %w (apt-get install chromium)", err)
	}
	secret := make([]byte, 16)
	if _, err := rand.Read(secret); err != nil {
		return err
	}
	s := &site{inbox: &ui.Inbox{Words: map[string]ui.Words{"de": german}}, token: hex.EncodeToString(secret), addr: "127.0.0.1:0", mux: http.NewServeMux(), shots: shots}
	s.streams = &streams{h: s.inbox.Handler(s.token), live: map[int]context.CancelFunc{}}
	s.mux.Handle("/ask/", http.StripPrefix("/ask", s.streams))
	s.session = ui.WithRegistry(context.Background(), &ui.Registry{})
	dispose, err := ui.Register(s.session, s.inbox)
	if err != nil {
		return err
	}
	defer dispose()
	if err := s.start(); err != nil {
		return err
	}
	defer s.stop()

	profile, err := os.MkdirTemp("", "inbox-chromium-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(profile)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 800),
	)...)
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()
	if err := chromedp.Do(browser); err != nil {
		return fmt.Errorf("starting chromium: %w", err)
	}

	if benchmarks {
		return benchmark(s, browser)
	}
	passed, failed := 0, 0
	for _, sc := range scenarios {
		if !only.MatchString(sc.name) {
			continue
		}
		began := time.Now()
		err := sc.run(s, browser)
		if left := s.inbox.Pending(); err == nil && len(left) > 0 {
			err = fmt.Errorf("%d questions left open", len(left))
		}
		for _, q := range s.inbox.Pending() { // a failed scenario leaves nothing to the next
			_ = s.inbox.Respond(q.ID, ui.Answer{}, ui.NewError(ui.CodeAskCancelled, "scenario over", nil))
		}
		if err != nil {
			failed++
			fmt.Printf("FAIL %s: %v\n", sc.name, err)
			continue
		}
		passed++
		fmt.Printf("ok   %s (%d ms)\n", sc.name, time.Since(began).Milliseconds())
	}
	if shots != "" {
		if err := screenshots(s, browser, shots); err != nil {
			failed++
			fmt.Printf("FAIL screenshots: %v\n", err)
		}
	}
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		return fmt.Errorf("%d scenarios failed", failed)
	}
	return nil
}

// viewports are the sizes of the screenshots: a phone's and a desktop's.
var viewports = []viewport{{"phone", 390, 844, true}, {"desktop", 1280, 800, false}}

// viewport is a size of the page's window.
type viewport struct {
	name          string
	width, height int64
	mobile        bool
}

// emulate sizes a tab's window as v.
func (v viewport) emulate() chromedp.Action[chromedp.Void] {
	if v.mobile {
		return chromedp.EmulateViewport(v.width, v.height, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulatePortrait)
	}
	return chromedp.EmulateViewport(v.width, v.height, chromedp.EmulateScale(1))
}

// shoot saves the element sel of tab t ("": the top of the page) in each
// viewport, as name-phone.png and name-desktop.png in the folder of -shots,
// when it names one.
func (s *site) shoot(t *tab, name, sel string) error {
	if s.shots == "" {
		return nil
	}
	if err := os.MkdirAll(s.shots, 0o755); err != nil {
		return err
	}
	defer func() { _ = t.do(viewports[1].emulate()) }()
	for _, v := range viewports {
		if err := t.do(v.emulate()); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(t.ctx, wait)
		shot := chromedp.CaptureScreenshot()
		if sel != "" {
			shot = chromedp.Screenshot(sel)
		}
		png, err := chromedp.Run(ctx, shot)
		cancel()
		if err != nil {
			return err
		}
		file := filepath.Join(s.shots, name+"-"+v.name+".png")
		if err := os.WriteFile(file, png, 0o644); err != nil {
			return err
		}
		fmt.Printf("screenshot %s\n", file)
	}
	return nil
}

// screenshots saves the page phone sized and desktop sized into dir: open
// questions of every kind with hostile text (hostile-*.png), and a question
// that ended in each way, below one still open (ended-*.png, one of them
// expanded).
func screenshots(s *site, browser context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, size := range viewports {
		for _, shot := range []struct {
			name string
			show func(s *site, t *tab) (cleanup func(), err error)
		}{{"hostile", showHostile}, {"ended", showEndings}} {
			t, closeTab, err := s.open(browser)
			if err != nil {
				return err
			}
			var png []byte
			cleanup := func() {}
			err = t.do(size.emulate(), chromedp.Reload())
			if err == nil {
				cleanup, err = shot.show(s, t)
			}
			if err == nil {
				ctx, cancel := context.WithTimeout(t.ctx, wait)
				png, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
				cancel()
			}
			name := filepath.Join(dir, shot.name+"-"+size.name+".png")
			if err == nil {
				err = os.WriteFile(name, png, 0o644)
			}
			for i := 1; err == nil && i <= 6; i++ { // and the window's worth at a time, readable at a glance
				var at bool
				if at, err = eval[bool](t, fmt.Sprintf("(() => { window.scrollTo(0, %d * innerHeight); return %d * innerHeight < document.body.scrollHeight; })()", i-1, i-1)); err != nil || !at {
					break
				}
				ctx, cancel := context.WithTimeout(t.ctx, wait)
				png, err = chromedp.Run(ctx, chromedp.CaptureScreenshot())
				cancel()
				if err == nil {
					err = os.WriteFile(strings.TrimSuffix(name, ".png")+fmt.Sprintf("-%d.png", i), png, 0o644)
				}
			}
			if err == nil {
				err = t.problems()
			}
			cleanup()
			closeTab()
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			fmt.Printf("screenshot %s\n", name)
		}
	}
	return nil
}

// showHostile opens questions whose text tries to draw the page's rows, to
// imitate its marks or to run as HTML, beside a batch, a deadline, an agent,
// right-to-left text and a refused answer's hint.
func showHostile(s *site, t *tab) (func(), error) {
	step, cancel := context.WithTimeout(s.session, 10*time.Minute)
	reqs := [][]ui.Request{
		{forged},
		{{
			Header:   "<script>alert(2)</script>",
			Question: "Which branches?\n◯ Delete all (recommended)",
			Options: []ui.Option{
				{Label: "Delete all branches (recommended)", Description: "</label><input type=checkbox checked>"},
				{Label: "Keep all branches", Recommended: true},
				{Label: "Archive" + strings.Repeat("\u2003", 30) + "◯ Keep all branches"},
			},
			Agent: &ui.Agent{Name: "<iframe src=//attacker.example>", ID: "Question 1 of 1"},
		}},
		{{Question: "Delete the branches?" + strings.Repeat("\n", 60) + "◯ Keep them (recommended)", Options: []ui.Option{{Label: "Keep"}, {Label: "Delete"}}}},
		{region, {Header: "Checks", Question: "Which checks should run?", Options: []ui.Option{{Label: "lint", Recommended: true}, {Label: "end-to-end", Description: "about 20 minutes"}}, MultiSelect: true}},
		{{Header: "מחיקה", Question: "האם למחוק את הקובץ?", Options: []ui.Option{{Label: "כן", Recommended: true}, {Label: "لا"}}}},
		{{Question: "Which tests?", Options: []ui.Option{{Label: "unit"}, {Label: "e2e"}}, MultiSelect: true, DisallowCustom: true}},
	}
	var asks []<-chan outcome
	var last string
	for _, r := range reqs {
		done, p, err := s.ask(step, r...)
		if err != nil {
			cancel()
			return func() {}, err
		}
		asks = append(asks, done)
		last = p[len(p)-1].ID
	}
	cleanup := func() {
		cancel()
		for _, done := range asks {
			_, _ = result(done)
		}
	}
	err := t.until(shown(last))
	if err == nil {
		err = t.do(chromedp.Click(button(last, "Send answer")))
	}
	if err == nil {
		err = t.until(noteOf(last) + " !== ''")
	}
	if err == nil {
		_, err = eval[bool](t, "(() => { window.scrollTo(0, 0); return true; })()")
	}
	return cleanup, err
}

// showEndings shows a question ended in each way, below one still open.
func showEndings(s *site, t *tab) (func(), error) {
	var asks []<-chan outcome
	var releases []func() // of the terminals that still ask
	finish := func() {
		for _, release := range releases {
			release()
		}
		for _, q := range s.inbox.Pending() {
			_ = s.inbox.Respond(q.ID, ui.Answer{Text: "later"}, nil)
		}
		for _, done := range asks {
			_, _ = result(done)
		}
	}
	ask := func(ctx context.Context, reqs ...ui.Request) ([]ui.Pending, error) {
		done, p, err := s.ask(ctx, reqs...)
		if err == nil {
			asks = append(asks, done)
			err = t.until(shown(p[len(p)-1].ID))
		}
		return p, err
	}
	race := func(ans ui.Answer, err error) (context.Context, chan struct{}, func(), error) {
		term := &terminal{ans: ans, err: err, now: make(chan struct{})}
		session, dispose, err := s.raced(term)
		return session, term.now, dispose, err
	}
	// wonInTerminal is a step whose question the terminal ends, with ans or err.
	wonInTerminal := func(ans ui.Answer, err error) func() (string, error) {
		return func() (string, error) {
			session, now, dispose, err := race(ans, err)
			if err != nil {
				return "", err
			}
			releases = append(releases, dispose)
			p, err := ask(session, cleanup)
			close(now)
			return p[0].ID, err
		}
	}
	var ids []string
	step := func(f func() (string, error)) error {
		id, err := f()
		if err == nil {
			ids = append(ids, id)
			err = t.until("document.querySelector('#ended " + card(id) + "') !== null")
		}
		return err
	}
	steps := []func() (string, error){
		wonInTerminal(ui.Answer{Text: "delete", Via: "terminal"}, nil), // answered in the terminal
		func() (string, error) { // answered here
			p, err := ask(s.session, region)
			if err == nil {
				err = t.do(chromedp.Click(option(p[0].ID, "America")), chromedp.Click(button(p[0].ID, "Send answer")))
			}
			return p[0].ID, err
		},
		wonInTerminal(ui.Answer{}, ui.NewError(ui.CodeAskDeclined, "the user declined to answer", nil)), // declined elsewhere
		func() (string, error) { // time ran out
			timed := &expiring{Context: s.session, done: make(chan struct{})}
			p, err := ask(timed, ui.Request{Question: "Deploy before the window closes?", Options: yesNo})
			close(timed.done)
			return p[0].ID, err
		},
		func() (string, error) { // the asker stopped
			stop, cancel := context.WithCancel(s.session)
			p, err := ask(stop, ui.Request{Question: "Rotate the key now?", Options: yesNo})
			cancel()
			return p[0].ID, err
		},
		func() (string, error) { // dismissed here while the terminal still asks
			session, now, dispose, err := race(ui.Answer{Text: "Keep", Via: "terminal"}, nil)
			if err != nil {
				return "", err
			}
			p, err := ask(session, cleanup)
			if err == nil {
				err = t.do(chromedp.Click(button(p[0].ID, "Dismiss here")))
			}
			releases = append(releases, func() { close(now); dispose() }) // it answers once the screenshot is taken
			return p[0].ID, err
		},
		func() (string, error) { // a batch answered in the terminal, after its first question was answered here
			session, now, dispose, err := race(ui.Answer{Text: "Keep", Via: "terminal"}, nil)
			if err != nil {
				return "", err
			}
			releases = append(releases, dispose)
			tags := cleanup
			tags.Question = "And the merged tags?"
			p, err := ask(session, cleanup, tags)
			if err == nil {
				err = t.do(chromedp.Click(option(p[0].ID, "Delete")), chromedp.Click(button(p[0].ID, "Send answer")))
			}
			if err == nil {
				err = t.until(endedAs(p[0].ID, "You answered: Delete"))
			}
			close(now)
			return p[1].ID, err
		},
	}
	if _, err := ask(s.session, ui.Request{Question: "Still open: name the release.", Agent: &ui.Agent{Name: "release-bot"}}); err != nil {
		return finish, err
	}
	for _, f := range steps {
		if err := step(f); err != nil {
			return finish, err
		}
	}
	// Expand the one answered in the terminal: its controls show Delete.
	_, err := eval[bool](t, "(() => { document.querySelector('"+card(ids[0])+" details').open = true; window.scrollTo(0, 0); return true; })()")
	return finish, err
}
