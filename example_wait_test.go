package userinteraction_test

import (
	"context"
	"fmt"

	"github.com/dsh-go/userinteraction"
)

// chooseSteps is a tool that asks for several picks.
func chooseSteps(ctx context.Context) (string, error) {
	ans, err := userinteraction.Ask(ctx, userinteraction.Request{Question: "Run which steps?", MultiSelect: true,
		Options: []userinteraction.Option{{Label: "lint"}, {Label: "test"}}})
	return ans.Text, err
}

// A host that keeps the call open, such as an MCP server before protocol
// 2026-07-28, runs it with Wait: each question goes to the client as a form
// while the call waits, unless the client cannot show it.
func ExampleWait() {
	elicit := func(ctx context.Context, f userinteraction.Elicitation) (string, map[string]any, error) {
		fmt.Printf("form %q\n", f.Message)
		return "accept", map[string]any{"choice": []any{"lint", "test"}}, nil
	}
	var text string
	var err error
	call := func(ctx context.Context) { text, err = chooseSteps(ctx) }

	userinteraction.Wait(context.Background(), elicit, true, "mcp:editor", call) // a client of 2025-11-25
	fmt.Println(text, err)
	userinteraction.Wait(context.Background(), elicit, false, "mcp:editor", call) // of 2025-06-18: no several picks
	fmt.Println(userinteraction.CodeOf(err))
	userinteraction.Wait(context.Background(), nil, false, "mcp:editor", call) // no forms at all
	fmt.Println(userinteraction.CodeOf(err))
	// Output:
	// form "Run which steps?"
	// lint, test <nil>
	// ASK_UNSUPPORTED
	// ASK_UNSUPPORTED
}
