package userinteraction_test

import (
	"context"
	"fmt"

	"github.com/dsh-go/userinteraction"
)

// This example shows the provider for MCP and ACP clients that render forms.
// The host writes only the SDK call, here a stand-in for one such as the MCP
// Go SDK's req.Session.Elicit. Its human first submits the form empty, so
// the form goes again, led by a line that says why.
func ExampleForm() {
	responses := []map[string]any{
		{"choice": []any{}, "text": ""},
		{"choice": []any{"test", "lint"}},
	}
	elicit := func(ctx context.Context, form userinteraction.Elicitation) (string, map[string]any, error) {
		fmt.Printf("form: %q\n", form.Message)
		content := responses[0]
		responses = responses[1:]
		return "accept", content, nil
	}

	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	dispose, err := userinteraction.Register(session, userinteraction.NewForm(elicit))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dispose()

	ans, err := userinteraction.Ask(session, userinteraction.Request{
		Question:    "Which checks should run?",
		Options:     []userinteraction.Option{{Label: "lint"}, {Label: "test"}, {Label: "build"}},
		MultiSelect: true,
	})
	if err != nil {
		fmt.Println(userinteraction.CodeOf(err))
		return
	}
	fmt.Println("answer:", ans.Text)
	// Output:
	// form: "Which checks should run?"
	// form: "Pick at least one option, or type your own answer.\nWhich checks should run?"
	// answer: lint, test
}
