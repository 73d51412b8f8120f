package results_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenRun is the run directory of testdata/golden: a real run of a
// campaign with a variant, its violation and its fault events included.
const goldenRun = "lock-unfenced-pause-holder/golden/seed-1"

// copyGolden copies testdata/golden into a new temporary directory and
// returns it, so that a test can break its files.
func copyGolden(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("testdata", "golden"))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// replace replaces the first old in the file at path with new; the file
// must hold old.
func replace(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s has no %q to replace", path, old)
	}
	if err := os.WriteFile(path, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// truncate cuts the file at path to a fraction of its length.
func truncate(t *testing.T, path string, fraction float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:int(float64(len(b))*fraction)], 0o644); err != nil {
		t.Fatal(err)
	}
}
