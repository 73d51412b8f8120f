package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// notYetAudited lists the test files that start a cluster on the real
// clock and do not yet say why. The list only shrinks: a file that says
// why, or no longer starts a real-clock cluster, must leave it.
var notYetAudited = []string{}

// A test on the real clock races the wall clock against a CPU it shares,
// so it is the exception: a test file that starts a cluster outside a
// synctest bubble says, in a comment with the words "real clock", why it
// needs that clock (an Example has no *testing.T; a program is another OS
// process; a benchmark measures wall time; ...).
//
// The check reads each _test.go file's syntax: a function starts a
// real-clock cluster when it calls cluster.New or cluster.Start (New or
// Start inside package cluster) and neither enters a bubble
// (clustertest.Virtual, synctest, bubble.Test) nor names ClockVirtual. A
// helper that starts whatever cluster its caller's bubble decides is
// counted as real: its file says which of its callers run outside a
// bubble, and why.
func TestRealClockTestsSayWhy(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	root := strings.TrimSpace(string(out))
	var unexplained []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		real, explained, err := realClockStarts(path)
		if err != nil {
			return err
		}
		if len(real) > 0 && !explained {
			unexplained = append(unexplained, filepath.ToSlash(rel))
			if !slices.Contains(notYetAudited, filepath.ToSlash(rel)) {
				t.Errorf("%s starts a cluster on the real clock in %s and no comment says why it needs the real clock; move it into clustertest.Virtual, or say why with the words \"real clock\"",
					rel, strings.Join(real, ", "))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range notYetAudited {
		if !slices.Contains(unexplained, f) {
			t.Errorf("%s is listed in notYetAudited but starts no unexplained real-clock cluster: remove it from the list", f)
		}
	}
}

// realClockStarts returns the functions of the Go file at path that start
// a cluster outside a bubble, and whether a comment of the file mentions
// the real clock.
func realClockStarts(path string) (funcs []string, explained bool, err error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		return nil, false, err
	}
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		if startsCluster(f.Name.Name, fd.Body) && !entersBubble(fd.Body) {
			funcs = append(funcs, fd.Name.Name)
		}
	}
	for _, cg := range f.Comments {
		if strings.Contains(strings.ToLower(strings.Join(strings.Fields(cg.Text()), " ")), "real clock") {
			explained = true
		}
	}
	return funcs, explained, nil
}

// startsCluster reports whether body calls cluster.New or cluster.Start
// (or, in package cluster itself, New or Start).
func startsCluster(pkg string, body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return !found
		}
		switch fn := call.Fun.(type) {
		case *ast.SelectorExpr:
			if x, ok := fn.X.(*ast.Ident); ok && x.Name == "cluster" && (fn.Sel.Name == "New" || fn.Sel.Name == "Start") {
				found = true
			}
		case *ast.Ident:
			if pkg == "cluster" && (fn.Name == "New" || fn.Name == "Start") {
				found = true
			}
		}
		return !found
	})
	return found
}

// entersBubble reports whether body runs in a synctest bubble or asks for
// the virtual clock: it calls clustertest.Virtual, synctest's or bubble's
// Test, or names ClockVirtual.
func entersBubble(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Ident:
			if x.Name == "ClockVirtual" {
				found = true
			}
		case *ast.SelectorExpr:
			if pkg, ok := x.X.(*ast.Ident); ok {
				switch {
				case pkg.Name == "clustertest" && x.Sel.Name == "Virtual",
					pkg.Name == "synctest" && x.Sel.Name == "Test",
					pkg.Name == "bubble" && x.Sel.Name == "Test":
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// The check tells a real-clock start from one in a bubble, and finds the
// reason wherever the comment breaks its lines.
func TestRealClockStartsSeesBubblesAndReasons(t *testing.T) {
	for _, tc := range []struct {
		name, src     string
		funcs         []string
		wantExplained bool
	}{
		{name: "real, no reason", src: `package x_test
func TestX(t *testing.T) { c := cluster.New(t, cluster.Config{}); _ = c }`, funcs: []string{"TestX"}},
		{name: "real, a reason over two lines", src: `package x_test
// Example has no *testing.T, so it runs on the real
// clock.
func Example() { cluster.Start(ctx, cluster.Config{}) }`, funcs: []string{"Example"}, wantExplained: true},
		{name: "in a bubble", src: `package x_test
func TestX(t *testing.T) { clustertest.Virtual(t, func(t *testing.T) { cluster.New(t, cluster.Config{}) }) }`},
		{name: "virtual clock named", src: `package x_test
func TestX(t *testing.T) { synctest.Test(t, func(t *testing.T) { cluster.New(t, cluster.Config{Clock: cluster.ClockVirtual}) }) }`},
		{name: "inside package cluster", src: `package cluster
func TestX(t *testing.T) { New(t, Config{}) }`, funcs: []string{"TestX"}},
		{name: "no cluster", src: `package x_test
func TestX(t *testing.T) { other.New(t) }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x_test.go")
			if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			funcs, explained, err := realClockStarts(path)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(funcs, tc.funcs) || explained != tc.wantExplained {
				t.Errorf("realClockStarts = %v, explained %v; want %v, explained %v", funcs, explained, tc.funcs, tc.wantExplained)
			}
		})
	}
}
