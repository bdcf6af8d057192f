// Command interop is README's MCP server: the deploy tool, served through
// handler to clients of every protocol version, on stdio or, with -http, on
// streamable HTTP. README shows its core, handler and serveRound, cut from
// this file; the package's tests check that the cut still appears here
// verbatim, and compile README's other blocks with this file.
//
// interop_test.go drives it with the SDK's own client on every protocol
// version, in memory, over HTTP and over stdio, and fails when any answer
// differs; felt_test.go holds the figures a user feels. .ci/run runs both.
package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"log"
	"net/http"
	"time"

	"github.com/dsh-go/userinteraction"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// deploy is a tool: it asks before it acts, and its result says what the
// human answered.
func deploy(ctx context.Context, args map[string]any) string {
	service, _ := args["service"].(string)
	target, err := userinteraction.Ask(ctx, userinteraction.Request{Header: "Target", Question: "Deploy where?",
		Options: []userinteraction.Option{{Label: "Staging", Value: "staging", Recommended: true},
			{Label: "Production", Value: "production", Description: "the live site"}}})
	if err != nil {
		return "not deployed: " + userinteraction.CodeOf(err)
	}
	steps, err := userinteraction.Ask(ctx, userinteraction.Request{Question: "Which steps should run first?", MultiSelect: true,
		Options: []userinteraction.Option{{Label: "lint"}, {Label: "test", Value: "unit tests"}, {Label: "build"}}})
	if err != nil {
		return "not deployed to " + target.Text + ": " + userinteraction.CodeOf(err)
	}
	return "deployed " + service + " to " + target.Text + " after " + steps.Text
}

// newServer returns the MCP server of the deploy tool.
func newServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "deployer", Version: "v1"}, nil)
	server.AddTool(&mcp.Tool{Name: "deploy", Description: "Deploy a service, once the human says where and what runs first.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"service":{"type":"string"}},"required":["service"]}`)},
		handler(deploy))
	return server
}

// main serves on stdio, or on streamable HTTP with -http.
func main() {
	addr := flag.String("http", "", "serve streamable HTTP at this address, such as 127.0.0.1:8080, not stdio")
	flag.Parse()
	if *addr == "" {
		if err := newServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	log.Fatal(http.ListenAndServe(*addr, endpoint(newServer())))
}

// endpoint serves server to clients of every version: 2026-07-28 and later
// without sessions (go-sdk v1.8.0 serves them no other way on HTTP), older
// ones in sessions (in which a form can be sent during a call).
func endpoint(server *mcp.Server) http.Handler {
	get := func(*http.Request) *mcp.Server { return server }
	stateless := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true})
	sessions := mcp.NewStreamableHTTPHandler(get, nil)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
			stateless.ServeHTTP(w, r)
		} else {
			sessions.ServeHTTP(w, r)
		}
	})
}

// A Tool gets a call's arguments, asks with userinteraction.Ask or AskAll,
// and returns the text of its result.
type Tool func(ctx context.Context, args map[string]any) string

// handler serves tool to clients of every protocol version.
func handler(tool Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args map[string]any
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil && len(req.Params.Arguments) > 0 {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "arguments: " + err.Error()}
		}
		version, caps, via := req.ProtocolVersion(), req.ClientCapabilities(), "mcp" // "", nil and "mcp" when unknown
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
			via = "mcp:" + p.ClientInfo.Name // a claim: the name the client gave itself, under the protocol's
		}
		forms := version >= "2025-06-18" && caps != nil && caps.Elicitation != nil &&
			(caps.Elicitation.Form != nil || caps.Elicitation.URL == nil) // "elicitation": {} means forms
		if forms && version >= "2026-07-28" {
			return serveRound(ctx, req, args, via, tool)
		}
		form := userinteraction.NewForm(func(ctx context.Context, f userinteraction.Elicitation) (string, map[string]any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: f.Mode, Message: f.Message, RequestedSchema: f.RequestedSchema})
			if err != nil {
				return "", nil, err
			}
			return res.Action, res.Content, nil
		})
		ctx = userinteraction.WithRegistry(ctx, &userinteraction.Registry{})
		dispose, _ := userinteraction.Register(ctx, formAsker{form, forms, version >= "2025-11-25", via}) // a new registry: no error
		defer dispose()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: tool(ctx, args)}}}, nil
	}
}

// formAsker asks through a Form, once it has checked that the client can
// show every question of the batch.
type formAsker struct {
	form          *userinteraction.Form
	forms, arrays bool   // the client shows forms, and forms of several picks
	via           string // "mcp:" and the client's name
}

func (a formAsker) Ask(ctx context.Context, r userinteraction.Request) (userinteraction.Answer, error) {
	answers, err := a.AskAll(ctx, []userinteraction.Request{r})
	if err != nil {
		return userinteraction.Answer{}, err
	}
	return answers[0], nil
}

func (a formAsker) AskAll(ctx context.Context, reqs []userinteraction.Request) ([]userinteraction.Answer, error) {
	for _, r := range reqs {
		if !a.forms || r.MultiSelect && len(r.Options) > 0 && !a.arrays {
			return nil, userinteraction.NewError(userinteraction.CodeAskUnsupported,
				"the client cannot show this kind of question, so ask it another way", nil)
		}
	}
	answers := []userinteraction.Answer{}
	for _, r := range reqs {
		ans, err := a.form.Ask(ctx, r)
		if err != nil {
			return answers, err
		}
		ans.Via = a.via
		answers = append(answers, ans)
	}
	return answers, nil
}

// key authenticates the state that travels through the client between rounds.
// Every instance of the server needs the same key: 32 random bytes or more,
// from a secret store (here, new at each start).
var key = func() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic(err) // no randomness, so no key
	}
	return k
}()

// serveRound serves a round on 2026-07-28 and later, bound to the caller, the tool and the decoded arguments.
func serveRound(ctx context.Context, req *mcp.CallToolRequest, args map[string]any, via string, tool Tool) (*mcp.CallToolResult, error) {
	binding, _ := json.Marshal([]any{caller(req), req.Params.Name, args})
	rp, err := userinteraction.OpenReplay(key, string(binding), req.Params.RequestState) // "" in the first round
	if err != nil {
		data, _ := json.Marshal(err) // INVALID_STATE: tampered with, expired, or another call's
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid requestState", Data: data}
	}
	for _, q := range rp.Pending() { // record what was asked, and only that
		if res, ok := req.Params.InputResponses[q.ID].(*mcp.ElicitResult); ok {
			ans, err := userinteraction.ElicitationAnswer(res.Action, res.Content)
			ans.Via = via
			rp.Record(q.ID, ans, err)
		}
	}
	var text string
	questions := rp.Run(ctx, func(ctx context.Context) { text = tool(ctx, args) })
	if len(questions) == 0 {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}
	state, err := rp.Seal(key, string(binding), 10*time.Minute)
	if err != nil {
		return nil, err
	}
	inputs := mcp.InputRequestMap{}
	for _, q := range questions {
		f := q.Elicitation() // led by q.Hint when the last response broke a rule
		inputs[q.ID] = &mcp.ElicitParams{Mode: f.Mode, Message: f.Message, RequestedSchema: f.RequestedSchema}
	}
	return &mcp.CallToolResult{InputRequests: inputs, RequestState: state}, nil
}

// caller returns who calls, when the server authenticates its clients, or "".
func caller(req *mcp.CallToolRequest) string {
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		return req.Extra.TokenInfo.UserID
	}
	return ""
}
