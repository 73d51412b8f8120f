package reports_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/reports"
)

// TestInterruptedIsItsOwnState renders testdata/interrupted — a real
// batch stopped by SIGINT: one run met, two stopped before their verdict —
// and checks that the stopped runs are neither failures nor runs that
// could not be loaded: RenderDir reports no error, summary.md's heading is
// no ❌ and lists them apart, junit.xml skips them with why, and the
// campaign page lists them under their own heading.
func TestInterruptedIsItsOwnState(t *testing.T) {
	dir := copyDir(t, "testdata/interrupted")
	if err := reports.RenderDir(dir); err != nil {
		t.Fatalf("RenderDir: %v; an interrupted run is no error", err)
	}
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name      string
		file      string
		want, not []string
	}{
		{"summary.md", "summary.md",
			[]string{"## ⏸ etcdsim: 1 of 1 runs met their expectation; 2 interrupted before their verdict\n", "### Interrupted before their verdict",
				"- `lock-mutex-leader-kill/seed-1`: ", "- `lock-mutex-leader-kill/seed-2`: "},
			[]string{"❌", "✅", "Could not be loaded", "### Missed"}},
		{"junit.xml", "junit.xml",
			[]string{`<testsuites name="etcdsim" tests="3" failures="0" errors="0" skipped="2">`,
				`<testcase classname="interrupted" name="lock-mutex-leader-kill/seed-1" time="0.000">`,
				`<skipped message="interrupted before its verdict: results: lock-mutex-leader-kill/seed-1 (lock/mutex/leader-kill seed 1): interrupted before it had a verdict`},
			[]string{"<error", "<failure"}},
		{"index.html", "index.html",
			[]string{`<span class="interrupted">2 interrupted before their verdict.</span>`, "<h2>Runs interrupted before their verdict</h2>",
				"<code>lock-mutex-leader-kill/seed-2</code>"},
			[]string{"could not be loaded", `class="missed"`, "Runs that missed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := read(tt.file)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("%s does not say %q:\n%s", tt.file, w, got)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("%s says %q, which an interrupted run is not:\n%s", tt.file, n, got)
				}
			}
		})
	}
}
