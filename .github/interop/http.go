package main

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
