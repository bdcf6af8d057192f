package userinteraction_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMEProgram builds and runs the program in README.md against this
// checkout and compares what it prints with the output the README shows, so
// the README's program cannot drift from the package. The README's host
// loop, the serve func, is compiled along with it.
func TestREADMEProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with the go command")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	program := fenced(string(readme), "```go\npackage main\n")
	want := fenced(string(readme), "```text\n$ go run .\n")
	if program == "" || want == "" {
		t.Fatal("README.md has no ```go block starting with package main followed by a ```text block of its output")
	}
	program = "package main\n" + program
	sketch := fenced(string(readme), "```go\n// serve runs one round")
	if sketch == "" {
		t.Fatal("README.md has no ```go block starting with // serve runs one round")
	}
	sketch = "package main\n\nimport (\n\t\"context\"\n\t\"time\"\n\n\t\"github.com/dsh-go/userinteraction\"\n)\n\n" +
		"// Response is the human's response to one form, as the client sends it.\n" +
		"type Response struct {\n\tAction  string\n\tContent map[string]any\n}\n\nvar _ = serve\n\n// serve runs one round" + sketch
	repo, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module readme\n\ngo 1.21\n\nrequire github.com/dsh-go/userinteraction v0.0.0\n\nreplace github.com/dsh-go/userinteraction => " + repo + "\n"
	for name, content := range map[string]string{"go.mod": gomod, "main.go": program, "sketch.go": sketch} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goCmd, "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run of the README program: %v\n%s", err, out)
	}
	if got := string(out); got != want {
		t.Fatalf("README program printed:\n%s\nthe README shows:\n%s", got, want)
	}
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
