package main

// Scenarios of answers proven by a passkey (issue 46), with Chromium's
// virtual authenticator (the DevTools protocol's WebAuthn domain: P-256 keys,
// user verification). Each runs on an Inbox of its own whose relying party
// is "localhost", its page loaded from http://localhost:port (a relying party
// is a host name, never an IP address). What a hostile page or agent sends is
// made by wrapping the page's fetch (probe): the page signs as it does, and
// its request goes elsewhere, or its reply says other things.

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	ui "github.com/dsh-go/userinteraction"
)

func init() {
	scenarios = append(scenarios,
		scenario{"proof: a passkey added by a click, a proven answer whose receipt verifies offline", proven(provenAnswer)},
		scenario{"proof: a proven batch of hostile text, several picks and own words: each receipt verifies", proven(provenBatch)},
		scenario{"proof: signed over another question, another answer, another nonce: refused, still open", proven(misbound)},
		scenario{"proof: a replayed assertion: refused, still open", proven(replayed)},
		scenario{"proof: a passkey never accepted signs: refused, still open", proven(neverAccepted)},
		scenario{"proof: a passkey the host refuses: the page says so, none kept, its signature refused", proven(refusedPasskey)},
		scenario{"proof: without a passkey, a decline works and Send says to add one", proven(withoutPasskey)},
		scenario{"proof: on a host without passkeys, the page's check moves nothing: a click right after it is taken", onOneTab(checkMovesNothing)},
	)
}

// proofSite is a site whose Inbox asks for passkeys on localhost, and what
// its AcceptPasskey saw.
type proofSite struct {
	*site
	mu     sync.Mutex
	keys   [][]byte // each key AcceptPasskey was called with
	refuse error    // what AcceptPasskey returns
}

func (p *proofSite) accept(key []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keys = append(p.keys, key)
	return p.refuse
}

// seen is the number of keys AcceptPasskey was called with, as text.
func (p *proofSite) seen() (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprint(len(p.keys)), nil
}

// proven runs f on an Inbox of its own, served on localhost, with a tab
// whose browser has a virtual authenticator; then it checks that no question
// is left open and what the tab saw.
func proven(f func(p *proofSite, t *tab, a *authenticator) error) func(*site, context.Context) error {
	return func(main *site, browser context.Context) error {
		secret := make([]byte, 16)
		if _, err := rand.Read(secret); err != nil {
			return err
		}
		p := &proofSite{site: &site{token: hex.EncodeToString(secret), addr: "127.0.0.1:0", mux: http.NewServeMux(), shots: main.shots}}
		p.inbox = &ui.Inbox{RelyingParty: "localhost", AcceptPasskey: p.accept}
		p.mux.Handle("/ask/", http.StripPrefix("/ask", p.inbox.Handler(p.token)))
		p.session = ui.WithRegistry(context.Background(), &ui.Registry{})
		dispose, err := ui.Register(p.session, p.inbox)
		if err != nil {
			return err
		}
		defer dispose()
		if err := p.start(); err != nil {
			return err
		}
		defer p.stop()
		_, port, _ := net.SplitHostPort(p.addr)
		p.addr = "localhost:" + port // the page's origin, and the base of the requests it may make
		t, cancel, err := p.open(browser)
		if err != nil {
			return err
		}
		defer cancel()
		a, err := addAuthenticator(t)
		if err == nil {
			err = t.until(probe)
		}
		if err == nil { // the button, shown once the page's check returns, moved what is below it
			err = t.until(addShown + " && " + settled)
		}
		if err == nil {
			err = f(p, t, a)
		}
		if left := p.inbox.Pending(); err == nil && len(left) > 0 {
			err = fmt.Errorf("%d questions left open", len(left))
		}
		for _, q := range p.inbox.Pending() {
			_ = p.inbox.Respond(q.ID, ui.Answer{}, ui.NewError(ui.CodeAskCancelled, "scenario over", nil))
		}
		return errors.Join(err, t.problems())
	}
}

// authenticator is a virtual authenticator of a tab: a platform's, which
// keeps passkeys and verifies its user.
type authenticator struct {
	t  *tab
	id webauthn.AuthenticatorID
}

func addAuthenticator(t *tab) (*authenticator, error) {
	ctx, cancel := context.WithTimeout(t.ctx, wait)
	defer cancel()
	if _, err := chromedp.Call(ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		return nil, err
	}
	r, err := chromedp.Call(ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
		Protocol: webauthn.AuthenticatorProtocolCtap2, Ctap2version: webauthn.Ctap2versionCtap21, Transport: webauthn.AuthenticatorTransportInternal,
		HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true,
	}})
	if err != nil {
		return nil, err
	}
	return &authenticator{t: t, id: r.AuthenticatorID}, nil
}

// credentials are the passkeys the authenticator keeps.
func (a *authenticator) credentials() ([]*webauthn.Credential, error) {
	ctx, cancel := context.WithTimeout(a.t.ctx, wait)
	defer cancel()
	r, err := chromedp.Call(ctx, webauthn.GetCredentials, webauthn.GetCredentialsParams{AuthenticatorID: a.id})
	return r.Credentials, err
}

// countNothing puts the authenticator's one passkey back as one that reports
// a counter of 0 at each signature, as a synced passkey does.
func (a *authenticator) countNothing() error {
	c, err := a.only()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(a.t.ctx, wait)
	defer cancel()
	if _, err := chromedp.Call(ctx, webauthn.RemoveCredential, webauthn.RemoveCredentialParams{AuthenticatorID: a.id, CredentialID: c.CredentialID}); err != nil {
		return err
	}
	c.SignCount = -1
	_, err = chromedp.Call(ctx, webauthn.AddCredential, webauthn.AddCredentialParams{AuthenticatorID: a.id, Credential: c})
	return err
}

// only is the one passkey the authenticator keeps.
func (a *authenticator) only() (*webauthn.Credential, error) {
	cs, err := a.credentials()
	if err == nil && len(cs) != 1 {
		err = fmt.Errorf("the authenticator keeps %d passkeys, want 1", len(cs))
	}
	if err != nil {
		return nil, err
	}
	return cs[0], nil
}

// probe wraps the page's fetch: it keeps each request and its reply in
// probe.seen ({url, method, body, status, reply}), sends a request as
// probe.send says, if set, and gives the page probe.reply's answer to the
// JSON a GET of passkey returns, if set. It is true once installed.
const probe = `(() => {
  if (window.probe) return true;
  const real = window.fetch, p = window.probe = {seen: [], send: null, reply: null};
  window.fetch = async (url, init = {}) => {
    url = String(url);
    if (p.send) [url, init] = p.send(url, init);
    const res = await real(url, init), got = {url, method: init.method || "GET", body: init.body || "", status: res.status, reply: await res.clone().text()};
    p.seen.push(got);
    if (!p.reply || got.method !== "GET" || !/(^|\/)passkey([?]|$)/.test(url)) return res;
    return new Response(JSON.stringify(p.reply(JSON.parse(got.reply))), {status: res.status, headers: res.headers});
  };
  return true;
})()`

// posts is the JavaScript list of the page's POSTs to questions/, each
// "id status".
const posts = `probe.seen.filter(s => s.method === "POST" && s.url.includes("questions/")).map(s => decodeURIComponent(s.url.split("questions/")[1]) + " " + s.status)`

// openCard is the CSS selector of question id's open card (an ended one of
// the same ID may be below).
func openCard(id string) string { return "#questions " + card(id) }

// ownNote is the JavaScript text of the note on question id's open card.
func ownNote(id string) string {
	return "((document.querySelector('" + openCard(id) + " .note') || {}).textContent || '')"
}

// addButton is the XPath of the page's "Add a passkey".
var addButton = chromedp.Search(`//button[.="Add a passkey"]`)

// addShown is the JavaScript test that "Add a passkey" is in view.
const addShown = "Array.from(document.querySelectorAll('button')).some(b => b.textContent === 'Add a passkey' && b.offsetParent !== null)"

// enrol adds a passkey by a click on "Add a passkey", and waits until the
// host accepted it: it returns the passkey's credential ID, base64url.
func (p *proofSite) enrol(t *tab, a *authenticator) (string, error) {
	p.mu.Lock()
	before := len(p.keys)
	p.mu.Unlock()
	if err := t.until(addShown); err != nil {
		return "", err
	}
	if err := t.do(chromedp.Click(addButton)); err != nil {
		return "", err
	}
	if err := untilGives(p.seen, fmt.Sprint(before+1)); err != nil {
		return "", fmt.Errorf("AcceptPasskey: %w", err)
	}
	c, err := a.only()
	if err != nil {
		return "", err
	}
	cred := base64.RawURLEncoding.EncodeToString(c.CredentialID)
	var saw struct{ Credential string }
	p.mu.Lock()
	err = json.Unmarshal(p.keys[before], &saw)
	p.mu.Unlock()
	if err != nil || saw.Credential != cred {
		return "", fmt.Errorf("AcceptPasskey saw %q (%v), want the passkey %s", p.keys[before], err, cred)
	}
	var kept []map[string]any
	if err := untilGives(func() (string, error) {
		err := json.Unmarshal(p.inbox.Passkeys(), &kept)
		return fmt.Sprint(len(kept) == 1 && kept[0]["credential"] == cred), err
	}, "true"); err != nil {
		return "", fmt.Errorf("Passkeys() = %s, want the passkey %s: %w", p.inbox.Passkeys(), cred, err)
	}
	return cred, nil
}

// proofReq is a proven question.
var proofReq = ui.Request{
	Header: "Production", Question: "Drop the table users?", RequireProof: true, DisallowCustom: true,
	Options: []ui.Option{{Label: "Keep", Recommended: true}, {Label: "Drop", Description: "It cannot be undone."}},
}

// askProven asks req, proven, and waits until its open card says the
// passkey signs.
func (p *proofSite) askProven(t *tab, ctx context.Context, req ui.Request) (<-chan outcome, string, error) {
	done, q, err := p.ask(ctx, req)
	if err != nil {
		return nil, "", err
	}
	id := q[0].ID
	return done, id, t.until("(document.querySelector('" + openCard(id) + "') || {textContent: ''}).textContent.includes('Your passkey signs this answer.')")
}

// answer picks label on question id's open card and sends it.
func answer(t *tab, id, label string) error {
	if err := t.until(settled); err != nil {
		return err
	}
	return t.do(chromedp.Click(chromedp.Search(`//div[@id="questions"]//form[@aria-labelledby="q-`+id+`"]//label[.//span[@class="label"][.="`+label+`"]]`)),
		chromedp.Click(chromedp.Search(`//div[@id="questions"]//form[@aria-labelledby="q-`+id+`"]//button[.="Send answer"]`)))
}

// posted waits until the page's POST to question id came back with status.
func posted(t *tab, id string, status int) error {
	if err := t.until(posts + ".includes(" + fmt.Sprintf("%q", fmt.Sprint(id, " ", status)) + ")"); err != nil {
		got, _ := eval[[]string](t, posts)
		return fmt.Errorf("the page's POSTs are %q: %w", got, err)
	}
	return nil
}

// refused waits until the page's POST to question id was refused with 422
// and its open card shows the hint, and checks that the question is open
// with that hint.
func (p *proofSite) refused(t *tab, id string) error {
	if err := posted(t, id, 422); err != nil {
		return err
	}
	for _, q := range p.inbox.Pending() {
		if q.ID != id {
			continue
		}
		if q.Hint == "" {
			return fmt.Errorf("question %s is open without a hint", id)
		}
		return t.until(ownNote(id) + " !== ''")
	}
	return fmt.Errorf("question %s is no longer open after its refusal", id)
}

// provenAnswer: the human adds a passkey by a click (the host's AcceptPasskey
// sees it, Passkeys keeps it), then answers a proven question by a pick and
// Send: Ask returns the answer with its receipt, which verifies offline
// against Passkeys and fails after one changed byte of its signature; the
// card says the answer as usual; the authenticator's counter rose.
func provenAnswer(p *proofSite, t *tab, a *authenticator) error {
	if err := p.shoot(t, "proof-button", ""); err != nil {
		return err
	}
	cred, err := p.enrol(t, a)
	if err != nil {
		return err
	}
	before, err := a.only()
	if err != nil {
		return err
	}
	done, id, err := p.askProven(t, p.session, proofReq)
	if err != nil {
		return err
	}
	if err := p.shoot(t, "proof-card", openCard(id)); err != nil {
		return err
	}
	if err := answer(t, id, "Drop"); err != nil {
		return err
	}
	o, err := result(done)
	if err != nil {
		return err
	}
	ans := o.answers[0]
	if o.err != nil || ans.Text != "Drop" || ans.Proof == nil || ans.Proof.Credential != cred {
		return fmt.Errorf("Ask() = %+v, %v; want Drop with a receipt of %s", ans, o.err, cred)
	}
	if err := ui.VerifyProof(p.inbox.Passkeys(), proofReq, ans); err != nil {
		return fmt.Errorf("VerifyProof: %w", err)
	}
	sig, _ := base64.RawURLEncoding.DecodeString(ans.Proof.Signature)
	sig[len(sig)/2] ^= 1
	forged := *ans.Proof
	forged.Signature = base64.RawURLEncoding.EncodeToString(sig)
	ans.Proof = &forged
	if err := ui.VerifyProof(p.inbox.Passkeys(), proofReq, ans); ui.CodeOf(err) != ui.CodeInvalidAnswer {
		return fmt.Errorf("VerifyProof after a changed byte of the signature = %v, want %s", err, ui.CodeInvalidAnswer)
	}
	if err := t.until(endedAs(id, "You answered: Drop")); err != nil {
		return err
	}
	after, err := a.only()
	if err != nil {
		return err
	}
	if after.SignCount <= before.SignCount {
		return fmt.Errorf("the passkey's counter went from %v to %v, want it to rise", before.SignCount, after.SignCount)
	}
	return nil
}

// provenBatch: a batch of two proven questions whose text JSON escapes
// (quotes, a backslash, a tab, line feeds, markup, right-to-left, emoji and
// a combining mark), one of several picks and own words: each card's answer
// is signed on its own, and each receipt verifies offline against its
// request, the page's canonical JSON the same as the Go side's.
func provenBatch(p *proofSite, t *tab, a *authenticator) error {
	if _, err := p.enrol(t, a); err != nil {
		return err
	}
	reqs := []ui.Request{{
		Header: "<script>alert(1)</script>", Question: "Delete \"prod\\main\"?\n\tמחק? 👩\u200d💻 e\u0301\u00a0</p>", RequireProof: true, MultiSelect: true,
		Options: []ui.Option{{Label: "'quoted' & <b>", Value: "q", Description: "a\\b"}, {Label: "ünï 🚀", Recommended: true}, {Label: "plain \"x\""}},
		Agent:   &ui.Agent{Name: "<b>bot</b>", ID: "a\"b"},
	}, {Question: "And the tags?", RequireProof: true}}
	done, q, err := p.ask(p.session, reqs...)
	if err != nil {
		return err
	}
	for _, c := range q {
		if err := t.until("(document.querySelector('" + openCard(c.ID) + "') || {textContent: ''}).textContent.includes('Your passkey signs this answer.')"); err != nil {
			return err
		}
	}
	if err := t.until(settled); err != nil {
		return err
	}
	if err := t.do(chromedp.Click(option(q[0].ID, "'quoted' & <b>")), chromedp.SendKeys(openCard(q[0].ID)+" input[type=text]", "and \"mine\" \\ too"),
		chromedp.Click(button(q[0].ID, "Send answer"))); err != nil {
		return err
	}
	if err := posted(t, q[0].ID, 204); err != nil {
		return err
	}
	// Own words as pasted: a tab, U+2028 and U+0085, which JSON.stringify and Go's encoder escape differently, and a lone surrogate, which Go reads as U+FFFD.
	if _, err := eval[bool](t, "(document.querySelector('"+openCard(q[1].ID)+" input[type=text]').value = 'v1.2\\t\\u2028\\u0085\"rc\"\\ud800', true)"); err != nil {
		return err
	}
	if err := t.until(settled); err != nil { // the first card's answer moved this one
		return err
	}
	if err := t.do(chromedp.Click(button(q[1].ID, "Send answer"))); err != nil {
		return err
	}
	o, err := result(done)
	if err != nil {
		return err
	}
	if o.err != nil || len(o.answers) != 2 {
		return fmt.Errorf("AskAll() = %+v, %v", o.answers, o.err)
	}
	if got := o.answers[0].Text + "|" + o.answers[1].Text; got != "q, ünï 🚀, and \"mine\" \\ too|v1.2\t\u2028\u0085\"rc\"\uFFFD" {
		return fmt.Errorf("AskAll() = %q", got)
	}
	for i, ans := range o.answers {
		if err := ui.VerifyProof(p.inbox.Passkeys(), reqs[i], ans); err != nil {
			return fmt.Errorf("question %d: VerifyProof: %w", i+1, err)
		}
		if err := ui.VerifyProof(p.inbox.Passkeys(), reqs[1-i], ans); err == nil {
			return fmt.Errorf("question %d's receipt verifies for question %d", i+1, 2-i)
		}
	}
	return nil
}

// misbound: the page signs as it does, and what it sends is not what it
// signed: its POST goes to another proven question of the same request, its pick is changed after
// signing, or the nonce it signed is not the server's. Each is 422, the
// question still open, its card showing the hint; sent as signed, it is taken.
func misbound(p *proofSite, t *tab, a *authenticator) error {
	if _, err := p.enrol(t, a); err != nil {
		return err
	}
	doneA, idA, err := p.askProven(t, p.session, proofReq)
	if err != nil {
		return err
	}
	doneB, idB, err := p.askProven(t, p.session, proofReq) // the same request: only the ID differs
	if err != nil {
		return err
	}
	for _, c := range []struct {
		what, on, send, reply string
	}{
		{"another question", idB, `(url, init) => [url.replace(/questions\/[^/?]*/, "questions/` + idB + `"), init]`, ""},
		{"another answer", idA, `(url, init) => { if (init.method !== "POST") return [url, init]; const b = JSON.parse(init.body); b.content.choice = "Drop"; return [url, {...init, body: JSON.stringify(b)}]; }`, ""},
		{"another nonce", idA, "", `k => ({...k, nonce: "bm90LXRoZS1zZXJ2ZXJzLW5vbmNl"})`},
	} {
		// The human picks Keep on A and sends it: the POST lands on c.on.
		if _, err := eval[bool](t, "(probe.send = "+cmp.Or(c.send, "null")+", probe.reply = "+cmp.Or(c.reply, "null")+", true)"); err != nil {
			return err
		}
		if err := answer(t, idA, "Keep"); err != nil {
			return err
		}
		if err := p.refused(t, c.on); err != nil {
			return fmt.Errorf("%s: %w", c.what, err)
		}
		if c.on != idA { // A's own card shows the refusal of what it sent
			if err := t.until(ownNote(idA) + " !== ''"); err != nil {
				return fmt.Errorf("%s: %w", c.what, err)
			}
		}
		if n := len(p.inbox.Pending()); n != 2 {
			return fmt.Errorf("%s: %d questions open, want 2", c.what, n)
		}
		if c.what == "another nonce" {
			if err := p.shoot(t, "proof-refused", openCard(idA)); err != nil {
				return err
			}
		}
		if _, err := eval[bool](t, "(probe.seen = [], true)"); err != nil {
			return err
		}
	}
	// Sent as signed, each is taken.
	if _, err := eval[bool](t, "(probe.send = probe.reply = null, true)"); err != nil {
		return err
	}
	if err := answer(t, idA, "Keep"); err != nil {
		return err
	}
	if err := want(doneA, "Keep"); err != nil {
		return err
	}
	if err := answer(t, idB, "Drop"); err != nil {
		return err
	}
	return want(doneB, "Drop")
}

// promised returns the value of the promise of the JavaScript expression js.
func promised[T any](t *tab, js string) (T, error) {
	ctx, cancel := context.WithTimeout(t.ctx, wait)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
}

// replayed: the body of a proven POST, taken as it went, is sent again to
// the same question asked again under the same ID after it ended: refused by
// the counter; and, from a passkey that counts nothing (a synced one: 0
// after 0 is allowed), refused as its nonce was spent on that question. The
// question is still open each time.
func replayed(p *proofSite, t *tab, a *authenticator) error {
	if _, err := p.enrol(t, a); err != nil {
		return err
	}
	done, id, err := p.askProven(t, p.session, proofReq)
	if err != nil {
		return err
	}
	for i, c := range []struct{ pick, refusal string }{{"Drop", "counter"}, {"Keep", "nonce"}} {
		if err := answer(t, id, c.pick); err != nil {
			return err
		}
		if err := want(done, c.pick); err != nil {
			return err
		}
		if err := posted(t, id, 204); err != nil {
			return err
		}
		body, err := eval[string](t, `probe.seen.find(s => s.method === "POST" && s.url.includes("questions/") && s.status === 204).body`)
		if err != nil || !strings.Contains(body, `"proof"`) {
			return fmt.Errorf("the proven POST's body is %q (%v), want one with its proof", body, err)
		}
		if _, err := eval[bool](t, "(probe.seen = [], true)"); err != nil {
			return err
		}
		again := ""
		if done, again, err = p.askProven(t, ui.WithQuestionID(p.session, id), proofReq); err != nil {
			return err
		} else if again != id {
			return fmt.Errorf("asked again under %s, the question is %s", id, again)
		}
		status, err := promised[float64](t, `fetch("questions/`+id+`", {method: "POST", headers: {"Authorization": "Bearer `+p.token+`", "Content-Type": "application/json"}, body: `+fmt.Sprintf("%q", body)+`}).then(r => r.status)`)
		if err != nil || status != 422 {
			return fmt.Errorf("the replayed POST: %v (%v), want 422", status, err)
		}
		if err := p.refused(t, id); err != nil {
			return err
		}
		if q := p.inbox.Pending(); !strings.Contains(q[0].Hint, c.refusal) {
			return fmt.Errorf("the replay's hint %q does not name the %s", q[0].Hint, c.refusal)
		}
		if _, err := eval[bool](t, "(probe.seen = [], true)"); err != nil {
			return err
		}
		if i > 0 {
			break
		}
		// A passkey that counts nothing: the authenticator reports 0, the host kept 0.
		if err := a.countNothing(); err != nil {
			return err
		}
		var keys []map[string]any
		if err := json.Unmarshal(p.inbox.Passkeys(), &keys); err != nil {
			return err
		}
		keys[0]["counter"] = 0
		if data, _ := json.Marshal(keys); p.inbox.SetPasskeys(data) != nil {
			return fmt.Errorf("SetPasskeys(%s): %w", data, p.inbox.SetPasskeys(data))
		}
	}
	if err := t.do(chromedp.Click(chromedp.Search(`//div[@id="questions"]//form[@aria-labelledby="q-` + id + `"]//button[.="Decline to answer"]`))); err != nil {
		return err
	}
	return want(done, ui.CodeAskDeclined)
}

// neverAccepted: the page's script makes a passkey of its own
// (navigator.credentials.create, never sent to the host), and the page,
// told by a forged reply that it is the one to use, signs a proven answer
// with it: refused, still open. The host's passkey then answers.
func neverAccepted(p *proofSite, t *tab, a *authenticator) error {
	if _, err := p.enrol(t, a); err != nil {
		return err
	}
	own, err := promised[string](t, `navigator.credentials.create({publicKey: {
  rp: {id: "localhost", name: "not the host's"}, user: {id: crypto.getRandomValues(new Uint8Array(16)), name: "agent", displayName: "agent"},
  challenge: crypto.getRandomValues(new Uint8Array(32)), pubKeyCredParams: [{type: "public-key", alg: -7}],
  authenticatorSelection: {residentKey: "required", userVerification: "required"}}}).then(c => c.id)`)
	if err != nil {
		return fmt.Errorf("navigator.credentials.create: %w", err)
	}
	if cs, err := a.credentials(); err != nil || len(cs) != 2 {
		return fmt.Errorf("the authenticator keeps %d passkeys (%v), want 2", len(cs), err)
	}
	done, id, err := p.askProven(t, p.session, proofReq)
	if err != nil {
		return err
	}
	if _, err := eval[bool](t, `(probe.reply = k => ({...k, credentials: ["`+own+`"]}), true)`); err != nil {
		return err
	}
	if err := answer(t, id, "Drop"); err != nil {
		return err
	}
	if err := p.refused(t, id); err != nil {
		return err
	}
	signer, err := eval[string](t, `JSON.parse(probe.seen.find(s => s.method === "POST" && s.url.includes("questions/")).body).proof.credential`)
	if err != nil || signer != own {
		return fmt.Errorf("the refused answer was signed by %q (%v), want the page's own passkey %q", signer, err, own)
	}
	if _, err := eval[bool](t, "(probe.reply = null, true)"); err != nil {
		return err
	}
	if err := answer(t, id, "Drop"); err != nil {
		return err
	}
	return want(done, "Drop")
}

// refusedPasskey: the host's AcceptPasskey refuses the passkey the human
// adds: the page says so, and Passkeys stays "[]"; the passkey, still in the
// authenticator, signs a proven answer: refused, still open.
func refusedPasskey(p *proofSite, t *tab, a *authenticator) error {
	p.mu.Lock()
	p.refuse = errors.New("this passkey is not on the team's list")
	p.mu.Unlock()
	if err := t.until(addShown); err != nil {
		return err
	}
	text, _ := eval[string](t, "document.body.innerText")
	if err := t.do(chromedp.Click(addButton)); err != nil {
		return err
	}
	if err := untilGives(p.seen, "1"); err != nil {
		return fmt.Errorf("AcceptPasskey: %w", err)
	}
	if err := t.until("document.body.innerText !== " + fmt.Sprintf("%q", text) + " && /refused|not accepted|not added|team's list/i.test(document.body.innerText)"); err != nil {
		got, _ := eval[string](t, "document.body.innerText")
		return fmt.Errorf("the page reads %q: %w", got, err)
	}
	if err := p.shoot(t, "proof-passkey-refused", ""); err != nil {
		return err
	}
	if got := string(p.inbox.Passkeys()); got != "[]" {
		return fmt.Errorf("Passkeys() = %s after AcceptPasskey refused, want []", got)
	}
	// The refused passkey stays in the authenticator, where the page finds it (no credential named): it signs, refused.
	done, id, err := p.askProven(t, p.session, proofReq)
	if err != nil {
		return err
	}
	if err := answer(t, id, "Drop"); err != nil {
		return err
	}
	if err := p.refused(t, id); err != nil {
		return err
	}
	if err := p.inbox.Respond(id, ui.Answer{}, ui.NewError(ui.CodeAskDeclined, "declined", nil)); err != nil {
		return err
	}
	return want(done, ui.CodeAskDeclined)
}

// withoutPasskey: no passkey added, a proven question can still be declined;
// Send says the passkey did not sign and to add one, and no answer is taken.
func withoutPasskey(p *proofSite, t *tab, a *authenticator) error {
	done, id, err := p.askProven(t, p.session, proofReq)
	if err != nil {
		return err
	}
	if err := t.do(chromedp.Click(button(id, "Decline to answer"))); err != nil {
		return err
	}
	if err := want(done, ui.CodeAskDeclined); err != nil {
		return err
	}
	if err := posted(t, id, 204); err != nil {
		return err
	}
	if _, err := eval[bool](t, "(probe.seen = [], true)"); err != nil {
		return err
	}
	done, id, err = p.askProven(t, p.session, proofReq)
	if err != nil {
		return err
	}
	if err := answer(t, id, "Drop"); err != nil {
		return err
	}
	if err := t.until("/passkey/i.test(" + ownNote(id) + ")"); err != nil {
		got, _ := eval[string](t, ownNote(id))
		return fmt.Errorf("the card's note reads %q: %w", got, err)
	}
	got, err := eval[[]string](t, posts)
	if err != nil || len(got) > 0 && (len(got) != 1 || got[0] != id+" 422") {
		return fmt.Errorf("the page's POSTs are %q (%v), want none or a 422", got, err)
	}
	if q := p.inbox.Pending(); len(q) != 1 || q[0].ID != id {
		return fmt.Errorf("Pending() = %+v, want the question open", q)
	}
	if err := p.shoot(t, "proof-no-passkey", openCard(id)); err != nil {
		return err
	}
	// What a script on the page could send instead: the answer without a proof.
	status, err := promised[float64](t, `fetch("questions/`+id+`", {method: "POST", headers: {"Authorization": "Bearer `+p.token+`", "Content-Type": "application/json"}, body: '{"action": "accept", "content": {"choice": "Drop"}}'}).then(r => r.status)`)
	if err != nil || status != 422 {
		return fmt.Errorf("an answer POSTed without its proof: %v (%v), want 422", status, err)
	}
	if err := p.refused(t, id); err != nil {
		return err
	}
	if err := p.inbox.Respond(id, ui.Answer{}, ui.NewError(ui.CodeAskDeclined, "declined", nil)); err != nil {
		return err
	}
	return want(done, ui.CodeAskDeclined)
}

// heldCheck, run before the page's script, holds the page's GET of passkey
// until release() is called; window.checked is true once the page has read
// its reply.
const heldCheck = `(() => {
  const real = window.fetch;
  let release;
  const held = new Promise(r => { release = r; });
  window.release = () => release();
  const marked = res => { const json = res.json(); res.json = () => json.then(v => (window.checked = true, v)); return res; }; // the page's handler runs in the microtasks after
  window.fetch = (url, init = {}) => String(url) === "passkey" && !init.method ? (window.asked = true, held.then(() => real(url, init)).then(marked)) : real(url, init);
})()`

// checkMovesNothing: on the main site, whose Inbox has no relying party, the
// page's GET of passkey returns after a question is shown: the button stays
// hidden, so nothing moved, and the human's click right after is taken, not
// held as one on a control that moved.
func checkMovesNothing(s *site, t *tab) error {
	if err := t.do(chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tt, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: heldCheck})
		return err
	}), chromedp.Reload()); err != nil {
		return err
	}
	if err := t.until("window.asked === true"); err != nil {
		return err
	}
	done, id, err := s.askShown(t, region)
	if err != nil {
		return err
	}
	if err := t.until(settled); err != nil {
		return err
	}
	before, err := eval[float64](t, "changes")
	if err != nil {
		return err
	}
	// The check's reply comes, and the page's handler runs before the next evaluation.
	if _, err := eval[bool](t, "(release(), true)"); err != nil {
		return err
	}
	if err := t.until("window.checked === true"); err != nil {
		return err
	}
	moves, err := eval[[]any](t, "[changes, document.getElementById('passkey').hidden]")
	if err != nil || moves[0] != before || moves[1] != true {
		return fmt.Errorf("after the check of passkeys on a host without them, [moves, hidden] = %v (%v), want [%v, true]: a click within 600 ms is held", moves, err, before)
	}
	if err := t.do(chromedp.Click(option(id, "America")), chromedp.Click(button(id, "Send answer"))); err != nil {
		return err
	}
	return want(done, "us")
}
