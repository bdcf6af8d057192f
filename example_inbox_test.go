package userinteraction_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/dsh-go/userinteraction"
)

// This example serves a session's questions to a web page with the Inbox's
// handler. The human would open the printed URL; here a POST in the shape of
// an MCP elicitation result answers for them. Then Outcome says how the
// question ended, as the page tells a tab that was showing it.
func ExampleInbox() {
	inbox := &userinteraction.Inbox{}
	token := "a-secret-of-16-bytes-or-more" // crypto/rand in a real host
	mux := http.NewServeMux()
	mux.Handle("/ask/", http.StripPrefix("/ask", inbox.Handler(token)))
	server := httptest.NewServer(mux)
	defer server.Close()
	// A host prints server.URL + "/ask/#token=" + token for the human.

	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	dispose, err := userinteraction.Register(session, inbox)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dispose()
	opened := inbox.Changed()
	result := make(chan string)
	go func() { // the tool
		ans, err := userinteraction.Ask(session, userinteraction.Request{
			Question: "Deploy to production?",
			Options:  []userinteraction.Option{{Label: "Deploy", Value: "deploy"}, {Label: "Wait"}},
		})
		result <- fmt.Sprint(ans.Text, userinteraction.CodeOf(err))
	}()
	<-opened

	// The page answers: the POST it sends when the human picks Deploy.
	id := inbox.Pending()[0].ID
	body := strings.NewReader(`{"action": "accept", "content": {"choice": "Deploy"}}`)
	req, _ := http.NewRequest("POST", server.URL+"/ask/questions/"+id, body)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	res.Body.Close()
	fmt.Println(res.Status)
	fmt.Println(<-result)
	if o, ok := inbox.Outcome(id); ok {
		fmt.Println("answered on the", o.Answer.Via+":", o.Answer.Option.Label)
	}
	// Output:
	// 204 No Content
	// deploy
	// answered on the page: Deploy
}
