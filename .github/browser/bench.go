package main

// -bench: the page's figures in Chromium, each beside its goal and as a ratio
// to the floor (floor.go) measured in the same run on the same machine.
//
//   - ask-to-screen: from just before Ask (or the floor's ask) is called until
//     the question's card is in the page's DOM. A MutationObserver, put in
//     the tab by the driver before the page loads, stamps the time when the
//     card is added (performance.timeOrigin + performance.now(), at the end of
//     the task that added it, so after all the page's work of the event).
//   - click-to-resume: from the click on the card's send button (the click
//     event's own timeStamp, in the page) until Ask returns, after a click on
//     an option just before.
//
// The page's clock and the driver's are matched by the round trip of an
// evaluation with the least delay (of 20), within a fraction of a
// millisecond. Each figure is the median of 4 passes' medians of 5 samples,
// with the spread of the passes; the floor and the page alternate within
// each pass, and each pass opens the next question only once the last one
// ended, so 1, 100 or 1,000 others are open throughout.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	ui "github.com/dsh-go/userinteraction"
)

// benchScript stamps what the driver waits for, before the page's script runs.
const benchScript = `(() => {
	const b = window.bench = {want: "", when: null, node: null, click: 0}, now = () => performance.timeOrigin + performance.now();
	b.arm = (want, when) => { b.want = want, b.when = when || null, b.node = null; b.done = new Promise(r => b.resolve = r); };
	const seen = n => { const t = now(); b.want = "", b.when = null, b.node = n; requestAnimationFrame(() => setTimeout(() => b.resolve([t, now()]))); };
	new MutationObserver(ms => {
		if (b.when) return void (b.when() && seen(null));
		if (b.want) for (const m of ms) for (const n of m.addedNodes) if (n.nodeType === 1 && n.textContent.includes(b.want)) return seen(n);
	}).observe(document, {childList: true, subtree: true, characterData: true});
	addEventListener("click", e => { if (e.detail > 0) b.click = performance.timeOrigin + e.timeStamp; }, true);
})()`

// benchTarget is the Inbox's page or the floor.
type benchTarget struct {
	name  string
	url   string
	ask   func(ctx context.Context, req ui.Request) error
	count string // JavaScript: true once the tab shows n questions, %d
	tab   *tab
	close context.CancelFunc
	off   float64 // the page's clock minus the driver's, in ms
}

// other is the nth of the questions open beside the one measured.
func other(n int, what string) ui.Request {
	return ui.Request{
		Header:   "Deploy",
		Question: fmt.Sprintf("%s %d: to which region should the build go?", what, n),
		Options: []ui.Option{
			{Label: "Europe", Description: "Frankfurt; the data stays in the EU", Recommended: true},
			{Label: "America", Description: "Virginia"},
			{Label: "Asia", Description: "Tokyo"},
		},
		Agent: &ui.Agent{Name: "deploy-bot"},
	}
}

func floorOf(req ui.Request) floorQuestion {
	q := floorQuestion{Header: req.Header, Question: req.Question}
	for _, o := range req.Options {
		q.Options = append(q.Options, floorOption{Label: o.Label, Description: o.Description})
	}
	return q
}

// openTab opens url in a new tab with benchScript, and matches its clock.
func (b *benchTarget) openTab(browser context.Context) error {
	ctx, cancel := chromedp.NewContext(browser)
	b.tab, b.close = &tab{ctx: ctx}, cancel
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: benchScript})
		return err
	}), chromedp.Navigate(b.url))
	if err != nil {
		return err
	}
	best := time.Hour
	for range 20 {
		before := time.Now()
		at, err := eval[float64](b.tab, "performance.timeOrigin + performance.now()")
		after := time.Now()
		if err != nil {
			return err
		}
		if d := after.Sub(before); d < best {
			best, b.off = d, at-ms(before)-float64(d)/2e6
		}
	}
	return nil
}

func ms(t time.Time) float64 { return float64(t.UnixNano()) / 1e6 }

// sample asks one question while the tab shows the others, clicks its
// second option and its send button, and returns ask-to-screen and
// click-to-resume in ms, and how many clicks on send the page held.
func (b *benchTarget) sample(ctx context.Context, n int) (a2s, c2r float64, held int, err error) {
	req := other(n, "Bench")
	if _, err := eval[bool](b.tab, fmt.Sprintf("(bench.arm(%q), true)", fmt.Sprintf("Bench %d:", n))); err != nil {
		return 0, 0, 0, err
	}
	type asked struct {
		start, end time.Time
		err        error
	}
	done := make(chan asked, 1)
	go func() {
		start := time.Now()
		err := b.ask(ctx, req)
		done <- asked{start, time.Now(), err}
	}()
	seen, err := awaitSeen(b.tab, wait)
	if err != nil {
		return 0, 0, 0, err
	}
	time.Sleep(30 * time.Millisecond)
	var got asked
	for clicks := 0; ; clicks++ {
		at, err := eval[[]float64](b.tab, `(() => { const n = bench.node, o = n.querySelectorAll("label")[1], s = n.querySelector("button");
			s.scrollIntoView({block: "center"}); const a = o.getBoundingClientRect(), c = s.getBoundingClientRect();
			return [a.x + a.width / 2, a.y + a.height / 2, c.x + c.width / 2, c.y + c.height / 2]; })()`)
		if err != nil {
			return 0, 0, held, err
		}
		if clicks == 0 {
			err = b.tab.do(chromedp.MouseClickXY(at[0], at[1]), chromedp.MouseClickXY(at[2], at[3]))
		} else {
			err = b.tab.do(chromedp.MouseClickXY(at[2], at[3]))
		}
		if err != nil {
			return 0, 0, held, err
		}
		select {
		case got = <-done:
		case <-time.After(1500 * time.Millisecond):
			if held++; held < 5 {
				continue
			}
			return 0, 0, held, errors.New("the page held 5 clicks on send in a row")
		}
		break
	}
	if got.err != nil {
		return 0, 0, held, got.err
	}
	click, err := eval[float64](b.tab, "bench.click")
	if err != nil {
		return 0, 0, held, err
	}
	return seen[0] - b.off - ms(got.start), ms(got.end) - (click - b.off), held, nil
}

// awaitSeen waits for what bench.arm armed: the page's times of the change
// in the DOM and of the frame after it.
func awaitSeen(t *tab, limit time.Duration) ([]float64, error) {
	ctx, cancel := context.WithTimeout(t.ctx, limit)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[[]float64]("bench.done", chromedp.EvalAwaitPromise))
}

// figure is one measure of one target: each pass's median.
type figure []float64

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func benchmark(s *site, browser context.Context) error {
	started := time.Now()
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("bench: the page and the floor in chromium on 127.0.0.1, load average %s\n", strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "))
	fl := &floor{answers: map[string]chan string{}, streams: map[chan string]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	floorServer := &http.Server{Handler: fl, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = floorServer.Serve(ln) }()
	defer floorServer.Close()
	targets := []*benchTarget{
		{name: "floor", url: "http://" + ln.Addr().String() + "/", count: "document.title === '%d questions'",
			ask: func(ctx context.Context, req ui.Request) error { _, err := fl.ask(ctx, floorOf(req)); return err }},
		{name: "page", url: s.pageURL(), count: "document.title === '(%d) Questions'",
			ask: func(ctx context.Context, req ui.Request) error { _, err := ui.Ask(ctx, req); return err }},
	}
	const passes, samples = 4, 5
	type row struct {
		open     int
		a2s, c2r [2]figure // floor, page
	}
	var rows []row
	held, n := 0, 0
	for _, open := range []int{1, 100, 1000} {
		others, stop := context.WithCancel(s.session)
		asks := make(chan error, 2*open)
		for _, b := range targets {
			for i := range open {
				go func() { asks <- b.ask(others, other(i, "Other")) }()
			}
		}
		r := row{open: open}
		err := func() error {
			for _, b := range targets {
				if err := b.openTab(browser); err != nil {
					return err
				}
				if err := b.tab.until(fmt.Sprintf(b.count, open)); err != nil {
					return fmt.Errorf("%s: %w", b.name, err)
				}
			}
			for pass := range passes {
				for k := range targets {
					k = (k + pass) % 2
					b := targets[k]
					if err := b.tab.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
						_, err := cdp.Call(ctx, t, page.BringToFront, cdp.Empty{})
						return err
					})); err != nil {
						return err
					}
					var a2s, c2r []float64
					for range samples {
						n++
						a, c, h, err := b.sample(s.session, n)
						if err != nil {
							return fmt.Errorf("%s with %d open: %w", b.name, open, err)
						}
						a2s, c2r, held = append(a2s, a), append(c2r, c), held+h
						time.Sleep(50 * time.Millisecond)
					}
					r.a2s[k], r.c2r[k] = append(r.a2s[k], median(a2s)), append(r.c2r[k], median(c2r))
				}
			}
			return nil
		}()
		for _, b := range targets {
			if b.close != nil {
				b.close()
			}
		}
		stop()
		for range 2 * open {
			<-asks
		}
		if err != nil {
			return err
		}
		rows = append(rows, r)
	}
	line := func(what string, open int, f [2]figure) float64 {
		var ratios []float64
		for i := range f[0] {
			ratios = append(ratios, f[1][i]/f[0][i])
		}
		ratio := median(f[1]) / median(f[0])
		fmt.Printf("%-15s with %5s other open: page %6.2f ms (%.2f-%.2f), floor %5.2f ms (%.2f-%.2f): %.2fx (passes %.2f-%.2f; goal <= 1.5x)\n",
			what, commas(open), median(f[1]), slices.Min(f[1]), slices.Max(f[1]), median(f[0]), slices.Min(f[0]), slices.Max(f[0]),
			ratio, slices.Min(ratios), slices.Max(ratios))
		return ratio
	}
	for _, what := range []string{"ask-to-screen", "click-to-resume"} {
		var first, last float64
		for i, r := range rows {
			f := r.a2s
			if what == "click-to-resume" {
				f = r.c2r
			}
			ratio := line(what, r.open, f)
			if i == 0 {
				first = ratio
			}
			last = ratio
		}
		fmt.Printf("%-15s flat: the ratio with 1,000 open is %.2f times the ratio with 1 (goal <= 1.2)\n", what, last/first)
	}
	fmt.Printf("clicks on send the page held: %d of %d\n", held, n)
	if err := largestBatch(s, browser, targets[1]); err != nil {
		return err
	}
	load, _ = os.ReadFile("/proc/loadavg")
	fmt.Printf("bench done in %.1f s, load average %s\n", time.Since(started).Seconds(), strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "))
	return nil
}

func jsonOf(v any) []byte {
	data, _ := json.Marshal(v)
	return data
}

func commas(n int) string {
	if n >= 1000 {
		return fmt.Sprintf("%d,%03d", n/1000, n%1000)
	}
	return fmt.Sprint(n)
}

// largestBatch opens the largest valid batch, 100 questions of 1,000
// options with as much text as Validate allows, and measures three changes
// until the frame after them: a question opens, a hint is set, a question
// ends.
func largestBatch(s *site, browser context.Context, b *benchTarget) error {
	var reqs []ui.Request
	for i := range 100 {
		req := ui.Request{Question: fmt.Sprintf("Batch question %d: which one?", i), DisallowCustom: true}
		for j := range 1000 {
			label := fmt.Sprintf("Option %03d.%03d ", i, j) + strings.Repeat("x", 48)
			req.Options = append(req.Options, ui.Option{Label: label, Value: strings.Repeat("v", 60)})
		}
		reqs = append(reqs, req)
	}
	if err := reqs[0].Validate(); err != nil {
		return err
	}
	ctx, stop := context.WithCancel(s.session)
	defer stop()
	batch := make(chan error, 1)
	go func() { _, err := ui.AskAll(ctx, reqs); batch <- err }()
	for deadline := time.Now().Add(wait); len(s.inbox.Pending()) < 100; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return errors.New("the batch did not open")
		}
	}
	p := s.inbox.Pending()
	loaded := time.Now()
	if err := b.openTab(browser); err != nil {
		return err
	}
	defer b.close()
	ctxLoad, cancel := context.WithTimeout(b.tab.ctx, 2*time.Minute)
	_, err := chromedp.Run(ctxLoad, chromedp.Poll[bool](fmt.Sprintf(b.count, 100), chromedp.WithPollingInterval(20*time.Millisecond)))
	cancel()
	if err != nil {
		return err
	}
	fmt.Printf("largest valid batch (100 questions of 1,000 options, %d KB of JSON): on the page %d ms after the tab opened\n",
		len(jsonOf(p))>>10, time.Since(loaded).Milliseconds())
	change := func(what, want, when string, do func() error) error {
		if _, err := eval[bool](b.tab, "(bench.arm("+fmt.Sprintf("%q", want)+", "+when+"), true)"); err != nil {
			return err
		}
		start := time.Now()
		if err := do(); err != nil {
			return err
		}
		seen, err := awaitSeen(b.tab, time.Minute)
		if err != nil {
			return err
		}
		fmt.Printf("largest valid batch: %-26s in the DOM in %6.1f ms, the frame after it in %6.1f ms (goal <= 100 ms)\n",
			what, seen[0]-b.off-ms(start), seen[1]-b.off-ms(start))
		return nil
	}
	one := make(chan error, 1)
	err = change("a question opens:", "Bench 0:", "null", func() error {
		go func() { one <- b.ask(ctx, other(0, "Bench")) }()
		return nil
	})
	if err == nil {
		note := fmt.Sprintf("() => document.getElementById('q-%s').closest('form').querySelector('.note').textContent !== ''", p[0].ID)
		err = change("a hint is set:", "", note, func() error {
			if err := s.inbox.Respond(p[0].ID, ui.Answer{}, nil); ui.CodeOf(err) != ui.CodeInvalidAnswer {
				return fmt.Errorf("Respond() = %v, want %s", err, ui.CodeInvalidAnswer)
			}
			return nil
		})
	}
	if err == nil {
		id := s.inbox.Pending()[100].ID
		ended := fmt.Sprintf("() => document.querySelector('#ended form[aria-labelledby=\"q-%s\"]') !== null", id)
		err = change("a question ends:", "", ended, func() error {
			return s.inbox.Respond(id, ui.Answer{}, ui.NewError(ui.CodeAskDeclined, "declined", nil))
		})
		if err == nil {
			err = <-one
			if ui.CodeOf(err) == ui.CodeAskDeclined {
				err = nil
			}
		}
	}
	stop()
	if e := <-batch; err == nil && ui.CodeOf(e) != ui.CodeAskAborted {
		err = fmt.Errorf("AskAll() = %v, want %s", e, ui.CodeAskAborted)
	}
	return err
}
