package userinteraction_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestREADMEProgram builds and runs the program in README.md against this
// checkout and compares what it prints with the output the README shows, so
// the README's program cannot drift from the package. Every other ```go
// block that does not use the MCP Go SDK is compiled along with it, as
// pasted: each goes into a file of its own, with the imports it names.
func TestREADMEProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with the go command")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	readme := readFile(t, "README.md")
	want := fenced(readme, "```text\n$ go run .\n")
	files := map[string]string{}
	for i, block := range goBlocks(readme) {
		switch {
		case strings.HasPrefix(block, "package main\n"):
			files["main.go"] = block
		case !usesSDK(block):
			files[fmt.Sprintf("snippet%d.go", i)] = withImports(block)
		}
	}
	if files["main.go"] == "" || want == "" {
		t.Fatal("README.md has no ```go block starting with package main followed by a ```text block of its output")
	}
	if len(files) < 2 {
		t.Fatal("README.md has no ```go block besides the program: the test of its blocks found none")
	}
	repo, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	files["go.mod"] = "module readme\n\ngo 1.21\n\n" +
		"require github.com/dsh-go/userinteraction v0.0.0\n\n" +
		"replace github.com/dsh-go/userinteraction => " + repo + "\n"
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goCmd, "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run of the README program and its other blocks: %v\n%s", err, out)
	}
	if got := string(out); got != want {
		t.Fatalf("README program printed:\n%s\nthe README shows:\n%s", got, want)
	}
}

// TestREADMESnippets: a ```go block of README.md that uses the MCP Go SDK
// cannot be compiled here, as the package's go.mod requires nothing. It must
// appear verbatim in .github/interop/main.go, which CI builds and runs
// against the SDK. So must the Replay host's serve, which that server runs.
// TestREADMEProgram compiles the blocks without the SDK.
func TestREADMESnippets(t *testing.T) {
	readme := readFile(t, "README.md")
	interop := readFile(t, filepath.Join(".github", "interop", "main.go"))
	found := 0
	for _, block := range goBlocks(readme) {
		if !usesSDK(block) && !strings.Contains(block, "\nfunc serve(") {
			continue
		}
		found++
		if !strings.Contains(interop, block) {
			t.Errorf("README.md's block\n%s\ndoes not appear verbatim in .github/interop/main.go", block)
		}
	}
	if found < 2 {
		t.Fatalf("README.md has %d ```go blocks that use the MCP Go SDK or define serve, want 2 or more", found)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fenced returns the text after opening up to the closing fence, or "".
func fenced(doc, opening string) string {
	i := strings.Index(doc, opening)
	if i < 0 {
		return ""
	}
	rest := doc[i+len(opening):]
	j := strings.Index(rest, "```")
	if j < 0 {
		return ""
	}
	return rest[:j]
}

// goBlocks returns the text of each ```go block of doc, in order.
func goBlocks(doc string) []string {
	var blocks []string
	for _, part := range strings.Split(doc, "\n```go\n")[1:] {
		if end := strings.Index(part, "\n```"); end >= 0 {
			blocks = append(blocks, part[:end+1])
		}
	}
	return blocks
}

// usesSDK reports whether block uses the MCP Go SDK's package mcp.
func usesSDK(block string) bool {
	return regexp.MustCompile(`\bmcp\.`).MatchString(block)
}

// snippetImports are the packages a README block may use without importing
// them, by name.
var snippetImports = map[string]string{
	"context":         "context",
	"errors":          "errors",
	"fmt":             "fmt",
	"hex":             "encoding/hex",
	"http":            "net/http",
	"json":            "encoding/json",
	"net":             "net",
	"os":              "os",
	"rand":            "crypto/rand",
	"signal":          "os/signal",
	"strings":         "strings",
	"time":            "time",
	"userinteraction": "github.com/dsh-go/userinteraction",
}

// withImports returns block, top-level declarations, as a file of package
// main that imports each package of snippetImports that block names.
func withImports(block string) string {
	var paths []string
	for name, path := range snippetImports {
		if regexp.MustCompile(`\b` + name + `\.`).MatchString(block) {
			paths = append(paths, path)
		}
	}
	sort.Strings(paths)
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n")
	for _, p := range paths {
		fmt.Fprintf(&b, "\t%q\n", p)
	}
	b.WriteString(")\n\n" + block)
	return b.String()
}
