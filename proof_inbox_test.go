package userinteraction_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// passkeyPage is an Inbox on localhost whose page serves passkeys, with the
// keys its AcceptPasskey was given.
type passkeyPage struct {
	inbox    *ui.Inbox
	h        http.Handler
	mu       sync.Mutex
	accepted [][]byte
	refuse   error // what AcceptPasskey returns
}

func newPasskeyPage(t *testing.T) *passkeyPage {
	p := &passkeyPage{inbox: &ui.Inbox{RelyingParty: "localhost"}}
	p.inbox.AcceptPasskey = func(key []byte) error {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.accepted = append(p.accepted, key)
		return p.refuse
	}
	p.h = p.inbox.Handler(pageToken)
	return p
}

// passkeyInfo is GET /passkey's reply.
type passkeyInfo struct {
	RelyingParty string   `json:"relyingParty"`
	Nonce        string   `json:"nonce"`
	Credentials  []string `json:"credentials"`
}

func (p *passkeyPage) info(t *testing.T) passkeyInfo {
	t.Helper()
	w := authed(p.h, "GET", "/passkey", "")
	var info passkeyInfo
	if err := json.Unmarshal(w.Body.Bytes(), &info); w.Code != 200 || err != nil {
		t.Fatalf("GET /passkey = %d %s", w.Code, w.Body)
	}
	return info
}

// registration returns what the page POSTs at /passkey for a's passkey under
// nonce: a registration of type "webauthn.create" with flags UP, UV and AT.
func (a *authenticator) registration(t testing.TB, nonce string) map[string]string {
	t.Helper()
	client := marshal(t, map[string]any{"type": a.typ, "challenge": nonce, "origin": a.origin, "crossOrigin": false})
	rpHash := sha256.Sum256([]byte(a.rp))
	id, _ := b64.DecodeString(a.credential)
	auth := binary.BigEndian.AppendUint32(append(rpHash[:], a.flags), a.counter)
	auth = append(append(auth, make([]byte, 16)...), byte(len(id)>>8), byte(len(id))) // the AAGUID, none, and the ID's length
	auth = append(append(auth, id...), 0xa0)                                          // the COSE key, which Enroll does not read
	der, err := x509.MarshalPKIXPublicKey(a.public)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"credential": a.credential, "publicKey": b64.EncodeToString(der), "clientData": b64.EncodeToString(client), "authenticatorData": b64.EncodeToString(auth)}
}

// enrol enrols a through the page, its registration changed by pre (before it
// is made) and post, and returns the response.
func (p *passkeyPage) enrol(t *testing.T, a *authenticator, pre func(a *authenticator, nonce *string), post func(map[string]string)) *httptest.ResponseRecorder {
	t.Helper()
	r, nonce := *a, p.info(t).Nonce
	r.typ, r.flags, r.counter = "webauthn.create", 0x45, 0
	if pre != nil {
		pre(&r, &nonce)
	}
	reg := r.registration(t, nonce)
	if post != nil {
		post(reg)
	}
	return authed(p.h, "POST", "/passkey", string(marshal(t, reg)))
}

// TestInboxEnroll: the page enrols a passkey (ES256 or Ed25519) through POST
// /passkey; AcceptPasskey sees its key, and Passkeys and GET /passkey list it.
// Each broken check is a 400 naming it, a refusal of AcceptPasskey a 403, and
// neither keeps the key.
func TestInboxEnroll(t *testing.T) {
	for _, kind := range []string{"ES256", "Ed25519"} {
		p, a := newPasskeyPage(t), newAuthenticator(t, kind)
		if info := p.info(t); info.RelyingParty != "localhost" || len(info.Nonce) != 22 || info.Credentials == nil || len(info.Credentials) != 0 {
			t.Fatalf("%s: GET /passkey = %+v, want localhost, a nonce and no credentials", kind, info)
		}
		if w := p.enrol(t, a, nil, nil); w.Code != 204 {
			t.Fatalf("%s: POST /passkey = %d %s, want 204", kind, w.Code, w.Body)
		}
		var keys []map[string]any
		_ = json.Unmarshal(p.inbox.Passkeys(), &keys)
		der, _ := x509.MarshalPKIXPublicKey(a.public)
		want := fmt.Sprintf(`{"credential":%q,"publicKey":%q,"relyingParty":"localhost"}`, a.credential, b64.EncodeToString(der))
		if len(p.accepted) != 1 || string(p.accepted[0]) != want || len(keys) != 1 || keys[0]["credential"] != a.credential || keys[0]["counter"] != nil {
			t.Fatalf("%s: AcceptPasskey saw %q, Passkeys() = %s; want %s once", kind, p.accepted, p.inbox.Passkeys(), want)
		}
		if info := p.info(t); len(info.Credentials) != 1 || info.Credentials[0] != a.credential {
			t.Errorf("%s: GET /passkey lists %q, want %q", kind, info.Credentials, a.credential)
		}
	}

	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	rsaDER, _ := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
	p := newPasskeyPage(t)
	used := p.info(t).Nonce
	if w := p.enrol(t, newAuthenticator(t, "ES256"), func(_ *authenticator, n *string) { *n = used }, nil); w.Code != 204 {
		t.Fatalf("POST /passkey = %d %s, want 204", w.Code, w.Body)
	}
	enrolled := newAuthenticator(t, "ES256")
	if w := p.enrol(t, enrolled, nil, nil); w.Code != 204 {
		t.Fatal(w.Body)
	}
	for _, tc := range []struct {
		name string
		pre  func(a *authenticator, nonce *string)
		post func(map[string]string)
		why  string
	}{
		{"an assertion's type", func(a *authenticator, _ *string) { a.typ = "webauthn.get" }, nil, "client data"},
		{"a used nonce", func(_ *authenticator, n *string) { *n = used }, nil, "fresh nonce"},
		{"an unknown nonce", func(_ *authenticator, n *string) { *n = b64.EncodeToString(make([]byte, 16)) }, nil, "fresh nonce"},
		{"another origin", func(a *authenticator, _ *string) { a.origin = "http://evil.test" }, nil, "origin"},
		{"http off localhost", func(a *authenticator, _ *string) { a.origin = "http://127.0.0.1:8080" }, nil, "origin"},
		{"another RP hash", func(a *authenticator, _ *string) { a.rp = "evil.test" }, nil, "relying party's"},
		{"UP off", func(a *authenticator, _ *string) { a.flags = 0x44 }, nil, "user present and verified"},
		{"UV off", func(a *authenticator, _ *string) { a.flags = 0x41 }, nil, "user present and verified"},
		{"AT off", func(a *authenticator, _ *string) { a.flags = 0x05 }, nil, "for this credential"},
		{"another credential", nil, func(r map[string]string) { r["credential"] = b64.EncodeToString([]byte("another one")) }, "for this credential"},
		{"no credential", nil, func(r map[string]string) { r["credential"] = "" }, "for this credential"},
		{"a credential of the same length", nil, func(r map[string]string) { r["credential"] = b64.EncodeToString(make([]byte, 16)) }, "for this credential"},
		{"cut authenticator data", nil, func(r map[string]string) { r["authenticatorData"] = r["authenticatorData"][:40] }, "authenticator data"},
		{"an RSA key", nil, func(r map[string]string) { r["publicKey"] = b64.EncodeToString(rsaDER) }, "P-256 ECDSA or Ed25519"},
		{"no key", nil, func(r map[string]string) { r["publicKey"] = "" }, "P-256 ECDSA or Ed25519"},
		{"a duplicate", func(a *authenticator, _ *string) { *a = *enrolled; a.typ, a.flags = "webauthn.create", 0x45 }, nil, "accepted already"},
		{"no JSON", nil, func(r map[string]string) { clear(r) }, "authenticator data"},
	} {
		before := string(p.inbox.Passkeys())
		w := p.enrol(t, newAuthenticator(t, "Ed25519"), tc.pre, tc.post)
		var e ui.HarnessError
		if _ = json.Unmarshal(w.Body.Bytes(), &e); w.Code != 400 || e.Code != ui.CodeInvalidRequest || !strings.Contains(e.Message, tc.why) {
			t.Errorf("%s: POST /passkey = %d %s, want 400 INVALID_REQUEST saying %q", tc.name, w.Code, w.Body, tc.why)
		}
		if after := string(p.inbox.Passkeys()); after != before || len(p.accepted) != 2 {
			t.Errorf("%s: Passkeys() = %s, AcceptPasskey called %d times; want them as before", tc.name, after, len(p.accepted))
		}
	}
	// A key AcceptPasskey refuses, or an Inbox without AcceptPasskey: 403, not kept.
	p.refuse = errors.New("this host takes no passkey of that kind")
	if w := p.enrol(t, newAuthenticator(t, "ES256"), nil, nil); w.Code != 403 || !strings.Contains(w.Body.String(), "no passkey of that kind") || len(p.accepted) != 3 {
		t.Errorf("refused by AcceptPasskey: POST /passkey = %d %s, want 403 with its error", w.Code, w.Body)
	}
	p.inbox.AcceptPasskey = nil
	if w := p.enrol(t, newAuthenticator(t, "ES256"), nil, nil); w.Code != 403 || !strings.Contains(w.Body.String(), "AcceptPasskey") {
		t.Errorf("no AcceptPasskey: POST /passkey = %d %s, want 403", w.Code, w.Body)
	}
	if info := p.info(t); len(info.Credentials) != 2 {
		t.Errorf("GET /passkey lists %q, want the two accepted", info.Credentials)
	}
	// AcceptPasskey runs with no lock held: one that enrols the same key under
	// another nonce, which is kept first, makes the outer enrolment a duplicate.
	twice := newAuthenticator(t, "ES256")
	twice.typ, twice.flags = "webauthn.create", 0x45
	var inner error
	nested := &ui.Inbox{RelyingParty: "localhost"}
	nested.AcceptPasskey = func([]byte) error {
		if inner == nil {
			inner = errors.New("running")
			inner = nested.Enroll(marshal(t, twice.registration(t, nested.Nonce())))
		}
		return nil
	}
	if err := nested.Enroll(marshal(t, twice.registration(t, nested.Nonce()))); ui.CodeOf(err) != ui.CodeInvalidRequest || inner != nil || strings.Count(string(nested.Passkeys()), "credential") != 1 {
		t.Errorf("Enroll() around an AcceptPasskey that enrols the key = %v, inner %v, Passkeys() = %s; want INVALID_REQUEST, nil, one key", err, inner, nested.Passkeys())
	}
	// No relying party: the page hides its button, and Enroll refuses.
	plain := &ui.Inbox{AcceptPasskey: func([]byte) error { return nil }}
	w := authed(plain.Handler(pageToken), "GET", "/passkey", "")
	if !strings.Contains(w.Body.String(), `"relyingParty":""`) {
		t.Errorf("GET /passkey without a relying party = %s", w.Body)
	}
	reg := newAuthenticator(t, "ES256")
	reg.typ, reg.flags = "webauthn.create", 0x45
	if err := plain.Enroll(marshal(t, reg.registration(t, plain.Nonce()))); ui.CodeOf(err) != ui.CodeInvalidRequest {
		t.Errorf("Enroll() without a relying party = %v, want INVALID_REQUEST", err)
	}
}

// provenAnswer returns the page's POST body answering question id of req by
// picking label, with a's receipt over it under nonce.
func provenAnswer(t *testing.T, a *authenticator, nonce, id string, req ui.Request, label string) map[string]any {
	t.Helper()
	signed := ui.SignedBytes(nonce, []string{id}, []ui.Request{req}, []ui.Answer{{Option: &ui.Option{Label: label}}})
	return map[string]any{"action": "accept", "content": map[string]any{"choice": label}, "proof": a.sign(t, signed)}
}

// TestInboxProvenAnswer: a proven question's answer is taken once its
// receipt passes every check; Ask returns it with its receipt, which verifies
// offline against Passkeys, and Ended sees it. Each broken check is a 422
// with a hint for the human, and the question stays open.
func TestInboxProvenAnswer(t *testing.T) {
	for _, kind := range []string{"ES256", "Ed25519"} {
		p, a := newPasskeyPage(t), newAuthenticator(t, kind)
		if w := p.enrol(t, a, nil, nil); w.Code != 204 {
			t.Fatal(w.Body)
		}
		var ended []ui.Outcome
		ctx := scopeWith(t, &ui.Registry{Ended: func(_ ui.Request, o ui.Outcome) { ended = append(ended, o) }}, p.inbox)
		done := askInbox(ctx, deleteProd)
		q := waitPending(t, p.inbox, 1)[0]
		a.counter = 8
		if w := authed(p.h, "POST", "/questions/"+q.ID, string(marshal(t, provenAnswer(t, a, p.info(t).Nonce, q.ID, deleteProd, "Delete")))); w.Code != 204 {
			t.Fatalf("%s: POST = %d %s, want 204", kind, w.Code, w.Body)
		}
		o := receive(t, done)
		if o.err != nil || o.answers[0].Proof == nil || o.answers[0].Option.Value != "delete" || o.answers[0].Via != "page" {
			t.Fatalf("%s: Ask() = %v, want Delete with its receipt", kind, o)
		}
		if err := ui.VerifyProof(p.inbox.Passkeys(), deleteProd, o.answers[0]); err != nil {
			t.Errorf("%s: VerifyProof(Passkeys()) = %v, want nil", kind, err)
		}
		if len(ended) != 1 || ended[0].Answer.Proof == nil || *ended[0].Answer.Proof != *o.answers[0].Proof {
			t.Errorf("%s: Ended saw %+v, want the proven answer", kind, ended)
		}
		if !strings.Contains(string(p.inbox.Passkeys()), `"counter":8`) {
			t.Errorf("%s: Passkeys() = %s, want the counter 8 kept", kind, p.inbox.Passkeys())
		}
	}
}

// TestInboxProofRefused: an answer to a proven question is refused, with
// the question open and a hint, for each check it fails; then the right
// answer is taken.
func TestInboxProofRefused(t *testing.T) {
	p, a := newPasskeyPage(t), newAuthenticator(t, "ES256")
	if w := p.enrol(t, a, nil, nil); w.Code != 204 {
		t.Fatal(w.Body)
	}
	stranger := newAuthenticator(t, "ES256")
	ctx := scope(t, p.inbox)
	other := ui.Request{Question: "Drop the cache?", Options: deleteProd.Options, DisallowCustom: true, RequireProof: true}
	counter := uint32(10)
	usedNonce := ""
	for _, tc := range []struct {
		name string
		body func(id, nonce string) map[string]any
		hint string
	}{
		{"no proof", func(id, _ string) map[string]any {
			return map[string]any{"action": "accept", "content": map[string]any{"choice": "Delete"}}
		}, "This question needs your passkey: add one on this page, then send again."},
		{"another question's ID", func(_, n string) map[string]any {
			return provenAnswer(t, a, n, strings.Repeat("0", 32), deleteProd, "Delete")
		}, "no question it signed"},
		{"another question", func(id, n string) map[string]any { return provenAnswer(t, a, n, id, other, "Delete") }, "no question it signed"},
		{"another answer", func(id, n string) map[string]any {
			body := provenAnswer(t, a, n, id, deleteProd, "Keep")
			body["content"] = map[string]any{"choice": "Delete"}
			return body
		}, "no question it signed"},
		{"a nonce never issued", func(id, _ string) map[string]any {
			return provenAnswer(t, a, b64.EncodeToString([]byte("not this inbox's")), id, deleteProd, "Delete")
		}, "nonce"},
		{"an expired nonce", func(id, n string) map[string]any {
			ui.AgeNonces(p.inbox, 5*time.Minute)
			return provenAnswer(t, a, n, id, deleteProd, "Delete")
		}, "nonce"},
		{"a counter that went back", func(id, n string) map[string]any {
			a.counter = 3
			return provenAnswer(t, a, n, id, deleteProd, "Delete")
		}, "counter"},
		{"a counter that stayed", func(id, n string) map[string]any {
			a.counter = counter
			return provenAnswer(t, a, n, id, deleteProd, "Delete")
		}, "counter"},
		{"a counter of 0 after 10", func(id, n string) map[string]any {
			a.counter = 0
			return provenAnswer(t, a, n, id, deleteProd, "Delete")
		}, "counter"},
		{"UP off", func(id, n string) map[string]any {
			a.flags = 0x04
			defer func() { a.flags = 0x05 }()
			return provenAnswer(t, a, n, id, deleteProd, "Delete")
		}, "user present and verified"},
		{"UV off", func(id, n string) map[string]any {
			a.flags = 0x01
			defer func() { a.flags = 0x05 }()
			return provenAnswer(t, a, n, id, deleteProd, "Delete")
		}, "user present and verified"},
		{"a passkey never accepted", func(id, n string) map[string]any { return provenAnswer(t, stranger, n, id, deleteProd, "Delete") }, "no accepted passkey"},
		{"a non-canonical Signed", func(id, n string) map[string]any {
			signed := strings.Replace(string(ui.SignedBytes(n, []string{id}, []ui.Request{deleteProd}, []ui.Answer{pickDelete})), `"nonce"`, `"NONCE"`, 1)
			return map[string]any{"action": "accept", "content": map[string]any{"choice": "Delete"}, "proof": a.sign(t, []byte(signed))}
		}, "canonical"},
		{"a duplicate key in Signed", func(id, n string) map[string]any {
			signed := `{"nonce":"x",` + strings.TrimPrefix(string(ui.SignedBytes(n, []string{id}, []ui.Request{deleteProd}, []ui.Answer{pickDelete})), "{")
			return map[string]any{"action": "accept", "content": map[string]any{"choice": "Delete"}, "proof": a.sign(t, []byte(signed))}
		}, "canonical"},
		{"a nonce used before for this question", func(id, _ string) map[string]any {
			return provenAnswer(t, a, usedNonce, id, deleteProd, "Delete")
		}, "nonce"},
	} {
		qctx := ui.WithQuestionID(ctx, strings.Repeat("ab", 16)) // the same ID each time
		done := askInbox(qctx, deleteProd)
		q := waitPending(t, p.inbox, 1)[0]
		a.counter = counter + 1
		w := authed(p.h, "POST", "/questions/"+q.ID, string(marshal(t, tc.body(q.ID, p.info(t).Nonce))))
		var reply struct {
			Code, Hint string
		}
		_ = json.Unmarshal(w.Body.Bytes(), &reply)
		if w.Code != 422 || reply.Code != ui.CodeInvalidAnswer || !strings.Contains(reply.Hint, tc.hint) || len(p.inbox.Pending()) != 1 {
			t.Errorf("%s: POST = %d %s with %d open, want 422 with a hint saying %q and the question open", tc.name, w.Code, w.Body, len(p.inbox.Pending()), tc.hint)
		}
		if got := p.inbox.Pending(); len(got) == 1 && got[0].Hint != reply.Hint {
			t.Errorf("%s: Pending's hint = %q, want the reply's %q", tc.name, got[0].Hint, reply.Hint)
		}
		// The right answer is taken, with the counter going up.
		counter++
		a.counter = counter
		nonce := p.info(t).Nonce
		if w := authed(p.h, "POST", "/questions/"+q.ID, string(marshal(t, provenAnswer(t, a, nonce, q.ID, deleteProd, "Delete")))); w.Code != 204 {
			t.Fatalf("%s: then the right answer: POST = %d %s, want 204", tc.name, w.Code, w.Body)
		}
		if o := receive(t, done); o.err != nil || o.answers[0].Proof == nil {
			t.Fatalf("%s: Ask() = %v, want the proven answer", tc.name, o)
		}
		usedNonce = nonce
	}
}

// TestInboxProofCounterZero: a passkey whose counter stays 0 (synced
// passkeys) answers again and again.
func TestInboxProofCounterZero(t *testing.T) {
	p, a := newPasskeyPage(t), newAuthenticator(t, "Ed25519")
	if w := p.enrol(t, a, nil, nil); w.Code != 204 {
		t.Fatal(w.Body)
	}
	a.counter = 0
	ctx := scope(t, p.inbox)
	for i := range 2 {
		done := askInbox(ctx, deleteProd)
		q := waitPending(t, p.inbox, 1)[0]
		if w := authed(p.h, "POST", "/questions/"+q.ID, string(marshal(t, provenAnswer(t, a, p.info(t).Nonce, q.ID, deleteProd, "Delete")))); w.Code != 204 {
			t.Fatalf("answer %d with counter 0: POST = %d %s, want 204", i, w.Code, w.Body)
		}
		receive(t, done)
	}
}

// TestInboxProofDecline: a decline or a dismissal of a proven question needs
// no passkey; an Inbox without a relying party refuses the question, and
// FirstOf's Terminal drops out while the page answers.
func TestInboxProofDecline(t *testing.T) {
	p := newPasskeyPage(t)
	ctx := scope(t, p.inbox)
	for _, action := range []string{"decline", "cancel"} {
		done := askInbox(ctx, deleteProd)
		q := waitPending(t, p.inbox, 1)[0]
		if w := authed(p.h, "POST", "/questions/"+q.ID, `{"action":"`+action+`"}`); w.Code != 204 {
			t.Fatalf("%s: POST = %d %s, want 204", action, w.Code, w.Body)
		}
		if o := receive(t, done); ui.CodeOf(o.err) != map[string]string{"decline": ui.CodeAskDeclined, "cancel": ui.CodeAskCancelled}[action] {
			t.Errorf("%s: Ask() = %v", action, o)
		}
	}
	_, err := ui.Ask(scope(t, &ui.Inbox{}), deleteProd)
	if wantCode(t, "Ask of an Inbox without a relying party", err, ui.CodeAskUnsupported); !strings.Contains(err.Error(), "RelyingParty is empty") {
		t.Errorf("Ask of an Inbox without a relying party = %v, want it to say why", err)
	}

	a := newAuthenticator(t, "ES256")
	if w := p.enrol(t, a, nil, nil); w.Code != 204 {
		t.Fatal(w.Body)
	}
	done := askInbox(scope(t, ui.FirstOf(ui.NewTerminal(strings.NewReader(""), &strings.Builder{}), p.inbox)), deleteProd)
	q := waitPending(t, p.inbox, 1)[0]
	a.counter = 9
	if w := authed(p.h, "POST", "/questions/"+q.ID, string(marshal(t, provenAnswer(t, a, p.info(t).Nonce, q.ID, deleteProd, "Delete")))); w.Code != 204 {
		t.Fatalf("FirstOf: POST = %d %s, want 204", w.Code, w.Body)
	}
	if o := receive(t, done); o.err != nil || o.answers[0].Proof == nil || ui.VerifyProof(p.inbox.Passkeys(), deleteProd, o.answers[0]) != nil {
		t.Errorf("FirstOf(Terminal, inbox): Ask() = %v, want the page's proven answer", o)
	}
}

// TestInboxNonces: a nonce is single use for an enrolment, 1,000 are kept
// (the oldest forgotten first), and each is 16 random bytes.
func TestInboxNonces(t *testing.T) {
	p := newPasskeyPage(t)
	first := p.inbox.Nonce()
	seen := map[string]bool{first: true}
	for range 999 {
		seen[p.inbox.Nonce()] = true
	}
	if len(seen) != 1000 {
		t.Fatalf("1,000 nonces hold %d distinct ones", len(seen))
	}
	second := p.info(t).Nonce // the 1,001st: the first is forgotten
	a := newAuthenticator(t, "ES256")
	if w := p.enrol(t, a, func(_ *authenticator, n *string) { *n = first }, nil); w.Code != 400 {
		t.Errorf("enrolment under the forgotten first nonce: %d %s, want 400", w.Code, w.Body)
	}
	if w := p.enrol(t, a, func(_ *authenticator, n *string) { *n = second }, nil); w.Code != 204 {
		t.Errorf("enrolment under a kept nonce: %d %s, want 204", w.Code, w.Body)
	}
}

// TestInboxSetPasskeys: Passkeys' JSON restores through SetPasskeys, counters
// and all, and a bad list is refused and leaves the keys as they were.
func TestInboxSetPasskeys(t *testing.T) {
	p, a := newPasskeyPage(t), newAuthenticator(t, "Ed25519")
	if string(p.inbox.Passkeys()) != "[]" {
		t.Fatalf("Passkeys() = %s, want []", p.inbox.Passkeys())
	}
	a.counter = 41
	if w := p.enrol(t, a, func(r *authenticator, _ *string) { r.counter = 41 }, nil); w.Code != 204 {
		t.Fatal(w.Body)
	}
	kept := p.inbox.Passkeys()
	restored := &ui.Inbox{RelyingParty: "localhost"}
	if err := restored.SetPasskeys(kept); err != nil || string(restored.Passkeys()) != string(kept) || !strings.Contains(string(kept), `"counter":41`) {
		t.Fatalf("SetPasskeys(%s) = %v, Passkeys() = %s; want them back", kept, err, restored.Passkeys())
	}
	der, _ := x509.MarshalPKIXPublicKey(a.public)
	key := func(credential, publicKey, rp string) string {
		return fmt.Sprintf(`{"credential":%q,"publicKey":%q,"relyingParty":%q}`, credential, publicKey, rp)
	}
	good := key("Y3JlZA", b64.EncodeToString(der), "localhost")
	var list []string
	for i := range 101 {
		list = append(list, key(b64.EncodeToString([]byte{byte(i), 1}), b64.EncodeToString(der), "localhost"))
	}
	many := "[" + strings.Join(list, ",") + "]"
	for _, bad := range []string{"", "{}", "[1]", "[" + good + "," + good + "]", "[" + key("Y3JlZA", b64.EncodeToString(der), "") + "]",
		"[" + key("Y3JlZA==", b64.EncodeToString(der), "localhost") + "]", "[" + key("", b64.EncodeToString(der), "localhost") + "]",
		"[" + key("Y3JlZA", "not base64", "localhost") + "]", "[" + key("Y3JlZA", b64.EncodeToString([]byte("no key")), "localhost") + "]",
		`[{"credential":"Y3JlZA","publicKey":"` + b64.EncodeToString(der) + `","relyingParty":"localhost","counter":-1}]`, many} {
		if err := restored.SetPasskeys([]byte(bad)); ui.CodeOf(err) != ui.CodeInvalidRequest || string(restored.Passkeys()) != string(kept) {
			t.Errorf("SetPasskeys(%.80s) = %v, Passkeys() = %s; want INVALID_REQUEST and them as before", bad, err, restored.Passkeys())
		}
	}
	if err := restored.SetPasskeys([]byte("[" + strings.Join(list[:100], ",") + "]")); err != nil {
		t.Errorf("SetPasskeys(100 keys) = %v", err)
	}
	if err := restored.SetPasskeys([]byte("null")); err != nil || string(restored.Passkeys()) != "[]" {
		t.Errorf("SetPasskeys(null) = %v, Passkeys() = %s; want none", err, restored.Passkeys())
	}
}

// TestInboxEnrollRefusedSpendsNoNonce: an enrolment refused as
// INVALID_REQUEST leaves the Inbox as it was: its nonce still enrols.
func TestInboxEnrollRefusedSpendsNoNonce(t *testing.T) {
	p, a := newPasskeyPage(t), newAuthenticator(t, "ES256")
	nonce := p.info(t).Nonce
	if w := p.enrol(t, a, func(r *authenticator, n *string) { *n, r.flags = nonce, 0x41 }, nil); w.Code != 400 {
		t.Fatalf("UV off: POST /passkey = %d %s, want 400", w.Code, w.Body)
	}
	if w := p.enrol(t, a, func(_ *authenticator, n *string) { *n = nonce }, nil); w.Code != 204 {
		t.Errorf("then under the same nonce with UV on: POST /passkey = %d %s, want 204", w.Code, w.Body)
	}
}
