package userinteraction_test

import (
	"context"
	"fmt"

	"github.com/dsh-go/userinteraction"
)

// This example is a UI of one's own, a chat bot, that tells its human an
// answer was taken only once Decide took it. In a FirstOf race, or under a
// host's keep, Decide may refuse it, and the bot then says so.
func ExampleDecide() {
	chat := userinteraction.ProviderFunc(func(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
		typed := req.Options[0].Answer() // the human's pick in the chat
		typed.Via = "chat"
		decided, err := userinteraction.Decide(ctx, userinteraction.Outcome{Answer: typed})
		if err != nil {
			fmt.Println("chat: not taken:", userinteraction.CodeOf(err))
			return userinteraction.Answer{}, err
		}
		fmt.Println("chat: taken:", decided[0].Answer.Option.Label)
		return decided[0].Answer, nil
	})

	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	dispose, err := userinteraction.Register(session, chat)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dispose()
	ans, err := userinteraction.Ask(session, userinteraction.Request{
		Question: "Deploy where?",
		Options:  []userinteraction.Option{{Label: "Staging", Value: "stg"}, {Label: "Production"}},
	})
	fmt.Println(ans.Text, ans.Via, err)
	// Output:
	// chat: taken: Staging
	// stg chat <nil>
}
