package userinteraction_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/dsh-go/userinteraction"
)

// This example lets the human answer at the terminal or on a web page,
// whichever is at hand. They answer on the page, so the terminal's question
// is withdrawn. Here net/http/httptest plays the browser, and nobody types
// at the terminal.
func ExampleFirstOf() {
	const token = "4f9c2e7a1b3d5f60" // a real host uses 32 bytes from crypto/rand
	inbox := &userinteraction.Inbox{}
	server := httptest.NewServer(http.StripPrefix("/ask", inbox.Handler(token)))
	defer server.Close()
	keys, typing := io.Pipe()                             // a real host passes os.Stdin
	term := userinteraction.NewTerminal(keys, io.Discard) // and os.Stdout
	defer typing.Close()                                  // ends the terminal's read

	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	dispose, err := userinteraction.Register(session, userinteraction.FirstOf(term, inbox))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dispose()
	opened := inbox.Changed()
	result := make(chan string)
	go func() {
		ans, err := userinteraction.Ask(session, userinteraction.Request{
			Question:       "Deploy to production?",
			Options:        []userinteraction.Option{{Label: "Deploy", Value: "deploy"}, {Label: "Wait"}},
			DisallowCustom: true,
		})
		if err != nil {
			result <- "tool: " + userinteraction.CodeOf(err)
			return
		}
		result <- "tool: " + ans.Text
	}()
	<-opened

	// The browser: read the open questions, then pick Deploy on the first.
	// (The page sends its token in a header; ?token= serves as well.)
	res, err := http.Get(server.URL + "/ask/questions?token=" + token)
	if err != nil {
		fmt.Println(err)
		return
	}
	var pending []userinteraction.Pending
	err = json.NewDecoder(res.Body).Decode(&pending)
	res.Body.Close()
	if err != nil || len(pending) == 0 {
		fmt.Println("no open question:", err)
		return
	}
	fmt.Println("page:", pending[0].Request.Question)
	res, err = http.Post(server.URL+"/ask/questions/"+pending[0].ID+"?token="+token, "application/json",
		strings.NewReader(`{"action": "accept", "content": {"choice": "Deploy"}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	res.Body.Close()
	fmt.Println("page:", res.Status)
	fmt.Println(<-result)
	// Output:
	// page: Deploy to production?
	// page: 204 No Content
	// tool: deploy
}
