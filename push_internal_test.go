package userinteraction

// These tests need Web Push's internals: the salt and key that each message
// draws at random, and a send that runs on the test's goroutine.

import (
	"bytes"
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// rfc8291 is the example of RFC 8291's Appendix A, in base64url.
var rfc8291 = struct{ plain, asPrivate, uaPublic, salt, auth, body string }{
	plain:     "When I grow up, I want to be a watermelon",
	asPrivate: "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw",
	uaPublic:  "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
	salt:      "DGv6ra1nlYgDCS1FRnbzlw",
	auth:      "BTBZMqHH6r4Tts7J_aSIgg",
	body: "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_" +
		"yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN",
}

func mustB64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := b64.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPushEncryptsAsRFC8291: the RFC's keys, salt and plaintext give its
// message byte for byte: salt, record size 4096, the sender's key, one record
// ending with the delimiter 2.
func TestPushEncryptsAsRFC8291(t *testing.T) {
	as, err := ecdh.P256().NewPrivateKey(mustB64(t, rfc8291.asPrivate))
	if err != nil {
		t.Fatal(err)
	}
	got := encryptPush([]byte(rfc8291.plain), mustB64(t, rfc8291.uaPublic), mustB64(t, rfc8291.auth), mustB64(t, rfc8291.salt), as)
	if want := mustB64(t, rfc8291.body); !bytes.Equal(got, want) {
		t.Errorf("encryptPush gave\n%s\nwant RFC 8291's\n%s", b64.EncodeToString(got), rfc8291.body)
	}
}

// testSub returns a subscription to endpoint of a fresh key.
func testSub(t *testing.T, endpoint string) pushSub {
	t.Helper()
	ua, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	var s pushSub
	s.Endpoint = endpoint
	s.Keys.P256dh, s.Keys.Auth = b64.EncodeToString(ua.PublicKey().Bytes()), rfc8291.auth
	return s
}

// TestPushFollowsNoRedirect: a push service that redirects gets the message
// and its answer is taken as it is; the place it points to gets nothing.
func TestPushFollowsNoRedirect(t *testing.T) {
	reached := make(chan string, 1)
	target := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { reached <- r.URL.Path }))
	defer target.Close()
	redirect := httptest.NewServer(http.RedirectHandler(target.URL+"/elsewhere", http.StatusTemporaryRedirect))
	defer redirect.Close()
	b := &Inbox{PushLoopback: true}
	b.mu.Lock()
	err := b.push.add(testSub(t, redirect.URL+"/push/1"), nil, true)
	p := *b.vapid()
	b.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := pushClient.Do(pushRequest(p.Subs[0], []byte(`{}`), p, "", "topic", time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTemporaryRedirect {
		t.Errorf("status %d, want the redirect's 307 as it is", resp.StatusCode)
	}
	select {
	case path := <-reached:
		t.Errorf("the redirect was followed to %s", path)
	default:
	}
}

// TestPushDropsGoneSubscriptions: a push service's 404 or 410 drops its
// subscription at once; a 500, a 429 or a 201 keeps it.
func TestPushDropsGoneSubscriptions(t *testing.T) {
	for _, tc := range []struct {
		status int
		kept   bool
	}{{http.StatusNotFound, false}, {http.StatusGone, false}, {http.StatusInternalServerError, true}, {http.StatusTooManyRequests, true}, {http.StatusCreated, true}} {
		service := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(tc.status) }))
		b := &Inbox{PushLoopback: true}
		b.mu.Lock()
		other := testSub(t, service.URL+"/other")
		err := b.push.add(testSub(t, service.URL+"/gone"), nil, true)
		if err == nil {
			err = b.push.add(other, nil, true)
		}
		p := *b.vapid()
		*p.Subs[0].sending = 1
		b.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		b.send(p.Subs[0], pushRequest(p.Subs[0], []byte(`{}`), p, "", "topic", time.Now())) // on this goroutine
		service.Close()
		var endpoints []string
		for _, s := range b.push.Subs {
			endpoints = append(endpoints, s.Endpoint)
		}
		want := []string{other.Endpoint}
		if tc.kept {
			want = []string{p.Subs[0].Endpoint, other.Endpoint}
		}
		if strings.Join(endpoints, " ") != strings.Join(want, " ") || *p.Subs[0].sending != 0 {
			t.Errorf("after %d: subscriptions %q, %d sending, want %q, 0", tc.status, endpoints, *p.Subs[0].sending, want)
		}
	}
}

// TestPushResubscribeKeepsOrder: a subscription given again, as a page loaded
// again gives it, keeps its queue, so a question's ending waits behind its
// opening instead of going at once beside it.
func TestPushResubscribeKeepsOrder(t *testing.T) {
	got, hold := make(chan struct{}, 4), make(chan struct{})
	service := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { got <- struct{}{}; <-hold }))
	defer service.Close()
	defer close(hold) // before Close, which waits for the handlers
	b := &Inbox{PushLoopback: true}
	sub, _ := json.Marshal(testSub(t, service.URL+"/push/1"))
	if err := b.Subscribe(sub); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := b.Ask(ctx, Request{Question: "Deploy?"}); done <- err }()
	<-got // the opening, held
	if err := b.Subscribe(sub); err != nil {
		t.Fatal(err)
	}
	cancel()
	<-done
	b.mu.Lock()
	defer b.mu.Unlock()
	if n := *b.push.Subs[0].sending; n != 2 {
		t.Errorf("after the subscription was given again, %d messages wait in its queue, want 2: the opening, then its ending", n)
	}
}
