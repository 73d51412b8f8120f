package runfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A write that fails half way leaves the file as it was, and no
// temporary file behind.
func TestWriteIsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ResultFile)
	if err := WriteJSON(path, map[string]int{"version": 1}); err != nil {
		t.Fatal(err)
	}
	broke := errors.New("disk full")
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, `{"version": 2, "half`) //nolint:errcheck // the write fails anyway
		return broke
	})
	if !errors.Is(err, broke) {
		t.Fatalf("Write = %v, want it to wrap %v", err, broke)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "{\n  \"version\": 1\n}\n" {
		t.Errorf("after a failed write the file holds %q, want what was there before", b)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("the directory holds %d entries after a failed write, want only %s", len(entries), ResultFile)
	}
}
