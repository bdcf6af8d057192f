package userinteraction_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// TestSealKeepsPendingRequests: the pending questions survive Seal and
// OpenReplay field by field, and the state holds them as Pending's JSON, so
// that state sealed before or after the sealed payload's plain wire structs
// opens in either.
func TestSealKeepsPendingRequests(t *testing.T) {
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
	rp := &ui.Replay{}
	rp.Run(context.Background(), func(ctx context.Context) { _, _ = ui.Ask(ctx, reqs[0]) })
	asked := rp.Pending()
	rp.Record(asked[0].ID, ui.Answer{Text: "my own words"}, nil)
	pending := rp.Run(context.Background(), func(ctx context.Context) {
		if _, err := ui.Ask(ctx, reqs[0]); err != nil {
			return
		}
		_, _ = ui.AskAll(ctx, reqs[1:])
	})
	if len(pending) != 2 || pending[0].Batch == "" || pending[1].Batch != pending[0].Batch {
		t.Fatalf("Run() = %+v, want the two questions of one AskAll", pending)
	}
	state, err := rp.Seal(sealKey, "binding", time.Hour)
	if err != nil {
		t.Fatalf("Seal() error = %v, want nil", err)
	}
	opened, err := ui.OpenReplay(sealKey, "binding", state)
	if err != nil {
		t.Fatalf("OpenReplay() error = %v, want nil", err)
	}
	if got := opened.Pending(); !reflect.DeepEqual(got, pending) {
		t.Fatalf("OpenReplay().Pending() = %+v, want %+v", got, pending)
	}
	if got, want := opened.Pending()[0].Request, reqs[1]; !reflect.DeepEqual(got, want) {
		t.Fatalf("opened request = %+v, want %+v", got, want)
	}

	payload, _, _ := strings.Cut(state, ".")
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		t.Fatalf("state payload: %v", err)
	}
	var sealed struct {
		Pending json.RawMessage `json:"pending"`
	}
	if err := json.Unmarshal(raw, &sealed); err != nil {
		t.Fatalf("state payload %s: %v", raw, err)
	}
	want, err := json.Marshal(pending)
	if err != nil {
		t.Fatalf("json.Marshal(Pending()) error = %v", err)
	}
	if string(sealed.Pending) != string(want) {
		t.Fatalf("sealed pending = %s, want Pending's JSON %s", sealed.Pending, want)
	}
}
