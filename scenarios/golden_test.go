package scenarios_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/etcdsim/etcdsim/scenarios"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// goldenRegistry is every registered scenario as a result file records it
// — with its defaults filled in — in the order All gives them. A change to
// a family's defaults, names, checkers or schedules shows here as a diff of
// the file: a result file of the registry must keep its meaning from one
// etcdsim to the next, so a diff is either intended (and the schema
// version moves if a file's form changed) or a bug.
const goldenRegistry = "testdata/registry.golden.json"

func TestRegistryGolden(t *testing.T) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	for _, s := range scenarios.All() {
		s = scenarios.WithDefaults(s)
		if s.Upstream != nil {
			// The etcd version comes from the binary's build info, which
			// a test binary carries from Go 1.27 on and not before: it
			// says what was built, not what the registry means.
			u := *s.Upstream
			u.Etcd = ""
			s.Upstream = &u
		}
		if err := enc.Encode(s); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
	}
	if *update {
		if err := os.WriteFile(filepath.FromSlash(goldenRegistry), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(filepath.FromSlash(goldenRegistry))
	if err != nil {
		t.Fatalf("%v (run go test ./scenarios -run TestRegistryGolden -update to write it)", err)
	}
	if !bytes.Equal(want, buf.Bytes()) {
		got := filepath.Join(t.TempDir(), "registry.json")
		os.WriteFile(got, buf.Bytes(), 0o644) //nolint:errcheck // for the message only
		t.Errorf("the registry's scenarios differ from %s: diff %s %s (go test ./scenarios -run TestRegistryGolden -update rewrites it when the change is intended)", goldenRegistry, goldenRegistry, got)
	}
}
