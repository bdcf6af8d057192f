// Command browser drives Debian's chromium, headless, over the page that
// Inbox.Handler serves from a real Inbox on 127.0.0.1: real clicks, ticked
// boxes, typed words, two tabs, a reload, a lost connection, hostile text.
// .ci/run runs it; it prints one line per scenario and "N passed, N failed".
//
//	go run .                    # the scenarios
//	go run . -shots /tmp/inbox  # and screenshots, phone and desktop sized
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
	"path/filepath"
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
	mu      sync.Mutex
	server  *http.Server
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
	base := "http://" + s.addr + "/ask/"
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
	return chromedp.Search(`//form[@aria-labelledby="q-` + id + `"]//label[@class="option"][.//span[@class="label"][.="` + label + `"]]`)
}

// button is the XPath of the button named name on question id's card.
func button(id, name string) chromedp.Search {
	return chromedp.Search(`//form[@aria-labelledby="q-` + id + `"]//button[.="` + name + `"]`)
}

// noteOf is the JavaScript text of the note on question id's card.
func noteOf(id string) string {
	return "((document.querySelector('" + card(id) + " .note') || {}).textContent || '')"
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
		if err := t.do(chromedp.Click(option(id, "America")), chromedp.Click(button(id, "Answer"))); err != nil {
			return err
		}
		if err := want(done, "us"); err != nil {
			return err
		}
		return t.until("!(" + shown(id) + ")") // answered here: it leaves the page
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
			chromedp.Click(button(id, "Answer"))); err != nil {
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
		// Tab reaches the text field first; Enter sends it.
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
		if err := t.do(chromedp.Click(button(p[0].ID, "Decline"))); err != nil {
			return err
		}
		return want(done, ui.CodeAskDeclined)
	})},
	{"a refused answer shows its hint", onOneTab(func(s *site, t *tab) error {
		req := ui.Request{Question: "Which checks?", Options: []ui.Option{{Label: "lint"}, {Label: "test"}}, MultiSelect: true, DisallowCustom: true}
		done, id, err := s.askShown(t, req)
		if err != nil {
			return err
		}
		if err := t.do(chromedp.Click(button(id, "Answer"))); err != nil {
			return err
		}
		if err := t.until(noteOf(id) + " === 'Pick at least one option.'"); err != nil {
			return err
		}
		if len(s.inbox.Pending()) != 1 {
			return errors.New("the refused question left Pending")
		}
		if err := t.do(chromedp.Click(option(id, "test")), chromedp.Click(button(id, "Answer"))); err != nil {
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
				_ = chromedp.Do(ctx, chromedp.Click(button(id, "Answer")))
			}(t)
		}
		clicks.Wait()
		o, err := result(done)
		if err != nil || o.err != nil {
			return fmt.Errorf("Ask() = %v, %v", o, err)
		}
		winner, loser := a, b
		if o.answers[0].Text == "eu" {
			winner, loser = b, a
		}
		if err := winner.until("!(" + shown(id) + ")"); err != nil {
			return err
		}
		if err := loser.until("/answered elsewhere/i.test(" + noteOf(id) + ")"); err != nil {
			return err
		}
		if err := loser.until("document.querySelector('" + card(id) + " button').textContent === 'Dismiss' || " +
			"document.querySelector('" + card(id) + " button').disabled"); err != nil {
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
	{"a question withdrawn while shown", onOneTab(func(s *site, t *tab) error {
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
		if err := t.until(noteOf(id) + ".includes('withdrawn')"); err != nil {
			return err
		}
		return t.until("document.querySelector('" + card(id) + " input').disabled")
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
		if err := t.do(chromedp.Click(option(id, "<b>Yes</b>")), chromedp.Click(button(id, "Answer"))); err != nil {
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
		got, err := eval[string](t, "Array.from(document.querySelectorAll('section.batch .meta')).map(e => e.textContent).join('|')")
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
	flag.Parse()
	started := time.Now()
	if err := run(*shots); err != nil {
		fmt.Fprintln(os.Stderr, "browser:", err)
		os.Exit(1)
	}
	fmt.Printf("browser scenarios done in %.1f s\n", time.Since(started).Seconds())
}

func run(shots string) error {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		return fmt.Errorf("no chromium: %w (apt-get install chromium)", err)
	}
	secret := make([]byte, 16)
	if _, err := rand.Read(secret); err != nil {
		return err
	}
	s := &site{inbox: &ui.Inbox{}, token: hex.EncodeToString(secret), addr: "127.0.0.1:0", mux: http.NewServeMux()}
	s.mux.Handle("/ask/", http.StripPrefix("/ask", s.inbox.Handler(s.token)))
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

	passed, failed := 0, 0
	for _, sc := range scenarios {
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

// screenshots opens a few questions of every kind, one refused, and saves the
// page phone sized and desktop sized into dir.
func screenshots(s *site, browser context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	step, cancel := context.WithTimeout(s.session, 10*time.Minute)
	defer cancel()
	batch := []ui.Request{
		region,
		{
			Header:      "Checks",
			Question:    "Which checks should run before the deploy?",
			Options:     []ui.Option{{Label: "lint", Recommended: true}, {Label: "unit tests", Description: "about 2 minutes", Recommended: true}, {Label: "end-to-end", Description: "about 20 minutes"}},
			MultiSelect: true,
		},
	}
	var asks []<-chan outcome
	done, _, err := s.ask(step, batch...)
	if err != nil {
		return err
	}
	asks = append(asks, done)
	done, p, err := s.ask(s.session, ui.Request{
		Question: "Name the release branch.\nIt is created from main.",
		Agent:    &ui.Agent{Name: "release-bot", ID: "agent-7"},
	})
	if err != nil {
		return err
	}
	asks = append(asks, done)
	refusedID := p[0].ID
	done, _, err = s.ask(s.session, ui.Request{Question: "<img src=x onerror=alert(1)> delete this?", Options: []ui.Option{{Label: "<b>Yes</b>"}, {Label: "No"}}})
	if err != nil {
		return err
	}
	asks = append(asks, done)
	withdraw, cancelWithdrawn := context.WithCancel(s.session)
	defer cancelWithdrawn()
	done, p, err = s.ask(withdraw, ui.Request{Question: "Withdrawn while shown?"})
	if err != nil {
		return err
	}
	asks = append(asks, done)
	withdrawnID := p[0].ID
	for _, size := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"phone", 390, 844, true}, {"desktop", 1280, 800, false}} {
		t, closeTab, err := s.open(browser)
		if err != nil {
			return err
		}
		opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
		if size.mobile {
			opts = []chromedp.EmulateViewportOption{chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulatePortrait}
		}
		var png []byte
		err = t.do(chromedp.EmulateViewport(size.width, size.height, opts...), chromedp.Reload())
		if err == nil {
			err = t.until(shown(refusedID))
		}
		if err == nil {
			err = t.do(chromedp.Click(button(refusedID, "Answer")))
		}
		if err == nil {
			err = t.until(noteOf(refusedID) + " !== ''")
		}
		if err == nil && size.mobile { // the phone shows one withdrawn
			cancelWithdrawn()
			err = t.until(noteOf(withdrawnID) + " !== ''")
		}
		if err == nil {
			ctx, cancel := context.WithTimeout(t.ctx, wait)
			png, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
			cancel()
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, size.name+".png"), png, 0o644)
		}
		closeTab()
		if err != nil {
			return err
		}
		fmt.Printf("screenshot %s\n", filepath.Join(dir, size.name+".png"))
	}
	for _, q := range s.inbox.Pending() {
		_ = s.inbox.Respond(q.ID, ui.Answer{}, ui.NewError(ui.CodeAskCancelled, "screenshots taken", nil))
	}
	for _, done := range asks {
		if _, err := result(done); err != nil {
			return err
		}
	}
	return nil
}
