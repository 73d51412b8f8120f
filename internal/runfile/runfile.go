// Package runfile writes the files a run leaves behind, each atomically.
//
// It is the writing half of package scenarios/results, put below package
// scenarios so that scenarios.Run, which writes a run's result.json and
// history.json itself (for simrun's child and for scenarios.Test's
// artifacts), and package results, which sits above scenarios and writes
// through the same code, share one writer. Only results reads the files;
// everything else imports results, not this package.
package runfile

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/etcdsim/etcdsim/checker"
)

// The two files of a run's directory that scenarios.Run writes.
const (
	ResultFile  = "result.json"
	HistoryFile = "history.json"
)

// WriteRun writes a run's history.json, then its result.json, into dir.
// Each appears whole or not at all, and result.json last: a directory
// whose result.json is there holds a history written in full beside it.
func WriteRun(dir string, result any, h checker.History) error {
	if err := Write(filepath.Join(dir, HistoryFile), h.WriteJSON); err != nil {
		return err
	}
	return WriteJSON(filepath.Join(dir, ResultFile), result)
}

// WriteJSON writes v to path as indented JSON with a final newline, the
// way every file of a results directory is written.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// Write writes the file at path with write, atomically: into a temporary
// file beside it, renamed over path once write has returned and the file
// is closed. A process killed while writing leaves path as it was (and a
// hidden temporary file, which readers do not look at); it never leaves
// path half written.
func Write(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
