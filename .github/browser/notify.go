package main

// Scenarios of the page's notifications: the page's own control, a
// notification while the page is hidden and its closing, a Web Push
// delivered to the page's service worker, and a notification's click.
//
// Chromium drops a notification that a getNotifications call finds not yet
// displayed, so a scenario never polls for one: it waits for the browser's
// record of it (the DevTools protocol's BackgroundService), then reads.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/backgroundservice"
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

// untilGives waits until get gives want.
func untilGives(get func() (string, error), want string) error {
	deadline := time.Now().Add(wait)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		got, err := get()
		if err == nil && got == want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("got %q, want %q (%v)", got, want, err)
		}
		<-tick.C
	}
}

// shownIn is the JavaScript promise, in the worker, of the titles and bodies
// of its notifications, "title/body" joined by "|".
const shownIn = "registration.getNotifications().then(ns => ns.map(n => n.title + '/' + n.body).join('|'))"

// worker is the page's service worker, as the DevTools protocol reports it,
// and the browser's record of its pushes and notifications.
type worker struct {
	mu     sync.Mutex
	reg    serviceworker.RegistrationID
	target target.ID // of its running version
	active chan struct{}
	record []string      // not yet seen: "Push event completed", "Notification displayed title", ...
	more   chan struct{} // closed and renewed as a record comes
}

// watch follows the service worker of the site, and the browser's record,
// from the tab of ctx.
func (w *worker) watch(s *site, ctx context.Context) error {
	if err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *serviceworker.EventWorkerVersionUpdated:
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
		case *backgroundservice.EventBackgroundServiceEventReceived:
			e := ev.BackgroundServiceEvent
			line := e.EventName
			for _, m := range e.EventMetadata {
				if m.Key == "Payload" || m.Key == "Title" {
					line += " " + m.Value
				}
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			w.record = append(w.record, line)
			close(w.more)
			w.more = make(chan struct{})
		}
	}); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	_, err := chromedp.Call(ctx, serviceworker.Enable, cdp.Empty{})
	for _, service := range []backgroundservice.ServiceName{backgroundservice.ServiceNamePushMessaging, backgroundservice.ServiceNameNotifications} {
		if err == nil {
			_, err = chromedp.Call(ctx, backgroundservice.SetRecording, backgroundservice.SetRecordingParams{ShouldRecord: true, Service: service})
		}
		if err == nil {
			_, err = chromedp.Call(ctx, backgroundservice.StartObserving, backgroundservice.StartObservingParams{Service: service})
		}
	}
	return err
}

// saw waits for a record that starts with line, and takes it.
func (w *worker) saw(line string) error {
	timeout := time.After(wait)
	for {
		w.mu.Lock()
		i := slices.IndexFunc(w.record, func(r string) bool { return strings.HasPrefix(r, line) })
		if i >= 0 {
			w.record = slices.Delete(w.record, i, i+1)
		}
		more := w.more
		w.mu.Unlock()
		if i >= 0 {
			return nil
		}
		select {
		case <-more:
		case <-timeout:
			return fmt.Errorf("the browser did not record %q", line)
		}
	}
}

// push delivers the JSON of m to the worker, as a push service does, and
// waits until the worker's push event completed.
func (w *worker) push(s *site, tab context.Context, m any) error {
	data, _ := json.Marshal(m)
	ctx, cancel := context.WithTimeout(tab, wait)
	defer cancel()
	w.mu.Lock()
	reg := w.reg
	w.mu.Unlock()
	_, err := chromedp.Call(ctx, serviceworker.DeliverPushMessage, serviceworker.DeliverPushMessageParams{Origin: "http://" + s.addr, RegistrationID: reg, Data: string(data)})
	if err != nil {
		return err
	}
	return w.saw("Push event completed")
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

// shows checks that the worker's notifications are want ("title/body"
// joined by "|"), once their displays are recorded.
func (w *worker) shows(browserCtx context.Context, want string) error {
	got, err := w.eval(browserCtx, shownIn)
	if err != nil || got != want {
		return fmt.Errorf("the notifications are %q (%v), want %q", got, err, want)
	}
	return nil
}

// pages waits until the worker sees the page's windows as want (their
// visibility, joined by ",").
func (w *worker) pages(browserCtx context.Context, want string) error {
	return untilGives(func() (string, error) {
		return w.eval(browserCtx, "pages().then(ps => ps.map(p => p.visibilityState).join())")
	}, want)
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

// minimize minimizes the window of tab t, or restores it, and waits until
// the page and the worker see the page hidden, or visible.
func (w *worker) minimize(browserCtx context.Context, t *tab, state browser.WindowState) error {
	shown := map[browser.WindowState]string{browser.WindowStateMinimized: "hidden", browser.WindowStateNormal: "visible"}[state]
	err := t.do(chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		w, err := cdp.Call(ctx, tt, browser.GetWindowForTarget, browser.GetWindowForTargetParams{})
		if err != nil {
			return err
		}
		_, err = cdp.Call(ctx, tt, browser.SetWindowBounds, browser.SetWindowBoundsParams{WindowID: w.WindowID, Bounds: &browser.Bounds{WindowState: state}})
		return err
	}))
	if err == nil {
		err = t.until("document.visibilityState === '" + shown + "'")
	}
	if err == nil {
		err = w.pages(browserCtx, shown)
	}
	return err
}

// shootTop saves the top of tab t's page, with a question open, in each
// viewport, as shoot does.
func (s *site) shootTop(t *tab, name string) error {
	if s.shots == "" {
		return nil
	}
	done, id, err := s.askShown(t, ui.Request{Question: "Merge the release branch?", Options: yesNo, Agent: &ui.Agent{Name: "release-bot"}})
	if err != nil {
		return err
	}
	if err := s.shoot(t, name, ""); err != nil {
		return err
	}
	if err := s.inbox.Respond(id, ui.Answer{Text: "No"}, nil); err != nil {
		return err
	}
	return want(done, "No")
}

// notifications: the page's control shows while the permission is not
// asked, and asks on a click; then, with the page hidden (its window
// minimized: headless Chromium keeps a tab behind another visible), a
// question shows a notification through the worker, with its first line and
// the agent, and its end closes it; a push to the worker shows one unless
// the page is in view, and an "ended" push closes it, a batch's each of its
// questions'; a click on one brings the page to its question, or opens the
// page through the host's link; without push, the next page that opens
// closes those of questions that ended while no page was open.
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
	// The browser's records come through a tab of their own, which stays open when the page's closes.
	blank, cancelBlank := chromedp.NewContext(browserCtx)
	defer cancelBlank()
	w := &worker{active: make(chan struct{}), more: make(chan struct{})}
	if err := w.watch(s, blank); err != nil {
		return err
	}
	if err := t.until("document.getElementById('status').textContent.includes('open question') && !document.getElementById('notify').hidden"); err != nil {
		return err
	}
	if err := s.shootTop(t, "notify-control"); err != nil {
		return err
	}
	// The human allows it at the browser's prompt, which headless Chromium does not show.
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
	// A question while the page is in view: no notification (the page shows them in order, so the next
	// question's, hidden, would come after it); a question while it is hidden: its notification, closed when
	// it ends elsewhere.
	seen, q, err := s.askShown(t, ui.Request{Question: "Seen on the page?"})
	if err != nil {
		return err
	}
	if err := w.minimize(browserCtx, t, browser.WindowStateMinimized); err != nil {
		return err
	}
	done, p, err := s.ask(s.session, ui.Request{Question: "Deploy to production?\nThe second line stays out.", Options: yesNo, Agent: &ui.Agent{Name: "release-bot"}})
	if err != nil {
		return err
	}
	if err := w.saw("Notification displayed"); err != nil {
		return err
	}
	if err := w.shows(browserCtx, "Deploy to production?/release-bot"); err != nil {
		return err
	}
	if err := s.inbox.Respond(p[0].ID, ui.Answer{Text: "No", Via: "terminal"}, nil); err != nil {
		return err
	}
	if err := want(done, "No"); err != nil {
		return err
	}
	if err := s.inbox.Respond(q, ui.Answer{Text: "Yes"}, nil); err != nil {
		return err
	}
	if err := want(seen, "Yes"); err != nil {
		return err
	}
	if err := untilGives(func() (string, error) { return w.eval(browserCtx, shownIn) }, ""); err != nil {
		return err
	}

	// A push as the Inbox sends it, to the worker: shown, as text cut to 100 characters, then closed by its "ended".
	long := strings.Repeat("é", 120)
	if err := w.push(s, blank, map[string]any{"id": "pushed-1", "text": long, "agent": "<b>bot</b>"}); err != nil {
		return err
	}
	if err := w.saw("Notification displayed"); err != nil {
		return err
	}
	if err := w.shows(browserCtx, long[:200]+"/<b>bot</b>"); err != nil {
		return err
	}
	if err := w.push(s, blank, map[string]any{"id": "pushed-1", "ended": true}); err != nil {
		return err
	}
	if err := w.shows(browserCtx, ""); err != nil {
		return err
	}
	// A push while the page is in view shows nothing; the next, hidden again, shows.
	if err := w.minimize(browserCtx, t, browser.WindowStateNormal); err != nil {
		return err
	}
	if err := w.push(s, blank, map[string]any{"id": "pushed-2", "text": "Seen on the page", "agent": ""}); err != nil {
		return err
	}
	if err := w.minimize(browserCtx, t, browser.WindowStateMinimized); err != nil {
		return err
	}
	if err := w.push(s, blank, map[string]any{"id": "pushed-3", "text": "Not seen", "agent": ""}); err != nil {
		return err
	}
	if err := w.saw("Notification displayed"); err != nil {
		return err
	}
	if err := w.shows(browserCtx, "Not seen/From your agent"); err != nil {
		return err
	}
	if err := w.push(s, blank, map[string]any{"id": "pushed-3", "ended": true}); err != nil {
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
	for range reqs {
		if err := w.saw("Notification displayed"); err != nil {
			return err
		}
	}
	got, err := w.eval(browserCtx, click(last))
	if err != nil || got != "focused "+s.pageURL()+" 5" {
		return fmt.Errorf("the click's handler: %q (%v), want the page focused and 5 notifications left", got, err)
	}
	if err := t.until("document.activeElement.closest('" + card(last) + "') !== null && (r => r.top > -1 && r.top < innerHeight)(document.querySelector('" + card(last) + "').getBoundingClientRect())"); err != nil {
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
	if err := untilGives(func() (string, error) { return w.eval(browserCtx, shownIn) }, ""); err != nil {
		return err
	}
	if err := t.problems(); err != nil {
		return err
	}

	// A batch shown while hidden, then the page closed: the batch's "ended" push, as the Inbox sends it
	// (its first question's ID and the batch), closes each question's notification, not the first's alone.
	done, p, err = s.ask(s.session, ui.Request{Question: "Batch first?"}, ui.Request{Question: "Batch second?"})
	if err != nil {
		return err
	}
	for range p {
		if err := w.saw("Notification displayed"); err != nil {
			return err
		}
	}

	// No page open: a click opens the page through the host's link, token included.
	cancel()
	if err := w.pages(browserCtx, ""); err != nil {
		return err
	}
	if err := w.push(s, blank, map[string]any{"id": p[0].ID, "ended": true, "batch": p[0].Batch}); err != nil {
		return err
	}
	if err := w.shows(browserCtx, ""); err != nil {
		return fmt.Errorf("a batch's ending, its page closed: %w", err)
	}
	for _, q := range p {
		if err := s.inbox.Respond(q.ID, ui.Answer{Text: "ok"}, nil); err != nil {
			return err
		}
	}
	if err := want(done, "ok", "ok"); err != nil {
		return err
	}
	if err := w.push(s, blank, map[string]any{"id": "pushed-4", "text": "Open the page?", "agent": ""}); err != nil {
		return err
	}
	if err := w.saw("Notification displayed"); err != nil {
		return err
	}
	if got, err := w.eval(browserCtx, click("pushed-4")); err != nil || got != "opened "+s.pageURL()+" 0" {
		return fmt.Errorf("the click's handler: %q (%v), want %q opened and no notification left", got, err, s.pageURL())
	}

	// Without push: a hidden page's notification, the page closed, the question ended elsewhere. The
	// notification stays until a page opens, which closes those of questions no longer open.
	t, cancel, err = s.open(browserCtx)
	if err != nil {
		return err
	}
	defer cancel()
	if err := w.minimize(browserCtx, t, browser.WindowStateMinimized); err != nil {
		return err
	}
	done, p, err = s.ask(s.session, ui.Request{Question: "Stale?"})
	if err != nil {
		return err
	}
	if err := w.saw("Notification displayed"); err != nil {
		return err
	}
	cancel()
	if err := w.pages(browserCtx, ""); err != nil {
		return err
	}
	if err := s.inbox.Respond(p[0].ID, ui.Answer{Text: "ok", Via: "terminal"}, nil); err != nil {
		return err
	}
	if err := want(done, "ok"); err != nil {
		return err
	}
	if err := w.shows(browserCtx, "Stale?/From your agent"); err != nil {
		return err
	}
	t, cancel, err = s.open(browserCtx)
	if err != nil {
		return err
	}
	defer cancel()
	if err := untilGives(func() (string, error) { return w.eval(browserCtx, shownIn) }, ""); err != nil {
		return fmt.Errorf("a page opened after its question ended: %w", err)
	}
	return t.problems()
}
