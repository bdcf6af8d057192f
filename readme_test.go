package userinteraction_test

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"go/format"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// TestREADMEProgram builds and runs the program in README.md against this
// checkout and compares what it prints with the output the README shows, so
// the README's program cannot drift from the package. Every other ```go
// block that uses neither the MCP Go SDK nor the ACP one is compiled along with it, as
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
		case usesSDK(block):
		case strings.HasPrefix(block, "package main\n"):
			files["main.go"] = cmp.Or(files["main.go"], block) // the first: TestREADMEFirstOfProgram runs the other
		default:
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
	files["go.mod"] = "module readme\n\ngo 1.22\n\n" +
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

// TestREADMEFirstOfProgram builds README.md's program of a terminal and a
// page, gofmt'd and at most 30 lines, and runs it twice: answered on the page
// (a POST as the page sends) and in the terminal (Enter). Each time it prints
// the answer and exits, and an open page's stream tells how the question
// ended, then that the agent stopped.
func TestREADMEFirstOfProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with the go command")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	var minor int
	if _, err := fmt.Sscanf(runtime.Version(), "go1.%d", &minor); err == nil && minor < 24 {
		t.Skip("the program's rand.Text needs Go 1.24, this is " + runtime.Version())
	}
	readme := readFile(t, "README.md")
	program := fenced(readme[max(strings.Index(readme, "**A terminal and a phone.**"), 0):], "```go\n")
	if !strings.HasPrefix(program, "package main\n") || strings.Count(program, "\n") > 30 || !strings.Contains(program, "FirstOf") {
		t.Fatalf("README.md's program after **A terminal and a phone.** = %d lines:\n%s\nwant a whole FirstOf program of at most 30", strings.Count(program, "\n"), program)
	}
	if formatted, err := format.Source([]byte(program)); err != nil || string(formatted) != program {
		t.Fatalf("README.md's FirstOf program is not gofmt'd (%v):\n%s", err, formatted)
	}
	repo, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{"main.go": program, "go.mod": "module firstof\n\ngo 1.24\n\nrequire github.com/dsh-go/userinteraction v0.0.0\n\n" +
		"replace github.com/dsh-go/userinteraction => " + repo + "\n"}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"vet", "."}, {"build", "-o", "firstof", "."}} {
		cmd := exec.Command(goCmd, args...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s of README.md's FirstOf program: %v\n%s", args[0], err, out)
		}
	}
	for _, via := range []string{"page", "terminal"} {
		t.Run(via, func(t *testing.T) { runFirstOfProgram(t, filepath.Join(dir, "firstof"), via) })
	}
}

// runFirstOfProgram runs the program, answers "Run it" on its page, or
// presses Enter in its terminal, and checks what it prints and its page's
// stream.
func runFirstOfProgram(t *testing.T, program, via string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, program)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	out := bufio.NewReader(stdout)
	first, _ := out.ReadString('\n')
	link := regexp.MustCompile(`^Answer here or at (http://127\.0\.0\.1:\d+/)#token=(\S+)\n$`).FindStringSubmatch(first)
	if link == nil {
		t.Fatalf("the program's first line = %q, want the page's link with its #token=", first)
	}
	res, err := http.Get(link[1] + "events?token=" + link[2]) // as the page connects
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	stream, id := bufio.NewReader(res.Body), ""
	for id == "" { // the list, then the question if it opened after
		line, err := stream.ReadString('\n')
		if err != nil {
			t.Fatalf("the page's stream before the question: %v", err)
		}
		var list []ui.Pending
		var one ui.Pending
		if data, ok := strings.CutPrefix(line, "data: "); ok && json.Unmarshal([]byte(data), &list) == nil && len(list) > 0 {
			id = list[0].ID
		} else if ok && json.Unmarshal([]byte(data), &one) == nil {
			id = one.ID
		}
	}
	want := `answer "Dry run first", via terminal, error <nil>`
	if via == "page" {
		post, _ := http.NewRequest("POST", link[1]+"questions/"+id, strings.NewReader(`{"action": "accept", "content": {"choice": "Run it"}}`))
		post.Header.Set("Authorization", "Bearer "+link[2])
		post.Header.Set("Content-Type", "application/json")
		answered, err := http.DefaultClient.Do(post)
		if err != nil || answered.StatusCode != http.StatusNoContent {
			t.Fatalf("POST of the page's answer = %v, %v, want 204", answered, err)
		}
		answered.Body.Close()
		want = `answer "Run it", via page, error <nil>`
	} else if _, err := io.WriteString(stdin, "\n"); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(stream)
	if err != nil || !regexp.MustCompile(`event: ended\ndata: {"id":"`+id+`","outcome":{"answer":{[^\n]*"via":"`+via+`"}},"said":"Answered [^\n]*"}\n\nevent: stopped\ndata: null\n\n$`).Match(rest) {
		t.Errorf("the page's stream after the answer = %q, %v, want its ending via %s, then stopped, then its end", rest, err, via)
	}
	printed, _ := io.ReadAll(out)
	if err := cmd.Wait(); err != nil || !strings.HasSuffix(string(printed), want+"\n") {
		t.Errorf("the program printed %q and exited with %v, want %q last and a clean exit", printed, err, want)
	}
}

// TestREADMESnippets: every ```go block of README.md from its section on
// hosts that cannot wait (the MCP Go SDK) up to the error codes must appear
// verbatim in a Go file of .github/interop's program, which CI builds and
// runs against the SDK, so the host CI proves is the one README shows.
// TestREADMEMCPCompiles compiles README's other blocks with that file.
func TestREADMESnippets(t *testing.T) {
	readme := readFile(t, "README.md")
	start := strings.Index(readme, "\n## Hosts that cannot wait")
	end := strings.Index(readme, "\n## Error codes")
	if start < 0 || end < start {
		t.Fatal(`README.md has no sections "Hosts that cannot wait" to "Error codes"`)
	}
	var texts []string
	for _, text := range interopFiles(t) {
		texts = append(texts, text)
	}
	interop := strings.Join(texts, "\n")
	acpHost := readFile(t, filepath.Join(".github", "acp", "main.go"))
	found := 0
	for _, block := range goBlocks(readme[start:end]) {
		if strings.Contains(acpHost, block) {
			continue // section "With ACP": TestREADMEACP
		}
		if usesSDK(block) {
			found++
		}
		if !strings.Contains(interop, block) {
			t.Errorf("README.md's block\n%s\ndoes not appear verbatim in a Go file of .github/interop", block)
		}
	}
	if found < 1 {
		t.Fatal("README.md has no ```go block that uses the MCP Go SDK")
	}
}

// interopFiles returns the text of each Go file of .github/interop's
// program, by name: its tests' files aside.
func interopFiles(t *testing.T) map[string]string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(".github", "interop", "*.go"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no Go files in .github/interop: %v", err)
	}
	files := map[string]string{}
	for _, name := range names {
		if !strings.HasSuffix(name, "_test.go") {
			files[filepath.Base(name)] = readFile(t, name)
		}
	}
	return files
}

// TestREADMEToolInDurableHost: the migrate tool of README.md's program
// appears verbatim in .github/durable/main.go, the host that CI kills and
// restarts, so the tool that survives a restart there is README's, unchanged;
// and in .github/acp/main.go, the ACP agent CI runs.
func TestREADMEToolInDurableHost(t *testing.T) {
	program := fenced(readFile(t, "README.md"), "```go\npackage main\n")
	start := strings.Index(program, "// migrate is a tool")
	end := strings.Index(program[max(start, 0):], "\n}\n")
	if start < 0 || end < 0 {
		t.Fatal("README.md's program has no func migrate led by its comment \"// migrate is a tool\"")
	}
	tool := program[start : start+end+3]
	for _, host := range []string{"durable", "acp"} {
		if !strings.Contains(readFile(t, filepath.Join(".github", host, "main.go")), tool) {
			t.Errorf("README.md's tool\n%s\ndoes not appear verbatim in .github/%s/main.go", tool, host)
		}
	}
}

// TestREADMEACP: every ```go block of README.md's section "With ACP" appears
// verbatim in .github/acp/main.go, which CI builds and runs against the
// official ACP clients (and the other tests leave those blocks to it).
func TestREADMEACP(t *testing.T) {
	readme := readFile(t, "README.md")
	start := strings.Index(readme, "\n## With ACP")
	if start < 0 {
		t.Fatal(`README.md has no section "With ACP"`)
	}
	end := strings.Index(readme[start+1:], "\n## ")
	if end < 0 {
		end = len(readme) - start - 1
	}
	blocks := goBlocks(readme[start : start+1+end])
	if len(blocks) == 0 {
		t.Fatal(`README.md's section "With ACP" has no go block`)
	}
	host := readFile(t, filepath.Join(".github", "acp", "main.go"))
	for _, block := range blocks {
		if !strings.Contains(host, block) {
			t.Errorf("README.md's block\n%s\ndoes not appear verbatim in .github/acp/main.go", block)
		}
	}
}

// TestREADMEMCPCompiles compiles every ```go block of README.md but its
// program as one package with .github/interop's program, which README links,
// in a copy of the interop module with the MCP Go SDK: the blocks that its
// files hold verbatim are compiled there, the others each in a file of its
// own beside them. So every name the blocks use is defined in
// README.md, in main.go or in a package they import. It skips only when the
// SDK cannot be fetched, unless USERINTERACTION_REQUIRE_SDK is set, as
// .ci/run sets it.
func TestREADMEMCPCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the MCP Go SDK with the go command")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	var minor int
	if _, err := fmt.Sscanf(runtime.Version(), "go1.%d", &minor); err == nil && minor < 25 {
		t.Skip("the MCP Go SDK needs Go 1.25, this is " + runtime.Version())
	}
	repo, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	interop := filepath.Join(repo, ".github", "interop")
	dir := t.TempDir()
	gomod := strings.Replace(readFile(t, filepath.Join(interop, "go.mod")),
		"=> ../..", "=> "+repo, 1)
	files := map[string]string{"go.mod": gomod, "go.sum": readFile(t, filepath.Join(interop, "go.sum"))}
	var host []string
	for name, text := range interopFiles(t) {
		files[filepath.Join("readme", name)] = text
		host = append(host, text)
	}
	acpHost := readFile(t, filepath.Join(repo, ".github", "acp", "main.go"))
	inHost := 0
	for i, block := range goBlocks(readFile(t, "README.md")) {
		switch {
		case strings.Contains(acpHost, block): // ACP's: compiled in .github/acp
		case strings.Contains(strings.Join(host, "\n"), block):
			inHost++
		case strings.HasPrefix(block, "package main\n"):
		default:
			files[filepath.Join("readme", fmt.Sprintf("block%d.go", i))] = withImports(block)
		}
	}
	if others := len(files) - 2 - len(host); inHost < 1 || others < 1 {
		t.Fatalf("README.md has %d ```go blocks of .github/interop and %d others besides its program, want 1 or more of each", inHost, others)
	}
	if err := os.Mkdir(filepath.Join(dir, "readme"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	download := exec.Command(goCmd, "mod", "download", "github.com/modelcontextprotocol/go-sdk")
	download.Dir, download.Env = dir, env
	if out, err := download.CombinedOutput(); err != nil {
		if os.Getenv("USERINTERACTION_REQUIRE_SDK") == "" {
			t.Skipf("the MCP Go SDK cannot be fetched: %v\n%s", err, out)
		}
		t.Fatalf("go mod download of the MCP Go SDK: %v\n%s", err, out)
	}
	vet := exec.Command(goCmd, "vet", "./readme")
	vet.Dir, vet.Env = dir, env
	if out, err := vet.CombinedOutput(); err != nil {
		t.Fatalf("go vet of README.md's blocks with the MCP Go SDK: %v\n%s", err, out)
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

// usesSDK reports whether block uses the MCP Go SDK's package mcp or the
// ACP one's package acp.
func usesSDK(block string) bool {
	return regexp.MustCompile(`\b[am]cp\.`).MatchString(block)
}

// snippetImports are the packages a README block may use without importing
// them, by name.
var snippetImports = map[string]string{
	"context":         "context",
	"errors":          "errors",
	"flag":            "flag",
	"fmt":             "fmt",
	"hex":             "encoding/hex",
	"http":            "net/http",
	"json":            "encoding/json",
	"jsonrpc":         "github.com/modelcontextprotocol/go-sdk/jsonrpc",
	"log":             "log",
	"mcp":             "github.com/modelcontextprotocol/go-sdk/mcp",
	"net":             "net",
	"os":              "os",
	"rand":            "crypto/rand",
	"slog":            "log/slog",
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

// TestDocsTimesAgree: each command README.md's "Tests and figures" gives with
// its time has a row in .github/CONTRIBUTING.md's table of commands, with
// the same time, so the two pages cannot drift apart.
func TestDocsTimesAgree(t *testing.T) {
	readme := readFile(t, "README.md")
	contributing := readFile(t, filepath.Join(".github", "CONTRIBUTING.md"))
	block := fenced(readme[strings.Index(readme, "## Tests and figures"):], "```sh\n")
	rows := 0
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		command, comment, ok := strings.Cut(line, " # ")
		if !ok {
			t.Errorf("README.md's command %q has no comment with its time", line)
			continue
		}
		command = strings.TrimSpace(command)
		time := comment[strings.LastIndex(comment, ": ")+2:]
		row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(command) + "` \\|.*\\| ([^|]*) \\|$").FindStringSubmatch(contributing)
		switch {
		case row == nil:
			t.Errorf("CONTRIBUTING's table of commands has no row for README.md's %q", command)
		case row[1] != time:
			t.Errorf("README.md times %q at %q, CONTRIBUTING at %q", command, time, row[1])
		}
		rows++
	}
	if rows < 3 {
		t.Fatalf("README.md's Tests and figures give %d commands with their times, want the tests, examples and benchmarks", rows)
	}
}
