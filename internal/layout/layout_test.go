package layout

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

type listed struct {
	ImportPath string
	Name       string
	Imports    []string
}

// modulePackages lists the module's packages and their imports with go
// list, as a user reading the graph would.
func modulePackages(t *testing.T) (module string, pkgs []listed) {
	t.Helper()
	out, err := exec.Command("go", "list", "-m").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	module = strings.TrimSpace(string(out))
	cmd := exec.Command("go", "list", "-json=ImportPath,Name,Imports", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list's output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return module, pkgs
}

// upsideDown returns, for each package that imports one in a folder below
// its own, a line naming both. Main packages are exempt.
func upsideDown(pkgs []listed) []string {
	var bad []string
	for _, p := range pkgs {
		if p.Name == "main" {
			continue
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, p.ImportPath+"/") {
				bad = append(bad, p.ImportPath+" imports "+imp+", a folder below it")
			}
		}
	}
	return bad
}

func TestNoPackageImportsOneBelowIt(t *testing.T) {
	module, pkgs := modulePackages(t)
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages under %s; want the whole module", len(pkgs), module)
	}
	for _, line := range upsideDown(pkgs) {
		t.Error(line)
	}
}

// The rule is shown a graph that breaks it before it is trusted.
func TestUpsideDownFindsAParentImportingItsChild(t *testing.T) {
	pkgs := []listed{
		{ImportPath: "m/scenarios", Name: "scenarios", Imports: []string{"m/scenarios/process", "m/checker"}},
		{ImportPath: "m/scenarios/results", Name: "results", Imports: []string{"m/scenarios"}},
		{ImportPath: "m/cmd/simrun", Name: "main", Imports: []string{"m/cmd/simrun/simrun"}},
		{ImportPath: "m/lock", Name: "lock", Imports: []string{"m/lockstep"}},
	}
	got := upsideDown(pkgs)
	want := []string{"m/scenarios imports m/scenarios/process, a folder below it"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("upsideDown = %q; want %q", got, want)
	}
}
