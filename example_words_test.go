package userinteraction_test

import (
	"context"
	"fmt"
	"time"

	"github.com/dsh-go/userinteraction"
)

// This example is the heart of a custom UI over an Inbox, such as a terminal
// app of the host's own: it shows each question with the page's words (its
// place, the time left, the preselected options), answers through Respond,
// and says how each question ended in the words the page and the Terminal
// use, here in German from the host's table.
func ExampleWords() {
	german := userinteraction.Words{ // keys from EnglishWords; the rest stays English
		"Question %d of %d": "Frage %d von %d",
		"Answer within %s.": "Antworten Sie innerhalb von %s.",
		"%d minutes":        "%d Minuten",
		"Answered %s: %s.":  "Beantwortet %s: %s.",
		"Declined %s.":      "Abgelehnt %s.",
		"in the inbox":      "im Posteingang",
	}
	inbox := &userinteraction.Inbox{Words: map[string]userinteraction.Words{"de": german}} // the page's too
	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	dispose, err := userinteraction.Register(session, inbox)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dispose()
	ctx, cancel := context.WithTimeout(session, time.Hour)
	defer cancel()
	go func() {
		_, _ = userinteraction.AskAll(ctx, []userinteraction.Request{
			{Question: "Deploy to?", Options: []userinteraction.Option{{Label: "Staging", Recommended: true}, {Label: "Prod"}}},
			{Question: "Notify the team?"},
		})
	}()

	var w userinteraction.Words = german // a nil Words speaks English
	changes, cursor, _ := inbox.Changes(ctx, "")
	for len(changes) < 2 { // the batch opens at once
		changes, cursor, _ = inbox.Changes(ctx, cursor)
	}
	for _, c := range changes {
		q := c.Pending
		now := q.Deadline.Add(-5 * time.Minute) // time.Now() in a real UI, every second
		fmt.Println(w.Place(q), "|", q.Request.Question, "|", w.TimeLeft(q.Deadline, now))
		for _, o := range q.Request.Options {
			fmt.Printf("  [%v] %s\n", o.Recommended, o.Label) // preselected: what Enter sends
		}
	}
	via := userinteraction.Answer{Via: "tui"} // the UI's name, with a decline too
	_ = inbox.Respond(changes[0].Pending.ID, userinteraction.Pick(changes[0].Pending.Request.Options[0]), nil)
	_ = inbox.Respond(changes[1].Pending.ID, via, userinteraction.NewError(userinteraction.CodeAskDeclined, "no", nil))
	for ended := 0; ended < 2; {
		changes, cursor, _ = inbox.Changes(ctx, cursor)
		for _, c := range changes {
			if c.Ended != nil {
				ended++
				fmt.Println(w.Ended(*c.Ended), "/", userinteraction.Words(nil).Ended(*c.Ended))
			}
		}
	}
	fmt.Println(userinteraction.EnglishWords()["Declined %s."]) // a translator's list: each key, to itself
	// Output:
	// Frage 1 von 2 | Deploy to? | Antworten Sie innerhalb von 5 Minuten.
	//   [true] Staging
	//   [false] Prod
	// Frage 2 von 2 | Notify the team? | Antworten Sie innerhalb von 5 Minuten.
	// Beantwortet im Posteingang: "Staging". / Answered in the inbox: "Staging".
	// Abgelehnt in "tui". / Declined in "tui".
	// Declined %s.
}
