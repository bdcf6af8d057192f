package main

// What a hostile client sends README's host on 2026-07-28, round by round
// (the SDK's client with its own round loop off): answers to questions that
// were not pending, responses of shapes no form asked for, and state that
// was never sealed. Each is refused with a code, asked again, or ignored;
// none answers a question, panics, or costs more than it sent.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dsh-go/userinteraction"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostileSession connects a 2026-07-28 client that drives rounds by hand.
func hostileSession(ctx context.Context, t testing.TB) *mcp.ClientSession {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := newServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "hostile", Version: "v0"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("a form was sent as a request, not in inputRequests")
		},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	}).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// deployRound calls deploy for service web with state and responses.
func deployRound(ctx context.Context, cs *mcp.ClientSession, state string, responses mcp.InputResponseMap) (*mcp.CallToolResult, error) {
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "web"},
		RequestState: state, InputResponses: responses})
}

// onlyID returns the ID of res's one input request, or "".
func onlyID(res *mcp.CallToolResult) string {
	if len(res.InputRequests) != 1 {
		return ""
	}
	for id := range res.InputRequests {
		return id
	}
	return ""
}

// resultText returns the text of res, or a count of its input requests. The
// text of a failed call (isError) is cut after its error's code: "not
// deployed: ASK_DECLINED" of "not deployed: ASK_DECLINED: the user declined
// to answer".
func resultText(res *mcp.CallToolResult) string {
	if len(res.Content) == 1 {
		if t, ok := res.Content[0].(*mcp.TextContent); ok {
			if m := codeAt.FindStringSubmatch(t.Text); res.IsError && m != nil {
				return m[1]
			}
			return t.Text
		}
	}
	return fmt.Sprintf("%d input requests", len(res.InputRequests))
}

// codeAt finds the text up to an error's code.
var codeAt = regexp.MustCompile(`^(.*?[A-Z]+(?:_[A-Z]+)+): `)

// roundText returns the text of res, or, when res asks question id again,
// "asked again: " and the first line of its form: the hint.
func roundText(res *mcp.CallToolResult, id string) string {
	if onlyID(res) == id {
		return "asked again: " + strings.SplitN(res.InputRequests[id].(*mcp.ElicitParams).Message, "\n", 2)[0]
	}
	return resultText(res)
}

// secondID returns the ID deploy's second question has once the first, q1,
// is answered: any client can compute it, since IDs are frozen.
func secondID(t testing.TB, q1 string) string {
	rp := &userinteraction.Replay{}
	rp.Record(q1, userinteraction.Answer{Option: &userinteraction.Option{Label: "Production"}}, nil)
	qs := rp.Run(context.Background(), func(ctx context.Context) { _, _ = deploy(ctx, map[string]any{"service": "web"}) })
	if len(qs) != 1 {
		t.Fatalf("Run() = %d pending, want 1", len(qs))
	}
	return qs[0].ID
}

// An answer to a question the state does not hold as pending is never
// recorded: not the next question's, whose ID a client can compute, not
// one sent without state, and not thousands of made-up ones.
func TestHostileResponsesNotPending(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := hostileSession(ctx, t)
	first, err := deployRound(ctx, cs, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	q1 := onlyID(first)
	q2 := secondID(t, q1)
	production := accept(map[string]any{"choice": "Production"})
	build := accept(map[string]any{"choice": []any{"build"}})

	noState, err := deployRound(ctx, cs, "", mcp.InputResponseMap{q1: production, q2: build})
	if err != nil || onlyID(noState) != q1 {
		t.Errorf("answers without state: %v, %v, want question %s asked again", resultText(noState), err, q1)
	}

	junk := mcp.InputResponseMap{q1: production, q2: build}
	for i := 0; i < 5000; i++ {
		junk[fmt.Sprintf("%032x", i)] = production
	}
	second, err := deployRound(ctx, cs, first.RequestState, junk)
	if err != nil {
		t.Fatal(err)
	}
	if got := onlyID(second); got != q2 {
		t.Fatalf("round 2 = %s, want question %s still asked (its answer came before it was)", resultText(second), q2)
	}
	last, err := deployRound(ctx, cs, second.RequestState, mcp.InputResponseMap{q2: accept(map[string]any{"choice": []any{"lint"}}), q1: accept(map[string]any{"choice": "Staging"})})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resultText(last), "deployed web to production after lint"; got != want {
		t.Errorf("round 3 = %q, want %q (the first answer kept, the late one ignored)", got, want)
	}
}

// Responses of shapes no form asked for: a coded result, or the question
// asked again, never an answer the human did not give.
func TestHostileResponseShapes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := hostileSession(ctx, t)
	first, err := deployRound(ctx, cs, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	q1 := onlyID(first)
	many := func(n int, v any) []any {
		s := make([]any, n)
		for i := range s {
			s[i] = v
		}
		return s
	}
	for _, tc := range []struct {
		name string
		res  *mcp.ElicitResult
		want string // the result's text, or "asked again: " and the hint
	}{
		{"choice an object", accept(map[string]any{"choice": map[string]any{"label": "Production"}}), "not deployed: INVALID_ANSWER"},
		{"choice nested arrays", accept(map[string]any{"choice": []any{[]any{[]any{"Production"}}}}), "not deployed: INVALID_ANSWER"},
		{"choice a number", accept(map[string]any{"choice": 1}), "not deployed: INVALID_ANSWER"},
		{"text a boolean", accept(map[string]any{"text": true}), "not deployed: INVALID_ANSWER"},
		{"unknown action", &mcp.ElicitResult{Action: "ACCEPT"}, "not deployed: INVALID_ANSWER"},
		{"a label not offered", accept(map[string]any{"choice": "Prod\u202euction"}), "asked again: \"Prod\\u202euction\" is not one of the options: pick one of those listed."},
		{"10,000 picks of one option", accept(map[string]any{"choice": many(10000, "Production")}), "asked again: Pick only one option."},
		{"an empty accept", accept(nil), "asked again: Pick an option, or type your own answer."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := deployRound(ctx, cs, first.RequestState, mcp.InputResponseMap{q1: tc.res})
			if err != nil {
				t.Fatal(err)
			}
			if got := roundText(res, q1); got != tc.want {
				t.Errorf("round 2 = %q, want %q", got, tc.want)
			}
		})
	}
}

// State the server never sealed is INVALID_STATE, however long or odd.
func TestHostileState(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := hostileSession(ctx, t)
	for _, state := range []string{".", "..", "A.A", strings.Repeat("A", 1<<20) + ".AAAA", "eyJ2Ijo0fQ." + strings.Repeat("_", 43), "a b", "\x00.\x00", "é.é"} {
		res, err := deployRound(ctx, cs, state, mcp.InputResponseMap{"x": accept(map[string]any{"choice": "Production"})})
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(string(werr.Data), `"code":"INVALID_STATE"`) {
			t.Errorf("state %.20q: %v, %v, want JSON-RPC error -32602 with INVALID_STATE", state, res, err)
		}
	}
}

// BenchmarkHostilePicks measures a round whose response holds n picks of
// one label, for n and 10n in one run: the server's cost must stay linear.
func BenchmarkHostilePicks(b *testing.B) {
	ctx := context.Background()
	cs := hostileSession(ctx, b)
	first, err := deployRound(ctx, cs, "", nil)
	if err != nil {
		b.Fatal(err)
	}
	q1 := onlyID(first)
	for _, n := range []int{1000, 10000, 100000} {
		picks := make([]any, n)
		for i := range picks {
			picks[i] = "Production"
		}
		raw, _ := json.Marshal(picks)
		b.Run(fmt.Sprintf("picks=%d/bytes=%d", n, len(raw)), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := deployRound(ctx, cs, first.RequestState, mcp.InputResponseMap{q1: accept(map[string]any{"choice": picks})}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A 2025-11-25 client that never answers its form, then gives up the call:
// the server's handler returns (its Form honours ctx), so no goroutine of
// the call outlives it. One whose response comes after it gave up changes
// nothing.
func TestHostileFormNeverAnswers(t *testing.T) {
	for _, late := range []bool{false, true} {
		t.Run(fmt.Sprintf("late response %v", late), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			server := newServer()
			returned := make(chan error, 1)
			server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					res, err := next(ctx, method, req)
					if method == "tools/call" {
						returned <- ctx.Err()
					}
					return res, err
				}
			})
			st, ct := mcp.NewInMemoryTransports()
			ss, err := server.Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			shown, release := make(chan struct{}), make(chan struct{})
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "hostile", Version: "v0"}, &mcp.ClientOptions{
				ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					close(shown)
					if late {
						<-release // ignores ctx
					} else {
						<-ctx.Done()
					}
					return accept(map[string]any{"choice": "Production"}), nil
				},
			}).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			defer close(release) // before Close, which waits for the handler
			callCtx, giveUp := context.WithCancel(ctx)
			called := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "web"}})
				called <- err
			}()
			<-shown
			giveUp()
			if err := <-called; err == nil {
				t.Errorf("CallTool() = nil, want the client's own cancellation")
			}
			select {
			case <-returned:
			case <-ctx.Done(): // a failure, not synchronisation
				t.Fatal("the server's handler still waits for a form the client gave up")
			}
		})
	}
}

// Arguments of hostile shapes are the tool's business: the host binds its
// state to them as decoded, or the SDK refuses them (mcp.AddTool checks them
// against the tool's input schema: a result with isError), or a JSON-RPC
// error does, and nothing panics.
func TestHostileArguments(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct{ name, args string }{
		{"nested 500 deep", `{"service":"web","x":` + strings.Repeat("[", 500) + strings.Repeat("]", 500) + `}`},
		// The SDK reads no message nested deeper than 1,000 (it ends the
		// session), so this is the deepest the host sees.
		{"nested 990 deep", `{"service":"web","x":` + strings.Repeat(`{"a":`, 990) + "1" + strings.Repeat("}", 990) + `}`},
		{"a number past float64", `{"service":"web","x":1e400}`},
		{"a 1 MB string", `{"service":"` + strings.Repeat("w", 1<<20) + `"}`},
		{"not an object", `[1,2]`},
		{"a key twice", `{"service":"web","service":"db"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := hostileSession(ctx, t)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: json.RawMessage(tc.args)})
			var werr *jsonrpc.Error
			switch {
			case errors.As(err, &werr):
			case err == nil && res.IsError:
			case err != nil:
				t.Errorf("CallTool() = %v, want a result or a JSON-RPC error", err)
			case len(res.InputRequests) != 1 || res.RequestState == "":
				t.Errorf("CallTool() = %s, want the first question and state", resultText(res))
			}
		})
	}
}

// BenchmarkHostileArguments measures a first round whose arguments hold a
// string of n and 10n bytes, in one run.
func BenchmarkHostileArguments(b *testing.B) {
	ctx := context.Background()
	cs := hostileSession(ctx, b)
	for _, n := range []int{100 << 10, 1 << 20} {
		args := json.RawMessage(`{"service":"` + strings.Repeat("w", n) + `"}`)
		b.Run(fmt.Sprintf("bytes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The second question takes several picks: thousands of one label are asked
// again, a megabyte of the human's own words is their answer.
func TestHostileMultiSelect(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := hostileSession(ctx, t)
	first, err := deployRound(ctx, cs, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	second, err := deployRound(ctx, cs, first.RequestState, mcp.InputResponseMap{onlyID(first): accept(map[string]any{"choice": "Production"})})
	if err != nil {
		t.Fatal(err)
	}
	q2 := onlyID(second)
	lints := make([]any, 5000)
	for i := range lints {
		lints[i] = "lint"
	}
	words := strings.Repeat("w", 1<<20)
	for _, tc := range []struct {
		name string
		res  *mcp.ElicitResult
		want string
	}{
		{"5,000 picks of one label", accept(map[string]any{"choice": lints}), "asked again: Pick each option only once."},
		{"5,000 picks and a label not offered", accept(map[string]any{"choice": append([]any{"deploy"}, lints...)}), "asked again: \"deploy\" is not one of the options: pick one of those listed."},
		{"a megabyte of own words", accept(map[string]any{"choice": []any{}, "text": words}), "deployed web to production after " + words},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := deployRound(ctx, cs, second.RequestState, mcp.InputResponseMap{q2: tc.res})
			if err != nil {
				t.Fatal(err)
			}
			if got := roundText(res, q2); got != tc.want {
				t.Errorf("round 3 = %.80q, want %.80q", got, tc.want)
			}
		})
	}
}

// On 2025-11-25 the SDK checks a form's response against its schema before
// the host sees it: a response of the wrong shape is the SDK's error, which
// the registry makes PROVIDER_FAILED, where the same response on 2026-07-28
// reaches ElicitationAnswer and is INVALID_ANSWER. Both end the question
// with a code, and neither answers it.
func TestHostileFormShapes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct {
		name string
		res  *mcp.ElicitResult
		want string
	}{
		{"choice an object", accept(map[string]any{"choice": map[string]any{"label": "Production"}}), "not deployed: PROVIDER_FAILED"},
		{"choice a label not offered", accept(map[string]any{"choice": "Prod"}), "not deployed: PROVIDER_FAILED"},
		{"text a number", accept(map[string]any{"text": 5}), "not deployed: PROVIDER_FAILED"},
		{"unknown action", &mcp.ElicitResult{Action: "ACCEPT"}, "not deployed: INVALID_ANSWER"},
		{"a megabyte of own words", accept(map[string]any{"text": strings.Repeat("w", 1<<20)}), "not deployed to " + strings.Repeat("w", 1<<20) + ": ASK_CANCELLED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, ct := mcp.NewInMemoryTransports()
			ss, err := newServer().Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			n := 0
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "hostile", Version: "v0"}, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					n++
					if n > 1 {
						return &mcp.ElicitResult{Action: "cancel"}, nil
					}
					return tc.res, nil
				},
			}).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "web"}})
			if err != nil {
				t.Fatal(err)
			}
			if got := resultText(res); got != tc.want {
				t.Errorf("CallTool() = %.80q, want %.80q", got, tc.want)
			}
		})
	}
}

// From 2026-07-28 on the SDK's client runs the rounds itself, and checks each
// response against the form's schema before it sends it: one of another shape
// fails the client's own call, and no round reaches the server. So the re-ask
// with a hint reaches a go-sdk user only for a response that follows the
// schema and breaks a rule (TestInterop's empty pick set); a client that
// drives the rounds itself reaches ElicitationAnswer (TestHostileResponseShapes).
func TestHostileSchemaChecksFirst(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, res := range []*mcp.ElicitResult{
		accept(map[string]any{"choice": "Prod"}),
		accept(map[string]any{"text": 5}),
	} {
		var rounds atomic.Int64
		server := newServer()
		server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/call" {
					rounds.Add(1)
				}
				return next(ctx, method, req)
			}
		})
		cs, err := connect(ctx, t, conn{"2026-07-28", "memory"}, server, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return res, nil },
		})
		if err != nil {
			t.Fatal(err)
		}
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "web"}})
		if err == nil || !strings.Contains(err.Error(), "does not match requested schema") || rounds.Load() != 1 {
			t.Errorf("response %v: CallTool() = %v after %d rounds, want the client's own schema error after 1", res.Content, err, rounds.Load())
		}
	}
}
