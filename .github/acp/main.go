// Command acp is README's migrate tool served to an editor over the Agent
// Client Protocol on stdio, with acp-go-sdk: each question goes to the human
// as a form, elicitation/create in the session and the tool call that asks.
// README's section "With ACP" shows its core, askForms, cut from this file;
// the package's tests check that the cut still appears here verbatim.
//
// A prompt names the tool to run: "migrate", or "checks" (a question of
// several picks, which migrate does not ask). client.mjs drives it with the
// official TypeScript client and acp_test.go with the Go SDK's client;
// .ci/run runs both.
package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/coder/acp-go-sdk"
	"github.com/dsh-go/userinteraction"
)

// migrate is a tool: it asks before it acts.
func migrate(ctx context.Context) string {
	ans, err := userinteraction.Ask(ctx, userinteraction.Request{
		Question: "Run migration 42 on production?",
		Options: []userinteraction.Option{
			{Label: "Run it", Value: "run"},
			{Label: "Dry run first", Value: "dry-run", Recommended: true, Description: "prints the statements, changes nothing"},
		},
	})
	if err != nil {
		return "not migrated: " + userinteraction.CodeOf(err)
	}
	return "migration mode: " + ans.Text
}

// checks is a tool whose question takes several picks.
func checks(ctx context.Context) string {
	ans, err := userinteraction.Ask(ctx, userinteraction.Request{Question: "Which checks run first?", MultiSelect: true,
		Options: []userinteraction.Option{{Label: "lint"}, {Label: "test"}, {Label: "build"}}})
	if err != nil {
		return "no checks: " + userinteraction.CodeOf(err)
	}
	return "checks: " + ans.Text
}

var tools = map[string]func(context.Context) string{"migrate": migrate, "checks": checks}

func main() {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))) // the SDK logs each closed connection at Info
	<-serve(os.Stdin, os.Stdout)
}

// agent serves one client: its four methods, on the SDK's Connection.
type agent struct {
	conn  *acp.Connection
	ready chan struct{}          // closed once conn is set
	mu    sync.Mutex             // guards the fields below
	caps  acp.ClientCapabilities // what the client declared at initialize
	turns map[acp.SessionId]context.CancelFunc
}

// serve serves the agent on in and out; the channel closes when the client
// goes away.
func serve(in io.Reader, out io.Writer) <-chan struct{} {
	a := &agent{ready: make(chan struct{}), turns: map[acp.SessionId]context.CancelFunc{}}
	a.conn = acp.NewConnection(a.handle, out, in)
	close(a.ready)
	return a.conn.Done()
}

// handle serves initialize, session/new, session/prompt and session/cancel
// on an acp.Connection of its own, not through the SDK's AgentSideConnection:
// that one keeps its Connection unexported, and askForms sends a plain
// request on it.
func (a *agent) handle(ctx context.Context, method string, params json.RawMessage) (any, *acp.RequestError) {
	<-a.ready
	switch method {
	case acp.AgentMethodInitialize:
		var p acp.InitializeRequest
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, acp.NewInvalidParams(err.Error())
		}
		a.mu.Lock()
		a.caps = p.ClientCapabilities
		a.mu.Unlock()
		return acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersionNumber,
			AgentInfo: &acp.Implementation{Name: "migrator", Version: "v1"}}, nil
	case acp.AgentMethodSessionNew:
		return acp.NewSessionResponse{SessionId: acp.SessionId(rand.Text())}, nil
	case acp.AgentMethodSessionPrompt:
		var p acp.PromptRequest
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, acp.NewInvalidParams(err.Error())
		}
		return a.prompt(ctx, p), nil
	case acp.AgentMethodSessionCancel:
		var p acp.CancelNotification
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, acp.NewInvalidParams(err.Error())
		}
		a.mu.Lock()
		if cancel := a.turns[p.SessionId]; cancel != nil {
			cancel()
		}
		a.mu.Unlock()
		return nil, nil
	}
	return nil, acp.NewMethodNotFound(method)
}

// prompt runs the tool the prompt names as one tool call, whose result is
// the call's content, and ends the turn cancelled once session/cancel came.
func (a *agent) prompt(ctx context.Context, p acp.PromptRequest) acp.PromptResponse {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a.mu.Lock()
	a.turns[p.SessionId] = cancel
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.turns, p.SessionId)
		a.mu.Unlock()
	}()
	var name string
	if len(p.Prompt) > 0 && p.Prompt[0].Text != nil {
		name = p.Prompt[0].Text.Text
	}
	tool, call := tools[name], acp.ToolCallId("call_"+rand.Text())
	if tool == nil {
		a.update(ctx, p.SessionId, acp.UpdateAgentMessageText(`no tool "`+name+`": say "migrate" or "checks"`))
		return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}
	}
	a.update(ctx, p.SessionId, acp.StartToolCall(call, name, acp.WithStartStatus(acp.ToolCallStatusInProgress)))
	a.mu.Lock()
	form := askForms(a.conn, a.caps, p.SessionId, call)
	a.mu.Unlock()
	ctx = userinteraction.WithRegistry(ctx, &userinteraction.Registry{})
	dispose, _ := userinteraction.Register(ctx, form) // a new registry: no error
	result := tool(ctx)
	dispose()
	a.update(ctx, p.SessionId, acp.UpdateToolCall(call, acp.WithUpdateStatus(acp.ToolCallStatusCompleted),
		acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(result))})))
	if ctx.Err() != nil {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}
}

// update sends a session/update, also once the turn was cancelled: ACP wants
// a turn's last updates before its cancelled stop.
func (a *agent) update(ctx context.Context, session acp.SessionId, u acp.SessionUpdate) {
	_ = a.conn.SendNotification(context.WithoutCancel(ctx), acp.ClientMethodSessionUpdate,
		acp.SessionNotification{SessionId: session, Update: u})
}

// askForms returns a tool call's UI: a Form that sends each question as elicitation/create in that
// session and tool call, or fails with ASK_UNSUPPORTED when the client declared no elicitation.form.
func askForms(conn *acp.Connection, caps acp.ClientCapabilities, session acp.SessionId, call acp.ToolCallId) *userinteraction.Form {
	return userinteraction.NewForm(func(ctx context.Context, f userinteraction.Elicitation) (string, map[string]any, error) {
		if caps.Elicitation == nil || caps.Elicitation.Form == nil {
			return "", nil, userinteraction.NewError(userinteraction.CodeAskUnsupported, "the editor shows no forms: ask another way", nil)
		}
		// A plain request: acp-go-sdk's typed UnstableCreateElicitation has no
		// sessionId, and the official TypeScript client refuses a form without it.
		res, err := acp.SendRequest[struct {
			Action  string         `json:"action"`
			Content map[string]any `json:"content"`
		}](conn, ctx, acp.ClientMethodElicitationCreate, struct {
			userinteraction.Elicitation
			SessionID  acp.SessionId  `json:"sessionId"`
			ToolCallID acp.ToolCallId `json:"toolCallId"`
		}{f, session, call})
		return res.Action, res.Content, err
	})
}
