package checker

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the want.txt files of testdata/explain from what the checkers say")

// TestExplainRecordedRuns judges each history under testdata/explain/<case>/,
// recorded by a real run of the scenario the case is named after (seed 1;
// scenario.json, where there is one, is a scenario simrun run -f reads),
// with the checkers that scenario runs, listed in checkers.txt, and compares
// the first sentence of each that found a violation with want.txt, one
// "checker: sentence" a line. go test ./checker/ -run
// TestExplainRecordedRuns -update rewrites want.txt.
func TestExplainRecordedRuns(t *testing.T) {
	forEachCase(t, "testdata/explain", func(t *testing.T, dir string, h History) {
		names, err := os.ReadFile(filepath.Join(dir, "checkers.txt"))
		if err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		for _, name := range strings.Fields(string(names)) {
			i := slices.IndexFunc(checkers, func(c namedChecker) bool { return c.name == name })
			if i < 0 {
				t.Fatalf("checkers.txt: no checker named %q", name)
			}
			c := checkers[i]
			if res := c.check(h); len(res.Violations) > 0 {
				got.WriteString(c.name + ": " + res.Violations[0].Message + "\n")
			}
		}
		file := filepath.Join(dir, "want.txt")
		if *update {
			if err := os.WriteFile(file, []byte(got.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), got.String()); diff != "" {
			t.Errorf("sentences (-want +got):\n%s", diff)
		}
	})
}
