package main

// Scenarios of the page at its edges: an answer whose stream event comes
// first, an answer the host could not keep, a hundred batches, right-to-left
// text.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	ui "github.com/dsh-go/userinteraction"
)

func init() {
	scenarios = append(scenarios,
		scenario{"an answer sent here, its stream event first, twice on Enter", answeredHereFirst},
		scenario{"a hundred batches with deadlines: the page's work follows the list", onOneTab(manyBatches)},
		scenario{"right-to-left text reads right to left", onOneTab(rightToLeft)},
		scenario{"an answer the host could not keep (503 NOT_KEPT from a real keep): the card stays open, says so, sends again", unkeptAnswer},
	)
}

// heldPosts serves h, but holds the response of each POST until release is
// closed: the page's event stream then reports the change first, as it may
// on any network.
type heldPosts struct {
	h       http.Handler
	release chan struct{}
}

func (x heldPosts) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		x.h.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	x.h.ServeHTTP(rec, r)
	select {
	case <-x.release:
	case <-time.After(wait):
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// answeredHereFirst: a question this page answered says "You answered",
// also when the event stream says it left before the POST's 204 arrives,
// never "answered elsewhere". A second Enter while the answer is on its way
// sends nothing, since a second POST's 409 would tell the human who answered
// that they were too late.
func answeredHereFirst(s *site, browser context.Context) error {
	release := make(chan struct{})
	s.mux.Handle("/held/", http.StripPrefix("/held", heldPosts{s.inbox.Handler(s.token), release}))
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	t, cancel, err := s.open(browser)
	if err != nil {
		return err
	}
	defer cancel()
	if err := t.do(chromedp.Navigate("http://" + s.addr + "/held/#token=" + s.token)); err != nil {
		return err
	}
	if err := t.until("document.getElementById('status').textContent.includes('open question')"); err != nil {
		return err
	}
	if _, err := eval[bool](t, `(() => { window.posts = 0; const f = window.fetch;
		window.fetch = (u, o) => { if (o && o.method === "POST") window.posts++; return f(u, o); }; return true; })()`); err != nil {
		return err
	}
	done, id, err := s.askShown(t, ui.Request{Question: "Answered here?"})
	if err != nil {
		return err
	}
	if err := t.do(chromedp.SendKeys(card(id)+" input[type=text]", "yes\r\r")); err != nil {
		return err
	}
	if err := want(done, "yes"); err != nil {
		return err
	}
	if err := t.until("document.getElementById('status').textContent === 'No open questions.'"); err != nil {
		return err
	}
	close(release)
	if err := t.until(endedAs(id, "You answered: yes")); err != nil {
		why, _ := eval[string](t, whyOf(id))
		return fmt.Errorf("%w: the card reads %q", err, why)
	}
	posts, err := eval[int](t, "window.posts")
	if err != nil || posts != 1 {
		return fmt.Errorf("the page sent %d POSTs (%v), want 1", posts, err)
	}
	return nil
}

// unkeptAnswer: the host could not keep the answer (a keep of WithKeep that
// fails, as a durable write does), so the POST is 503 NOT_KEPT with the
// Inbox's hint. The card stays open and enabled, shows the hint, and the
// human sends the answer again, which is kept.
func unkeptAnswer(s *site, browser context.Context) error {
	var mu sync.Mutex
	failures := 2
	keep := func([]ui.Outcome) error {
		mu.Lock()
		defer mu.Unlock()
		if failures == 0 {
			return nil
		}
		failures--
		return errors.New("the database is away")
	}
	registry := &ui.Registry{}
	session := ui.WithRegistry(context.Background(), registry)
	dispose, err := registry.Register(ui.ProviderFunc(func(ctx context.Context, req ui.Request) (ui.Answer, error) {
		return s.inbox.Ask(ui.WithKeep(ctx, keep), req)
	}))
	if err != nil {
		return err
	}
	defer dispose()
	t, cancel, err := s.open(browser)
	if err != nil {
		return err
	}
	defer cancel()
	done, p, err := s.ask(session, region)
	if err != nil {
		return err
	}
	id := p[0].ID
	if err := t.until(shown(id)); err != nil {
		return err
	}
	for range 2 {
		if err := t.do(chromedp.Click(option(id, "America")), chromedp.Click(button(id, "Send answer"))); err != nil {
			return err
		}
		open := "document.querySelector('#questions " + card(id) + "') !== null && " +
			"Array.from(document.querySelectorAll('" + card(id) + " input, " + card(id) + " button')).every(c => !c.disabled)"
		const note = "Your answer could not be kept. Send it again."
		if err := t.until(noteOf(id) + " === " + fmt.Sprintf("%q", note) + " && " + open); err != nil {
			got, _ := eval[string](t, noteOf(id))
			return fmt.Errorf("%w: the note reads %q", err, got)
		}
	}
	if err := t.do(chromedp.Click(button(id, "Send answer"))); err != nil {
		return err
	}
	if err := want(done, "us"); err != nil {
		return err
	}
	if err := t.until(endedAs(id, "You answered: America")); err != nil {
		return err
	}
	return t.problems()
}

// manyBatches: the page showed each question of a render with a pass over
// every question (the countdown of every deadline, the size of its batch),
// so its work grew with the square of the open questions: seconds at 10,000.
// It counts the elements the page's script touches through the list's
// filters and the document's queries, which must follow the list (at most
// 20 a question: the countdown's tick adds one a question each second).
func manyBatches(s *site, t *tab) error {
	const n = 100
	counter := `window.touched = 0;
		const qsa = Document.prototype.querySelectorAll;
		Document.prototype.querySelectorAll = function (sel) { const r = qsa.call(this, sel); window.touched += r.length; return r; };
		const filter = Array.prototype.filter;
		Array.prototype.filter = function (...args) { window.touched += this.length; return filter.apply(this, args); };`
	if err := t.do(chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tt, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: counter})
		return err
	})); err != nil {
		return err
	}
	step, cancel := context.WithTimeout(s.session, time.Hour)
	defer cancel()
	done := make(chan error, n)
	for i := 0; i < n; i++ {
		go func(i int) {
			_, err := ui.AskAll(step, []ui.Request{{Question: fmt.Sprintf("Question %d?", i)}})
			done <- err
		}(i)
	}
	// Changed before Pending, so that no change between the two is missed.
	for deadline := time.After(wait); ; {
		changed := s.inbox.Changed()
		if len(s.inbox.Pending()) >= n {
			break
		}
		select {
		case <-changed:
		case <-deadline:
			return fmt.Errorf("the questions did not open")
		}
	}
	if err := t.do(chromedp.Reload()); err != nil {
		return err
	}
	if err := t.until(fmt.Sprintf("document.getElementById('status').textContent === '%d open questions.'", n)); err != nil {
		return err
	}
	touched, err := eval[int](t, "window.touched")
	if err != nil || touched > 20*n {
		return fmt.Errorf("showing %d questions touched %d elements (%v), want at most %d", n, touched, err, 20*n)
	}
	cancel()
	for i := 0; i < n; i++ {
		if err := <-done; ui.CodeOf(err) != ui.CodeAskAborted {
			return fmt.Errorf("AskAll() = %v, want %s", err, ui.CodeAskAborted)
		}
	}
	return nil
}

// rightToLeft: a Hebrew or Arabic text is laid out right to left, each text
// apart from the page's own words. In the page's direction, "האם למחוק?"
// would show its question mark at the wrong end.
func rightToLeft(s *site, t *tab) error {
	req := ui.Request{
		Header:   "מחיקה",
		Question: "האם למחוק את הקובץ?",
		Options:  []ui.Option{{Label: "כן", Recommended: true}, {Label: "لا", Description: "لن يتم حذف أي شيء."}},
	}
	done, id, err := s.askShown(t, req)
	if err != nil {
		return err
	}
	got, err := eval[string](t, "Array.from(document.querySelectorAll('"+card(id)+" :is(.header, .question, .label, .desc)'))"+
		".map(e => e.textContent + (e.matches(':dir(rtl)') ? ' rtl' : ' ltr')).join('|')")
	dirs := "מחיקה rtl|האם למחוק את הקובץ? rtl|כן rtl|لا rtl|لن يتم حذف أي شيء. rtl"
	if err != nil || got != dirs {
		return fmt.Errorf("the texts read %q (%v), want %q", got, err, dirs)
	}
	if err := t.do(chromedp.Click(button(id, "Send answer"))); err != nil {
		return err
	}
	return want(done, "כן")
}
