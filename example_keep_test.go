package userinteraction_test

import (
	"context"
	"fmt"

	"github.com/dsh-go/userinteraction"
)

// This example keeps every answer in a journal before the Inbox confirms it,
// as a host that must survive a crash keeps it in a database. Respond
// returns only once keep has written the outcome. A keep that cannot write
// returns an error, so the human is never told the answer was taken.
func ExampleWithKeep() {
	inbox := &userinteraction.Inbox{}
	var journal []string // a database in a real host
	keep := func(o []userinteraction.Outcome) error {
		journal = append(journal, o[0].Answer.Text) // the host writes o's JSON, and returns a failed write's error
		return nil
	}
	durable := userinteraction.ProviderFunc(func(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
		return inbox.Ask(userinteraction.WithKeep(ctx, keep), req)
	})

	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	dispose, err := userinteraction.Register(session, durable)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dispose()
	opened := inbox.Changed()
	result := make(chan string)
	go func() { // the tool
		ans, err := userinteraction.Ask(session, userinteraction.Request{
			Question: "Deploy to production?",
			Options:  []userinteraction.Option{{Label: "Deploy", Value: "deploy"}, {Label: "Wait"}},
		})
		result <- fmt.Sprint(ans.Text, userinteraction.CodeOf(err))
	}()
	<-opened

	// What the page's POST delivers when the human picks Deploy.
	picked, _ := userinteraction.ElicitationAnswer("accept", map[string]any{"choice": "Deploy"})
	err = inbox.Respond(inbox.Pending()[0].ID, picked, nil)
	fmt.Println(err, journal)
	fmt.Println(<-result)
	// Output:
	// <nil> [deploy]
	// deploy
}
