package program_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestRaceSkippedTestsRunInMakeTest: a test here that skips under the race
// detector (skipUnderRace) runs in make test all the same, without it:
// named in the Makefile's PROCESS_TESTS, or one of make examples'
// TestExamples. A test added with skipUnderRace and named in neither would
// run in no step of make test.
func TestRaceSkippedTestsRunInMakeTest(t *testing.T) {
	mk, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^PROCESS_TESTS = (.+)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile has no line PROCESS_TESTS = ...")
	}
	named := map[string]bool{}
	for _, n := range strings.Split(string(m[1]), "|") {
		named[strings.TrimSpace(n)] = true
	}
	if !strings.Contains(string(mk), "-run 'TestExamples' ./program/") {
		t.Fatal("make examples no longer runs program's TestExamples tests: update this test")
	}
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var skipped []string
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !strings.HasPrefix(fn.Name.Name, "Test") || !calls(fn, "skipUnderRace") {
				continue
			}
			skipped = append(skipped, fn.Name.Name)
			if !named[fn.Name.Name] && !strings.HasPrefix(fn.Name.Name, "TestExamples") {
				t.Errorf("%s (%s) skips under -race and runs in no other step of make test: add it to the Makefile's PROCESS_TESTS", fn.Name.Name, file)
			}
		}
	}
	for n := range named {
		if !slices.Contains(skipped, n) {
			t.Errorf("the Makefile's PROCESS_TESTS names %s, which is no test here that skips under -race", n)
		}
	}
}

// calls reports whether fn's body calls the function called name.
func calls(fn *ast.FuncDecl, name string) bool {
	found := false
	ast.Inspect(fn, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == name {
				found = true
			}
		}
		return !found
	})
	return found
}
