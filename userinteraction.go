// Package userinteraction is the provider-neutral "ask the human" seam of an
// agent harness: a tool that needs a human decision calls [Ask] and blocks until
// whatever user interface is attached answers.
//
// Three roles meet here:
//
//   - The host (agent harness, session) creates one [Registry] per session and
//     puts it in the session's context with [WithRegistry].
//   - A UI surface (terminal, editor speaking the Agent Client Protocol, web page)
//     implements [Provider] and becomes the single active provider with
//     [Register]; calling the returned dispose func unregisters it on teardown or
//     hot reload and aborts the questions it has not answered yet.
//   - A tool or permission plugin calls [Ask] with a [Request] and gets an
//     [Answer] or an error that carries a stable code (see [CodeOf]).
//
// A sketch of all three:
//
//	ctx = userinteraction.WithRegistry(ctx, &userinteraction.Registry{}) // host
//
//	dispose, err := userinteraction.Register(ctx, terminalUI) // UI surface
//	defer dispose()
//
//	ans, err := userinteraction.Ask(ctx, userinteraction.Request{ // tool
//		Question: "Overwrite config.yaml?",
//		Options:  []userinteraction.Option{{Label: "Yes"}, {Label: "No", Recommended: true}},
//	})
//	if err != nil {
//		return err // userinteraction.CodeOf(err) says why, e.g. "ASK_ABORTED"
//	}
//	use(ans.Text)
//
// There is no process-wide default registry: a question reaches only the UI
// registered in the caller's scope, so one session never asks another
// session's human. Cancellation is the caller's context. Every failure carries
// a code: errors.As finds a *[HarnessError] in every error out of Ask, and its
// JSON is the model-facing object {"name", "code", "message"}.
package userinteraction

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Option is one answer offered to the human.
//
// Label is what the human sees; Value is what the model receives and defaults
// to Label when empty. Description is extra context for UIs able to show it.
// At most one option of a [Request] may be Recommended: UIs present it as the
// default choice.
type Option struct {
	Label       string `json:"label"`
	Value       string `json:"value,omitempty"`
	Description string `json:"description,omitempty"`
	Recommended bool   `json:"recommended,omitempty"`
}

// Answer returns the [Answer] that picks o: its Text is o's Value, or o's Label
// when Value is empty, and its Option points to a copy of o.
func (o Option) Answer() Answer {
	return Answer{Text: o.text(), Option: &o}
}

// text is the model-facing text of o.
func (o Option) text() string {
	if o.Value != "" {
		return o.Value
	}
	return o.Label
}

// Agent identifies the agent whose tool call asks the question, so that a UI
// can say who is asking. Both fields are optional.
type Agent struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
}

// Request is a question for the human.
//
// Question is required. Header is an optional short title. Options are the
// offered answers; with none the question takes free-form input. The zero value
// of DisallowCustom allows the human to type an answer of their own besides the
// options; set it to restrict the answer to the options. It has no effect
// without options. Agent is the asking agent, when known.
//
// Request encodes to and decodes from the JSON object
// {"question", "header"?, "options"?, "allowCustom"?, "agent"?}, where
// "allowCustom" appears, as false, only when DisallowCustom is set, and an absent
// or true "allowCustom" decodes as DisallowCustom false. Decoding does not
// validate; call [Request.Validate] for that. [Ask] validates every request
// and never modifies it or its options: the Option of an [Answer] is a copy.
type Request struct {
	Question       string
	Header         string
	Options        []Option
	DisallowCustom bool
	Agent          *Agent
}

// CustomAllowed reports whether the human may answer with text of their own:
// always for a free-form request (no options), otherwise unless DisallowCustom
// is set.
func (r Request) CustomAllowed() bool {
	return len(r.Options) == 0 || !r.DisallowCustom
}

// Validate reports whether r can be asked. It returns nil, or a
// *[UserInteractionError] with code [CodeInvalidRequest] whose message names
// the first problem found: an empty or white-space-only question, an option
// with an empty or white-space-only label, two options with the same label, more
// than one recommended option, or text (in any field) that is not valid UTF-8.
// Two options may share a Value. DisallowCustom without options is valid.
func (r Request) Validate() error {
	if msg := problem(&r); msg != "" {
		return NewError(CodeInvalidRequest, "invalid request: "+msg, nil)
	}
	return nil
}

// problem describes the first rule r breaks, or returns "".
func problem(r *Request) string {
	if blank(r.Question) {
		return "question is empty"
	}
	if !utf8.ValidString(r.Question) {
		return "question is not valid UTF-8"
	}
	if !utf8.ValidString(r.Header) {
		return "header is not valid UTF-8"
	}
	if a := r.Agent; a != nil && !(utf8.ValidString(a.ID) && utf8.ValidString(a.Name)) {
		return "agent is not valid UTF-8"
	}
	recommended := -1
	for i := range r.Options {
		switch o := &r.Options[i]; {
		case blank(o.Label):
			return fmt.Sprintf("options[%d] has an empty label", i)
		case !utf8.ValidString(o.Label) || !utf8.ValidString(o.Value) || !utf8.ValidString(o.Description):
			return fmt.Sprintf("options[%d] is not valid UTF-8", i)
		case o.Recommended && recommended >= 0:
			return fmt.Sprintf("options[%d] and options[%d] are both recommended", recommended, i)
		case o.Recommended:
			recommended = i
		}
	}
	if i, j := duplicateLabel(r.Options); i >= 0 {
		return fmt.Sprintf("options[%d] and options[%d] have the same label %s", i, j, quote(r.Options[i].Label))
	}
	return ""
}

// smallOptions is the number of options up to which duplicateLabel compares
// every pair instead of building a map: faster, and free of allocations, for
// the handful of options a question usually has.
const smallOptions = 16

// duplicateLabel returns the indexes i < j of the first two options with the
// same label, or -1, -1. It stays linear for long lists, so that a hostile
// request cannot make Validate quadratic.
func duplicateLabel(opts []Option) (int, int) {
	if len(opts) <= smallOptions {
		for j := range opts {
			for i := 0; i < j; i++ {
				if opts[i].Label == opts[j].Label {
					return i, j
				}
			}
		}
		return -1, -1
	}
	seen := make(map[string]int, len(opts))
	for j, o := range opts {
		if i, ok := seen[o.Label]; ok {
			return i, j
		}
		seen[o.Label] = j
	}
	return -1, -1
}

// blank reports whether s is empty or only white space.
func blank(s string) bool {
	return strings.TrimSpace(s) == ""
}

// wireRequest is the JSON shape of a Request, shared with the TypeScript seam.
type wireRequest struct {
	Question    string   `json:"question"`
	Header      string   `json:"header,omitempty"`
	Options     []Option `json:"options,omitempty"`
	AllowCustom *bool    `json:"allowCustom,omitempty"`
	Agent       *Agent   `json:"agent,omitempty"`
}

// decode decodes data into w. It decodes through a local type named Request
// so that decoding errors name the type the caller decodes into, not wireRequest.
func (w *wireRequest) decode(data []byte) error {
	type Request wireRequest
	return json.Unmarshal(data, (*Request)(w))
}

// MarshalJSON encodes r as described on [Request]:
// Request{Question: "q"} encodes as {"question":"q"}.
func (r Request) MarshalJSON() ([]byte, error) {
	w := wireRequest{Question: r.Question, Header: r.Header, Options: r.Options, Agent: r.Agent}
	if r.DisallowCustom {
		allow := false
		w.AllowCustom = &allow
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes the JSON object described on [Request] into r,
// replacing every field. Unknown keys (such as the TypeScript "signal") are
// ignored, an empty "options" array decodes as nil, and JSON null leaves r
// unchanged, as it does for other types.
func (r *Request) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	var w wireRequest
	if err := w.decode(data); err != nil {
		return err
	}
	if len(w.Options) == 0 {
		w.Options = nil
	}
	*r = Request{
		Question:       w.Question,
		Header:         w.Header,
		Options:        w.Options,
		DisallowCustom: w.AllowCustom != nil && !*w.AllowCustom,
		Agent:          w.Agent,
	}
	return nil
}

// clone returns a copy of r that shares no memory with r.
func (r Request) clone() Request {
	r.Options = cloneOptions(r.Options)
	if r.Agent != nil {
		a := *r.Agent
		r.Agent = &a
	}
	return r
}

// cloneOptions returns a copy of opts, nil when opts is empty.
func cloneOptions(opts []Option) []Option {
	if len(opts) == 0 {
		return nil
	}
	return append([]Option(nil), opts...)
}

// Answer is the human's answer to a [Request].
//
// Text is the model-facing answer, the one consumers use: the chosen option's
// Value (or Label), or the human's own text. Option is the chosen option when
// the human picked one, or nil for a custom answer; it is metadata for UIs,
// sessions and diagnostics. An Answer encodes to JSON as
// {"answer", "option"?}.
type Answer struct {
	Text   string  `json:"answer"`
	Option *Option `json:"option,omitempty"`
}

// resolve completes the provider's answer ans to req and checks it, as
// [Registry.Ask] documents: req is the source of truth, and the result never
// aliases req's options.
func resolve(req Request, ans Answer) (Answer, error) {
	var picked *Option // the offered option that ans picks, or nil
	if ans.Option != nil {
		picked = findLabel(req.Options, ans.Option.Label)
		if picked == nil {
			return Answer{}, invalidAnswer("option " + quote(ans.Option.Label) + " was not offered")
		}
		switch ans.Text {
		case "":
			ans.Text = picked.text()
		case picked.text():
		default:
			return Answer{}, invalidAnswer("text " + quote(ans.Text) + " disagrees with option " + quote(picked.Label))
		}
	} else {
		picked = findText(req.Options, ans.Text)
	}
	if blank(ans.Text) {
		return Answer{}, invalidAnswer("the answer is empty")
	}
	if picked == nil && !req.CustomAllowed() {
		return Answer{}, invalidAnswer(quote(ans.Text) + " is not one of the offered options")
	}
	ans.Option = nil
	if picked != nil {
		c := *picked
		ans.Option = &c
	}
	return ans, nil
}

// findLabel returns the option labelled label, or nil.
func findLabel(opts []Option, label string) *Option {
	for i := range opts {
		if opts[i].Label == label {
			return &opts[i]
		}
	}
	return nil
}

// findText returns the first option whose Value, or Label when it has no
// Value, is text, or nil.
func findText(opts []Option, text string) *Option {
	for i := range opts {
		if opts[i].text() == text {
			return &opts[i]
		}
	}
	return nil
}

func invalidAnswer(message string) error {
	return NewError(CodeInvalidAnswer, "invalid answer: "+message, nil)
}

// clone returns a copy of a that shares no memory with a.
func (a Answer) clone() Answer {
	if a.Option != nil {
		o := *a.Option
		a.Option = &o
	}
	return a
}
