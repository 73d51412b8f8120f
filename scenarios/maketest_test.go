package scenarios_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// raceAware are the names a test uses to run less, or nothing, under the
// race detector.
var raceAware = map[string]bool{
	"raceDetector": true, "RaceDetector": true, "skipUnderRace": true, "raceLeavesOut": true,
}

// TestRaceLeftOutTestsRunInMakeTest: a test here that runs less under the
// race detector — a sample, some cases, or nothing — runs whole in make
// test all the same, without it: its name matches the Makefile's
// REGISTRY_TESTS, which the registry's step runs. A test added with
// raceLeavesOut and not named there would run in no step of make test.
func TestRaceLeftOutTestsRunInMakeTest(t *testing.T) {
	mk, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^REGISTRY_TESTS = (.+)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile has no line REGISTRY_TESTS = ...")
	}
	if !strings.Contains(string(mk), "-run '$(REGISTRY_TESTS)") {
		t.Fatal("the Makefile's test-cpu no longer runs REGISTRY_TESTS: update this test")
	}
	named := regexp.MustCompile(string(m[1]))
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	found := 0
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !strings.HasPrefix(fn.Name.Name, "Test") || !mentionsRace(fn) {
				continue
			}
			found++
			if !named.MatchString(fn.Name.Name) {
				t.Errorf("%s (%s) runs less under -race and runs whole in no other step of make test: add it to the Makefile's REGISTRY_TESTS", fn.Name.Name, file)
			}
		}
	}
	if found == 0 {
		t.Error("no test here runs less under -race: the check looks for the wrong names")
	}
}

// mentionsRace reports whether fn's body names one of raceAware.
func mentionsRace(fn *ast.FuncDecl) bool {
	found := false
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && raceAware[id.Name] {
			found = true
		}
		return !found
	})
	return found
}
