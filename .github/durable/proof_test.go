//go:build unix

package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"database/sql"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dsh-go/userinteraction"
)

// The tests of proven answers: a software passkey (P-256), which builds its
// registration and assertions as a browser and its authenticator would, on
// the relying party localhost.

var b64 = base64.RawURLEncoding

// A passkey is a software authenticator with one credential.
type passkey struct {
	credential string
	key        *ecdsa.PrivateKey
}

func newPasskey(t *testing.T) *passkey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 16)
	rand.Read(id)
	return &passkey{credential: b64.EncodeToString(id), key: key}
}

const origin = "http://localhost:8080" // the page's, as the browser says

// do sends method path with body to the page of h, with its token, and
// returns the status and the reply.
func (h *host) do(method, path string, body []byte) (int, []byte) {
	h.t.Helper()
	req, err := http.NewRequest(method, h.url+path, bytes.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	reply, _ := io.ReadAll(res.Body)
	return res.StatusCode, reply
}

// passkeys returns GET /passkey: a fresh nonce and the accepted credentials.
func (h *host) passkeys() (nonce string, credentials []string) {
	h.t.Helper()
	status, reply := h.do("GET", "/passkey", nil)
	var got struct {
		RelyingParty, Nonce string
		Credentials         []string
	}
	if err := json.Unmarshal(reply, &got); status != http.StatusOK || err != nil || got.RelyingParty != "localhost" || got.Nonce == "" {
		h.t.Fatalf("GET /passkey = %d %s, want 200 with a nonce for the relying party localhost", status, reply)
	}
	return got.Nonce, got.Credentials
}

// enroll enrols p on the page of h, as the page does after
// navigator.credentials.create, and returns the status.
func (h *host) enroll(p *passkey) int {
	h.t.Helper()
	nonce, _ := h.passkeys()
	client, _ := json.Marshal(map[string]any{"type": "webauthn.create", "challenge": nonce, "origin": origin, "crossOrigin": false})
	id, _ := b64.DecodeString(p.credential)
	rp := sha256.Sum256([]byte("localhost"))
	auth := append(rp[:], 0x45, 0, 0, 0, 5)                                    // user present and verified, attested credential data; counter 5
	auth = append(auth, make([]byte, 16)...)                                   // the AAGUID: none
	auth = append(binary.BigEndian.AppendUint16(auth, uint16(len(id))), id...) // the credential, then its COSE key, which the page sends as SPKI
	spki, err := x509.MarshalPKIXPublicKey(&p.key.PublicKey)
	if err != nil {
		h.t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]string{"credential": p.credential, "publicKey": b64.EncodeToString(spki),
		"clientData": b64.EncodeToString(client), "authenticatorData": b64.EncodeToString(auth)})
	status, _ := h.do("POST", "/passkey", body)
	return status
}

// prove returns p's receipt for the label picked in question q under nonce,
// with the signature counter counter, as the page sends it after
// navigator.credentials.get.
func (p *passkey) prove(t *testing.T, nonce string, q pending, label string, counter uint32) *userinteraction.Receipt {
	t.Helper()
	var request map[string]any // the request's wire JSON, its keys sorted: RFC 8785 for its strings and booleans
	wire, _ := json.Marshal(q.Request)
	if err := json.Unmarshal(wire, &request); err != nil {
		t.Fatal(err)
	}
	signed, _ := json.Marshal(map[string]any{"nonce": nonce, "questions": []any{map[string]any{
		"answer": map[string]any{"labels": []string{label}, "text": ""}, "id": q.ID, "request": request}}})
	challenge := sha256.Sum256(signed)
	client, _ := json.Marshal(map[string]any{"type": "webauthn.get", "challenge": b64.EncodeToString(challenge[:]), "origin": origin, "crossOrigin": false})
	rp, clientHash := sha256.Sum256([]byte("localhost")), sha256.Sum256(client)
	auth := binary.BigEndian.AppendUint32(append(rp[:], 0x05), counter) // user present and verified
	digest := sha256.Sum256(append(slices.Clone(auth), clientHash[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, p.key, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	return &userinteraction.Receipt{Credential: p.credential, Signed: b64.EncodeToString(signed), ClientData: b64.EncodeToString(client),
		AuthenticatorData: b64.EncodeToString(auth), Signature: b64.EncodeToString(sig)}
}

// nonce returns a fresh nonce of the page of h.
func (h *host) nonce() string {
	h.t.Helper()
	nonce, _ := h.passkeys()
	return nonce
}

// answerProven posts the page's answer to q, picking label, with receipt,
// and returns the status and the reply.
func (h *host) answerProven(q pending, label string, receipt *userinteraction.Receipt) (int, string) {
	h.t.Helper()
	body, _ := json.Marshal(map[string]any{"action": "accept", "content": map[string]any{"choice": label}, "proof": receipt})
	status, reply := h.do("POST", "/questions/"+q.ID, body)
	return status, string(reply)
}

// waitQuestions waits until the page shows n questions, and returns them.
func (h *host) waitQuestions(events <-chan []pending, n int) []pending {
	h.t.Helper()
	for {
		select {
		case list, ok := <-events:
			if !ok {
				h.t.Fatalf("the page's event stream ended before %d questions opened:\n%s", n, h.errors())
			}
			if len(list) == n {
				return list
			}
		case <-h.exited:
			h.t.Fatalf("the host exited:\n%s", h.errors())
		case <-time.After(guard):
			h.t.Fatalf("%d questions did not open within %v:\n%s", n, guard, h.errors())
		}
	}
}

// waitLine waits for the host to print line on stdout, past the results of
// calls that ended before it started.
func (h *host) waitLine(line string) {
	h.t.Helper()
	for {
		select {
		case got := <-h.results:
			if got == line {
				return
			}
		case <-h.exited:
			h.t.Fatalf("the host exited before it printed %q:\n%s", line, h.errors())
		case <-time.After(guard):
			h.t.Fatalf("the host did not print %q within %v:\n%s", line, guard, h.errors())
		}
	}
}

// waitLogged waits for the host to print line on stderr.
func (h *host) waitLogged(line string) {
	h.t.Helper()
	for {
		select {
		case got := <-h.logged:
			if got == line {
				return
			}
		case <-time.After(guard):
			h.t.Fatalf("the host did not write %q on stderr within %v:\n%s", line, guard, h.errors())
		}
	}
}

// storedCounter returns the signature counter that the database of s keeps for
// credential.
func storedCounter(t *testing.T, s setup, credential string) int64 {
	t.Helper()
	db, err := sql.Open("sqlite", sqliteName(s.db))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow(`SELECT counter FROM userinteraction_passkeys WHERE credential = ?`, credential).Scan(&n); err != nil {
		t.Fatalf("the passkey's row: %v", err)
	}
	return n
}

// verifyRecord runs the host's -verify on the database of s, and returns
// its output and whether it succeeded.
func verifyRecord(t *testing.T, s setup) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	out, err := exec.CommandContext(ctx, hostBin, "-db", s.db, "-verify").CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("-verify did not end within %v", guard)
	}
	return string(out), err == nil
}

// TestProvenAnswerSurvivesCrash: two proven questions wait; a passkey is
// enrolled on the page; the host is killed. The next process still accepts
// the passkey, refuses an answer without proof and one signed under the dead
// process's nonce, and takes a proven one: the tool acts once. Killed and
// started again, the host keeps the counter: an assertion whose counter is
// not above it is refused, a higher one answers the second question. The
// receipts that the workflows recorded verify against the keys in the
// database (-verify), and fail once the key there is another.
func TestProvenAnswerSurvivesCrash(t *testing.T) {
	onPostgres(t)
	s := newSetup(t)
	s.calls, s.args = 2, []string{"-rp", "localhost", "-proof"}
	first := start(t, s)
	before := first.waitQuestions(first.events(), 2)
	for _, q := range before {
		if !q.Request.RequireProof {
			t.Fatalf("the page shows %+v, want a question that requires proof", q.Request)
		}
	}
	pass := newPasskey(t)
	if got := first.enroll(pass); got != http.StatusNoContent {
		t.Fatalf("POST /passkey = %d, want 204:\n%s", got, first.errors())
	}
	first.waitLogged(`durable: accepted the passkey "` + pass.credential + `" for "localhost"`)
	if got := first.enroll(pass); got == http.StatusNoContent {
		t.Errorf("POST /passkey of the same passkey again = %d, want a refusal", got)
	}
	deadNonce := first.nonce()
	first.kill()
	if got := storedCounter(t, s, pass.credential); got != 5 {
		t.Errorf("the database keeps the counter %d, want 5, the registration's", got)
	}

	second := start(t, s)
	open := second.waitQuestions(second.events(), 2)
	if got, want := slices.Sorted(slices.Values(idsOf(open))), slices.Sorted(slices.Values(idsOf(before))); !slices.Equal(got, want) {
		t.Fatalf("after the crash the page shows %q, want %q", got, want)
	}
	if _, creds := second.passkeys(); !slices.Equal(creds, []string{pass.credential}) {
		t.Fatalf("after the crash the page lists the passkeys %q, want %q", creds, pass.credential)
	}
	calls := map[string]string{questionID("migrate-1-1", 1): "migrate-1-1", questionID("migrate-1-2", 1): "migrate-1-2"}
	q1, q2 := open[0], open[1]
	if got, reply := second.answerProven(q1, "Run it", nil); got == http.StatusNoContent || !strings.Contains(reply, "requires a passkey's proof") {
		t.Errorf("POST of an answer without proof = %d %s, want a refusal that asks for one", got, reply)
	}
	if got, reply := second.answerProven(q1, "Run it", pass.prove(t, deadNonce, q1, "Run it", 6)); got == http.StatusNoContent || !strings.Contains(reply, "nonce") {
		t.Errorf("POST of an answer signed under the killed process's nonce = %d %s, want a refusal of the nonce", got, reply)
	}
	if got, reply := second.answerProven(q1, "Run it", pass.prove(t, second.nonce(), q1, "Run it", 5)); got == http.StatusNoContent || !strings.Contains(reply, "counter") {
		t.Errorf("POST of a proof whose counter is the registration's = %d %s, want a refusal of the counter", got, reply)
	}
	if got, reply := second.answerProven(q1, "Run it", pass.prove(t, second.nonce(), q1, "Run it", 6)); got != http.StatusNoContent {
		t.Fatalf("POST of the proven answer = %d %s, want 204:\n%s", got, reply, second.errors())
	}
	second.waitLine(calls[q1.ID] + ": migration mode: run")
	second.kill()
	if got := storedCounter(t, s, pass.credential); got != 6 {
		t.Errorf("the database keeps the counter %d, want 6, the proven answer's", got)
	}

	third := start(t, s)
	if open := third.waitQuestions(third.events(), 1); open[0].ID != q2.ID {
		t.Fatalf("after the second restart the page shows %s, want %s", open[0].ID, q2.ID)
	}
	if got, reply := third.answerProven(q2, "Run it", pass.prove(t, third.nonce(), q2, "Run it", 6)); got == http.StatusNoContent || !strings.Contains(reply, "counter") {
		t.Errorf("POST of a proof whose counter is not above the kept one = %d %s, want a refusal of the counter", got, reply)
	}
	if got, reply := third.answerProven(q2, "Dry run first", pass.prove(t, third.nonce(), q2, "Dry run first", 7)); got != http.StatusNoContent {
		t.Fatalf("POST of a proof with a higher counter = %d %s, want 204", got, reply)
	}
	third.waitLine(calls[q2.ID] + ": migration mode: dry-run")
	third.kill()
	log, _ := os.ReadFile(s.log)
	want := []string{calls[q1.ID] + ": migration mode: run", calls[q2.ID] + ": migration mode: dry-run"}
	if got := strings.Split(strings.TrimSpace(string(log)), "\n"); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Errorf("the tool's log is %q, want each call once: %q", got, want)
	}
	if got := storedCounter(t, s, pass.credential); got != 7 {
		t.Errorf("the database keeps the counter %d, want 7", got)
	}

	out, ok := verifyRecord(t, s)
	t.Logf("-verify:\n%s", out)
	if !ok || strings.Count(out, ": verified") != 2 || strings.Contains(out, "NOT VERIFIED") {
		t.Errorf("-verify said:\n%s\nwant two proven answers verified", out)
	}
	other := newPasskey(t) // the keys altered: the credential's key is another
	spki, _ := x509.MarshalPKIXPublicKey(&other.key.PublicKey)
	key, _ := json.Marshal(map[string]string{"credential": pass.credential, "publicKey": b64.EncodeToString(spki), "relyingParty": "localhost"})
	db, err := sql.Open("sqlite", sqliteName(s.db))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`UPDATE userinteraction_passkeys SET key = ?`, string(key))
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if out, ok := verifyRecord(t, s); ok || strings.Count(out, "NOT VERIFIED") != 2 {
		t.Errorf("-verify against another key said:\n%s\nwant both answers not verified, and a failure", out)
	}
}

// TestProofRefusedWithoutPasskeys: a proven question is refused with
// ASK_UNSUPPORTED where the page has no passkeys: on SQLite without -rp, and
// on Postgres, where the host also refuses -rp.
func TestProofRefusedWithoutPasskeys(t *testing.T) {
	s := newSetup(t)
	s.args = []string{"-proof"}
	h := start(t, s)
	if got := h.waitResult(s, h.events(), false); got != "not migrated: ASK_UNSUPPORTED" {
		t.Errorf("the tool's result = %q, want %q", got, "not migrated: ASK_UNSUPPORTED")
	}
	if os.Getenv("DURABLE_TEST_DB") == "" {
		return
	}
	out, err := exec.Command(hostBin, "-db", s.db, "-rp", "localhost", "-addr", "127.0.0.1:0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "-rp and -verify need SQLite") {
		t.Errorf("the host with -rp on Postgres said %q, %v; want a refusal that names SQLite", out, err)
	}
}

// TestCorruptKeyRefused: a row of the passkeys' table that is no JSON object
// stops the host with a message that quotes it, and -verify too, not a panic.
func TestCorruptKeyRefused(t *testing.T) {
	onPostgres(t)
	s := newSetup(t)
	start(t, s).kill() // makes the database and the table
	db, err := sql.Open("sqlite", sqliteName(s.db))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`INSERT INTO userinteraction_passkeys (credential, key) VALUES ('x', 'null')`)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"-verify"}, {"-rp", "localhost", "-addr", "127.0.0.1:0", "-log", s.log}} {
		out, err := exec.Command(hostBin, append([]string{"-db", s.db}, args...)...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), `holds a key that is no JSON object: "null"`) {
			t.Errorf("the host %q said %q, %v; want a failure that quotes the row", args, out, err)
		}
	}
}

// TestPasskeysCapped: the table holds at most the 100 keys that SetPasskeys
// takes at the next start, though the Inbox holds fewer (two enrolments that
// race, here rows another writer added): the 101st enrolment is refused.
func TestPasskeysCapped(t *testing.T) {
	onPostgres(t)
	s := newSetup(t)
	s.args = []string{"-rp", "localhost"}
	h := start(t, s)
	db, err := sql.Open("sqlite", sqliteName(s.db)+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := range 100 {
		if _, err := db.Exec(`INSERT INTO userinteraction_passkeys (credential, key) VALUES (?, '{}')`, fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
	}
	if got := h.enroll(newPasskey(t)); got == http.StatusNoContent {
		t.Errorf("POST /passkey of a 101st key = 204, want a refusal")
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM userinteraction_passkeys`).Scan(&n); err != nil || n != 100 {
		t.Errorf("the table holds %d keys (%v), want 100", n, err)
	}
}
