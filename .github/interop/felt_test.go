package main

// The figures a user feels: what README's host adds to a served MCP round,
// against a hand-written host of the same tool that signs its own state
// with HMAC and uses no package, as a share of a plain tool call's round.
// go-sdk v1.8.0's client and server talk over its in-memory transport, the
// fastest there is, so the worst case for the share. Each benchmark runs
// its variants in turn in every iteration, in one process, so that the
// machine's drift and each variant's garbage fall on all of them alike; it
// reports each variant's time a round (ns/round) and the shares (ratios.awk
// prints them with their goals):
//
//	FeltOne    one question: the first round (the question goes out with
//	           the state) and the last (the answer comes in)
//	FeltTen    ten questions in one AskAll, the same two rounds
//	FeltForm   protocol 2025-11-25: a question through README's handler
//	           (NewForm around Elicit) and a hand-written elicitation/create
//	           of the same enum shape, read by hand
//	FeltSeal   Seal and OpenReplay of ten answers, against golang-jwt's HS256
//	           sign and parse of the same content

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dsh-go/userinteraction"
	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var whereTo = userinteraction.Request{Header: "Target", Question: "Deploy where?",
	Options: []userinteraction.Option{{Label: "Staging", Value: "staging", Recommended: true},
		{Label: "Production", Value: "production", Description: "the live site"}}}

// askOne is a tool with one question.
func askOne(ctx context.Context, _ map[string]any) (string, error) {
	ans, err := userinteraction.Ask(ctx, whereTo)
	if err != nil {
		return "", err
	}
	return "deployed to " + ans.Text, nil
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
func askTen(ctx context.Context, _ map[string]any) (string, error) {
	answers, err := userinteraction.AskAll(ctx, tenQuestions)
	if err != nil {
		return "", err
	}
	return "deployed to " + answers[9].Text, nil
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// handKey is the hand-written host's own HMAC key.
var handKey = []byte("the hand-written host's key, 32 bytes or more")

// handState is the hand-written host's state: what it has asked, for which
// call, until when, with the answers so far.
type handState struct {
	Call    string            `json:"call"`
	Expires int64             `json:"exp"`
	Answers map[string]string `json:"answers"`
	Asked   []string          `json:"asked"`
}

// handSign returns s, signed: base64url JSON, a dot, and its HMAC-SHA256.
func handSign(s handState) (string, error) {
	payload, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	h := hmac.New(sha256.New, handKey)
	h.Write(payload)
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(h.Sum(nil)), nil
}

// handOpen returns the state that handSign signed in state, for call.
func handOpen(state, call string) (handState, error) {
	var s handState
	payload, sum, _ := strings.Cut(state, ".")
	data, err1 := base64.RawURLEncoding.DecodeString(payload)
	got, err2 := base64.RawURLEncoding.DecodeString(sum)
	h := hmac.New(sha256.New, handKey)
	h.Write(data)
	if err1 != nil || err2 != nil || !hmac.Equal(got, h.Sum(nil)) {
		return s, errors.New("invalid state")
	}
	if err := json.Unmarshal(data, &s); err != nil || s.Call != call || time.Now().UnixMilli() > s.Expires {
		return s, errors.New("invalid state")
	}
	return s, nil
}

// handForm is the form of one whereTo question, written by hand in the
// shape NewForm sends.
func handForm(question string) *mcp.ElicitParams {
	return &mcp.ElicitParams{Mode: "form", Message: question + "\nProduction: the live site",
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
			"choice": map[string]any{"type": "string", "title": "Target", "enum": []any{"Staging", "Production"}, "default": "Staging"},
			"text":   map[string]any{"type": "string", "title": "Other"},
		}}}
}

// handAnswer reads the response to a whereTo form by hand.
func handAnswer(r mcp.InputResponse) (string, error) {
	res, ok := r.(*mcp.ElicitResult)
	if !ok || res.Action != "accept" {
		return "", errors.New("no answer")
	}
	if t, _ := res.Content["text"].(string); t != "" {
		return t, nil
	}
	switch res.Content["choice"] {
	case "Staging":
		return "staging", nil
	case "Production":
		return "production", nil
	}
	return "", fmt.Errorf("no such choice: %v", res.Content["choice"])
}

// handHost is what a server without the package writes for a tool that asks
// questions in one round on 2026-07-28: the questions go out as
// inputRequests with its own signed state, and the next round reads the
// answers.
func handHost(questions []string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if caps := req.ClientCapabilities(); caps == nil || caps.Elicitation == nil { // no inputRequests it cannot fulfil
			return text("not deployed: the client shows no forms"), nil
		}
		call := req.Params.Name + "\n" + string(req.Params.Arguments)
		if req.Params.RequestState == "" {
			inputs := mcp.InputRequestMap{}
			s := handState{Call: call, Expires: time.Now().Add(10 * time.Minute).UnixMilli(), Answers: map[string]string{}}
			for i, q := range questions {
				id := fmt.Sprint("q", i)
				inputs[id] = handForm(q)
				s.Asked = append(s.Asked, id)
			}
			state, err := handSign(s)
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{InputRequests: inputs, RequestState: state}, nil
		}
		s, err := handOpen(req.Params.RequestState, call)
		if err != nil {
			return nil, err
		}
		for _, id := range s.Asked {
			ans, err := handAnswer(req.Params.InputResponses[id])
			if err != nil {
				return nil, err
			}
			s.Answers[id] = ans
		}
		return text("deployed to " + s.Answers[s.Asked[len(s.Asked)-1]]), nil
	}
}

// benchTools are the hand-written tools the benchmarks call; benchSession
// adds askOne and askTen through README's handler as "one" and "ten".
var benchTools = map[string]mcp.ToolHandler{
	"plain": func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("deployed to production"), nil
	},
	"one-hand": handHost([]string{whereTo.Question}),
	"ten-hand": handHost(func() (qs []string) {
		for _, r := range tenQuestions {
			qs = append(qs, r.Question)
		}
		return qs
	}()),
	// elicit-hand asks whereTo with a hand-written form and reads the
	// response by hand: what a server without the package writes.
	"elicit-hand": func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, handForm(whereTo.Question))
		if err != nil {
			return nil, err
		}
		ans, err := handAnswer(res)
		if err != nil {
			return nil, err
		}
		return text("deployed to " + ans), nil
	},
}

// benchSession connects the SDK's client to a server of benchTools on
// version, in memory, and closes both when b ends. The client answers every
// form with Production and leaves the rounds to the caller.
func benchSession(b *testing.B, version string) *mcp.ClientSession {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "bench-server", Version: "v0"}, nil)
	for name, h := range benchTools {
		server.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, h)
	}
	for name, tool := range map[string]func(context.Context, map[string]any) (string, error){"one": askOne, "ten": askTen} {
		mcp.AddTool(server, &mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, handler(tool))
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

// A variant is one round that a benchmark times: a tool call with params,
// whose result's text must be want, or which must ask questions when want
// is "".
type variant struct {
	name   string
	params *mcp.CallToolParams
	want   string
}

// roundTrip calls v's tool once and checks its result.
func roundTrip(b *testing.B, cs *mcp.ClientSession, v variant) *mcp.CallToolResult {
	res, err := cs.CallTool(context.Background(), v.params)
	if err != nil {
		b.Fatal(err)
	}
	if v.want == "" {
		if len(res.InputRequests) == 0 {
			b.Fatalf("CallTool(%s) asked no question", v.name)
		}
		return res
	}
	if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != v.want {
		b.Fatalf("CallTool(%s) = %+v, want %q", v.name, res.Content, v.want)
	}
	return res
}

// rounds returns the first and the last round of a call of tool, whose
// questions are all answered with Production.
func rounds(b *testing.B, cs *mcp.ClientSession, tool string) (first, last variant) {
	first = variant{tool + "-ask", &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}}, ""}
	asked := roundTrip(b, cs, first)
	responses := mcp.InputResponseMap{}
	for id := range asked.InputRequests {
		responses[id] = accept(map[string]any{"choice": "Production"})
	}
	last = variant{tool + "-answer", &mcp.CallToolParams{Name: tool, Arguments: map[string]any{},
		InputResponses: responses, RequestState: asked.RequestState}, "deployed to production"}
	return first, last
}

// interleave runs each of variants once per iteration, in turn, and reports
// the time of each a round, as "ns/<name>".
func interleave(b *testing.B, run func(i int), names ...string) {
	total := make([]time.Duration, len(names))
	for i := range names {
		run(i) // warm
	}
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for i := range names {
			start := time.Now()
			run(i)
			total[i] += time.Since(start)
		}
	}
	for i, name := range names {
		b.ReportMetric(float64(total[i].Nanoseconds())/float64(b.N), "ns/"+name)
	}
}

// benchFelt interleaves a plain round with the first and last rounds of tool
// through README's host and through the hand-written one.
func benchFelt(b *testing.B, tool string) {
	cs := benchSession(b, "2026-07-28")
	plain := variant{"plain", &mcp.CallToolParams{Name: "plain", Arguments: map[string]any{}}, "deployed to production"}
	ask, answer := rounds(b, cs, tool)
	handAsk, handAnswer := rounds(b, cs, tool+"-hand")
	variants := []variant{plain, ask, handAsk, answer, handAnswer}
	interleave(b, func(i int) { roundTrip(b, cs, variants[i]) }, "plain", "ask", "hand-ask", "answer", "hand-answer")
}

func BenchmarkFeltOne(b *testing.B) { benchFelt(b, "one") }
func BenchmarkFeltTen(b *testing.B) { benchFelt(b, "ten") }

// BenchmarkFeltForm interleaves a question through README's handler on
// 2025-11-25, where it waits on NewForm around Elicit, with the
// hand-written elicitation of the same form.
func BenchmarkFeltForm(b *testing.B) {
	cs := benchSession(b, "2025-11-25")
	variants := []variant{
		{"one", &mcp.CallToolParams{Name: "one", Arguments: map[string]any{}}, "deployed to production"},
		{"elicit-hand", &mcp.CallToolParams{Name: "elicit-hand", Arguments: map[string]any{}}, "deployed to production"},
	}
	interleave(b, func(i int) { roundTrip(b, cs, variants[i]) }, "form", "hand")
}

// BenchmarkFeltSeal interleaves Seal and OpenReplay of a record of ten
// answers with golang-jwt v5's HS256 sign and parse of the same content:
// the sealed payload as claims.
func BenchmarkFeltSeal(b *testing.B) {
	const binding = `["alice","deploy",{}]`
	rp := &userinteraction.Replay{}
	for i := 0; i < 10; i++ {
		var ask userinteraction.Replay
		_, _ = ask.Ask(context.Background(), userinteraction.Request{Question: fmt.Sprint("Question ", i)})
		rp.Record(ask.Pending()[0].ID, userinteraction.Answer{Text: "production",
			Option: &userinteraction.Option{Label: "Production", Value: "production"}, Via: "mcp:bench-client"}, nil)
	}
	state, err := rp.Seal(key, binding, time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	payload, _ := base64.RawURLEncoding.DecodeString(strings.Split(state, ".")[0])
	var claims jwt.MapClaims
	if err := json.Unmarshal(payload, &claims); err != nil {
		b.Fatal(err)
	}
	token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(key)
	if err != nil {
		b.Fatal(err)
	}
	parser := jwt.NewParser(jwt.WithValidMethods([]string{"HS256"}))
	keyFunc := func(*jwt.Token) (any, error) { return key, nil }
	steps := []func() error{
		func() error { _, err := rp.Seal(key, binding, time.Hour); return err },
		func() error {
			_, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(key)
			return err
		},
		func() error { _, err := userinteraction.OpenReplay(key, binding, state); return err },
		func() error { _, err := parser.ParseWithClaims(token, jwt.MapClaims{}, keyFunc); return err },
	}
	interleave(b, func(i int) {
		if err := steps[i](); err != nil {
			b.Fatal(err)
		}
	}, "seal", "jwt-sign", "open", "jwt-parse")
}
