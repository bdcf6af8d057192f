package userinteraction_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dsh-go/userinteraction"
)

// runOnReplay runs one run of a call as a Replay host does: in a registry
// scoped to the run, with rp as its provider.
func runOnReplay(rp *userinteraction.Replay, call func(context.Context) string) string {
	ctx := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	dispose, err := userinteraction.Register(ctx, rp)
	if err != nil {
		return err.Error()
	}
	defer dispose()
	return call(ctx)
}

// toolCall is the params of an MCP "tools/call" request, with the fields that
// protocol 2026-07-28 adds for multi round-trip requests.
type toolCall struct {
	Name           string                `json:"name"`
	Arguments      map[string]string     `json:"arguments"`
	InputResponses map[string]formResult `json:"inputResponses,omitempty"`
	RequestState   string                `json:"requestState,omitempty"`
}

// toolResult is a tools/call result: complete with the tool's content, or
// input_required with the questions for the client to ask.
type toolResult struct {
	ResultType    string                  `json:"resultType"`
	Content       []textContent           `json:"content,omitempty"`
	InputRequests map[string]inputRequest `json:"inputRequests,omitempty"`
	RequestState  string                  `json:"requestState,omitempty"`
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type inputRequest struct {
	Method string                      `json:"method"`
	Params userinteraction.Elicitation `json:"params"`
}

// formResult is the result of an elicitation/create.
type formResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// serveToolCall serves a tools/call of a tool that calls Ask, on protocol
// 2026-07-28, where a server may not send elicitation/create while it serves
// the call. It runs the tool on a Replay built from the sealed record in
// requestState and the client's inputResponses. While questions are pending it
// returns them as form elicitations, with the record sealed as requestState.
func serveToolCall(call toolCall, tool func(context.Context, map[string]string) string) (toolResult, error) {
	rp := &userinteraction.Replay{}
	if call.RequestState != "" {
		record, err := unseal(call.RequestState)
		if err != nil {
			return toolResult{}, err
		}
		if err := json.Unmarshal(record, rp); err != nil {
			return toolResult{}, err
		}
	}
	for id, res := range call.InputResponses {
		ans, err := userinteraction.ElicitationAnswer(res.Action, res.Content)
		rp.Record(id, ans, err)
	}
	text := runOnReplay(rp, func(ctx context.Context) string { return tool(ctx, call.Arguments) })
	pending := rp.Pending()
	if len(pending) == 0 {
		return toolResult{ResultType: "complete", Content: []textContent{{Type: "text", Text: text}}}, nil
	}
	res := toolResult{ResultType: "input_required", InputRequests: map[string]inputRequest{}}
	for _, p := range pending {
		res.InputRequests[p.ID] = inputRequest{Method: "elicitation/create", Params: p.Request.Elicitation()}
	}
	record, err := json.Marshal(rp)
	if err != nil {
		return toolResult{}, err
	}
	res.RequestState = seal(record)
	return res, nil
}

// stateKey authenticates the requestState a server hands to its clients:
// without it, a client could edit the record and answer on the human's behalf.
// A real server reads its key from its configuration, and also seals the
// principal, an expiry and the call it belongs to, as the MCP spec asks.
var stateKey = []byte("example key; read yours from the server's configuration")

// seal returns record followed by its HMAC-SHA256, as an opaque string.
func seal(record []byte) string {
	mac := hmac.New(sha256.New, stateKey)
	mac.Write(record)
	return base64.RawURLEncoding.EncodeToString(record) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// unseal returns the record that seal sealed in state, or an error when state
// fails verification.
func unseal(state string) ([]byte, error) {
	data, sum, _ := strings.Cut(state, ".")
	record, err1 := base64.RawURLEncoding.DecodeString(data)
	got, err2 := base64.RawURLEncoding.DecodeString(sum)
	mac := hmac.New(sha256.New, stateKey)
	mac.Write(record)
	if err1 != nil || err2 != nil || !hmac.Equal(got, mac.Sum(nil)) {
		return nil, errors.New("requestState failed verification")
	}
	return record, nil
}

// This example shows a complete MCP round on protocol 2026-07-28 for the
// deleteFile tool of ExampleAsk, unchanged: the first tools/call returns the
// question as inputRequests; the client asks the human and calls again with
// inputResponses and the echoed requestState; the second run completes.
func ExampleReplay() {
	tool := func(ctx context.Context, args map[string]string) string { return deleteFile(ctx, args["path"]) }
	serve := func(params string) toolResult {
		var call toolCall
		var res toolResult
		err := json.Unmarshal([]byte(params), &call)
		if err == nil {
			res, err = serveToolCall(call, tool)
		}
		if err != nil {
			fmt.Println("JSON-RPC error:", err)
			return toolResult{}
		}
		b, _ := json.MarshalIndent(res, "", "  ")
		fmt.Println(string(b))
		return res
	}

	first := serve(`{"name": "delete_file", "arguments": {"path": "notes.txt"}}`)

	// The client shows the form; the human picks Delete.
	for id := range first.InputRequests {
		serve(`{"name": "delete_file", "arguments": {"path": "notes.txt"},
			"inputResponses": {"` + id + `": {"action": "accept", "content": {"choice": "Delete"}}},
			"requestState": "` + first.RequestState + `"}`)
	}
	// Output:
	// {
	//   "resultType": "input_required",
	//   "inputRequests": {
	//     "1c8d10f8866430933ec7cab404165dd2": {
	//       "method": "elicitation/create",
	//       "params": {
	//         "mode": "form",
	//         "message": "Delete notes.txt?",
	//         "requestedSchema": {
	//           "properties": {
	//             "choice": {
	//               "default": "Keep",
	//               "oneOf": [
	//                 {
	//                   "const": "Delete",
	//                   "title": "Delete"
	//                 },
	//                 {
	//                   "const": "Keep",
	//                   "title": "Keep"
	//                 }
	//               ],
	//               "title": "Delete file",
	//               "type": "string"
	//             }
	//           },
	//           "required": [
	//             "choice"
	//           ],
	//           "type": "object"
	//         }
	//       }
	//     }
	//   },
	//   "requestState": "e30.0yP7cQ9Q8yckogpQOGzB3kxtfW6oRuyNj3N9forBjt4"
	// }
	// {
	//   "resultType": "complete",
	//   "content": [
	//     {
	//       "type": "text",
	//       "text": "deleted notes.txt"
	//     }
	//   ]
	// }
}

// This example shows a host whose human answers long after the question was
// asked, with a restart in between: the record and the pending questions are
// saved as bytes (a database row, a file), and the next process reads them.
func ExampleReplay_restart() {
	tool := func(ctx context.Context) string { return deleteFile(ctx, "notes.txt") }

	// Process 1: the call asks; nobody is there to answer, so save the state.
	rp := &userinteraction.Replay{}
	runOnReplay(rp, tool)
	saved, _ := json.Marshal(map[string]any{"record": rp, "pending": rp.Pending()})
	fmt.Println(string(saved))

	// Process 2, after the restart: the human answers in the web UI.
	var state struct {
		Record  *userinteraction.Replay
		Pending []userinteraction.Pending
	}
	if err := json.Unmarshal(saved, &state); err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range state.Pending {
		fmt.Println("the human answers:", p.Request.Question)
		state.Record.Record(p.ID, userinteraction.Answer{Text: "keep"}, nil)
	}
	fmt.Println(runOnReplay(state.Record, tool))
	// Output:
	// {"pending":[{"id":"1c8d10f8866430933ec7cab404165dd2","request":{"question":"Delete notes.txt?","header":"Delete file","options":[{"label":"Delete","value":"delete"},{"label":"Keep","value":"keep","recommended":true}],"allowCustom":false,"agent":{"name":"cleanup"}}}],"record":{}}
	// the human answers: Delete notes.txt?
	// kept notes.txt
}
