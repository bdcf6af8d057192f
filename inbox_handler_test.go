package userinteraction_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// pageToken is the token of the handlers these tests serve.
const pageToken = "0123456789abcdef-test-token"

// serve returns a registered Inbox and its handler under pageToken.
func serve(t *testing.T) (*ui.Inbox, context.Context, http.Handler) {
	t.Helper()
	inbox := &ui.Inbox{}
	ctx, _ := inboxScope(t, inbox)
	return inbox, ctx, inbox.Handler(pageToken)
}

// call serves one request to h and returns the response. A header value
// "" leaves the header out. The client goes away after inboxWait, so that an
// event stream served by mistake ends.
func call(h http.Handler, method, target, body string, header ...string) *httptest.ResponseRecorder {
	ctx, cancel := context.WithTimeout(context.Background(), inboxWait)
	defer cancel()
	r := httptest.NewRequest(method, target, strings.NewReader(body)).WithContext(ctx)
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] != "" {
			r.Header.Set(header[i], header[i+1])
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// authed serves a request with the token in its header, and a JSON body.
func authed(h http.Handler, method, target, body string) *httptest.ResponseRecorder {
	return call(h, method, target, body, "Authorization", "Bearer "+pageToken, "Content-Type", "application/json")
}

// TestInboxHandlerShortToken: a token shorter than 16 bytes is a programming
// error, and Handler panics; 16 bytes are enough.
func TestInboxHandlerShortToken(t *testing.T) {
	for _, token := range []string{"", "x", strings.Repeat("x", 15)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Handler(%q) did not panic, want a panic", token)
				}
			}()
			(&ui.Inbox{}).Handler(token)
		}()
	}
	if h := (&ui.Inbox{}).Handler(strings.Repeat("x", 16)); h == nil {
		t.Fatal("Handler(16 bytes) = nil, want a handler")
	}
}

// TestInboxHandlerNeedsToken: every route but the page is 401 without the
// token, whatever the path or method, and with a wrong one; the right token
// in the header or the query is let in.
func TestInboxHandlerNeedsToken(t *testing.T) {
	_, _, h := serve(t)
	wrong := []struct {
		name   string
		header string // Authorization
		query  string
	}{
		{name: "none"},
		{name: "wrong header", header: "Bearer wrong-token-0123456789"},
		{name: "prefix of the token", header: "Bearer " + pageToken[:16]},
		{name: "token and more", header: "Bearer " + pageToken + "x"},
		{name: "another scheme", header: "Basic " + pageToken},
		{name: "bare token", header: pageToken},
		{name: "empty bearer", header: "Bearer "},
		{name: "wrong query", query: "?token=wrong-token-0123456789"},
		{name: "empty query", query: "?token="},
		{name: "query of another name", query: "?Token=" + pageToken},
	}
	paths := []string{"/questions", "/events", "/questions/" + strings.Repeat("0", 32), "/nope", "/questions/", "/a/b/c", "/"}
	methods := []string{"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"}
	for _, path := range paths {
		for _, method := range methods {
			if path == "/" && (method == "GET" || method == "HEAD") {
				continue // the page: no token
			}
			for _, tt := range wrong {
				w := call(h, method, path+tt.query, `{"action":"decline"}`, "Authorization", tt.header, "Content-Type", "application/json")
				if w.Code != http.StatusUnauthorized {
					t.Errorf("%s %s%s (%s) = %d, want 401", method, path, tt.query, tt.name, w.Code)
				}
			}
		}
	}
	for _, tt := range []struct {
		name, header, query string
	}{
		{name: "header", header: "Bearer " + pageToken},
		{name: "header, scheme in lower case", header: "bearer " + pageToken},
		{name: "query", query: "?token=" + pageToken},
		{name: "query beside a wrong header", header: "Bearer wrong-token-0123456789", query: "?token=" + pageToken},
	} {
		if w := call(h, "GET", "/questions"+tt.query, "", "Authorization", tt.header); w.Code != http.StatusOK {
			t.Errorf("GET /questions with the token in the %s = %d, want 200", tt.name, w.Code)
		}
	}
}

// TestInboxHandlerRoutes: with the token, each route answers its methods, a
// wrong method is 405 with Allow, and an unknown path 404.
func TestInboxHandlerRoutes(t *testing.T) {
	_, _, h := serve(t)
	id := strings.Repeat("0", 32)
	tests := []struct {
		method, path string
		status       int
		allow        string
	}{
		{"GET", "/", http.StatusOK, ""},
		{"HEAD", "/", http.StatusOK, ""},
		{"POST", "/", http.StatusMethodNotAllowed, "GET, HEAD"},
		{"GET", "/questions", http.StatusOK, ""},
		{"HEAD", "/questions", http.StatusOK, ""},
		{"POST", "/questions", http.StatusMethodNotAllowed, "GET, HEAD"},
		{"DELETE", "/questions", http.StatusMethodNotAllowed, "GET, HEAD"},
		{"POST", "/events", http.StatusMethodNotAllowed, "GET"},
		{"HEAD", "/events", http.StatusMethodNotAllowed, "GET"},
		{"GET", "/questions/" + id, http.StatusMethodNotAllowed, "POST"},
		{"PUT", "/questions/" + id, http.StatusMethodNotAllowed, "POST"},
		{"POST", "/questions/" + id, http.StatusConflict, ""},
		{"POST", "/questions/", http.StatusNotFound, ""},
		{"POST", "/questions/" + id + "/x", http.StatusNotFound, ""},
		{"GET", "/index.html", http.StatusNotFound, ""},
		{"GET", "/events/", http.StatusNotFound, ""},
		{"GET", "/questionsx", http.StatusNotFound, ""},
	}
	for _, tt := range tests {
		w := authed(h, tt.method, tt.path, `{"action":"decline"}`)
		if w.Code != tt.status || w.Header().Get("Allow") != tt.allow {
			t.Errorf("%s %s = %d, Allow %q, want %d, Allow %q", tt.method, tt.path, w.Code, w.Header().Get("Allow"), tt.status, tt.allow)
		}
	}
	w := authed(h, "GET", "/questions", "")
	if got := w.Body.String(); got != "[]" || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("GET /questions with none open = %q, %q, want [] as application/json", got, w.Header().Get("Content-Type"))
	}
}

// TestInboxHandlerPage: the page needs no token, holds no question, and is
// served with a strict Content-Security-Policy that allows its own script
// and style by hash, and with headers that keep it out of caches, frames and
// referrers.
func TestInboxHandlerPage(t *testing.T) {
	inbox, ctx, h := serve(t)
	secret := ui.Request{Question: "Rotate the key sk-live-4242?"}
	done := askInbox(ctx, secret)
	waitPending(t, inbox, 1)
	w := call(h, "GET", "/", "")
	page := w.Body.String()
	if w.Code != http.StatusOK || !strings.HasPrefix(page, "<!doctype html>") {
		t.Fatalf("GET / = %d, %.40q, want 200 and the page", w.Code, page)
	}
	if strings.Contains(page, "sk-live-4242") {
		t.Fatal("GET / holds an open question's text, want a static page")
	}
	header := w.Header()
	for name, want := range map[string]string{
		"Content-Type":           "text/html; charset=utf-8",
		"X-Content-Type-Options": "nosniff",
		"Cache-Control":          "no-store",
		"Referrer-Policy":        "no-referrer",
		"X-Frame-Options":        "DENY",
	} {
		if got := header.Get(name); got != want {
			t.Errorf("GET / %s = %q, want %q", name, got, want)
		}
	}
	csp := header.Get("Content-Security-Policy")
	hash := func(re string) string {
		m := regexp.MustCompile(re).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("the page has no %s", re)
		}
		sum := sha256.Sum256([]byte(m[1]))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	for _, want := range []string{
		"default-src 'none'",
		"script-src " + hash(`(?s)<script>(.*)</script>`),
		"style-src " + hash(`(?s)<style>(.*)</style>`),
		"connect-src 'self'",
		"frame-ancestors 'none'",
		"form-action 'none'",
		"base-uri 'none'",
	} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy = %q, want it to hold %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") || strings.Count(page, "<script") != 1 || strings.Count(page, "<style") != 1 {
		t.Errorf("Content-Security-Policy = %q with %d scripts, want one script allowed by hash, nothing unsafe", csp, strings.Count(page, "<script"))
	}
	// The page writes text only with textContent: no API that parses HTML,
	// and no request to another origin.
	for _, banned := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "Function(", "http://", "https://", "src="} {
		if strings.Contains(page, banned) {
			t.Errorf("the page holds %q, want none of it", banned)
		}
	}
	if n := strings.Count(page, "\n"); n > 350 { // 300, the notifications of "Telling the human a question waits", and passkeys
		t.Errorf("the page has %d lines, want at most 350: one sitting", n)
	}
	if err := inbox.Respond(inbox.Pending()[0].ID, ui.Answer{Text: "no"}, nil); err != nil {
		t.Fatal(err)
	}
	receive(t, done)
}

// TestInboxHandlerWorker: the page's service worker needs no token (a
// worker's script is fetched without headers) and ignores a query's token,
// served as JavaScript that may load nothing, with the page's headers; the
// page's policy allows it; other methods still need the token.
func TestInboxHandlerWorker(t *testing.T) {
	_, _, h := serve(t)
	for _, target := range []string{"/sw.js", "/sw.js?token=wrong-token-0123456789"} {
		for _, method := range []string{"GET", "HEAD"} {
			w := call(h, method, target, "")
			header := w.Header()
			if w.Code != http.StatusOK || header.Get("Content-Type") != "text/javascript; charset=utf-8" ||
				header.Get("Content-Security-Policy") != "default-src 'none'" || header.Get("Cache-Control") != "no-store" ||
				header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s %s = %d %v, want 200, JavaScript, nothing it may load, no-store, nosniff", method, target, w.Code, header)
			}
		}
	}
	script := call(h, "GET", "/sw.js", "").Body.String()
	for _, want := range []string{`addEventListener("push"`, `addEventListener("notificationclick"`, "showNotification(", "getNotifications("} {
		if !strings.Contains(script, want) {
			t.Errorf("the worker's script lacks %q", want)
		}
	}
	for _, banned := range []string{"innerHTML", "eval(", "Function(", "importScripts", "fetch(", "http://", "https://"} {
		if strings.Contains(script, banned) {
			t.Errorf("the worker's script holds %q, want none of it", banned)
		}
	}
	if csp := call(h, "GET", "/", "").Header().Get("Content-Security-Policy"); !strings.Contains(csp, "worker-src 'self'") {
		t.Errorf("the page's Content-Security-Policy = %q, want worker-src 'self'", csp)
	}
	for _, method := range []string{"POST", "PUT", "DELETE"} {
		if w := call(h, method, "/sw.js", ""); w.Code != http.StatusUnauthorized {
			t.Errorf("%s /sw.js without the token = %d, want 401", method, w.Code)
		}
	}
}

// TestInboxHandlerQuestionsJSON: GET /questions is Pending's JSON: a batch's
// questions share a "batch" that no other call has, a lone Ask has none, and
// a question whose asker has a deadline carries it.
func TestInboxHandlerQuestionsJSON(t *testing.T) {
	inbox, ctx, h := serve(t)
	deadline := time.Now().Add(time.Hour).Round(time.Second)
	timed, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	asks := []<-chan outcome{askInbox(ctx, ui.Request{Question: "lone"})}
	waitPending(t, inbox, 1) // so that the batch opens after it
	asks = append(asks, askInbox(timed, ui.Request{Question: "b1"}, ui.Request{Question: "b2"}))
	waitPending(t, inbox, 3)
	single := make(chan error, 1)
	go func() { // a batch of one request is a batch too
		_, err := ui.AskAll(ctx, []ui.Request{{Question: "one"}})
		single <- err
	}()
	waitPending(t, inbox, 4)

	w := authed(h, "GET", "/questions", "")
	var got []map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || len(got) != 4 {
		t.Fatalf("GET /questions = %s, %v, want 4 questions", w.Body, err)
	}
	keys := func(m map[string]any) []string {
		var out []string
		for _, k := range []string{"id", "request", "batch", "hint", "deadline"} {
			if _, ok := m[k]; ok {
				out = append(out, k)
			}
		}
		return out
	}
	wantKeys := [][]string{{"id", "request"}, {"id", "request", "batch", "deadline"}, {"id", "request", "batch", "deadline"}, {"id", "request", "batch"}}
	for i := range got {
		if k := keys(got[i]); !reflect.DeepEqual(k, wantKeys[i]) {
			t.Errorf("questions[%d] has keys %v, want %v", i, k, wantKeys[i])
		}
	}
	if got[1]["batch"] != got[2]["batch"] || got[1]["batch"] == got[3]["batch"] || !inboxID.MatchString(fmt.Sprint(got[3]["batch"])) {
		t.Errorf("batches = %v, %v, %v, want the first two equal, the third another, each 32 hex digits", got[1]["batch"], got[2]["batch"], got[3]["batch"])
	}
	if got[1]["batch"] == got[1]["id"] || got[1]["batch"] == got[2]["id"] {
		t.Errorf("batch %v is a question's ID, want a value of its own", got[1]["batch"])
	}
	if want := deadline.UTC().Format(time.RFC3339); got[1]["deadline"] != deadline.Format(time.RFC3339) && got[1]["deadline"] != want {
		t.Errorf("deadline = %v, want %v", got[1]["deadline"], deadline.Format(time.RFC3339))
	}
	var pending []ui.Pending
	if err := json.Unmarshal(w.Body.Bytes(), &pending); err != nil {
		t.Fatal(err)
	}
	if want := inbox.Pending(); !reflect.DeepEqual(pending, want) && !pendingEqual(pending, want) {
		t.Fatalf("GET /questions decodes as %+v, want Pending() %+v", pending, want)
	}
	if !pending[1].Deadline.Equal(deadline) || !inbox.Pending()[1].Deadline.Equal(deadline) {
		t.Fatalf("Deadline = %v, want %v", pending[1].Deadline, deadline)
	}
	for _, p := range inbox.Pending() {
		if err := inbox.Respond(p.ID, ui.Answer{Text: "ok"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, done := range asks {
		receive(t, done)
	}
	if err := <-single; err != nil {
		t.Fatal(err)
	}
}

// pendingEqual compares two lists of Pending, their deadlines as instants.
func pendingEqual(a, b []ui.Pending) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if !x.Deadline.Equal(y.Deadline) {
			return false
		}
		x.Deadline, y.Deadline = time.Time{}, time.Time{}
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// TestInboxHandlerAnswer: a POST's body is an elicitation result, mapped
// with ElicitationAnswer and delivered with Respond: 204 delivered, 422 a
// broken answer (the question stays open), 409 a question not open, 400 a
// body that is no result, 415 a body that is not JSON by its type.
func TestInboxHandlerAnswer(t *testing.T) {
	tests := []struct {
		name   string
		req    ui.Request
		body   string
		ctype  string // Content-Type; "" is application/json
		status int
		want   string // what Ask returns: show of its answer, or its code
	}{
		{"a pick", region, `{"action":"accept","content":{"choice":"America"}}`, "", 204, `{"us" option {Label:America Value:us Description: Recommended:false}}`},
		{"picks", migrations, `{"action":"accept","content":{"choice":["43","41"]}}`, "", 204,
			`{"41, 43" options [{Label:41 Value: Description: Recommended:false} {Label:43 Value: Description: Recommended:false}]}`},
		{"picks and own words", migrations, `{"action":"accept","content":{"choice":["42"],"text":"and 44"}}`, "", 204,
			`{"42, and 44" options [{Label:42 Value: Description: Recommended:false}]}`},
		{"own words", freeForm, `{"action":"accept","content":{"text":"fix-42"}}`, "", 204, `{"fix-42"}`},
		{"own words win over a choice", ui.Request{Question: "Which?", Options: yesNo}, `{"action":"accept","content":{"choice":"No","text":"maybe"}}`, "", 204, `{"maybe"}`},
		{"decline", region, `{"action":"decline"}`, "", 204, ui.CodeAskDeclined},
		{"cancel", region, `{"action":"cancel"}`, "", 204, ui.CodeAskCancelled},
		{"JSON with parameters", region, `{"action":"decline"}`, "application/json; charset=utf-8", 204, ui.CodeAskDeclined},
		{"empty", region, `{"action":"accept","content":{}}`, "", 422, ""},
		{"not offered", region, `{"action":"accept","content":{"choice":"Asia"}}`, "", 422, ""},
		{"no picks", ui.Request{Question: "Which?", Options: yesNo, MultiSelect: true, DisallowCustom: true}, `{"action":"accept","content":{"choice":[]}}`, "", 422, ""},
		{"own words where none are allowed", region, `{"action":"accept","content":{"text":"Asia"}}`, "", 422, ""},
		{"not JSON", region, `accept`, "", 400, ""},
		{"JSON, then more", region, `{"action":"decline"} {}`, "", 400, ""},
		{"no object", region, `["decline"]`, "", 400, ""},
		{"unknown action", region, `{"action":"allow"}`, "", 400, ""},
		{"no action", region, `{}`, "", 400, ""},
		{"action not a string", region, `{"action":1}`, "", 400, ""},
		{"content not an object", region, `{"action":"accept","content":"Europe"}`, "", 400, ""},
		{"choice a number", region, `{"action":"accept","content":{"choice":1}}`, "", 400, ""},
		{"choice of numbers", migrations, `{"action":"accept","content":{"choice":[41]}}`, "", 400, ""},
		{"text a number", freeForm, `{"action":"accept","content":{"text":42}}`, "", 400, ""},
		{"a form's type", region, `action=decline`, "application/x-www-form-urlencoded", 415, ""},
		{"text/plain", region, `{"action":"decline"}`, "text/plain", 415, ""},
		{"no type", region, `{"action":"decline"}`, "none", 415, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inbox, ctx, h := serve(t)
			done := askInbox(ctx, tt.req)
			id := waitPending(t, inbox, 1)[0].ID
			ctype := tt.ctype
			switch ctype {
			case "":
				ctype = "application/json"
			case "none":
				ctype = ""
			}
			changed := inbox.Changed()
			w := call(h, "POST", "/questions/"+id, tt.body, "Authorization", "Bearer "+pageToken, "Content-Type", ctype)
			if w.Code != tt.status {
				t.Fatalf("POST %s = %d %s, want %d", tt.body, w.Code, w.Body, tt.status)
			}
			if tt.status == 422 {
				// The hint is the question's, in Pending, for every UI.
				var refusal map[string]string
				if err := json.Unmarshal(w.Body.Bytes(), &refusal); err != nil || refusal["code"] != ui.CodeInvalidAnswer ||
					refusal["name"] != "UserInteractionError" || refusal["message"] == "" || refusal["hint"] == "" ||
					w.Header().Get("Content-Type") != "application/json" {
					t.Fatalf("POST %s = 422 %s, want the HarnessError JSON of INVALID_ANSWER with a hint", tt.body, w.Body)
				}
				if p := inbox.Pending(); !isClosed(changed) || len(p) != 1 || p[0].Hint != refusal["hint"] {
					t.Fatalf("POST %s = 422: Pending() = %+v, changed %v, want the question open with hint %q", tt.body, p, isClosed(changed), refusal["hint"])
				}
			}
			if tt.status != 204 {
				if tt.status != 422 && (isClosed(changed) || len(inbox.Pending()) != 1) {
					t.Fatalf("POST %s = %d changed Pending, want the question open as it was", tt.body, w.Code)
				}
				if err := inbox.Respond(id, ui.Answer{}, declined); err != nil {
					t.Fatal(err)
				}
				receive(t, done)
				return
			}
			o := receive(t, done)
			got := ui.CodeOf(o.err)
			if o.err == nil {
				ans := o.answers[0]
				if ans.Via != "page" {
					t.Fatalf("Ask() = %s, want it via page", show(ans))
				}
				ans.Via = ""
				got = show(ans)
			}
			if got != tt.want {
				t.Fatalf("Ask() = %s, want %s", got, tt.want)
			}
			if ended, ok := inbox.Outcome(id); !ok || o.err == nil && ended.Answer.Via != "page" {
				t.Fatalf("Outcome() = %+v, %v, want the answer via page", ended, ok)
			}
			w = call(h, "POST", "/questions/"+id, tt.body, "Authorization", "Bearer "+pageToken, "Content-Type", ctype)
			var refusal ui.HarnessError
			if err := json.Unmarshal(w.Body.Bytes(), &refusal); w.Code != http.StatusConflict || err != nil || refusal.Code != ui.CodeNotPending {
				t.Fatalf("POST again = %d %s, want 409 and the HarnessError JSON of NOT_PENDING", w.Code, w.Body)
			}
		})
	}
}

// countingReader is an endless body of spaces that counts what was read.
type countingReader struct{ n int64 }

func (r *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	r.n += int64(len(p))
	return len(p), nil
}

// TestInboxHandlerBodyLimit: a body over 1 MiB is 413, read no further than
// the limit, whether its length is declared or not; a body of 1 MiB is read.
func TestInboxHandlerBodyLimit(t *testing.T) {
	inbox, ctx, h := serve(t)
	done := askInbox(ctx, freeForm)
	id := waitPending(t, inbox, 1)[0].ID
	post := func(body io.Reader, length int64) (*httptest.ResponseRecorder, *http.Request) {
		r := httptest.NewRequest("POST", "/questions/"+id, body)
		r.ContentLength = length
		r.Header.Set("Authorization", "Bearer "+pageToken)
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w, r
	}
	for _, length := range []int64{-1, 4 << 20} { // unknown, declared
		endless := &countingReader{}
		w, _ := post(endless, length)
		if w.Code != http.StatusRequestEntityTooLarge || endless.n > 1<<20+64<<10 {
			t.Errorf("POST of an endless body (length %d) = %d after %d bytes read, want 413 after at most 1 MiB and a buffer", length, w.Code, endless.n)
		}
	}
	padded := `{"action":"accept","content":{"text":"yes"}}`
	padded += strings.Repeat(" ", 1<<20-len(padded))
	if w, _ := post(strings.NewReader(padded), int64(len(padded))); w.Code != http.StatusNoContent {
		t.Fatalf("POST of a body of exactly 1 MiB = %d %s, want 204", w.Code, w.Body)
	}
	if o := receive(t, done); o.err != nil || o.answers[0].Text != "yes" {
		t.Fatalf("Ask() = %v, want yes", o)
	}
}

// TestInboxHandlerCrossSite: what a page of another origin can send without
// the token (a form POST, a simple fetch, a rebound DNS name) is 401, and
// the question stays open.
func TestInboxHandlerCrossSite(t *testing.T) {
	inbox, ctx, h := serve(t)
	done := askInbox(ctx, deleteIt)
	id := waitPending(t, inbox, 1)[0].ID
	for _, tt := range []struct{ name, ctype, body, host string }{
		{"form POST", "application/x-www-form-urlencoded", `{"action":"accept","content":{"choice":"Delete"}}=`, "127.0.0.1:8080"},
		{"text/plain fetch", "text/plain", `{"action":"accept","content":{"choice":"Delete"}}`, "127.0.0.1:8080"},
		{"multipart", "multipart/form-data; boundary=x", "--x--", "127.0.0.1:8080"},
		{"DNS rebinding", "application/json", `{"action":"accept","content":{"choice":"Delete"}}`, "attacker.example:8080"},
	} {
		r := httptest.NewRequest("POST", "/questions/"+id, strings.NewReader(tt.body))
		r.Host = tt.host
		r.Header.Set("Origin", "http://attacker.example")
		r.Header.Set("Content-Type", tt.ctype)
		r.Header.Set("Cookie", "session=1")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusUnauthorized {
			t.Errorf("%s = %d, want 401", tt.name, w.Code)
		}
		for _, path := range []string{"/questions", "/events"} {
			r := httptest.NewRequest("GET", path, nil)
			r.Host = tt.host
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != http.StatusUnauthorized || strings.Contains(w.Body.String(), "notes.txt") {
				t.Errorf("%s: GET %s = %d %q, want 401 without the question", tt.name, path, w.Code, w.Body)
			}
		}
	}
	if got := inbox.Pending(); len(got) != 1 {
		t.Fatalf("Pending() = %v, want the question still open", got)
	}
	// A form POST that has the token in its query still needs a JSON body.
	w := call(h, "POST", "/questions/"+id+"?token="+pageToken, "action=accept", "Content-Type", "application/x-www-form-urlencoded")
	if w.Code != http.StatusUnsupportedMediaType {
		t.Fatalf("a form POST with the token = %d, want 415", w.Code)
	}
	if err := inbox.Respond(id, ui.Answer{Text: "Keep"}, nil); err != nil {
		t.Fatal(err)
	}
	receive(t, done)
}

// streamWriter is a ResponseWriter whose body is a pipe, so that a test reads
// the event stream as the handler writes it.
type streamWriter struct {
	header http.Header
	body   *io.PipeWriter
}

func (w *streamWriter) Header() http.Header         { return w.header }
func (w *streamWriter) WriteHeader(int)             {}
func (w *streamWriter) Write(p []byte) (int, error) { return w.body.Write(p) }
func (w *streamWriter) Flush()                      {}

// events serves GET /events to a client whose ctx is the returned cancel's.
// It returns the stream's events, one data line each ("ended " before the
// data of an ended event), and a channel closed when the handler returns.
func events(t *testing.T, h http.Handler, target string) (<-chan string, context.CancelFunc, <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := httptest.NewRequest("GET", target, nil).WithContext(ctx)
	r.Header.Set("Authorization", "Bearer "+pageToken)
	pr, pw := io.Pipe()
	w := &streamWriter{header: http.Header{}, body: pw}
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		defer pw.Close()
		h.ServeHTTP(w, r)
	}()
	got := make(chan string, 100)
	go func() {
		defer close(got)
		defer pr.Close() // unblocks a write once the test stops reading
		scan := bufio.NewScanner(pr)
		scan.Buffer(nil, 1<<24)
		var event string
		for scan.Scan() {
			line := scan.Text()
			switch name, isEvent := strings.CutPrefix(line, "event: "); {
			case line == "retry: 1000":
			case isEvent && (name == "questions" || name == "question" || name == "ended" || name == "words"):
				event = name
			case strings.HasPrefix(line, "data: ") && event != "":
				got <- event + " " + strings.TrimPrefix(line, "data: ")
				event = ""
			case line != "":
				got <- "unexpected line " + line
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-returned:
		case <-time.After(inboxWait):
			t.Error("the event stream did not end when its client went away")
		}
	})
	return got, cancel, returned
}

// nextEvent returns the next event's name and data.
func nextEvent(t *testing.T, got <-chan string) (name, data string) {
	t.Helper()
	select {
	case e := <-got:
		name, data, _ = strings.Cut(e, " ")
		return name, data
	case <-time.After(inboxWait):
		t.Fatal("no event")
		return "", ""
	}
}

// nextList returns the questions of the next event, by question text, which
// must be a "questions" event.
func nextList(t *testing.T, got <-chan string) []string {
	t.Helper()
	name, data := nextEvent(t, got)
	var pending []ui.Pending
	if err := json.Unmarshal([]byte(data), &pending); name != "questions" || err != nil {
		t.Fatalf("event = %s %s (%v), want the questions' list", name, data, err)
	}
	return questions(pending)
}

// nextQuestion returns the next event's question, which must be a "question" event.
func nextQuestion(t *testing.T, got <-chan string) ui.Pending {
	t.Helper()
	name, data := nextEvent(t, got)
	var p ui.Pending
	if err := json.Unmarshal([]byte(data), &p); name != "question" || err != nil {
		t.Fatalf("event = %s %s (%v), want one question", name, data, err)
	}
	return p
}

// endedEvent is the data of an "ended" event.
type endedEvent struct {
	ID      string      `json:"id"`
	Outcome *ui.Outcome `json:"outcome"`
}

// nextEnded returns the next event, which must be an "ended" one.
func nextEnded(t *testing.T, got <-chan string) endedEvent {
	t.Helper()
	name, data := nextEvent(t, got)
	var e endedEvent
	if err := json.Unmarshal([]byte(data), &e); name != "ended" || err != nil {
		t.Fatalf("event = %s %s (%v), want an ended event", name, data, err)
	}
	return e
}

// TestInboxHandlerEvents: the stream sends the open questions at once, then
// each change alone: a question that opened, or one that ended with how, and
// ends with the client, leaving no goroutine.
func TestInboxHandlerEvents(t *testing.T) {
	before := runtime.NumGoroutine()
	inbox, ctx, h := serve(t)
	got, cancel, returned := events(t, h, "/events")
	if q := nextList(t, got); len(q) != 0 {
		t.Fatalf("first event = %v, want no question", q)
	}
	done := askInbox(ctx, ui.Request{Question: "q1"})
	if p := nextQuestion(t, got); p.Request.Question != "q1" {
		t.Fatalf("event after an ask = %+v, want q1", p)
	}
	step, stop := context.WithCancel(ctx)
	given := askInbox(step, ui.Request{Question: "q2"}, ui.Request{Question: "q3"})
	batch := []ui.Pending{nextQuestion(t, got), nextQuestion(t, got)}
	if batch[0].Request.Question != "q2" || batch[1].Request.Question != "q3" || batch[0].Batch == "" || batch[1].Index != 1 {
		t.Fatalf("events after a batch = %+v, want q2 and q3 as one batch", batch)
	}
	stop()
	for _, p := range batch {
		if e := nextEnded(t, got); e.ID != p.ID || e.Outcome == nil || !errors.Is(e.Outcome.Err, context.Canceled) && ui.CodeOf(e.Outcome.Err) != ui.CodeAskAborted {
			t.Fatalf("event after a withdrawal = %+v, want %s ended by its asker", e, p.ID)
		}
	}
	receive(t, given)
	id := inbox.Pending()[0].ID
	if w := authed(h, "POST", "/questions/"+id, `{"action":"accept","content":{"text":"yes"}}`); w.Code != 204 {
		t.Fatalf("POST = %d, want 204", w.Code)
	}
	if e := nextEnded(t, got); e.ID != id || e.Outcome == nil || e.Outcome.Answer.Text != "yes" {
		t.Fatalf("event after the answer = %+v, want %s answered yes", e, id)
	}
	receive(t, done)

	// A second client, with the token in its query, gets the list at once.
	second, cancelSecond, secondReturned := events(t, h, "/events?token="+pageToken)
	nextList(t, second)
	cancelSecond()
	cancel()
	for _, ch := range []<-chan struct{}{returned, secondReturned} {
		select {
		case <-ch:
		case <-time.After(inboxWait):
			t.Fatal("the handler did not return when its client went away")
		}
	}
	deadline := time.Now().Add(inboxWait)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, want at most %d as before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		runtime.Gosched()
	}
}

// TestInboxHandlerEventsServed: over a real server, the stream is
// text/event-stream, starts at once, and ends when the client goes away.
func TestInboxHandlerEventsServed(t *testing.T) {
	inbox, ctx, h := serve(t)
	ended := make(chan struct{}, 1)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if r.URL.Path == "/events" {
			ended <- struct{}{}
		}
	}))
	defer server.Close()
	res, err := http.Get(server.URL + "/events?token=" + pageToken)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /events = %d %q, want 200 text/event-stream", res.StatusCode, res.Header.Get("Content-Type"))
	}
	lines := bufio.NewReader(res.Body)
	for _, want := range []string{"retry: 1000\n", "\n", "event: questions\n", "data: []\n", "\n"} {
		if line, err := lines.ReadString('\n'); line != want || err != nil {
			t.Fatalf("stream line = %q, %v, want %q", line, err, want)
		}
	}
	done := askInbox(ctx, question)
	if line, _ := lines.ReadString('\n'); line != "event: question\n" {
		t.Fatalf("stream line after an ask = %q, want an event", line)
	}
	res.Body.Close()
	select {
	case <-ended:
	case <-time.After(inboxWait):
		t.Fatal("the handler did not return when the client went away")
	}
	if err := inbox.Respond(inbox.Pending()[0].ID, ui.Answer{Text: "ok"}, nil); err != nil {
		t.Fatal(err)
	}
	receive(t, done)
}

// brokenWriter is a ResponseWriter that cannot flush, and whose Write fails
// when fails is set.
type brokenWriter struct {
	header  http.Header
	fails   bool
	written int
}

func (w *brokenWriter) Header() http.Header { return w.header }
func (w *brokenWriter) WriteHeader(int)     {}
func (w *brokenWriter) Write(p []byte) (int, error) {
	if w.fails {
		return 0, io.ErrClosedPipe
	}
	w.written += len(p)
	return len(p), nil
}

// TestInboxHandlerEventsCannotWrite: a stream that cannot be written, or
// cannot be flushed to its client, ends at once instead of waiting for
// changes nobody would see.
func TestInboxHandlerEventsCannotWrite(t *testing.T) {
	_, _, h := serve(t)
	for _, fails := range []bool{true, false} { // a failed write; no Flush
		w := &brokenWriter{header: http.Header{}, fails: fails}
		r := httptest.NewRequest("GET", "/events?token="+pageToken, nil)
		returned := make(chan struct{})
		go func() {
			defer close(returned)
			h.ServeHTTP(w, r)
		}()
		select {
		case <-returned:
		case <-time.After(inboxWait):
			t.Fatalf("GET /events to a writer that fails (%v) or cannot flush did not return", fails)
		}
	}
}

// TestInboxHandlerMountedWithSlash: mounted with StripPrefix("/ask/"), the
// routes see paths without their leading slash, and serve all the same.
func TestInboxHandlerMountedWithSlash(t *testing.T) {
	_, _, h := serve(t)
	mux := http.NewServeMux()
	mux.Handle("/ask/", http.StripPrefix("/ask/", h))
	for _, tt := range []struct {
		target string
		status int
	}{{"/ask/", 200}, {"/ask/questions?token=" + pageToken, 200}, {"/ask/questions", 401}, {"/ask/nope?token=" + pageToken, 404}} {
		if w := call(mux, "GET", tt.target, ""); w.Code != tt.status {
			t.Errorf("GET %s = %d, want %d", tt.target, w.Code, tt.status)
		}
	}
}

// TestInboxFarDeadline: a deadline past year 9999, which RFC 3339
// cannot write, made Pending's JSON fail. Then GET /questions was 500 and
// every event stream ended at once, so one question hid all the others from
// the page. Such a deadline is no deadline a human can count down to.
func TestInboxFarDeadline(t *testing.T) {
	inbox, session, h := serve(t)
	far, cancel := context.WithDeadline(session, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))
	defer cancel()
	done := askInbox(far, ui.Request{Question: "Far?"})
	near, cancelNear := context.WithTimeout(session, time.Hour)
	defer cancelNear()
	doneNear := askInbox(near, ui.Request{Question: "Near?"})
	pending := waitPending(t, inbox, 2)

	if _, err := json.Marshal(pending); err != nil {
		t.Errorf("json.Marshal(Pending()) = %v, want nil", err)
	}
	w := authed(h, http.MethodGet, "/questions", "")
	if w.Code != http.StatusOK {
		t.Fatalf("GET /questions = %d %s, want 200", w.Code, strings.TrimSpace(w.Body.String()))
	}
	var got []ui.Pending
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || len(got) != 2 {
		t.Fatalf("GET /questions = %s (%v), want both questions", w.Body.String(), err)
	}
	for _, q := range got {
		if d := !q.Deadline.IsZero(); d != (q.Request.Question == "Near?") {
			t.Errorf("GET /questions: %q has a deadline = %v, want %v", q.Request.Question, d, !d)
		}
	}
	for _, q := range pending {
		if err := inbox.Respond(q.ID, ui.Answer{Text: "yes"}, nil); err != nil {
			t.Fatalf("Respond() = %v, want nil", err)
		}
	}
	for _, d := range []<-chan outcome{done, doneNear} {
		if o := receive(t, d); o.err != nil {
			t.Errorf("Ask() = %v, want yes", o)
		}
	}
}

// TestInboxHandlerEventsEnded: when a question leaves Pending, the stream
// sends an "ended" event with its ID and its Outcome. A client that names the
// questions it shows in ?open= learns at once how those that left while it
// was away ended; one the Inbox does not know has a null outcome.
func TestInboxHandlerEventsEnded(t *testing.T) {
	inbox, ctx, h := serve(t)
	got, _, _ := events(t, h, "/events")
	nextList(t, got)
	done := askInbox(ctx, region)
	if p := nextQuestion(t, got); p.Request.Question != region.Question {
		t.Fatalf("event after an ask = %+v, want the question", p)
	}
	id := inbox.Pending()[0].ID
	if w := authed(h, "POST", "/questions/"+id, `{"action":"accept","content":{"choice":"America"}}`); w.Code != 204 {
		t.Fatalf("POST = %d, want 204", w.Code)
	}
	e := nextEnded(t, got)
	if e.ID != id || e.Outcome == nil || e.Outcome.Err != nil || e.Outcome.Answer.Text != "us" || e.Outcome.Answer.Via != "page" {
		t.Fatalf("ended event = %+v, want %s answered us via page", e, id)
	}
	receive(t, done)

	unknown := strings.Repeat("0", 32)
	away, _, _ := events(t, h, "/events?token="+pageToken+"&open="+id+","+unknown)
	for _, want := range []string{id, unknown} {
		e := nextEnded(t, away)
		if e.ID != want || (e.Outcome != nil) != (want == id) {
			t.Fatalf("ended event on connecting = %+v, want %s with an outcome only when known", e, want)
		}
	}
	if q := nextList(t, away); len(q) != 0 {
		t.Fatalf("event after the ended ones = %v, want the empty list", q)
	}
}

// TestInboxHandlerShutdown: http.Server.Shutdown ends the open event
// streams and returns, instead of waiting for the tabs to close; each stream
// first sends how a question ended just before (a host that exits right
// after its last answer), then "stopped", so a page says the agent stopped,
// not that the connection is lost. Rounds, as the ending and the shutdown
// race in the handler; the last over a Source that sees the change late.
func TestInboxHandlerShutdown(t *testing.T) {
	for round := 0; round <= 20; round++ {
		inbox, ctx, h := serve(t)
		if round == 20 {
			h = ui.Handler(lateSource{inbox}, pageToken)
		}
		server := httptest.NewServer(h)
		defer server.Close()
		done := askInbox(ctx, ui.Request{Question: "Deploy?"})
		id := waitPending(t, inbox, 1)[0].ID
		var bodies []io.ReadCloser
		for i := 0; i < 2; i++ { // two tabs on one server
			res, err := http.Get(server.URL + "/events?token=" + pageToken)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			lines := bufio.NewReader(res.Body)
			for _, want := range []string{"retry: 1000\n", "\n", "event: questions\n"} {
				if line, err := lines.ReadString('\n'); line != want || err != nil {
					t.Fatalf("stream line = %q, %v, want %q", line, err, want)
				}
			}
			if line, err := lines.ReadString('\n'); !strings.Contains(line, id) || err != nil {
				t.Fatalf("questions event = %q, %v, want %s in it", line, err, id)
			}
			bodies = append(bodies, io.NopCloser(lines))
		}
		if err := inbox.Respond(id, ui.Answer{Text: "yes", Via: "terminal"}, nil); err != nil {
			t.Fatal(err)
		}
		receive(t, done) // the host's last answer: it shuts down at once
		stop, cancel := context.WithTimeout(context.Background(), inboxWait)
		defer cancel()
		if err := server.Config.Shutdown(stop); err != nil {
			t.Fatalf("Shutdown() with two streams open = %v, want nil", err)
		}
		for _, body := range bodies {
			rest, err := io.ReadAll(body)
			if err != nil {
				t.Fatalf("reading the stream after Shutdown = %v, want its end", err)
			}
			ended := "\nevent: ended\ndata: {\"id\":\"" + id + "\",\"outcome\":{\"answer\":{\"answer\":\"yes\",\"via\":\"terminal\"}},\"said\":\"Answered in the terminal: \\\"yes\\\".\"}\n\n"
			if !strings.HasSuffix(string(rest), ended+"event: stopped\ndata: null\n\n") {
				t.Fatalf("round %d: the stream's end = %q, want the question's ending, then stopped", round, rest)
			}
		}
	}
}

// TestInboxHandlerShutdownUnread: a tab that stopped reading its stream,
// with more than the sockets hold on their way to it, holds up no Shutdown,
// over HTTP/1.1 or HTTP/2.
func TestInboxHandlerShutdownUnread(t *testing.T) {
	inbox, ctx, h := serve(t)
	long := ui.Request{Question: strings.Repeat("Deploy it? ", 1400)}
	for i := 0; i < 600; i++ { // 9 MB of 15 kB questions: more than a socket or an HTTP/2 stream sends ahead
		askInbox(ctx, long)
	}
	waitPending(t, inbox, 600)
	for _, http2 := range []bool{false, true} {
		server := httptest.NewUnstartedServer(h)
		defer server.Close()
		if server.EnableHTTP2 = http2; http2 {
			server.StartTLS()
			res, err := server.Client().Get(server.URL + "/events?token=" + pageToken)
			if err != nil || res.ProtoMajor != 2 {
				t.Fatalf("GET /events over HTTP/2: %v, %v", res, err)
			}
			defer res.Body.Close() // read no further
		} else {
			server.Start()
			conn, err := net.Dial("tcp", server.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.(*net.TCPConn).SetReadBuffer(4096)
			if _, err := fmt.Fprintf(conn, "GET /events?token=%s HTTP/1.1\r\nHost: x\r\n\r\n", pageToken); err != nil {
				t.Fatal(err)
			}
			if line, err := bufio.NewReader(conn).ReadString('\n'); line != "HTTP/1.1 200 OK\r\n" || err != nil { // the stream began; no more is read
				t.Fatalf("the stream's first line = %q, %v", line, err)
			}
		}
		stop, cancel := context.WithTimeout(context.Background(), inboxWait)
		defer cancel()
		if err := server.Config.Shutdown(stop); err != nil {
			t.Fatalf("Shutdown() with a stream that reads nothing (HTTP/2 %v) = %v, want nil", http2, err)
		}
	}
}

// lateSource is an Inbox whose Changes after a cursor sees nothing until its
// ctx is done, as a Source's wait may end on ctx with a change just made.
type lateSource struct{ *ui.Inbox }

func (s lateSource) Changes(ctx context.Context, cursor string) ([]ui.Change, string, error) {
	if cursor != "" && ctx.Err() == nil {
		<-ctx.Done()
		return nil, cursor, ctx.Err()
	}
	return s.Inbox.Changes(ctx, cursor)
}

// TestInboxHandlerUsesExportedNames: the handler and the page use only what
// the package exports, so any UI can do what the page does. Each name of the
// package used in provider.go's parts "Inbox: the handler, over any Source" and
// "Inbox: the web page" is exported or declared in those parts.
func TestInboxHandlerUsesExportedNames(t *testing.T) {
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range []string{"errors.go", "userinteraction.go", "provider.go"} {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	pkg, err := (&types.Config{Importer: importer.Default()}).Check("github.com/dsh-go/userinteraction", fset, files, info)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("provider.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	type span struct{ first, last int } // a part's lines
	var spans []span
	for _, title := range []string{"Inbox: the handler, over any Source", "Inbox: the web page"} {
		first, last := 0, len(lines)
		for i := 1; i < len(lines); i++ {
			switch {
			case lines[i] == "// "+title && strings.HasPrefix(lines[i-1], "// ----"):
				first = i + 1
			case first > 0 && last == len(lines) && strings.HasPrefix(lines[i], "// ----"):
				last = i
			}
		}
		if first == 0 {
			t.Fatalf("provider.go has no part %q", title)
		}
		spans = append(spans, span{first, last})
	}
	inPart := func(pos token.Pos) bool {
		p := fset.Position(pos)
		for _, s := range spans {
			if p.Filename == "provider.go" && p.Line >= s.first && p.Line <= s.last {
				return true
			}
		}
		return false
	}
	exported := map[string]bool{}
	var wrong []string
	for id, obj := range info.Uses {
		if _, imported := obj.(*types.PkgName); imported || !inPart(id.Pos()) || obj.Pkg() != pkg {
			continue
		}
		switch {
		case obj.Exported():
			exported[obj.Name()] = true
		case !inPart(obj.Pos()):
			wrong = append(wrong, fmt.Sprintf("%s: the page's part uses %s, which the package does not export", fset.Position(id.Pos()), obj.Name()))
		}
	}
	for _, w := range sorted(wrong) {
		t.Error(w)
	}
	for _, name := range []string{"Pending", "Changes", "Respond", "Outcome", "ElicitationAnswer"} {
		if !exported[name] {
			t.Errorf("the page's part does not use %s, want its uses found", name)
		}
	}
}

// TestInboxHandlerEventsOpenOncePerID: a client that names one ended question
// a thousand times in ?open= gets one "ended" event for it, not a thousand.
// Else a query of 33 KB made the stream build a thousand copies of the
// question's outcome in memory at once, however large the answer was: work
// that multiplies what the client sent by what the Inbox holds.
func TestInboxHandlerEventsOpenOncePerID(t *testing.T) {
	inbox, ctx, h := serve(t)
	done := askInbox(ctx, ui.Request{Question: "Why?"})
	id := waitPending(t, inbox, 1)[0].ID
	if w := authed(h, "POST", "/questions/"+id, `{"action":"accept","content":{"text":"`+strings.Repeat("because ", 1000)+`"}}`); w.Code != 204 {
		t.Fatalf("POST = %d, want 204", w.Code)
	}
	receive(t, done)
	got, _, _ := events(t, h, "/events?open="+strings.TrimSuffix(strings.Repeat(id+",", 1000), ","))
	n := 0
	for name, _ := nextEvent(t, got); name != "questions"; name, _ = nextEvent(t, got) {
		n++
	}
	if n != 1 {
		t.Fatalf("the stream sent %d ended events for one question named 1000 times in ?open=, want 1", n)
	}
}
