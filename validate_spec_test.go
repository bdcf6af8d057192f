package userinteraction_test

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	ui "github.com/dsh-go/userinteraction"
)

// This file restates Request.Validate as plainly as the contract states it,
// apart from the package's code: FuzzValidate checks the one against the
// other for every input.

// validByRules reports whether the contract's rules accept r.
func validByRules(r ui.Request) bool {
	if len(r.Options) > 1000 || strings.TrimSpace(r.Question) == "" {
		return false
	}
	prose := []string{r.Question}
	names := []string{r.Header}
	if r.Agent != nil {
		names = append(names, r.Agent.ID, r.Agent.Name)
	}

	recommended := 0
	for i, o := range r.Options {
		prose = append(prose, o.Description)
		names = append(names, o.Label)
		if len(o.Value) > 16<<10 || !utf8.ValidString(o.Value) || o.Value != "" && strings.TrimSpace(o.Value) == "" {
			return false
		}
		if shownLabel(o.Label) == "" || startsWithMark(o.Label) || mixesScripts(o.Label) || strings.ContainsFunc(o.Label, inAnotherDress) {
			return false
		}
		for _, earlier := range r.Options[:i] {
			if strings.EqualFold(shownLabel(earlier.Label), shownLabel(o.Label)) {
				return false
			}
		}
		if o.Recommended {
			recommended++
		}
	}
	if shownBytes(r) > 64<<10 || valueBytes(r) > 64<<10 {
		return false
	}
	for _, s := range prose {
		if shownProblem(s, true) != "" {
			return false
		}
	}
	for _, s := range names {
		if shownProblem(s, false) != "" {
			return false
		}
	}
	return recommended <= 1 || r.MultiSelect
}

// shownBytes returns the size of all the text of r that a UI shows.
func shownBytes(r ui.Request) int {
	n := len(r.Question) + len(r.Header)
	if r.Agent != nil {
		n += len(r.Agent.ID) + len(r.Agent.Name)
	}
	for _, o := range r.Options {
		n += len(o.Label) + len(o.Description)
	}
	return n
}

// valueBytes returns the size of all the option values of r.
func valueBytes(r ui.Request) int {
	n := 0
	for _, o := range r.Options {
		n += len(o.Value)
	}
	return n
}

// blankInNames lists the characters that draw blank, which labels, the
// header and the agent may not hold.
var blankInNames = map[rune]bool{
	0x115F: true, 0x1160: true, 0x2800: true, 0x3164: true, 0xFFA0: true, 0x16FE4: true, 0x1D159: true,
}

// shownProblem returns the first problem of s as a shown text, by position,
// in the words of Validate's message: "" for a text that may be shown. A
// name is a header, a label or an agent field; prose, the question or a
// description.
func shownProblem(s string, prose bool) string {
	limit := 256
	if prose {
		limit = 16 << 10
	}
	if len(s) > limit {
		return fmt.Sprintf("is longer than %d bytes", limit)
	}
	var cs []rune // -1 for a byte that is not UTF-8
	for i := 0; i < len(s); {
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			c = -1
		}
		cs = append(cs, c)
		i += size
	}
	at := func(i int) rune {
		if i < 0 || i >= len(cs) {
			return -1
		}
		return cs[i]
	}
	draws := func(c rune) bool {
		return c >= 0 && unicode.In(c, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
	}
	mark := func(c rune) bool { return c >= 0 && unicode.In(c, unicode.Mn, unicode.Mc, unicode.Me) }
	marks := 0 // the combining marks in a row, joiners aside
	for i, c := range cs {
		switch {
		case c < 0:
			return "is not valid UTF-8"
		case c == 0x200C || c == 0x200D:
			if !draws(at(i-1)) || !draws(at(i+1)) {
				return fmt.Sprintf("holds %U, not between two visible characters", c)
			}
		case prose && (c == '\n' || c == '\t'):
		case !draws(c) && !unicode.Is(unicode.Zs, c):
			return fmt.Sprintf("holds %U", c)
		case !prose && blankInNames[c]:
			return fmt.Sprintf("holds %U, which draws blank", c)
		case (c >= 0xFE00 && c <= 0xFE0F || c >= 0xE0100 && c <= 0xE01EF) && !draws(at(i-1)):
			return fmt.Sprintf("holds %U, not after a visible character", c)
		}
		switch {
		case mark(c):
			marks++
		case c != 0x200C && c != 0x200D: // a joiner between marks ends no run
			marks = 0
		}
		if marks > 4 {
			return fmt.Sprintf("holds more than 4 combining marks in a row, at %U", c)
		}
	}
	return ""
}

// inAnotherDress reports whether c is a mathematical alphanumeric symbol,
// a number form, a letterlike symbol that is a letter, or an enclosed
// letter or digit.
func inAnotherDress(c rune) bool {
	return unicode.Is(dressed, c) || unicode.Is(letterlike, c) && unicode.IsLetter(c)
}

// The Unicode blocks, and parts of blocks, of letters and digits in another
// dress: Number Forms, Enclosed Alphanumerics, the dingbats' circled digits,
// Mathematical Alphanumeric Symbols, and the letters and digits of Enclosed
// Alphanumeric Supplement. Letterlike Symbols holds some.
var (
	dressed = &unicode.RangeTable{
		R16: []unicode.Range16{{Lo: 0x2150, Hi: 0x218F, Stride: 1}, {Lo: 0x2460, Hi: 0x24FF, Stride: 1}, {Lo: 0x2776, Hi: 0x2793, Stride: 1}},
		R32: []unicode.Range32{{Lo: 0x1D400, Hi: 0x1D7FF, Stride: 1}, {Lo: 0x1F100, Hi: 0x1F189, Stride: 1}},
	}
	letterlike = &unicode.RangeTable{R16: []unicode.Range16{{Lo: 0x2100, Hi: 0x214F, Stride: 1}}}
)

// startsWithMark reports whether label's first character after white space
// is a combining mark.
func startsWithMark(label string) bool {
	for _, c := range label {
		if !unicode.IsSpace(c) {
			return unicode.In(c, unicode.Mn, unicode.Mc, unicode.Me)
		}
	}
	return false
}

// mixesScripts reports whether a word of label (a run of letters, marks,
// numbers and joiners) holds characters of scripts that UTS #39's "Highly
// Restrictive" level does not allow together, Common and Inherited aside.
func mixesScripts(label string) bool {
	words := strings.FieldsFunc(label, func(c rune) bool {
		return !(unicode.In(c, unicode.L, unicode.M, unicode.N) || c == 0x200C || c == 0x200D)
	})
	allowed := [][]string{{"Latin", "Han", "Hiragana", "Katakana"}, {"Latin", "Han", "Bopomofo"}, {"Latin", "Han", "Hangul"}}
	for _, word := range words {
		scripts := map[string]bool{}
		for _, c := range word {
			switch {
			case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
				scripts["Latin"] = true
			case c >= 0x80:
				for name, table := range unicode.Scripts {
					if name != "Common" && name != "Inherited" && unicode.Is(table, c) {
						scripts[name] = true
					}
				}
			}
		}
		if len(scripts) <= 1 {
			continue
		}
		covered := false
		for _, set := range allowed {
			n := 0
			for _, s := range set {
				if scripts[s] {
					n++
				}
			}
			covered = covered || n == len(scripts)
		}
		if !covered {
			return true
		}
	}
	return false
}

// shownLabel returns label as a human tells it apart from others, before
// case: without default-ignorable code points, fullwidth forms as the ASCII
// they draw, its words separated by one space.
func shownLabel(label string) string {
	return strings.Join(strings.Fields(strings.Map(func(c rune) rune {
		switch {
		case defaultIgnorable(c):
			return -1
		case c >= '！' && c <= '～':
			return c - '！' + '!'
		}
		return c
	}, label)), " ")
}

// defaultIgnorable reports whether c is a default-ignorable code point, by
// the derivation in Unicode's DerivedCoreProperties.txt, from the tables of
// package unicode: Other_Default_Ignorable_Code_Point, format characters (Cf)
// and variation selectors, less white space, U+FFF9 to U+FFFB, U+13430 to
// U+13440 and the prepended concatenation marks.
func defaultIgnorable(c rune) bool {
	switch {
	case unicode.Is(unicode.White_Space, c), c >= 0xfff9 && c <= 0xfffb, c >= 0x13430 && c <= 0x13440,
		unicode.Is(unicode.Prepended_Concatenation_Mark, c):
		return false
	}
	return unicode.In(c, unicode.Other_Default_Ignorable_Code_Point, unicode.Cf, unicode.Variation_Selector)
}
