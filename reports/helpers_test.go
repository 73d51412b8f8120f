package reports_test

import (
	"os"
	"testing"
)

// copyDir copies the directory src into a new temporary directory and
// returns it, so that rendering does not write into testdata.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}
