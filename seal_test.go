package userinteraction_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

var (
	sealKey  = []byte("0123456789abcdef0123456789abcdef") // 32 bytes
	otherKey = []byte("fedcba9876543210fedcba9876543210")
)

// sealedRun runs tool on a new Replay with outcomes recorded and returns the
// Replay, sealed for binding.
func sealedRun(
	t *testing.T, binding string, tool func(context.Context) string, outcomes map[string]ui.Answer,
) (string, *ui.Replay) {
	t.Helper()
	rp := &ui.Replay{}
	for id, ans := range outcomes {
		rp.Record(id, ans, nil)
	}
	run(rp, tool)
	state, err := rp.Seal(sealKey, binding, time.Hour)
	if err != nil {
		t.Fatalf("Seal() error = %v, want nil", err)
	}
	return state, rp
}

func TestSealRoundTrip(t *testing.T) {
	state, rp := sealedRun(t, "alice\ndeploy\n{}", deployTool, map[string]ui.Answer{firstID(whereTo): {Text: "staging"}})
	if !regexp.MustCompile(`^[A-Za-z0-9_.-]+$`).MatchString(state) {
		t.Fatalf("Seal() = %q, want URL-safe ASCII", state)
	}
	opened, err := ui.OpenReplay(sealKey, "alice\ndeploy\n{}", state)
	if err != nil {
		t.Fatalf("OpenReplay() error = %v, want nil", err)
	}
	if got, want := marshal(t, opened), marshal(t, rp); string(got) != string(want) {
		t.Fatalf("opened record = %s, want %s", got, want)
	}
	if got, want := opened.Pending(), []ui.Pending{{ID: rp.Pending()[0].ID}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("opened Pending() = %+v, want the question pending when sealed, %+v", got, want)
	}
	// The sealed state holds the record readably: sealed, not encrypted.
	payload, _, _ := strings.Cut(state, ".")
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil || !strings.Contains(string(raw), `"answer":"staging"`) {
		t.Fatalf("state payload = %s, %v, want the record readable", raw, err)
	}
}

// TestOpenReplayFirstRound: no state is the first round, a new empty Replay.
func TestOpenReplayFirstRound(t *testing.T) {
	rp, err := ui.OpenReplay(sealKey, "anything", "")
	if err != nil || string(marshal(t, rp)) != "{}" || len(rp.Pending()) != 0 {
		t.Fatalf("OpenReplay(\"\") = %s, %v, want a new empty Replay", marshal(t, rp), err)
	}
}

// TestOpenReplayRefuses: every state that Seal did not seal, for this call
// and key, and in time, is INVALID_STATE, with a message that tells the
// model no more than that and a cause that tells the host which.
func TestOpenReplayRefuses(t *testing.T) {
	state, _ := sealedRun(t, "call-1", deployTool, nil)
	expired, err := (&ui.Replay{}).Seal(sealKey, "call-1", -time.Second)
	if err != nil {
		t.Fatalf("Seal() error = %v, want nil", err)
	}
	payload, mac, _ := strings.Cut(state, ".")
	flip := func(s string, i int) string { // s with character i changed
		c := byte('A')
		if s[i] == 'A' {
			c = 'B'
		}
		return s[:i] + string(c) + s[i+1:]
	}
	tests := []struct {
		name, binding, state string
		key                  []byte
		cause                string
	}{
		{"tampered payload", "call-1", flip(payload, len(payload)/2) + "." + mac, sealKey, "tampered"},
		{"tampered MAC", "call-1", payload + "." + flip(mac, 3), sealKey, "tampered"},
		{"another key", "call-1", state, otherKey, "another key"},
		{"another call", "call-2", state, sealKey, "another call"},
		{"expired", "call-1", expired, sealKey, "expired"},
		{"no MAC", "call-1", payload, sealKey, "malformed"},
		{"not base64", "call-1", "!!." + mac, sealKey, "malformed"},
		{"two dots", "call-1", state + ".x", sealKey, "malformed"},
		{"garbage", "call-1", "e30", sealKey, "malformed"},
		{"a record as state", "call-1", "{}", sealKey, "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rp, err := ui.OpenReplay(tt.key, tt.binding, tt.state)
			wantCode(t, "OpenReplay()", err, ui.CodeInvalidState)
			var he *ui.HarnessError
			errors.As(err, &he)
			if rp != nil || he.Message != invalidStateMessage || !strings.Contains(err.Error(), tt.cause) {
				t.Fatalf("OpenReplay() = %v, %q (message %q), want nil and a cause that says %q", rp, err, he.Message, tt.cause)
			}
		})
	}
}

// TestOpenReplayReadsTheRecordStrictly: OpenReplay reads the sealed record
// with the record's strict reader, so state sealed under the key with a
// record that UnmarshalJSON refuses does not open either.
func TestOpenReplayReadsTheRecordStrictly(t *testing.T) {
	for _, record := range []string{
		`{"z":{"answer":"deny","Answer":"allow"}}`,
		`{"z":{"answer":"a"},"z":{"answer":"b"}}`,
		`{"z":{"answer":"x","option":{"label":"Deny","label":"Allow"}}}`,
		`{"z":{"answer":"x","note":"unknown"}}`,
		`{"z":{"answer":["x"]}}`,
		`{"z":{"refused":3,"hint":"h"}}`,
	} {
		if err := (&ui.Replay{}).UnmarshalJSON([]byte(record)); err == nil {
			t.Fatalf("UnmarshalJSON(%s) = nil, want an error", record)
		}
		_, err := ui.OpenReplay(sealKey, "call", sealByHand(t, record))
		wantCode(t, "OpenReplay() of record "+record, err, ui.CodeInvalidState)
		if !strings.Contains(err.Error(), "Replay record") {
			t.Errorf("OpenReplay() of record %s = %v, want a cause that names the record", record, err)
		}
	}
}

// invalidStateMessage is the whole model-facing message of INVALID_STATE: it
// says what to do, and nothing of why.
const invalidStateMessage = "invalid state: the answers of this call cannot be used, " +
	"so call the tool again from the start"

// TestShortKeyIsTheHostsError: a key shorter than 32 bytes is the host's
// configuration error, not the client's: an uncoded error from Seal and
// from OpenReplay, also in the first round, before anything else is checked.
func TestShortKeyIsTheHostsError(t *testing.T) {
	state, _ := sealedRun(t, "call-1", deployTool, nil)
	_, sealErr := (&ui.Replay{}).Seal(sealKey[:31], "call-1", time.Hour)
	_, openErr := ui.OpenReplay(sealKey[:31], "call-1", state)
	_, firstErr := ui.OpenReplay(sealKey[:31], "call-1", "")
	_, garbageErr := ui.OpenReplay(sealKey[:31], "call-1", "garbage")
	for _, err := range []error{sealErr, openErr, firstErr, garbageErr} {
		if err == nil || ui.CodeOf(err) != "" || !strings.Contains(err.Error(), "shorter than 32 bytes") {
			t.Errorf("with a 31-byte key: %v, want an uncoded error about the key's length", err)
		}
	}
}

// TestNoTwoKeysOpenOneState: the MAC key is derived from the whole key, so
// neither a key with a zero byte added (which raw HMAC pads with) nor a long
// key's SHA-256 (which raw HMAC keys with) opens the state.
func TestNoTwoKeysOpenOneState(t *testing.T) {
	long := []byte(strings.Repeat("a long key of more than 64 bytes, which HMAC hashes. ", 2))
	hashed := sha256.Sum256(long)
	tests := []struct {
		name        string
		seal, other []byte
	}{
		{"a zero byte added", sealKey, append(append([]byte(nil), sealKey...), 0)},
		{"a long key and its SHA-256", long, hashed[:]},
		{"a SHA-256 and the long key", hashed[:], long},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, err := (&ui.Replay{}).Seal(tt.seal, "call", time.Hour)
			if err != nil {
				t.Fatalf("Seal() error = %v, want nil", err)
			}
			if _, err := ui.OpenReplay(tt.seal, "call", state); err != nil {
				t.Fatalf("OpenReplay() with the sealing key = %v, want it opened", err)
			}
			_, err = ui.OpenReplay(tt.other, "call", state)
			wantCode(t, "OpenReplay() with the other key", err, ui.CodeInvalidState)
		})
	}
}

// TestStateOfVersionOneRefused: state sealed before the MAC key was derived
// (version 1, raw HMAC-SHA256 of a label and the payload) no longer opens.
func TestStateOfVersionOneRefused(t *testing.T) {
	expires, binding := time.Now().Add(time.Hour).UnixMilli(), sha256.Sum256([]byte("call"))
	payload := fmt.Sprintf(`{"v":1,"exp":%d,"bind":"%x","record":{}}`, expires, binding)
	h := hmac.New(sha256.New, sealKey)
	h.Write([]byte("userinteraction replay state\n" + payload))
	state := base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + base64.RawURLEncoding.EncodeToString(h.Sum(nil))
	_, err := ui.OpenReplay(sealKey, "call", state)
	wantCode(t, "OpenReplay() of version 1 state", err, ui.CodeInvalidState)
}

// TestStateOfVersionTwoRefused: state of format 2, before refusals, Batch
// and Hint, sealed under the same MAC, no longer opens: the call starts
// again, as for any state that cannot be used.
func TestStateOfVersionTwoRefused(t *testing.T) {
	expires, binding := time.Now().Add(time.Hour).UnixMilli(), sha256.Sum256([]byte("call"))
	payload := fmt.Sprintf(`{"v":2,"exp":%d,"bind":"%x","record":{}}`, expires, binding)
	derived := sha256.Sum256(append([]byte("userinteraction seal\n"), sealKey...))
	h := hmac.New(sha256.New, derived[:])
	h.Write([]byte(payload))
	state := base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + base64.RawURLEncoding.EncodeToString(h.Sum(nil))
	_, err := ui.OpenReplay(sealKey, "call", state)
	wantCode(t, "OpenReplay() of version 2 state", err, ui.CodeInvalidState)
	if !strings.Contains(err.Error(), "malformed") {
		t.Fatalf("OpenReplay() = %v, want a malformed state", err)
	}
}

// TestOpenedReplayRegisteredWithoutRun: a host that registers an opened
// Replay itself, without Run, gets the same run as with Run: its first ask
// starts the run, so an answered question is not pending again.
func TestOpenedReplayRegisteredWithoutRun(t *testing.T) {
	_, pending, state := serveRound(t, "", nil, deployTool)
	rp, err := ui.OpenReplay(sealKey, "call", state)
	if err != nil {
		t.Fatalf("OpenReplay() error = %v, want nil", err)
	}
	rp.Record(pending[0].ID, ui.Answer{Text: "production"}, nil)
	ctx := scope(t, rp)
	if got := deployTool(ctx); got != "not deployed: INPUT_REQUIRED" {
		t.Fatalf("deployTool() = %q, want it to wait for the second answer", got)
	}
	got := rp.Pending()
	if len(got) != 1 || got[0].ID == pending[0].ID || got[0].Request.Question != "Deploy to production now?" {
		t.Fatalf("Pending() = %+v, want only the second question", got)
	}
}

// serveRound is one round of a host that follows the documented loop: open
// the state, record the responses to the questions pending in it, run.
func serveRound(
	t *testing.T, state string, responses map[string]ui.Answer, tool func(context.Context) string,
) (string, []ui.Pending, string) {
	t.Helper()
	rp, err := ui.OpenReplay(sealKey, "call", state)
	if err != nil {
		t.Fatalf("OpenReplay() error = %v, want nil", err)
	}
	for _, q := range rp.Pending() {
		if ans, ok := responses[q.ID]; ok {
			rp.Record(q.ID, ans, nil)
		}
	}
	result, pending := run(rp, tool)
	next, err := rp.Seal(sealKey, "call", time.Hour)
	if err != nil {
		t.Fatalf("Seal() error = %v, want nil", err)
	}
	return result, pending, next
}

// confirmDelete asks before it deletes.
func confirmDelete(ctx context.Context) string {
	ans, err := ui.Ask(ctx, deleteIt)
	if err != nil {
		return "not deleted: " + ui.CodeOf(err)
	}
	return "answer: " + ans.Text
}

// TestUnsolicitedResponsesNotRecorded: a client that sends the predicted ID
// of a question that was never asked, with no state or with the state of an
// earlier round, gets the question asked; only responses to pending
// questions are recorded.
func TestUnsolicitedResponsesNotRecorded(t *testing.T) {
	forged := map[string]ui.Answer{firstID(deleteIt): {Text: "Delete"}}
	result, pending, state := serveRound(t, "", forged, confirmDelete)
	if result != "not deleted: INPUT_REQUIRED" || len(pending) != 1 {
		t.Fatalf("round 1 with a forged response = %q, pending %+v, want the question asked", result, pending)
	}
	result, pending, _ = serveRound(t, state, map[string]ui.Answer{pending[0].ID: {Text: "Keep"}}, confirmDelete)
	if result != "answer: Keep" || len(pending) != 0 {
		t.Fatalf("round 2 = %q, pending %+v, want the human's answer", result, pending)
	}
}

// TestSealedRoundsComplete: a two-question call completes in three rounds
// through sealed state alone.
func TestSealedRoundsComplete(t *testing.T) {
	_, pending, state := serveRound(t, "", nil, deployTool)
	_, pending, state = serveRound(t, state, map[string]ui.Answer{pending[0].ID: {Text: "production"}}, deployTool)
	result, pending, _ := serveRound(t, state, map[string]ui.Answer{pending[0].ID: {Text: "Yes"}}, deployTool)
	if result != "deploy to production: Yes" || len(pending) != 0 {
		t.Fatalf("round 3 = %q, pending %+v, want the call complete", result, pending)
	}
}

// TestStateHasOneSpelling: a state is base64url and one '.', and nothing
// else. Go's base64 decoder skips "\r" and "\n" even when Strict, so a state
// with a line break would open, and a host that keys a single-use table on
// the state string would see two states.
func TestStateHasOneSpelling(t *testing.T) {
	state, _ := sealedRun(t, "call", deployTool, nil)
	if _, err := ui.OpenReplay(sealKey, "call", state); err != nil {
		t.Fatalf("OpenReplay() error = %v, want the state opened", err)
	}
	payload, mac, _ := strings.Cut(state, ".")
	middle := len(payload) / 2
	for _, tt := range []struct{ name, state string }{
		{"a line feed in the payload", payload[:middle] + "\n" + payload[middle:] + "." + mac},
		{"a CR LF in the payload", payload[:middle] + "\r\n" + payload[middle:] + "." + mac},
		{"a carriage return in the MAC", payload + "." + mac[:3] + "\r" + mac[3:]},
		{"a line feed at the end", state + "\n"},
		{"a CR LF at the end", state + "\r\n"},
		{"a line feed before the dot", payload + "\n." + mac},
		{"padding", payload + "." + mac + "="},
		{"a space", " " + state},
		{"a tab", state + "\t"},
		{"a byte of the standard alphabet", "+" + state[1:]},
		{"a slash in the MAC", payload + "." + mac[:5] + "/" + mac[6:]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rp, err := ui.OpenReplay(sealKey, "call", tt.state)
			wantCode(t, "OpenReplay()", err, ui.CodeInvalidState)
			if rp != nil || !strings.Contains(err.Error(), "malformed") {
				t.Fatalf("OpenReplay() = %v, %v, want nil and a malformed state", rp, err)
			}
		})
	}
}

// TestShortTTLNotExpiredAtOnce: Seal keeps the expiry in whole milliseconds,
// rounded up, so a state with any positive ttl opens when opened at once. The
// expiry cut down to the millisecond was already past.
func TestShortTTLNotExpiredAtOnce(t *testing.T) {
	for _, ttl := range []time.Duration{time.Nanosecond, time.Microsecond, 999 * time.Microsecond} {
		// A few tries ride out a scheduler that stops the test for a
		// millisecond between Seal and OpenReplay; the old rounding failed
		// every one of them.
		var err error
		for try := 0; try < 3; try++ {
			var state string
			state, err = (&ui.Replay{}).Seal(sealKey, "call", ttl)
			if err != nil {
				t.Fatalf("Seal() error = %v, want nil", err)
			}
			if _, err = ui.OpenReplay(sealKey, "call", state); err == nil {
				break
			}
		}
		if err != nil {
			t.Errorf("OpenReplay() at once of a state sealed for %v = %v, want it opened", ttl, err)
		}
	}
	// The expiry is rounded up to the millisecond: it is never before the
	// moment the state was sealed plus its ttl. Cut down, it would be.
	for _, ttl := range []time.Duration{time.Nanosecond, 999 * time.Microsecond, time.Millisecond + time.Nanosecond} {
		before := time.Now()
		state, err := (&ui.Replay{}).Seal(sealKey, "call", ttl)
		if err != nil {
			t.Fatalf("Seal() error = %v, want nil", err)
		}
		payload, _, _ := strings.Cut(state, ".")
		raw, err := base64.RawURLEncoding.DecodeString(payload)
		var sealed struct {
			Exp int64 `json:"exp"`
		}
		if err != nil || json.Unmarshal(raw, &sealed) != nil {
			t.Fatalf("state %q: payload %q is not base64url JSON", state, payload)
		}
		if exp := time.UnixMilli(sealed.Exp); exp.Before(before.Add(ttl)) {
			t.Errorf("Seal(ttl %v) expires at %v, before the %v it was sealed at plus its ttl", ttl, exp, before)
		}
	}
	for _, ttl := range []time.Duration{0, -time.Nanosecond, -time.Hour} {
		state, err := (&ui.Replay{}).Seal(sealKey, "call", ttl)
		if err != nil {
			t.Fatalf("Seal() error = %v, want nil", err)
		}
		_, err = ui.OpenReplay(sealKey, "call", state)
		wantCode(t, fmt.Sprintf("OpenReplay() of a state sealed for %v", ttl), err, ui.CodeInvalidState)
	}
}

// sealByHand returns state that holds record as it is, sealed as Seal seals,
// for a record that Seal would never write. It reads the format's version
// from a state Seal sealed.
func sealByHand(t *testing.T, record string) string {
	t.Helper()
	state, err := (&ui.Replay{}).Seal(sealKey, "call", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	encoded, _, _ := strings.Cut(state, ".")
	raw, err := base64.RawURLEncoding.DecodeString(encoded)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	payload := []byte(`{"v":` + string(fields["v"]) + `,"exp":` + string(fields["exp"]) + `,"bind":` +
		string(fields["bind"]) + `,"record":` + record + `}`)
	derived := sha256.Sum256(append([]byte("userinteraction seal\n"), sealKey...))
	h := hmac.New(sha256.New, derived[:])
	h.Write(payload)
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}
