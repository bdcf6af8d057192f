package userinteraction_test

import (
	"context"
	"strings"
	"testing"

	ui "github.com/dsh-go/userinteraction"
)

// waitFor runs reqs as one AskAll through Wait, with elicit answering each
// form by its option a, and returns the forms sent, the answers, each
// audited Via and the error.
func waitFor(elicit bool, multiSelect bool, reqs ...ui.Request) (forms []string, answers []ui.Answer, via []string, err error) {
	ctx := ui.WithRegistry(context.Background(), &ui.Registry{Ended: func(_ ui.Request, o ui.Outcome) { via = append(via, o.Answer.Via) }})
	var f ui.ElicitFunc
	if elicit {
		f = func(_ context.Context, e ui.Elicitation) (string, map[string]any, error) {
			forms = append(forms, e.Message)
			if strings.HasPrefix(e.Message, "Decline") {
				return "decline", nil, nil
			}
			if strings.HasPrefix(e.Message, "Many") {
				return "accept", map[string]any{"choice": []any{"a"}}, nil
			}
			return "accept", map[string]any{"choice": "a"}, nil
		}
	}
	ui.Wait(ctx, f, multiSelect, "mcp:test", func(ctx context.Context) { answers, err = ui.AskAll(ctx, reqs) })
	return forms, answers, via, err
}

var (
	pickOne  = ui.Request{Question: "One?", Options: []ui.Option{{Label: "a", Recommended: true}, {Label: "b"}}}
	pickMany = ui.Request{Question: "Many?", MultiSelect: true, DisallowCustom: true, Options: []ui.Option{{Label: "a", Recommended: true}, {Label: "b"}}}
)

// TestWait: each question is a form, in turn, each answer's Via the client's.
func TestWait(t *testing.T) {
	forms, answers, via, err := waitFor(true, true, pickOne, pickMany)
	if err != nil || len(forms) != 2 || len(answers) != 2 || answers[1].Text != "a" || strings.Join(via, ",") != "mcp:test,mcp:test" {
		t.Errorf("Wait() = forms %q, answers %+v, %v, Via %q; want 2 forms answered a, Via mcp:test", forms, answers, err, via)
	}
	forms, _, _, err = waitFor(true, true, pickOne, ui.Request{Question: "Decline?"}, pickOne)
	if len(forms) != 2 || ui.CodeOf(err) != ui.CodeAskDeclined {
		t.Errorf("Wait() = forms %q, %v; want 2 forms and ASK_DECLINED", forms, err)
	}
}

// TestWaitUnsupported: a batch the client cannot show is ASK_UNSUPPORTED
// before any form of it is sent.
func TestWaitUnsupported(t *testing.T) {
	for _, tc := range []struct {
		name        string
		elicit      bool
		multiSelect bool
		reqs        []ui.Request
	}{
		{"no forms", false, true, []ui.Request{pickOne}},
		{"several picks second in the batch", true, false, []ui.Request{pickOne, pickMany}},
	} {
		forms, _, _, err := waitFor(tc.elicit, tc.multiSelect, tc.reqs...)
		if len(forms) != 0 || ui.CodeOf(err) != ui.CodeAskUnsupported {
			t.Errorf("%s: forms %q, %v; want none and ASK_UNSUPPORTED", tc.name, forms, err)
		}
	}
	forms, answers, _, err := waitFor(true, false, pickOne)
	if err != nil || len(forms) != 1 || answers[0].Text != "a" {
		t.Errorf("one pick without multiSelect: forms %q, %+v, %v; want it asked", forms, answers, err)
	}
}
