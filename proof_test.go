package userinteraction_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"strings"
	"testing"

	ui "github.com/dsh-go/userinteraction"
)

// deleteProd is a question that requires a proven answer.
var deleteProd = ui.Request{
	Question:       "Delete the production database?",
	Options:        []ui.Option{{Label: "Delete", Value: "delete"}, {Label: "Keep", Value: "keep"}},
	DisallowCustom: true,
	RequireProof:   true,
}

// authenticator makes assertions as a passkey's authenticator and its
// browser would, with fields a test may spoil.
type authenticator struct {
	credential string
	key        any // *ecdsa.PrivateKey or ed25519.PrivateKey
	public     any
	rp         string // the relying party the authenticator data names
	origin     string
	typ        string
	flags      byte
	counter    uint32 // the signature counter its authenticator data holds
}

func newAuthenticator(t testing.TB, kind string) *authenticator {
	t.Helper()
	a := &authenticator{rp: "localhost", origin: "http://localhost:8080", typ: "webauthn.get", flags: 0x05, counter: 7}
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	a.credential = b64.EncodeToString(id)
	switch kind {
	case "ES256":
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		a.key, a.public = k, &k.PublicKey
	case "Ed25519":
		pub, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		a.key, a.public = k, pub
	}
	return a
}

// keys returns the accepted-keys JSON that accepts a, for the relying party rp.
func (a *authenticator) keys(t testing.TB, rp string) []byte {
	t.Helper()
	return keysOf(t, a.credential, a.public, rp)
}

func keysOf(t testing.TB, credential string, public any, rp string) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(public)
	if err != nil {
		t.Fatal(err)
	}
	return marshal(t, []map[string]string{{"credential": credential, "publicKey": b64.EncodeToString(der), "relyingParty": rp}})
}

// sign returns a's receipt over signed.
func (a *authenticator) sign(t testing.TB, signed []byte) *ui.Receipt {
	t.Helper()
	challenge := sha256.Sum256(signed)
	client := marshal(t, map[string]any{"type": a.typ, "challenge": b64.EncodeToString(challenge[:]), "origin": a.origin, "crossOrigin": false})
	rpHash := sha256.Sum256([]byte(a.rp))
	auth := binary.BigEndian.AppendUint32(append(rpHash[:], a.flags), a.counter) // the offline check reads no counter
	clientHash := sha256.Sum256(client)
	msg := append(append([]byte(nil), auth...), clientHash[:]...)
	var sig []byte
	switch k := a.key.(type) {
	case *ecdsa.PrivateKey:
		digest := sha256.Sum256(msg)
		var err error
		if sig, err = ecdsa.SignASN1(rand.Reader, k, digest[:]); err != nil {
			t.Fatal(err)
		}
	case ed25519.PrivateKey:
		sig = ed25519.Sign(k, msg)
	}
	return &ui.Receipt{Credential: a.credential, Signed: b64.EncodeToString(signed), ClientData: b64.EncodeToString(client),
		AuthenticatorData: b64.EncodeToString(auth), Signature: b64.EncodeToString(sig)}
}

// prove returns a's receipt for answers sent to a batch of reqs under nonce.
func (a *authenticator) prove(t testing.TB, nonce string, reqs []ui.Request, sent []ui.Answer) *ui.Receipt {
	t.Helper()
	ids := make([]string, len(reqs))
	for i := range ids {
		ids[i] = strings.Repeat("0", 31) + string(rune('a'+i))
	}
	return a.sign(t, ui.SignedBytes(nonce, ids, reqs, sent))
}

// asked returns what Ask returns when a proving UI answers req with sent and
// the receipt of a.
func asked(t *testing.T, req ui.Request, sent ui.Answer, proof *ui.Receipt) ui.Answer {
	t.Helper()
	sent.Proof, sent.Via = proof, "page"
	ans, err := ui.Ask(scope(t, ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) { return sent, nil })), req)
	if err != nil || ans.Proof == nil {
		t.Fatalf("Ask() = %+v, %v; want a proven answer", ans, err)
	}
	return ans
}

var pickDelete = ui.Answer{Option: &ui.Option{Label: "Delete"}}

func TestVerifyProof(t *testing.T) {
	multi := ui.Request{Question: "Which to drop?", Options: []ui.Option{{Label: "A"}, {Label: "B"}, {Label: "C"}}, MultiSelect: true, RequireProof: true}
	typed := ui.Request{Question: "Why?", RequireProof: true, Agent: &ui.Agent{ID: "cleanup-bot"}}
	for _, kind := range []string{"ES256", "Ed25519"} {
		a := newAuthenticator(t, kind)
		keys := a.keys(t, "localhost")
		ans := asked(t, deleteProd, pickDelete, a.prove(t, "n1", []ui.Request{deleteProd}, []ui.Answer{pickDelete}))
		if err := ui.VerifyProof(keys, deleteProd, ans); err != nil {
			t.Errorf("%s: VerifyProof() = %v, want nil", kind, err)
		}
		// A batch answered together: one signature over all of its questions.
		picks := ui.Answer{Options: []ui.Option{{Label: "C"}, {Label: "A"}}, Text: "and the logs"}
		words := ui.Answer{Text: "It is <b>empty</b>\u2028now"}
		batch := []ui.Request{deleteProd, multi, typed}
		proof := a.prove(t, "n2", batch, []ui.Answer{pickDelete, picks, words})
		for i, sent := range []ui.Answer{pickDelete, picks, words} {
			if err := ui.VerifyProof(keys, batch[i], asked(t, batch[i], sent, proof)); err != nil {
				t.Errorf("%s: batch question %d: VerifyProof() = %v, want nil", kind, i, err)
			}
		}
		if got := asked(t, multi, picks, proof); got.Text != "A, C, and the logs" {
			t.Errorf("%s: the completed multi-select answer = %q", kind, got.Text)
		}
	}
	// Another relying party's subdomain is its own origin.
	a := newAuthenticator(t, "ES256")
	a.rp, a.origin = "example.com", "https://app.example.com"
	ans := asked(t, deleteProd, pickDelete, a.prove(t, "n", []ui.Request{deleteProd}, []ui.Answer{pickDelete}))
	if err := ui.VerifyProof(a.keys(t, "example.com"), deleteProd, ans); err != nil {
		t.Errorf("subdomain origin: VerifyProof() = %v, want nil", err)
	}
}

// TestVerifyProofAnyChangedByte: a receipt fails once any byte of any field
// changed, in its base64url or in the bytes it encodes.
func TestVerifyProofAnyChangedByte(t *testing.T) {
	for _, kind := range []string{"ES256", "Ed25519"} {
		a := newAuthenticator(t, kind)
		keys := a.keys(t, "localhost")
		ans := asked(t, deleteProd, pickDelete, a.prove(t, "n1", []ui.Request{deleteProd}, []ui.Answer{pickDelete}))
		good := *ans.Proof
		fields := []*string{&ans.Proof.Credential, &ans.Proof.Signed, &ans.Proof.ClientData, &ans.Proof.AuthenticatorData, &ans.Proof.Signature}
		for f, field := range fields {
			text := *field
			raw, _ := b64.DecodeString(text)
			for i := range text {
				c := byte('A')
				if text[i] == 'A' {
					c = 'B'
				}
				*field = text[:i] + string(c) + text[i+1:]
				if err := ui.VerifyProof(keys, deleteProd, ans); ui.CodeOf(err) != ui.CodeInvalidAnswer {
					t.Fatalf("%s: field %d, char %d changed: VerifyProof() = %v, want INVALID_ANSWER", kind, f, i, err)
				}
			}
			for i := range raw {
				flipped := bytes.Clone(raw)
				flipped[i] ^= 0x01
				*field = b64.EncodeToString(flipped)
				if err := ui.VerifyProof(keys, deleteProd, ans); ui.CodeOf(err) != ui.CodeInvalidAnswer {
					t.Fatalf("%s: field %d, byte %d flipped: VerifyProof() = %v, want INVALID_ANSWER", kind, f, i, err)
				}
			}
			*field = text + "\n"
			if err := ui.VerifyProof(keys, deleteProd, ans); ui.CodeOf(err) != ui.CodeInvalidAnswer {
				t.Fatalf("%s: field %d with a line feed: VerifyProof() = %v, want INVALID_ANSWER", kind, f, err)
			}
			*field = text
		}
		if *ans.Proof != good || ui.VerifyProof(keys, deleteProd, ans) != nil {
			t.Fatalf("%s: the restored receipt no longer verifies", kind)
		}
	}
}

func TestVerifyProofRefuses(t *testing.T) {
	a := newAuthenticator(t, "ES256")
	keys := a.keys(t, "localhost")
	one := []ui.Request{deleteProd}
	proven := func(sent ui.Answer, proof *ui.Receipt) ui.Answer { sent.Proof = proof; return sent }
	spoilt := func(spoil func(*authenticator)) *ui.Receipt {
		b := *a
		spoil(&b)
		return b.prove(t, "n1", one, []ui.Answer{pickDelete})
	}
	other := deleteProd
	other.Question = "Delete the staging database?"
	keep := ui.Answer{Option: &ui.Option{Label: "Keep"}}
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	notProven := deleteProd
	notProven.RequireProof = false
	for _, tc := range []struct {
		name string
		keys []byte
		req  ui.Request
		ans  ui.Answer
		want string // in the message
	}{
		{"no receipt", keys, deleteProd, pickDelete, "no receipt"},
		{"another question", keys, deleteProd, proven(pickDelete, a.prove(t, "n1", []ui.Request{other}, []ui.Answer{pickDelete})), "no question it signed"},
		{"another answer", keys, deleteProd, proven(keep, a.prove(t, "n1", one, []ui.Answer{pickDelete})), "no question it signed"},
		{"a receipt of another nonce reused for another answer", keys, deleteProd, proven(pickDelete, a.prove(t, "n0", one, []ui.Answer{keep})), "no question it signed"},
		{"the request without RequireProof", keys, notProven, proven(pickDelete, a.prove(t, "n1", one, []ui.Answer{pickDelete})), "no question it signed"},
		{"an answer that breaks the rules", keys, deleteProd, proven(ui.Answer{Text: "drop it"}, a.prove(t, "n1", one, []ui.Answer{{Text: "drop it"}})), "no question it signed"},
		{"no nonce", keys, deleteProd, proven(pickDelete, a.prove(t, "", one, []ui.Answer{pickDelete})), "nonce"},
		{"user presence off", keys, deleteProd, proven(pickDelete, spoilt(func(b *authenticator) { b.flags = 0x04 })), "user present and verified"},
		{"user verification off", keys, deleteProd, proven(pickDelete, spoilt(func(b *authenticator) { b.flags = 0x01 })), "user present and verified"},
		{"another rpIdHash", keys, deleteProd, proven(pickDelete, spoilt(func(b *authenticator) { b.rp = "evil.test" })), "authenticator data is not the relying party's"},
		{"another origin", keys, deleteProd, proven(pickDelete, spoilt(func(b *authenticator) { b.origin = "https://evil.test" })), "origin"},
		{"a suffix that is no subdomain", keys, deleteProd, proven(pickDelete, spoilt(func(b *authenticator) { b.origin = "https://evillocalhost" })), "origin"},
		{"plain http off localhost", a.keys(t, "example.com"), deleteProd, proven(pickDelete, spoilt(func(b *authenticator) { b.rp, b.origin = "example.com", "http://example.com" })), "origin"},
		{"no origin", keys, deleteProd, proven(pickDelete, spoilt(func(b *authenticator) { b.origin = "%" })), "origin"},
		{"a registration, not an assertion", keys, deleteProd, proven(pickDelete, spoilt(func(b *authenticator) { b.typ = "webauthn.create" })), "assertion"},
		{"a credential not accepted", newAuthenticator(t, "ES256").keys(t, "localhost"), deleteProd, proven(pickDelete, a.prove(t, "n1", one, []ui.Answer{pickDelete})), "no accepted passkey"},
		{"another key under the credential", keysOf(t, a.credential, newAuthenticator(t, "Ed25519").public, "localhost"), deleteProd, proven(pickDelete, a.prove(t, "n1", one, []ui.Answer{pickDelete})), "signature"},
		{"an accepted key without a relying party", a.keys(t, ""), deleteProd, proven(pickDelete, a.prove(t, "n1", one, []ui.Answer{pickDelete})), "relying party"},
		{"an RSA key", keysOf(t, a.credential, &rsaKey.PublicKey, "localhost"), deleteProd, proven(pickDelete, a.prove(t, "n1", one, []ui.Answer{pickDelete})), "ES256 or Ed25519"},
		{"a P-384 key", keysOf(t, a.credential, &p384.PublicKey, "localhost"), deleteProd, proven(pickDelete, a.prove(t, "n1", one, []ui.Answer{pickDelete})), "signature"},
		{"keys that are no JSON", []byte("{"), deleteProd, proven(pickDelete, a.prove(t, "n1", one, []ui.Answer{pickDelete})), "no accepted passkey"},
		{"signed bytes that are no JSON", keys, deleteProd, proven(pickDelete, a.sign(t, []byte("not json"))), "not the JSON"},
	} {
		err := ui.VerifyProof(tc.keys, tc.req, tc.ans)
		if ui.CodeOf(err) != ui.CodeInvalidAnswer || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: VerifyProof() = %v, want INVALID_ANSWER saying %q", tc.name, err, tc.want)
		}
	}
}

// TestRequireProofRefused: every shipped UI that cannot prove an answer
// refuses a question that requires one before it shows anything.
func TestRequireProofRefused(t *testing.T) {
	plain := ui.Request{Question: "Proceed?"}
	var out bytes.Buffer
	term := ui.NewTerminal(strings.NewReader("1\n"), &out)
	_, err := ui.Ask(scope(t, term), deleteProd)
	wantCode(t, "Terminal Ask", err, ui.CodeAskUnsupported)
	_, err = ui.AskAll(scope(t, term), []ui.Request{plain, deleteProd})
	wantCode(t, "Terminal AskAll", err, ui.CodeAskUnsupported)
	if out.Len() != 0 {
		t.Errorf("the Terminal wrote %q for a question it refused", out.String())
	}

	sent := 0
	elicit := func(context.Context, ui.Elicitation) (string, map[string]any, error) {
		sent++
		return "accept", map[string]any{"choice": "Delete"}, nil
	}
	_, err = ui.Ask(scope(t, ui.NewForm(elicit)), deleteProd)
	wantCode(t, "Form Ask", err, ui.CodeAskUnsupported)
	ui.Wait(ui.WithRegistry(context.Background(), &ui.Registry{}), elicit, true, "mcp:test", func(ctx context.Context) {
		_, err = ui.AskAll(ctx, []ui.Request{plain, deleteProd})
	})
	wantCode(t, "Wait's AskAll", err, ui.CodeAskUnsupported)
	if sent != 0 {
		t.Errorf("%d forms sent for questions refused", sent)
	}

	forms, _, rerr := ui.Round(ui.WithRegistry(context.Background(), &ui.Registry{}), sealKey, "binding", "", nil, "mcp:test", func(ctx context.Context) {
		_, err = ui.Ask(ctx, deleteProd)
	})
	wantCode(t, "Round's Ask", err, ui.CodeAskUnsupported)
	if rerr != nil || len(forms) != 0 || !strings.Contains(err.Error(), "MCP client") {
		t.Errorf("Round() = %v, %v; want no forms and a message naming the MCP client (%v)", forms, rerr, err)
	}

	inbox := &ui.Inbox{}
	_, err = ui.AskAll(scope(t, inbox), []ui.Request{plain, deleteProd})
	wantCode(t, "Inbox AskAll", err, ui.CodeAskUnsupported)
	_, err = ui.Ask(scope(t, inbox), deleteProd)
	wantCode(t, "Inbox Ask", err, ui.CodeAskUnsupported)
	if len(inbox.Pending()) != 0 || !strings.Contains(err.Error(), "passkey") {
		t.Errorf("Inbox: %d open, %v; want none and a message about its passkey", len(inbox.Pending()), err)
	}
}

// TestRequireProofBackstop: the registry takes no unproven answer to a
// question that requires proof, whichever provider gave it, and a decline
// needs none. In FirstOf, a UI that cannot prove drops out.
func TestRequireProofBackstop(t *testing.T) {
	var audited []ui.Outcome
	ctx := ui.WithRegistry(context.Background(), &ui.Registry{Ended: func(_ ui.Request, o ui.Outcome) { audited = append(audited, o) }})
	dispose := register(t, ctx, ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) {
		return ui.Answer{Option: &ui.Option{Label: "Delete"}, Via: "custom"}, nil
	}))
	_, err := ui.Ask(ctx, deleteProd)
	wantCode(t, "unproven Ask", err, ui.CodeAskUnsupported)
	if !strings.Contains(err.Error(), "the UI gave no proof") || len(audited) != 1 || audited[0].Answer.Via != "custom" {
		t.Errorf("Ask() = %v, audited %+v; want the UI's missing proof, audited with its Via", err, audited)
	}
	plain := deleteProd
	plain.RequireProof = false
	if _, err := ui.Ask(ctx, plain); err != nil {
		t.Errorf("a question without RequireProof: %v", err)
	}
	dispose()
	dispose = register(t, ctx, failing(ui.NewError(ui.CodeAskDeclined, "declined", nil)))
	_, err = ui.Ask(ctx, deleteProd)
	wantCode(t, "declined", err, ui.CodeAskDeclined)
	dispose()

	a := newAuthenticator(t, "Ed25519")
	proof := a.prove(t, "n", []ui.Request{deleteProd}, []ui.Answer{pickDelete})
	prover := ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) {
		return ui.Answer{Option: &ui.Option{Label: "Delete"}, Via: "page", Proof: proof}, nil
	})
	unproven := ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) {
		return ui.Answer{Option: &ui.Option{Label: "Keep"}, Via: "bot"}, nil
	})
	for name, p := range map[string]ui.Provider{
		"a Terminal":       ui.FirstOf(ui.NewTerminal(strings.NewReader("2\n"), &bytes.Buffer{}), prover),
		"an unproven UI":   ui.FirstOf(unproven, prover),
		"an Inbox":         ui.FirstOf(&ui.Inbox{}, prover),
		"a Form and Inbox": ui.FirstOf(ui.NewForm(func(context.Context, ui.Elicitation) (string, map[string]any, error) { return "decline", nil, nil }), &ui.Inbox{}, prover),
	} {
		ans, err := ui.Ask(scope(t, p), deleteProd)
		if err != nil || ans.Via != "page" || !reflect.DeepEqual(ans.Proof, proof) || ui.VerifyProof(a.keys(t, "localhost"), deleteProd, ans) != nil {
			t.Errorf("FirstOf(%s, a proving UI): %+v, %v; want the proving UI's answer", name, ans, err)
		}
	}
	_, err = ui.Ask(scope(t, ui.FirstOf(unproven, &ui.Inbox{})), deleteProd)
	wantCode(t, "FirstOf of UIs that cannot prove", err, ui.CodeAskUnsupported)
}

// TestProofTravels: a receipt passes through the Answer's and Outcome's JSON,
// the Replay's record, Registry.Ended and Decide, and the record's reader
// reads it strictly.
func TestProofTravels(t *testing.T) {
	a := newAuthenticator(t, "ES256")
	keys := a.keys(t, "localhost")
	ans := asked(t, deleteProd, pickDelete, a.prove(t, "n", []ui.Request{deleteProd}, []ui.Answer{pickDelete}))

	data := marshal(t, ans)
	if !bytes.Contains(data, []byte(`"proof":{"credential":`)) || bytes.Contains(marshal(t, ui.Answer{Text: "x"}), []byte("proof")) {
		t.Errorf("Answer JSON = %s; want a proof only with one", data)
	}
	var back ui.Answer
	var o ui.Outcome
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back, ans) || ui.VerifyProof(keys, deleteProd, back) != nil {
		t.Errorf("Answer JSON round trip: %+v, %v", back, err)
	}
	if err := json.Unmarshal(marshal(t, ui.Outcome{Answer: ans}), &o); err != nil || !reflect.DeepEqual(o.Answer, ans) {
		t.Errorf("Outcome JSON round trip: %+v, %v", o, err)
	}
	req, _ := json.Marshal(deleteProd)
	var r ui.Request
	if err := json.Unmarshal(req, &r); err != nil || !r.RequireProof || !bytes.Contains(req, []byte(`"requireProof":true`)) {
		t.Errorf("Request JSON %s decodes to %+v, %v", req, r, err)
	}

	// The Replay's record, through its JSON, to Ended and to Ask.
	rp := &ui.Replay{}
	_, pending := run(rp, func(ctx context.Context) string { _, err := ui.Ask(ctx, deleteProd); return ui.CodeOf(err) })
	rp.Record(pending[0].ID, ans, nil)
	record := marshal(t, rp)
	again := &ui.Replay{}
	if err := json.Unmarshal(record, again); err != nil {
		t.Fatalf("the record %s: %v", record, err)
	}
	var ended ui.Outcome
	ctx := ui.WithRegistry(context.Background(), &ui.Registry{Ended: func(_ ui.Request, o ui.Outcome) { ended = o }})
	var got ui.Answer
	again.Run(ctx, func(ctx context.Context) { got, _ = ui.Ask(ctx, deleteProd) })
	if !reflect.DeepEqual(got, ans) || !reflect.DeepEqual(ended.Answer, ans) || ui.VerifyProof(keys, deleteProd, got) != nil {
		t.Errorf("replayed %+v, Ended %+v; want %+v", got, ended, ans)
	}
	id := pending[0].ID
	for _, bad := range []string{
		`{"` + id + `":{"answer":"delete","proof":{"credential":"x","extra":"y"}}}`,
		`{"` + id + `":{"answer":"delete","proof":{"Credential":"x"}}}`,
		`{"` + id + `":{"answer":"delete","proof":{"credential":"x","credential":"y"}}}`,
		`{"` + id + `":{"answer":"delete","proof":"x"}}`,
		`{"` + id + `":{"answer":"delete","proof":{"credential":{"label":"x"}}}}`,
		`{"` + id + `":{"code":"ASK_DECLINED","proof":{}}}`,
	} {
		if err := json.Unmarshal([]byte(bad), &ui.Replay{}); err == nil {
			t.Errorf("the record %s was read, want an error", bad)
		}
	}

	// Decide hands the proof on, Via cut.
	p := ui.ProviderFunc(func(ctx context.Context, _ ui.Request) (ui.Answer, error) {
		sent := ans
		sent.Via = strings.Repeat("v", 100)
		o, err := ui.Decide(ctx, ui.Outcome{Answer: sent})
		if err != nil || !reflect.DeepEqual(o[0].Answer.Proof, ans.Proof) || len(o[0].Answer.Via) > 64 {
			return ui.Answer{}, errors.New("Decide lost the proof")
		}
		return o[0].Answer, nil
	})
	if got, err := ui.Ask(scope(t, p), deleteProd); err != nil || ui.VerifyProof(keys, deleteProd, got) != nil {
		t.Errorf("after Decide: %+v, %v", got, err)
	}
}

// TestVerifyProofTheAnswerAsGiven: a receipt proves the answer as Ask
// returned it, not every answer that completes to it. Before, an Option whose
// Value or Description the record had changed, or picks in another order,
// verified.
func TestVerifyProofTheAnswerAsGiven(t *testing.T) {
	a := newAuthenticator(t, "ES256")
	keys := a.keys(t, "localhost")
	ans := asked(t, deleteProd, pickDelete, a.prove(t, "n", []ui.Request{deleteProd}, []ui.Answer{pickDelete}))
	multi := ui.Request{Question: "Drop?", Options: []ui.Option{{Label: "A"}, {Label: "B"}}, MultiSelect: true, RequireProof: true}
	both := ui.Answer{Options: []ui.Option{{Label: "A"}, {Label: "B"}}}
	picks := asked(t, multi, both, a.prove(t, "n", []ui.Request{multi}, []ui.Answer{both}))
	if ui.VerifyProof(keys, deleteProd, ans) != nil || ui.VerifyProof(keys, multi, picks) != nil {
		t.Fatal("the answers as Ask returned them do not verify")
	}
	rp := &ui.Replay{} // a multi-select answer as the record gives it back
	_, pending := run(rp, func(ctx context.Context) string { _, err := ui.Ask(ctx, multi); return ui.CodeOf(err) })
	rp.Record(pending[0].ID, picks, nil)
	again := &ui.Replay{}
	if err := json.Unmarshal(marshal(t, rp), again); err != nil {
		t.Fatal(err)
	}
	var replayed ui.Answer
	again.Run(ui.WithRegistry(context.Background(), &ui.Registry{}), func(ctx context.Context) { replayed, _ = ui.Ask(ctx, multi) })
	if err := ui.VerifyProof(keys, multi, replayed); err != nil {
		t.Errorf("the replayed %+v: VerifyProof() = %v, want nil", replayed, err)
	}
	changed := func(change func(*ui.Answer), from ui.Answer) ui.Answer {
		from.Option, from.Options = clone(from.Option), append([]ui.Option(nil), from.Options...)
		change(&from)
		return from
	}
	for name, bad := range map[string]ui.Answer{
		"another value":       changed(func(a *ui.Answer) { a.Option.Value = "keep" }, ans),
		"another description": changed(func(a *ui.Answer) { a.Option.Description = "Keeps every row." }, ans),
		"no option":           changed(func(a *ui.Answer) { a.Option = nil }, ans),
		"picks reordered":     changed(func(a *ui.Answer) { a.Options[0], a.Options[1] = a.Options[1], a.Options[0] }, picks),
	} {
		req := deleteProd
		if bad.Option == nil && len(bad.Options) > 0 {
			req = multi
		}
		if err := ui.VerifyProof(keys, req, bad); ui.CodeOf(err) != ui.CodeInvalidAnswer {
			t.Errorf("%s: VerifyProof(%+v) = %v, want INVALID_ANSWER", name, bad, err)
		}
	}
}

func clone(o *ui.Option) *ui.Option {
	if o == nil {
		return nil
	}
	c := *o
	return &c
}

// TestVerifyProofKeysReadExactly: the accepted keys' JSON means for
// VerifyProof what it means for any JSON reader. Before, a second
// "publicKey" spelt in another case, or with a Kelvin sign (U+212A) that Go
// folds to k, replaced the key every other reader sees.
func TestVerifyProofKeysReadExactly(t *testing.T) {
	owner, attacker := newAuthenticator(t, "ES256"), newAuthenticator(t, "ES256")
	attacker.credential = owner.credential
	forged := ui.Answer{Option: &deleteProd.Options[0], Text: "delete", Proof: attacker.prove(t, "n", []ui.Request{deleteProd}, []ui.Answer{pickDelete})}
	der := func(a *authenticator) string {
		d, err := x509.MarshalPKIXPublicKey(a.public)
		if err != nil {
			t.Fatal(err)
		}
		return b64.EncodeToString(d)
	}
	entry := `{"credential":"` + owner.credential + `","publicKey":"` + der(owner) + `","relyingParty":"localhost","added":1,`
	for _, keys := range []string{
		`[` + entry + `"PublicKey":"` + der(attacker) + `"}]`,
		`[` + entry + `"public\u212aey":"` + der(attacker) + `"}]`,
		`[` + entry + `"x":""},{"credential":"` + owner.credential + `","publicKey":"` + der(attacker) + `","relyingParty":"localhost"}]`, // appended: the first wins
	} {
		var plain []map[string]any
		if err := json.Unmarshal([]byte(keys), &plain); err != nil || plain[0]["publicKey"] != der(owner) {
			t.Fatalf("the keys %s: %v", keys, err)
		}
		if err := ui.VerifyProof([]byte(keys), deleteProd, forged); ui.CodeOf(err) != ui.CodeInvalidAnswer {
			t.Errorf("keys %s: the attacker's receipt: VerifyProof() = %v, want INVALID_ANSWER", keys, err)
		}
		owned := asked(t, deleteProd, pickDelete, owner.prove(t, "n", []ui.Request{deleteProd}, []ui.Answer{pickDelete}))
		if err := ui.VerifyProof([]byte(keys), deleteProd, owned); err != nil {
			t.Errorf("keys %s: the owner's receipt: VerifyProof() = %v, want nil", keys, err)
		}
	}
}

// TestProofOnlyRequired: Ask requires a receipt, it does not verify one (it
// holds no keys). A record's forged receipt reaches the tool, which
// VerifyProof refuses, as Answer's doc says.
func TestProofOnlyRequired(t *testing.T) {
	rp := &ui.Replay{}
	_, pending := run(rp, func(ctx context.Context) string { _, err := ui.Ask(ctx, deleteProd); return ui.CodeOf(err) })
	forged := &ui.Receipt{Credential: "c", Signed: "e30", ClientData: "e30", AuthenticatorData: "", Signature: ""}
	rp.Record(pending[0].ID, ui.Answer{Option: &ui.Option{Label: "Delete"}, Proof: forged}, nil)
	var ans ui.Answer
	var err error
	rp.Run(ui.WithRegistry(context.Background(), &ui.Registry{}), func(ctx context.Context) { ans, err = ui.Ask(ctx, deleteProd) })
	if err != nil || !reflect.DeepEqual(ans.Proof, forged) {
		t.Fatalf("Ask() = %+v, %v; want the record's answer with its receipt", ans, err)
	}
	if err := ui.VerifyProof(newAuthenticator(t, "ES256").keys(t, "localhost"), deleteProd, ans); ui.CodeOf(err) != ui.CodeInvalidAnswer {
		t.Errorf("VerifyProof(a forged receipt) = %v, want INVALID_ANSWER", err)
	}
}

// TestVerifyProofMalleableES256: an ES256 signature (r, s) also verifies as
// (r, n-s), as Receipt's doc says. Authenticators sign with either s, so
// VerifyProof cannot require the low one; a nonce, not the bytes, names a receipt.
func TestVerifyProofMalleableES256(t *testing.T) {
	a := newAuthenticator(t, "ES256")
	ans := asked(t, deleteProd, pickDelete, a.prove(t, "n", []ui.Request{deleteProd}, []ui.Answer{pickDelete}))
	raw, _ := b64.DecodeString(ans.Proof.Signature)
	var rs struct{ R, S *big.Int }
	if _, err := asn1.Unmarshal(raw, &rs); err != nil {
		t.Fatal(err)
	}
	rs.S.Sub(elliptic.P256().Params().N, rs.S)
	other, err := asn1.Marshal(rs)
	if err != nil {
		t.Fatal(err)
	}
	proof := *ans.Proof
	proof.Signature = b64.EncodeToString(other)
	ans.Proof = &proof
	if err := ui.VerifyProof(a.keys(t, "localhost"), deleteProd, ans); err != nil || bytes.Equal(raw, other) {
		t.Errorf("VerifyProof(r, n-s) = %v, want nil", err)
	}
}

// TestInboxGivesNoProof: a UI that hands an Inbox the question without its
// RequireProof gets the page's answer, which carries no receipt, so Ask
// refuses it: the page cannot be made to prove what it cannot.
func TestInboxGivesNoProof(t *testing.T) {
	inbox := &ui.Inbox{}
	stripped := ui.ProviderFunc(func(ctx context.Context, req ui.Request) (ui.Answer, error) {
		req.RequireProof = false
		return inbox.Ask(ctx, req)
	})
	done := make(chan error, 1)
	go func() { _, err := ui.Ask(scope(t, stripped), deleteProd); done <- err }()
	p := waitPending(t, inbox, 1)[0]
	if p.Request.RequireProof {
		t.Fatalf("the Inbox holds %+v, want the stripped request", p.Request)
	}
	w := authed(inbox.Handler(pageToken), "POST", "/questions/"+p.ID, `{"action":"accept","content":{"choice":"Delete","proof":{"credential":"x"}},"proof":{"credential":"x"}}`)
	err := <-done
	wantCode(t, "Ask through an Inbox given the stripped request", err, ui.CodeAskUnsupported)
	if w.Code != 204 || !strings.Contains(err.Error(), "the UI gave no proof") {
		t.Errorf("the page's answer: %d; Ask: %v; want it taken by the Inbox and refused by Ask", w.Code, err)
	}
}

// TestVerifyProofOrigins: the origin is the relying party's host or a
// subdomain of it, on https, or on http for localhost only; the port does not
// matter. Authenticator data of fewer than 37 bytes is refused, and one with
// more (attested data, extensions) is taken as signed.
func TestVerifyProofOrigins(t *testing.T) {
	for _, tc := range []struct {
		rp, origin string
		ok         bool
	}{
		{"localhost", "https://localhost:8443", true},
		{"localhost", "http://app.localhost:8080", true},
		{"example.com", "https://EXAMPLE.com", false},
		{"example.com", "https://example.com.", false},
		{"localhost", "http://localhost.", false},
		{"localhost", "http://127.0.0.1:8080", false},
		{"localhost", "https://localhost.evil.test", false},
		{"localhost", "https://evil.test#.localhost", false},
		{"localhost", "https://localhost@evil.test", false},
		{"example.com", "http://app.example.com", false},
		{"example.com", "https://xn--exmple-cua.com", false},
		{"example.com", "wss://example.com", false},
	} {
		a := newAuthenticator(t, "Ed25519")
		a.rp, a.origin = tc.rp, tc.origin
		ans := asked(t, deleteProd, pickDelete, a.prove(t, "n", []ui.Request{deleteProd}, []ui.Answer{pickDelete}))
		if err := ui.VerifyProof(a.keys(t, tc.rp), deleteProd, ans); (err == nil) != tc.ok || err != nil && ui.CodeOf(err) != ui.CodeInvalidAnswer {
			t.Errorf("relying party %s, origin %s: VerifyProof() = %v, want ok %v", tc.rp, tc.origin, err, tc.ok)
		}
	}
	k := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, ed25519.SeedSize))
	rpHash := sha256.Sum256([]byte("localhost"))
	signed := ui.SignedBytes("n", []string{"id"}, []ui.Request{deleteProd}, []ui.Answer{pickDelete})
	challenge := sha256.Sum256(signed)
	client := marshal(t, map[string]any{"type": "webauthn.get", "challenge": b64.EncodeToString(challenge[:]), "origin": "https://localhost"})
	clientHash := sha256.Sum256(client)
	keys := keysOf(t, "c", k.Public(), "localhost")
	for n, auth := range [][]byte{nil, rpHash[:], append(rpHash[:], 5), append(rpHash[:], 5, 0, 0, 0), append(rpHash[:], 5|0x40|0x80, 0, 0, 0, 1, 0xa0)} {
		sig := ed25519.Sign(k, append(bytes.Clone(auth), clientHash[:]...))
		ans := pickDelete
		ans.Text, ans.Option = "delete", &deleteProd.Options[0]
		ans.Proof = &ui.Receipt{Credential: "c", Signed: b64.EncodeToString(signed), ClientData: b64.EncodeToString(client), AuthenticatorData: b64.EncodeToString(auth), Signature: b64.EncodeToString(sig)}
		if err := ui.VerifyProof(keys, deleteProd, ans); (err == nil) != (len(auth) >= 37) {
			t.Errorf("authenticator data %d of %d bytes: VerifyProof() = %v", n, len(auth), err)
		}
	}
}
