package userinteraction_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/dsh-go/userinteraction"
)

// removeFile is a tool: it asks before it deletes. It is the same in every
// kind of host, and does not know that its question may travel through a
// client and back.
func removeFile(ctx context.Context, path string) string {
	ans, err := userinteraction.Ask(ctx, userinteraction.Request{
		Header:   "Delete file",
		Question: "Delete " + path + "?",
		Options: []userinteraction.Option{
			{Label: "Delete", Value: "delete"},
			{Label: "Keep", Value: "keep", Recommended: true},
		},
		DisallowCustom: true,
		Agent:          &userinteraction.Agent{Name: "cleanup"},
	})
	switch {
	case err != nil:
		return "not deleted: " + userinteraction.CodeOf(err)
	case ans.Text == "delete":
		return "deleted " + path
	}
	return "kept " + path
}

// mcpCall is the params of an MCP tools/call, with the fields of multi
// round-trip requests.
type mcpCall struct {
	Name           string          `json:"name"`
	Arguments      json.RawMessage `json:"arguments"`
	InputResponses map[string]struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	} `json:"inputResponses"`
	RequestState string `json:"requestState"`
}

// serveMCP serves one tools/call of tool for principal, on an MCP protocol
// with multi round-trip requests, where a server may not send
// elicitation/create while it serves a call: the questions go out as the
// result's inputRequests, and what the call needs to go on as its sealed
// requestState. The state is bound to the call by the principal, the tool's
// name and its arguments as decoded and encoded again, which sorts their
// keys: a client may send the same arguments in other bytes.
func serveMCP(
	ctx context.Context, key []byte, principal string, params []byte, tool func(context.Context) string,
) (map[string]any, error) {
	var call mcpCall
	if err := json.Unmarshal(params, &call); err != nil {
		return nil, err
	}
	var args map[string]any
	if err := json.Unmarshal(call.Arguments, &args); err != nil {
		return nil, err
	}
	canonical, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	binding := principal + "\n" + call.Name + "\n" + string(canonical)
	rp, err := userinteraction.OpenReplay(key, binding, call.RequestState)
	if err != nil {
		return nil, err
	}
	for _, q := range rp.Pending() { // only what was asked: no unsolicited answers
		if r, ok := call.InputResponses[q.ID]; ok {
			ans, err := userinteraction.ElicitationAnswer(r.Action, r.Content)
			rp.Record(q.ID, ans, err)
		}
	}
	var text string
	pending := rp.Run(ctx, func(ctx context.Context) { text = tool(ctx) })
	if len(pending) == 0 {
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}, nil
	}
	requests := map[string]any{}
	for _, q := range pending {
		// q.Elicitation leads the form with why the last response was refused.
		requests[q.ID] = map[string]any{"method": "elicitation/create", "params": q.Elicitation()}
	}
	state, err := rp.Seal(key, binding, 10*time.Minute)
	if err != nil {
		return nil, err
	}
	return map[string]any{"resultType": "input_required", "inputRequests": requests, "requestState": state}, nil
}

// This example shows an MCP server whose client cannot wait in a tool call:
// the removeFile tool asks; the first tools/call returns its question. The
// second brings a response without a pick, so the question goes out again,
// led by why. The third, with the human's pick, the
// echoed requestState and the arguments in another order, completes.
func ExampleReplay() {
	ctx := context.Background()
	key := []byte("the server's secret key, 32 bytes or more")
	tool := func(ctx context.Context) string { return removeFile(ctx, "notes.txt") }
	// call sends a tools/call with arguments, state and the human's
	// responses to the questions by ID, as a client does.
	call := func(arguments, state string, responses map[string]map[string]any) map[string]any {
		inputs := map[string]any{}
		for id, content := range responses {
			inputs[id] = map[string]any{"action": "accept", "content": content}
		}
		params, _ := json.Marshal(map[string]any{
			"name": "delete_file", "arguments": json.RawMessage(arguments),
			"inputResponses": inputs, "requestState": state,
		})
		result, err := serveMCP(ctx, key, "alice", params, tool)
		if err != nil {
			fmt.Println(err)
		}
		return result
	}
	first := call(`{"path": "notes.txt", "dryRun": false}`, "", nil)
	requests, _ := json.Marshal(first["inputRequests"])
	fmt.Println(first["resultType"], string(requests))
	var id string
	for k := range first["inputRequests"].(map[string]any) {
		id = k // the one question
	}

	// The client sends a response without a pick, which is no answer.
	second := call(`{"path": "notes.txt", "dryRun": false}`, first["requestState"].(string), map[string]map[string]any{id: {}})
	form := second["inputRequests"].(map[string]any)[id].(map[string]any)["params"].(userinteraction.Elicitation)
	fmt.Printf("%s %q\n", second["resultType"], form.Message)

	// The human picks Delete; the client sends the arguments in another order.
	third := call(`{"dryRun":false,"path":"notes.txt"}`, second["requestState"].(string), map[string]map[string]any{id: {"choice": "Delete"}})
	result, _ := json.Marshal(third)
	fmt.Println(string(result))
	// Output:
	// input_required {"137ab471f77abe7e423cb8021e63303f":{"method":"elicitation/create","params":{"mode":"form","message":"Delete notes.txt?","requestedSchema":{"properties":{"choice":{"default":"Keep","enum":["Delete","Keep"],"title":"Delete file","type":"string"}},"required":["choice"],"type":"object"}}}}
	// input_required "Pick an option.\nDelete notes.txt?"
	// {"content":[{"text":"deleted notes.txt","type":"text"}]}
}

// This example shows a host whose human answers long after the question was
// asked, with a restart in between: the sealed state is saved (in a database
// row or a file). The next process opens it and runs the call again, which
// asks the questions anew (the state holds only their IDs). It records the
// human's answer and runs the call once more.
func ExampleReplay_restart() {
	ctx := context.Background()
	key := []byte("the host's secret key, 32 bytes or more")
	tool := func(ctx context.Context) string { return removeFile(ctx, "notes.txt") }

	// Process 1: the call asks; nobody is there to answer, so save the state.
	rp := &userinteraction.Replay{}
	rp.Run(ctx, func(ctx context.Context) { tool(ctx) })
	saved, err := rp.Seal(key, "call 42", 24*time.Hour)
	if err != nil {
		fmt.Println(err)
		return
	}

	// Process 2, after the restart: a run asks again, and the human answers in the web UI.
	rp, err = userinteraction.OpenReplay(key, "call 42", saved)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, q := range rp.Run(ctx, func(ctx context.Context) { tool(ctx) }) {
		fmt.Println("the human answers:", q.Request.Question)
		rp.Record(q.ID, userinteraction.Answer{Text: "keep", Via: "web"}, nil)
	}
	var result string
	rp.Run(ctx, func(ctx context.Context) { result = tool(ctx) })
	fmt.Println(result)
	// Output:
	// the human answers: Delete notes.txt?
	// kept notes.txt
}
