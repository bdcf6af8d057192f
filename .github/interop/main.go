// Command interop proves userinteraction against the MCP Go SDK. It serves
// README's deploy tool with README's handle, drives it with the SDK's own
// client, and compares every answer with the one it expects. On protocols
// before 2026-07-28 the tool call waits while the client shows each form
// (NewForm around req.Session.Elicit), after handle has checked that the
// client can show it. On 2026-07-28 the server may not send a form while it
// serves a call, so the host runs the call in rounds (Replay, Seal,
// OpenReplay), in memory and over the SDK's stateless streamable HTTP on a
// loopback listener. README's MCP code is cut from this file, and the
// package's tests check that it still appears here verbatim and compiles.
//
// It exits with status 1, listing what differed, when any answer differs.
// .ci/run runs it: cd .github/interop && go run .
package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dsh-go/userinteraction"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// deploy is the tool: it asks before it acts, and its result says what the
// human answered.
func deploy(ctx context.Context) string {
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
	return "deployed to " + target.Text + " after " + steps.Text
}

// handle serves the deploy tool on every protocol version.
func handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	version, caps := req.ProtocolVersion(), req.ClientCapabilities() // "" and nil when unknown
	forms := version >= "2025-06-18" && caps != nil && caps.Elicitation != nil &&
		(caps.Elicitation.Form != nil || caps.Elicitation.URL == nil) // "elicitation": {} means forms
	if forms && version >= "2026-07-28" {
		return serveRound(ctx, req, deploy) // no form while serving a call: Replay
	}
	form := userinteraction.NewForm(func(ctx context.Context, f userinteraction.Elicitation) (string, map[string]any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: f.Mode, Message: f.Message, RequestedSchema: f.RequestedSchema})
		if err != nil {
			return "", nil, err
		}
		return res.Action, res.Content, nil
	})
	ask := func(ctx context.Context, r userinteraction.Request) (userinteraction.Answer, error) {
		if !forms || (r.MultiSelect && len(r.Options) > 0 && version < "2025-11-25") { // no arrays before 2025-11-25
			return userinteraction.Answer{}, userinteraction.NewError(userinteraction.CodeAskUnsupported,
				"the client cannot show this kind of question, so ask it another way", nil)
		}
		return form.Ask(ctx, r)
	}
	ctx = userinteraction.WithRegistry(ctx, &userinteraction.Registry{})
	dispose, err := userinteraction.Register(ctx, userinteraction.ProviderFunc(ask))
	if err != nil {
		return nil, err
	}
	defer dispose()
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: deploy(ctx)}}}, nil
}

// key authenticates the state that travels through the client between rounds.
// Every instance of the server needs the same key: 32 random bytes or more,
// from a secret store (here, new at each start).
var key = func() []byte {
	k := make([]byte, 32)
	rand.Read(k) // never fails since Go 1.24
	return k
}()

// serveRound serves one round of a call of tool on protocol 2026-07-28 and
// later: the questions still open go out as inputRequests, with the sealed state.
func serveRound(ctx context.Context, req *mcp.CallToolRequest, tool func(context.Context) string) (*mcp.CallToolResult, error) {
	var args any // decoded and encoded again: a client may re-serialise them between rounds
	if len(req.Params.Arguments) > 0 {
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
			return nil, err
		}
	}
	var user string // who calls, when the server authenticates its clients
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		user = req.Extra.TokenInfo.UserID
	}
	binding, _ := json.Marshal([]any{user, req.Params.Name, args}) // decoded JSON always encodes
	responses := map[string]Response{}
	for id, r := range req.Params.InputResponses {
		if res, ok := r.(*mcp.ElicitResult); ok { // the response to an elicitation/create
			responses[id] = Response{Action: res.Action, Content: res.Content}
		}
	}
	text, questions, next, err := serve(ctx, key, string(binding), req.Params.RequestState, responses, tool)
	if err != nil {
		msg, _ := json.Marshal(err) // a *HarnessError's {"name", "code", "message"}
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(msg)}}}, nil
	}
	if len(questions) == 0 {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}
	inputs := mcp.InputRequestMap{}
	for _, q := range questions {
		f := q.Elicitation() // led by q.Hint when the last response broke a rule
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
	next, err = rp.Seal(key, binding, 10*time.Minute) // send each q.Elicitation() under q.ID
	return "", questions, next, err
}

// A scenario is one tool call: the client's response to each form it is
// shown, in order, and what the call must return.
type scenario struct {
	name string
	// on lists the clients it runs on; nil means 2025-11-25 and 2026-07-28,
	// the latter both in memory and over HTTP.
	on []conn
	// noElicitation makes a client that declares no elicitation capability.
	noElicitation bool
	responses     []*mcp.ElicitResult
	want          string
	// forms are the messages of the forms the client must be shown, when
	// set: a form sent again is led by the reason.
	forms []string
}

// A conn is a client's protocol version and its transport: the SDK's
// in-memory one, or its streamable HTTP transport in stateless mode on a
// loopback listener (the only one on which go-sdk v1.8.0 serves 2026-07-28
// to a remote client).
type conn struct {
	version string
	http    bool
}

func (c conn) String() string {
	if c.http {
		return c.version + " http  "
	}
	return c.version + " memory"
}

var eras = []conn{{version: "2025-11-25"}, {version: "2026-07-28"}, {version: "2026-07-28", http: true}}

func accept(content map[string]any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: content}
}

// reasked are the forms of a call whose second response broke a rule.
var reasked = []string{
	"Deploy where?\nProduction: the live site",
	"Which steps should run first?",
	"Pick at least one option, or type your own answer.\nWhich steps should run first?",
}

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
	// The schema lets these through (the text field is optional), the
	// answer rules do not: the form goes again, led by the reason.
	{name: "an empty pick set, asked again",
		responses: []*mcp.ElicitResult{accept(map[string]any{"choice": "Production"}), accept(map[string]any{"choice": []any{}}), accept(map[string]any{"choice": []any{"test"}})},
		want:      "deployed to production after unit tests", forms: reasked},
	{name: "a response of {}, asked again",
		responses: []*mcp.ElicitResult{accept(map[string]any{"choice": "Production"}), accept(map[string]any{}), accept(map[string]any{"choice": []any{"test"}})},
		want:      "deployed to production after unit tests", forms: reasked},
	{name: "a client without elicitation: no form, no inputRequests",
		on:            append([]conn{{version: "2025-06-18"}}, eras...),
		noElicitation: true, want: "not deployed: ASK_UNSUPPORTED"},
	// 2025-06-18 has forms of strings only: a pick is shown as choices,
	// several picks are not sent at all.
	{name: "a pick shown as choices, then several picks unsupported",
		on:        []conn{{version: "2025-06-18"}},
		responses: []*mcp.ElicitResult{accept(map[string]any{"choice": "Production"})},
		want:      "not deployed to production: ASK_UNSUPPORTED", forms: reasked[:1]},
	// A stateless server keeps no session: it knows no older client's
	// capabilities and cannot send it a request during a call.
	{name: "an older client of a stateless server",
		on:   []conn{{version: "2025-11-25", http: true}},
		want: "not deployed: ASK_UNSUPPORTED"},
	{name: "no forms before 2025-06-18",
		on:   []conn{{version: "2025-03-26"}},
		want: "not deployed: ASK_UNSUPPORTED"},
}

// run calls the deploy tool once through a new server and client session on
// c, answering each form with the scenario's next response, and returns what
// differs from the scenario, or "".
func run(ctx context.Context, c conn, sc scenario) (string, error) {
	var sent atomic.Int64 // forms the server sent: elicitation/create requests and inputRequests
	server := mcp.NewServer(&mcp.Implementation{Name: "interop-server", Version: "v0"}, nil)
	server.AddTool(&mcp.Tool{Name: "deploy", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := handle(ctx, req)
			if res != nil {
				sent.Add(int64(len(res.InputRequests)))
			}
			return res, err
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
			if len(shown) > len(sc.responses) {
				return nil, fmt.Errorf("form %d is one too many: %q", len(shown), req.Params.Message)
			}
			return sc.responses[len(shown)-1], nil
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "interop-client", Version: "v0"}, opts)

	var transport mcp.Transport
	if c.http {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", err
		}
		hs := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
			&mcp.StreamableHTTPOptions{Stateless: true})}
		go hs.Serve(ln)
		defer hs.Close()
		transport = &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String(), DisableStandaloneSSE: true}
	} else {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := server.Connect(ctx, st, nil)
		if err != nil {
			return "", err
		}
		defer ss.Close()
		transport = ct
	}
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: c.version})
	if err != nil {
		return "", err
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != c.version {
		return "", fmt.Errorf("negotiated protocol %s, want %s", got, c.version)
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
	if len(shown) != len(sc.responses) || sent.Load() != int64(len(sc.responses)) {
		diffs = append(diffs, fmt.Sprintf("%d forms sent, %d shown, want %d", sent.Load(), len(shown), len(sc.responses)))
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

// rebound calls the deploy tool in rounds by hand on 2026-07-28, as a client
// that re-serialises its arguments between rounds: the state opens for the
// same arguments in another spelling, and not for other arguments. It
// returns what differs, or "".
func rebound(ctx context.Context) (string, error) {
	server := mcp.NewServer(&mcp.Implementation{Name: "interop-server", Version: "v0"}, nil)
	server.AddTool(&mcp.Tool{Name: "deploy", InputSchema: json.RawMessage(`{"type":"object"}`)}, handle)
	client := mcp.NewClient(&mcp.Implementation{Name: "interop-client", Version: "v0"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, fmt.Errorf("a form was sent as a request, not in inputRequests")
		},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		return "", err
	}
	defer ss.Close()
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		return "", err
	}
	defer cs.Close()
	// round answers every input request of res with choice and calls the
	// tool again with args.
	round := func(args string, res *mcp.CallToolResult, choice any) (*mcp.CallToolResult, error) {
		params := &mcp.CallToolParams{Name: "deploy", Arguments: json.RawMessage(args)}
		if res != nil {
			params.InputResponses = mcp.InputResponseMap{}
			for id := range res.InputRequests {
				params.InputResponses[id] = accept(map[string]any{"choice": choice})
			}
			params.RequestState = res.RequestState
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
	first, err := round(`{"service": "web", "replicas": 2}`, nil, nil)
	if err != nil {
		return "", err
	}
	var diffs []string
	other, err := round(`{"service": "db", "replicas": 2}`, first, "Production")
	if err != nil {
		return "", err
	}
	if got := text(other); !other.IsError || !strings.Contains(got, `"code":"INVALID_STATE"`) {
		diffs = append(diffs, fmt.Sprintf("other arguments: %s (isError %v), want INVALID_STATE", got, other.IsError))
	}
	second, err := round(`{"replicas": 2, "service": "web"}`, first, "Production")
	if err != nil {
		return "", err
	}
	last, err := round(`{"replicas": 2.0, "service": "web"}`, second, []any{"lint"})
	if err != nil {
		return "", err
	}
	if got, want := text(last), "deployed to production after lint"; got != want || last.IsError {
		diffs = append(diffs, fmt.Sprintf("arguments spelt anew: %s (isError %v), want %q", got, last.IsError, want))
	}
	return strings.Join(diffs, "; "), nil
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	calls, failed := 0, 0
	for _, sc := range scenarios {
		on := sc.on
		if on == nil {
			on = eras
		}
		for _, c := range on {
			calls++
			diff, err := run(ctx, c, sc)
			switch {
			case err != nil:
				diff = err.Error()
			case diff == "":
				fmt.Printf("ok   %s  %s\n", c, sc.name)
				continue
			}
			failed++
			fmt.Printf("FAIL %s  %s: %s\n", c, sc.name, diff)
		}
	}
	calls++
	switch diff, err := rebound(ctx); {
	case err != nil:
		failed++
		fmt.Printf("FAIL 2026-07-28 memory  arguments spelt anew between rounds: %v\n", err)
	case diff != "":
		failed++
		fmt.Printf("FAIL 2026-07-28 memory  arguments spelt anew between rounds: %s\n", diff)
	default:
		fmt.Println("ok   2026-07-28 memory  arguments spelt anew between rounds: the same call; other arguments: INVALID_STATE")
	}
	if failed > 0 {
		fmt.Fprintf(os.Stderr, "interop: %d of %d calls answered differently\n", failed, calls)
		os.Exit(1)
	}
}
