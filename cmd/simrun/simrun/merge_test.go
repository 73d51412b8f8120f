package simrun_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shardDir writes a shard's summary.json, with one run and its files.
func shardDir(t *testing.T, campaign string, index, count int) string {
	t.Helper()
	dir := t.TempDir()
	run := filepath.Join("s", "seed-"+string(rune('0'+index)))
	if err := os.MkdirAll(filepath.Join(dir, run), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, run, "result.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := map[string]any{"version": 1, "command": "campaign", "campaign": campaign, "campaign_runs": count,
		"shards": []map[string]int{{"index": index, "count": count}}, "planned": 1,
		"runs": []map[string]any{{"name": "s", "seed": "1", "dir": run, "met": true, "duration": "1s"}}}
	b, _ := json.Marshal(sum)
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestMerge(t *testing.T) {
	a0, a1, a2 := shardDir(t, "aaaa", 0, 3), shardDir(t, "aaaa", 1, 3), shardDir(t, "aaaa", 2, 3)
	b1 := shardDir(t, "bbbb", 1, 3)
	tests := []struct {
		name     string
		dirs     []string
		wantCode int
		want     string // in stderr
	}{
		{"all shards", []string{a0, a1, a2}, 0, ""},
		{"missing shard", []string{a0, a2}, 1, "missing shards of campaign aaaa: 1/3"},
		{"different campaigns", []string{a0, b1}, 2, "refusing to merge different campaigns"},
		{"overlapping shards", []string{a0, a0}, 2, "refusing overlapping shards"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "merged")
			code, stdout, stderr := simrunRun(t, append([]string{"merge", "-out", out}, tt.dirs...)...)
			if code != tt.wantCode || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, tt.want, stdout, stderr)
			}
			if tt.wantCode == 0 {
				if _, err := os.Stat(filepath.Join(out, "s", "seed-2", "result.json")); err != nil {
					t.Error(err)
				}
			}
		})
	}
}
