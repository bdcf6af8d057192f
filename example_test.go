package userinteraction_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dsh-go/userinteraction"
)

// This example shows the three roles end to end: the host creates a session
// scope, a UI registers as its provider, a tool asks, and once the UI is
// disposed the next question finds no provider.
func Example() {
	// Host: one registry per session, carried by the session's context.
	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})

	// UI surface: becomes the session's provider until it is disposed.
	dispose, err := userinteraction.Register(session, userinteraction.ProviderFunc(
		func(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
			fmt.Println("UI shows:", req.Question)
			if len(req.Options) == 0 {
				return userinteraction.Answer{Text: "ok"}, nil // the human types "ok"
			}
			return req.Options[0].Answer(), nil // the human picks the first option
		}))
	if err != nil {
		fmt.Println(err)
		return
	}

	// Tool: blocks until the human answers.
	ans, err := userinteraction.Ask(session, userinteraction.Request{
		Question: "Run database migration 42?",
		Options: []userinteraction.Option{
			{Label: "Run it", Value: "run"},
			{Label: "Skip", Recommended: true},
		},
		DisallowCustom: true,
	})
	if err != nil {
		fmt.Println("tool failed:", userinteraction.CodeOf(err))
		return
	}
	fmt.Printf("tool got %q (option %q)\n", ans.Text, ans.Option.Label) // Option is set: custom answers are disallowed

	// The UI goes away: questions now fail with a code the tool can report.
	dispose()
	_, err = userinteraction.Ask(session, userinteraction.Request{Question: "Still there?"})
	fmt.Println(userinteraction.CodeOf(err))
	// Output:
	// UI shows: Run database migration 42?
	// tool got "run" (option "Run it")
	// NO_PROVIDER
}

// deleteFile is a tool of a plugin: it asks before deleting, and turns every
// failure into the model-facing {name, code, message} object.
func deleteFile(ctx context.Context, path string) string {
	ans, err := userinteraction.Ask(ctx, userinteraction.Request{
		Header:   "Delete file",
		Question: "Delete " + path + "?",
		Options: []userinteraction.Option{
			{Label: "Delete", Value: "delete"},
			{Label: "Keep", Value: "keep", Recommended: true},
		},
		DisallowCustom: true,
		Agent:          &userinteraction.Agent{Name: "cleanup"},
	})
	var he *userinteraction.HarnessError
	if errors.As(err, &he) {
		b, _ := json.Marshal(he)
		return string(b)
	}
	if err != nil {
		return "unexpected error: " + err.Error()
	}
	if ans.Text == "delete" {
		return "deleted " + path
	}
	return "kept " + path
}

// This example shows a tool plugin: it asks a question with options and hands
// any failure to the model as JSON, here NO_PROVIDER while no UI is attached,
// ASK_DECLINED when the human refuses to answer, and a coded error of another
// plugin family that a UI bridge returns, which Ask passes through as it is:
// errors.As with a *HarnessError works for every error out of Ask.
func ExampleAsk() {
	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	fmt.Println(deleteFile(session, "notes.txt"))

	dispose, _ := userinteraction.Register(session, userinteraction.ProviderFunc(
		func(context.Context, userinteraction.Request) (userinteraction.Answer, error) {
			declined := userinteraction.NewError(userinteraction.CodeAskDeclined, "the user declined to answer", nil)
			return userinteraction.Answer{}, declined
		}))
	fmt.Println(deleteFile(session, "notes.txt"))
	dispose()

	dispose, _ = userinteraction.Register(session, userinteraction.ProviderFunc(
		func(context.Context, userinteraction.Request) (userinteraction.Answer, error) {
			closed := &userinteraction.HarnessError{
				Name:    "ACPError",
				Code:    "SESSION_CLOSED",
				Message: "the editor closed the session",
			}
			return userinteraction.Answer{}, fmt.Errorf("acp bridge: %w", closed)
		}))
	fmt.Println(deleteFile(session, "notes.txt"))
	dispose()

	dispose, _ = userinteraction.Register(session, userinteraction.ProviderFunc(
		func(context.Context, userinteraction.Request) (userinteraction.Answer, error) {
			return userinteraction.Answer{Text: "delete"}, nil
		}))
	defer dispose()
	fmt.Println(deleteFile(session, "notes.txt"))
	// Output:
	// {"name":"UserInteractionError","code":"NO_PROVIDER","message":"no provider: no UI is registered to answer the question"}
	// {"name":"UserInteractionError","code":"ASK_DECLINED","message":"the user declined to answer"}
	// {"name":"ACPError","code":"SESSION_CLOSED","message":"the editor closed the session"}
	// deleted notes.txt
}

// scripted returns a provider that gives the answers in order, as a plugin's
// tests use it, and ASK_CANCELLED once they run out. It answers one question
// at a time: a test that asks concurrently needs a mutex around answers.
func scripted(answers ...string) userinteraction.ProviderFunc {
	return func(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
		if len(answers) == 0 {
			ended := userinteraction.NewError(userinteraction.CodeAskCancelled, "the script has no more answers", nil)
			return userinteraction.Answer{}, ended
		}
		text := answers[0]
		answers = answers[1:]
		return userinteraction.Answer{Text: text}, nil
	}
}

// This example shows ProviderFunc as the scripted UI of a plugin's tests:
// answers that match an option come back with that option filled in.
func ExampleProviderFunc() {
	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	dispose, _ := userinteraction.Register(session, scripted("keep", "never mind"))
	defer dispose()

	req := userinteraction.Request{
		Question: "Delete notes.txt?",
		Options:  []userinteraction.Option{{Label: "Delete", Value: "delete"}, {Label: "Keep", Value: "keep"}},
	}
	for i := 0; i < 3; i++ {
		ans, err := userinteraction.Ask(session, req)
		switch {
		case err != nil:
			fmt.Println("error:", userinteraction.CodeOf(err))
		case ans.Option != nil:
			fmt.Printf("answer %q, option %q\n", ans.Text, ans.Option.Label)
		default:
			fmt.Printf("custom answer %q\n", ans.Text)
		}
	}
	// Output:
	// answer "keep", option "Keep"
	// custom answer "never mind"
	// error: ASK_CANCELLED
}

// cleanUp is a tool that asks which files to delete and deletes only those.
func cleanUp(ctx context.Context) string {
	ans, err := userinteraction.Ask(ctx, userinteraction.Request{
		Header:   "Clean up",
		Question: "Which files should I delete?",
		Options: []userinteraction.Option{
			{Label: "build/", Description: "generated by make", Recommended: true},
			{Label: "notes.txt"},
			{Label: "debug.log", Recommended: true},
		},
		MultiSelect:    true,
		DisallowCustom: true,
	})
	if err != nil {
		return "deleted nothing: " + userinteraction.CodeOf(err)
	}
	var deleted []string
	for _, o := range ans.Options { // the picks, in offered order
		deleted = append(deleted, o.Label) // a real tool calls os.RemoveAll(o.Label)
	}
	return "deleted " + strings.Join(deleted, " and ")
}

// This example shows a question with several picks: a tool asks which files
// to delete and reads the human's picks, in offered order, from the answer's
// Options; the model reads their values joined in Text.
func ExampleRequest_multiSelect() {
	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	dispose, _ := userinteraction.Register(session, userinteraction.ProviderFunc(
		func(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
			return userinteraction.Pick(req.Options[2], req.Options[0]), nil // the human ticks two boxes
		}))
	defer dispose()

	fmt.Println(cleanUp(session))
	// Output:
	// deleted build/ and debug.log
}

// migrate is a tool that needs two answers before it acts: where to run,
// and which migrations.
func migrate(ctx context.Context) string {
	answers, err := userinteraction.AskAll(ctx, []userinteraction.Request{{
		Header:   "Target",
		Question: "Which environment?",
		Options: []userinteraction.Option{
			{Label: "Staging", Value: "staging", Recommended: true},
			{Label: "Production", Value: "production"},
		},
		DisallowCustom: true,
	}, {
		Header:         "Migrations",
		Question:       "Which migrations?",
		Options:        []userinteraction.Option{{Label: "41_add_index"}, {Label: "42_drop_column"}},
		MultiSelect:    true,
		DisallowCustom: true,
	}})
	if err != nil {
		return "migrated nothing: " + userinteraction.CodeOf(err)
	}
	return "run " + answers[1].Text + " on " + answers[0].Text
}

// This example shows a tool that asks two questions at once: a UI with a
// dialog for several questions (a BatchProvider) shows them together, any
// other provider is asked them one after another.
func ExampleAskAll() {
	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	dispose, _ := userinteraction.Register(session, userinteraction.ProviderFunc(
		func(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
			fmt.Println("asked:", req.Question)
			if req.MultiSelect {
				return userinteraction.Pick(req.Options...), nil // the human ticks every box
			}
			return req.Options[0].Answer(), nil
		}))
	defer dispose()

	fmt.Println(migrate(session))
	// Output:
	// asked: Which environment?
	// asked: Which migrations?
	// run 41_add_index, 42_drop_column on staging
}

// This example shows a hot reload: the UI is disposed while a question is
// pending, that question fails with ASK_ABORTED, and the next question reaches
// the reloaded UI.
func ExampleRegister_hotReload() {
	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})

	shown := make(chan struct{})
	oldUI := userinteraction.ProviderFunc(
		func(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
			close(shown) // the question is on screen; the human has not answered
			<-ctx.Done() // until the UI is disposed
			return userinteraction.Answer{}, ctx.Err()
		})
	dispose, _ := userinteraction.Register(session, oldUI)

	pending := make(chan error)
	go func() {
		_, err := userinteraction.Ask(session, userinteraction.Request{Question: "Apply the patch?"})
		pending <- err
	}()
	<-shown
	dispose() // hot reload: the old UI goes away
	err := <-pending
	fmt.Println("pending question:", userinteraction.CodeOf(err))

	dispose, _ = userinteraction.Register(session, userinteraction.ProviderFunc(
		func(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
			return userinteraction.Answer{Text: "yes, from the new UI"}, nil
		}))
	defer dispose()
	ans, err := userinteraction.Ask(session, userinteraction.Request{Question: "Apply the patch?"})
	fmt.Println("asked again:", ans.Text, err)
	// Output:
	// pending question: ASK_ABORTED
	// asked again: yes, from the new UI <nil>
}

// This example shows a host that tells whether a UI is attached to a
// session, as a status line does: FromContext finds the session's registry,
// and Provider its active provider.
func ExampleFromContext() {
	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	attached := func() bool { return userinteraction.FromContext(session).Provider() != nil }

	fmt.Println("UI attached:", attached())
	dispose, _ := userinteraction.Register(session, userinteraction.NewTerminal(nil, nil))
	fmt.Println("UI attached:", attached())
	dispose()
	fmt.Println("UI attached:", attached())
	// Output:
	// UI attached: false
	// UI attached: true
	// UI attached: false
}

// This example shows a host's audit trail: Registry.Ended sees how every
// question ended, where it was answered, or the code that ended it.
func ExampleRegistry_Ended() {
	registry := &userinteraction.Registry{
		Ended: func(req userinteraction.Request, o userinteraction.Outcome) {
			if o.Err != nil {
				fmt.Printf("audit: %q ended with %s\n", req.Question, userinteraction.CodeOf(o.Err))
				return
			}
			fmt.Printf("audit: %q answered %q via %s\n", req.Question, o.Answer.Text, o.Answer.Via)
		},
	}
	session := userinteraction.WithRegistry(context.Background(), registry)
	dispose, _ := userinteraction.Register(session, userinteraction.ProviderFunc(
		func(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
			if req.Question == "Delete the branch?" {
				return userinteraction.Answer{}, userinteraction.NewError(userinteraction.CodeAskDeclined, "the human declined", nil)
			}
			ans := req.Options[0].Answer()
			ans.Via = "chat" // the UI names itself
			return ans, nil
		}))
	defer dispose()

	_, _ = userinteraction.Ask(session, userinteraction.Request{Question: "Merge it?", Options: []userinteraction.Option{{Label: "Merge", Value: "merge"}}})
	_, _ = userinteraction.Ask(session, userinteraction.Request{Question: "Delete the branch?"})
	// Output:
	// audit: "Merge it?" answered "merge" via chat
	// audit: "Delete the branch?" ended with ASK_DECLINED
}

// This example shows a UI that learns how a question it showed ended on
// another UI: FirstOf withdrew it, and EndedElsewhere tells it the winner's
// outcome, to tell its own human.
func ExampleEndedElsewhere() {
	shown := make(chan struct{})
	slow := userinteraction.ProviderFunc(func(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
		close(shown)
		<-ctx.Done()
		if o, ok := userinteraction.EndedElsewhere(ctx); ok {
			fmt.Printf("chat says: answered %q in the %s\n", o.Answer.Text, o.Answer.Via)
		}
		return userinteraction.Answer{}, ctx.Err()
	})
	quick := userinteraction.ProviderFunc(func(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
		<-shown // the human answers once both UIs show the question
		ans := req.Options[1].Answer()
		ans.Via = "terminal"
		return ans, nil
	})
	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	dispose, _ := userinteraction.Register(session, userinteraction.FirstOf(slow, quick))
	defer dispose()
	ans, err := userinteraction.Ask(session, userinteraction.Request{
		Question: "Delete the build cache?",
		Options:  []userinteraction.Option{{Label: "Keep"}, {Label: "Delete"}},
	})
	fmt.Println(ans.Text, ans.Via, err)
	// Output:
	// chat says: answered "Delete" in the terminal
	// Delete terminal <nil>
}
