package userinteraction_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/dsh-go/userinteraction"
)

// This example serves a session's questions to a web page: GET /questions
// lists the open ones as JSON, and POST /questions?id=... answers one. Here
// net/http/httptest plays the browser.
func ExampleInbox() {
	inbox := &userinteraction.Inbox{}
	mux := http.NewServeMux()
	mux.HandleFunc("/questions", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(inbox.Pending())
			return
		}
		var ans userinteraction.Answer
		if err := json.NewDecoder(r.Body).Decode(&ans); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var refused *userinteraction.HarnessError // INVALID_ANSWER, or NOT_PENDING: too late
		if err := inbox.Respond(r.URL.Query().Get("id"), ans, nil); errors.As(err, &refused) {
			w.WriteHeader(http.StatusConflict)
			_ = json.NewEncoder(w).Encode(refused)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	server := httptest.NewServer(mux)
	defer server.Close()

	// The session: the inbox is its UI, and a tool asks.
	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	dispose, err := userinteraction.Register(session, inbox)
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

	// The browser: read the open questions, then answer the first one.
	res, err := http.Get(server.URL + "/questions")
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
	q := pending[0]
	fmt.Println(q.Request.Question, q.Request.Options[0].Label, "or", q.Request.Options[1].Label)
	answer := func(body string) {
		res, err := http.Post(server.URL+"/questions?id="+q.ID, "application/json", bytes.NewBufferString(body))
		if err != nil {
			fmt.Println(err)
			return
		}
		defer res.Body.Close()
		if res.StatusCode == http.StatusNoContent {
			fmt.Println("answered")
			return
		}
		var refused userinteraction.HarnessError
		_ = json.NewDecoder(res.Body).Decode(&refused)
		fmt.Println(res.StatusCode, refused.Code)
	}
	answer(`{"answer": "tomorrow"}`) // not an option: the question stays open
	answer(`{"answer": "", "option": {"label": "Deploy"}}`)
	fmt.Println(<-result)
	answer(`{"answer": "wait"}`) // too late: already answered
	// Output:
	// Deploy to production? Deploy or Wait
	// 409 INVALID_ANSWER
	// answered
	// tool: deploy
	// 409 NOT_PENDING
}
