package userinteraction_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	ui "github.com/dsh-go/userinteraction"
)

// rounds runs deployTool in rounds through Round, answering each form by
// respond, until it is done or 6 rounds passed, and returns its result, the
// forms' messages and the Via of each answer audited.
func rounds(t *testing.T, respond func(id string, f ui.Elicitation) any) (string, []string, []string) {
	t.Helper()
	var via []string
	ctx := ui.WithRegistry(context.Background(), &ui.Registry{Ended: func(_ ui.Request, o ui.Outcome) { via = append(via, o.Answer.Via) }})
	var result, state string
	var shown []string
	var responses any
	for i := 0; i < 6; i++ {
		forms, next, err := ui.Round(ctx, sealKey, "binding", state, responses, "mcp:test", func(ctx context.Context) { result = deployTool(ctx) })
		if err != nil {
			t.Fatalf("Round() error = %v", err)
		}
		if len(forms) == 0 {
			if next != "" {
				t.Errorf("Round() state = %q once done, want none", next)
			}
			return result, shown, via
		}
		byID := map[string]any{}
		for id, f := range forms {
			shown = append(shown, f.Message)
			byID[id] = respond(id, f)
		}
		responses, state = byID, next
	}
	t.Fatal("Round() still asks after 6 rounds")
	return "", nil, nil
}

func accepted(content map[string]any) any {
	return map[string]any{"action": "accept", "content": content}
}

// TestRound: each round sends the questions left, the next records the
// responses, with Via, and the last returns none.
func TestRound(t *testing.T) {
	result, shown, via := rounds(t, func(_ string, f ui.Elicitation) any {
		if strings.HasPrefix(f.Message, "Deploy where") {
			return accepted(map[string]any{"choice": "Production"})
		}
		return accepted(map[string]any{"choice": "Yes"})
	})
	if want := "deploy to production: Yes"; result != want {
		t.Errorf("result = %q, want %q", result, want)
	}
	if len(shown) != 2 || strings.Join(via, ",") != "mcp:test,mcp:test" {
		t.Errorf("forms %q, Via %q, want 2 forms and Via mcp:test twice", shown, via)
	}
}

// TestRoundResponsesAsJSON: responses may be the JSON itself.
func TestRoundResponsesAsJSON(t *testing.T) {
	result, _, _ := rounds(t, func(id string, f ui.Elicitation) any {
		if strings.HasPrefix(f.Message, "Deploy where") {
			return accepted(map[string]any{"choice": "Staging"})
		}
		return json.RawMessage(`{"action":"decline"}`)
	})
	if want := "not deployed: ASK_DECLINED"; result != want {
		t.Errorf("result = %q, want %q", result, want)
	}
}

// TestRoundRefusal: a response that breaks a rule asks again, led by the hint.
func TestRoundRefusal(t *testing.T) {
	n := 0
	result, shown, _ := rounds(t, func(_ string, f ui.Elicitation) any {
		if n++; n == 1 {
			return accepted(map[string]any{"choice": "Moon"})
		}
		if strings.Contains(f.Message, "Deploy where") {
			return accepted(map[string]any{"choice": "Staging"})
		}
		return accepted(map[string]any{"choice": "No"})
	})
	if result != "deploy to staging: No" || len(shown) != 3 || !strings.HasPrefix(shown[1], `"Moon" is not one of the options`) {
		t.Errorf("result %q, forms %q, want the first form again, led by why", result, shown)
	}
}

// TestRoundUnreadable: a response that is no {action, content} is
// INVALID_ANSWER; responses that are no object, or cannot be marshalled, are
// none, and a response to a question not pending is never recorded.
func TestRoundUnreadable(t *testing.T) {
	result, _, _ := rounds(t, func(string, ui.Elicitation) any {
		return json.RawMessage(`{"action":"accept","content":[1]}`)
	})
	if want := "not deployed: INVALID_ANSWER"; result != want {
		t.Errorf("result = %q, want %q", result, want)
	}
	first, state, _ := ui.Round(context.Background(), sealKey, "b", "", nil, "", func(ctx context.Context) { deployTool(ctx) })
	second := firstID(ui.Request{Question: "Deploy to production now?", Options: yesNo})
	for _, responses := range []any{json.RawMessage(`[1]`), make(chan int), map[string]any{second: accepted(map[string]any{"choice": "Yes"})}} {
		forms, _, err := ui.Round(context.Background(), sealKey, "b", state, responses, "", func(ctx context.Context) { deployTool(ctx) })
		if err != nil || len(forms) != 1 || forms[firstKey(first)].Message != "Deploy where?" {
			t.Errorf("Round(%T) = %v, %v, want the first question again", responses, forms, err)
		}
	}
}

func firstKey(forms map[string]ui.Elicitation) string {
	for id := range forms {
		return id
	}
	return ""
}

// TestRoundState: state that does not open is OpenReplay's error, and the
// call does not run.
func TestRoundState(t *testing.T) {
	ran := false
	_, _, err := ui.Round(context.Background(), sealKey, "b", "x.y", nil, "", func(context.Context) { ran = true })
	wantCode(t, "Round(bad state)", err, ui.CodeInvalidState)
	_, _, err = ui.Round(context.Background(), []byte("short"), "b", "", nil, "", func(context.Context) { ran = true })
	if err == nil || ui.CodeOf(err) != "" || ran {
		t.Errorf("Round(short key) = %v (ran %v), want an uncoded error, and no run", err, ran)
	}
}
