package main

import (
	"context"
	"crypto/rand"
	"encoding/json"

	"github.com/dsh-go/userinteraction"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// handler serves tool to clients of every protocol version. mcp.AddTool makes the error of a tool that failed its result.
func handler[In any](tool func(ctx context.Context, in In) (string, error)) mcp.ToolHandlerFor[In, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		version, caps, via, user := req.ProtocolVersion(), req.ClientCapabilities(), "mcp", "" // "", nil when unknown
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
			via = "mcp:" + p.ClientInfo.Name // a claim: the name the client gave itself
		}
		if req.Extra != nil && req.Extra.TokenInfo != nil {
			user = req.Extra.TokenInfo.UserID // who calls, when the server authenticates its clients
		}
		text, err := "", error(nil)
		call := func(ctx context.Context) { text, err = tool(ctx, in) }
		var elicit userinteraction.ElicitFunc // nil: the client shows no forms ("elicitation": {} means forms)
		if version >= "2025-06-18" && caps != nil && caps.Elicitation != nil && (caps.Elicitation.Form != nil || caps.Elicitation.URL == nil) {
			elicit = func(ctx context.Context, f userinteraction.Elicitation) (string, map[string]any, error) {
				res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: f.Mode, Message: f.Message, RequestedSchema: f.RequestedSchema})
				if err != nil {
					return "", nil, err
				}
				return res.Action, res.Content, nil
			}
		}
		if elicit == nil || version < "2026-07-28" { // from 2026-07-28 on, the SDK sends no form during a call
			userinteraction.Wait(ctx, elicit, version >= "2025-11-25", via, call) // several picks came with 2025-11-25
		} else {
			binding, _ := json.Marshal([]any{user, req.Params.Name, in}) // the same in every round
			questions, state, rerr := userinteraction.Round(ctx, key, string(binding), req.Params.RequestState, req.Params.InputResponses, via, call)
			if rerr != nil {
				data, _ := json.Marshal(rerr) // INVALID_STATE: tampered with, expired, or another call's
				return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid requestState", Data: data}
			}
			if len(questions) > 0 {
				inputs := mcp.InputRequestMap{}
				for id, f := range questions {
					inputs[id] = &mcp.ElicitParams{Mode: f.Mode, Message: f.Message, RequestedSchema: f.RequestedSchema}
				}
				return &mcp.CallToolResult{InputRequests: inputs, RequestState: state}, nil, nil
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, err
	}
}

// key authenticates the state between rounds: 32 bytes or more, the same in every instance (here, new at each start).
var key = []byte(rand.Text() + rand.Text())
