package simrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/scenarios/results"
)

// A run whose result.json is whole but wrong — its verdict edited by hand
// — is rerun as invalid, not counted as truncated; one cut short is
// truncated.
func TestResumeTellsInvalidFromTruncated(t *testing.T) {
	golden := filepath.Join("..", "..", "..", "scenarios", "results", "testdata", "golden", "lock-unfenced-pause-holder", "golden", "seed-1")
	r, err := results.ReadRun(golden)
	if err != nil {
		t.Fatal(err)
	}
	j := job{scenario: r.Result.Scenario, variant: "golden"}
	for _, c := range []struct {
		name      string
		spoil     func(b []byte) []byte
		want, not string
	}{
		{"hand-edited verdict", func(b []byte) []byte {
			return []byte(strings.Replace(string(b), `"verdict": "violation",`, `"verdict": "ok",`, 1))
		}, "0 truncated rerun, 0 interrupted rerun, 0 missing, 1 whole but invalid rerun", "1 truncated"},
		{"cut short", func(b []byte) []byte { return b[:len(b)/2] }, "1 truncated rerun", "invalid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			dir := filepath.Join(out, filepath.FromSlash(j.dir()))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{results.ResultFile, results.HistoryFile} {
				b, err := os.ReadFile(filepath.Join(golden, f))
				if err != nil {
					t.Fatal(err)
				}
				if f == results.ResultFile {
					b = c.spoil(b)
				}
				if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var w strings.Builder
			done, err := resume(&w, out, "c.yaml", results.Summary{Command: "campaign", Campaign: "x"}, []job{j})
			if err != nil {
				t.Fatal(err)
			}
			if len(done) != 0 || !strings.Contains(w.String(), c.want) || strings.Contains(w.String(), c.not) {
				t.Errorf("resume kept %d runs and said:\n%s\nwant it to say %q and not %q", len(done), w.String(), c.want, c.not)
			}
		})
	}
}
