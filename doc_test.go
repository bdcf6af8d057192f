package userinteraction_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
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
