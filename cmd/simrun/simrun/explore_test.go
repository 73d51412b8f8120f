package simrun_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad input to simrun explore is one line on stderr, and exit 2, before
// any cluster starts.
func TestExploreBadInput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no budget", []string{"-family", "lock", "-recipe", "mutex", "-out", out}, "give a budget"},
		{"zero runs and budget", []string{"-family", "lock", "-recipe", "mutex", "-runs", "0", "-budget", "0s", "-out", out}, "give a budget"},
		{"negative budget", []string{"-family", "lock", "-recipe", "mutex", "-budget", "-5m", "-out", out}, "budget -5m0s is negative"},
		{"negative runs", []string{"-family", "lock", "-recipe", "mutex", "-runs", "-2", "-out", out}, "runs -2 is negative"},
		{"unknown family", []string{"-family", "locks", "-recipe", "mutex", "-runs", "2", "-out", out}, `unknown family "locks"`},
		{"unknown recipe", []string{"-family", "lock", "-recipe", "nope", "-runs", "2", "-out", out}, `no recipe named "nope"`},
		{"bad shard", []string{"-family", "lock", "-recipe", "mutex", "-runs", "2", "-shard", "3/2", "-out", out}, "shard 3 of 2"},
		{"no out", []string{"-family", "lock", "-recipe", "mutex", "-runs", "2"}, "-out is required"},
		{"merge without dirs", []string{"-merge", "-out", out}, "name the shard directories"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := simrunRun(t, append([]string{"explore"}, tc.args...)...)
			if code != 2 || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "goroutine") {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tc.want)
			}
			if first, _, _ := strings.Cut(stderr, "\n"); !strings.HasPrefix(first, "simrun explore: ") {
				t.Errorf("first line %q does not begin with simrun explore:", first)
			}
		})
	}
}

// simrun explore -merge writes the merged findings page beside
// findings.json and findings.md, each group linked to its run's page —
// here in shards copied off where they ran, as a CI job's artifacts are.
func TestExploreMergeWritesTheFindingsPage(t *testing.T) {
	dir := t.TempDir()
	var shards []string
	for _, name := range []string{"shard-0", "shard-1"} {
		shard := filepath.Join(dir, name)
		copyTree(t, "../../../reports/testdata/findings", shard)
		shards = append(shards, shard)
	}
	out := filepath.Join(dir, "merged")
	code, stdout, stderr := simrunRun(t, append([]string{"explore", "-merge", "-out", out}, shards...)...)
	if code != 1 || !strings.Contains(stdout, "3 distinct ways lock unfenced breaks in 24 runs") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and 3 distinct ways in 24 runs", code, stdout, stderr)
	}
	page, err := os.ReadFile(filepath.Join(out, "findings.html"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), `class="page" href="../shard-0/smallest/`); n != 3 {
		t.Errorf("the merged page links %d groups to shard-0's runs, want 3:\n%s", n, page)
	}
}

// copyTree copies the directory src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}
