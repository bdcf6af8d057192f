package userinteraction_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestContributingMatchesTree: what .github/CONTRIBUTING.md says of the
// test files and fuzz targets is what the tree holds. Its table of
// test files and its list of examples together name every *_test.go file.
// Its table of fuzz targets names every Fuzz function, and each count of
// targets it gives is their number.
func TestContributingMatchesTree(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(".github", "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}

	var named []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9_]+_test\\.go)` \\|").FindAllStringSubmatch(doc, -1) {
		named = append(named, m[1])
	}
	examples, _, _ := strings.Cut(after(doc, "Examples, one surface per file:"), "\n\n")
	for _, m := range regexp.MustCompile("`(example[a-z0-9_]*_test\\.go)`").FindAllStringSubmatch(examples, -1) {
		named = append(named, m[1])
	}
	if got, want := sorted(named), sorted(files); !slices.Equal(got, want) {
		t.Errorf("CONTRIBUTING names the test files\n%v\nthe tree holds\n%v", got, want)
	}

	var targets []string
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Fuzz") {
				targets = append(targets, fn.Name.Name)
			}
		}
	}
	table, _, _ := strings.Cut(after(doc, "\n## Fuzz targets\n"), "\n## ")
	var listed []string
	for _, m := range regexp.MustCompile("`(Fuzz[A-Za-z0-9]+)`").FindAllStringSubmatch(table, -1) {
		listed = append(listed, m[1])
	}
	if got, want := sorted(listed), sorted(targets); !slices.Equal(got, want) {
		t.Errorf("CONTRIBUTING's table of fuzz targets lists\n%v\nthe tree holds\n%v", got, want)
	}
	counts := regexp.MustCompile(`(\d+) targets`).FindAllStringSubmatch(doc, -1)
	if len(counts) == 0 {
		t.Error(`CONTRIBUTING gives no count of fuzz targets, such as "10 targets"`)
	}
	for _, m := range counts {
		if n, _ := strconv.Atoi(m[1]); n != len(targets) {
			t.Errorf("CONTRIBUTING says %q, the tree holds %d fuzz targets", m[0], len(targets))
		}
	}
}

// TestProviderPartsDependOneWay: provider.go opens with its map, a comment
// above package that names its parts in order, one row each, as their
// "// ----" lines title them. Each part uses, of the file's own top-level
// names, only its own, those of the registry (the first part), those of the
// part the providers share (the second), and those of its sub-parts
// ("Replay: sealed state" belongs to "Replay"). The registry uses no part
// after it, and the shared part only the registry. So the registry knows no
// provider, and no provider leans on another's internals.
func TestProviderPartsDependOneWay(t *testing.T) {
	src, err := os.ReadFile("provider.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "provider.go", src, 0) // resolves each name to its declaration
	if err != nil {
		t.Fatal(err)
	}
	type part struct {
		line  int    // of its title
		title string // the line after "// ----"
	}
	var parts []part
	lines := strings.Split(string(src), "\n")
	for i := 0; i+1 < len(lines); i++ {
		if strings.HasPrefix(lines[i], "// ----") {
			parts = append(parts, part{i + 2, strings.TrimPrefix(lines[i+1], "// ")})
		}
	}
	if len(parts) < 3 {
		t.Fatalf("provider.go has %d parts opened by a // ---- line, want the registry, the shared part and the providers", len(parts))
	}
	partOf := func(pos token.Pos) string {
		line, title := fset.Position(pos).Line, ""
		for _, p := range parts {
			if line >= p.line {
				title = p.title
			}
		}
		return title
	}
	head, _, _ := strings.Cut(string(src), "\npackage ")
	var mapped, titles []string
	for _, l := range strings.Split(head, "\n") {
		if row, ok := strings.CutPrefix(l, "//\t"); ok { // "//\tTitle  what the part holds"
			title, _, _ := strings.Cut(row, "  ")
			mapped = append(mapped, title)
		}
	}
	for _, p := range parts {
		titles = append(titles, p.title)
	}
	if !slices.Equal(mapped, titles) {
		t.Fatalf("provider.go's map above package names the parts\n%q\nits // ---- lines title them\n%q", mapped, titles)
	}
	registry, shared := mapped[0], mapped[1]
	mayUse := func(user, in string) bool {
		provider := func(title string) string {
			before, _, _ := strings.Cut(title, ":")
			return before
		}
		switch user {
		case registry:
			return in == registry
		case shared:
			return in == shared || in == registry
		}
		return in == registry || in == shared || provider(in) == provider(user)
	}
	topLevel := func(id *ast.Ident) bool { // id names a top-level declaration of the file
		return id.Obj != nil && id.Obj == f.Scope.Objects[id.Name]
	}
	var wrong []string
	ast.Inspect(f, func(n ast.Node) bool {
		if kv, ok := n.(*ast.KeyValueExpr); ok {
			if _, isName := kv.Key.(*ast.Ident); isName {
				// A struct field's key, which the parser may take for a
				// top-level name of the same spelling.
				ast.Inspect(kv.Value, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok && topLevel(id) {
						wrong = appendWrong(wrong, id, partOf, mayUse)
					}
					return true
				})
				return false
			}
		}
		id, ok := n.(*ast.Ident)
		if !ok || !topLevel(id) || id.Name == "_" {
			return true
		}
		wrong = appendWrong(wrong, id, partOf, mayUse)
		return true
	})
	for _, w := range sorted(wrong) {
		t.Error(w)
	}
}

// TestExportedNamesShown: every exported name of the package has a use that
// an example or README.md shows, as the contract asks. Methods that the
// standard library calls (JSON, Error, Unwrap) are used wherever their types
// are, and two types are reached only through what makes them.
func TestExportedNamesShown(t *testing.T) {
	calledByLibrary := map[string]bool{"MarshalJSON": true, "UnmarshalJSON": true, "Error": true, "Unwrap": true}
	reached := map[string]string{"Terminal": "NewTerminal", "ElicitFunc": "NewForm"}
	var shown strings.Builder
	examples, err := filepath.Glob("example*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append(examples, "README.md") {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		shown.Write(data)
	}
	fset := token.NewFileSet()
	for _, file := range []string{"errors.go", "userinteraction.go", "provider.go"} {
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range exportedNames(f) {
			short := name[strings.LastIndex(name, ".")+1:]
			if calledByLibrary[short] && short != name {
				continue
			}
			if by, ok := reached[name]; ok {
				short = by
			}
			if !regexp.MustCompile(`\b` + short + `\b`).MatchString(shown.String()) {
				t.Errorf("%s: %s is in no example and not in README.md", file, name)
			}
		}
	}
}

// exportedNames returns the exported top-level names of f, and its exported
// methods of exported types as "Type.Method".
func exportedNames(f *ast.File) []string {
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv == nil {
				names = append(names, d.Name.Name)
				continue
			}
			recv := d.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			if id, ok := recv.(*ast.Ident); ok && id.IsExported() {
				names = append(names, id.Name+"."+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					if spec.Name.IsExported() {
						names = append(names, spec.Name.Name)
					}
				case *ast.ValueSpec:
					for _, id := range spec.Names {
						if id.IsExported() {
							names = append(names, id.Name)
						}
					}
				}
			}
		}
	}
	return names
}

// TestProviderPartsHoldTheirAPI: a part of provider.go holds its own API
// beside its internals, as the contract names them: sealing with Seal and
// OpenReplay, the record's JSON with its methods. What several providers
// use is in the part they share.
func TestProviderPartsHoldTheirAPI(t *testing.T) {
	want := map[string]string{
		"Replay.Seal":          "Replay: sealed state",
		"OpenReplay":           "Replay: sealed state",
		"Round":                "Replay: sealed state",
		"Wait":                 "Form",
		"Replay.MarshalJSON":   "Replay: the record's JSON",
		"Replay.UnmarshalJSON": "Replay: the record's JSON",
		"Inbox.Handler":        "Inbox: the handler, over any Source",
		"FirstOf":              "FirstOf",
		"Registry.Register":    "Providers and the registry",
		"Pending.Elicitation":  "Shared by the providers",
		"Decide":               "Providers and the registry",
		"WithKeep":             "Providers and the registry",
		"EndedElsewhere":       "Providers and the registry",
	}
	src, err := os.ReadFile("provider.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "provider.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	got := map[string]string{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := fn.Name.Name
		if fn.Recv != nil {
			recv := fn.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			name = recv.(*ast.Ident).Name + "." + name
		}
		if _, ok := want[name]; !ok {
			continue
		}
		for i := fset.Position(fn.Pos()).Line - 1; i > 0; i-- { // back to its part's title
			if strings.HasPrefix(lines[i-1], "// ----") {
				got[name] = strings.TrimPrefix(lines[i], "// ")
				break
			}
		}
	}
	for name, part := range want {
		if got[name] != part {
			t.Errorf("provider.go: %s is in part %q, want %q", name, got[name], part)
		}
	}
}

// appendWrong appends to wrong the use id of a top-level name, when the part
// of id may not use the part that declares it.
func appendWrong(wrong []string, id *ast.Ident, partOf func(token.Pos) string, mayUse func(user, in string) bool) []string {
	user, in := partOf(id.Pos()), partOf(id.Obj.Pos())
	if mayUse(user, in) {
		return wrong
	}
	return append(wrong, "provider.go: part "+strconv.Quote(user)+" uses "+id.Name+" of part "+strconv.Quote(in))
}

// after returns the text of doc after the first marker, or "".
func after(doc, marker string) string {
	if i := strings.Index(doc, marker); i >= 0 {
		return doc[i+len(marker):]
	}
	return ""
}

// sorted returns a sorted copy of s.
func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}

// TestSizesWithinBudget: the line budgets of the contract's "Performance and
// simplicity" hold, with this revision's notifications, Web Push and passkeys:
// provider.go, its Terminal part, all non-test Go, README (and its sections on
// ACP and proof) and CONTRIBUTING.
func TestSizesWithinBudget(t *testing.T) {
	lines := func(name string) []string {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	}
	provider, readme := lines("provider.go"), lines("README.md")
	section := func(text []string, start, end func(string) bool) int {
		from := slices.IndexFunc(text, start)
		if from < 0 {
			t.Fatal("a section the budget names is missing")
		}
		n := slices.IndexFunc(text[from+1:], end)
		if n < 0 {
			n = len(text) - from - 1
		}
		for n > 0 && text[from+n] == "" { // the blank line before the next
			n--
		}
		return n + 1
	}
	terminal := section(provider, func(l string) bool { return l == "// Terminal" },
		func(l string) bool { return strings.HasPrefix(l, "// ----") })
	acp := section(readme, func(l string) bool { return l == "## With ACP" }, func(l string) bool { return strings.HasPrefix(l, "## ") })
	proof := section(readme, func(l string) bool { return l == "## A proven answer" }, func(l string) bool { return strings.HasPrefix(l, "## ") })
	for _, c := range []struct {
		what      string
		n, budget int
	}{
		{"provider.go", len(provider), 4000},
		{"the Terminal's part of provider.go", terminal, 850},
		{"non-test Go", len(provider) + len(lines("userinteraction.go")) + len(lines("errors.go")), 5800},
		{"README.md", len(readme), 360},
		{`README's "With ACP"`, acp, 30},
		{`README's "A proven answer"`, proof, 25},
		{".github/CONTRIBUTING.md", len(lines(".github/CONTRIBUTING.md")), 450},
	} {
		if c.n > c.budget {
			t.Errorf("%s has %d lines, over its budget of %d", c.what, c.n, c.budget)
		}
	}
}

// TestMessagesLowerCase: the package's own error messages start in lower
// case and end without a period, as the contract's style rule asks. It reads
// the literal text of each message in the source: the message of NewError
// and http.Error, and the text of errors.New, fmt.Errorf and invalidAnswer.
func TestMessagesLowerCase(t *testing.T) {
	argOf := map[string]int{"NewError": 1, "New": 0, "Errorf": 0, "invalidAnswer": 0, "Error": 1}
	fset := token.NewFileSet()
	checked := 0
	for _, file := range []string{"errors.go", "userinteraction.go", "provider.go"} {
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var name string
			switch fun := call.Fun.(type) {
			case *ast.Ident:
				name = fun.Name
			case *ast.SelectorExpr:
				if pkg, ok := fun.X.(*ast.Ident); ok && (pkg.Name == "errors" || pkg.Name == "fmt" || pkg.Name == "http") {
					name = fun.Sel.Name
				}
			}
			i, ok := argOf[name]
			if !ok || i >= len(call.Args) || (name == "Error" && len(call.Args) != 3) {
				return true
			}
			first, last := ends(call.Args[i])
			where := fset.Position(call.Pos())
			if first != "" {
				checked++
				if r := []rune(first)[0]; r >= 'A' && r <= 'Z' {
					t.Errorf("%s: message %q starts in upper case", where, first)
				}
			}
			if strings.HasSuffix(last, ".") {
				t.Errorf("%s: message %q ends with a period", where, last)
			}
			return true
		})
	}
	if checked < 20 {
		t.Fatalf("%d messages checked, want the package's many", checked)
	}
}

// ends returns the literal text that the message expression e starts and
// ends with, or "" where it starts or ends with something else.
func ends(e ast.Expr) (first, last string) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if s, err := strconv.Unquote(e.Value); err == nil && e.Kind == token.STRING {
			return s, s
		}
	case *ast.BinaryExpr:
		first, _ = ends(e.X)
		_, last = ends(e.Y)
		return first, last
	case *ast.CallExpr: // fmt.Sprintf("...", ...)
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Sprintf" && len(e.Args) > 0 {
			return ends(e.Args[0])
		}
	}
	return "", ""
}

// TestDocsNameWhatExists: every Go name that .github/CONTRIBUTING.md and
// README.md quote as code (`labelKey`, `Registry.Ended`, `FeltOne`) is
// declared in the tree's Go files, so the pages cannot keep a name the code
// dropped. A name counts when it is declared as is, or as a Test, Benchmark,
// Fuzz or Example of it. Only names that read as Go names are checked: a
// capital inside or first, such as `textProblem` or `Pending`, not `stty`.
// Another project's names are quoted with their package (`mcp.ElicitParams`,
// `zod.EnumSchema`), and a name after a lower-case package is not checked.
func TestDocsNameWhatExists(t *testing.T) {
	declared := map[string]bool{}
	err := filepath.Walk(".", func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*\b`).FindAllString(string(src), -1) {
			declared[m] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	goName := regexp.MustCompile(`^(?:[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*|[a-z]+[A-Z][A-Za-z0-9]*)$`)
	for _, page := range []string{filepath.Join(".github", "CONTRIBUTING.md"), "README.md"} {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_.]*)(?:\\(\\))?`").FindAllStringSubmatch(string(data), -1) {
			for i, name := range strings.Split(m[1], ".") {
				if i > 0 && !unicode.IsUpper(rune(m[1][0])) {
					break // another package's name
				}
				if !goName.MatchString(name) {
					continue
				}
				found := declared[name]
				for _, prefix := range []string{"Test", "Benchmark", "Fuzz", "Example"} {
					found = found || declared[prefix+name]
				}
				if !found {
					t.Errorf("%s quotes %s, which no Go file of the tree declares", page, m[0])
				}
			}
		}
	}
}
