package main

// Scenarios of the page's notifications: the page's own control, a
// notification while the page is hidden and its closing, a Web Push
// delivered to the page's service worker, and a notification's click.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	ui "github.com/dsh-go/userinteraction"
)

func init() {
	scenarios = append(scenarios, scenario{"notifications: the control, a hidden page, a push to the worker, a click", notifications})
}

// permit sets the notification permission of the site's origin.
func (s *site) permit(browserCtx context.Context, setting browser.PermissionSetting) error {
	ctx, cancel := context.WithTimeout(browserCtx, wait)
	defer cancel()
	_, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
		Permission: &browser.PermissionDescriptor{Name: "notifications"},
		Setting:    setting,
		Origin:     "http://" + s.addr,
	})
	return err
}

// untilAsync waits until the promise of the JavaScript expression js gives want.
func untilAsync(t *tab, js, want string) error {
	deadline := time.Now().Add(wait)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		got, err := eval2[string](t, js)
		if err == nil && got == want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("waiting for %s: got %q, want %q (%v)", js, got, want, err)
		}
		<-tick.C
	}
}

// eval2 returns the value of the promise of the JavaScript expression js.
func eval2[T any](t *tab, js string) (T, error) {
	ctx, cancel := context.WithTimeout(t.ctx, wait)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
}

// titles is the JavaScript promise of the titles of the worker's
// notifications tagged id ("" for all), joined by "|".
func titles(tag string) string {
	return "navigator.serviceWorker.ready.then(r => r.getNotifications(" + fmt.Sprintf("{tag: %q}", tag) + ")).then(ns => ns.map(n => n.title + '/' + n.body).join('|'))"
}

// worker is the page's service worker, as the DevTools protocol reports it.
type worker struct {
	mu     sync.Mutex
	reg    serviceworker.RegistrationID
	target target.ID // of its running version
	active chan struct{}
}

// watch follows the service worker of the site from the tab of ctx.
func (w *worker) watch(s *site, ctx context.Context) error {
	if err := chromedp.Listen(ctx, func(ev any) {
		if ev, ok := ev.(*serviceworker.EventWorkerVersionUpdated); ok {
			w.mu.Lock()
			defer w.mu.Unlock()
			for _, v := range ev.Versions {
				if strings.HasPrefix(v.ScriptURL, "http://"+s.addr+"/ask/sw.js?") && v.Status == serviceworker.VersionStatusActivated && v.TargetID != "" {
					if w.reg == "" {
						close(w.active)
					}
					w.reg, w.target = v.RegistrationID, v.TargetID
				}
			}
		}
	}); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	_, err := chromedp.Call(ctx, serviceworker.Enable, cdp.Empty{})
	return err
}

// push delivers the JSON of m to the worker, as a push service does.
func (w *worker) push(s *site, tab context.Context, m any) error {
	data, _ := json.Marshal(m)
	ctx, cancel := context.WithTimeout(tab, wait)
	defer cancel()
	w.mu.Lock()
	reg := w.reg
	w.mu.Unlock()
	_, err := chromedp.Call(ctx, serviceworker.DeliverPushMessage, serviceworker.DeliverPushMessageParams{Origin: "http://" + s.addr, RegistrationID: reg, Data: string(data)})
	return err
}

// eval returns the value of the promise of the JavaScript expression js,
// evaluated in the worker.
func (w *worker) eval(browserCtx context.Context, js string) (string, error) {
	w.mu.Lock()
	id := w.target
	w.mu.Unlock()
	ctx, cancel := chromedp.NewContext(browserCtx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	defer cancel()
	ctx, cancelWait := context.WithTimeout(ctx, wait)
	defer cancelWait()
	return chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
}

// click is the JavaScript, in the worker, of a click on its notification
// tagged tag: the DevTools protocol cannot click one, and a click the worker
// dispatches itself is not trusted, so the page's handler runs with a
// waitUntil of the test's, and with focus and openWindow stubbed, as the
// browser allows them only after a real click. It gives the handler's
// outcome: "focused URL" or "opened URL", and the notifications left.
func click(tag string) string {
	return `(async () => {
  let did = "";
  WindowClient.prototype.focus = function () { did = "focused " + this.url; return Promise.resolve(this); };
  clients.openWindow = url => { did = "opened " + url; return Promise.resolve(null); };
  const [n] = await registration.getNotifications({tag: ` + fmt.Sprintf("%q", tag) + `});
  if (!n) return "no notification";
  const e = new NotificationEvent("notificationclick", {notification: n});
  let work = null;
  Object.defineProperty(e, "waitUntil", {value: p => { work = p; }});
  dispatchEvent(e);
  await work;
  return did + " " + (await registration.getNotifications()).length;
})()`
}

// minimize minimizes the window of tab t, or restores it: the page is then
// hidden, or visible.
func minimize(t *tab, state browser.WindowState) error {
	return t.do(chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		w, err := cdp.Call(ctx, tt, browser.GetWindowForTarget, browser.GetWindowForTargetParams{})
		if err != nil {
			return err
		}
		_, err = cdp.Call(ctx, tt, browser.SetWindowBounds, browser.SetWindowBoundsParams{WindowID: w.WindowID, Bounds: &browser.Bounds{WindowState: state}})
		return err
	}))
}

// notifications: the page's control shows while the permission is not
// asked, and asks on a click; then, with the page hidden (its window
// minimized), a question shows a notification through the worker, with its
// first line and the agent, and its end closes it; a push to the worker
// shows one unless the page is in view, and an "ended" push closes it; a
// click on one brings the page to its question, or opens the page.
func notifications(s *site, browserCtx context.Context) error {
	defer func() { _ = s.permit(browserCtx, browser.PermissionSettingPrompt) }()
	if err := s.permit(browserCtx, browser.PermissionSettingPrompt); err != nil {
		return err
	}
	t, cancel, err := s.open(browserCtx)
	if err != nil {
		return err
	}
	defer cancel()
	w := &worker{active: make(chan struct{})}
	if err := w.watch(s, t.ctx); err != nil {
		return err
	}
	if err := t.until("document.getElementById('status').textContent.includes('open question') && !document.getElementById('notify').hidden"); err != nil {
		return err
	}
	s.shoot(t, "notify-control", "main")
	// The human allows it at the browser's prompt, which a headless browser does not show.
	if err := s.permit(browserCtx, browser.PermissionSettingGranted); err != nil {
		return err
	}
	if err := t.do(chromedp.Click(chromedp.Search(`//button[@id="notify"]`))); err != nil {
		return err
	}
	if err := t.until("document.getElementById('notify').hidden"); err != nil {
		return err
	}
	select {
	case <-w.active:
	case <-time.After(wait):
		return fmt.Errorf("the service worker did not start")
	}
	visible, err := eval[bool](t, "!document.hidden")
	if err != nil || !visible {
		return fmt.Errorf("the page is hidden before its window is minimized (%v)", err)
	}
	if err := minimize(t, browser.WindowStateMinimized); err != nil {
		return err
	}
	if err := t.until("document.hidden"); err != nil {
		return err
	}

	// A question while the page is hidden: its notification, closed when it ends elsewhere.
	done, p, err := s.ask(s.session, ui.Request{Question: "Deploy to production?\nThe second line stays out.", Options: yesNo, Agent: &ui.Agent{Name: "release-bot"}})
	if err != nil {
		return err
	}
	if err := untilAsync(t, titles(""), "Deploy to production?/release-bot"); err != nil {
		return err
	}
	if err := s.inbox.Respond(p[0].ID, ui.Answer{Text: "No", Via: "terminal"}, nil); err != nil {
		return err
	}
	if err := want(done, "No"); err != nil {
		return err
	}
	if err := untilAsync(t, titles(""), ""); err != nil {
		return err
	}

	// A push as the Inbox sends it, to the worker: shown, then closed by its "ended".
	long := strings.Repeat("é", 120)
	if err := w.push(s, t.ctx, map[string]any{"id": "pushed-1", "text": long, "agent": "<b>bot</b>"}); err != nil {
		return err
	}
	if err := untilAsync(t, titles("pushed-1"), long[:200]+"/<b>bot</b>"); err != nil { // 100 characters, as text
		return err
	}
	if err := w.push(s, t.ctx, map[string]any{"id": "pushed-1", "ended": true}); err != nil {
		return err
	}
	if err := untilAsync(t, titles(""), ""); err != nil {
		return err
	}
	// A push while the page is in view shows nothing; the next, hidden again, shows.
	if err := minimize(t, browser.WindowStateNormal); err != nil {
		return err
	}
	if err := t.until("!document.hidden"); err != nil {
		return err
	}
	if err := w.push(s, t.ctx, map[string]any{"id": "pushed-2", "text": "Seen on the page", "agent": ""}); err != nil {
		return err
	}
	if err := minimize(t, browser.WindowStateMinimized); err != nil {
		return err
	}
	if err := t.until("document.hidden"); err != nil {
		return err
	}
	if err := w.push(s, t.ctx, map[string]any{"id": "pushed-3", "text": "Not seen", "agent": ""}); err != nil {
		return err
	}
	if err := untilAsync(t, titles(""), "Not seen/From your agent"); err != nil {
		return err
	}
	if err := w.push(s, t.ctx, map[string]any{"id": "pushed-3", "ended": true}); err != nil {
		return err
	}
	if err := untilAsync(t, titles(""), ""); err != nil {
		return err
	}

	// A click on a question's notification, several open: the page's card of that question, focused and in view.
	var reqs []ui.Request
	for i := range 6 {
		reqs = append(reqs, ui.Request{Question: fmt.Sprintf("Question %d?", i+1), Options: yesNo})
	}
	done, p, err = s.ask(s.session, reqs...)
	if err != nil {
		return err
	}
	last := p[len(p)-1].ID
	if err := untilAsync(t, "navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => String(ns.length))", "6"); err != nil {
		return err
	}
	got, err := w.eval(browserCtx, click(last))
	if err != nil || got != "focused http://"+s.addr+"/ask/#token="+s.token+" 5" {
		return fmt.Errorf("the click's handler: %q (%v), want the page focused and 5 notifications left", got, err)
	}
	if err := t.until("document.activeElement.closest('" + card(last) + "') !== null && (r => r.top >= 0 && r.top < innerHeight)(document.querySelector('" + card(last) + "').getBoundingClientRect())"); err != nil {
		return err
	}
	for _, q := range p {
		if err := s.inbox.Respond(q.ID, ui.Answer{Text: "Yes"}, nil); err != nil {
			return err
		}
	}
	if err := want(done, "Yes", "Yes", "Yes", "Yes", "Yes", "Yes"); err != nil {
		return err
	}
	if err := untilAsync(t, titles(""), ""); err != nil {
		return err
	}
	if err := t.problems(); err != nil {
		return err
	}

	// No page open: a click opens the page, through the host's link (token included).
	cancel()
	blank, cancelBlank := chromedp.NewContext(browserCtx)
	defer cancelBlank()
	if err := w.watch(s, blank); err != nil {
		return err
	}
	if err := untilWorker(w, browserCtx, "clients.matchAll({type: 'window', includeUncontrolled: true}).then(cs => String(cs.length))", "0"); err != nil {
		return err
	}
	if err := w.push(s, blank, map[string]any{"id": "pushed-4", "text": "Open the page?", "agent": ""}); err != nil {
		return err
	}
	if err := untilWorker(w, browserCtx, "registration.getNotifications().then(ns => ns.map(n => n.tag).join())", "pushed-4"); err != nil {
		return err
	}
	if got, err := w.eval(browserCtx, click("pushed-4")); err != nil || got != "opened "+s.pageURL()+" 0" {
		return fmt.Errorf("the click's handler: %q (%v), want %q opened and no notification left", got, err, s.pageURL())
	}
	return nil
}

// untilWorker waits until the promise of js, in the worker, gives want.
func untilWorker(w *worker, browserCtx context.Context, js, want string) error {
	deadline := time.Now().Add(wait)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		got, err := w.eval(browserCtx, js)
		if err == nil && got == want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("waiting in the worker for %s: got %q, want %q (%v)", js, got, want, err)
		}
		<-tick.C
	}
}
