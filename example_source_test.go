package userinteraction_test

import (
	"context"
	"fmt"

	"github.com/dsh-go/userinteraction"
)

// This example follows an Inbox as a UI of its own would, through the Source
// that Handler serves to the page: the open questions once, then each change
// alone. A host whose questions live in a database shared by several
// processes writes its own Source, and Handler serves one page for all.
func ExampleInbox_Changes() {
	inbox := &userinteraction.Inbox{}
	var src userinteraction.Source = inbox
	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	dispose, err := userinteraction.Register(session, inbox)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dispose()
	done := make(chan string)
	go func() {
		ans, _ := userinteraction.Ask(session, userinteraction.Request{Question: "Which branch?"})
		done <- ans.Text
	}()

	changes, cursor, _ := src.Changes(session, "") // the open questions, maybe none yet
	for len(changes) == 0 {
		changes, cursor, _ = src.Changes(session, cursor) // waits for the next change
	}
	var opened userinteraction.Change = changes[0]
	fmt.Println("opened:", opened.Pending.Request.Question)
	if err := src.Respond(opened.Pending.ID, userinteraction.Answer{Text: "main"}, nil); err != nil {
		fmt.Println(err)
	}
	changes, _, _ = src.Changes(session, cursor)
	fmt.Println("ended:", changes[0].Ended.Answer.Text, "via", changes[0].Ended.Answer.Via)
	fmt.Println("Ask returned:", <-done)
	// Output:
	// opened: Which branch?
	// ended: main via inbox
	// Ask returned: main
}
