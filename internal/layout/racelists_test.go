package layout

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The race detector slows a CPU-bound run about tenfold, so a test that
// runs many clusters may run less under -race — a sample, some cases, or
// nothing — and whole in one of make test's steps without the detector,
// which runs the tests named in the Makefile's lists. This check keeps the
// lists true for every package of the module:
//   - a test that runs less under -race runs whole in a step of make test
//     without -race or -short (its name matches the -run of a go test
//     there that runs its package);
//   - each name a list gives matches a test that runs less under -race;
//   - a test that runs whole under -race is not run a second time by a
//     list's pattern that catches it by accident (an unanchored name
//     matches every test that begins with it).
//
// A test runs less under -race when its body reads the race flag
// (raceDetector, RaceDetector, patience.RaceEnabled) or calls a function
// of its package's tests that does, such as skipUnderRace; raceNeutral
// names the helpers that read it only to change how a test runs, not how
// much. (Package patience's own raceEnabled is what its test checks, not a
// switch.)
var (
	raceLists   = []string{"REGISTRY_TESTS", "SAMPLED_TESTS", "PROCESS_TESTS"}
	raceFlags   = []string{"raceDetector", "RaceDetector", "RaceEnabled"}
	raceNeutral = []string{"parallelWithoutRace"}
)

// pkgTest is one top-level test function of a package.
type pkgTest struct {
	pkg      string // its directory relative to the module's root, "." for the root
	file     string // its file's name
	name     string
	lessRace bool // it runs less under -race
}

func TestRaceListsAreKept(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	root := strings.TrimSpace(string(out))
	text, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	list := exec.Command("go", "list", "-f", "{{.Dir}}", "./...")
	list.Dir = root
	out, err = list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var tests []pkgTest
	for dir := range strings.FieldsSeq(string(out)) {
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			t.Fatal(err)
		}
		pt, err := packageTests(dir, filepath.ToSlash(rel))
		if err != nil {
			t.Fatal(err)
		}
		tests = append(tests, pt...)
	}
	less := slices.IndexFunc(tests, func(pt pkgTest) bool { return pt.lessRace })
	if less < 0 || len(tests) < 100 {
		t.Fatalf("found %d tests, none of which runs less under -race: the check reads the wrong names", len(tests))
	}
	var names []string
	for _, pt := range tests {
		if pt.lessRace {
			names = append(names, pt.pkg+"."+pt.name)
		}
	}
	t.Logf("%d tests; %d run less under -race: %s", len(tests), len(names), strings.Join(names, " "))
	findings, err := raceListFindings(parseMakefile(string(text)), tests)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Error(f)
	}
}

// The check is shown a Makefile that breaks each rule before it is trusted
// (a list continued on the next line gets a space inside its pattern, so
// the name after it matches nothing).
func TestRaceListFindingsCatchEachMistake(t *testing.T) {
	mk := parseMakefile(`GO ?= go
REGISTRY_TESTS = TestRegistered|TestGone
SAMPLED_TESTS = TestSampled|\
  TestWrapped
test:
	$(MAKE) -j2 test-cpu examples
test-cpu:
	$(GO) test -race -count=1 ./...
	$(GO) test -count=1 -run '$(REGISTRY_TESTS)|^($(SAMPLED_TESTS))$$' ./scenarios \
	  ./faults
examples:
	cd examples/x && $(GO) test ./...
	$(GO) test -run 'TestExamples' -skip 'TestExamplesSkipped' ./program/
test-short:
	$(GO) test -short ./...
`)
	tests := []pkgTest{
		{pkg: "scenarios", file: "a_test.go", name: "TestRegistered", lessRace: true},
		{pkg: "scenarios", file: "a_test.go", name: "TestRegisteredTwice"},
		{pkg: "faults", file: "b_test.go", name: "TestSampled", lessRace: true},
		{pkg: "lock", file: "c_test.go", name: "TestSampled", lessRace: true},
		{pkg: "program", file: "d_test.go", name: "TestExamplesNode", lessRace: true},
		{pkg: "program", file: "d_test.go", name: "TestExamplesSkipped", lessRace: true},
		{pkg: "cluster", file: "e_test.go", name: "TestShortOnly", lessRace: true},
		{pkg: "faults", file: "b_test.go", name: "TestWrapped", lessRace: true},
	}
	got, err := raceListFindings(mk, tests)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"lock: TestSampled (c_test.go) runs less under -race and runs whole in no step of make test without it: name it in one of the Makefile's lists (REGISTRY_TESTS, SAMPLED_TESTS, PROCESS_TESTS) that a go test of package lock runs",
		"program: TestExamplesSkipped (d_test.go) runs less under -race and runs whole in no step of make test without it: name it in one of the Makefile's lists (REGISTRY_TESTS, SAMPLED_TESTS, PROCESS_TESTS) that a go test of package program runs",
		"cluster: TestShortOnly (e_test.go) runs less under -race and runs whole in no step of make test without it: name it in one of the Makefile's lists (REGISTRY_TESTS, SAMPLED_TESTS, PROCESS_TESTS) that a go test of package cluster runs",
		"faults: TestWrapped (b_test.go) runs less under -race and runs whole in no step of make test without it: name it in one of the Makefile's lists (REGISTRY_TESTS, SAMPLED_TESTS, PROCESS_TESTS) that a go test of package faults runs",
		"scenarios: TestRegisteredTwice (a_test.go) runs whole under -race and again in make test's rule test-cpu, whose -run (the Makefile's lists) catches it: anchor the name that matches it",
		`the Makefile's REGISTRY_TESTS names "TestGone", which matches no test that runs less under -race`,
		`the Makefile's SAMPLED_TESTS names " TestWrapped", which matches no test that runs less under -race`,
	}
	if !slices.Equal(want, got) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := raceListFindings(parseMakefile("GO = go\ntest:\n\t$(GO) test -run 'TestA/b' ./x\n"), tests[:1]); err == nil {
		t.Error("a -run pattern with a slash: no error; the check cannot follow subtests and must say so")
	}
}

// raceListFindings returns a line for each way the Makefile's lists and the
// tests disagree (see TestRaceListsAreKept).
func raceListFindings(mk makefile, tests []pkgTest) ([]string, error) {
	cmds, err := mk.goTests(mk.reachable("test"))
	if err != nil {
		return nil, err
	}
	cmds = slices.DeleteFunc(cmds, func(gt goTest) bool { return gt.race || gt.short })
	var findings, again []string
	for _, pt := range tests {
		var by []string
		for _, gt := range cmds {
			ok, err := gt.covers(pt.pkg, pt.name)
			if err != nil {
				return nil, err
			}
			if ok && (gt.fromLists || pt.lessRace) {
				by = append(by, gt.rule)
			}
		}
		switch {
		case pt.lessRace && len(by) == 0:
			findings = append(findings, fmt.Sprintf("%s: %s (%s) runs less under -race and runs whole in no step of make test without it: name it in one of the Makefile's lists (%s) that a go test of package %s runs",
				pt.pkg, pt.name, pt.file, strings.Join(raceLists, ", "), pt.pkg))
		case !pt.lessRace && len(by) > 0:
			again = append(again, fmt.Sprintf("%s: %s (%s) runs whole under -race and again in make test's rule %s, whose -run (the Makefile's lists) catches it: anchor the name that matches it",
				pt.pkg, pt.name, pt.file, strings.Join(by, ", ")))
		}
	}
	findings = append(findings, again...)
	for _, list := range raceLists {
		v, ok := mk.vars[list]
		if !ok {
			continue
		}
		for _, alt := range strings.Split(v, "|") {
			re, err := regexp.Compile(alt)
			if err != nil {
				return nil, fmt.Errorf("the Makefile's %s: %q: %w", list, alt, err)
			}
			if !slices.ContainsFunc(tests, func(pt pkgTest) bool { return pt.lessRace && re.MatchString(pt.name) }) {
				findings = append(findings, fmt.Sprintf("the Makefile's %s names %q, which matches no test that runs less under -race", list, alt))
			}
		}
	}
	return findings, nil
}

// packageTests reads the test files in dir and returns their top-level
// tests, each marked with whether it runs less under -race.
func packageTests(dir, rel string) ([]pkgTest, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	funcs := map[string]*ast.FuncDecl{}
	fileOf := map[*ast.FuncDecl]string{}
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Body != nil {
				// An internal and an external test package may each have
				// a helper of one name; either one reading the flag marks
				// the name.
				if prev, ok := funcs[fn.Name.Name]; ok && readsRace(prev, nil) {
					continue
				}
				funcs[fn.Name.Name] = fn
				fileOf[fn] = filepath.Base(file)
			}
		}
	}
	// The helpers that read the race flag, directly or through another.
	marking := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for name, fn := range funcs {
			if !marking[name] && !slices.Contains(raceNeutral, name) && !isTest(name) && readsRace(fn, marking) {
				marking[name] = true
				changed = true
			}
		}
	}
	var tests []pkgTest
	for name, fn := range funcs {
		if isTest(name) {
			tests = append(tests, pkgTest{pkg: rel, file: fileOf[fn], name: name, lessRace: readsRace(fn, marking)})
		}
	}
	slices.SortFunc(tests, func(a, b pkgTest) int { return strings.Compare(a.name, b.name) })
	return tests, nil
}

// isTest reports whether a top-level function of a test file is a test
// that go test runs by name.
func isTest(name string) bool {
	rest, ok := strings.CutPrefix(name, "Test")
	return ok && name != "TestMain" && (rest == "" || !('a' <= rest[0] && rest[0] <= 'z'))
}

// readsRace reports whether fn's body names a race flag or calls a helper
// in marking.
func readsRace(fn *ast.FuncDecl, marking map[string]bool) bool {
	found := false
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			found = found || slices.Contains(raceFlags, n.Name) || marking[n.Name]
		case *ast.SelectorExpr:
			found = found || slices.Contains(raceFlags, n.Sel.Name)
		}
		return !found
	})
	return found
}
