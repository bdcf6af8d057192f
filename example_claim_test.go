package userinteraction_test

import (
	"context"
	"fmt"

	"github.com/dsh-go/userinteraction"
)

// This example keeps every answer in a journal before the Inbox confirms it,
// as a host that must survive a crash keeps it in a database. Respond
// returns only once the claim has written the outcome. A claim that cannot
// write refuses the answer, so the human is never told it was taken.
func ExampleWithClaim() {
	inbox := &userinteraction.Inbox{}
	var journal []string // a database in a real host
	keep := func(o userinteraction.Outcome) bool {
		journal = append(journal, o.Answer.Text) // the host writes o's JSON, and reports a failed write
		return true
	}
	durable := userinteraction.ProviderFunc(func(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
		return inbox.Ask(userinteraction.WithClaim(ctx, keep), req)
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
