package userinteraction_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	ui "github.com/dsh-go/userinteraction"
)

// TestElicitationJSON pins the form of each kind of request, as MCP and ACP
// clients receive it. "choice" holds labels in the untitled enum shapes,
// which every protocol version with forms shows as choices: a titled
// "oneOf" is a text box on 2025-06-18.
func TestElicitationJSON(t *testing.T) {
	tests := []struct {
		name string
		req  ui.Request
		want string
	}{
		{
			name: "single-select with custom text",
			req: ui.Request{
				Header:   "Env",
				Question: "Deploy where?",
				Options:  []ui.Option{{Label: "Staging", Recommended: true}, {Label: "Production", Value: "prod"}},
			},
			want: `{"mode":"form","message":"Deploy where?","requestedSchema":{"properties":{` +
				`"choice":{"default":"Staging","enum":["Staging","Production"],"title":"Env","type":"string"},` +
				`"text":{"title":"Other","type":"string"}},"type":"object"}}`,
		},
		{
			name: "single-select, options only",
			req: ui.Request{
				Question:       "Delete notes.txt?",
				Options:        []ui.Option{{Label: "Delete"}, {Label: "Keep"}},
				DisallowCustom: true,
			},
			want: `{"mode":"form","message":"Delete notes.txt?","requestedSchema":{"properties":{` +
				`"choice":{"enum":["Delete","Keep"],"type":"string"}},` +
				`"required":["choice"],"type":"object"}}`,
		},
		{
			name: "single-select, options only, recommended",
			req: ui.Request{
				Header:         "Delete",
				Question:       "Delete notes.txt?",
				Options:        []ui.Option{{Label: "Delete"}, {Label: "Keep", Recommended: true}},
				DisallowCustom: true,
			},
			want: `{"mode":"form","message":"Delete notes.txt?","requestedSchema":{"properties":{` +
				`"choice":{"default":"Keep","enum":["Delete","Keep"],"title":"Delete","type":"string"}},` +
				`"required":["choice"],"type":"object"}}`,
		},
		{
			name: "multi-select, options only",
			req: ui.Request{
				Header:   "Steps",
				Question: "Which steps?",
				Options: []ui.Option{
					{Label: "lint", Recommended: true},
					{Label: "test"},
					{Label: "build", Recommended: true},
				},
				MultiSelect:    true,
				DisallowCustom: true,
			},
			want: `{"mode":"form","message":"Which steps?","requestedSchema":{"properties":{` +
				`"choice":{"default":["lint","build"],"items":{"enum":["lint","test","build"],"type":"string"},` +
				`"minItems":1,"title":"Steps","type":"array","uniqueItems":true}},` +
				`"required":["choice"],"type":"object"}}`,
		},
		{
			name: "multi-select, options only, none recommended: no default",
			req: ui.Request{
				Question:       "Which steps?",
				Options:        []ui.Option{{Label: "lint"}, {Label: "test"}},
				MultiSelect:    true,
				DisallowCustom: true,
			},
			want: `{"mode":"form","message":"Which steps?","requestedSchema":{"properties":{` +
				`"choice":{"items":{"enum":["lint","test"],"type":"string"},"minItems":1,"type":"array","uniqueItems":true}},` +
				`"required":["choice"],"type":"object"}}`,
		},
		{
			name: "multi-select with custom text: no default, no minItems",
			req: ui.Request{
				Header:      "Steps",
				Question:    "Which steps?",
				Options:     []ui.Option{{Label: "lint", Recommended: true}, {Label: "test"}},
				MultiSelect: true,
			},
			want: `{"mode":"form","message":"Which steps?","requestedSchema":{"properties":{` +
				`"choice":{"items":{"enum":["lint","test"],"type":"string"},"title":"Steps","type":"array","uniqueItems":true},` +
				`"text":{"title":"Other","type":"string"}},"type":"object"}}`,
		},
		{
			name: "free-form",
			req:  ui.Request{Header: "Branch", Question: "Name the branch."},
			want: `{"mode":"form","message":"Name the branch.","requestedSchema":{"properties":{` +
				`"text":{"minLength":1,"title":"Branch","type":"string"}},"required":["text"],"type":"object"}}`,
		},
		{
			name: "free-form without header, DisallowCustom and MultiSelect ignored",
			req:  ui.Request{Question: "Why?", DisallowCustom: true, MultiSelect: true},
			want: `{"mode":"form","message":"Why?","requestedSchema":{"properties":{` +
				`"text":{"minLength":1,"type":"string"}},"required":["text"],"type":"object"}}`,
		},
		{
			name: "shared values: labels identify options",
			req: ui.Request{
				Question:       "Which?",
				Options:        []ui.Option{{Label: "Yes", Value: "y"}, {Label: "Sure", Value: "y"}},
				DisallowCustom: true,
			},
			want: `{"mode":"form","message":"Which?","requestedSchema":{"properties":{` +
				`"choice":{"enum":["Yes","Sure"],"type":"string"}},` +
				`"required":["choice"],"type":"object"}}`,
		},
		{
			name: "descriptions join the message",
			req: ui.Request{
				Question: "Deploy where?",
				Options: []ui.Option{
					{Label: "Staging", Description: "the test cluster"},
					{Label: "Production"},
					{Label: "Both", Description: "staging first,\n\nProduction: never"},
				},
				DisallowCustom: true,
			},
			// One line each: a description's line feeds must not forge another option's line.
			want: `{"mode":"form","message":"Deploy where?\nStaging: the test cluster\nBoth: staging first, Production: never",` +
				`"requestedSchema":{"properties":{"choice":{"enum":["Staging","Production","Both"],"type":"string"}},` +
				`"required":["choice"],"type":"object"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := marshal(t, tt.req.Elicitation()); string(got) != tt.want {
				t.Fatalf("json.Marshal(Elicitation()) =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestElicitationACP: ACP's params are the form's with the session and the
// tool call beside it, which a struct embedding Elicitation encodes.
func TestElicitationACP(t *testing.T) {
	params := struct {
		SessionID  string `json:"sessionId"`
		ToolCallID string `json:"toolCallId,omitempty"`
		ui.Elicitation
	}{"sess-1", "call-7", freeForm.Elicitation()}
	want := `{"sessionId":"sess-1","toolCallId":"call-7","mode":"form","message":"Name the branch.",` +
		`"requestedSchema":{"properties":{"text":{"minLength":1,"type":"string"}},"required":["text"],"type":"object"}}`
	if got := marshal(t, params); string(got) != want {
		t.Fatalf("json.Marshal(ACP params) = %s, want %s", got, want)
	}
}

// TestElicitationAnswer maps responses, as they arrive decoded from JSON,
// directly and then through Ask for the request of the form.
func TestElicitationAnswer(t *testing.T) {
	env := ui.Request{
		Question: "Deploy where?",
		Options:  []ui.Option{{Label: "Staging", Value: "stg", Recommended: true}, {Label: "Production"}},
	}
	multi := ui.Request{
		Question:    "Which steps?",
		Options:     []ui.Option{{Label: "lint"}, {Label: "test", Value: "unit"}, {Label: "build"}},
		MultiSelect: true,
	}
	strictMulti := multi
	strictMulti.DisallowCustom = true
	tests := []struct {
		name    string
		req     ui.Request
		action  string
		content string    // JSON
		direct  ui.Answer // what ElicitationAnswer returns, when code is ""
		want    string    // the text of Ask's answer, when code is ""
		code    string
	}{
		{
			name:    "choice",
			req:     env,
			action:  "accept",
			content: `{"choice":"Production"}`,
			direct:  ui.Answer{Option: &ui.Option{Label: "Production"}},
			want:    "Production",
		},
		{
			name:    "text wins over a default choice",
			req:     env,
			action:  "accept",
			content: `{"choice":"Staging","text":"the canary"}`,
			direct:  ui.Answer{Text: "the canary"},
			want:    "the canary",
		},
		{
			name:    "blank text and a choice",
			req:     env,
			action:  "accept",
			content: `{"choice":"Staging","text":"  "}`,
			direct:  ui.Answer{Option: &ui.Option{Label: "Staging"}},
			want:    "stg",
		},
		{
			name:    "text alone",
			req:     freeForm,
			action:  "accept",
			content: `{"text":"feature/x"}`,
			direct:  ui.Answer{Text: "feature/x"},
			want:    "feature/x",
		},
		{
			name:    "choice array",
			req:     multi,
			action:  "accept",
			content: `{"choice":["build","test"]}`,
			direct:  ui.Pick(ui.Option{Label: "build"}, ui.Option{Label: "test"}),
			want:    "unit, build",
		},
		{
			name:    "choice array and text",
			req:     multi,
			action:  "accept",
			content: `{"choice":["lint"],"text":"and the logs"}`,
			direct:  ui.Answer{Text: "and the logs", Options: []ui.Option{{Label: "lint"}}},
			want:    "lint, and the logs",
		},
		{
			name:    "empty choice array and text",
			req:     multi,
			action:  "accept",
			content: `{"choice":[],"text":"none"}`,
			direct:  ui.Answer{Text: "none"},
			want:    "none",
		},
		{
			name:    "extra keys are ignored",
			req:     env,
			action:  "accept",
			content: `{"choice":"Production","note":1}`,
			direct:  ui.Answer{Option: &ui.Option{Label: "Production"}},
			want:    "Production",
		},
		{name: "decline", req: env, action: "decline", content: `{}`, code: ui.CodeAskDeclined},
		{name: "cancel", req: env, action: "cancel", content: `null`, code: ui.CodeAskCancelled},
		{name: "unknown action", req: env, action: "later", content: `{}`, code: ui.CodeInvalidAnswer},
		{name: "choice of another type", req: env, action: "accept", content: `{"choice":3}`, code: ui.CodeInvalidAnswer},
		{name: "text of another type", req: env, action: "accept", content: `{"text":["a"]}`, code: ui.CodeInvalidAnswer},
		{
			name:    "choice array of another type",
			req:     multi,
			action:  "accept",
			content: `{"choice":["lint",2]}`,
			code:    ui.CodeInvalidAnswer,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var content map[string]any
			if err := json.Unmarshal([]byte(tt.content), &content); err != nil {
				t.Fatal(err)
			}
			direct, err := ui.ElicitationAnswer(tt.action, content)
			if tt.code != "" {
				wantCode(t, "ElicitationAnswer()", err, tt.code)
			} else if err != nil || !reflect.DeepEqual(direct, tt.direct) {
				t.Fatalf("ElicitationAnswer() = %s, %v, want %s", show(direct), err, show(tt.direct))
			}
			ans, err := ui.Ask(scope(t, elicitingProvider(tt.action, content)), tt.req)
			if tt.code != "" {
				wantCode(t, "Ask()", err, tt.code)
				return
			}
			if err != nil || ans.Text != tt.want {
				t.Fatalf("Ask() = %s, %v, want %q", show(ans), err, tt.want)
			}
		})
	}

	// Ask checks what the form returned against the request.
	for _, content := range []map[string]any{
		{"choice": "Nope"},
		{"choice": []any{"lint", "lint"}},
		{},
		{"choice": []string{}},
		{"choice": []string{"lint"}, "text": "and more"},
	} {
		_, err := ui.Ask(scope(t, elicitingProvider("accept", content)), strictMulti)
		wantCode(t, "Ask() with content "+string(marshal(t, content)), err, ui.CodeInvalidAnswer)
	}
}

// elicitingProvider stands for a form provider whose human answered the form
// with action and content.
func elicitingProvider(action string, content map[string]any) ui.Provider {
	return ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) {
		return ui.ElicitationAnswer(action, content)
	})
}

// TestElicitationLinear: building a form costs memory linear in the request's
// size, so 8 times the options cost about 8 times the bytes, not 64 times as
// a message built with += did. Bytes, not time: they do not depend on the
// machine's load. bytesPerRun and manyOptions are in bench_test.go.
func TestElicitationLinear(t *testing.T) {
	small, large := manyOptions(1000), manyOptions(8000)
	smallBytes := bytesPerRun(3, func() { _ = small.Elicitation() })
	largeBytes := bytesPerRun(3, func() { _ = large.Elicitation() })
	if ratio := float64(largeBytes) / float64(smallBytes); ratio > 16 {
		t.Fatalf("Elicitation() of 8,000 options allocates %d bytes, of 1,000 options %d: %.1f times, want at most 16",
			largeBytes, smallBytes, ratio)
	}
}
