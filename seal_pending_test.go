package userinteraction_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// sealedPayload returns the fields of state's payload, raw.
func sealedPayload(t *testing.T, state string) map[string]json.RawMessage {
	t.Helper()
	payload, _, _ := strings.Cut(state, ".")
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		t.Fatalf("state payload: %v", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatalf("state payload %s: %v", raw, err)
	}
	return fields
}

// TestSealHoldsPendingIDs: Seal keeps the IDs of the pending questions, not
// their requests. The opened Replay's Pending has each ID, and the hint of a
// refused response from the record; its Request, Batch, Index and Count are
// zero until the next run asks the questions again, which gives them back.
func TestSealHoldsPendingIDs(t *testing.T) {
	reqs := []ui.Request{
		{Question: "Free text?"},
		{
			Question: "Which?\n\tPick.",
			Header:   "Ünïcødé ✓",
			Options: []ui.Option{
				{Label: "Yes", Value: "y\u0001", Description: "go <now>", Recommended: true},
				{Label: "No", Value: "n"},
			},
			DisallowCustom: true,
			MultiSelect:    true,
			Agent:          &ui.Agent{ID: "a1", Name: "coder"},
		},
		{Question: "Agent without a name?", Agent: &ui.Agent{ID: "a2"}},
	}
	tool := func(ctx context.Context) string {
		if _, err := ui.Ask(ctx, reqs[0]); err != nil {
			return ""
		}
		_, _ = ui.AskAll(ctx, reqs[1:])
		return ""
	}
	rp := &ui.Replay{}
	_, asked := run(rp, tool)
	rp.Record(asked[0].ID, ui.Answer{Text: "my own words"}, nil)
	_, asked = run(rp, tool)
	rp.Record(asked[0].ID, ui.Answer{}, nil) // no pick: refused in the next run
	_, pending := run(rp, tool)
	if len(pending) != 2 || pending[0].Batch == "" || pending[0].Hint == "" || pending[1].Index != 1 || pending[1].Count != 2 {
		t.Fatalf("Run() = %+v, want the two questions of one AskAll, the first with a hint", pending)
	}
	state, err := rp.Seal(sealKey, "binding", time.Hour)
	if err != nil {
		t.Fatalf("Seal() error = %v, want nil", err)
	}
	if got, want := string(sealedPayload(t, state)["pending"]), `["`+pending[0].ID+`","`+pending[1].ID+`"]`; got != want {
		t.Fatalf("sealed pending = %s, want the IDs alone, %s", got, want)
	}

	opened, err := ui.OpenReplay(sealKey, "binding", state)
	if err != nil {
		t.Fatalf("OpenReplay() error = %v, want nil", err)
	}
	want := []ui.Pending{{ID: pending[0].ID, Hint: pending[0].Hint}, {ID: pending[1].ID}}
	if got := opened.Pending(); !reflect.DeepEqual(got, want) {
		t.Fatalf("OpenReplay().Pending() = %+v, want %+v", got, want)
	}
	if _, again := run(opened, tool); !reflect.DeepEqual(again, pending) {
		t.Fatalf("Pending() of the opened Replay's run = %+v, want %+v", again, pending)
	}
}

// TestSealKeepsHint: the hint of a refused response survives Seal and
// OpenReplay, and leads the form of the question asked in the next round.
func TestSealKeepsHint(t *testing.T) {
	rp := &ui.Replay{}
	_, asked := run(rp, asking(pickSteps))
	rp.Record(asked[0].ID, ui.Answer{}, nil)
	_, pending := run(rp, asking(pickSteps))
	state, err := rp.Seal(sealKey, "call", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	opened, err := ui.OpenReplay(sealKey, "call", state)
	if err != nil {
		t.Fatal(err)
	}
	hint := pending[0].Hint
	if got := opened.Pending(); len(got) != 1 || hint == "" || got[0].Hint != hint {
		t.Fatalf("OpenReplay().Pending() = %+v, want the question with hint %q", got, hint)
	}
	_, again := run(opened, asking(pickSteps))
	if len(again) != 1 || !strings.HasPrefix(again[0].Elicitation().Message, hint+"\n") {
		t.Fatalf("next run's Pending() = %+v, want the form led by %q", again, hint)
	}
}

// TestSealedStateIsSmall: the state of a ten-question AskAll's first round
// is under 1 KB, since it holds their IDs and not their requests.
func TestSealedStateIsSmall(t *testing.T) {
	reqs := make([]ui.Request, 10)
	for i := range reqs {
		reqs[i] = ui.Request{Header: "Target", Question: fmt.Sprintf("Deploy service %d where?", i),
			Options: []ui.Option{{Label: "Staging", Value: "staging", Recommended: true},
				{Label: "Production", Value: "production", Description: "the live site"}}}
	}
	rp := &ui.Replay{}
	if _, pending := run(rp, func(ctx context.Context) string { _, _ = ui.AskAll(ctx, reqs); return "" }); len(pending) != 10 {
		t.Fatalf("Run() = %d pending, want 10", len(pending))
	}
	state, err := rp.Seal(sealKey, `["alice","deploy",{}]`, 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(state) >= 1024 {
		t.Fatalf("len(Seal()) = %d bytes for ten pending questions, want under 1 KB", len(state))
	}
}
