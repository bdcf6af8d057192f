package userinteraction_test

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

var b64 = base64.RawURLEncoding

// pushService is a push service on loopback for one subscription, as a
// browser's: it checks each message's VAPID header against the Inbox's push
// key, decrypts it with the subscription's private key and secret, and hands
// its JSON to got. It answers status; with hold set, it first waits for hold
// to close, which it does when the test ends.
type pushService struct {
	*httptest.Server
	ua     *ecdh.PrivateKey
	auth   []byte
	got    chan map[string]any
	status int
	hold   chan struct{}
	once   sync.Once
}

// release lets the held messages go.
func (s *pushService) release() { s.once.Do(func() { close(s.hold) }) }

func newPushService(t *testing.T, inbox *ui.Inbox, status int, hold bool) *pushService {
	t.Helper()
	ua, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s := &pushService{ua: ua, auth: make([]byte, 16), got: make(chan map[string]any, 16), status: status}
	_, _ = rand.Read(s.auth)
	if hold {
		s.hold = make(chan struct{})
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		msg, err := s.open(r, inbox)
		if err != nil {
			t.Errorf("push service: %v", err)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		s.got <- msg
		if s.hold != nil {
			<-s.hold
		}
		w.WriteHeader(s.status)
	}))
	t.Cleanup(s.Close)
	if hold {
		t.Cleanup(s.release) // before Close, which waits for the handlers
	}
	return s
}

// subscription returns the PushSubscription's JSON that a browser would send.
func (s *pushService) subscription() []byte {
	return []byte(fmt.Sprintf(`{"endpoint":%q,"expirationTime":null,"keys":{"p256dh":%q,"auth":%q}}`,
		s.URL+"/push/"+b64.EncodeToString(s.auth), b64.EncodeToString(s.ua.PublicKey().Bytes()), b64.EncodeToString(s.auth)))
}

// open checks r as RFC 8292 and RFC 8291 say and returns its message.
func (s *pushService) open(r *http.Request, inbox *ui.Inbox) (map[string]any, error) {
	if r.Method != http.MethodPost || r.Header.Get("Content-Encoding") != "aes128gcm" || r.Header.Get("TTL") == "" {
		return nil, fmt.Errorf("%s with Content-Encoding %q and TTL %q, want a POST of aes128gcm with a TTL", r.Method, r.Header.Get("Content-Encoding"), r.Header.Get("TTL"))
	}
	// The VAPID header: an ES256 JWT signed by k, for this origin, for at most 24 hours.
	auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "vapid t=")
	token, k, ok2 := strings.Cut(auth, ", k=")
	if !ok || !ok2 || k != inbox.PushKey() {
		return nil, fmt.Errorf("Authorization %q, want vapid t=..., k=%s", r.Header.Get("Authorization"), inbox.PushKey())
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, fmt.Errorf("the JWT has %d parts", len(parts))
	}
	header, _ := b64.DecodeString(parts[0])
	var claims struct {
		Aud, Sub string
		Exp      int64
	}
	data, _ := b64.DecodeString(parts[1])
	if err := json.Unmarshal(data, &claims); err != nil || string(header) != `{"typ":"JWT","alg":"ES256"}` {
		return nil, fmt.Errorf("the JWT's header %s and claims %s", header, data)
	}
	if exp := time.Unix(claims.Exp, 0); claims.Aud != s.URL || claims.Sub != inbox.PushContact || exp.Before(time.Now()) || exp.After(time.Now().Add(24*time.Hour)) {
		return nil, fmt.Errorf("the JWT's claims %s, want aud %s, sub %s, exp within 24 hours", data, s.URL, inbox.PushContact)
	}
	pub, _ := b64.DecodeString(k)
	sig, _ := b64.DecodeString(parts[2])
	key := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(pub[1:33]), Y: new(big.Int).SetBytes(pub[33:])}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if len(pub) != 65 || len(sig) != 64 || !ecdsa.Verify(key, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return nil, fmt.Errorf("the JWT's signature does not verify with k")
	}
	// The body: salt, record size, the sender's key, one record (RFC 8188).
	body, err := io.ReadAll(r.Body)
	if err != nil || len(body) < 86+17 || binary.BigEndian.Uint32(body[16:20]) != 4096 || body[20] != 65 {
		return nil, fmt.Errorf("a body of %d bytes, want salt, rs 4096, a key of 65 bytes and a record", len(body))
	}
	salt, asPublic, record := body[:16], body[21:86], body[86:]
	as, err := ecdh.P256().NewPublicKey(asPublic)
	if err != nil {
		return nil, err
	}
	secret, err := s.ua.ECDH(as)
	if err != nil {
		return nil, err
	}
	ikm := hkdf(s.auth, secret, "WebPush: info\x00"+string(s.ua.PublicKey().Bytes())+string(asPublic), 32)
	block, _ := aes.NewCipher(hkdf(salt, ikm, "Content-Encoding: aes128gcm\x00", 16))
	gcm, _ := cipher.NewGCM(block)
	plain, err := gcm.Open(nil, hkdf(salt, ikm, "Content-Encoding: nonce\x00", 12), record, nil)
	if err != nil || len(plain) == 0 || plain[len(plain)-1] != 2 {
		return nil, fmt.Errorf("the record does not decrypt to a last record (%v)", err)
	}
	var msg map[string]any
	if err := json.Unmarshal(plain[:len(plain)-1], &msg); err != nil {
		return nil, err
	}
	return msg, nil
}

// hkdf is RFC 5869's HKDF-SHA-256, for at most 32 bytes.
func hkdf(salt, ikm []byte, info string, n int) []byte {
	mac := hmac.New(sha256.New, salt)
	mac.Write(ikm)
	mac = hmac.New(sha256.New, mac.Sum(nil))
	mac.Write([]byte(info + "\x01"))
	return mac.Sum(nil)[:n]
}

// next returns the next message s got.
func (s *pushService) next(t *testing.T) string {
	t.Helper()
	select {
	case msg := <-s.got:
		data, _ := json.Marshal(msg)
		return string(data)
	case <-time.After(10 * time.Second):
		t.Fatal("the push service got no message in 10 s")
		return ""
	}
}

// TestPushOpensAndEnds: a question sends one message as it opens, with its
// ID, its first line cut to 100 characters and its agent, and one as it
// ends, answered, withdrawn or as a batch, whose message is its first
// question's with the batch, which closes each question's notification.
func TestPushOpensAndEnds(t *testing.T) {
	inbox := &ui.Inbox{PushLoopback: true, PushContact: "mailto:ops@example.com"}
	s := newPushService(t, inbox, http.StatusCreated, false)
	if err := inbox.Subscribe(s.subscription()); err != nil {
		t.Fatal(err)
	}
	ctx := scope(t, inbox)
	long := strings.Repeat("é", 120)
	done := askAsync(ctx, ui.Request{Question: long + "\nThe second line", Agent: &ui.Agent{ID: "a1", Name: "Claude"}})
	open := s.next(t)
	id := inbox.Pending()[0].ID
	if want := fmt.Sprintf(`{"agent":"Claude","id":%q,"text":%q}`, id, long[:200]); open != want {
		t.Errorf("opened: %s\nwant %s", open, want)
	}
	if err := inbox.Respond(id, ui.Answer{Text: "yes"}, nil); err != nil {
		t.Fatal(err)
	}
	<-done
	if ended, want := s.next(t), fmt.Sprintf(`{"batch":"","ended":true,"id":%q}`, id); ended != want {
		t.Errorf("answered: %s, want %s", ended, want)
	}

	withdrawn, cancel := context.WithCancel(ctx)
	done = askAsync(withdrawn, ui.Request{Question: "\n  Deploy?\nWhy: the tests passed"})
	open = s.next(t)
	id = inbox.Pending()[0].ID
	if want := fmt.Sprintf(`{"agent":"","id":%q,"text":"Deploy?"}`, id); open != want {
		t.Errorf("opened: %s, want %s", open, want)
	}
	cancel()
	<-done
	if ended, want := s.next(t), fmt.Sprintf(`{"batch":"","ended":true,"id":%q}`, id); ended != want {
		t.Errorf("withdrawn: %s, want %s", ended, want)
	}

	batch := make(chan error, 1)
	go func() {
		_, err := ui.AskAll(ctx, []ui.Request{{Question: "First?"}, {Question: "Second?"}})
		batch <- err
	}()
	open = s.next(t)
	pending := inbox.Pending()
	if want := fmt.Sprintf(`{"agent":"","id":%q,"text":"First?"}`, pending[0].ID); open != want {
		t.Errorf("a batch opened: %s, want %s", open, want)
	}
	for _, p := range pending {
		if err := inbox.Respond(p.ID, ui.Answer{Text: "ok"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-batch; err != nil {
		t.Fatal(err)
	}
	if ended, want := s.next(t), fmt.Sprintf(`{"batch":%q,"ended":true,"id":%q}`, pending[0].Batch, pending[0].ID); ended != want {
		t.Errorf("a batch ended: %s, want %s", ended, want)
	}
	select {
	case msg := <-s.got:
		t.Errorf("a message more: %v", msg)
	default:
	}
}

// TestPushFaultsHoldNothingUp: a push service that never answers and one
// that answers 500 hold up neither Ask, Respond, the page nor each other: the
// question is answered, Ask returns and the second gets the ending while the
// first still holds the opening, and gets the ending only after it.
func TestPushFaultsHoldNothingUp(t *testing.T) {
	inbox := &ui.Inbox{PushLoopback: true}
	held := newPushService(t, inbox, http.StatusCreated, true)
	failing := newPushService(t, inbox, http.StatusInternalServerError, false)
	for _, s := range []*pushService{held, failing} {
		if err := inbox.Subscribe(s.subscription()); err != nil {
			t.Fatal(err)
		}
	}
	ctx := scope(t, inbox)
	done := askAsync(ctx, question)
	held.next(t) // now held
	failing.next(t)
	rec := httptest.NewRecorder()
	inbox.Handler("a-token-of-16-bytes!").ServeHTTP(rec, httptest.NewRequest("GET", "/questions?token=a-token-of-16-bytes!", nil))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), inbox.Pending()[0].ID) {
		t.Errorf("GET /questions: %d %s", rec.Code, rec.Body)
	}
	responded := make(chan error, 1)
	go func() { responded <- inbox.Respond(inbox.Pending()[0].ID, ui.Answer{Text: "yes"}, nil) }()
	for _, c := range []<-chan error{responded, done} {
		select {
		case err := <-c:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Respond or Ask waits for the push service")
		}
	}
	select {
	case <-held.hold:
		t.Fatal("the held message was let go before Ask returned")
	default:
	}
	if msg := failing.next(t); !strings.Contains(msg, `"ended":true`) {
		t.Errorf("the failing service got %s, want the ending", msg)
	}
	select {
	case msg := <-held.got:
		t.Fatalf("the ending %v went before the opening's answer", msg)
	default:
	}
	held.release()
	if msg := held.next(t); !strings.Contains(msg, `"ended":true`) {
		t.Errorf("the held service got %s, want the ending", msg)
	}
}

// sub returns a PushSubscription's JSON of endpoint with valid keys.
func sub(endpoint string) string {
	return fmt.Sprintf(`{"endpoint":%q,"keys":{"p256dh":"BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4","auth":"BTBZMqHH6r4Tts7J_aSIgg"}}`, endpoint)
}

// TestPushSubscriptionsRefused: what a hostile page could send as its
// subscription is refused with INVALID_REQUEST, never a panic: endpoints
// that are not https (loopback http only when allowed), bad keys, a 101st.
func TestPushSubscriptionsRefused(t *testing.T) {
	point := "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
	offCurve := b64.EncodeToString(append([]byte{4}, make([]byte, 64)...))
	for _, tc := range []struct {
		loopback bool
		sub      string
	}{
		{false, `not json`},
		{false, `null`},
		{false, `{"endpoint": 1}`},
		{false, sub("http://push.example.com/1")},
		{false, sub("http://127.0.0.1:9/1")},
		{true, sub("http://push.example.com/1")},
		{true, sub("http://localhost:9/1")},
		{true, sub("http://10.0.0.1/1")},
		{false, sub("ftp://push.example.com/1")},
		{false, sub("javascript:alert(1)")},
		{false, sub("https:///nohost")},
		{false, sub("https://user:pw@push.example.com/1")},
		{false, sub("https://push.example.com/\x00")},
		{false, sub("/relative")},
		{false, sub("")},
		{false, sub("https://push.example.com/" + strings.Repeat("a", 2048))},
		{false, strings.Replace(sub("https://push.example.com/1"), point, offCurve, 1)},
		{false, strings.Replace(sub("https://push.example.com/1"), point, point[:40], 1)},
		{false, strings.Replace(sub("https://push.example.com/1"), point, "!!"+point[2:], 1)},
		{false, strings.Replace(sub("https://push.example.com/1"), point, "", 1)},
		{false, strings.Replace(sub("https://push.example.com/1"), "BTBZMqHH6r4Tts7J_aSIgg", "BTBZMqHH6r4Tts7J_aSI", 1)},
		{false, strings.Replace(sub("https://push.example.com/1"), "BTBZMqHH6r4Tts7J_aSIgg", "BTBZMqHH6r4Tts7J/aSIgg", 1)},
	} {
		inbox := &ui.Inbox{PushLoopback: tc.loopback}
		wantCode(t, fmt.Sprintf("Subscribe(%.80q) with PushLoopback %v", tc.sub, tc.loopback), inbox.Subscribe([]byte(tc.sub)), ui.CodeInvalidRequest)
	}
	inbox := &ui.Inbox{PushLoopback: true}
	for _, endpoint := range []string{"https://push.example.com/a", "http://127.0.0.1:9/b", "http://[::1]:9/c", "https://push.example.com:8443/d"} {
		if err := inbox.Subscribe([]byte(sub(endpoint))); err != nil {
			t.Errorf("Subscribe(%s): %v", endpoint, err)
		}
	}
	padded := strings.Replace(sub("https://push.example.com/e"), "aSIgg", "aSIgg==", 1)
	if err := inbox.Subscribe([]byte(padded)); err != nil {
		t.Errorf("Subscribe(%s), padded: %v", padded, err)
	}
	for i := 5; i < 100; i++ {
		if err := inbox.Subscribe([]byte(sub(fmt.Sprint("https://push.example.com/", i)))); err != nil {
			t.Fatal(err)
		}
	}
	if err := inbox.Subscribe([]byte(sub("https://push.example.com/a"))); err != nil {
		t.Errorf("the same endpoint again, with 100 held: %v", err)
	}
	wantCode(t, "a 101st Subscribe", inbox.Subscribe([]byte(sub("https://push.example.com/101"))), ui.CodeInvalidRequest)
}

// TestPushState: PushState and SetPushState keep the key and subscriptions
// across an Inbox; bad state is INVALID_REQUEST and changes nothing.
func TestPushState(t *testing.T) {
	a := &ui.Inbox{}
	for _, endpoint := range []string{"https://push.example.com/1", "https://push.example.com/2"} {
		if err := a.Subscribe([]byte(sub(endpoint))); err != nil {
			t.Fatal(err)
		}
	}
	state := a.PushState()
	var shape struct {
		Key           string
		Subscriptions []json.RawMessage
	}
	if err := json.Unmarshal(state, &shape); err != nil || len(shape.Subscriptions) != 2 || string(shape.Subscriptions[0]) != sub("https://push.example.com/1") {
		t.Fatalf("PushState() = %s, want the key and the two subscriptions as given", state)
	}
	b := &ui.Inbox{}
	if err := b.SetPushState(state); err != nil {
		t.Fatal(err)
	}
	if b.PushKey() != a.PushKey() || string(b.PushState()) != string(state) {
		t.Fatalf("restored: key %s and state %s, want %s and %s", b.PushKey(), b.PushState(), a.PushKey(), state)
	}
	zero, big := b64.EncodeToString(make([]byte, 32)), b64.EncodeToString([]byte(strings.Repeat("\xff", 32)))
	for _, bad := range []string{
		``, `null`, `[]`, `{"key": 1}`, `{"key": "` + shape.Key + `", "subscriptions": {}}`,
		`{"key": "` + shape.Key[:40] + `"}`, `{"key": "` + zero + `"}`, `{"key": "` + big + `"}`, `{"key": "` + shape.Key + `=="}`,
		`{"key": "` + shape.Key + `", "subscriptions": [` + sub("http://push.example.com/1") + `]}`,
	} {
		wantCode(t, fmt.Sprintf("SetPushState(%.80s)", bad), b.SetPushState([]byte(bad)), ui.CodeInvalidRequest)
		if string(b.PushState()) != string(state) {
			t.Fatalf("SetPushState(%.80s) changed the state to %s", bad, b.PushState())
		}
	}
	many := make([]string, 101)
	for i := range many {
		many[i] = sub(fmt.Sprint("https://push.example.com/", i))
	}
	wantCode(t, "SetPushState of 101 subscriptions", b.SetPushState([]byte(`{"key": "`+shape.Key+`", "subscriptions": [`+strings.Join(many, ",")+`]}`)), ui.CodeInvalidRequest)
	if err := b.SetPushState([]byte(`{"key": "` + shape.Key + `", "subscriptions": [` + strings.Join(many[:100], ",") + `]}`)); err != nil {
		t.Errorf("SetPushState of 100 subscriptions: %v", err)
	}
}

// TestPushRoutes: GET push gives the push key and POST push takes a
// subscription (204, or 400 with the coded error), behind the token; a
// Source that is no Inbox has no push.
func TestPushRoutes(t *testing.T) {
	const token = "a-token-of-16-bytes!"
	inbox := &ui.Inbox{}
	h := inbox.Handler(token)
	serve := func(h http.Handler, method, path, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(rec, req)
		return rec
	}
	if rec := serve(h, "GET", "/push?token="+token, ""); rec.Code != http.StatusOK || rec.Body.String() != `{"key":"`+inbox.PushKey()+`"}` {
		t.Errorf("GET /push: %d %s, want 200 with the key %s", rec.Code, rec.Body, inbox.PushKey())
	}
	for _, path := range []string{"/push", "/push?token=wrong-token-of-16-bytes"} {
		if rec := serve(h, "GET", path, ""); rec.Code != http.StatusUnauthorized {
			t.Errorf("GET %s: %d, want 401", path, rec.Code)
		}
		if rec := serve(h, "POST", path, sub("https://push.example.com/1")); rec.Code != http.StatusUnauthorized {
			t.Errorf("POST %s: %d, want 401", path, rec.Code)
		}
	}
	if rec := serve(h, "POST", "/push?token="+token, sub("https://push.example.com/1")); rec.Code != http.StatusNoContent || !strings.Contains(string(inbox.PushState()), "push.example.com/1") {
		t.Errorf("POST /push: %d %s, want 204 and the subscription kept", rec.Code, rec.Body)
	}
	for _, body := range []string{sub("http://push.example.com/2"), "{", strings.Repeat(" ", 2<<20) + sub("https://push.example.com/3")} {
		rec := serve(h, "POST", "/push?token="+token, body)
		var e ui.HarnessError
		if err := json.Unmarshal(rec.Body.Bytes(), &e); rec.Code != http.StatusBadRequest || err != nil || e.Code != ui.CodeInvalidRequest {
			t.Errorf("POST /push of %.40q: %d %s, want 400 with INVALID_REQUEST", body, rec.Code, rec.Body)
		}
	}
	if strings.Contains(string(inbox.PushState()), "push.example.com/3") {
		t.Error("a body over 1 MiB was read whole")
	}
	other := ui.Handler(struct{ ui.Source }{inbox}, token)
	if rec := serve(other, "GET", "/push?token="+token, ""); rec.Code != http.StatusNotFound {
		t.Errorf("GET /push of another Source: %d, want 404", rec.Code)
	}
}

// TestPushEndingAfterAFullQueue: an ending whose opening went is sent even
// when 8 messages wait for its subscription, else the phone would show the
// question's notification for ever.
func TestPushEndingAfterAFullQueue(t *testing.T) {
	inbox := &ui.Inbox{PushLoopback: true}
	s := newPushService(t, inbox, http.StatusCreated, true)
	if err := inbox.Subscribe(s.subscription()); err != nil {
		t.Fatal(err)
	}
	ctx := scope(t, inbox)
	first, cancel := context.WithCancel(ctx)
	done := askAsync(first, ui.Request{Question: "First?"})
	s.next(t) // held: 7 more fill the queue
	for i := 0; i < 7; i++ {
		askAsync(ctx, question)
	}
	id := waitPending(t, inbox, 8)[0].ID
	cancel()
	<-done
	s.release()
	for i := 0; i < 7; i++ {
		s.next(t)
	}
	last, stop := context.WithCancel(ctx) // its ending comes after every message before it
	done = askAsync(last, ui.Request{Question: "Last?"})
	lastID := waitPending(t, inbox, 8)[7].ID
	stop()
	<-done
	var got []string
	for msg := ""; !strings.Contains(msg, lastID+`"`) || !strings.Contains(msg, "ended"); {
		msg = s.next(t)
		got = append(got, msg)
	}
	if want := fmt.Sprintf(`{"batch":"","ended":true,"id":%q}`, id); got[0] != want {
		t.Errorf("after a full queue, the first question's subscription got %q, want its ending %s first", got, want)
	}
}

// TestPushSubscriptionKeptSmall: what the Inbox keeps of a subscription is
// bounded, whatever padding its keys came with: 100 of them within 1 MiB
// of body each would hold 100 MiB.
func TestPushSubscriptionKeptSmall(t *testing.T) {
	inbox := &ui.Inbox{}
	padded := strings.Replace(sub("https://push.example.com/1"), "aSIgg", "aSIgg"+strings.Repeat("=", 1<<19), 1)
	if err := inbox.Subscribe([]byte(padded)); err != nil {
		t.Fatal(err)
	}
	if state := inbox.PushState(); len(state) > 4096 {
		t.Errorf("PushState() after a subscription with %d bytes of padding holds %d bytes, want at most 4,096", 1<<19, len(state))
	}
}
