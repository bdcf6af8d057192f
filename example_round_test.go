package userinteraction_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/dsh-go/userinteraction"
)

// deleteBranch is a tool: it asks before it acts.
func deleteBranch(ctx context.Context, branch string) (string, error) {
	ans, err := userinteraction.Ask(ctx, userinteraction.Request{Question: "Delete branch " + branch + "?",
		Options: []userinteraction.Option{{Label: "Delete"}, {Label: "Keep", Recommended: true}}})
	if err != nil {
		return "", err
	}
	return ans.Text + " " + branch, nil
}

// A host that cannot keep a call open, such as an MCP server on protocol
// 2026-07-28, runs a round of the call at each call of the client: the
// questions go out with the state, and the client's responses come back with
// it. Round is OpenReplay, Record, Run and Seal in one.
func ExampleRound() {
	key := []byte("a key of 32 bytes or more, from a secret store")
	binding := `["alice","delete_branch",{"branch":"wip"}]` // the caller, the tool, its arguments
	var text string
	var err error
	call := func(ctx context.Context) { text, err = deleteBranch(ctx, "wip") }

	forms, state, _ := userinteraction.Round(context.Background(), key, binding, "", nil, "mcp:editor", call)
	responses := map[string]any{}
	for id, form := range forms {
		fmt.Printf("asks %q\n", form.Message)
		responses[id] = map[string]any{"action": "accept", "content": map[string]any{"choice": "Delete"}}
	}
	forms, _, _ = userinteraction.Round(context.Background(), key, binding, state, responses, "mcp:editor", call)
	fmt.Println(len(forms), text, err)

	_, _, stale := userinteraction.Round(context.Background(), key, `["mallory","delete_branch",{"branch":"main"}]`, state, json.RawMessage(`{}`), "", call)
	fmt.Println(userinteraction.CodeOf(stale))
	// Output:
	// asks "Delete branch wip?"
	// 0 Delete wip <nil>
	// INVALID_STATE
}
