package simrun_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// simrun list, in both its forms, is what people and scripts read the
// registry by: a scenario's name, expectation and description keep their
// meaning from one etcdsim to the next. A diff is either intended — then
// go test ./cmd/simrun/simrun -run TestListGolden -update rewrites the
// files — or a bug.
func TestListGolden(t *testing.T) {
	for _, tc := range []struct {
		file string
		args []string
	}{
		{"list.golden.txt", []string{"list"}},
		{"list.golden.json", []string{"list", "-json"}},
	} {
		code, stdout, stderr := simrunRun(t, tc.args...)
		if code != 0 {
			t.Fatalf("simrun %v: exit %d: %s", tc.args, code, stderr)
		}
		path := filepath.Join("testdata", tc.file)
		if *update {
			if err := os.WriteFile(path, []byte(stdout), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(want) != stdout {
			got := filepath.Join(t.TempDir(), tc.file)
			os.WriteFile(got, []byte(stdout), 0o644) //nolint:errcheck // for the message only
			t.Errorf("simrun %v differs from %s: diff %s %s", tc.args, path, path, got)
		}
	}
}
