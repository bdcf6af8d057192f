package userinteraction_test

import (
	"strings"
	"testing"

	ui "github.com/dsh-go/userinteraction"
)

// TestValidateIssue28 holds one row per finding of issue 28 about what a
// shown text may hold (items 1, 2 and 9): each request was valid before the
// allowlist, and is refused now.
func TestValidateIssue28(t *testing.T) {
	pair := func(suffix string) ui.Request {
		return ui.Request{Question: "Delete?", Options: []ui.Option{
			{Label: "Yes, delete everything", Value: "delete"},
			{Label: "Yes, delete everything" + suffix, Value: "keep"},
		}}
	}
	tests := []struct {
		name string
		req  ui.Request
		want string
	}{
		// 1: two labels that draw the same, and a label that draws nothing.
		{"Braille blank after a label", pair("\u2800"), "options[1].label holds U+2800"},
		{"null notehead after a label", pair("\U0001D159"), "options[1].label holds U+1D159"},
		{"interlinear annotation anchor", pair("\uFFF9"), "options[1].label holds U+FFF9"},
		{"interlinear annotation terminator", pair("\uFFFB"), "options[1].label holds U+FFFB"},
		{"Arabic number sign", pair("\u0600"), "options[1].label holds U+0600"},
		{"Arabic number mark above", pair("\u0605"), "options[1].label holds U+0605"},
		{"Arabic end of ayah", pair("\u06DD"), "options[1].label holds U+06DD"},
		{"Kaithi number sign", pair("\U000110BD"), "options[1].label holds U+110BD"},
		{"Egyptian hieroglyph vertical joiner", pair("\U00013430"), "options[1].label holds U+13430"},
		{
			"label of only Braille blanks",
			ui.Request{Question: "Delete?", Options: []ui.Option{{Label: "\u2800\u2800"}, {Label: "No"}}},
			"options[0].label holds U+2800",
		},
		// 2: line and paragraph separators, written raw by the Terminal.
		{
			"paragraph separator forging a row",
			ui.Request{Question: "Deploy?", Options: []ui.Option{{Label: "Deploy now\u2029  2. Cancel"}, {Label: "Wait"}}},
			"options[0].label holds U+2029",
		},
		{"line separator in the header", ui.Request{Question: "Deploy?", Header: "Deploy\u2028now"}, "header holds U+2028"},
		// 9: the agent reaches every UI.
		{"ESC in the agent's name", ui.Request{Question: "q", Agent: &ui.Agent{Name: "coder\x1b[2J"}}, "agent.name holds U+001B"},
		{"CR in the agent's ID", ui.Request{Question: "q", Agent: &ui.Agent{ID: "a1\rroot"}}, "agent.id holds U+000D"},
		{"bidi override in the agent's name", ui.Request{Question: "q", Agent: &ui.Agent{Name: "\u202eredoc"}}, "agent.name holds U+202E"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.Validate()
			wantCode(t, "Validate()", err, ui.CodeInvalidRequest)
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate() = %q, want a message containing %q", err, tt.want)
			}
		})
	}
}
