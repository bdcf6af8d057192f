// Package userinteraction lets an AI agent's tools ask the human a question
// and wait for the answer, without knowing which user interface is attached.
// It connects three parts of an agent harness (the program that runs the model
// and its tools): a tool calls [Ask], and whichever UI the harness runs (a
// terminal, an editor speaking the Agent Client Protocol, a web page) answers
// as the [Provider] registered in the session's [Registry]. It ships no UI and
// is not an MCP or ACP SDK: a UI or protocol bridge implements Provider in a
// few lines (see the examples), and hosts that cannot keep a tool call open
// while the human thinks run the same tools with [Replay].
//
// Three roles meet here:
//
//   - The host (agent harness, session) creates one [Registry] per session and
//     puts it in the session's context with [WithRegistry].
//   - A UI surface implements [Provider] and becomes the session's single
//     active provider with [Register]; calling the returned dispose func
//     unregisters it on teardown or hot reload and aborts the questions it has
//     not answered yet.
//   - A tool or permission plugin calls [Ask] with a [Request] and gets an
//     [Answer] or an error that carries a stable code (see [CodeOf]).
//
// A sketch of all three, with a stand-in UI that always answers "Yes":
//
//	ctx := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{}) // host
//
//	dispose, err := userinteraction.Register(ctx, userinteraction.ProviderFunc( // UI surface
//		func(ctx context.Context, req userinteraction.Request) (userinteraction.Answer, error) {
//			return userinteraction.Answer{Text: "Yes"}, nil // a real UI asks the human here
//		}))
//	if err != nil {
//		return err
//	}
//	defer dispose()
//
//	ans, err := userinteraction.Ask(ctx, userinteraction.Request{ // tool
//		Question: "Overwrite config.yaml?",
//		Options:  []userinteraction.Option{{Label: "Yes"}, {Label: "No", Recommended: true}},
//	})
//	if err != nil {
//		return err // userinteraction.CodeOf(err) says why, e.g. "ASK_ABORTED"
//	}
//	fmt.Println(ans.Text, ans.Option.Label) // Yes Yes
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
// Label is what the human sees and identifies the option: a request's labels
// are unique. Value is what the model receives and defaults to Label when
// empty; two options may share one. Description is extra context for UIs able
// to show it. A Recommended option is the default choice (for a MultiSelect
// request, the recommended options are the preselected set).
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

// Pick returns the [Answer] that picks opts, for a provider whose human picked
// several options of a MultiSelect request: its Options are copies of opts,
// and its Text is empty, which [Registry.Ask] completes to the picks' values
// (or labels) joined with ", ". Set Text to add the human's own words. With
// no opts the answer is empty, which Ask rejects.
func Pick(opts ...Option) Answer {
	return Answer{Options: cloneOptions(opts)}
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
// options; set it to restrict the answer to the options. MultiSelect lets the
// human pick several options. Neither has an effect without options. Agent is
// the asking agent, when known.
//
// Request encodes to and decodes from the JSON object {"question", "header"?,
// "options"?, "allowCustom"?, "multiSelect"?, "agent"?}, where "allowCustom"
// appears, as false, only when DisallowCustom is set (an absent or true
// "allowCustom" decodes as DisallowCustom false), and "multiSelect" appears, as
// true, only when MultiSelect is set. Decoding does not validate; call
// [Request.Validate] for that. [Ask] validates every request and never
// modifies it or its options: options in an [Answer] are copies.
type Request struct {
	Question       string
	Header         string
	Options        []Option
	DisallowCustom bool
	MultiSelect    bool
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
// with an empty or white-space-only label, two options with the same label,
// more than one recommended option unless MultiSelect is set, or text (in any
// field) that is not valid UTF-8. Two options may share a Value.
// DisallowCustom or MultiSelect without options is valid and stays free-form.
// Messages quote at most 64 runes of the request's text.
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
		case o.Recommended && recommended >= 0 && !r.MultiSelect:
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
	MultiSelect bool     `json:"multiSelect,omitempty"`
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
	w := wireRequest{Question: r.Question, Header: r.Header, Options: r.Options, MultiSelect: r.MultiSelect, Agent: r.Agent}
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
		MultiSelect:    w.MultiSelect,
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
// Text is the model-facing answer, the one consumers use. Option is the option
// picked in a single-select request, or nil when the human typed an answer of
// their own; Options are the options picked in a MultiSelect request, in
// offered order. Option and Options are metadata for UIs, sessions and
// diagnostics.
//
// A provider returns [Option.Answer] of the picked option, [Pick] of several
// picked options, or Answer{Text: typed} for the human's own words.
// [Registry.Ask] then completes the answer and checks it against the request,
// the source of truth; a rule broken is [CodeInvalidAnswer]:
//
//   - Single-select (no MultiSelect, or no options): Option must name an
//     offered option by Label; an empty Text becomes its Value (or Label when
//     it has no Value), and any other Text disagrees with it. With Option nil,
//     a Text equal to an offered option's Value (or Label) picks the first
//     such option. Options with one element is read as Option (when both are
//     set they must name the same Label); with more it is invalid.
//   - MultiSelect: Options, and Option when set, are the picks: each must
//     name an offered option by Label, none twice. Text becomes the picks'
//     values (or labels), in offered order, joined with ", "; a non-blank Text
//     that differs from that join is the human's own words and is appended to
//     it after ", ". With no picks, a Text equal to an offered option's value
//     (or label) picks that option, and any other Text is the human's own.
//   - Both: an empty or white-space Text is invalid, and so, when custom
//     answers are not allowed ([Request.CustomAllowed]), are the human's own
//     words.
//
// The result holds copies of the offered options, never the provider's or the
// request's. An Answer encodes to JSON as {"answer", "option"?, "options"?};
// an empty "options" array decodes as nil.
type Answer struct {
	Text    string   `json:"answer"`
	Option  *Option  `json:"option,omitempty"`
	Options []Option `json:"options,omitempty"`
}

// UnmarshalJSON decodes the JSON object described on [Answer] into a,
// replacing every field. An empty "options" array decodes as nil, and JSON
// null leaves a unchanged, as it does for other types.
func (a *Answer) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	var w wireAnswer
	if err := w.decode(data); err != nil {
		return err
	}
	*a = Answer(w)
	if len(a.Options) == 0 {
		a.Options = nil
	}
	return nil
}

// wireAnswer is Answer without its methods, to decode into.
type wireAnswer Answer

// decode decodes data into w through a local type named Answer, so that
// decoding errors name Answer.
func (w *wireAnswer) decode(data []byte) error {
	type Answer wireAnswer
	return json.Unmarshal(data, (*Answer)(w))
}

// clone returns a copy of a that shares no memory with a.
func (a Answer) clone() Answer {
	if a.Option != nil {
		o := *a.Option
		a.Option = &o
	}
	a.Options = cloneOptions(a.Options)
	return a
}

// resolve completes the provider's answer ans to req and checks it, as
// [Answer] documents.
func resolve(req Request, ans Answer) (Answer, error) {
	if req.MultiSelect && len(req.Options) > 0 {
		return resolveMulti(req, ans)
	}
	return resolveSingle(req, ans)
}

func resolveSingle(req Request, ans Answer) (Answer, error) {
	switch len(ans.Options) {
	case 0:
	case 1:
		if ans.Option != nil && ans.Option.Label != ans.Options[0].Label {
			return Answer{}, invalidAnswer("option " + quote(ans.Option.Label) + " and options " + quote(ans.Options[0].Label) + " disagree")
		}
		ans.Option = &ans.Options[0]
	default:
		return Answer{}, invalidAnswer(fmt.Sprintf("%d options picked; the question takes one", len(ans.Options)))
	}
	picked := -1 // the index of the offered option that ans picks
	if ans.Option != nil {
		picked = labelIndex(req.Options, ans.Option.Label)
		if picked < 0 {
			return Answer{}, invalidAnswer("option " + quote(ans.Option.Label) + " was not offered")
		}
		switch text := req.Options[picked].text(); ans.Text {
		case "":
			ans.Text = text
		case text:
		default:
			return Answer{}, invalidAnswer("text " + quote(ans.Text) + " disagrees with option " + quote(req.Options[picked].Label))
		}
	} else {
		picked = textIndex(req.Options, ans.Text)
	}
	if blank(ans.Text) {
		return Answer{}, invalidAnswer("the answer is empty")
	}
	if picked < 0 && !req.CustomAllowed() {
		return Answer{}, invalidAnswer(quote(ans.Text) + " is not one of the offered options")
	}
	result := Answer{Text: ans.Text}
	if picked >= 0 {
		o := req.Options[picked]
		result.Option = &o
	}
	return result, nil
}

func resolveMulti(req Request, ans Answer) (Answer, error) {
	labels := make([]string, 0, len(ans.Options)+1) // of the picks
	for _, o := range ans.Options {
		labels = append(labels, o.Label)
	}
	if ans.Option != nil {
		labels = append(labels, ans.Option.Label)
	}
	picked := make([]bool, len(req.Options))
	for _, label := range labels {
		i := labelIndex(req.Options, label)
		switch {
		case i < 0:
			return Answer{}, invalidAnswer("option " + quote(label) + " was not offered")
		case picked[i]:
			return Answer{}, invalidAnswer("option " + quote(label) + " is picked twice")
		}
		picked[i] = true
	}
	if len(labels) == 0 {
		if i := textIndex(req.Options, ans.Text); i >= 0 {
			picked[i] = true
		}
	}
	var result Answer
	var texts []string
	for i, ok := range picked {
		if ok {
			result.Options = append(result.Options, req.Options[i])
			texts = append(texts, req.Options[i].text())
		}
	}
	join := strings.Join(texts, ", ")
	custom := !blank(ans.Text) && ans.Text != join // the human's own words
	switch {
	case custom && join != "":
		result.Text = join + ", " + ans.Text
	case custom:
		result.Text = ans.Text
	default:
		result.Text = join
	}
	if blank(result.Text) {
		return Answer{}, invalidAnswer("the answer is empty")
	}
	if custom && !req.CustomAllowed() {
		return Answer{}, invalidAnswer(quote(ans.Text) + " is not one of the offered options")
	}
	return result, nil
}

// labelIndex returns the index of the option labelled label, or -1.
func labelIndex(opts []Option, label string) int {
	for i := range opts {
		if opts[i].Label == label {
			return i
		}
	}
	return -1
}

// textIndex returns the index of the first option whose Value, or Label when
// it has no Value, is text, or -1.
func textIndex(opts []Option, text string) int {
	for i := range opts {
		if opts[i].text() == text {
			return i
		}
	}
	return -1
}

func invalidAnswer(message string) error {
	return NewError(CodeInvalidAnswer, "invalid answer: "+message, nil)
}
