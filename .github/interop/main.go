// Command interop proves userinteraction against the MCP Go SDK. It serves a
// tool that asks two questions, drives it with the SDK's own client over the
// SDK's in-memory transport, and compares every answer with the one it
// expects. On protocol 2025-11-25 the tool call waits while the client shows
// each form (NewForm around req.Session.Elicit). On 2026-07-28 the server may
// not send a form while it serves a call, so the host runs the call in rounds
// (Replay, Seal, OpenReplay). The README's MCP code is cut from this file,
// and a test of the package checks that it still appears here verbatim.
//
// It exits with status 1, listing what differed, when any answer differs.
// .ci/run runs it: cd .github/interop && go run .
package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/dsh-go/userinteraction"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tool's two questions: one pick, then several picks. Both take the
// human's own words too.
var (
	whereTo = userinteraction.Request{
		Header:   "Target",
		Question: "Deploy where?",
		Options: []userinteraction.Option{
			{Label: "Staging", Value: "staging", Recommended: true},
			{Label: "Production", Value: "production", Description: "the live site"},
		},
	}
	whichSteps = userinteraction.Request{
		Question:    "Which steps should run first?",
		Options:     []userinteraction.Option{{Label: "lint"}, {Label: "test", Value: "unit tests"}, {Label: "build"}},
		MultiSelect: true,
	}
)

// deploy is the tool: it asks before it acts, and its result says what the
// human answered.
func deploy(ctx context.Context) string {
	target, err := userinteraction.Ask(ctx, whereTo)
	if err != nil {
		return "not deployed: " + userinteraction.CodeOf(err)
	}
	steps, err := userinteraction.Ask(ctx, whichSteps)
	if err != nil {
		return "not deployed to " + target.Text + ": " + userinteraction.CodeOf(err)
	}
	return "deployed to " + target.Text + " after " + steps.Text
}

// handle serves the deploy tool on every protocol version.
func handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if req.ProtocolVersion() >= "2026-07-28" {
		return serveRound(ctx, req) // no form while serving a call: Replay
	}
	form := userinteraction.NewForm(func(ctx context.Context, f userinteraction.Elicitation) (string, map[string]any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: f.Mode, Message: f.Message, RequestedSchema: f.RequestedSchema})
		if err != nil {
			return "", nil, err
		}
		return res.Action, res.Content, nil
	})
	ctx = userinteraction.WithRegistry(ctx, &userinteraction.Registry{})
	dispose, err := userinteraction.Register(ctx, form)
	if err != nil {
		return nil, err
	}
	defer dispose()
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: deploy(ctx)}}}, nil
}

// key authenticates the state that travels through the client between rounds.
var key = randomKey()

func randomKey() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic(err)
	}
	return k
}

// serveRound serves one round of a call on protocol 2026-07-28 and later:
// the questions still open go out as inputRequests, with the sealed state.
func serveRound(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	responses := map[string]Response{}
	for id, r := range req.Params.InputResponses {
		if res, ok := r.(*mcp.ElicitResult); ok { // the response to an elicitation/create
			responses[id] = Response{Action: res.Action, Content: res.Content}
		}
	}
	binding := "deploy\n" + string(req.Params.Arguments) // and the principal, with authentication
	text, questions, next, err := serve(ctx, key, binding, req.Params.RequestState, responses, deploy)
	if err != nil {
		msg, _ := json.Marshal(err) // a *HarnessError's {"name", "code", "message"}
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(msg)}}}, nil
	}
	if len(questions) == 0 {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}
	inputs := mcp.InputRequestMap{}
	for _, q := range questions {
		f := q.Request.Elicitation()
		inputs[q.ID] = &mcp.ElicitParams{Mode: f.Mode, Message: f.Message, RequestedSchema: f.RequestedSchema}
	}
	return &mcp.CallToolResult{InputRequests: inputs, RequestState: next}, nil
}

// Response is the human's response to one form: its action and content.
type Response struct {
	Action  string
	Content map[string]any
}

// serve runs one round of a tool call whose state travels through the client.
func serve(ctx context.Context, key []byte, binding, state string, responses map[string]Response,
	tool func(context.Context) string) (text string, questions []userinteraction.Pending, next string, err error) {
	rp, err := userinteraction.OpenReplay(key, binding, state) // "" in the first round
	if err != nil {
		return "", nil, "", err // INVALID_STATE: tampered with, expired, another call or key
	}
	for _, q := range rp.Pending() { // record what was asked, and only that
		if r, ok := responses[q.ID]; ok {
			ans, err := userinteraction.ElicitationAnswer(r.Action, r.Content)
			rp.Record(q.ID, ans, err)
		}
	}
	questions = rp.Run(ctx, func(ctx context.Context) { text = tool(ctx) })
	if len(questions) == 0 {
		return text, nil, "", nil // complete
	}
	next, err = rp.Seal(key, binding, 10*time.Minute) // send each q.Request.Elicitation() under q.ID
	return "", questions, next, err
}

// A scenario is one tool call: the client's response to each form it is
// shown, in order, and what the call must return.
type scenario struct {
	name      string
	responses []*mcp.ElicitResult
	want      string
	// forms are the messages of the forms the client must be shown, when
	// set: a form sent again is led by the reason.
	forms []string
}

func accept(content map[string]any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: content}
}

// scenarios are asked on both protocols.
var scenarios = []scenario{
	{name: "a pick, then several picks",
		responses: []*mcp.ElicitResult{accept(map[string]any{"choice": "Production"}), accept(map[string]any{"choice": []any{"build", "lint"}})},
		want:      "deployed to production after lint, build"},
	{name: "typed text beside the default pick, then picks and text",
		responses: []*mcp.ElicitResult{accept(map[string]any{"text": "the canary"}), accept(map[string]any{"choice": []any{"test"}, "text": "a smoke run"})},
		want:      "deployed to the canary after unit tests, a smoke run"},
	{name: "the default pick, then typed text alone",
		responses: []*mcp.ElicitResult{accept(map[string]any{}), accept(map[string]any{"choice": []any{}, "text": "none"})},
		want:      "deployed to staging after none"},
	{name: "decline",
		responses: []*mcp.ElicitResult{{Action: "decline"}},
		want:      "not deployed: ASK_DECLINED"},
	{name: "a pick, then cancel",
		responses: []*mcp.ElicitResult{accept(map[string]any{"choice": "Staging"}), {Action: "cancel"}},
		want:      "not deployed to staging: ASK_CANCELLED"},
}

// resent is asked on 2025-11-25 only, where the call waits: an empty submit
// beside the text field is no answer, so the form goes again.
var resent = scenario{name: "an empty submit, sent again",
	responses: []*mcp.ElicitResult{accept(map[string]any{"choice": "Production"}), accept(map[string]any{"choice": []any{}}), accept(map[string]any{"choice": []any{"test"}})},
	want:      "deployed to production after unit tests",
	forms: []string{
		"Deploy where?\nProduction: the live site",
		"Which steps should run first?",
		"Pick at least one option, or type your own answer.\nWhich steps should run first?",
	}}

// run calls the deploy tool once through a new client session on version,
// answering each form with the scenario's next response, and returns what
// differs from the scenario, or "".
func run(ctx context.Context, server *mcp.Server, version string, sc scenario) (string, error) {
	var mu sync.Mutex // guards shown
	var shown []string
	client := mcp.NewClient(&mcp.Implementation{Name: "interop-client", Version: "v0"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			shown = append(shown, req.Params.Message)
			if len(shown) > len(sc.responses) {
				return nil, fmt.Errorf("form %d is one too many: %q", len(shown), req.Params.Message)
			}
			return sc.responses[len(shown)-1], nil
		},
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		return "", err
	}
	defer ss.Close()
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return "", err
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		return "", fmt.Errorf("negotiated protocol %s, want %s", got, version)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{}})
	if err != nil {
		return "", err
	}
	var got []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			got = append(got, t.Text)
		}
	}
	var diffs []string
	if g := strings.Join(got, "\n"); g != sc.want || res.IsError {
		diffs = append(diffs, fmt.Sprintf("result = %q (isError %v), want %q", g, res.IsError, sc.want))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(shown) != len(sc.responses) {
		diffs = append(diffs, fmt.Sprintf("%d forms shown, want %d", len(shown), len(sc.responses)))
	}
	if sc.forms != nil && !reflect.DeepEqual(shown, sc.forms) {
		diffs = append(diffs, fmt.Sprintf("forms shown = %q, want %q", shown, sc.forms))
	}
	return strings.Join(diffs, "; "), nil
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	server := mcp.NewServer(&mcp.Implementation{Name: "interop-server", Version: "v0"}, nil)
	server.AddTool(&mcp.Tool{Name: "deploy", InputSchema: json.RawMessage(`{"type":"object"}`)}, handle)

	failed := 0
	check := func(version string, sc scenario) {
		diff, err := run(ctx, server, version, sc)
		switch {
		case err != nil:
			diff = err.Error()
		case diff == "":
			fmt.Printf("ok   %s  %s\n", version, sc.name)
			return
		}
		failed++
		fmt.Printf("FAIL %s  %s: %s\n", version, sc.name, diff)
	}
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		for _, sc := range scenarios {
			check(version, sc)
		}
	}
	check("2025-11-25", resent)
	if failed > 0 {
		fmt.Fprintf(os.Stderr, "interop: %d of %d calls answered differently\n", failed, 2*len(scenarios)+1)
		os.Exit(1)
	}
}
