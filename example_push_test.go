package userinteraction_test

import (
	"fmt"
	"io"
	"net/http/httptest"

	"github.com/dsh-go/userinteraction"
)

// This example restores an Inbox's Web Push state, which a host saved with
// PushState at its last exit: the push key stays the one the human's phone
// subscribed with, so the subscriptions still work. The page reads the key
// from GET push and sends its subscription to POST push; a subscription that
// is not https is refused.
func ExampleInbox_SetPushState() {
	inbox := &userinteraction.Inbox{PushContact: "mailto:ops@example.com"} // PushLoopback: true for a push service on 127.0.0.1
	saved := `{"key": "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw", "subscriptions": []}`
	if err := inbox.SetPushState([]byte(saved)); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(inbox.PushKey())

	token := "a-secret-of-16-bytes-or-more"
	rec := httptest.NewRecorder()
	inbox.Handler(token).ServeHTTP(rec, httptest.NewRequest("GET", "/push?token="+token, nil))
	body, _ := io.ReadAll(rec.Body)
	fmt.Println(rec.Code, string(body) == `{"key":"`+inbox.PushKey()+`"}`)

	err := inbox.Subscribe([]byte(`{"endpoint": "http://push.example.com/1", "keys": {"p256dh": "", "auth": ""}}`))
	fmt.Println(userinteraction.CodeOf(err))
	fmt.Println(string(inbox.PushState()) == `{"key":"yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw","subscriptions":[]}`)
	// Output:
	// BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8
	// 200 true
	// INVALID_REQUEST
	// true
}
