package main

// Scenarios of the page's geometry: the model's text cannot draw a row of the
// page's own that ticks another option, nor imitate the recommended mark,
// nor push the real rows out of view; a base64 token works, and a changed
// #token is read again; the server's Shutdown does not wait for a tab; tap
// targets and the keyboard.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	ui "github.com/dsh-go/userinteraction"
)

// settled is true once the page moved no control for 600 ms, the time it
// holds a click on one that moved. It looks at the page's shape first
// (layout), so that a zoom not yet observed counts.
const settled = "(layout(), Date.now() >= still)"

func init() {
	scenarios = append(scenarios,
		scenario{"a forged row in a description ticks nothing", onOneTab(forgedRow)},
		scenario{"a question's line feeds keep the options in view", onOneTab(longQuestion)},
		scenario{"no label imitates the recommended mark", onOneTab(imitatedMark)},
		scenario{"a base64 token with + works, and a changed #token is read again", onOneTab(base64Token)},
		scenario{"Shutdown returns with a tab open", onOneTab(shutdownWithTab)},
		scenario{"on a phone: tap targets 44 px high, apart", onOneTab(tapTargets)},
		scenario{"by keyboard alone: a radio, then Send answer", onOneTab(keyboardPick)},
		scenario{"a row that moves under the pointer is not clicked at once", onOneTab(movedRow)},
		scenario{"a button that moves under the pointer is not pressed at once", onOneTab(movedButton)},
		scenario{"a hint that moves the rows below is not clicked through", onOneTab(movedByHint)},
		scenario{"zoomed 200% on a phone, and 320 px wide: the rows and the mark in view", onOneTab(zoomed)},
		scenario{"far down a page of 1,000 questions: a click on a row that moved is held, and its card says so", onOneTab(farDownHeld)},
		scenario{"far down a page of 1,000 questions: Send clicked at once after an option, 0.6 s after a move, reaches Ask", onOneTab(farDownSent)},
	)
}

// forged is a request whose description draws a radio row of its own far
// below the real ones.
var forged = ui.Request{
	Question: "Clean up the repository?",
	Options: []ui.Option{
		{Label: "Delete all branches", Value: "delete", Description: "irreversible" + strings.Repeat("\n", 40) + "◯  Keep all branches (recommended)"},
		{Label: "Cancel", Description: "nothing changes"},
		{Label: "Archive" + strings.Repeat("\u2003", 40) + "◯ Keep all branches"},
	},
	DisallowCustom: true,
}

// forgedRow: a human scrolls to the row that the description draws and
// clicks it. Nothing is ticked: inside the label of "Delete all branches",
// the description would tick it. The description
// also cannot push the real rows away: it is no taller than a few lines.
// A label padded with em spaces stays on one line.
func forgedRow(s *site, t *tab) error {
	done, id, err := s.askShown(t, forged)
	if err != nil {
		return err
	}
	// Where the forged row is drawn, once its frame is scrolled to it.
	at, err := eval[[]float64](t, `(() => {
		const d = document.querySelector('`+card(id)+` .desc');
		d.scrollIntoView({block: "center"});
		d.scrollTop = d.scrollHeight;
		const text = d.firstChild, i = text.data.indexOf("Keep all"), r = document.createRange();
		r.setStart(text, i);
		r.setEnd(text, i + 8);
		window.scrollBy(0, r.getBoundingClientRect().top - innerHeight / 2);
		const box = r.getBoundingClientRect();
		return [box.x + box.width / 2, box.y + box.height / 2, d.getBoundingClientRect().height];
	})()`)
	if err != nil {
		return err
	}
	if err := t.do(chromedp.MouseClickXY(at[0], at[1])); err != nil {
		return err
	}
	if got, err := eval[string](t, checked(id)); err != nil || got != "" {
		return fmt.Errorf("a click on the forged row ticked %q (%v), want nothing", got, err)
	}
	if at[2] > 160 {
		return fmt.Errorf("the description is %.0f px high, want at most 160: its line feeds push the real rows away", at[2])
	}
	// A label's run of spaces reads as one space, so it cannot push its
	// tail to a row that looks like an option of its own.
	rows, err := eval[[]float64](t, "Array.from(document.querySelectorAll('"+card(id)+" label')).map(l => l.getBoundingClientRect().height)")
	if err != nil || len(rows) != 3 || rows[2] != rows[1] {
		return fmt.Errorf("the option rows are %v px high (%v), want Archive's as high as Cancel's: one line", rows, err)
	}
	if err := t.do(chromedp.Click(option(id, "Cancel")), chromedp.Click(button(id, "Send answer"))); err != nil {
		return err
	}
	return want(done, "Cancel")
}

// longQuestion: a question of 60 lines, whose last ones draw option rows,
// under the longest header and agent, leaves the real options in view
// below it, not 1,500 px further down.
func longQuestion(s *site, t *tab) error {
	req := ui.Request{
		Header:   strings.Repeat("Cleanup ", 32),
		Question: "Delete the branches?" + strings.Repeat("\n", 60) + "◯ Keep them (recommended)\n◯ Delete them",
		Options:  []ui.Option{{Label: "Keep"}, {Label: "Delete"}},
		Agent:    &ui.Agent{Name: strings.Repeat("bot-", 64), ID: strings.Repeat("id-", 85)},
	}
	done, id, err := s.askShown(t, req)
	if err != nil {
		return err
	}
	below, err := eval[float64](t, `(() => {
		const c = document.querySelector('`+card(id)+`');
		window.scrollTo(0, c.getBoundingClientRect().top + window.scrollY);
		return document.querySelector('`+card(id)+` fieldset').getBoundingClientRect().bottom - innerHeight;
	})()`)
	if err != nil || below > 0 {
		return fmt.Errorf("the options end %.0f px below the window (%v), want them in view under the question", below, err)
	}
	if err := t.do(chromedp.Click(option(id, "Keep")), chromedp.Click(button(id, "Send answer"))); err != nil {
		return err
	}
	return want(done, "Keep")
}

// imitatedMark: a label that ends in "(recommended)" does not look like
// the page's mark. The mark is drawn by the page, outside the label's text,
// with a background and colours no text has, not a word such as
// "(recommended)" in italics after the label.
func imitatedMark(s *site, t *tab) error {
	req := ui.Request{
		Question: "Which branches?",
		Options: []ui.Option{
			{Label: "Delete all branches (recommended)"},
			{Label: "Keep all branches", Recommended: true},
		},
		DisallowCustom: true,
	}
	done, id, err := s.askShown(t, req)
	if err != nil {
		return err
	}
	// The elements of a row that draw with a background of their own, apart
	// from its label's text.
	marks := func(label string) string {
		return `Array.from(document.querySelectorAll('` + card(id) + ` label')).filter(l => l.querySelector('.label').textContent === ` +
			fmt.Sprintf("%q", label) + `).flatMap(l => Array.from(l.querySelectorAll('*'))).filter(e => !e.closest('.label') && e.tagName !== 'INPUT' &&
			getComputedStyle(e).backgroundColor !== 'rgba(0, 0, 0, 0)' && /recommended/i.test(e.textContent)).length`
	}
	real, err := eval[int](t, marks("Keep all branches"))
	if err != nil || real != 1 {
		return fmt.Errorf("the recommended row has %d marks drawn by the page (%v), want 1", real, err)
	}
	fake, err := eval[int](t, marks("Delete all branches (recommended)"))
	if err != nil || fake != 0 {
		return fmt.Errorf("the row whose label says (recommended) has %d marks (%v), want 0", fake, err)
	}
	if err := t.do(chromedp.Click(button(id, "Send answer"))); err != nil {
		return err
	}
	return want(done, "Keep all branches")
}

// base64Token: a token in standard base64 holds "+", "/" and "=", and the
// page sends it as it is: form decoding would read "+" as a space and say
// the token was wrong. A changed #token is read again without a
// reload: a wrong one says so, the right one connects.
func base64Token(s *site, t *tab) error {
	const token = "q+Fv/8r+2Xk1p0Z+3nY7Ww=="
	s.mux.Handle("/b64/", http.StripPrefix("/b64", s.inbox.Handler(token)))
	status := "document.getElementById('status').textContent"
	for _, step := range []struct{ hash, status string }{
		{token, "open question"},
		{"not-the-token-0123456789", "This link's token is wrong"},
		{token, "open question"},
	} {
		t.forget() // the wrong token's refusal is on the console
		if err := t.do(chromedp.Navigate("http://" + s.addr + "/b64/#token=" + step.hash)); err != nil {
			return err
		}
		if err := t.until(status + ".includes(" + fmt.Sprintf("%q", step.status) + ")"); err != nil {
			got, _ := eval[string](t, status)
			return fmt.Errorf("%w: the status reads %q", err, got)
		}
	}
	return nil
}

// shutdownWithTab: Shutdown returns at once while a tab follows the event
// stream, instead of waiting for its timeout; the tab reconnects to the
// next server. Shutdown must not wait for the tab until its context ends.
func shutdownWithTab(s *site, t *tab) error {
	if err := t.until("document.getElementById('status').textContent.includes('open question')"); err != nil {
		return err
	}
	s.mu.Lock()
	server := s.server
	s.mu.Unlock()
	// Shutdown waits up to 5 s for a connection that carried no request
	// yet, as the browser opens ahead: longer than a stream would need.
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := server.Shutdown(ctx); err != nil {
		return fmt.Errorf("Shutdown() with a tab open = %v, want nil", err)
	}
	if err := s.start(); err != nil {
		return err
	}
	done, _, err := s.askShown(t, ui.Request{Question: "Asked after the restart?"})
	if err != nil {
		return err
	}
	if err := t.do(chromedp.KeyEvent("\t\t"), chromedp.KeyEvent("yes\r")); err != nil { // the notify control, then the text field
		return err
	}
	return want(done, "yes")
}

// tapTargets: on a phone, every control (a row of an option, a text field,
// a button, a closed question's summary) is at least 44 px high, with at
// least 8 px between two of them.
func tapTargets(s *site, t *tab) error {
	if err := t.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile)); err != nil {
		return err
	}
	defer func() { _ = t.do(chromedp.EmulateViewport(1280, 800)) }()
	step, stop := context.WithCancel(s.session)
	done, p, err := s.ask(step, region, ui.Request{Question: "Why?", Options: []ui.Option{{Label: "a"}, {Label: "b", Description: "the second"}}})
	if err != nil {
		stop()
		return err
	}
	if err := t.until(shown(p[1].ID)); err != nil {
		stop()
		return err
	}
	stop() // and one closed, to measure its summary
	if err := want(done, ui.CodeAskAborted); err != nil {
		return err
	}
	if err := t.until("document.querySelectorAll('#ended summary').length >= 2"); err != nil {
		return err
	}
	done, _, err = s.askShown(t, ui.Request{Question: "Which?", Options: []ui.Option{{Label: "one"}, {Label: "two", Recommended: true}}, MultiSelect: true})
	if err != nil {
		return err
	}
	bad, err := eval[string](t, `(() => {
		const targets = Array.from(document.querySelectorAll('label.pick, input[type=text], button, summary'))
			.filter(e => e.getClientRects().length > 0).map(e => [e, e.getBoundingClientRect()]);
		const bad = [];
		for (const [e, r] of targets) if (r.height < 44) bad.push(e.tagName + " " + e.textContent + " is " + r.height + " px high");
		for (const [e, r] of targets) for (const [f, q] of targets)
			if (e !== f && !e.contains(f) && !f.contains(e) && r.left < q.right && q.left < r.right && r.bottom <= q.top && q.top - r.bottom < 8)
				bad.push(e.textContent + " and " + f.textContent + " are " + (q.top - r.bottom) + " px apart");
			else if (e !== f && r.top < q.bottom && q.top < r.bottom && r.right <= q.left && q.left - r.right < 8)
				bad.push(e.textContent + " and " + f.textContent + " are " + (q.left - r.right) + " px apart");
		return bad.join("; ");
	})()`)
	if err != nil || bad != "" {
		return fmt.Errorf("tap targets: %s (%v)", bad, err)
	}
	for _, q := range s.inbox.Pending() {
		_ = s.inbox.Respond(q.ID, ui.Answer{Text: "one"}, nil)
	}
	return want(done, "one")
}

// keyboardPick: Tab reaches the options (the ticked one), an arrow picks
// another, Tab reaches Send answer, and Enter sends.
func keyboardPick(s *site, t *tab) error {
	done, _, err := s.askShown(t, region)
	if err != nil {
		return err
	}
	// The first Tab reaches the page's notify control, the second the picked row.
	if err := t.do(chromedp.KeyEvent("\t\t"), chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent("\t"), chromedp.KeyEvent("\r")); err != nil {
		return err
	}
	return want(done, "us")
}

// leaveAbove shows two questions of one form, and ends the first while the
// tab shows both, so that the second moves up into its place. It returns
// the second's outcome and ID, and the point where the control that pick
// (a JavaScript function of the first's card) was drawn before it left.
func (s *site) leaveAbove(t *tab, pick string) (done <-chan outcome, id string, at []float64, err error) {
	step, stop := context.WithCancel(s.session)
	defer stop()
	req := ui.Request{Question: "Deploy build 41?", Options: []ui.Option{{Label: "Deploy"}, {Label: "Wait"}}, DisallowCustom: true}
	gone, p, err := s.ask(step, req)
	if err != nil {
		return nil, "", nil, err
	}
	req.Question = "Deploy build 42?"
	if done, id, err = s.askShown(t, req); err != nil {
		return nil, "", nil, err
	}
	at, err = eval[[]float64](t, `(() => { const r = (`+pick+`)(document.querySelector('`+card(p[0].ID)+`')).getBoundingClientRect();
		return [r.x + r.width / 2, r.y + r.height / 2]; })()`)
	if err != nil {
		return nil, "", nil, err
	}
	stop()
	if err := want(gone, ui.CodeAskAborted); err != nil {
		return nil, "", nil, err
	}
	return done, id, at, t.until("document.querySelector('#ended " + card(p[0].ID) + "') !== null")
}

// movedRow: the question above another leaves just as the human clicks one
// of its rows. The other question moves up under the pointer, and the click
// ticks nothing there; a click once the page is still ticks what it hits.
func movedRow(s *site, t *tab) error {
	done, id, at, err := s.leaveAbove(t, `e => e.querySelector("label")`)
	if err != nil {
		return err
	}
	if err := t.do(chromedp.MouseClickXY(at[0], at[1])); err != nil {
		return err
	}
	// What the click ticked, and the milliseconds since the move, which the
	// page holds clicks for 600 ms after: a busy machine may click later.
	got, err := eval[[]any](t, "["+checked(id)+", Date.now() - (still - 600)]")
	switch {
	case err != nil:
		return err
	case got[0] != "" && got[1].(float64) > 600:
		fmt.Printf("     (the click came %.0f ms after the move, later than the page holds one: nothing to check)\n", got[1])
	case got[0] != "":
		return fmt.Errorf("a click meant for the question that left ticked %q of the one below, want nothing", got[0])
	default:
		if note, err := eval[string](t, noteOf(id)); err != nil || note != "This moved as you clicked: look again, then click." {
			return fmt.Errorf("the held click's card says %q (%v), want that it moved", note, err)
		}
		if err := s.shoot(t, "held", card(id)); err != nil {
			return err
		}
		if err := t.until(settled); err != nil {
			return err
		}
		if err := t.do(chromedp.MouseClickXY(at[0], at[1])); err != nil {
			return err
		}
	}
	if err := t.until(checked(id) + " === 'Deploy'"); err != nil {
		return err
	}
	if err := t.do(chromedp.Click(button(id, "Send answer"))); err != nil {
		return err
	}
	return want(done, "Deploy")
}

// movedButton: the question above another leaves just as the human presses
// its "Decline to answer". The other question, of the same form, moves up
// under the pointer, and the press declines nothing there: cancelling the
// click's default action alone would not do, since a button of type button
// has none, and its listener would decline the question below.
func movedButton(s *site, t *tab) error {
	done, id, at, err := s.leaveAbove(t, `e => Array.from(e.querySelectorAll("button")).find(b => b.textContent === "Decline to answer")`)
	if err != nil {
		return err
	}
	// Count the responses the page sends: send() calls fetch within the click.
	if _, err := eval[bool](t, `(() => { const f = window.fetch; window.posts = 0;
		window.fetch = (url, o) => { if (o && o.method === "POST") posts++; return f(url, o); }; return true; })()`); err != nil {
		return err
	}
	if err := t.do(chromedp.MouseClickXY(at[0], at[1])); err != nil {
		return err
	}
	// posts, and the milliseconds since the move, which the page holds
	// clicks for 600 ms after: a busy machine may click later than that.
	got, err := eval[[]float64](t, "[posts, Date.now() - (still - 600)]")
	switch {
	case err != nil:
		return err
	case got[0] != 0 && got[1] > 600:
		fmt.Printf("     (the press came %.0f ms after the move, later than the page holds one: nothing to check)\n", got[1])
		return want(done, ui.CodeAskDeclined)
	case got[0] != 0:
		return fmt.Errorf("a press meant for the question that left sent %.0f responses for the one below, want none", got[0])
	}
	if err := t.until(settled); err != nil {
		return err
	}
	if err := t.do(chromedp.Click(option(id, "Wait")), chromedp.Click(button(id, "Send answer"))); err != nil {
		return err
	}
	return want(done, "Wait")
}

// movedByHint: another client's refused answer to the question above puts
// its hint on the page, which moves the question below down by a line just
// as the human clicks its second row. The click lands on the first row
// there, and ticks nothing, whatever moved the row: a click on "Wait" must
// not tick "Deploy".
func movedByHint(s *site, t *tab) error {
	above, p, err := s.ask(s.session, ui.Request{Question: "Which checks?", Options: []ui.Option{{Label: "lint"}, {Label: "test"}}, MultiSelect: true, DisallowCustom: true})
	if err != nil {
		return err
	}
	done, id, err := s.askShown(t, ui.Request{Question: "Deploy build 42?", Options: []ui.Option{{Label: "Deploy"}, {Label: "Wait"}}, DisallowCustom: true})
	if err != nil {
		return err
	}
	at, err := eval[[]float64](t, `(() => { const r = document.querySelectorAll('`+card(id)+` label.pick')[1].getBoundingClientRect();
		return [r.x + r.width / 2, r.y + 6]; })()`)
	if err != nil {
		return err
	}
	if err := s.inbox.Respond(p[0].ID, ui.Answer{}, nil); ui.CodeOf(err) != ui.CodeInvalidAnswer {
		return fmt.Errorf("Respond() of no pick = %v, want INVALID_ANSWER and a hint", err)
	}
	if err := t.until(noteOf(p[0].ID) + " !== ''"); err != nil {
		return err
	}
	under, err := eval[string](t, fmt.Sprintf("(document.elementFromPoint(%f, %f).closest('label') || {}).textContent || ''", at[0], at[1]))
	if err != nil || under != "Deploy" {
		return fmt.Errorf("after the hint, the click lands on %q (%v), want Deploy: the test lost its point", under, err)
	}
	if err := t.do(chromedp.MouseClickXY(at[0], at[1])); err != nil {
		return err
	}
	if got, err := eval[string](t, checked(id)); err != nil || got != "" {
		return fmt.Errorf("a click meant for Wait, as the hint above moved the rows, ticked %q (%v), want nothing", got, err)
	}
	if err := t.until(settled); err != nil {
		return err
	}
	if err := t.do(chromedp.Click(option(id, "Wait")), chromedp.Click(button(id, "Send answer"))); err != nil {
		return err
	}
	if err := want(done, "Wait"); err != nil {
		return err
	}
	if err := t.until(settled); err != nil { // the card answered below may have moved this one's rows
		return err
	}
	if err := t.do(chromedp.Click(option(p[0].ID, "lint")), chromedp.Click(button(p[0].ID, "Send answer"))); err != nil {
		return err
	}
	return want(above, "lint")
}

// zoomed: at 200% zoom on a phone (195 CSS px wide) and in a window 320
// px wide, every control and the recommended mark stay inside the card and
// the window, and a label keeps a few words a line: a row that did not
// wrap would put the mark past the card's edge, out of view, and read
// "Keep" one letter a line.
func zoomed(s *site, t *tab) error {
	defer func() { _ = t.do(chromedp.EmulateViewport(1280, 800)) }()
	req := ui.Request{
		Header:   "Cleanup",
		Question: "Delete the merged branches?",
		Options: []ui.Option{
			{Label: "Keep", Recommended: true, Description: "nothing changes"},
			{Label: "Delete every merged branch", Value: "delete"},
		},
		Agent: &ui.Agent{Name: "cleanup-bot"},
	}
	done, id, err := s.askShown(t, req)
	if err != nil {
		return err
	}
	for _, size := range []struct {
		width, height int64
		scale         float64
	}{{195, 422, 4}, {320, 640, 2}} {
		if err := t.do(chromedp.EmulateViewport(size.width, size.height, chromedp.EmulateScale(size.scale), chromedp.EmulateMobile)); err != nil {
			return err
		}
		bad, err := eval[string](t, `(() => {
			const form = document.querySelector('`+card(id)+`').getBoundingClientRect(), bad = [];
			if (document.documentElement.scrollWidth > innerWidth) bad.push("the page is " + document.documentElement.scrollWidth + " px wide");
			for (const e of document.querySelectorAll('`+card(id)+` label, `+card(id)+` button, `+card(id)+` .badge')) {
				const r = e.getBoundingClientRect();
				if (r.left < form.left || r.right > form.right) bad.push(e.textContent + " stands past the card, " + r.left + " to " + r.right + " of " + form.left + " to " + form.right);
			}
			for (const e of document.querySelectorAll('`+card(id)+` .label')) if (e.getBoundingClientRect().width < 48) bad.push(e.textContent + " is " + e.getBoundingClientRect().width + " px wide");
			return bad.join("; ");
		})()`)
		if err != nil || bad != "" {
			return fmt.Errorf("%d px wide at scale %v: %s (%v)", size.width, size.scale, bad, err)
		}
	}
	if err := t.until(settled); err != nil { // the window changed: every row moved
		return err
	}
	if err := t.do(chromedp.Click(button(id, "Send answer"))); err != nil {
		return err
	}
	return want(done, "Keep")
}

// thousand opens 1,000 questions and waits until tab t shows them. It
// returns the IDs of the last two cards on the page, the function that ends
// the rest, and the channel of the others' outcomes.
func (s *site) thousand(t *tab) (above, last string, stop func() error, err error) {
	ctx, cancel := context.WithCancel(s.session)
	asks := make(chan error, 1000)
	stop = func() error {
		cancel()
		for range 1000 {
			if err := <-asks; err != nil && ui.CodeOf(err) != ui.CodeAskAborted && ui.CodeOf(err) != ui.CodeAskDeclined {
				return err
			}
		}
		return nil
	}
	for i := range 1000 {
		go func() {
			_, err := ui.Ask(ctx, ui.Request{Question: fmt.Sprintf("Deploy build %d?", i), Options: []ui.Option{{Label: "Deploy"}, {Label: "Wait"}}, DisallowCustom: true})
			asks <- err
		}()
	}
	if err := t.until("document.getElementById('status').textContent === '1000 open questions.'"); err != nil {
		return "", "", stop, err
	}
	ids, err := eval[[]string](t, "Array.from(document.querySelectorAll('#questions > form')).slice(-2).map(f => f.getAttribute('aria-labelledby').slice(2))")
	if err != nil || len(ids) != 2 {
		return "", "", stop, fmt.Errorf("the last cards are %q (%v)", ids, err)
	}
	return ids[0], ids[1], stop, nil
}

// farDownHeld: far down a page of 1,000 questions, the question above the
// last one ends as the human clicks one of its rows. The last question
// moves up under the pointer: the click ticks nothing there, and its card
// says why, so that the click is not lost without a word. Once the page is
// still, the same click ticks the row.
func farDownHeld(s *site, t *tab) error {
	above, last, stop, err := s.thousand(t)
	if err == nil {
		err = farDownHeldOn(s, t, above, last)
	}
	return errors.Join(err, stop())
}

func farDownHeldOn(s *site, t *tab, above, last string) error {
	at, err := eval[[]float64](t, `(() => { const l = document.querySelector('`+card(above)+` label'); l.scrollIntoView({block: "center"});
		const r = l.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2, scrollY]; })()`)
	if err != nil {
		return err
	}
	if at[2] < 100000 {
		return fmt.Errorf("the question is %.0f px down the page, want far down", at[2])
	}
	if err := s.inbox.Respond(above, ui.Answer{}, ui.NewError(ui.CodeAskDeclined, "declined elsewhere", nil)); err != nil {
		return err
	}
	if err := t.until("document.querySelector('#ended " + card(above) + "') !== null"); err != nil {
		return err
	}
	under, err := eval[string](t, fmt.Sprintf("(document.elementFromPoint(%f, %f).closest('form') || {id: ''}).getAttribute('aria-labelledby')", at[0], at[1]))
	if err != nil || under != "q-"+last {
		return fmt.Errorf("after the move, the click lands on %q (%v), want the last question: the test lost its point", under, err)
	}
	if err := t.do(chromedp.MouseClickXY(at[0], at[1])); err != nil {
		return err
	}
	got, err := eval[[]any](t, "["+checked(last)+", "+noteOf(last)+", Date.now() - (still - 600)]")
	switch {
	case err != nil:
		return err
	case got[0] != "" && got[2].(float64) > 600:
		fmt.Printf("     (the click came %.0f ms after the move, later than the page holds one: nothing to check)\n", got[2])
	case got[0] != "":
		return fmt.Errorf("a click meant for the question that left ticked %q of the one below, want nothing", got[0])
	case got[1] != "This moved as you clicked: look again, then click.":
		return fmt.Errorf("the held click's card says %q, want that it moved", got[1])
	default:
		if err := t.until(settled); err != nil {
			return err
		}
		if err := t.do(chromedp.MouseClickXY(at[0], at[1])); err != nil {
			return err
		}
	}
	return t.until(checked(last) + " === 'Deploy'")
}

// farDownSent: far down a page of 1,000 questions on a phone, a question
// above the last one ended, and more than 600 ms later the human ticks an
// option of the last one and at once clicks Send answer: both clicks go
// through, and Ask returns. (A page that measured every control held such a
// click when positions far down differed by 1/64 px between two measures.)
func farDownSent(s *site, t *tab) error {
	above, last, stop, err := s.thousand(t)
	if err == nil {
		err = farDownSentOn(s, t, above, last)
	}
	return errors.Join(err, stop())
}

func farDownSentOn(s *site, t *tab, above, last string) error {
	if err := t.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(3), chromedp.EmulateMobile)); err != nil {
		return err
	}
	defer func() { _ = t.do(chromedp.EmulateViewport(1280, 800)) }()
	if err := s.inbox.Respond(above, ui.Answer{}, ui.NewError(ui.CodeAskDeclined, "declined elsewhere", nil)); err != nil {
		return err
	}
	if err := t.until("document.querySelector('#ended " + card(above) + "') !== null"); err != nil {
		return err
	}
	if err := t.until(settled); err != nil {
		return err
	}
	at, err := eval[[]float64](t, `(() => { const f = document.querySelector('`+card(last)+`'), l = f.querySelectorAll('label')[1], b = f.querySelector('button');
		b.scrollIntoView({block: "center"}); const r = l.getBoundingClientRect(), q = b.getBoundingClientRect();
		return [r.x + r.width / 2, r.y + r.height / 2, q.x + q.width / 2, q.y + q.height / 2, scrollY]; })()`)
	if err != nil {
		return err
	}
	if at[4] < 100000 {
		return fmt.Errorf("the question is %.0f px down the page, want far down", at[4])
	}
	p := s.inbox.Pending()
	if err := t.do(chromedp.MouseClickXY(at[0], at[1]), chromedp.MouseClickXY(at[2], at[3])); err != nil {
		return err
	}
	for deadline := time.Now().Add(wait); ; time.Sleep(10 * time.Millisecond) {
		if o, ok := s.inbox.Outcome(last); ok {
			if o.Err != nil || o.Answer.Text != "Wait" {
				return fmt.Errorf("the last question ended with %+v, want Wait", o)
			}
			break
		}
		if time.Now().After(deadline) {
			note, _ := eval[string](t, noteOf(last))
			return fmt.Errorf("the Send clicked far down, after ticking Wait, did not reach Ask (%d open; the card says %q)", len(p), note)
		}
	}
	return nil
}
