package main

// The figures a user feels (issue 31): what the package adds to a served MCP
// round, on go-sdk v1.8.0's in-memory transport, the fastest there is, so the
// worst case for the package's share. Each benchmark is one tool call from
// the SDK's client to the SDK's server and back:
//
//	RoundPlain           a tool that answers at once, without the package
//	RoundAnswer          the last round of a call with one question: OpenReplay,
//	                     the recorded response, a run of the tool, the answer
//	RoundAnswerBase      RoundAnswer's params, byte for byte, sent to a tool of
//	                     the same name that ignores them and answers at once
//	RoundAsk             the first round of that call: a run, Seal, inputRequests
//	RoundAnswerAll10     the last round of a call that asks ten questions in
//	                     one AskAll
//	RoundAnswerAll10Base its params sent to a tool that ignores them
//	RoundAskAll10        the first round of that call
//	ElicitHand           protocol 2025-11-25: a tool that sends a hand-written
//	                     elicitation/create and reads the response by hand
//	ElicitForm           the same question through NewForm around the SDK's Elicit
//
// The package's own share of a round is (RoundAnswer - RoundAnswerBase) /
// RoundPlain, and the same for AskAll10 (goals: at most 0.05 and 0.10): what
// the package's code adds to a round, apart from the SDK's work on the
// larger params. (RoundAnswer - RoundPlain) / RoundPlain adds that work on
// the state and the responses. ElicitForm / ElicitHand has the goal at most
// 1.05. CONTRIBUTING's figures section has the interleaved loop.

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/dsh-go/userinteraction"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var whereTo = userinteraction.Request{Header: "Target", Question: "Deploy where?",
	Options: []userinteraction.Option{{Label: "Staging", Value: "staging", Recommended: true},
		{Label: "Production", Value: "production", Description: "the live site"}}}

// askOne is a tool with one question.
func askOne(ctx context.Context) string {
	ans, err := userinteraction.Ask(ctx, whereTo)
	if err != nil {
		return "not deployed: " + userinteraction.CodeOf(err)
	}
	return "deployed to " + ans.Text
}

// tenQuestions are the questions of askTen: whereTo, ten times, each asked
// of another service.
var tenQuestions = func() []userinteraction.Request {
	reqs := make([]userinteraction.Request, 10)
	for i := range reqs {
		reqs[i] = whereTo
		reqs[i].Question = fmt.Sprintf("Deploy service %d where?", i)
	}
	return reqs
}()

// askTen is a tool that asks ten questions in one AskAll.
func askTen(ctx context.Context) string {
	answers, err := userinteraction.AskAll(ctx, tenQuestions)
	if err != nil {
		return "not deployed: " + userinteraction.CodeOf(err)
	}
	return "deployed to " + answers[9].Text
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// benchTools are the tools the benchmarks call.
var benchTools = map[string]mcp.ToolHandler{
	"plain": func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("deployed to production"), nil
	},
	"one": func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return serveRound(ctx, req, askOne)
	},
	"ten": func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return serveRound(ctx, req, askTen)
	},
	// form is README's handle with askOne as the tool.
	"form": func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
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
		return text(askOne(ctx)), nil
	},
	// hand asks whereTo with a hand-written form and reads the response by
	// hand: what a server without the package writes.
	"hand": func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: "Deploy where?\nProduction: the live site",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
				"choice": map[string]any{"type": "string", "title": "Target", "enum": []any{"Staging", "Production"}, "default": "Staging"},
				"text":   map[string]any{"type": "string", "title": "Other"},
			}}})
		if err != nil {
			return nil, err
		}
		if res.Action != "accept" {
			return text("not deployed: " + res.Action), nil
		}
		if t, _ := res.Content["text"].(string); t != "" {
			return text("deployed to " + t), nil
		}
		switch res.Content["choice"] {
		case "Staging":
			return text("deployed to staging"), nil
		case "Production":
			return text("deployed to production"), nil
		}
		return nil, fmt.Errorf("no such choice: %v", res.Content["choice"])
	},
}

// baseTools answer as the last rounds of benchTools' "one" and "ten" do,
// under the same names, without the package: they ignore the params. A
// round of one of them with a last round's params measures what the SDK
// spends on those params, the state and the responses, so that the rest of
// that round is the package's own code.
var baseTools = map[string]mcp.ToolHandler{
	"one": benchTools["plain"],
	"ten": benchTools["plain"],
}

// benchSession connects the SDK's client to a server of tools on version,
// in memory, and closes both when b ends. The client answers every form
// with Production and leaves the rounds to the caller.
func benchSession(b *testing.B, version string, tools map[string]mcp.ToolHandler) *mcp.ClientSession {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "bench-server", Version: "v0"}, nil)
	for name, h := range tools {
		server.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, h)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "v0"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return accept(map[string]any{"choice": "Production"}), nil
		},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cs.Close()
		ss.Close()
	})
	return cs
}

// call calls tool with params and checks that the result's text is want, or
// that it asks questions when want is "".
func call(b *testing.B, cs *mcp.ClientSession, params *mcp.CallToolParams, want string) *mcp.CallToolResult {
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		b.Fatal(err)
	}
	if want == "" {
		if len(res.InputRequests) == 0 {
			b.Fatalf("CallTool(%s) asked no question", params.Name)
		}
		return res
	}
	if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != want {
		b.Fatalf("CallTool(%s) = %+v, want %q", params.Name, res.Content, want)
	}
	return res
}

// benchRound measures one round of tool: the first when first is set, else
// the last, whose questions are all answered with Production. When base is
// set, the round goes to baseTools with the same params, byte for byte.
func benchRound(b *testing.B, tool string, first, base bool, want string) {
	cs := benchSession(b, "2026-07-28", benchTools)
	params := &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}}
	if !first {
		asked := call(b, cs, params, "")
		responses := mcp.InputResponseMap{}
		for id := range asked.InputRequests {
			responses[id] = accept(map[string]any{"choice": "Production"})
		}
		params = &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}, InputResponses: responses, RequestState: asked.RequestState}
	}
	if base {
		cs = benchSession(b, "2026-07-28", baseTools)
	}
	call(b, cs, params, want)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		call(b, cs, params, want)
	}
}

func BenchmarkRoundPlain(b *testing.B) { benchRound(b, "plain", true, false, "deployed to production") }
func BenchmarkRoundAnswer(b *testing.B) {
	benchRound(b, "one", false, false, "deployed to production")
}
func BenchmarkRoundAnswerBase(b *testing.B) {
	benchRound(b, "one", false, true, "deployed to production")
}
func BenchmarkRoundAsk(b *testing.B) { benchRound(b, "one", true, false, "") }
func BenchmarkRoundAnswerAll10(b *testing.B) {
	benchRound(b, "ten", false, false, "deployed to production")
}
func BenchmarkRoundAnswerAll10Base(b *testing.B) {
	benchRound(b, "ten", false, true, "deployed to production")
}
func BenchmarkRoundAskAll10(b *testing.B) { benchRound(b, "ten", true, false, "") }

func benchElicit(b *testing.B, tool string) {
	cs := benchSession(b, "2025-11-25", benchTools)
	params := &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}}
	call(b, cs, params, "deployed to production")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		call(b, cs, params, "deployed to production")
	}
}

func BenchmarkElicitHand(b *testing.B) { benchElicit(b, "hand") }
func BenchmarkElicitForm(b *testing.B) { benchElicit(b, "form") }

// benchServe measures the package's own part of the last round of tool, as
// BenchmarkRoundAnswer runs it, without the SDK: README's serve with the
// state and responses of that round.
func benchServe(b *testing.B, tool func(context.Context) string, want string) {
	ctx := context.Background()
	const binding = `["","bench",{}]`
	_, questions, state, err := serve(ctx, key, binding, "", nil, tool)
	if err != nil || len(questions) == 0 {
		b.Fatalf("serve() = %v, %v, want questions", questions, err)
	}
	responses := map[string]Response{}
	for _, q := range questions {
		responses[q.ID] = Response{Action: "accept", Content: map[string]any{"choice": "Production"}}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if got, _, _, err := serve(ctx, key, binding, state, responses, tool); got != want || err != nil {
			b.Fatalf("serve() = %q, %v, want %q", got, err, want)
		}
	}
}

func BenchmarkServeAnswer(b *testing.B)      { benchServe(b, askOne, "deployed to production") }
func BenchmarkServeAnswerAll10(b *testing.B) { benchServe(b, askTen, "deployed to production") }
