// Package userinteraction lets an AI agent's tools ask the human a question
// and wait for the answer, whatever UI is attached. That may be a
// [Terminal], a [Form] that MCP and ACP clients render, an [Inbox] for a UI
// outside the process, [Replay] for hosts that cannot keep a call open, or
// any [Provider] of your own.
//
// The host puts one [Registry] per session in the session's context with
// [WithRegistry]. A UI becomes its single provider with [Register], and
// calls the returned dispose func when it goes away. A tool calls [Ask] or
// [AskAll]. It gets an [Answer], or an error whose code [CodeOf] returns.
//
//	ctx := userinteraction.WithRegistry(context.Background(), &userinteraction.Registry{})
//	dispose, _ := userinteraction.Register(ctx, userinteraction.NewTerminal(os.Stdin, os.Stdout))
//	defer dispose() // dispose is never nil
//	ans, err := userinteraction.Ask(ctx, userinteraction.Request{Question: "Overwrite config.yaml?"})
//
// There is no process-wide registry, so a question reaches only the UI of
// the caller's scope. Cancellation is the caller's context. Every error from
// Ask carries a code, in a *[HarnessError] whose JSON is {"name", "code",
// "message"}.
package userinteraction

import (
	"bytes"
	"cmp"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// ----------------------------------------------------------------------------
// The vocabulary: options, requests, answers

// Option is one answer offered to the human. Label is what the human sees,
// and it names the option. The option's value, what the model receives, is
// Value, or Label when Value is empty. No UI shows Value. Description is
// extra context for UIs that can show it. A Recommended option is the
// default choice: the page preselects it, and the Terminal's Enter picks it.
// [Request.Validate] says what each field may hold.
type Option struct {
	Label       string `json:"label"`
	Value       string `json:"value,omitempty"`
	Description string `json:"description,omitempty"`
	Recommended bool   `json:"recommended,omitempty"`
}

// Answer returns the [Answer] that picks o: its Text is o's value, and its
// Option a copy of o.
func (o Option) Answer() Answer {
	return Answer{Text: o.text(), Option: &o}
}

// text returns the value of o, as [Option] defines it.
func (o Option) text() string {
	return cmp.Or(o.Value, o.Label)
}

// Pick returns the [Answer] that picks copies of opts in a MultiSelect
// request. [Registry.Ask] fills in its Text, as [Answer] says. Set Text only
// to add the human's own words. Pick() is an empty answer, which Ask
// rejects.
func Pick(opts ...Option) Answer {
	return Answer{Options: cloneOptions(opts)}
}

// Agent is the agent whose tool call asks, so that a UI can say who asks.
// Both fields are optional.
type Agent struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
}

// Request is a question for the human. Question is required, and Header is
// an optional short title. Options are the offered answers. Without them,
// the question takes free-form input. MultiSelect lets the human pick
// several options. DisallowCustom allows only the options, while its zero
// value also takes the human's own words. Neither has an effect without
// options. Agent is the asking agent, when known. RequireProof asks for an
// answer with a human's receipt, for [VerifyProof], or [CodeAskUnsupported].
//
// [Ask] validates every request ([Request.Validate]) and never modifies it.
// A valid request's texts draw visibly and in order. So a UI shows each text
// as it is, escaping only for its own markup.
type Request struct {
	Question       string
	Header         string
	Options        []Option
	DisallowCustom bool
	MultiSelect    bool
	Agent          *Agent
	RequireProof   bool
}

// CustomAllowed reports whether the human may answer in their own words:
// always without options, else unless DisallowCustom is set.
func (r Request) CustomAllowed() bool {
	return len(r.Options) == 0 || !r.DisallowCustom
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

// cloneOptions returns a copy of opts, nil when opts is empty, as append keeps nil.
func cloneOptions(opts []Option) []Option {
	return append([]Option(nil), opts...)
}

// Answer is the human's answer to a [Request]. Text is the model-facing
// answer, what consumers use. Option is a single-select request's pick, or
// nil for the human's own words. Options are a MultiSelect request's picks,
// in offered order. Via names the UI that answered, such as "terminal". Each
// provider sets its own, and the registry never invents one. Proof is the
// [Receipt] of a proven answer: Ask requires one, [VerifyProof] checks it.
//
// [Registry.Ask] completes a provider's answer and checks it against the
// request. A broken rule is [CodeInvalidAnswer].
//
//   - Single-select: Option must name an offered option by Label, and Text
//     must be its value ([Option]), filled in when empty. Options of one is
//     read as Option.
//   - MultiSelect: Options and Option are the picks, each offered, none
//     twice. Text becomes their values in offered order, joined with ", ",
//     then any words of the human's own after ", ".
//   - Both: without picks, a Text equal to a value picks that option. An
//     empty Text is invalid, and so are the human's own words unless
//     [Request.CustomAllowed].
//
// Completing is idempotent. The result holds copies of the offered options.
type Answer struct {
	Text    string   `json:"answer"`
	Option  *Option  `json:"option,omitempty"`
	Options []Option `json:"options,omitempty"`
	Via     string   `json:"via,omitempty"`
	Proof   *Receipt `json:"proof,omitempty"`
}

// clone returns a copy of a that shares no memory with a.
func (a Answer) clone() Answer {
	if a.Option != nil {
		o := *a.Option
		a.Option = &o
	}
	a.Options = cloneOptions(a.Options)
	if a.Proof != nil {
		r := *a.Proof
		a.Proof = &r
	}
	return a
}

// Outcome is how one question ended: its Answer, or the coded error Err in
// its place. Beside an Err, Answer holds at most the Via of the UI that
// ended the question, as for a decline on the Inbox's page.
type Outcome struct {
	Answer Answer
	Err    error
}

// ----------------------------------------------------------------------------
// Validate: what the human sees is what they pick

// Validate returns nil when r can be asked, else a *[UserInteractionError]
// with code [CodeInvalidRequest]. Its message names the first problem,
// quoting at most 64 runes of r's text.
//
// The question needs more than white space, and each label must show
// something. A value may not be only white space. Only a MultiSelect request
// may recommend several options. All text must be valid UTF-8.
//
// Labels must differ, but values need not. Labels are the same when they
// differ only in case, in default-ignorable code points such as U+200D, or
// in white space at their ends. A run of white space counts as one space,
// and a fullwidth form as the ASCII it draws.
//
// Every text but a value is shown: the question, the header, labels,
// descriptions, and the agent's ID and Name. They hold only letters, marks,
// numbers, punctuation, symbols and spaces (Unicode's L, M, N, P, S and Zs).
// The question and descriptions may also hold line feeds and tabs. A joiner
// (U+200C, U+200D) stands between two visible characters, and a variation
// selector after one. At most 4 combining marks follow one character,
// joiners aside. For any other character, the message names the field and
// the code point.
//
// Labels, the header and the agent hold no character that draws blank, such
// as U+2800 BRAILLE PATTERN BLANK. A label does not start with a combining
// mark. No word of a label mixes scripts beyond UTS #39's "Highly
// Restrictive" level: Latin with Han and Japanese kana, with Han and
// Bopomofo, or with Han and Hangul. So "Уes", whose У is Cyrillic, is
// refused. Nor may a label hold an ASCII letter or digit in another dress:
// mathematical alphanumerics ("𝖸es"), number forms ("Ⅽancel"), letterlike
// symbols that are letters, or enclosed letters and digits ("🅁🄴🄲").
// Fullwidth forms are valid.
//
// A request has at most 1,000 options. A label, the header, and the agent's
// ID and Name hold at most 256 bytes each. The question, a description and a
// value hold at most 16 KiB each. A request's shown text is at most 64 KiB,
// and so are its values.
func (r Request) Validate() error {
	return validate(&r)
}

// The limits of a request's size, and of an [AskAll]. They bound every UI's
// work on a request. 64 KiB of shown text is more than a human reads in half
// an hour, and a few milliseconds of work for any UI.
const (
	maxOptions    = 1000
	maxNameBytes  = 256
	maxProseBytes = 16 << 10
	maxShownBytes = 64 << 10 // of all the shown text of one request
	maxValueBytes = 64 << 10 // of all the option values of one request
	maxQuestions  = 100
	maxMarks      = 4 // combining marks after one character
)

// validate is [Request.Validate], without a copy of r.
func validate(r *Request) error {
	if msg := problem(r); msg != "" {
		return NewError(CodeInvalidRequest, "invalid request: "+msg, nil)
	}
	return nil
}

// validateAll validates reqs, the questions of one AskAll: INVALID_REQUEST
// when there are none or too many, or naming the first that is invalid.
func validateAll(reqs []Request) error {
	switch {
	case len(reqs) == 0:
		return NewError(CodeInvalidRequest, "invalid request: no questions", nil)
	case len(reqs) > maxQuestions:
		return NewError(CodeInvalidRequest, fmt.Sprintf("invalid request: %d questions, at most %d", len(reqs), maxQuestions), nil)
	}
	for i := range reqs {
		if msg := problem(&reqs[i]); msg != "" {
			return NewError(CodeInvalidRequest, fmt.Sprintf("invalid request: questions[%d]: %s", i, msg), nil)
		}
	}
	return nil
}

// problem describes the first rule r breaks, or returns "".
func problem(r *Request) string {
	if len(r.Options) > maxOptions {
		return fmt.Sprintf("%d options, at most %d", len(r.Options), maxOptions)
	}
	if shown, values := sizes(r); shown > maxShownBytes {
		return fmt.Sprintf("shows %d bytes of text, at most %d", shown, maxShownBytes)
	} else if values > maxValueBytes {
		return fmt.Sprintf("carries %d bytes of option values, at most %d", values, maxValueBytes)
	}
	if blank(r.Question) {
		return "question is empty"
	}
	a := cmp.Or(r.Agent, &Agent{})
	for _, f := range [...]struct {
		field, text string
		isProse     bool
	}{{"question", r.Question, prose}, {"header", r.Header, name}, {"agent.id", a.ID, name}, {"agent.name", a.Name, name}} {
		if msg := textProblem(f.text, f.isProse); msg != "" {
			return f.field + " " + msg
		}
	}
	recommended := -1
	for i := range r.Options {
		if msg := optionProblem(&r.Options[i]); msg != "" {
			return fmt.Sprintf("options[%d]%s", i, msg)
		}
		if !r.Options[i].Recommended {
			continue
		}
		if recommended >= 0 && !r.MultiSelect {
			return fmt.Sprintf("options[%d] and options[%d] are both recommended: set MultiSelect to recommend several", recommended, i)
		}
		recommended = i
	}
	seen := make(map[string]int, len(r.Options)) // each label's option, by labelKey
	for j := range r.Options {
		key := labelKey(r.Options[j].Label)
		if i, ok := seen[key]; ok {
			return fmt.Sprintf("options[%d] and options[%d] have the same label %s", i, j, quote(r.Options[j].Label))
		}
		seen[key] = j
	}
	return ""
}

// sizes returns the bytes of the text that a UI shows for r, and of r's
// option values, which no UI shows but every UI, form and sealed state carries.
func sizes(r *Request) (shown, values int) {
	a := cmp.Or(r.Agent, &Agent{})
	shown = len(r.Question) + len(r.Header) + len(a.ID) + len(a.Name)
	for i := range r.Options {
		o := &r.Options[i]
		shown, values = shown+len(o.Label)+len(o.Description), values+len(o.Value)
	}
	return shown, values
}

// optionProblem describes the first rule o breaks, to follow the option's
// index in a message (".label holds U+001B"), or returns "".
func optionProblem(o *Option) string {
	if msg := cmp.Or(textProblem(o.Label, name), labelProblem(o.Label)); msg != "" {
		return ".label " + msg
	}
	switch {
	case len(o.Value) > maxProseBytes:
		return fmt.Sprintf(".value is longer than %d bytes", maxProseBytes)
	case !utf8.ValidString(o.Value):
		return ".value is not valid UTF-8"
	}
	if msg := textProblem(o.Description, prose); msg != "" {
		return ".description " + msg
	}
	switch {
	case strings.TrimLeftFunc(o.Label, showsNothing) == "":
		return " has an empty label"
	case o.Value != "" && blank(o.Value):
		return " has a value of only white space"
	}
	return ""
}

// blank reports whether s is empty or only white space.
func blank(s string) bool {
	return strings.TrimSpace(s) == ""
}

// The kinds of text the human reads, whose rules [Request.Validate] states:
// prose (the question, a description) and names (the header, a label, the
// agent's ID and Name).
const (
	prose = true
	name  = false
)

// textProblem describes the first thing in s that cannot be shown to the
// human, or returns "". It names a character ("holds U+001B") or a byte that
// is not UTF-8, whichever comes first.
func textProblem(s string, isProse bool) string {
	limit := maxNameBytes
	if isProse {
		limit = maxProseBytes
	}
	if len(s) > limit {
		return fmt.Sprintf("is longer than %d bytes", limit)
	}
	prev := rune(-1) // the character before c; -1 at the start
	marks := 0       // the combining marks since the last other character
	for i := 0; i < len(s); {
		// Printable ASCII, most of any text, is allowed. Testing its bytes
		// keeps Ask within twice ContextFloor (.github/CONTRIBUTING.md).
		if ' ' <= s[i] && s[i] < 0x7f {
			prev, marks = rune(s[i]), 0
			i++
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		i += size
		mark := unicode.Is(unicode.M, c)
		switch {
		case c == utf8.RuneError && size == 1:
			return "is not valid UTF-8"
		case hidden(c, isProse):
			return fmt.Sprintf("holds %U", c)
		case !isProse && unicode.Is(blankDrawing, c):
			return fmt.Sprintf("holds %U, which draws blank", c)
		case isJoiner(c) && !(visible(prev) && visible(firstRune(s[i:]))):
			return fmt.Sprintf("holds %U, not between two visible characters", c)
		case mark && unicode.Is(unicode.Variation_Selector, c) && !visible(prev):
			return fmt.Sprintf("holds %U, not after a visible character", c)
		}
		switch {
		case mark:
			marks++
		case !isJoiner(c): // a joiner may stand before a mark (Bengali's ya-phala): it ends no run
			marks = 0
		}
		if marks > maxMarks {
			return fmt.Sprintf("holds more than %d combining marks in a row, at %U", maxMarks, c)
		}
		prev = c
	}
	return ""
}

// hidden reports whether c may never be in a text of the kind, because it
// is outside the allowlist that [Request.Validate] states. A joiner is
// allowed here, and in place only (textProblem).
func hidden(c rune, isProse bool) bool {
	switch {
	case c == '\n' || c == '\t':
		return !isProse
	case isJoiner(c):
		return false
	}
	return !unicode.IsGraphic(c) // L, M, N, P, S and Zs
}

// isJoiner reports whether c is U+200C ZERO WIDTH NON-JOINER or U+200D
// ZERO WIDTH JOINER, which emoji sequences, Indic scripts and Persian need.
func isJoiner(c rune) bool {
	return c == 0x200C || c == 0x200D
}

// visible reports whether c draws, as a letter, mark, number, punctuation or
// symbol does. It is false for -1, the start or end of a text.
func visible(c rune) bool {
	return c >= 0 && unicode.In(c, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
}

// firstRune returns the first character of s, or -1 when s is empty or
// starts with a byte that is not UTF-8.
func firstRune(s string) rune {
	c, size := utf8.DecodeRuneInString(s)
	if size <= 1 && c == utf8.RuneError {
		return -1
	}
	return c
}

// blankDrawing holds the characters that the allowlist lets through but that
// draw as empty space, so that "Yes" and "Yes" with one of them appended look
// the same. It is the list of invisible characters kept at
// invisible-characters.com, less what the allowlist refuses (format and
// control characters), white space (compared as one space) and the
// default-ignorable marks (compared as nothing), plus U+16FE4, a mark that
// draws nothing and is not default-ignorable. Names may not hold them.
// Prose may: a reader sees the gap they leave.
var blankDrawing = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x115F, Hi: 0x1160, Stride: 1}, // HANGUL CHOSEONG FILLER, HANGUL JUNGSEONG FILLER
		{Lo: 0x2800, Hi: 0x2800, Stride: 1}, // BRAILLE PATTERN BLANK
		{Lo: 0x3164, Hi: 0x3164, Stride: 1}, // HANGUL FILLER
		{Lo: 0xFFA0, Hi: 0xFFA0, Stride: 1}, // HALFWIDTH HANGUL FILLER
	},
	R32: []unicode.Range32{
		{Lo: 0x16FE4, Hi: 0x16FE4, Stride: 1}, // KHITAN SMALL SCRIPT FILLER
		{Lo: 0x1D159, Hi: 0x1D159, Stride: 1}, // MUSICAL SYMBOL NULL NOTEHEAD
	},
}

// labelProblem describes the first rule that label, a name that may be
// shown, breaks as a label, or returns "".
func labelProblem(label string) string {
	// A leading mark would draw over whatever a UI writes before the label.
	if c := firstRune(strings.TrimLeftFunc(label, unicode.IsSpace)); unicode.Is(unicode.M, c) {
		return fmt.Sprintf("starts with the combining mark %U", c)
	}
	if i := strings.IndexFunc(label, inDisguise); i >= 0 {
		c, _ := utf8.DecodeRuneInString(label[i:])
		return fmt.Sprintf("holds %U, which draws as a letter or digit in another dress", c)
	}
	return scriptProblem(label)
}

// inDisguise reports whether c draws as an ASCII letter or digit in another
// dress: a mathematical alphanumeric symbol (𝖸), a number form such as a
// Roman numeral (Ⅽ), a letterlike symbol that is a letter (ℂ, K, Å), or an
// enclosed one (Ⓨ, ①, 🅈, ➀). They are Common, so the script rule does not
// see them. "𝖸es" would pass beside "Yes", and boxed letters could spell a
// UI's own badge. Fullwidth forms are not here: labels compare them as the
// ASCII they draw (nextKeyRune).
func inDisguise(c rune) bool {
	switch {
	case 0x1D400 <= c && c <= 0x1D7FF, 0x2150 <= c && c <= 0x218F, 0x2460 <= c && c <= 0x24FF,
		0x2776 <= c && c <= 0x2793, 0x1F100 <= c && c <= 0x1F189:
		return true
	case 0x2100 <= c && c <= 0x214F:
		return unicode.IsLetter(c)
	}
	return false
}

// scriptProblem describes the first word of label whose letters come from
// scripts that a reader might take one for another, or returns "". A word
// is a run of letters, marks, numbers and joiners. Its letters are of one
// script, Common and Inherited aside, or of one set in highlyRestrictive.
// So "Уes" is refused, and "Москва (Moscow)" is two words, each valid.
func scriptProblem(label string) string {
	if isASCII(label) { // Latin and Common only: the fast path of asciiKey
		return ""
	}
	var scripts []string // the scripts of the word so far
	start := 0           // the word's first byte
	for i, c := range label {
		if !inWord(c) {
			scripts, start = scripts[:0], i+utf8.RuneLen(c)
			continue
		}
		sc := scriptOf(c)
		if sc == "" || slices.Contains(scripts, sc) {
			continue
		}
		if scripts = append(scripts, sc); !oneWriting(scripts) {
			word := label[start:]
			if end := strings.IndexFunc(word, func(c rune) bool { return !inWord(c) }); end >= 0 {
				word = word[:end]
			}
			return fmt.Sprintf("mixes %s and %s in the word %s",
				strings.Join(scripts[:len(scripts)-1], ", "), sc, quote(word))
		}
	}
	return ""
}

// inWord reports whether c is a letter, mark, number or joiner, the runes
// of a word. A joiner does not end a word, else "Y", U+200D and "еs" would
// be two words.
func inWord(c rune) bool {
	return isJoiner(c) || unicode.In(c, unicode.L, unicode.M, unicode.N)
}

// highlyRestrictive lists the sets of scripts that one word may mix beside
// a single script, as UTS #39's "Highly Restrictive" level allows. Each is
// how one language writes: Japanese, Chinese, Korean, with Latin.
var highlyRestrictive = [][]string{
	{"Latin", "Han", "Hiragana", "Katakana"},
	{"Latin", "Han", "Bopomofo"},
	{"Latin", "Han", "Hangul"},
}

// oneWriting reports whether one word may mix scripts, the distinct scripts
// of its letters.
func oneWriting(scripts []string) bool {
	if len(scripts) <= 1 {
		return true
	}
	for _, set := range highlyRestrictive {
		if !slices.ContainsFunc(scripts, func(s string) bool { return !slices.Contains(set, s) }) {
			return true
		}
	}
	return false
}

// scriptRange is a run of code points of one script.
type scriptRange struct {
	lo, hi rune
	script string
}

// scriptOf returns the name of c's script in package unicode, or "" for
// the Common and Inherited scripts, which every script uses.
func scriptOf(c rune) string {
	rs := scriptRanges()
	i := sort.Search(len(rs), func(i int) bool { return rs[i].hi >= c })
	if i < len(rs) && rs[i].lo <= c {
		return rs[i].script
	}
	return ""
}

// scriptRanges returns the code points of every script but Common and
// Inherited, as ranges sorted by code point. Package unicode has one table
// per script and no lookup by code point. Trying its 161 tables in turn
// took 0.7 µs a letter, and 24 ms to validate the largest valid request,
// against 2.5 ms with this search (.github/CONTRIBUTING.md).
var scriptRanges = sync.OnceValue(func() []scriptRange {
	var rs []scriptRange
	add := func(lo, hi, stride rune, script string) {
		for ; stride > 1 && lo < hi; lo += stride { // code points with gaps between them
			rs = append(rs, scriptRange{lo, lo, script})
		}
		rs = append(rs, scriptRange{lo, hi, script})
	}
	for script, table := range unicode.Scripts {
		if script == "Common" || script == "Inherited" {
			continue
		}
		for _, r := range table.R16 {
			add(rune(r.Lo), rune(r.Hi), rune(r.Stride), script)
		}
		for _, r := range table.R32 {
			add(rune(r.Lo), rune(r.Hi), rune(r.Stride), script)
		}
	}
	slices.SortFunc(rs, func(a, b scriptRange) int { return int(a.lo - b.lo) })
	return rs
})

// labelKey returns the key by which labels are compared: labels with equal
// keys are the same, as [Request.Validate] says. It is the one comparison
// of labels. Validate's duplicates and a label typed at the [Terminal] both
// use it, so a typed label picks at most one option.
func labelKey(label string) string {
	if isASCII(label) {
		return asciiKey(label)
	}
	var b strings.Builder
	label = strings.TrimFunc(label, showsNothing)
	b.Grow(len(label)) // folding keeps most labels' length
	for c, rest := nextKeyRune(label); c >= 0; c, rest = nextKeyRune(rest) {
		b.WriteRune(c)
	}
	return b.String()
}

// asciiKey is labelKey of an ASCII label, read without Unicode's tables.
// Most labels are ASCII, and Validate is a fifth of what the package adds
// to a served round (.github/CONTRIBUTING.md). Case folds to upper case, as
// nextKeyRune folds an ASCII letter.
func asciiKey(label string) string {
	var b strings.Builder
	b.Grow(len(label))
	space := false // a run of white space since the last character written
	for i := 0; i < len(label); i++ {
		c := label[i]
		switch {
		case c == ' ' || '\t' <= c && c <= '\r':
			space = b.Len() > 0
			continue
		case 'a' <= c && c <= 'z':
			c -= 'a' - 'A'
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// isASCII reports whether s holds only ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// showsNothing reports whether c is white space or default-ignorable.
func showsNothing(c rune) bool {
	return unicode.IsSpace(c) || unicode.Is(defaultIgnorable, c)
}

// nextKeyRune returns the case-folded form of the first rune of s that is
// not default-ignorable, and the rest of s after it. It returns -1 and ""
// when there is none. A run of white space is one ' ', because a human
// cannot tell a no-break or an en space from a space, nor count them. A
// fullwidth form is the ASCII character it draws.
func nextKeyRune(s string) (rune, string) {
	for s != "" {
		c, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		if unicode.Is(defaultIgnorable, c) {
			continue
		}
		if unicode.IsSpace(c) {
			return ' ', strings.TrimLeftFunc(s, showsNothing)
		}
		if 0xFF01 <= c && c <= 0xFF5E { // a fullwidth form, such as Ｙ, reads as the ASCII it draws
			c -= 0xFF01 - '!'
		}
		least := c // one rune for all that simple case folding equates, as strings.EqualFold does
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least, s
	}
	return -1, ""
}

// defaultIgnorable holds Unicode's default-ignorable code points
// (DerivedCoreProperties.txt, Default_Ignorable_Code_Point). A renderer
// shows them as nothing, such as U+200D ZERO WIDTH JOINER, U+034F COMBINING
// GRAPHEME JOINER and the variation selectors. The allowlist lets some
// through (joiners in place, marks). Labels are compared without them.
var defaultIgnorable = &unicode.RangeTable{
	LatinOffset: 1,
	R16: []unicode.Range16{
		{Lo: 0x00AD, Hi: 0x00AD, Stride: 1},
		{Lo: 0x034F, Hi: 0x034F, Stride: 1},
		{Lo: 0x061C, Hi: 0x061C, Stride: 1},
		{Lo: 0x115F, Hi: 0x1160, Stride: 1},
		{Lo: 0x17B4, Hi: 0x17B5, Stride: 1},
		{Lo: 0x180B, Hi: 0x180F, Stride: 1},
		{Lo: 0x200B, Hi: 0x200F, Stride: 1},
		{Lo: 0x202A, Hi: 0x202E, Stride: 1},
		{Lo: 0x2060, Hi: 0x206F, Stride: 1},
		{Lo: 0x3164, Hi: 0x3164, Stride: 1},
		{Lo: 0xFE00, Hi: 0xFE0F, Stride: 1},
		{Lo: 0xFEFF, Hi: 0xFEFF, Stride: 1},
		{Lo: 0xFFA0, Hi: 0xFFA0, Stride: 1},
		{Lo: 0xFFF0, Hi: 0xFFF8, Stride: 1},
	},
	R32: []unicode.Range32{
		{Lo: 0x1BCA0, Hi: 0x1BCA3, Stride: 1},
		{Lo: 0x1D173, Hi: 0x1D17A, Stride: 1},
		{Lo: 0xE0000, Hi: 0xE0FFF, Stride: 1},
	},
}

// ----------------------------------------------------------------------------
// The answer rules: completing and checking an answer

// resolve completes the provider's answer ans to req and checks it, as
// [Answer] documents. It returns the result, or the rule ans breaks.
func resolve(req *Request, ans Answer) (Answer, *brokenRule) {
	if req.MultiSelect && len(req.Options) > 0 {
		return resolveMulti(req, ans)
	}
	return resolveSingle(req, ans)
}

// complete completes and checks o, a provider's outcomes of the questions
// reqs, as [Registry.Ask] does. Each answer passes resolve, each error is
// coded (an uncoded one is PROVIDER_FAILED), and each Via is cut
// (cleanVia). It returns the outcomes up to the first that breaks a rule,
// with that INVALID_ANSWER, as are fewer outcomes than reqs, none an error.
// first is the index of reqs[0] in its AskAll, which the error names, or -1.
// It writes in o's array. An outcome after an error is dropped.
func complete(reqs []Request, o []Outcome, first int) ([]Outcome, error) {
	if len(o) > len(reqs) {
		return nil, invalidAnswer(fmt.Sprintf("%d answers to %d questions", len(o), len(reqs)))
	}
	which := func(i int) string {
		if first < 0 {
			return ""
		}
		return fmt.Sprintf("questions[%d]: ", first+i)
	}
	done := o[:0] // in place
	for i := range o {
		c, broken := checkOutcome(&reqs[i], o[i])
		if broken != nil {
			return done, invalidAnswer(which(i) + broken.why)
		}
		if done = append(done, c); c.Err != nil {
			return done, nil
		}
	}
	if len(done) < len(reqs) {
		return done, invalidAnswer(which(len(done)) + "no answer")
	}
	return done, nil
}

// checkOutcome completes and checks o, the outcome of req, as complete
// does for each.
func checkOutcome(req *Request, o Outcome) (Outcome, *brokenRule) {
	if o.Err != nil {
		return Outcome{Answer: Answer{Via: cleanVia(o.Answer.Via)}, Err: coded(o.Err)}, nil
	}
	ans, broken := resolve(req, o.Answer)
	ans.Via = cleanVia(ans.Via)
	if broken == nil && req.RequireProof && ans.Proof == nil {
		return Outcome{Answer: Answer{Via: ans.Via}, Err: unproven("the UI gave no proof", *req)}, nil
	}
	return Outcome{Answer: ans}, broken
}

// maxVia is the most bytes of an [Answer]'s Via.
const maxVia = 64

// cleanVia returns via as a name that any UI can show: escaped when it
// holds what a shown name may not ([Request.Validate]), and cut to maxVia
// bytes. A Via may come from a remote client, and a human's answer is never
// refused for it.
func cleanVia(via string) string {
	if textProblem(via, false) != "" {
		via = strings.Trim(strconv.QuoteToASCII(via), `"`)
	}
	if len(via) <= maxVia {
		return via
	}
	cut := maxVia - len("…")
	for !utf8.RuneStart(via[cut]) {
		cut--
	}
	return via[:cut] + "…"
}

// A brokenRule is why an answer breaks the rules of [Answer]. It holds what
// the model reads in INVALID_ANSWER, and the line that tells the human what
// to do instead, which a [Form] leads its next form with.
type brokenRule struct {
	why  string // for the model
	hint string // for the human
}

// maxForms is how many responses to one question may break the rules before
// the last is the outcome [CodeInvalidAnswer]. A [Form] sends its form that
// many times, and a [Replay] counts that many refused responses. It lives
// beside the rules, so that neither provider leans on the other.
const maxForms = 3

// notOffered is the brokenRule of a pick of label, which req does not offer.
// A blank label is a pick of nothing, and a request without options has
// nothing to pick. The hint then says what the answer must hold.
func notOffered(req *Request, label string) *brokenRule {
	broken := &brokenRule{why: "option " + quote(label) + " was not offered", hint: pickHint(req)}
	if !blank(label) && len(req.Options) > 0 {
		broken.hint = quote(label) + " is not one of the options: pick one of those listed."
	}
	return broken
}

// notAnOption is the brokenRule of text, own words a request does not allow.
func notAnOption(text string) *brokenRule {
	return &brokenRule{
		why:  quote(text) + " is not one of the offered options",
		hint: "Pick from the options: this question takes no answer of your own.",
	}
}

// pickOne is the brokenRule why of several picks in a single-select answer.
func pickOne(why string) *brokenRule {
	return &brokenRule{why: why, hint: "Pick only one option."}
}

// emptyAnswer is the brokenRule of an answer to req that says nothing.
func emptyAnswer(req *Request) *brokenRule {
	return &brokenRule{why: "the answer is empty", hint: pickHint(req)}
}

// pickHint says what an answer to req must hold.
func pickHint(req *Request) string {
	switch {
	case len(req.Options) == 0:
		return "Type your answer."
	case !req.CustomAllowed() && req.MultiSelect:
		return "Pick at least one option."
	case !req.CustomAllowed():
		return "Pick an option."
	case req.MultiSelect:
		return "Pick at least one option, or type your own answer."
	}
	return "Pick an option, or type your own answer."
}

func resolveSingle(req *Request, ans Answer) (Answer, *brokenRule) {
	switch {
	case len(ans.Options) > 1:
		return Answer{}, pickOne(fmt.Sprintf("%d options picked: the question takes one", len(ans.Options)))
	case len(ans.Options) == 1 && ans.Option != nil && ans.Option.Label != ans.Options[0].Label:
		return Answer{}, pickOne("option " + quote(ans.Option.Label) + " and options " + quote(ans.Options[0].Label) + " disagree")
	case len(ans.Options) == 1:
		ans.Option = &ans.Options[0]
	}
	picked := -1 // the index of the offered option that ans picks
	if ans.Option != nil {
		picked = slices.IndexFunc(req.Options, func(o Option) bool { return o.Label == ans.Option.Label })
		if picked < 0 {
			return Answer{}, notOffered(req, ans.Option.Label)
		}
		text := req.Options[picked].text()
		if ans.Text = cmp.Or(ans.Text, text); ans.Text != text { // an empty Text is the option's
			return Answer{}, &brokenRule{
				why:  "text " + quote(ans.Text) + " disagrees with option " + quote(req.Options[picked].Label),
				hint: pickHint(req),
			}
		}
	} else {
		picked = textIndex(req.Options, ans.Text)
	}
	if blank(ans.Text) {
		return Answer{}, emptyAnswer(req)
	}
	if picked < 0 && !req.CustomAllowed() {
		return Answer{}, notAnOption(ans.Text)
	}
	if picked < 0 {
		return Answer{Text: ans.Text, Via: ans.Via, Proof: ans.Proof}, nil
	}
	o := req.Options[picked]
	return Answer{Text: ans.Text, Option: &o, Via: ans.Via, Proof: ans.Proof}, nil
}

func resolveMulti(req *Request, ans Answer) (Answer, *brokenRule) {
	picks := ans.Options
	if ans.Option != nil {
		// A copy: appending to the provider's slice could write into its array.
		picks = append(slices.Clip(picks), *ans.Option)
	}
	picked := make([]bool, len(req.Options))
	if len(picks) > 0 {
		index := labelIndexes(req.Options)
		for _, o := range picks {
			i, ok := index[o.Label]
			if !ok {
				return Answer{}, notOffered(req, o.Label)
			}
			if picked[i] {
				return Answer{}, &brokenRule{why: "option " + quote(o.Label) + " is picked twice", hint: "Pick each option only once."}
			}
			picked[i] = true
		}
	} else if i := textIndex(req.Options, ans.Text); i >= 0 {
		picked[i] = true
	}
	result := Answer{Via: ans.Via, Proof: ans.Proof}
	var texts []string
	for i, ok := range picked {
		if ok {
			result.Options = append(result.Options, req.Options[i])
			texts = append(texts, req.Options[i].text())
		}
	}
	result.Text = strings.Join(texts, ", ")
	if own := ownWords(ans.Text, result.Text); !blank(own) {
		if !req.CustomAllowed() {
			return Answer{}, notAnOption(own)
		}
		result.Text = strings.Join(append(texts, own), ", ")
	}
	if blank(result.Text) {
		return Answer{}, emptyAnswer(req)
	}
	return result, nil
}

// ownWords returns the human's own words in text, the Text of a MultiSelect
// answer whose picks' values join to join. It returns none when text is the
// join, and the rest when text starts with the join and ", " (an answer Ask
// already completed). Else it returns all of text.
func ownWords(text, join string) string {
	switch {
	case text == join:
		return ""
	case join != "":
		return strings.TrimPrefix(text, join+", ")
	}
	return text
}

// labelIndexes returns the index of each option by its label.
func labelIndexes(opts []Option) map[string]int {
	index := make(map[string]int, len(opts))
	for i, o := range opts {
		index[o.Label] = i
	}
	return index
}

// textIndex returns the index of the first option whose value is text, or -1.
func textIndex(opts []Option, text string) int {
	return slices.IndexFunc(opts, func(o Option) bool { return o.text() == text })
}

// ----------------------------------------------------------------------------
// Wire shapes: JSON, and the canonical JSON of question IDs

// wireRequest is the JSON shape of a Request.
type wireRequest struct {
	Question    string   `json:"question"`
	Header      string   `json:"header,omitempty"`
	Options     []Option `json:"options,omitempty"`
	AllowCustom *bool    `json:"allowCustom,omitempty"`
	MultiSelect bool     `json:"multiSelect,omitempty"`
	Agent       *Agent   `json:"agent,omitempty"`
	Proof       bool     `json:"requireProof,omitempty"`
}

// decode decodes data into w, through a local type named Request, so that
// decoding errors name the type the caller decodes into, not wireRequest.
func (w *wireRequest) decode(data []byte) error {
	type Request wireRequest
	return json.Unmarshal(data, (*Request)(w))
}

// MarshalJSON encodes r as {"question", "header"?, "options"?,
// "allowCustom"?, "multiSelect"?, "agent"?, "requireProof"?}, without empty fields.
// "allowCustom" appears only as false, when DisallowCustom is set, and
// "multiSelect" only as true. So Request{Question: "q"} encodes as
// {"question":"q"}.
func (r Request) MarshalJSON() ([]byte, error) { return json.Marshal(r.wire()) }

// wire returns r's JSON shape, which Pending's JSON holds as it is.
func (r *Request) wire() wireRequest {
	w := wireRequest{Question: r.Question, Header: r.Header, Options: r.Options, MultiSelect: r.MultiSelect, Agent: r.Agent, Proof: r.RequireProof}
	if r.DisallowCustom {
		w.AllowCustom = new(bool) // false
	}
	return w
}

// appendCanonical appends r's wire shape, as MarshalJSON encodes it, to buf
// in the canonical form of RFC 8785 (JSON Canonicalization Scheme). Keys are
// sorted, there is no white space, and strings are escaped as ECMAScript's
// JSON.stringify escapes them. Any language computes the same text, as
// JSON.stringify of the wire shape with its keys sorted. Request's wire
// shape holds only strings, booleans, objects and arrays. It has no numbers,
// whose canonical form is the hard part. r must be valid (see
// appendCanonicalString).
//
// The keys are written in sorted order by hand. "question" is always present,
// and only "requireProof" sorts after it.
func appendCanonical(buf []byte, r *Request) []byte {
	buf = append(buf, '{')
	if a := r.Agent; a != nil {
		buf = append(buf, `"agent":{`...)
		if a.ID != "" {
			buf = appendCanonicalString(append(buf, `"id":`...), a.ID)
		}
		if a.ID != "" && a.Name != "" {
			buf = append(buf, ',')
		}
		if a.Name != "" {
			buf = appendCanonicalString(append(buf, `"name":`...), a.Name)
		}
		buf = append(buf, "},"...)
	}
	if r.DisallowCustom {
		buf = append(buf, `"allowCustom":false,`...)
	}
	if r.Header != "" {
		buf = appendCanonicalString(append(buf, `"header":`...), r.Header)
		buf = append(buf, ',')
	}
	if r.MultiSelect {
		buf = append(buf, `"multiSelect":true,`...)
	}
	if len(r.Options) > 0 {
		buf = append(buf, `"options":[`...)
		for i := range r.Options {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendCanonicalOption(buf, &r.Options[i])
		}
		buf = append(buf, "],"...)
	}
	buf = appendCanonicalString(append(buf, `"question":`...), r.Question)
	if r.RequireProof {
		buf = append(buf, `,"requireProof":true`...)
	}
	return append(buf, '}')
}

// appendCanonicalOption appends o to buf as appendCanonical does. "label" is
// always present, so the field before it ends with a comma and the fields
// after it start with one.
func appendCanonicalOption(buf []byte, o *Option) []byte {
	buf = append(buf, '{')
	if o.Description != "" {
		buf = appendCanonicalString(append(buf, `"description":`...), o.Description)
		buf = append(buf, ',')
	}
	buf = appendCanonicalString(append(buf, `"label":`...), o.Label)
	if o.Recommended {
		buf = append(buf, `,"recommended":true`...)
	}
	if o.Value != "" {
		buf = appendCanonicalString(append(buf, `,"value":`...), o.Value)
	}
	return append(buf, '}')
}

// appendCanonicalString appends s to buf as a JSON string the way
// JSON.stringify writes it. It escapes \" \\ \b \f \n \r \t, writes other
// control characters as \u00xx, and copies everything else, < > & and
// U+2028 included, as it is, and so the bytes of multi-byte characters. s
// must be valid UTF-8, as Validate ensures.
func appendCanonicalString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	start := 0 // s[start:i] needs no escape: it is appended in one piece
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		buf = append(buf, s[start:i]...)
		start = i + 1
		if j := strings.IndexByte("\"\\\b\f\n\r\t", c); j >= 0 {
			buf = append(buf, '\\', `"\bfnrt`[j])
		} else {
			buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// UnmarshalJSON decodes r from the JSON of [Request.MarshalJSON], replacing
// every field. An absent "allowCustom" means true. Unknown keys are ignored,
// and an empty "options" is nil. JSON null leaves r unchanged. Decoding does
// not validate ([Request.Validate]).
func (r *Request) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var w wireRequest
	if err := w.decode(data); err != nil {
		return err
	}
	*r = Request{Question: w.Question, Header: w.Header, Options: w.Options, DisallowCustom: w.AllowCustom != nil && !*w.AllowCustom,
		MultiSelect: w.MultiSelect, Agent: w.Agent, RequireProof: w.Proof}
	if len(r.Options) == 0 {
		r.Options = nil
	}
	return nil
}

// isNull reports whether data is the JSON null, with any white space around it.
func isNull(data []byte) bool {
	return string(bytes.TrimSpace(data)) == "null"
}

// UnmarshalJSON decodes a from {"answer", "option"?, "options"?, "via"?, "proof"?},
// replacing every field. An empty "options" is nil, and JSON null leaves a
// unchanged.
func (a *Answer) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var w Answer
	type answer Answer // w without its methods, so Unmarshal does not call this one
	type Answer answer // so that decoding errors name Answer
	if err := json.Unmarshal(data, (*Answer)(&w)); err != nil {
		return err
	}
	*a = w
	if len(a.Options) == 0 {
		a.Options = nil
	}
	return nil
}

// wireOutcome is the JSON shape of an Outcome.
type wireOutcome struct {
	Answer *Answer       `json:"answer,omitempty"`
	Error  *HarnessError `json:"error,omitempty"`
	Via    string        `json:"via,omitempty"` // beside an error
}

// MarshalJSON encodes o as {"answer": {...}} or {"error": {"name", "code",
// "message"}, "via"?}. An Err without a code is written as the
// [CodeProviderFailed] that [Registry.Ask] would return for it.
func (o Outcome) MarshalJSON() ([]byte, error) {
	if o.Err != nil {
		return json.Marshal(wireOutcome{Error: codedError(o.Err), Via: o.Answer.Via})
	}
	return json.Marshal(wireOutcome{Answer: &o.Answer})
}

// UnmarshalJSON decodes o from the JSON of [Outcome.MarshalJSON], replacing
// every field. An error named "UserInteractionError" decodes as a
// *UserInteractionError, any other as a *HarnessError. Both an answer and an
// error, or neither, is an error.
func (o *Outcome) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var w wireOutcome
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	switch {
	case (w.Answer == nil) == (w.Error == nil):
		return errors.New(`userinteraction: Outcome: want one of "answer" and "error"`)
	case w.Error != nil:
		*o = Outcome{Answer: Answer{Via: w.Via}, Err: w.Error.asError()}
	default:
		*o = Outcome{Answer: *w.Answer}
	}
	return nil
}

// ----------------------------------------------------------------------------
// Wire shapes: the form elicitation

// Elicitation is a [Request] as the params of a form-mode
// elicitation/create, which MCP and ACP clients render as a form. For ACP,
// embed it in a struct beside fields tagged "sessionId" and
// "toolCallId,omitempty".
//
// Mode is "form". Message is the question, then a line "Label: description"
// for each option with a description. RequestedSchema is the form. It has a
// property "choice" when there are options, and "text" when
// [Request.CustomAllowed]. A form with one property requires it, and a form
// with both requires neither. [Request.Elicitation] says what each takes.
type Elicitation struct {
	Mode            string         `json:"mode"`
	Message         string         `json:"message"`
	RequestedSchema map[string]any `json:"requestedSchema"`
}

// Elicitation returns r as a form elicitation, in time linear in r's size.
// Map the response back with [ElicitationAnswer].
//
// The form's "choice" takes labels in untitled enums, which every protocol
// version with forms shows as choices. For a single-select request it is a
// string, defaulting to the recommended label. For a MultiSelect request it
// is an array of distinct labels. Without "text", that array needs a pick
// and defaults to the recommended labels.
//
// The form's "text" takes the human's own words. Beside options it is titled
// "Other". Alone it has the Header as title and needs a character.
func (r Request) Elicitation() Elicitation {
	// A Builder: += would copy the message for every option, in time
	// quadratic in their number.
	var message strings.Builder
	message.WriteString(r.Question)
	for _, o := range r.Options {
		if o.Description != "" {
			message.WriteString("\n" + o.Label + ": " + oneLine(o.Description))
		}
	}
	properties := map[string]any{}
	schema := map[string]any{"type": "object", "properties": properties}
	switch {
	case len(r.Options) == 0:
		text := map[string]any{"type": "string", "minLength": 1}
		if r.Header != "" {
			text["title"] = r.Header
		}
		properties["text"] = text
		schema["required"] = []string{"text"}
	case r.CustomAllowed():
		properties["choice"] = r.choiceSchema()
		properties["text"] = map[string]any{"type": "string", "title": "Other"}
	default:
		properties["choice"] = r.choiceSchema()
		schema["required"] = []string{"choice"}
	}
	return Elicitation{Mode: "form", Message: message.String(), RequestedSchema: schema}
}

// oneLine returns s, a description, on one line, its words separated by
// single spaces. A description is shown beside its option, and its line
// feeds could otherwise forge the lines of other options.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// choiceSchema returns the "choice" property of r's form, for a request with
// options. It uses "enum", not a titled "oneOf". A client of 2025-06-18
// shows a "oneOf" as a text box, and has no array of titled items.
func (r Request) choiceSchema() map[string]any {
	labels := make([]string, len(r.Options))
	var recommended []string
	for i, o := range r.Options {
		labels[i] = o.Label
		if o.Recommended {
			recommended = append(recommended, o.Label)
		}
	}
	choice := map[string]any{"type": "string", "enum": labels}
	if r.MultiSelect {
		choice = map[string]any{
			"type":        "array",
			"items":       map[string]any{"type": "string", "enum": labels},
			"uniqueItems": true,
		}
	}
	if r.Header != "" {
		choice["title"] = r.Header
	}
	switch {
	case !r.MultiSelect && len(recommended) > 0:
		choice["default"] = recommended[0]
	case r.MultiSelect && !r.CustomAllowed():
		// Only here: beside "text", "choice" is optional, and clients fill a
		// default into an optional field the human left empty. That would
		// add picks to an answer the human typed.
		choice["minItems"] = 1
		if len(recommended) > 0 {
			choice["default"] = recommended
		}
	}
	return choice
}

// ElicitationAnswer maps a response to a form of [Request.Elicitation] to
// what a provider returns. It needs no request, so a host can map a response
// after its request is gone.
//
// With "accept", an array "choice" of strings, as []any or []string, gives
// [Pick] of those labels, with "text" as Text. A string "choice" gives the
// Option so labelled, unless "text" is not blank: typed text wins over a
// client's default. Else the answer is Answer{Text: text}. "decline" is
// [CodeAskDeclined], and "cancel" is [CodeAskCancelled]. Another action, or
// a "choice" or "text" of another type, is [CodeInvalidAnswer] naming it.
func ElicitationAnswer(action string, content map[string]any) (Answer, error) {
	switch action {
	case "decline":
		return Answer{}, NewError(CodeAskDeclined, "the user declined to answer", nil)
	case "cancel":
		return Answer{}, NewError(CodeAskCancelled, "the user dismissed the question", nil)
	}
	// Bad shapes are INVALID_ANSWER: the client broke the form, not the
	// human.
	if action != "accept" {
		return Answer{}, invalidAnswer("unknown elicitation action " + quote(action))
	}
	text, ok := content["text"].(string)
	if !ok && content["text"] != nil {
		return Answer{}, invalidAnswer(`"text" is ` + jsonType(content["text"]) + `, not a string`)
	}
	var picks []Option // sized once: a client may send any number of picks
	switch choice := content["choice"].(type) {
	case nil:
		return Answer{Text: text}, nil
	case string:
		if !blank(text) {
			return Answer{Text: text}, nil
		}
		return Answer{Option: &Option{Label: choice}}, nil
	case []string:
		if len(choice) > 0 {
			picks = make([]Option, len(choice))
		}
		for i, label := range choice {
			picks[i].Label = label
		}
	case []any:
		if len(choice) > 0 {
			picks = make([]Option, len(choice))
		}
		for i, v := range choice {
			if picks[i].Label, ok = v.(string); !ok {
				return Answer{}, invalidAnswer(fmt.Sprintf(`"choice"[%d] is %s, not a string`, i, jsonType(v)))
			}
		}
	default:
		return Answer{}, invalidAnswer(`"choice" is ` + jsonType(choice) + `, not a string or an array of strings`)
	}
	return Answer{Text: text, Options: picks}, nil
}

// jsonType names the JSON type of v, a value of decoded JSON, for messages.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64, json.Number, int:
		return "a number"
	case string:
		return "a string"
	case []any, []string:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}

// ----------------------------------------------------------------------------
// Proof: an answer's receipt, and its offline check

// Receipt is a passkey's (WebAuthn) assertion that a human gave an [Answer],
// with what it signed. Each field is base64url without padding.
type Receipt struct {
	Credential        string `json:"credential"`        // the passkey's credential ID
	Signed            string `json:"signed"`            // RFC 8785 JSON {"nonce", "questions": [{"id", "request", "answer": {"labels", "text"}}]}; its SHA-256 is the challenge
	ClientData        string `json:"clientData"`        // the clientDataJSON
	AuthenticatorData string `json:"authenticatorData"` // the authenticator data
	Signature         string `json:"signature"`         // over AuthenticatorData and ClientData's SHA-256; ES256's (r, s) and (r, n-s) both verify
}

// VerifyProof checks offline that ans.Proof proves a human gave ans (as Ask
// returned it, Via aside) to req, against keys: [{"credential", "publicKey"
// (SPKI DER: ES256, Ed25519), "relyingParty", "counter"?}], where a credential's first
// entry counts. A receipt of an equal request asked before verifies too: nonces
// and counters are the Inbox's online checks. A failure is [CodeInvalidAnswer].
func VerifyProof(keys []byte, req Request, ans Answer) error {
	if _, _, why := verifyProof(keys, req, ans, ""); why != "" {
		return invalidAnswer("proof: " + why)
	}
	return nil
}

// verifyProof returns the nonce and counter of ans.Proof, which proves ans to
// req as question id ("": any), else why it does not.
func verifyProof(keys []byte, req Request, ans Answer, id string) (nonce string, counter uint32, why string) {
	fail := func(why string) (string, uint32, string) { return "", 0, why }
	hash := func(b []byte) []byte { sum := sha256.Sum256(b); return sum[:] }
	p, raw, want := ans.Proof, [4][]byte{}, appendCanonical(nil, &req)
	if p == nil {
		return fail("the answer has no receipt")
	}
	for i, f := range [...]string{p.Signed, p.ClientData, p.AuthenticatorData, p.Signature} {
		var err error
		if raw[i], err = base64.RawURLEncoding.Strict().DecodeString(f); err != nil || strings.ContainsAny(f, "\r\n") {
			return fail([...]string{"signed", "clientData", "authenticatorData", "signature"}[i] + " is not base64url")
		}
	}
	signed, client, auth, sig := raw[0], raw[1], raw[2], raw[3]
	var accepted []map[string]any       // keys read exactly, not in any case as a struct's
	_ = json.Unmarshal(keys, &accepted) // unreadable: none accepted
	i := slices.IndexFunc(accepted, func(k map[string]any) bool { return k["credential"] == p.Credential })
	if i < 0 {
		return fail("credential " + quote(p.Credential) + " is no accepted passkey")
	}
	spki, _ := accepted[i]["publicKey"].(string)
	rp, _ := accepted[i]["relyingParty"].(string)
	key := passkeyOf(spki)
	ec, isEC := key.(*ecdsa.PublicKey)
	ed, isEd := key.(ed25519.PublicKey)
	msg := slices.Concat(auth, hash(client)) // what the passkey signed
	var c struct{ Type, Challenge, Origin string }
	_ = json.Unmarshal(client, &c) // unreadable: no type
	var bound struct {
		Nonce     string
		Questions []struct {
			ID      string
			Request Request
			Answer  struct {
				Labels []string
				Text   string
			}
		}
	}
	_ = json.Unmarshal(signed, &bound) // unreadable: no nonce
	ids, reqs, labels, texts := []string{}, []Request{}, [][]string{}, []string{}
	for _, q := range bound.Questions {
		ids, reqs, labels, texts = append(ids, q.ID), append(reqs, q.Request), append(labels, q.Answer.Labels), append(texts, q.Answer.Text)
	}
	switch {
	case !(isEC && ecdsa.VerifyASN1(ec, hash(msg), sig) || isEd && ed25519.Verify(ed, msg, sig)):
		return fail("the signature does not verify by an ES256 or Ed25519 key")
	case c.Type != "webauthn.get" || c.Challenge != base64.RawURLEncoding.EncodeToString(hash(signed)):
		return fail("the client data is no assertion whose challenge is the SHA-256 of the signed bytes")
	case !fromRP(c.Origin, rp):
		return fail("the origin " + quote(c.Origin) + " is not the relying party's")
	case len(auth) < 37 || !bytes.Equal(auth[:32], hash([]byte(rp))) || auth[32]&(userPresent|userVerified) != userPresent|userVerified:
		return fail("the authenticator data is not the relying party's with the user present and verified")
	case bound.Nonce == "" || !bytes.Equal(signedBytes(bound.Nonce, ids, reqs, labels, texts), signed): // JSON read in any case, or a key twice
		return fail("the signed bytes are not the JSON of a nonce and questions, in canonical form")
	}
	ans.Via, ans.Proof = "", nil // as given, completed, but for what is not signed
	for i, q := range bound.Questions {
		if !bytes.Equal(appendCanonical(nil, &reqs[i]), want) || id != "" && q.ID != id {
			continue // only an entry of req costs a check: the work is linear
		}
		sent := Answer{Text: q.Answer.Text}
		for _, l := range q.Answer.Labels {
			sent.Options = append(sent.Options, Option{Label: l})
		}
		if done, no := resolve(&req, sent); no == nil && reflect.DeepEqual(done, ans) {
			return bound.Nonce, binary.BigEndian.Uint32(auth[33:37]), ""
		}
	}
	return fail("no question it signed is this request with this answer")
}

// fromRP reports whether origin is relying party rp's: https, or http on localhost, at rp or under it.
func fromRP(origin, rp string) bool {
	u, err := url.Parse(origin)
	return rp != "" && err == nil && (u.Scheme == "https" || u.Scheme == "http" && rp == "localhost") && (u.Hostname() == rp || strings.HasSuffix(u.Hostname(), "."+rp))
}

// passkeyOf returns the P-256 ECDSA or Ed25519 key of spki, base64url SPKI DER, or nil.
func passkeyOf(spki string) any {
	der, _ := base64.RawURLEncoding.Strict().DecodeString(spki)
	k, _ := x509.ParsePKIXPublicKey(der)
	if ec, _ := k.(*ecdsa.PublicKey); ec != nil && ec.Params().Name == "P-256" || reflect.TypeOf(k) == reflect.TypeFor[ed25519.PublicKey]() {
		return k
	}
	return nil
}

// The flags of WebAuthn's authenticator data that VerifyProof requires, and Enroll with attested.
const userPresent, userVerified, attested = 0x01, 0x04, 0x40

// signedBytes returns what a passkey signs for the answers sent to a batch
// (Receipt.Signed, decoded): the RFC 8785 JSON of nonce and each question's
// ID, request, labels picked and text typed. reqs must be valid.
func signedBytes(nonce string, ids []string, reqs []Request, labels [][]string, texts []string) []byte {
	buf := append(appendCanonicalString([]byte(`{"nonce":`), nonce), `,"questions":[`...)
	for i := range reqs { // each label and question followed by a comma, the last one's dropped
		buf = append(buf, `{"answer":{"labels":[`...)
		for _, label := range labels[i] {
			buf = append(appendCanonicalString(buf, label), ',')
		}
		buf = appendCanonicalString(append(bytes.TrimSuffix(buf, []byte(",")), `],"text":`...), texts[i])
		buf = appendCanonicalString(append(buf, `},"id":`...), ids[i])
		buf = append(appendCanonical(append(buf, `,"request":`...), &reqs[i]), "},"...)
	}
	return append(bytes.TrimSuffix(buf, []byte(",")), "]}"...)
}

// unproven is the ASK_UNSUPPORTED of a UI that cannot prove an answer, as why
// says, when one of reqs requires proof. An empty why refuses none.
func unproven(why string, reqs ...Request) error {
	if why == "" || !slices.ContainsFunc(reqs, func(r Request) bool { return r.RequireProof }) {
		return nil
	}
	return NewError(CodeAskUnsupported, "ask unsupported: the question requires proof that a human answered, and "+why, nil)
}
