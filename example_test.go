package userinteraction_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
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
	fmt.Printf("tool got %q (option %q), err %v\n", ans.Text, ans.Option.Label, err)

	// The UI goes away: questions now fail with a code the tool can report.
	dispose()
	_, err = userinteraction.Ask(session, userinteraction.Request{Question: "Still there?"})
	fmt.Println(userinteraction.CodeOf(err))
	// Output:
	// UI shows: Run database migration 42?
	// tool got "run" (option "Run it"), err <nil>
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
			return userinteraction.Answer{}, userinteraction.NewError(userinteraction.CodeAskDeclined, "the user declined to answer", nil)
		}))
	fmt.Println(deleteFile(session, "notes.txt"))
	dispose()

	dispose, _ = userinteraction.Register(session, userinteraction.ProviderFunc(
		func(context.Context, userinteraction.Request) (userinteraction.Answer, error) {
			closed := &userinteraction.HarnessError{Name: "ACPError", Code: "SESSION_CLOSED", Message: "the editor closed the session"}
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
	// {"name":"UserInteractionError","code":"NO_PROVIDER","message":"no provider is registered to answer the question"}
	// {"name":"UserInteractionError","code":"ASK_DECLINED","message":"the user declined to answer"}
	// {"name":"ACPError","code":"SESSION_CLOSED","message":"the editor closed the session"}
	// deleted notes.txt
}

// scripted returns a provider that gives the answers in order, as a plugin's
// tests use it, and ASK_CANCELLED once they run out.
func scripted(answers ...string) userinteraction.ProviderFunc {
	return func(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
		if len(answers) == 0 {
			return userinteraction.Answer{}, userinteraction.NewError(userinteraction.CodeAskCancelled, "the script has no more answers", nil)
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

// terminal is a line-based provider: it prints the question with numbered
// options and reads the answer from its input.
type terminal struct {
	out io.Writer
	// echo writes each line read back to out, as a terminal's echo would,
	// an empty one as "(Enter)".
	echo bool
	// lines carries the input lines from the goroutine that reads them, so
	// that Ask can wait for a line and for its context at once; a line read
	// after a question was abandoned goes to the next question. It is closed
	// at the end of the input.
	lines <-chan string
}

func newTerminal(in io.Reader, out io.Writer) *terminal {
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return &terminal{out: out, lines: lines}
}

// Ask prints req, then reads lines until one is an answer: an option's number
// or label, an empty line for the recommended option, or, when custom answers
// are allowed, any other text. The end of the input is ASK_CANCELLED.
func (t *terminal) Ask(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
	if req.Header != "" {
		fmt.Fprintf(t.out, "[%s]\n", req.Header)
	}
	fmt.Fprintln(t.out, req.Question)
	for i, o := range req.Options {
		mark := ""
		if o.Recommended {
			mark = " (recommended)"
		}
		fmt.Fprintf(t.out, "  %d) %s%s\n", i+1, o.Label, mark)
	}
	for {
		fmt.Fprint(t.out, "> ")
		var line string
		select {
		case <-ctx.Done():
			fmt.Fprintln(t.out)
			return userinteraction.Answer{}, ctx.Err()
		case l, ok := <-t.lines:
			if !ok {
				fmt.Fprintln(t.out, "(end of input)")
				return userinteraction.Answer{}, userinteraction.NewError(userinteraction.CodeAskCancelled, "input ended before the question was answered", nil)
			}
			line = l
		}
		if t.echo && line == "" {
			fmt.Fprintln(t.out, "(Enter)")
		} else if t.echo {
			fmt.Fprintln(t.out, line)
		}
		if ans, ok := pick(req, strings.TrimSpace(line)); ok {
			return ans, nil
		}
		fmt.Fprintln(t.out, hint(req))
	}
}

// pick interprets an input line as an answer to req.
func pick(req userinteraction.Request, line string) (userinteraction.Answer, bool) {
	for i, o := range req.Options {
		if line == "" && o.Recommended || line == strconv.Itoa(i+1) || strings.EqualFold(line, o.Label) {
			return o.Answer(), true
		}
	}
	if line != "" && req.CustomAllowed() {
		return userinteraction.Answer{Text: line}, true
	}
	return userinteraction.Answer{}, false
}

// hint says which inputs answer req.
func hint(req userinteraction.Request) string {
	if len(req.Options) == 0 {
		return "Please type an answer."
	}
	s := fmt.Sprintf("Please enter 1-%d or an option's label", len(req.Options))
	if req.CustomAllowed() {
		s += ", or type your own answer"
	}
	for _, o := range req.Options {
		if o.Recommended {
			s += "; Enter picks " + o.Label
		}
	}
	return s + "."
}

// This example shows a terminal provider: numbered options, the recommended
// one on an empty line, a re-prompt on input that is no answer, free text only
// where custom answers are allowed, and ASK_CANCELLED at the end of the input.
// The terminal waits for a line and for ctx at once, so a cancelled step does
// not hang on a read.
func ExampleProvider_terminal() {
	input := strings.NewReader("maybe\n3\n\nAurora\n")
	term := newTerminal(input, os.Stdout)
	term.echo = true

	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	dispose, _ := userinteraction.Register(session, term)
	defer dispose()

	deploy := userinteraction.Request{
		Header:   "Deploy",
		Question: "Ship v1.2 to production?",
		Options: []userinteraction.Option{
			{Label: "Yes", Value: "yes"},
			{Label: "No", Value: "no", Recommended: true},
			{Label: "Staging first", Value: "staging"},
		},
		DisallowCustom: true,
	}
	for _, req := range []userinteraction.Request{
		deploy, // "maybe" is no answer here, "3" is
		deploy, // an empty line picks the recommended option
		{Question: "What should the release be called?"},
		{Question: "Anything else?"}, // the input has ended
	} {
		ans, err := userinteraction.Ask(session, req)
		if err != nil {
			fmt.Println("=>", userinteraction.CodeOf(err))
			continue
		}
		fmt.Printf("=> %q\n", ans.Text)
	}
	// Output:
	// [Deploy]
	// Ship v1.2 to production?
	//   1) Yes
	//   2) No (recommended)
	//   3) Staging first
	// > maybe
	// Please enter 1-3 or an option's label; Enter picks No.
	// > 3
	// => "staging"
	// [Deploy]
	// Ship v1.2 to production?
	//   1) Yes
	//   2) No (recommended)
	//   3) Staging first
	// > (Enter)
	// => "no"
	// What should the release be called?
	// > Aurora
	// => "Aurora"
	// Anything else?
	// > (end of input)
	// => ASK_CANCELLED
}

// elicitation is an MCP "elicitation/create" request (ACP forms share its
// shape): a message and the schema of a flat form.
type elicitation struct {
	Message         string     `json:"message"`
	RequestedSchema formSchema `json:"requestedSchema"`
}

type formSchema struct {
	Type       string                  `json:"type"`
	Properties map[string]formProperty `json:"properties"`
	Required   []string                `json:"required,omitempty"`
}

type formProperty struct {
	Type        string       `json:"type"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	OneOf       []formChoice `json:"oneOf,omitempty"`
	Default     string       `json:"default,omitempty"`
}

type formChoice struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// elicitationResult is the client's response: an action and, on "accept",
// the form's content.
type elicitationResult struct {
	Action  string            `json:"action"`
	Content map[string]string `json:"content,omitempty"`
}

// toElicitation maps req to a form. The options become the oneOf choices of
// an "answer" field, the recommended one its default. An MCP enum field cannot
// take free text, so when custom answers are allowed a separate "custom" field
// carries it; "answer" is then optional, since a human who types their own
// answer picks no option.
func toElicitation(req userinteraction.Request) elicitation {
	answer := formProperty{Type: "string", Title: req.Header}
	for _, o := range req.Options {
		text := o.Answer().Text
		answer.OneOf = append(answer.OneOf, formChoice{Const: text, Title: o.Label})
		if o.Recommended {
			answer.Default = text
		}
	}
	form := formSchema{Type: "object", Properties: map[string]formProperty{"answer": answer}}
	if len(req.Options) > 0 && req.CustomAllowed() {
		form.Properties["custom"] = formProperty{Type: "string", Title: "Other", Description: "Your own answer, instead of a choice above"}
	} else {
		form.Required = []string{"answer"}
	}
	return elicitation{Message: req.Question, RequestedSchema: form}
}

// formProvider asks through a client that shows forms, such as an MCP or ACP
// client.
type formProvider struct {
	client func(context.Context, elicitation) (elicitationResult, error)
}

func (p formProvider) Ask(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
	res, err := p.client(ctx, toElicitation(req))
	if err != nil {
		return userinteraction.Answer{}, err
	}
	switch res.Action {
	case "accept":
		if custom := strings.TrimSpace(res.Content["custom"]); custom != "" {
			return userinteraction.Answer{Text: custom}, nil
		}
		// Ask fills in the option whose value this is.
		return userinteraction.Answer{Text: res.Content["answer"]}, nil
	case "decline":
		return userinteraction.Answer{}, userinteraction.NewError(userinteraction.CodeAskDeclined, "the user declined to answer", nil)
	case "cancel":
		return userinteraction.Answer{}, userinteraction.NewError(userinteraction.CodeAskCancelled, "the user dismissed the form", nil)
	default:
		return userinteraction.Answer{}, fmt.Errorf("unknown elicitation action %q", res.Action)
	}
}

// This example shows a form elicitation provider, as an MCP or ACP bridge
// implements it: the request becomes a form schema, and the client's accept,
// decline and cancel become an answer, ASK_DECLINED and ASK_CANCELLED.
func ExampleProvider_elicitation() {
	responses := []elicitationResult{
		{Action: "accept", Content: map[string]string{"answer": "staging"}},
		{Action: "accept", Content: map[string]string{"custom": "after the demo"}},
		{Action: "decline"},
		{Action: "cancel"},
	}
	client := func(ctx context.Context, form elicitation) (elicitationResult, error) {
		if len(responses) == 4 { // show the first form sent
			b, _ := json.MarshalIndent(form, "", "  ")
			fmt.Println(string(b))
		}
		res := responses[0]
		responses = responses[1:]
		return res, nil
	}
	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	dispose, _ := userinteraction.Register(session, formProvider{client: client})
	defer dispose()

	req := userinteraction.Request{
		Header:   "Deploy",
		Question: "Ship v1.2 to production?",
		Options: []userinteraction.Option{
			{Label: "Yes", Value: "yes"},
			{Label: "No", Value: "no", Recommended: true},
			{Label: "Staging first", Value: "staging"},
		},
	}
	for range responses {
		ans, err := userinteraction.Ask(session, req)
		switch {
		case err != nil:
			fmt.Println("=>", userinteraction.CodeOf(err))
		case ans.Option != nil:
			fmt.Printf("=> %q (option %q)\n", ans.Text, ans.Option.Label)
		default:
			fmt.Printf("=> %q (custom)\n", ans.Text)
		}
	}
	// Output:
	// {
	//   "message": "Ship v1.2 to production?",
	//   "requestedSchema": {
	//     "type": "object",
	//     "properties": {
	//       "answer": {
	//         "type": "string",
	//         "title": "Deploy",
	//         "oneOf": [
	//           {
	//             "const": "yes",
	//             "title": "Yes"
	//           },
	//           {
	//             "const": "no",
	//             "title": "No"
	//           },
	//           {
	//             "const": "staging",
	//             "title": "Staging first"
	//           }
	//         ],
	//         "default": "no"
	//       },
	//       "custom": {
	//         "type": "string",
	//         "title": "Other",
	//         "description": "Your own answer, instead of a choice above"
	//       }
	//     }
	//   }
	// }
	// => "staging" (option "Staging first")
	// => "after the demo" (custom)
	// => ASK_DECLINED
	// => ASK_CANCELLED
}

// This example shows a hot reload: the UI is disposed while a question is
// pending, that question fails with ASK_ABORTED, and the next question reaches
// the reloaded UI.
func ExampleRegister_hotReload() {
	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})

	shown := make(chan struct{})
	oldUI := userinteraction.ProviderFunc(func(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
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
