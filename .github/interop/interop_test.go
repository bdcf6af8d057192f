package main

// TestInterop calls README's server with the SDK's own client on every
// protocol version, and fails when any answer differs. Before 2026-07-28
// the tool call waits while the client shows each form (NewForm around
// req.Session.Elicit), after README's handler has checked that the client
// can show them. On 2026-07-28 the server may not send a form while it
// serves a call, so the host runs the call in rounds (Replay, Seal,
// OpenReplay): in memory, over README's HTTP endpoint on a loopback
// listener, and over stdio to README's main in a process of its own.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dsh-go/userinteraction"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMain runs README's main, which serves on stdio, when the stdio
// scenarios start this test binary as the server.
func TestMain(m *testing.M) {
	if os.Getenv("INTEROP_SERVE_STDIO") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// release asks two questions in one AskAll, and says where they were
// answered: a tool of its own, served by the same handler as deploy.
func release(ctx context.Context, args map[string]any) (string, error) {
	version, _ := args["version"].(string)
	answers, err := userinteraction.AskAll(ctx, []userinteraction.Request{
		{Question: "Release where?", Options: []userinteraction.Option{{Label: "Staging"}, {Label: "Production"}}},
		{Question: "Announce it where?", MultiSelect: true, Options: []userinteraction.Option{{Label: "chat"}, {Label: "mail"}}},
	})
	if err != nil {
		return "", fmt.Errorf("not released: %w", err)
	}
	return "released " + version + " to " + answers[0].Text + ", announced on " + answers[1].Text +
		", answered on " + answers[0].Via + " and " + answers[1].Via, nil
}

// withRelease returns README's server with the release tool added.
func withRelease() *mcp.Server {
	server := newServer()
	mcp.AddTool(server, &mcp.Tool{Name: "release", Description: "Release a version, once the human says where.",
		InputSchema: json.RawMessage(`{"type":"object"}`)}, handler(release))
	return server
}

// A scenario is one tool call: the client's response to each form it is
// shown, and what the call must return.
type scenario struct {
	name string
	// on lists the clients it runs on; nil means eras.
	on []conn
	// noElicitation makes a client that declares no elicitation capability.
	noElicitation bool
	// tool is the tool called, deploy when empty.
	tool string
	// client is the name the client gives itself, "interop-client" when empty.
	client string
	// responses answer the forms in the order shown; answers answer each
	// form by a line of its message instead, when set.
	responses []*mcp.ElicitResult
	answers   map[string]*mcp.ElicitResult
	// want is the result's text; a failed call's (isError) up to its
	// error's code.
	want string
	// forms are the messages of the forms the client must be shown, when
	// set: a form sent again is led by the reason.
	forms []string
}

// A conn is a client's protocol version and its transport.
type conn struct {
	version   string
	transport string // "memory", "http" (README's endpoint), "stateless" (a stateless handler alone), "stdio"
}

func (c conn) String() string { return fmt.Sprintf("%s %-9s", c.version, c.transport) }

var eras = []conn{{"2025-11-25", "memory"}, {"2026-07-28", "memory"}, {"2026-07-28", "http"}}

func accept(content map[string]any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: content}
}

// reasked are the forms of a call whose second response broke a rule.
var reasked = []string{
	"Deploy where?\nProduction: the live site",
	"Which steps should run first?",
	"Pick at least one option, or type your own answer.\nWhich steps should run first?",
}

// releaseAnswers answer release's two forms.
var releaseAnswers = map[string]*mcp.ElicitResult{
	"Release where?":     accept(map[string]any{"choice": "Production"}),
	"Announce it where?": accept(map[string]any{"choice": []any{"mail"}}),
}

var scenarios = []scenario{
	{name: "a pick, then several picks",
		on:        append([]conn{{"2025-11-25", "http"}, {"2025-11-25", "stdio"}, {"2026-07-28", "stdio"}}, eras...),
		responses: []*mcp.ElicitResult{accept(map[string]any{"choice": "Production"}), accept(map[string]any{"choice": []any{"build", "lint"}})},
		want:      "deployed web to production after lint, build"},
	{name: "typed text beside the default pick, then picks and text",
		responses: []*mcp.ElicitResult{accept(map[string]any{"text": "the canary"}), accept(map[string]any{"choice": []any{"test"}, "text": "a smoke run"})},
		want:      "deployed web to the canary after unit tests, a smoke run"},
	{name: "the default pick, then typed text alone",
		responses: []*mcp.ElicitResult{accept(map[string]any{}), accept(map[string]any{"choice": []any{}, "text": "none"})},
		want:      "deployed web to staging after none"},
	{name: "decline",
		responses: []*mcp.ElicitResult{{Action: "decline"}},
		want:      "not deployed: ASK_DECLINED"},
	{name: "a pick, then cancel",
		responses: []*mcp.ElicitResult{accept(map[string]any{"choice": "Staging"}), {Action: "cancel"}},
		want:      "not deployed to staging: ASK_CANCELLED"},
	// The schema lets these through (the text field is optional), the
	// answer rules do not: the form goes again, led by the reason.
	{name: "an empty pick set, asked again",
		responses: []*mcp.ElicitResult{accept(map[string]any{"choice": "Production"}), accept(map[string]any{"choice": []any{}}), accept(map[string]any{"choice": []any{"test"}})},
		want:      "deployed web to production after unit tests", forms: reasked},
	{name: "a response of {}, asked again",
		responses: []*mcp.ElicitResult{accept(map[string]any{"choice": "Production"}), accept(map[string]any{}), accept(map[string]any{"choice": []any{"test"}})},
		want:      "deployed web to production after unit tests", forms: reasked},
	{name: "a client without elicitation: no form, no inputRequests",
		on:            append([]conn{{"2025-06-18", "memory"}}, eras...),
		noElicitation: true, want: "not deployed: ASK_UNSUPPORTED"},
	// 2025-06-18 has forms of strings only: a pick is shown as choices,
	// several picks are not sent at all.
	{name: "a pick shown as choices, then several picks unsupported",
		on:        []conn{{"2025-06-18", "memory"}},
		responses: []*mcp.ElicitResult{accept(map[string]any{"choice": "Production"})},
		want:      "not deployed to production: ASK_UNSUPPORTED", forms: reasked[:1]},
	// A batch is checked whole: a client that cannot show its second
	// question is shown not even the first.
	{name: "a batch it cannot show whole: no form at all",
		on: []conn{{"2025-06-18", "memory"}}, tool: "release",
		want: "not released: ASK_UNSUPPORTED"},
	{name: "a batch, each answer's Via mcp: and the client's name",
		tool: "release", answers: releaseAnswers,
		want: "released v2 to Production, announced on mail, answered on mcp:interop-client and mcp:interop-client"},
	// A client's name is a claim: one that calls itself terminal is no
	// Terminal of the package.
	{name: "a client that names itself terminal",
		tool: "release", answers: releaseAnswers, client: "terminal",
		want: "released v2 to Production, announced on mail, answered on mcp:terminal and mcp:terminal"},
	// A stateless server keeps no session: it knows no older client's
	// capabilities and cannot send it a request during a call.
	{name: "an older client of a stateless server",
		on:   []conn{{"2025-11-25", "stateless"}},
		want: "not deployed: ASK_UNSUPPORTED"},
	{name: "no forms before 2025-06-18",
		on:   []conn{{"2025-03-26", "memory"}},
		want: "not deployed: ASK_UNSUPPORTED"},
}

// connect connects a client with opts to server on c, and returns the
// session, or an error. ctx ends the server's side.
func connect(ctx context.Context, t *testing.T, c conn, server *mcp.Server, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	return connectAs(ctx, t, "interop-client", c, server, opts)
}

// connectAs connects as connect does, a client that gives itself name.
func connectAs(ctx context.Context, t *testing.T, name string, c conn, server *mcp.Server, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	var transport mcp.Transport
	switch c.transport {
	case "memory":
		st, ct := mcp.NewInMemoryTransports()
		ss, err := server.Connect(ctx, st, nil)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { ss.Close() })
		transport = ct
	case "http", "stateless":
		h := endpoint(server)
		if c.transport == "stateless" {
			h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true})
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		hs := &http.Server{Handler: h}
		go hs.Serve(ln)
		t.Cleanup(func() { hs.Close() })
		transport = &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String()}
	case "stdio":
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "INTEROP_SERVE_STDIO=1")
		transport = &mcp.CommandTransport{Command: cmd}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "v0"}, opts).
		Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: c.version})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != c.version {
		return nil, fmt.Errorf("negotiated protocol %s, want %s", got, c.version)
	}
	return cs, nil
}

// call calls the scenario's tool once through a new server and client
// session on c, answering each form as the scenario says, and returns what
// differs from the scenario, or "".
func call(ctx context.Context, t *testing.T, c conn, sc scenario) (string, error) {
	var sent atomic.Int64 // forms the server sent: elicitation/create requests and inputRequests
	server := withRelease()
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.CallToolResult); ok {
				sent.Add(int64(len(r.InputRequests)))
			}
			return res, err
		}
	})
	server.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "elicitation/create" {
				sent.Add(1)
			}
			return next(ctx, method, req)
		}
	})

	var mu sync.Mutex // guards shown and problems
	var shown, problems []string
	opts := &mcp.ClientOptions{}
	if !sc.noElicitation {
		opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			shown = append(shown, req.Params.Message)
			if p := shapeProblem(c.version, req.Params.RequestedSchema); p != "" {
				problems = append(problems, p)
			}
			for line, res := range sc.answers {
				if strings.Contains("\n"+req.Params.Message+"\n", "\n"+line+"\n") {
					return res, nil
				}
			}
			if len(shown) > len(sc.responses) {
				return nil, fmt.Errorf("form %d is one too many: %q", len(shown), req.Params.Message)
			}
			return sc.responses[len(shown)-1], nil
		}
	}
	client := sc.client
	if client == "" {
		client = "interop-client"
	}
	cs, err := connectAs(ctx, t, client, c, server, opts)
	if err != nil {
		return "", err
	}
	params := &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "web"}}
	if sc.tool == "release" {
		params = &mcp.CallToolParams{Name: "release", Arguments: map[string]any{"version": "v2"}}
	}
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		return "", err
	}
	var diffs []string
	if g := resultText(res); g != sc.want {
		diffs = append(diffs, fmt.Sprintf("result = %q (isError %v), want %q", g, res.IsError, sc.want))
	}
	mu.Lock()
	defer mu.Unlock()
	forms := len(sc.responses) + len(sc.answers)
	if len(shown) != forms || (c.transport != "stdio" && sent.Load() != int64(forms)) { // stdio: the server is another process
		diffs = append(diffs, fmt.Sprintf("%d forms sent, %d shown, want %d", sent.Load(), len(shown), forms))
	}
	if sc.forms != nil && !reflect.DeepEqual(shown, sc.forms) {
		diffs = append(diffs, fmt.Sprintf("forms shown = %q, want %q", shown, sc.forms))
	}
	return strings.Join(append(diffs, problems...), "; "), nil
}

// shapeProblem says how a form's schema uses a shape that a client on
// version does not show as choices, or returns "". A choice is an untitled
// enum (a titled oneOf is a text box on 2025-06-18); an array of them needs
// 2025-11-25.
func shapeProblem(version string, schema any) string {
	var form struct {
		Properties map[string]struct {
			Type  string          `json:"type"`
			Enum  []string        `json:"enum"`
			OneOf json.RawMessage `json:"oneOf"`
			Items *struct {
				Type  string          `json:"type"`
				Enum  []string        `json:"enum"`
				AnyOf json.RawMessage `json:"anyOf"`
			} `json:"items"`
		} `json:"properties"`
	}
	b, err := json.Marshal(schema)
	if err == nil {
		err = json.Unmarshal(b, &form)
	}
	if err != nil {
		return "form schema: " + err.Error()
	}
	choice, ok := form.Properties["choice"]
	switch {
	case !ok:
		return ""
	case choice.Type == "string" && len(choice.Enum) > 0 && choice.OneOf == nil:
		return ""
	case choice.Type == "array" && version < "2025-11-25":
		return "a multi-select sent to a " + version + " client: " + string(b)
	case choice.Type == "array" && choice.Items != nil && choice.Items.Type == "string" && len(choice.Items.Enum) > 0 && choice.Items.AnyOf == nil:
		return ""
	}
	return "choice is not an untitled enum: " + string(b)
}

// byHand calls the deploy tool in rounds by hand on 2026-07-28, as a client
// that re-serialises its arguments between rounds, and sends state that is
// tampered with, expired or for other arguments. It returns what differs, or "".
func byHand(ctx context.Context, t *testing.T) (string, error) {
	cs, err := connect(ctx, t, conn{"2026-07-28", "memory"}, newServer(), &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, fmt.Errorf("a form was sent as a request, not in inputRequests")
		},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	if err != nil {
		return "", err
	}
	// round answers every input request of res with choice and calls the
	// tool again with args and state.
	round := func(args string, res *mcp.CallToolResult, state string, choice any) (*mcp.CallToolResult, error) {
		params := &mcp.CallToolParams{Name: "deploy", Arguments: json.RawMessage(args), RequestState: state}
		if res != nil {
			params.InputResponses = mcp.InputResponseMap{}
			for id := range res.InputRequests {
				params.InputResponses[id] = accept(map[string]any{"choice": choice})
			}
		}
		return cs.CallTool(ctx, params)
	}
	text := func(res *mcp.CallToolResult) string {
		if len(res.Content) == 1 {
			if t, ok := res.Content[0].(*mcp.TextContent); ok {
				return t.Text
			}
		}
		return fmt.Sprintf("%d input requests", len(res.InputRequests))
	}
	first, err := round(`{"service": "web", "replicas": 2}`, nil, "", nil)
	if err != nil {
		return "", err
	}
	var diffs []string
	binding, _ := json.Marshal([]any{"", "deploy", map[string]any{"service": "web", "replicas": 2}})
	expired, err := (&userinteraction.Replay{}).Seal(key, string(binding), -time.Second)
	if err != nil {
		return "", err
	}
	for _, bad := range []struct{ name, args, state string }{
		{"other arguments", `{"service": "db", "replicas": 2}`, first.RequestState},
		{"tampered state", `{"service": "web", "replicas": 2}`, first.RequestState + "-TAMPERED"},
		{"expired state", `{"service": "web", "replicas": 2}`, expired},
	} {
		res, err := round(bad.args, first, bad.state, "Production")
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(string(werr.Data), `"code":"INVALID_STATE"`) {
			diffs = append(diffs, fmt.Sprintf("%s: %v, %v, want JSON-RPC error -32602 with INVALID_STATE", bad.name, res, err))
		}
	}
	second, err := round(`{"replicas": 2, "service": "web"}`, first, first.RequestState, "Production")
	if err != nil {
		return "", err
	}
	last, err := round(`{"replicas": 2.0, "service": "web"}`, second, second.RequestState, []any{"lint"})
	if err != nil {
		return "", err
	}
	if got, want := text(last), "deployed web to production after lint"; got != want || last.IsError {
		diffs = append(diffs, fmt.Sprintf("arguments spelt anew: %s (isError %v), want %q", got, last.IsError, want))
	}
	return strings.Join(diffs, "; "), nil
}

func TestInterop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, sc := range scenarios {
		on := sc.on
		if on == nil {
			on = eras
		}
		for _, c := range on {
			t.Run(c.String()+" "+sc.name, func(t *testing.T) {
				diff, err := call(ctx, t, c, sc)
				if err != nil {
					diff = err.Error()
				}
				if diff != "" {
					t.Errorf("%s  %s: %s", c, sc.name, diff)
				}
			})
		}
	}
	t.Run("2026-07-28 memory    rounds by hand", func(t *testing.T) {
		switch diff, err := byHand(ctx, t); {
		case err != nil:
			t.Error(err)
		case diff != "":
			t.Error(diff)
		}
	})
}
