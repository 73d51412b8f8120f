package simrun_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/cmd/simrun/simrun"
)

// simrunRun runs simrun with args and returns its exit code, stdout and
// stderr.
func simrunRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := simrun.Run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	badYAML := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(badYAML, []byte("scenarios: [lock/shared-session/healthy]\nseeds: [1]\nmembrs: [3]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	tests := []struct {
		name string
		args []string
		want []string // in stderr
	}{
		{"no command", nil, nil},
		{"unknown command", []string{"bogus"}, []string{`unknown command "bogus"`, "list, run, gallery, replay, campaign, merge"}},
		{"unknown scenario", []string{"run", "-out", out, "lock/shared-sesion/healthy"}, []string{`no scenario matches "lock/shared-sesion/healthy"`, "closest: lock/shared-session/healthy"}},
		{"bad seed", []string{"run", "-seed", "12x", "lock/shared-session/healthy"}, []string{"-seed", `"12x"`}},
		{"parallel 0", []string{"run", "-parallel", "0", "lock/"}, []string{"-parallel 0: want at least 1"}},
		{"parallel negative", []string{"gallery", "-parallel", "-1"}, []string{"-parallel -1"}},
		{"unknown flag", []string{"run", "-bogus", "lock/"}, []string{"flag provided but not defined: -bogus", "usage: simrun run"}},
		{"no names", []string{"run"}, []string{"name at least one scenario"}},
		{"unwritable out", []string{"run", "-out", filepath.Join(file, "sub"), "lock/shared-session/healthy"}, []string{"-out " + filepath.Join(file, "sub")}},
		{"list arguments", []string{"list", "x"}, []string{"list takes no arguments"}},
		{"replay missing file", []string{"replay", filepath.Join(dir, "nope.json")}, []string{"nope.json"}},
		{"scenario file missing", []string{"run", "-f", filepath.Join(dir, "nope.json")}, []string{"-f", "nope.json"}},
		{"scenario file not a scenario", []string{"run", "-f", badYAML}, []string{"-f: results: " + badYAML, "malformed JSON at line 1"}},
		{"shard beyond count", []string{"campaign", "-f", badYAML, "-shard", "3/2"}, []string{"-shard 3/2"}},
		{"malformed campaign", []string{"campaign", "-f", badYAML, "-out", out}, []string{"line 3", "membrs"}},
		{"campaign without file", []string{"campaign"}, []string{"-f"}},
		{"shard auto without index", []string{"campaign", "-f", badYAML, "-shard", "auto", "-shards", "2"}, []string{"JOB_COMPLETION_INDEX"}},
	}
	t.Setenv("JOB_COMPLETION_INDEX", "")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := simrunRun(t, tt.args...)
			if code != 2 {
				t.Errorf("exit code %d, want 2; stderr:\n%s", code, stderr)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stderr holds a stack trace:\n%s", stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, stderr)
				}
			}
		})
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"run", "-h"}, {"help", "campaign"}, {"list", "-h"}} {
		code, stdout, stderr := simrunRun(t, args...)
		if code != 0 || !strings.Contains(stdout, "usage") && !strings.Contains(stdout, "Commands:") {
			t.Errorf("simrun %q: exit %d, stdout:\n%s\nstderr:\n%s", args, code, stdout, stderr)
		}
	}
}

func TestListJSON(t *testing.T) {
	code, stdout, stderr := simrunRun(t, "list", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{`"name": "lock/shared-session/healthy"`, `"expect": "violation of mutual-exclusion (overlap)"`} {
		if !strings.Contains(stdout, w) {
			t.Errorf("list -json does not hold %s", w)
		}
	}
}
