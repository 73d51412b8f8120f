package reports_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/etcdsim/etcdsim/reports"
)

// TestRenderDirGolden renders testdata/results — two real runs and one
// hand-broken run directory — and compares summary.md and junit.xml with
// testdata/golden. go test -update rewrites them.
func TestRenderDirGolden(t *testing.T) {
	dir := copyDir(t, "testdata/results")
	err := reports.RenderDir(dir)
	if err == nil || !strings.Contains(err.Error(), "lock-mutex-leader-kill/seed-99/result.json: truncated") {
		t.Fatalf("RenderDir = %v, want an error naming the truncated result.json of seed-99", err)
	}
	for _, name := range []string{"summary.md", "junit.xml"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", "golden", name)
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (go test -update writes it)", err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s differs from %s (-want +got):\n%s", name, golden, diff)
		}
	}
	for _, page := range []string{"index.html", "lock-mutex-leader-kill/seed-1/report.html", "lock-shared-session-healthy/seed-1/report.html",
		"lock-mutex-leader-kill/seed-1/porcupine-lock-linearizable.html"} {
		if _, err := os.Stat(filepath.Join(dir, page)); err != nil {
			t.Errorf("RenderDir wrote no %s: %v", page, err)
		}
	}
	index, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	if !strings.Contains(string(index), "lock-mutex-leader-kill/seed-99") {
		t.Errorf("index.html does not list the run that failed to load")
	}
}
