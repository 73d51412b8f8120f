package simrun

import (
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/scenarios"
)

// TestCommandGlobSkipsWhatItCannotRun checks that a -command over a glob
// that meets scenarios it cannot run (auth on) leaves them out, says which
// in one line, and keeps the rest.
func TestCommandGlobSkipsWhatItCannotRun(t *testing.T) {
	picked, err := match(scenarios.All(), []string{"lock/mutex/*"})
	if err != nil {
		t.Fatal(err)
	}
	exact := func(string) bool { return false }
	out, note, err := withCommand(picked, "/bin/true", "process", exact)
	if err != nil {
		t.Fatalf("withCommand: %v", err)
	}
	if len(out) != len(picked)-2 {
		t.Errorf("%d scenarios kept of %d; want all but the two with auth on", len(out), len(picked))
	}
	for _, s := range out {
		if s.Cluster.Auth != nil {
			t.Errorf("%s has auth on and was kept", s.Name)
		}
		if !strings.HasPrefix(s.Name, "lock/process/") {
			t.Errorf("%s: want the scenario renamed after the program's recipe", s.Name)
		}
	}
	want := "simrun: -command: skipping 2 of the 10 scenarios matched, which cannot run a program's recipe: lock/mutex/expire-token-holder, lock/mutex/expire-token-holder-jwt (cluster.auth: "
	if !strings.HasPrefix(note, want) || strings.Contains(note, "\n") {
		t.Errorf("note:\n%s\nwant one line beginning\n%s", note, want)
	}
}

// TestUniqueNames checks that a program's own scenario that repeats a
// name, a registered one's or another of its own, is named.
func TestUniqueNames(t *testing.T) {
	reg := scenarios.All()
	own := reg[0]
	own2 := reg[1]
	own2.Name = "mine/x"
	tests := []struct {
		name  string
		extra []scenarios.Scenario
		want  string
	}{
		{"none", nil, ""},
		{"distinct", []scenarios.Scenario{own2}, ""},
		{"registered", []scenarios.Scenario{own}, `"` + own.Name + `" (also a registered scenario)`},
		{"own twice", []scenarios.Scenario{own2, own2}, `"mine/x" (also another of the program's own)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkUniqueNames(append(scenarios.All(), tt.extra...), len(reg))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("checkUniqueNames: %v; want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("checkUniqueNames: %v; want it to say %s", err, tt.want)
			}
		})
	}
}
