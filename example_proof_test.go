package userinteraction_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/dsh-go/userinteraction"
)

// This example is a tool that asks for an answer proven to come from a human,
// and an auditor who later verifies its receipt offline. A Terminal cannot
// prove one, so it refuses. A stand-in for the page signs as a passkey would.
func ExampleVerifyProof() {
	req := userinteraction.Request{
		Question: "Drop table users?", RequireProof: true, DisallowCustom: true,
		Options: []userinteraction.Option{{Label: "Drop"}, {Label: "Keep"}},
	}
	b64 := base64.RawURLEncoding
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader) // the passkey
	spki, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	keys, _ := json.Marshal([]map[string]string{{"credential": "cred-1", "publicKey": b64.EncodeToString(spki), "relyingParty": "localhost"}})
	page := userinteraction.ProviderFunc(func(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
		signed := []byte(`{"nonce":"n-1","questions":[{"answer":{"labels":["Drop"],"text":""},"id":"q1","request":` +
			`{"allowCustom":false,"options":[{"label":"Drop"},{"label":"Keep"}],"question":"Drop table users?","requireProof":true}}]}`)
		challenge := sha256.Sum256(signed)
		client, _ := json.Marshal(map[string]string{"type": "webauthn.get", "challenge": b64.EncodeToString(challenge[:]), "origin": "http://localhost:8080"})
		rpHash, clientHash := sha256.Sum256([]byte("localhost")), sha256.Sum256(client)
		auth := append(rpHash[:], 0x05, 0, 0, 0, 1) // user present and verified, counter 1
		digest := sha256.Sum256(append(append([]byte(nil), auth...), clientHash[:]...))
		sig, _ := ecdsa.SignASN1(rand.Reader, key, digest[:])
		return userinteraction.Answer{Option: &req.Options[0], Via: "page", Proof: &userinteraction.Receipt{
			Credential: "cred-1", Signed: b64.EncodeToString(signed), ClientData: b64.EncodeToString(client),
			AuthenticatorData: b64.EncodeToString(auth), Signature: b64.EncodeToString(sig),
		}}, nil
	})

	for _, ui := range []userinteraction.Provider{userinteraction.NewTerminal(nil, nil), page} {
		session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
		dispose, _ := userinteraction.Register(session, ui)
		ans, err := userinteraction.Ask(session, req)
		dispose()
		if err != nil {
			fmt.Println(userinteraction.CodeOf(err))
			continue
		}
		fmt.Println(ans.Text, "verified:", userinteraction.VerifyProof(keys, req, ans))
		ans.Option = &req.Options[1] // the record altered
		ans.Text = ans.Option.Label
		fmt.Println(ans.Text, "verified:", userinteraction.CodeOf(userinteraction.VerifyProof(keys, req, ans)))
	}
	// Output:
	// ASK_UNSUPPORTED
	// Drop verified: <nil>
	// Keep verified: INVALID_ANSWER
}

// This example is a host whose page enrols passkeys: it accepts each through
// its own policy, and keeps the accepted keys across restarts. A stand-in for
// the page's browser makes the registration as WebAuthn does.
func ExampleInbox_Enroll() {
	inbox := &userinteraction.Inbox{RelyingParty: "localhost", AcceptPasskey: func(key []byte) error {
		fmt.Println("accept a passkey:", len(key) > 0) // the host's policy, such as asking its admin
		return nil
	}}
	b64 := base64.RawURLEncoding
	nonce := inbox.Nonce() // the page's GET /passkey serves one
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	spki, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	client, _ := json.Marshal(map[string]string{"type": "webauthn.create", "challenge": nonce, "origin": "http://localhost:8080"})
	rpHash := sha256.Sum256([]byte("localhost"))
	auth := append(append(rpHash[:], 0x45, 0, 0, 0, 0), make([]byte, 16)...) // present, verified, attested; counter 0; no AAGUID
	auth = append(auth, 0, 6, 'c', 'r', 'e', 'd', '-', '1')                  // the credential ID, then its COSE key (unread)
	registration, _ := json.Marshal(map[string]string{"credential": b64.EncodeToString([]byte("cred-1")), "publicKey": b64.EncodeToString(spki),
		"clientData": b64.EncodeToString(client), "authenticatorData": b64.EncodeToString(auth)})
	fmt.Println("enrolled:", inbox.Enroll(registration))
	fmt.Println("again:", userinteraction.CodeOf(inbox.Enroll(registration))) // its nonce is spent

	kept := inbox.Passkeys() // for the host's database
	restarted := &userinteraction.Inbox{RelyingParty: "localhost"}
	fmt.Println("restored:", restarted.SetPasskeys(kept), string(restarted.Passkeys()) == string(kept))
	// Output:
	// accept a passkey: true
	// enrolled: <nil>
	// again: INVALID_REQUEST
	// restored: <nil> true
}
