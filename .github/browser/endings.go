package main

// Scenarios of how a question ends while the page shows it: answered in the
// terminal, declined elsewhere, time ran out, dismissed here while another
// UI still asks, a batch answered elsewhere after the human answered part of
// it here, and a reload mid-batch. The terminal is a provider of the
// scenario's own, raced with the Inbox by FirstOf.

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	ui "github.com/dsh-go/userinteraction"
)

func init() {
	scenarios = append(scenarios,
		scenario{"answered in the terminal: said, shown, below the open ones", onOneTab(answeredInTerminal)},
		scenario{"declined elsewhere", onOneTab(declinedElsewhere)},
		scenario{"time ran out", onOneTab(timeRanOut)},
		scenario{"dismissed here while the terminal still asks", onOneTab(dismissedHere)},
		scenario{"a batch answered in the terminal: the answers here were not used", onOneTab(batchWonElsewhere)},
		scenario{"a batch won in a real terminal while the stream was down: the card keeps what was sent", onOneTab(sentWhileAway)},
		scenario{"a reload mid-batch keeps Question 2 of 3", onOneTab(reloadMidBatch)},
		scenario{"answered in words with 200 marks on a letter: 4 shown", onOneTab(answeredWithMarks)},
		scenario{"in German: the page's words and an ending from the host's table", inGerman},
		scenario{"a hint that quotes a remote client's %d shows it as it is", onOneTab(hintWithVerb)},
		scenario{"on a phone, an ending and a hint that quote a long path wrap inside the card", onOneTab(longPathSaid)},
		scenario{"an answer sent, then the host out of reach: its card does not say it cannot be answered", onOneTab(sentThenLost)},
		scenario{"the host back with another token: the page and a click say the link is wrong", onOneTab(otherToken)},
		scenario{"the host exits right after the terminal's answer: the ending, the agent stopped, no countdown", onOneTab(hostExits)},
	)
}

// terminal plays a terminal raced with the page: it answers with ans, or
// fails with err, once now is closed, and returns ctx.Err() when withdrawn.
type terminal struct {
	ans ui.Answer
	err error
	now chan struct{}
}

func (p *terminal) Ask(ctx context.Context, _ ui.Request) (ui.Answer, error) {
	select {
	case <-p.now:
		return p.ans, p.err
	case <-ctx.Done():
		return ui.Answer{}, ctx.Err()
	}
}

// raced returns a session whose provider is FirstOf of term and the site's
// Inbox, and its dispose func.
func (s *site) raced(term ui.Provider) (context.Context, func(), error) {
	ctx := ui.WithRegistry(context.Background(), &ui.Registry{})
	dispose, err := ui.Register(ctx, ui.FirstOf(term, s.inbox))
	return ctx, dispose, err
}

// askRaced asks cleanup in a session where term races the page, and waits
// until the tab shows it. Call dispose, also after an error, once done.
func (s *site) askRaced(t *tab, term *terminal) (done <-chan outcome, id string, dispose func(), err error) {
	session, dispose, err := s.raced(term)
	if err != nil {
		return nil, "", dispose, err
	}
	done, id, err = s.askInSession(t, session, cleanup)
	return done, id, dispose, err
}

// cleanup is a request like the ones a cleanup agent asks.
var cleanup = ui.Request{
	Header:   "Cleanup",
	Question: "Delete the merged branches?",
	Options: []ui.Option{
		{Label: "Delete", Value: "delete", Description: "12 branches, merged into main"},
		{Label: "Keep", Recommended: true},
	},
	DisallowCustom: true,
	Agent:          &ui.Agent{Name: "cleanup-bot"},
}

// hostExits: the terminal answers and the host shuts down at once, as the
// README's FirstOf program does. The page shows that answer, says that the
// agent stopped (not that the connection is lost), and runs no countdown on
// the question still open, which it says cannot be answered now, while it
// retries. The host comes back (a durable one does): the question can be
// answered again and counts down.
func hostExits(s *site, t *tab) error {
	timed, cancel := context.WithTimeout(s.session, 10*time.Minute)
	defer cancel()
	still, stillID, err := s.askInSession(t, timed, ui.Request{Question: "Still open when the host stopped?"})
	if err != nil {
		return err
	}
	term := &terminal{ans: ui.Answer{Text: "delete", Via: "terminal"}, now: make(chan struct{})}
	session, dispose, err := s.raced(term)
	defer dispose()
	if err != nil {
		return err
	}
	raced, cancelRaced := context.WithTimeout(session, 10*time.Minute)
	defer cancelRaced()
	done, id, err := s.askInSession(t, raced, cleanup)
	if err != nil {
		return err
	}
	deadline := "document.querySelector('" + card(stillID) + " .deadline').textContent"
	if err := t.until(deadline + ".startsWith('Answer within') && " + checked(id) + " === 'Keep'"); err != nil {
		return err
	}
	close(term.now)
	if err := want(done, "delete"); err != nil {
		return err
	}
	if err := s.shutdown(); err != nil { // right after the last answer
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := t.until(endedAs(id, s.said(id)) + " && " + checked(id) + " === 'Delete'"); err != nil {
		return err
	}
	stopped := "document.getElementById('status').textContent === 'The agent stopped. This page reconnects if it starts again.' && " +
		whyOf(stillID) + " === 'The agent stopped before this was answered.' && " + deadline + " === ''"
	if err := t.until(stopped); err != nil {
		return err
	}
	// What the page writes while the host stays away: the status line at each
	// retry, and each text of the open card's deadline.
	if _, err := eval[bool](t, `window.retries = 0, window.counted = [], (new MutationObserver(() => retries++)).observe(document.getElementById("status"), {childList: true}),
		(new MutationObserver(() => counted.push(`+deadline+`))).observe(document.querySelector('`+card(stillID)+` .deadline'), {childList: true, characterData: true, subtree: true}), true`); err != nil {
		return err
	}
	if err := t.until(stopped + " && retries >= 5"); err != nil { // two writes a retry, retries a second apart: a countdown would have ticked
		return err
	}
	if counted, err := eval[[]string](t, "counted.filter(s => s !== '')"); err != nil || len(counted) > 0 {
		return fmt.Errorf("the open card counted down while the host was away: %q (%v)", counted, err)
	}
	if err := t.do(viewports[0].emulate()); err != nil {
		return err
	}
	defer func() { _ = t.do(viewports[1].emulate()) }()
	if s.shots != "" { // phone sized, whole: an element's screenshot (s.shoot) waits while the host is away
		ctx, cancel := context.WithTimeout(t.ctx, wait)
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		cancel()
		if err == nil {
			err = os.WriteFile(filepath.Join(s.shots, "stopped-phone.png"), png, 0o644)
		}
		if err != nil {
			return err
		}
		fmt.Println("screenshot", filepath.Join(s.shots, "stopped-phone.png"))
	}
	if err := s.start(); err != nil { // the host is back
		return err
	}
	if err := t.until(whyOf(stillID) + " === '' && " + deadline + ".startsWith('Answer within') && document.getElementById('status').textContent === '1 open question.'"); err != nil {
		return err
	}
	if err := t.do(chromedp.SendKeys(card(stillID)+" input[type=text]", "yes\r")); err != nil {
		return err
	}
	return want(still, "yes")
}

// answeredInTerminal: the human answers Delete in the terminal. The page
// says so with the answer, ticks Delete (not the preselected Keep), and
// moves the card, collapsed, below a question that is still open; the
// tab's title counts the open one.
func answeredInTerminal(s *site, t *tab) error {
	term := &terminal{ans: ui.Answer{Text: "delete", Via: "terminal"}, now: make(chan struct{})}
	done, id, dispose, err := s.askRaced(t, term)
	defer dispose()
	if err != nil {
		return err
	}
	still, stillID, err := s.askShown(t, ui.Request{Question: "Still open?"})
	if err != nil {
		return err
	}
	if err := t.until("document.title === '(2) Questions'"); err != nil {
		return err
	}
	close(term.now)
	if err := want(done, "delete"); err != nil {
		return err
	}
	if err := t.until(endedAs(id, s.said(id))); err != nil {
		return err
	}
	if err := t.until(checked(id) + " === 'Delete' && document.title === '(1) Questions'"); err != nil {
		return err
	}
	below, err := eval[bool](t, "document.querySelector('"+card(stillID)+"').getBoundingClientRect().bottom <= "+
		"document.querySelector('"+card(id)+"').getBoundingClientRect().top")
	if err != nil || !below {
		return fmt.Errorf("the ended card is not below the open one (%v)", err)
	}
	if err := t.do(chromedp.SendKeys(card(stillID)+" input[type=text]", "yes\r")); err != nil {
		return err
	}
	return want(still, "yes")
}

// askInSession asks req in session and waits until tab t shows it.
func (s *site) askInSession(t *tab, session context.Context, req ui.Request) (<-chan outcome, string, error) {
	done, p, err := s.ask(session, req)
	if err != nil {
		return nil, "", err
	}
	return done, p[0].ID, t.until(shown(p[0].ID))
}

// declinedElsewhere: the terminal declines; the page says so, as Words.Ended does, and
// ticks nothing.
func declinedElsewhere(s *site, t *tab) error {
	term := &terminal{err: ui.NewError(ui.CodeAskDeclined, "the user declined to answer", nil), now: make(chan struct{})}
	done, id, dispose, err := s.askRaced(t, term)
	defer dispose()
	if err != nil {
		return err
	}
	close(term.now)
	if err := want(done, ui.CodeAskDeclined); err != nil {
		return err
	}
	if err := t.until(endedAs(id, s.said(id))); err != nil {
		return err
	}
	return t.until(checked(id) + " === ''")
}

// expiring is a context whose deadline passes when expire is called: the
// page's countdown shows an hour, and the scenario does not wait for it.
type expiring struct {
	context.Context
	done chan struct{}
}

func (e *expiring) Deadline() (time.Time, bool) { return time.Now().Add(time.Hour), true }
func (e *expiring) Done() <-chan struct{}       { return e.done }
func (e *expiring) Err() error {
	select {
	case <-e.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// timeRanOut: the asker's deadline passes; the page says so, as Words.Ended does.
func timeRanOut(s *site, t *tab) error {
	timed := &expiring{Context: s.session, done: make(chan struct{})}
	done, p, err := s.ask(timed, cleanup)
	if err != nil {
		return err
	}
	id := p[0].ID
	if err := t.until(shown(id)); err != nil {
		return err
	}
	close(timed.done)
	if err := want(done, ui.CodeAskAborted); err != nil {
		return err
	}
	if err := t.until(endedAs(id, s.said(id))); err != nil {
		return err
	}
	return t.until(checked(id) + " === ''")
}

// dismissedHere: Dismiss here closes the question on the page, which says
// that it may still be open on another screen; the terminal still asks,
// and its answer is the ask's.
func dismissedHere(s *site, t *tab) error {
	term := &terminal{ans: ui.Answer{Text: "Keep", Via: "terminal"}, now: make(chan struct{})}
	done, id, dispose, err := s.askRaced(t, term)
	defer dispose()
	if err != nil {
		return err
	}
	if err := t.do(chromedp.Click(button(id, "Dismiss here"))); err != nil {
		return err
	}
	if err := t.until(endedAs(id, "Dismissed here. If the agent asked on another screen too, the question is still open there.")); err != nil {
		why, _ := eval[string](t, whyOf(id))
		return fmt.Errorf("%w: it reads %q", err, why)
	}
	select {
	case o := <-done:
		return fmt.Errorf("Ask() = %v once dismissed on the page, want it waiting for the terminal", o)
	default:
	}
	close(term.now)
	return want(done, "Keep")
}

// batchWonElsewhere: the human answers the first of two questions here,
// then the terminal answers the batch. The second question says where it
// was answered, with the answer; the first says that its answer was not
// used.
func batchWonElsewhere(s *site, t *tab) error {
	term := &terminal{ans: ui.Answer{Text: "Keep", Via: "terminal"}, now: make(chan struct{})}
	session, dispose, err := s.raced(term)
	if err != nil {
		return err
	}
	defer dispose()
	second := cleanup
	second.Question = "And the tags?"
	done, p, err := s.ask(session, cleanup, second)
	if err != nil {
		return err
	}
	if err := t.until(shown(p[1].ID)); err != nil {
		return err
	}
	if err := t.do(chromedp.Click(option(p[0].ID, "Delete")), chromedp.Click(button(p[0].ID, "Send answer"))); err != nil {
		return err
	}
	if err := t.until(endedAs(p[0].ID, "You answered: Delete")); err != nil {
		return err
	}
	close(term.now)
	if err := want(done, "Keep", "Keep"); err != nil {
		return err
	}
	if err := t.until(endedAs(p[1].ID, s.said(p[1].ID))); err != nil {
		return err
	}
	if err := t.until(noteOf(p[0].ID) + " === 'Not used: the batch was answered in the terminal.'"); err != nil {
		note, _ := eval[string](t, noteOf(p[0].ID))
		return fmt.Errorf("%w: it reads %q", err, note)
	}
	return nil
}

// sentWhileAway: a real Terminal races the page over a batch of two yes/no
// questions. The page's event stream drops; the human answers the first
// question No on the page (204); the terminal answers the batch Yes, Yes and
// wins; the stream comes back. The card shows what the human sent, No
// ticked, and that the batch did not use it, as it does when the stream
// stays up (batchWonElsewhere).
func sentWhileAway(s *site, t *tab) error {
	in, typed := io.Pipe()
	defer typed.Close() // ends the terminal's input, and a write that waits for it
	session, dispose, err := s.raced(ui.NewTerminal(in, io.Discard))
	if err != nil {
		return err
	}
	defer dispose()
	yesOrNo := []ui.Option{{Label: "Yes"}, {Label: "No"}}
	done, p, err := s.ask(session,
		ui.Request{Question: "Merge the release branch?", Options: yesOrNo, DisallowCustom: true},
		ui.Request{Question: "Tag the release?", Options: yesOrNo, DisallowCustom: true})
	if err != nil {
		return err
	}
	first, second := p[0].ID, p[1].ID
	if err := t.until(shown(second)); err != nil {
		return err
	}
	s.streams.cut()
	defer s.streams.mend()
	if err := t.until("document.getElementById('status').textContent.startsWith('Connection lost')"); err != nil {
		return err
	}
	if err := t.do(chromedp.Click(option(first, "No")), chromedp.Click(button(first, "Send answer"))); err != nil {
		return err
	}
	// Sent (204) and not yet told how it ended: the stream is down.
	if err := t.until("document.querySelector('#questions " + card(first) + " button[type=submit]').disabled"); err != nil {
		return err
	}
	go func() { _, _ = io.WriteString(typed, "1\n1\n") }() // the human at the terminal: Yes, Yes
	if err := want(done, "Yes", "Yes"); err != nil {
		return err
	}
	s.streams.mend()
	if err := t.until(endedAs(second, s.said(second))); err != nil {
		return err
	}
	sent := endedAs(first, "You answered: No") + " && " + checked(first) + " === 'No' && " +
		noteOf(first) + " === 'Not used: the batch was answered in the terminal.'"
	if err := t.until(sent); err != nil {
		got, _ := eval[string](t, whyOf(first)+" + ' | ' + "+checked(first)+" + ' | ' + "+noteOf(first))
		return fmt.Errorf("%w: the card reads %q", err, got)
	}
	_, err = eval[bool](t, "(() => { document.querySelector('"+card(first)+" details').open = true; return true; })()")
	if err == nil {
		err = s.shoot(t, "sent-while-away", "#ended")
	}
	return err
}

// reloadMidBatch: after the first of three questions was answered, a
// reload shows the other two as "Question 2 of 3" and "Question 3 of 3".
func reloadMidBatch(s *site, t *tab) error {
	done, p, err := s.ask(s.session, ui.Request{Question: "One?"}, ui.Request{Question: "Two?"}, ui.Request{Question: "Three?"})
	if err != nil {
		return err
	}
	if err := s.inbox.Respond(p[0].ID, ui.Answer{Text: "one"}, nil); err != nil {
		return err
	}
	if err := t.do(chromedp.Reload()); err != nil {
		return err
	}
	if err := t.until(shown(p[2].ID)); err != nil {
		return err
	}
	got, err := eval[string](t, "Array.from(document.querySelectorAll('#questions .place')).map(e => e.textContent).join('|')")
	if err != nil || got != "Question 2 of 3|Question 3 of 3" {
		return fmt.Errorf("after a reload the batch reads %q (%v), want Question 2 of 3|Question 3 of 3", got, err)
	}
	if err := t.do(chromedp.SendKeys(card(p[1].ID)+" input[type=text]", "two\r"),
		chromedp.SendKeys(card(p[2].ID)+" input[type=text]", "three\r")); err != nil {
		return err
	}
	return want(done, "one", "two", "three")
}

// answeredWithMarks: another client answers in words that stack 200
// combining marks on one letter. The page says how the question ended with
// at most 4 marks on a letter, as Validate allows the model's text: more
// draw over the rows above, the open questions included.
func answeredWithMarks(s *site, t *tab) error {
	done, id, err := s.askShown(t, ui.Request{Question: "Name the release."})
	if err != nil {
		return err
	}
	words := "x" + strings.Repeat("\u030d", 200) + "y"
	if err := s.inbox.Respond(id, ui.Answer{Text: words, Via: "page"}, nil); err != nil {
		return err
	}
	if err := want(done, words); err != nil {
		return err
	}
	if err := t.until("document.querySelector('#ended " + card(id) + "') !== null"); err != nil {
		return err
	}
	shown, err := eval[string](t, whyOf(id))
	if err != nil || shown != s.said(id) || !strings.Contains(shown, `"x`+strings.Repeat("\u030d", 4)+`y"`) {
		return fmt.Errorf("the answer is shown as %+q (%v), want x, 4 marks, y", shown, err)
	}
	return nil
}

// said is how question id ended, as Words.Ended says it in English: what the
// page must show, word for word.
func (s *site) said(id string) string {
	o, _ := s.inbox.Outcome(id)
	return ui.Words(nil).Ended(o)
}

// german is the site's table for a browser whose first language is German.
var german = ui.Words{
	"Questions from your agent": "Fragen Ihres Agenten", "Closed": "Beendet", "Questions": "Fragen",
	"Send answer": "Antwort senden", "Decline to answer": "Antwort ablehnen", "Dismiss here": "Hier schließen",
	"Recommended": "Empfohlen", "Pick one:": "Wählen Sie eine:", "Show the question": "Frage zeigen",
	"Declined %s.": "Abgelehnt %s.", "in the terminal": "im Terminal", "1 open question.": "1 offene Frage.",
	"Question %d of %d": "Frage %d von %d (%d)", // a verb more than its key's: said in English
}

// inGerman: a tab whose browser speaks Austrian German (navigator.languages
// and Accept-Language) gets the site's "de" table: its headings and buttons,
// and the ending as german.Ended says it; a word with a verb more than its
// key's is English, as german.Place says it. With -shots, the closed cards are
// ended-de-phone.png and ended-de-desktop.png.
func inGerman(s *site, browser context.Context) error {
	t, cancel, err := s.open(browser)
	if err != nil {
		return err
	}
	defer cancel()
	speak := chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tt, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: "Mozilla/5.0 Chrome", AcceptLanguage: "de-AT,de"})
		return err
	})
	if err := t.do(speak, chromedp.Reload()); err != nil {
		return err
	}
	term := &terminal{ans: ui.Answer{Via: "terminal"}, err: ui.NewError(ui.CodeAskDeclined, "the user declined to answer", nil), now: make(chan struct{})}
	done, id, dispose, err := s.askRaced(t, term)
	defer dispose()
	if err != nil {
		return err
	}
	if err := t.until("document.documentElement.lang === 'de' && document.querySelector('h1').textContent === 'Fragen Ihres Agenten' && " +
		"document.querySelector('" + card(id) + " button[type=submit]').textContent === 'Antwort senden' && document.title === '(1) Fragen'"); err != nil {
		return err
	}
	close(term.now)
	if err := want(done, ui.CodeAskDeclined); err != nil {
		return err
	}
	o, _ := s.inbox.Outcome(id)
	if err := t.until(endedAs(id, german.Ended(o)) + " && " + whyOf(id) + " === 'Abgelehnt im Terminal.'"); err != nil {
		why, _ := eval[string](t, whyOf(id))
		return fmt.Errorf("%w: it reads %q", err, why)
	}
	batch, p, err := s.ask(s.session, ui.Request{Question: "First?"}, ui.Request{Question: "Second?"})
	if err != nil {
		return err
	}
	place := "document.querySelector('" + card(p[1].ID) + " .place')"
	if err := t.until(place + " !== null && " + place + ".textContent === " + fmt.Sprintf("%q", german.Place(p[1]))); err != nil {
		got, _ := eval[string](t, place+".textContent")
		return fmt.Errorf("%w: the place reads %q", err, got)
	}
	for _, q := range p {
		if err := s.inbox.Respond(q.ID, ui.Answer{Text: "ok"}, nil); err != nil {
			return err
		}
	}
	if err := want(batch, "ok", "ok"); err != nil {
		return err
	}
	if err := s.shoot(t, "ended-de", "#ended"); err != nil {
		return err
	}
	return t.problems()
}

// hintWithVerb: a remote client picks "50%d off", which is no option; the
// hint that quotes it reaches the page's card as the Inbox says it, not with
// the page's t filling the %d with "undefined".
func hintWithVerb(s *site, t *tab) error {
	done, id, err := s.askShown(t, ui.Request{Question: "Which discount?", Options: yesNo, DisallowCustom: true})
	if err != nil {
		return err
	}
	ans, outcome := ui.ElicitationAnswer("accept", map[string]any{"choice": "50%d off"})
	if err := s.inbox.Respond(id, ans, outcome); ui.CodeOf(err) != ui.CodeInvalidAnswer {
		return fmt.Errorf("Respond(50%%d off) = %v, want INVALID_ANSWER", err)
	}
	hint := s.inbox.Pending()[0].Hint
	if !strings.Contains(hint, "%d") {
		return fmt.Errorf("the hint %q does not quote the pick", hint)
	}
	if err := t.until(noteOf(id) + " === " + fmt.Sprintf("%q", hint)); err != nil {
		note, _ := eval[string](t, noteOf(id))
		return fmt.Errorf("%w: it reads %q", err, note)
	}
	if err := s.inbox.Respond(id, ui.Answer{Text: "Yes"}, nil); err != nil {
		return err
	}
	return want(done, "Yes")
}

// longPathSaid: on a phone, the sentence of an ending elsewhere and a hint,
// each quoting an option's label without a space (a path), wrap inside
// their card: the page scrolls not sideways.
func longPathSaid(s *site, t *tab) error {
	if err := t.do(viewports[0].emulate()); err != nil {
		return err
	}
	defer func() { _ = t.do(viewports[1].emulate()) }()
	path := "/home/dev/projects/service/internal/storage/migrations/0042_add_index.sql"
	inside := func(id, part string) string {
		return "(e => e !== null && e.textContent.includes('0042') && e.scrollWidth <= e.clientWidth && document.documentElement.scrollWidth <= innerWidth)(document.querySelector('" + card(id) + " " + part + "'))"
	}
	done, id, err := s.askShown(t, ui.Request{Question: "Which file?", Options: []ui.Option{{Label: "Other"}}, DisallowCustom: true})
	if err != nil {
		return err
	}
	ans, outcome := ui.ElicitationAnswer("accept", map[string]any{"choice": path})
	if err := s.inbox.Respond(id, ans, outcome); ui.CodeOf(err) != ui.CodeInvalidAnswer {
		return fmt.Errorf("Respond(a path) = %v, want INVALID_ANSWER", err)
	}
	if err := t.until(inside(id, ".note")); err != nil {
		return fmt.Errorf("the hint: %w", err)
	}
	if err := s.inbox.Respond(id, ui.Answer{Text: "Other"}, nil); err != nil {
		return err
	}
	if err := want(done, "Other"); err != nil {
		return err
	}
	done, id, err = s.askShown(t, ui.Request{Question: "Which file?", Options: []ui.Option{{Label: path}, {Label: "Other"}}})
	if err != nil {
		return err
	}
	if err := s.inbox.Respond(id, ui.Answer{Text: path, Via: "terminal"}, nil); err != nil {
		return err
	}
	if err := want(done, path); err != nil {
		return err
	}
	if err := t.until(inside(id, ".why")); err != nil {
		return fmt.Errorf("the ending: %w", err)
	}
	return nil
}

// sentThenLost: the human sends an answer (204) while the stream is held, so
// the page is not yet told how it ended; then the host is out of reach. The
// open card says it cannot be answered until the connection is back; the
// card answered here does not, and once back, says what was answered.
func sentThenLost(s *site, t *tab) error {
	done, id, err := s.askShown(t, ui.Request{Question: "Sent before the host went?"})
	if err != nil {
		return err
	}
	open, openID, err := s.askShown(t, ui.Request{Question: "Still open?"})
	if err != nil {
		return err
	}
	s.streams.cut()
	defer s.streams.mend()
	if err := t.until("document.getElementById('status').textContent.startsWith('Connection lost')"); err != nil {
		return err
	}
	if err := t.do(chromedp.SendKeys(card(id)+" input[type=text]", "yes\r")); err != nil {
		return err
	}
	if err := want(done, "yes"); err != nil {
		return err
	}
	if err := t.until("document.querySelector('" + card(id) + " button[type=submit]').disabled"); err != nil {
		return err
	}
	s.stop()
	if err := t.until(whyOf(openID) + " === 'This cannot be answered until the connection is back.'"); err != nil {
		return err
	}
	if why, err := eval[string](t, whyOf(id)); err != nil || why != "" {
		return fmt.Errorf("the card answered here reads %q (%v), want no line", why, err)
	}
	if err := s.start(); err != nil {
		return err
	}
	s.streams.mend()
	if err := t.until(endedAs(id, "You answered: yes") + " && " + whyOf(openID) + " === ''"); err != nil {
		return err
	}
	if err := s.inbox.Respond(openID, ui.Answer{Text: "ok"}, nil); err != nil {
		return err
	}
	return want(open, "ok")
}

// otherToken: the host stops and starts again with another token. The page
// says its link's token is wrong, and so does a click on an open card's
// Send, not "Try again", which would never work.
func otherToken(s *site, t *tab) error {
	done, id, err := s.askShown(t, ui.Request{Question: "Asked before the restart?"})
	if err != nil {
		return err
	}
	h := s.streams.h
	defer func() {
		s.stop()
		s.streams.h = h
		_ = s.start()
	}()
	if err := s.shutdown(); err != nil {
		return err
	}
	s.streams.h = s.inbox.Handler(strings.Repeat("another token ", 2))
	if err := s.start(); err != nil {
		return err
	}
	wrong := "This link's token is wrong: open the link the host printed."
	if err := t.until("document.getElementById('status').textContent === " + fmt.Sprintf("%q", wrong)); err != nil {
		return err
	}
	if err := t.do(chromedp.SendKeys(card(id)+" input[type=text]", "yes\r")); err != nil {
		return err
	}
	if err := t.until(noteOf(id) + " === " + fmt.Sprintf("%q", wrong)); err != nil {
		note, _ := eval[string](t, noteOf(id))
		return fmt.Errorf("%w: the card's note reads %q", err, note)
	}
	if err := s.inbox.Respond(id, ui.Answer{Text: "ok"}, nil); err != nil {
		return err
	}
	return want(done, "ok")
}
