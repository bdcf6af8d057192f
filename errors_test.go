package userinteraction_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode"

	ui "github.com/dsh-go/userinteraction"
)

func TestErrors(t *testing.T) {
	cause := errors.New("eof")
	err := ui.NewError(ui.CodeAskCancelled, "input closed", cause)
	if got, want := err.Error(), "ASK_CANCELLED: input closed: eof"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	if got, want := ui.NewError(ui.CodeNoProvider, "none", nil).Error(), "NO_PROVIDER: none"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	if got, want := (&ui.HarnessError{Message: "bare"}).Error(), "bare"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	// A message that ends with ": " and its cause's text does not repeat it;
	// one that merely ends with the same word does.
	repeated := ui.NewError(ui.CodeAskCancelled, "input closed: EOF", io.EOF)
	if got, want := repeated.Error(), "ASK_CANCELLED: input closed: EOF"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	sameWord := ui.NewError(ui.CodeAskCancelled, "could not read the file", errors.New("file"))
	if got, want := sameWord.Error(), "ASK_CANCELLED: could not read the file: file"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	wrapped := fmt.Errorf("tool: %w", err)
	var he *ui.HarnessError
	if !errors.As(wrapped, &he) || he != &err.HarnessError {
		t.Fatalf("errors.As(%v, *HarnessError) = %v, want the embedded HarnessError", wrapped, he)
	}
	var uie *ui.UserInteractionError
	if !errors.As(wrapped, &uie) || uie != err {
		t.Fatalf("errors.As(%v, *UserInteractionError) = %v, want err", wrapped, uie)
	}
	if !errors.Is(wrapped, cause) {
		t.Fatalf("errors.Is(%v, cause) = false, want true", wrapped)
	}
	for _, v := range []any{he, err} {
		b, jerr := json.Marshal(v)
		want := `{"name":"UserInteractionError","code":"ASK_CANCELLED","message":"input closed"}`
		if jerr != nil || string(b) != want {
			t.Fatalf("json.Marshal(%T) = %s, %v, want %s", v, b, jerr, want)
		}
	}
}

func TestCodeOf(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{errors.New("plain"), ""},
		{ui.NewError(ui.CodeAskDeclined, "no", nil), ui.CodeAskDeclined},
		{fmt.Errorf("a: %w", fmt.Errorf("b: %w", ui.NewError(ui.CodeInvalidAnswer, "x", nil))), ui.CodeInvalidAnswer},
		{&ui.HarnessError{Code: "CUSTOM"}, "CUSTOM"},
		{errors.Join(errors.New("first"), ui.NewError(ui.CodeNoProvider, "x", nil)), ui.CodeNoProvider},
	}
	for _, tt := range tests {
		if got := ui.CodeOf(tt.err); got != tt.want {
			t.Errorf("CodeOf(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// TestErrorCodeValues: every code constant that errors.go declares is named
// for its value (CodeNoProvider is "NO_PROVIDER"), no two share a value, and
// the README's table of codes lists each. The list is read from the source,
// so a code added later is checked too.
func TestErrorCodeValues(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, id := range vs.Names {
				if !strings.HasPrefix(id.Name, "Code") {
					continue
				}
				value, err := strconv.Unquote(vs.Values[i].(*ast.BasicLit).Value)
				if err != nil {
					t.Fatalf("%s: %v", id.Name, err)
				}
				if want := upperSnake(strings.TrimPrefix(id.Name, "Code")); value != want {
					t.Errorf("%s = %q, want %q", id.Name, value, want)
				}
				if other, ok := seen[value]; ok {
					t.Errorf("%s and %s are both %q", other, id.Name, value)
				}
				seen[value] = id.Name
				if !strings.Contains(string(readme), "| `"+value+"` `"+id.Name+"` |") {
					t.Errorf("README.md's table of codes has no row for %s, %s", value, id.Name)
				}
			}
		}
	}
	if len(seen) < 14 {
		t.Fatalf("errors.go declares %d codes, want at least the 14 of the contract", len(seen))
	}
}

// upperSnake returns a CamelCase name in UPPER_SNAKE_CASE.
func upperSnake(name string) string {
	var b strings.Builder
	for i, c := range name {
		if i > 0 && unicode.IsUpper(c) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(c))
	}
	return b.String()
}

func TestNilErrorReceivers(t *testing.T) {
	var he *ui.HarnessError
	var uie *ui.UserInteractionError
	if got := ui.CodeOf(he); got != "" {
		t.Errorf("CodeOf((*HarnessError)(nil)) = %q, want \"\"", got)
	}
	if got := ui.CodeOf(uie); got != "" {
		t.Errorf("CodeOf((*UserInteractionError)(nil)) = %q, want \"\"", got)
	}
	if got := ui.CodeOf(fmt.Errorf("wrapped: %w", uie)); got != "" {
		t.Errorf("CodeOf(wrapped (*UserInteractionError)(nil)) = %q, want \"\"", got)
	}
	if he.Error() != "<nil>" || uie.Error() != "<nil>" || he.Unwrap() != nil || uie.Unwrap() != nil {
		t.Errorf("nil receivers: Error() = %q, %q, Unwrap() = %v, %v, want <nil> and nil",
			he.Error(), uie.Error(), he.Unwrap(), uie.Unwrap())
	}
}

// TestProviderFailedCarriesCause: the model learns why the provider failed,
// in text that shows as it is.
func TestProviderFailedCarriesCause(t *testing.T) {
	go2026 := "elicitation/create cannot be sent while serving a request on protocol version 2026-07-28: " +
		"return an InputRequests map instead (multi round-trip requests, SEP-2322)"
	long := strings.Repeat("x", 300)
	tests := []struct {
		cause, message, text string // text is what Error() holds
	}{
		{"boom", "provider failed: boom", "PROVIDER_FAILED: provider failed: boom"},
		{go2026, "provider failed: " + go2026, "PROVIDER_FAILED: provider failed: " + go2026},
		{long, "provider failed: " + long[:200] + "…", "PROVIDER_FAILED: provider failed: " + long},
		// A provider's text, which may come from a remote client, reaches
		// neither the model nor a log with escape sequences raw, and
		// Error() holds it once.
		{
			"client said \x1b[31mno\x1b[0m\r\n",
			`provider failed: client said \x1b[31mno\x1b[0m\r\n`,
			`PROVIDER_FAILED: provider failed: client said \x1b[31mno\x1b[0m\r\n`,
		},
		{
			"bad \u202eyaml.exe \xff \u2028",
			`provider failed: bad \u202eyaml.exe \xff \u2028`,
			`PROVIDER_FAILED: provider failed: bad \u202eyaml.exe \xff \u2028`,
		},
		{
			strings.Repeat("\x07", 300),
			"provider failed: " + strings.Repeat(`\a`, 200) + "…",
			"PROVIDER_FAILED: provider failed: " + strings.Repeat(`\a`, 300),
		},
		{
			`quotes "and" \ stay, as does 日本`,
			`provider failed: quotes "and" \ stay, as does 日本`,
			`PROVIDER_FAILED: provider failed: quotes "and" \ stay, as does 日本`,
		},
	}
	for _, tt := range tests {
		cause := errors.New(tt.cause)
		_, err := ui.Ask(scope(t, failing(cause)), question)
		var he *ui.HarnessError
		if !errors.As(err, &he) || he.Code != ui.CodeProviderFailed || he.Message != tt.message {
			t.Fatalf("Ask() error = %v, want PROVIDER_FAILED with message %q", err, tt.message)
		}
		if err.Error() != tt.text || !errors.Is(err, cause) {
			t.Errorf("Ask() error = %q, want %q, wrapping the cause", err, tt.text)
		}
	}
}

// TestErrorMessagesStayShort: an error quotes user and provider text only as
// a short prefix, so that no model-facing error grows with its input.
func TestErrorMessagesStayShort(t *testing.T) {
	huge := strings.Repeat("é", 1<<19) // 1 MiB
	long := strings.Repeat("é", 128)   // the longest label, 256 bytes
	label := ui.Request{Question: "q", Options: []ui.Option{{Label: long}, {Label: long}}}
	offersA := ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}}}
	onlyA := ui.Request{Question: "q", Options: []ui.Option{{Label: "a"}}, DisallowCustom: true}
	offersLong := ui.Request{Question: "q", Options: []ui.Option{{Label: long}}}
	tests := []struct {
		name string
		err  error
		code string
	}{
		{"duplicate label", label.Validate(), ui.CodeInvalidRequest},
		{
			name: "option not offered",
			err:  askWith(t, offersA, ui.Answer{Option: &ui.Option{Label: huge}}),
			code: ui.CodeInvalidAnswer,
		},
		{
			name: "custom text disallowed",
			err:  askWith(t, onlyA, ui.Answer{Text: huge}),
			code: ui.CodeInvalidAnswer,
		},
		{
			name: "text disagrees with option",
			err:  askWith(t, offersLong, ui.Answer{Text: huge, Option: &ui.Option{Label: long}}),
			code: ui.CodeInvalidAnswer,
		},
		{
			name: "provider failed",
			err:  func() error { _, err := ui.Ask(scope(t, failing(errors.New(huge))), question); return err }(),
			code: ui.CodeProviderFailed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCode(t, "error", tt.err, tt.code)
			var he *ui.HarnessError
			errors.As(tt.err, &he)
			b, err := json.Marshal(he)
			if err != nil || len(b) >= 4096 {
				t.Fatalf("json.Marshal(error) = %d bytes, %v, want under 4 KiB", len(b), err)
			}
			cut := 64
			if tt.code == ui.CodeProviderFailed {
				cut = 200
			}
			kept, over := strings.Repeat("é", cut)+"…", strings.Repeat("é", cut+1)
			if !strings.Contains(he.Message, kept) || strings.Contains(he.Message, over) {
				t.Fatalf("message = %q, want the text cut after %d runes with an ellipsis", he.Message, cut)
			}
		})
	}
}
