package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/acp-go-sdk"
)

// A testCase is a row of cases.json, which client.mjs runs too: a prompt,
// the forms the client expects and how it answers each, and the tool's
// result it expects.
type testCase struct {
	Name    string     `json:"name"`
	NoForms bool       `json:"noForms"` // the client declares no elicitation.form
	Prompt  string     `json:"prompt"`
	Result  string     `json:"result"`
	Stop    string     `json:"stop"` // "" is end_turn
	Forms   []formCase `json:"forms"`
}

// A formCase is one form the client expects: its message starts with
// Message, and the client answers Action with Content. The Action "cancel
// the turn" sends session/cancel and waits until the agent withdraws the
// form.
type formCase struct {
	Message string         `json:"message"`
	Action  string         `json:"action"`
	Content map[string]any `json:"content"`
}

// TestGoClient runs cases.json with acp-go-sdk's client side, over pipes to
// the agent, one connection per case.
func TestGoClient(t *testing.T) {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))) // not each "connection closed"
	b, err := os.ReadFile("cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []testCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) { runCase(t, tc) })
	}
}

func runCase(t *testing.T, tc testCase) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	agentIn, toAgent := io.Pipe()
	fromAgent, agentOut := io.Pipe()
	c := &client{t: t, forms: tc.Forms}
	done := serve(agentIn, io.MultiWriter(&c.wire, agentOut)) // the wire first: it holds a form before the client reads it
	c.conn = acp.NewClientSideConnection(c, toAgent, fromAgent)
	defer func() {
		toAgent.Close()
		<-done
	}()

	caps := acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}}
	if tc.NoForms {
		caps = acp.ClientCapabilities{}
	}
	if _, err := c.conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber, ClientCapabilities: caps}); err != nil {
		t.Fatal(err)
	}
	s, err := c.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: "/", McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	c.session = s.SessionId
	res, err := c.conn.Prompt(ctx, acp.PromptRequest{SessionId: s.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock(tc.Prompt)}})
	if err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if want := cmpOr(tc.Stop, "end_turn"); string(res.StopReason) != want {
		t.Errorf("stop reason %q, want %q", res.StopReason, want)
	}
	if c.result != tc.Result {
		t.Errorf("the tool's result %q, want %q", c.result, tc.Result)
	}
	if c.asked != len(tc.Forms) {
		t.Errorf("%d forms, want %d", c.asked, len(tc.Forms))
	}
	// What the typed request of the Go SDK drops: the form's session and tool call.
	for _, line := range strings.Split(c.wire.String(), "\n") {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Mode       string `json:"mode"`
				SessionID  string `json:"sessionId"`
				ToolCallID string `json:"toolCallId"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(line), &m) != nil || m.Method != acp.ClientMethodElicitationCreate {
			continue
		}
		if p := m.Params; p.Mode != "form" || p.SessionID != string(c.session) || p.ToolCallID != string(c.call) || p.ToolCallID == "" {
			t.Errorf("elicitation/create in mode %q, session %q, tool call %q, want form, %q, %q", p.Mode, p.SessionID, p.ToolCallID, c.session, c.call)
		}
	}
}

// client is the editor: it answers each form as its case says.
type client struct {
	acp.Client // the methods this agent never calls
	t          *testing.T
	conn       *acp.ClientSideConnection
	wire       wire // what the agent sent
	mu         sync.Mutex
	forms      []formCase
	session    acp.SessionId
	call       acp.ToolCallId // the tool call the agent started
	asked      int            // forms received
	result     string         // the tool call's content
}

func (c *client) UnstableCreateElicitation(ctx context.Context, p acp.UnstableCreateElicitationRequest) (acp.UnstableCreateElicitationResponse, error) {
	c.mu.Lock()
	n := c.asked
	c.asked++
	c.mu.Unlock()
	if n >= len(c.forms) || p.Form == nil {
		c.t.Errorf("form %d: not expected", n+1)
		return acp.UnstableCreateElicitationResponse{Cancel: &acp.UnstableCreateElicitationCancel{Action: "cancel"}}, nil
	}
	want := c.forms[n]
	if !strings.HasPrefix(p.Form.Message, want.Message) {
		c.t.Errorf("form %d says %q, want it to start with %q", n+1, p.Form.Message, want.Message)
	}
	switch want.Action {
	case "cancel the turn":
		if err := c.conn.Cancel(ctx, acp.CancelNotification{SessionId: c.session}); err != nil {
			c.t.Error(err)
		}
		<-ctx.Done() // the agent withdraws the form ($/cancel_request), else the test's deadline fails it
		return acp.UnstableCreateElicitationResponse{Cancel: &acp.UnstableCreateElicitationCancel{Action: "cancel"}}, nil
	case "decline":
		return acp.UnstableCreateElicitationResponse{Decline: &acp.UnstableCreateElicitationDecline{Action: "decline"}}, nil
	case "cancel":
		return acp.UnstableCreateElicitationResponse{Cancel: &acp.UnstableCreateElicitationCancel{Action: "cancel"}}, nil
	}
	return acp.UnstableCreateElicitationResponse{Accept: &acp.UnstableCreateElicitationAccept{Action: want.Action, Content: want.Content}}, nil
}

func (c *client) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if u := n.Update.ToolCall; u != nil {
		c.call = u.ToolCallId
	}
	if u := n.Update.ToolCallUpdate; u != nil && u.Status != nil && *u.Status == acp.ToolCallStatusCompleted {
		for _, content := range u.Content {
			if content.Content != nil && content.Content.Content.Text != nil {
				c.result = content.Content.Content.Text.Text
			}
		}
	}
	return nil
}

// wire holds what the agent wrote.
type wire struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *wire) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *wire) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
