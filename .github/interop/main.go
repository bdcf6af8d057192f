// Command interop is README's MCP server: the deploy tool, served through
// handler (handler.go, which README shows whole) to clients of every protocol
// version, on stdio or, with -http, on streamable HTTP (endpoint, http.go).
//
// interop_test.go drives it with the SDK's own client on every protocol
// version, in memory, over HTTP and over stdio, and fails when any answer
// differs; hostile_test.go sends it what a hostile client would;
// felt_test.go holds the figures a user feels. .ci/run runs them all.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"

	"github.com/dsh-go/userinteraction"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// deploy is a tool: it asks before it acts, and its result says what the
// human answered. Its error is the result of a call that failed.
func deploy(ctx context.Context, args map[string]any) (string, error) {
	service, _ := args["service"].(string)
	target, err := userinteraction.Ask(ctx, userinteraction.Request{Header: "Target", Question: "Deploy where?",
		Options: []userinteraction.Option{{Label: "Staging", Value: "staging", Recommended: true},
			{Label: "Production", Value: "production", Description: "the live site"}}})
	if err != nil {
		return "", fmt.Errorf("not deployed: %w", err)
	}
	steps, err := userinteraction.Ask(ctx, userinteraction.Request{Question: "Which steps should run first?", MultiSelect: true,
		Options: []userinteraction.Option{{Label: "lint"}, {Label: "test", Value: "unit tests"}, {Label: "build"}}})
	if err != nil {
		return "", fmt.Errorf("not deployed to %s: %w", target.Text, err)
	}
	return "deployed " + service + " to " + target.Text + " after " + steps.Text, nil
}

// newServer returns the MCP server of the deploy tool.
func newServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "deployer", Version: "v1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "deploy", Description: "Deploy a service, once the human says where and what runs first.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"service":{"type":"string"}},"required":["service"]}`)}, handler(deploy))
	return server
}

// main serves on stdio, or on streamable HTTP with -http.
func main() {
	addr := flag.String("http", "", "serve streamable HTTP at this address, such as 127.0.0.1:8080, not stdio")
	flag.Parse()
	if *addr == "" {
		log.Fatal(newServer().Run(context.Background(), &mcp.StdioTransport{}))
	}
	log.Fatal(http.ListenAndServe(*addr, endpoint(newServer())))
}
