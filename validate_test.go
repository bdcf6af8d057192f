package userinteraction_test

import (
	"fmt"
	"strings"
	"testing"

	ui "github.com/dsh-go/userinteraction"
)

// label returns a request that offers one option with label l.
func label(l string) ui.Request {
	return ui.Request{Question: "q", Options: []ui.Option{{Label: l}}}
}

// TestValidateAllowlist: every rule of what a shown text may hold, with
// text that each rule accepts and text that it refuses.
func TestValidateAllowlist(t *testing.T) {
	tests := []struct {
		name string
		req  ui.Request
		want string // "" for valid, else a fragment of the message
	}{
		// Letters, marks, numbers, punctuation, symbols, spaces.
		{"emoji ZWJ sequence", ui.Request{Question: "q", Header: "👩\u200d💻", Options: []ui.Option{{Label: "👩\u200d💻 coder"}, {Label: "👨\u200d👩\u200d👧"}}}, ""},
		{"emoji with a skin tone", label("👍🏽"), ""},
		{"rainbow flag: VS16 then ZWJ", label("🏳\ufe0f\u200d🌈"), ""},
		{"flags", ui.Request{Question: "q", Options: []ui.Option{{Label: "🇺🇸"}, {Label: "🇯🇵"}}}, ""},
		{"keycaps with FE0F", ui.Request{Question: "q", Options: []ui.Option{{Label: "1\ufe0f\u20e3"}, {Label: "#\ufe0f\u20e3"}}}, ""},
		{"Hindi with ZWJ and ZWNJ", ui.Request{Question: "क्\u200cष?", Options: []ui.Option{{Label: "क्\u200dष"}, {Label: "मैं\u200cने"}}}, ""},
		{"ZWJ and ZWNJ are the same label", ui.Request{Question: "q", Options: []ui.Option{{Label: "क्\u200dष"}, {Label: "क्\u200cष"}}}, "have the same label"},
		{"Persian with ZWNJ", label("می\u200cخواهم"), ""},
		{"Bengali ya-phala after ra: a joiner before a virama", label("র\u200d\u09cd\u09af\u09be\u09ac"), ""},
		{"ideographic variation sequence", label("葛\U000E0100"), ""},
		{"accents, combining and not", ui.Request{Question: "q", Options: []ui.Option{{Label: "café"}, {Label: "cafe\u0301s"}}}, ""},
		{"four combining marks", label("a\u0301\u0302\u0303\u0304"), ""},
		{"no-break and ideographic spaces", label("Keep\u00a0all\u3000now"), ""},
		{"Braille blank in prose", ui.Request{Question: "⠀⠁ art", Options: []ui.Option{{Label: "a", Description: "⠀"}}}, ""},
		{"line feed and tab in prose", ui.Request{Question: "a\n\tb", Options: []ui.Option{{Label: "a", Description: "c\n\td"}}}, ""},
		{"anything valid in a value", ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Value: "\x00\x1b[2J\u202e\u2028\ue000\U000E0041"}}}, ""},
		// Everything else is refused.
		{"soft hyphen in a label", label("de\u00adlete"), "options[0].label holds U+00AD"},
		{"soft hyphen in the question", ui.Request{Question: "de\u00adlete?"}, "question holds U+00AD"},
		{"zero width space", label("Ye\u200bs"), "options[0].label holds U+200B"},
		{"BOM in a description", ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Description: "\ufeffx"}}}, "options[0].description holds U+FEFF"},
		{"interlinear annotation in the question", ui.Request{Question: "a\ufff9b\ufffac\ufffb"}, "question holds U+FFF9"},
		{"Arabic number sign", ui.Request{Question: "\u0600\u0661"}, "question holds U+0600"},
		{"Arabic end of ayah", label("\u06dd1"), "options[0].label holds U+06DD"},
		{"Kaithi number sign", ui.Request{Question: "q", Header: "\U000110BD1"}, "header holds U+110BD"},
		{"Egyptian hieroglyph joiner", label("\U00013000\U00013430\U00013001"), "options[0].label holds U+13430"},
		{"tag characters", label("🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F"), "options[0].label holds U+E0067"},
		{"tag in the question", ui.Request{Question: "hi\U000E0041"}, "question holds U+E0041"},
		{"private use", label("\ue000"), "options[0].label holds U+E000"},
		{"supplementary private use", ui.Request{Question: "\U000F0000"}, "question holds U+F0000"},
		{"unassigned", label("a\u0378"), "options[0].label holds U+0378"},
		{"noncharacter", ui.Request{Question: "q\uffff"}, "question holds U+FFFF"},
		{"line separator in the question", ui.Request{Question: "a\u2028b"}, "question holds U+2028"},
		{"paragraph separator in a description", ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Description: "\u2029"}}}, "options[0].description holds U+2029"},
		{"line feed in the agent's name", ui.Request{Question: "q", Agent: &ui.Agent{Name: "a\nb"}}, "agent.name holds U+000A"},
		{"tab in the agent's ID", ui.Request{Question: "q", Agent: &ui.Agent{ID: "a\tb"}}, "agent.id holds U+0009"},
		{"ESC in the agent's name", ui.Request{Question: "q", Agent: &ui.Agent{Name: "\x1b"}}, "agent.name holds U+001B"},
		{"invalid UTF-8 in the agent's ID", ui.Request{Question: "q", Agent: &ui.Agent{ID: "\xff"}}, "agent.id is not valid UTF-8"},
		{"first problem by position", ui.Request{Question: "a\u200bb\x1b"}, "question holds U+200B"},
		// Joiners between two visible characters, variation selectors after one.
		{"joiner at the start", label("\u200dab"), "options[0].label holds U+200D, not between two visible characters"},
		{"joiner at the end", label("ab\u200c"), "options[0].label holds U+200C, not between"},
		{"joiner before a space", ui.Request{Question: "a\u200d b"}, "question holds U+200D, not between"},
		{"joiner after a space", ui.Request{Question: "a \u200db"}, "question holds U+200D, not between"},
		{"a joiner ends no run of marks", ui.Request{Question: "a\u0301\u0301\u0301\u0301\u200d\u0301"}, "question holds more than 4 combining marks in a row, at U+0301"},
		{"two joiners", label("a\u200d\u200db"), "options[0].label holds U+200D, not between"},
		{"joiner before invalid UTF-8", ui.Request{Question: "a\u200d\xff"}, "question holds U+200D, not between"},
		{"variation selector at the start", ui.Request{Question: "\ufe0fa"}, "question holds U+FE0F, not after a visible character"},
		{"variation selector after a space", label("a \ufe0f"), "options[0].label holds U+FE0F, not after"},
		{"variation selector after a line feed", ui.Request{Question: "a\n\U000E0100"}, "question holds U+E0100, not after"},
		// Combining marks: at most 4 after one character; none to start a label.
		{"five combining marks", label("a\u0301\u0302\u0303\u0304\u0305"), "options[0].label holds more than 4 combining marks in a row, at U+0305"},
		{"five marks in the question", ui.Request{Question: "Zalgo" + strings.Repeat("\u0336", 5)}, "question holds more than 4 combining marks"},
		{"five marks counting a variation selector", ui.Request{Question: "✔\u0301\u0301\u0301\u0301\ufe0f"}, "question holds more than 4 combining marks"},
		{"label starting with a mark", label("\u0301a"), "options[0].label starts with the combining mark U+0301"},
		{"label starting with a mark after spaces", label(" \u20dd"), "options[0].label starts with the combining mark U+20DD"},
		{"a mark after a space inside", label("a \u0301b"), ""},
		// Characters that draw blank: not in names.
		{"label of a Braille blank", label("\u2800"), "options[0].label holds U+2800, which draws blank"},
		{"Hangul filler in the header", ui.Request{Question: "q", Header: "h\u3164"}, "header holds U+3164, which draws blank"},
		{"halfwidth Hangul filler", label("a\uffa0"), "options[0].label holds U+FFA0"},
		{"Hangul choseong filler", label("\u115f"), "options[0].label holds U+115F"},
		{"Hangul jungseong filler", label("\u1160"), "options[0].label holds U+1160"},
		{"Khitan filler after punctuation", label("OK!\U00016FE4"), "options[0].label holds U+16FE4"},
		{"null notehead in the agent's name", ui.Request{Question: "q", Agent: &ui.Agent{Name: "coder\U0001D159"}}, "agent.name holds U+1D159"},
		{"label of spaces only", label("\u3000\u00a0"), "options[0] has an empty label"},
		// No word of a label mixes scripts.
		{"Cyrillic У in a Latin word", label("Уes"), `options[0].label mixes Cyrillic and Latin in the word "Уes"`},
		{"a joiner does not end a word", label("Y\u200dеs"), "options[0].label mixes Latin and Cyrillic"},
		{"Greek omicron in a Latin word", label("Yes, dοne"), `mixes Latin and Greek in the word "dοne"`},
		{"a Khmer mark on a Latin letter", label("a\u17b4b"), "mixes Latin and Khmer"},
		{"Latin and Hangul beside Cyrillic", label("한a漢д"), "mixes Hangul, Latin, Han and Cyrillic"},
		{"Kana and Hangul in one word", label("カ한"), "mixes Katakana and Hangul"},
		{"two words in two scripts", label("Москва (Moscow)"), ""},
		{"Japanese with Latin", ui.Request{Question: "q", Options: []ui.Option{{Label: "東京タワー Tower"}, {Label: "Tシャツ"}, {Label: "ひらがなカタカナ漢字abc"}}}, ""},
		{"Chinese with Bopomofo and Latin", label("ㄅㄆ中文abc"), ""},
		{"Korean with Han and Latin", label("K팝漢字"), ""},
		{"digits and marks of common scripts", label("Ελλάδα 2024 ✓"), ""},
		{"scripts mix in prose", ui.Request{Question: "Уes?", Header: "Уes", Options: []ui.Option{{Label: "a", Description: "Уes"}}}, ""},
		// No letter or digit of a label in another dress; fullwidth forms
		// are the ASCII they draw.
		{"mathematical sans-serif Y", label("𝖸es"), "options[0].label holds U+1D5B8, which draws as a letter or digit in another dress"},
		{"mathematical bold digit", label("Port 𝟖080"), "options[0].label holds U+1D7D6"},
		{"Roman numeral C", label("Ⅽancel"), "options[0].label holds U+216D"},
		{"a fraction of the number forms", label("⅓ off"), "options[0].label holds U+2153"},
		{"double-struck C", label("ℂlose"), "options[0].label holds U+2102"},
		{"Kelvin sign", label("\u212aeep"), "options[0].label holds U+212A"},
		{"Angstrom sign", label("\u212Bngström"), "options[0].label holds U+212B"},
		{"letterlike symbols that are no letter", label("№ 5 ℃ ℅ ™"), ""},
		{"squared letters spelling a badge", label("Keep 🅁🄴🄲"), "options[0].label holds U+1F141"},
		{"circled letter", label("Ⓨes"), "options[0].label holds U+24CE"},
		{"circled digit", label("Step ①"), "options[0].label holds U+2460"},
		{"dingbat circled digit", label("➀ first"), "options[0].label holds U+2780"},
		{"emoji beside enclosed ones stay", ui.Request{Question: "q", Options: []ui.Option{{Label: "🆗"}, {Label: "🇺🇸"}, {Label: "🆎"}}}, ""},
		{"in another dress in prose and the header", ui.Request{Question: "𝖸es?", Header: "Ⅽ", Options: []ui.Option{{Label: "a", Description: "ℂ"}}}, ""},
		{"fullwidth letters", ui.Request{Question: "q", Options: []ui.Option{{Label: "Ｙｅｓ"}, {Label: "Ｎｏ"}}}, ""},
		{"fullwidth duplicates ASCII", ui.Request{Question: "q", Options: []ui.Option{{Label: "Yes"}, {Label: "Ｙｅｓ"}}}, `options[0] and options[1] have the same label "Ｙｅｓ"`},
		{"fullwidth digits and case", ui.Request{Question: "q", Options: []ui.Option{{Label: "port 8080"}, {Label: "PORT ８０８０"}}}, "options[0] and options[1] have the same label"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantValidate(t, tt.req, tt.want) })
	}
}

// TestValidateSizes: each limit accepts a text of its size and refuses one
// byte more, naming the limit.
func TestValidateSizes(t *testing.T) {
	options := func(n int) []ui.Option {
		opts := make([]ui.Option, n)
		for i := range opts {
			opts[i].Label = fmt.Sprint(i)
		}
		return opts
	}
	name, prose := strings.Repeat("é", 128), strings.Repeat("a", 16<<10) // 256 bytes, 16 KiB
	tests := []struct {
		name string
		req  ui.Request
		want string
	}{
		{"1,000 options", ui.Request{Question: "q", Options: options(1000)}, ""},
		{"1,001 options", ui.Request{Question: "q", Options: options(1001)}, "invalid request: 1001 options, at most 1000"},
		{"label of 256 bytes", label(name), ""},
		{"label of 257 bytes", label(name + "x"), "options[0].label is longer than 256 bytes"},
		{"header of 257 bytes", ui.Request{Question: "q", Header: name + "x"}, "header is longer than 256 bytes"},
		{"agent's name of 257 bytes", ui.Request{Question: "q", Agent: &ui.Agent{Name: name + "x"}}, "agent.name is longer than 256 bytes"},
		{"agent's ID of 257 bytes", ui.Request{Question: "q", Agent: &ui.Agent{ID: name + "x"}}, "agent.id is longer than 256 bytes"},
		{"question of 16 KiB", ui.Request{Question: prose}, ""},
		{"question of 16 KiB and a byte", ui.Request{Question: prose + "?"}, "question is longer than 16384 bytes"},
		{
			"description of 16 KiB and a byte",
			ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Description: prose + "?"}}},
			"options[0].description is longer than 16384 bytes",
		},
		{
			"64 KiB shown",
			ui.Request{Question: prose, Options: []ui.Option{
				{Label: "a", Description: prose}, {Label: "b", Description: prose}, {Label: "c", Description: prose[3:]},
			}},
			"",
		},
		{
			"64 KiB and a byte shown",
			ui.Request{Question: prose, Options: []ui.Option{
				{Label: "a", Description: prose}, {Label: "b", Description: prose}, {Label: "c", Description: prose[2:]},
			}},
			"invalid request: shows 65537 bytes of text, at most 65536",
		},
		{"values are not shown, 16 KiB each, 64 KiB in all", ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Value: prose}, {Label: "b", Value: prose}, {Label: "c", Value: prose}, {Label: "d", Value: prose}}}, ""},
		{"values of 64 KiB and a byte in all", ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Value: prose}, {Label: "b", Value: prose}, {Label: "c", Value: prose}, {Label: "d", Value: prose}, {Label: "e", Value: "x"}}}, "invalid request: carries 65537 bytes of option values, at most 65536"},
		{"a value of 16 KiB and a byte", ui.Request{Question: "q", Options: []ui.Option{{Label: "a", Value: prose + "x"}}}, "invalid request: options[0].value is longer than 16384 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantValidate(t, tt.req, tt.want) })
	}
}

// TestAskAllSizes: one AskAll asks at most 100 questions.
func TestAskAllSizes(t *testing.T) {
	ctx := scope(t, answering("ok"))
	for _, n := range []int{100, 101} {
		reqs := make([]ui.Request, n)
		for i := range reqs {
			reqs[i] = question
		}
		answers, err := ui.AskAll(ctx, reqs)
		if n <= 100 {
			if err != nil || len(answers) != n {
				t.Fatalf("AskAll(%d questions) = %d answers, %v, want %d and nil", n, len(answers), err, n)
			}
			continue
		}
		wantCode(t, "AskAll()", err, ui.CodeInvalidRequest)
		if want := "invalid request: 101 questions, at most 100"; !strings.Contains(err.Error(), want) || len(answers) != 0 {
			t.Fatalf("AskAll(101 questions) = %d answers, %v, want none and a message containing %q", len(answers), err, want)
		}
	}
}

// TestValidateLargestRequest: the largest request of the benchmarks is
// valid, and one more byte of shown text is not.
func TestValidateLargestRequest(t *testing.T) {
	req := largestRequest()
	if err := req.Validate(); err != nil {
		t.Fatalf("Validate(largest) = %v, want nil", err)
	}
	if _, err := ui.Ask(scope(t, answering("0")), req); err != nil {
		t.Fatalf("Ask(largest) = %v, want nil", err)
	}
	req.Header += "x"
	if err := req.Validate(); err == nil || !strings.Contains(err.Error(), "at most 65536") {
		t.Fatalf("Validate(largest and a byte) = %v, want the 64 KiB limit", err)
	}
}

// TestValidateSpoofs: requests that would show one option as another, draw
// a row of a UI's own, or reach a terminal's escape sequences are refused.
func TestValidateSpoofs(t *testing.T) {
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
		// Two labels that draw the same, and a label that draws nothing.
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
		// Line and paragraph separators, which break a line where a UI does not.
		{
			"paragraph separator forging a row",
			ui.Request{Question: "Deploy?", Options: []ui.Option{{Label: "Deploy now\u2029  2. Cancel"}, {Label: "Wait"}}},
			"options[0].label holds U+2029",
		},
		{"line separator in the header", ui.Request{Question: "Deploy?", Header: "Deploy\u2028now"}, "header holds U+2028"},
		// The agent is shown by every UI.
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
