package userinteraction_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExamplesArePlayable: every example is a whole program that go/doc can
// show with a Run button on pkg.go.dev. go/doc makes one only of an example
// whose file declares all it uses, so no example file leans on another.
func TestExamplesArePlayable(t *testing.T) {
	names, err := filepath.Glob("example*_test.go")
	if err != nil || len(names) == 0 {
		t.Fatalf("no example files: %v", err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	examples := doc.Examples(files...)
	if len(examples) < len(names) {
		t.Fatalf("%d examples in %d files, want at least one a file", len(examples), len(names))
	}
	for _, ex := range examples {
		if ex.Play == nil {
			t.Errorf("Example%s has no playable program: its file must declare everything it uses", name(ex))
		}
		if ex.Output == "" && !ex.EmptyOutput {
			t.Errorf("Example%s has no // Output: comment", name(ex))
		}
	}
}

// name returns the part of an example's function name after "Example".
func name(ex *doc.Example) string {
	if ex.Suffix == "" {
		return ex.Name
	}
	return ex.Name + "_" + ex.Suffix
}

// TestDocsShort: every exported name's doc comment states its contract in
// slog's shape, as the contract's budget asks: none empty, a median of at
// most 30 words, at most 5% over 100. A struct's fields count as its type's.
func TestDocsShort(t *testing.T) {
	fset := token.NewFileSet()
	var files []*ast.File
	for _, file := range []string{"errors.go", "userinteraction.go", "provider.go"} {
		f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, "github.com/dsh-go/userinteraction")
	if err != nil {
		t.Fatal(err)
	}
	words := map[string]int{}
	for _, v := range append(pkg.Consts, pkg.Vars...) {
		words[strings.Join(v.Names, ", ")] = len(strings.Fields(v.Doc))
	}
	funcs := slices.Clone(pkg.Funcs)
	for _, typ := range pkg.Types {
		words[typ.Name] = len(strings.Fields(typ.Doc))
		for _, v := range append(typ.Consts, typ.Vars...) {
			words[strings.Join(v.Names, ", ")] = len(strings.Fields(v.Doc))
		}
		funcs = append(append(funcs, typ.Funcs...), typ.Methods...)
	}
	for _, f := range funcs {
		name := f.Name
		if f.Recv != "" {
			name = strings.TrimPrefix(f.Recv, "*") + "." + name
		}
		words[name] = len(strings.Fields(f.Doc))
	}
	var counts []int
	over := 0
	for name, n := range words {
		if n == 0 {
			t.Errorf("%s has no doc comment", name)
		}
		if n > 100 {
			over++
			t.Logf("%s: %d words", name, n)
		}
		counts = append(counts, n)
	}
	slices.Sort(counts)
	median := float64(counts[(len(counts)-1)/2]+counts[len(counts)/2]) / 2
	t.Logf("%d doc comments: a median of %.1f words, %d over 100", len(counts), median, over)
	if median > 30 || over*20 > len(counts) {
		t.Errorf("%d doc comments: a median of %.1f words (at most 30) and %d over 100 (at most %d)", len(counts), median, over, len(counts)/20)
	}
}
