package userinteraction_test

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
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
// tests use it, and ASK_CANCELLED once they run out. It answers one question
// at a time: a test that asks concurrently needs a mutex around answers.
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

// terminal is a line-based provider, as a CLI agent has: it prints the
// question with numbered options and reads the answer from its input.
type terminal struct {
	out io.Writer
	// lines carries the input lines from the goroutine that reads them, so
	// that Ask can wait for a line and for its context at once; a line typed
	// after a question was abandoned answers the next one. The reader sets err
	// and then closes lines, so err may be read once lines is seen closed.
	lines <-chan string
	err   error // the read error that ended the input, or nil at its end
}

// newTerminal returns a terminal that reads lines from in and writes to out.
// Its reading goroutine ends with the input.
func newTerminal(in io.Reader, out io.Writer) *terminal {
	lines := make(chan string)
	t := &terminal{out: out, lines: lines}
	go func() {
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			lines <- sc.Text()
		}
		t.err = sc.Err()
		close(lines)
	}()
	return t
}

// Ask prints req and reads lines until one answers it (see parseLine); other
// input is refused and asked again. The end of the input is ASK_CANCELLED,
// with the read error, if any, as its cause.
func (t *terminal) Ask(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
	if req.Header != "" {
		fmt.Fprintf(t.out, "[%s] ", req.Header)
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
		fmt.Fprintln(t.out, prompt(req))
		select {
		case <-ctx.Done():
			return userinteraction.Answer{}, ctx.Err()
		case line, ok := <-t.lines:
			if !ok {
				return userinteraction.Answer{}, userinteraction.NewError(userinteraction.CodeAskCancelled, "the input ended before the question was answered", t.err)
			}
			if ans, ok := parseLine(req, line); ok {
				return ans, nil
			}
			fmt.Fprintf(t.out, "%q is not an answer here.\n", line)
		}
	}
}

// parseLine reads line as an answer to req: the number of an option (for a
// MultiSelect request, numbers such as "1,3"), an empty line for the
// recommended option or options, or, where custom answers are allowed, any
// other text. It reports false for anything else, such as a number out of
// range: a typo must not reach the model as an answer.
func parseLine(req userinteraction.Request, line string) (userinteraction.Answer, bool) {
	line = strings.TrimSpace(line)
	picked := make([]bool, len(req.Options))
	switch {
	case line == "":
		for i, o := range req.Options {
			picked[i] = o.Recommended
		}
	case len(req.Options) > 0 && strings.Trim(line, "0123456789, ") == "":
		for _, field := range strings.Split(line, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(field))
			if err != nil || n < 1 || n > len(req.Options) || picked[n-1] {
				return userinteraction.Answer{}, false
			}
			picked[n-1] = true
		}
	case req.CustomAllowed():
		return userinteraction.Answer{Text: line}, true
	}
	var picks []userinteraction.Option
	for i, ok := range picked {
		if ok {
			picks = append(picks, req.Options[i])
		}
	}
	switch {
	case len(picks) == 0 || len(picks) > 1 && !req.MultiSelect:
		return userinteraction.Answer{}, false
	case req.MultiSelect:
		return userinteraction.Pick(picks...), true
	default:
		return picks[0].Answer(), true
	}
}

// prompt says which input answers req.
func prompt(req userinteraction.Request) string {
	if len(req.Options) == 0 {
		return "> your answer:"
	}
	s := fmt.Sprintf("> 1-%d", len(req.Options))
	if req.MultiSelect {
		s = fmt.Sprintf("> one or more of 1-%d, such as 1,2", len(req.Options))
	}
	var recommended []string
	for _, o := range req.Options {
		if o.Recommended {
			recommended = append(recommended, o.Label)
		}
	}
	if len(recommended) > 0 {
		s += ", Enter for " + strings.Join(recommended, " and ")
	}
	if req.CustomAllowed() {
		s += ", or your own answer"
	}
	return s + ":"
}

// This example shows a terminal provider: numbered options, the recommended
// ones on an empty line, several numbers for a MultiSelect question, free text
// only where custom answers are allowed, a refusal of any other input, and
// ASK_CANCELLED at the end of the input. The terminal waits for a line and
// for ctx at once, so a cancelled step never hangs on a read.
func ExampleProvider_terminal() {
	// What the human types; a real terminal reads os.Stdin and echoes it.
	input := strings.NewReader("maybe\n7\n3\n1,3\n\nAurora\n")
	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	dispose, _ := userinteraction.Register(session, newTerminal(input, os.Stdout))
	defer dispose()

	cleanup := userinteraction.Request{
		Question: "Which should I delete?",
		Options: []userinteraction.Option{
			{Label: "build/", Recommended: true},
			{Label: "logs/", Recommended: true},
			{Label: ".env"},
		},
		MultiSelect:    true,
		DisallowCustom: true,
	}
	for _, req := range []userinteraction.Request{
		{
			Header:   "Deploy",
			Question: "Ship v1.2 to production?",
			Options: []userinteraction.Option{
				{Label: "Yes", Value: "yes"},
				{Label: "No", Value: "no", Recommended: true},
				{Label: "Staging first", Value: "staging"},
			},
			DisallowCustom: true,
		}, // "maybe" and "7" are refused, "3" answers
		cleanup, // "1,3"
		cleanup, // Enter: the recommended options
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
	// [Deploy] Ship v1.2 to production?
	//   1) Yes
	//   2) No (recommended)
	//   3) Staging first
	// > 1-3, Enter for No:
	// "maybe" is not an answer here.
	// > 1-3, Enter for No:
	// "7" is not an answer here.
	// > 1-3, Enter for No:
	// => "staging"
	// Which should I delete?
	//   1) build/ (recommended)
	//   2) logs/ (recommended)
	//   3) .env
	// > one or more of 1-3, such as 1,2, Enter for build/ and logs/:
	// => "build/, .env"
	// Which should I delete?
	//   1) build/ (recommended)
	//   2) logs/ (recommended)
	//   3) .env
	// > one or more of 1-3, such as 1,2, Enter for build/ and logs/:
	// => "build/, logs/"
	// What should the release be called?
	// > your answer:
	// => "Aurora"
	// Anything else?
	// > your answer:
	// => ASK_CANCELLED
}

// form is the params of an MCP "elicitation/create" request in form mode (ACP's
// form elicitation takes the same): a message and the schema of a flat form.
type form struct {
	Mode            string     `json:"mode"`
	Message         string     `json:"message"`
	RequestedSchema formSchema `json:"requestedSchema"`
}

type formSchema struct {
	Type       string                  `json:"type"`
	Properties map[string]formProperty `json:"properties"`
	Required   []string                `json:"required,omitempty"`
}

type formProperty struct {
	Type    string       `json:"type"`
	Title   string       `json:"title,omitempty"`
	OneOf   []formChoice `json:"oneOf,omitempty"` // the choices of a string
	Items   *formItems   `json:"items,omitempty"` // the choices of an array
	Default any          `json:"default,omitempty"`
}

type formItems struct {
	AnyOf []formChoice `json:"anyOf"`
}

type formChoice struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// formResult is the client's ElicitResult: an action and, on "accept", the
// form's content.
type formResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// toForm maps req to a form with two fields: "choice" offers the options by
// label (labels are unique; values may not be), as a string, or for a
// MultiSelect request as an array; "text" takes the human's own answer where
// custom answers are allowed. Option descriptions have no slot in the schema,
// so they go into the message.
func toForm(req userinteraction.Request) form {
	f := form{Mode: "form", Message: req.Question, RequestedSchema: formSchema{Type: "object", Properties: map[string]formProperty{}}}
	if len(req.Options) > 0 {
		var choices []formChoice
		var recommended []string
		for _, o := range req.Options {
			choices = append(choices, formChoice{Const: o.Label, Title: o.Label})
			if o.Recommended {
				recommended = append(recommended, o.Label)
			}
			if o.Description != "" {
				f.Message += "\n" + o.Label + ": " + o.Description
			}
		}
		choice := formProperty{Type: "string", Title: req.Header, OneOf: choices}
		if req.MultiSelect {
			choice = formProperty{Type: "array", Title: req.Header, Items: &formItems{AnyOf: choices}}
		}
		switch {
		case req.MultiSelect && len(recommended) > 0:
			choice.Default = recommended
		case len(recommended) > 0:
			choice.Default = recommended[0]
		}
		f.RequestedSchema.Properties["choice"] = choice
	}
	switch {
	case !req.CustomAllowed():
		f.RequestedSchema.Required = []string{"choice"}
	case len(req.Options) == 0:
		f.RequestedSchema.Properties["text"] = formProperty{Type: "string", Title: req.Header}
		f.RequestedSchema.Required = []string{"text"}
	default:
		f.RequestedSchema.Properties["text"] = formProperty{Type: "string", Title: "Other answer"}
	}
	return f
}

// fromForm maps the client's result back to an answer. It needs no request:
// Ask completes and checks the answer against it. A MultiSelect answer holds
// the picks and the human's own words together; otherwise non-blank text wins
// over the choice, because clients fill the choice with its default.
func fromForm(res formResult) (userinteraction.Answer, error) {
	switch res.Action {
	case "accept":
		text, _ := res.Content["text"].(string)
		switch choice := res.Content["choice"].(type) {
		case []any:
			var picks []userinteraction.Option
			for _, label := range choice {
				label, _ := label.(string)
				picks = append(picks, userinteraction.Option{Label: label})
			}
			ans := userinteraction.Pick(picks...)
			ans.Text = text
			return ans, nil
		case string:
			if strings.TrimSpace(text) == "" {
				return userinteraction.Answer{Option: &userinteraction.Option{Label: choice}}, nil
			}
		}
		return userinteraction.Answer{Text: text}, nil
	case "decline":
		return userinteraction.Answer{}, userinteraction.NewError(userinteraction.CodeAskDeclined, "the user declined to answer", nil)
	case "cancel":
		return userinteraction.Answer{}, userinteraction.NewError(userinteraction.CodeAskCancelled, "the user dismissed the form", nil)
	default:
		return userinteraction.Answer{}, fmt.Errorf("unknown elicitation action %q", res.Action)
	}
}

// formProvider asks through a client that shows forms while the call waits:
// an MCP client before protocol 2026-07-28, or an ACP client.
type formProvider struct {
	elicit func(context.Context, form) (formResult, error)
}

func (p formProvider) Ask(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
	res, err := p.elicit(ctx, toForm(req))
	if err != nil {
		return userinteraction.Answer{}, err
	}
	return fromForm(res)
}

// This example shows a form elicitation provider, as an MCP or ACP bridge
// implements it: the request becomes a form, and the client's accept, decline
// and cancel become an answer, ASK_DECLINED and ASK_CANCELLED. The example of
// Request (MultiSelect) shows the form of a question with several picks.
func ExampleProvider_elicitation() {
	results := []formResult{
		{Action: "accept", Content: map[string]any{"choice": "Staging first"}},
		{Action: "accept", Content: map[string]any{"choice": "No", "text": "after the demo"}},
		{Action: "decline"},
		{Action: "cancel"},
	}
	client := func(ctx context.Context, f form) (formResult, error) {
		if len(results) == 4 { // show the first form sent
			b, _ := json.MarshalIndent(f, "", "  ")
			fmt.Println(string(b))
		}
		res := results[0]
		results = results[1:]
		return res, nil
	}
	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	dispose, _ := userinteraction.Register(session, formProvider{elicit: client})
	defer dispose()

	req := userinteraction.Request{
		Header:   "Deploy",
		Question: "Ship v1.2 to production?",
		Options: []userinteraction.Option{
			{Label: "No", Value: "no", Recommended: true},
			{Label: "Staging first", Value: "staging", Description: "deploy to staging, then ask again"},
		},
	}
	for range results {
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
	//   "mode": "form",
	//   "message": "Ship v1.2 to production?\nStaging first: deploy to staging, then ask again",
	//   "requestedSchema": {
	//     "type": "object",
	//     "properties": {
	//       "choice": {
	//         "type": "string",
	//         "title": "Deploy",
	//         "oneOf": [
	//           {
	//             "const": "No",
	//             "title": "No"
	//           },
	//           {
	//             "const": "Staging first",
	//             "title": "Staging first"
	//           }
	//         ],
	//         "default": "No"
	//       },
	//       "text": {
	//         "type": "string",
	//         "title": "Other answer"
	//       }
	//     }
	//   }
	// }
	// => "staging" (option "Staging first")
	// => "after the demo" (custom)
	// => ASK_DECLINED
	// => ASK_CANCELLED
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
// to delete, a form UI (the elicitation provider) offers the options as an
// array of choices with the recommended ones preselected, and the tool reads
// the human's picks from the answer's Options.
func ExampleRequest_multiSelect() {
	client := func(ctx context.Context, f form) (formResult, error) {
		b, _ := json.MarshalIndent(f, "", "  ")
		fmt.Println(string(b))
		return formResult{Action: "accept", Content: map[string]any{"choice": []any{"debug.log", "build/"}}}, nil
	}
	session := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	dispose, _ := userinteraction.Register(session, formProvider{elicit: client})
	defer dispose()

	fmt.Println(cleanUp(session))
	// Output:
	// {
	//   "mode": "form",
	//   "message": "Which files should I delete?\nbuild/: generated by make",
	//   "requestedSchema": {
	//     "type": "object",
	//     "properties": {
	//       "choice": {
	//         "type": "array",
	//         "title": "Clean up",
	//         "items": {
	//           "anyOf": [
	//             {
	//               "const": "build/",
	//               "title": "build/"
	//             },
	//             {
	//               "const": "notes.txt",
	//               "title": "notes.txt"
	//             },
	//             {
	//               "const": "debug.log",
	//               "title": "debug.log"
	//             }
	//           ]
	//         },
	//         "default": [
	//           "build/",
	//           "debug.log"
	//         ]
	//       }
	//     },
	//     "required": [
	//       "choice"
	//     ]
	//   }
	// }
	// deleted build/ and debug.log
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

// runOnReplay runs one run of a call as a Replay host does: in a registry
// scoped to the run, with rp as its provider.
func runOnReplay(rp *userinteraction.Replay, call func(context.Context) string) string {
	ctx := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
	dispose, err := userinteraction.Register(ctx, rp)
	if err != nil {
		return err.Error()
	}
	defer dispose()
	return call(ctx)
}

// toolCall is the params of an MCP "tools/call" request, with the fields that
// protocol 2026-07-28 adds for multi round-trip requests.
type toolCall struct {
	Name           string                `json:"name"`
	Arguments      map[string]string     `json:"arguments"`
	InputResponses map[string]formResult `json:"inputResponses,omitempty"`
	RequestState   string                `json:"requestState,omitempty"`
}

// toolResult is a tools/call result: complete with the tool's content, or
// input_required with the questions for the client to ask.
type toolResult struct {
	ResultType    string                  `json:"resultType"`
	Content       []textContent           `json:"content,omitempty"`
	InputRequests map[string]inputRequest `json:"inputRequests,omitempty"`
	RequestState  string                  `json:"requestState,omitempty"`
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type inputRequest struct {
	Method string `json:"method"`
	Params form   `json:"params"`
}

// serveToolCall serves a tools/call of a tool that calls Ask, on protocol
// 2026-07-28, where a server may not send elicitation/create while it serves
// the call. It runs the tool on a Replay built from the sealed record in
// requestState and the client's inputResponses. While questions are pending it
// returns them as form elicitations, with the record sealed as requestState.
func serveToolCall(call toolCall, tool func(context.Context, map[string]string) string) (toolResult, error) {
	rp := &userinteraction.Replay{}
	if call.RequestState != "" {
		record, err := unseal(call.RequestState)
		if err != nil {
			return toolResult{}, err
		}
		if err := json.Unmarshal(record, rp); err != nil {
			return toolResult{}, err
		}
	}
	for id, res := range call.InputResponses {
		ans, err := fromForm(res)
		rp.Record(id, ans, err)
	}
	text := runOnReplay(rp, func(ctx context.Context) string { return tool(ctx, call.Arguments) })
	pending := rp.Pending()
	if len(pending) == 0 {
		return toolResult{ResultType: "complete", Content: []textContent{{Type: "text", Text: text}}}, nil
	}
	res := toolResult{ResultType: "input_required", InputRequests: map[string]inputRequest{}}
	for _, p := range pending {
		res.InputRequests[p.ID] = inputRequest{Method: "elicitation/create", Params: toForm(p.Request)}
	}
	record, err := json.Marshal(rp)
	if err != nil {
		return toolResult{}, err
	}
	res.RequestState = seal(record)
	return res, nil
}

// stateKey authenticates the requestState a server hands to its clients:
// without it, a client could edit the record and answer on the human's behalf.
// A real server reads its key from its configuration, and also seals the
// principal, an expiry and the call it belongs to, as the MCP spec asks.
var stateKey = []byte("example key; read yours from the server's configuration")

// seal returns record followed by its HMAC-SHA256, as an opaque string.
func seal(record []byte) string {
	mac := hmac.New(sha256.New, stateKey)
	mac.Write(record)
	return base64.RawURLEncoding.EncodeToString(record) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// unseal returns the record that seal sealed in state, or an error when state
// fails verification.
func unseal(state string) ([]byte, error) {
	data, sum, _ := strings.Cut(state, ".")
	record, err1 := base64.RawURLEncoding.DecodeString(data)
	got, err2 := base64.RawURLEncoding.DecodeString(sum)
	mac := hmac.New(sha256.New, stateKey)
	mac.Write(record)
	if err1 != nil || err2 != nil || !hmac.Equal(got, mac.Sum(nil)) {
		return nil, errors.New("requestState failed verification")
	}
	return record, nil
}

// This example shows a complete MCP round on protocol 2026-07-28 for the
// deleteFile tool of ExampleAsk, unchanged: the first tools/call returns the
// question as inputRequests; the client asks the human and calls again with
// inputResponses and the echoed requestState; the second run completes.
func ExampleReplay() {
	tool := func(ctx context.Context, args map[string]string) string { return deleteFile(ctx, args["path"]) }
	serve := func(params string) toolResult {
		var call toolCall
		var res toolResult
		err := json.Unmarshal([]byte(params), &call)
		if err == nil {
			res, err = serveToolCall(call, tool)
		}
		if err != nil {
			fmt.Println("JSON-RPC error:", err)
			return toolResult{}
		}
		b, _ := json.MarshalIndent(res, "", "  ")
		fmt.Println(string(b))
		return res
	}

	first := serve(`{"name": "delete_file", "arguments": {"path": "notes.txt"}}`)

	// The client shows the form; the human picks Delete.
	for id := range first.InputRequests {
		serve(`{"name": "delete_file", "arguments": {"path": "notes.txt"},
			"inputResponses": {"` + id + `": {"action": "accept", "content": {"choice": "Delete"}}},
			"requestState": "` + first.RequestState + `"}`)
	}
	// Output:
	// {
	//   "resultType": "input_required",
	//   "inputRequests": {
	//     "1c8d10f8866430933ec7cab404165dd2": {
	//       "method": "elicitation/create",
	//       "params": {
	//         "mode": "form",
	//         "message": "Delete notes.txt?",
	//         "requestedSchema": {
	//           "type": "object",
	//           "properties": {
	//             "choice": {
	//               "type": "string",
	//               "title": "Delete file",
	//               "oneOf": [
	//                 {
	//                   "const": "Delete",
	//                   "title": "Delete"
	//                 },
	//                 {
	//                   "const": "Keep",
	//                   "title": "Keep"
	//                 }
	//               ],
	//               "default": "Keep"
	//             }
	//           },
	//           "required": [
	//             "choice"
	//           ]
	//         }
	//       }
	//     }
	//   },
	//   "requestState": "e30.0yP7cQ9Q8yckogpQOGzB3kxtfW6oRuyNj3N9forBjt4"
	// }
	// {
	//   "resultType": "complete",
	//   "content": [
	//     {
	//       "type": "text",
	//       "text": "deleted notes.txt"
	//     }
	//   ]
	// }
}

// This example shows a host whose human answers long after the question was
// asked, with a restart in between: the record and the pending questions are
// saved as bytes (a database row, a file), and the next process reads them.
func ExampleReplay_restart() {
	tool := func(ctx context.Context) string { return deleteFile(ctx, "notes.txt") }

	// Process 1: the call asks; nobody is there to answer, so save the state.
	rp := &userinteraction.Replay{}
	runOnReplay(rp, tool)
	saved, _ := json.Marshal(map[string]any{"record": rp, "pending": rp.Pending()})
	fmt.Println(string(saved))

	// Process 2, after the restart: the human answers in the web UI.
	var state struct {
		Record  *userinteraction.Replay
		Pending []userinteraction.Pending
	}
	if err := json.Unmarshal(saved, &state); err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range state.Pending {
		fmt.Println("the human answers:", p.Request.Question)
		state.Record.Record(p.ID, userinteraction.Answer{Text: "keep"}, nil)
	}
	fmt.Println(runOnReplay(state.Record, tool))
	// Output:
	// {"pending":[{"id":"1c8d10f8866430933ec7cab404165dd2","request":{"question":"Delete notes.txt?","header":"Delete file","options":[{"label":"Delete","value":"delete"},{"label":"Keep","value":"keep","recommended":true}],"allowCustom":false,"agent":{"name":"cleanup"}}}],"record":{}}
	// the human answers: Delete notes.txt?
	// kept notes.txt
}
