package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
)

// Run is one run loaded from its directory: its result and its history.
type Run struct {
	// Dir is the run's directory as it was given (LoadRun) or relative to
	// the results directory (LoadDir).
	Dir string
	// Variant names the overrides a campaign applied ("members-5"), read
	// from the directory: <scenario>/<variant>/seed-<n>. "" for none.
	Variant string
	Result  *scenarios.Result
	History checker.History
}

// The files of a run directory.
const (
	resultFile  = "result.json"
	historyFile = "history.json"
	runPageFile = "report.html"
)

// LoadRun loads the run in dir: result.json and history.json. A missing,
// truncated or hand-broken file, a newer schema version, or a history that
// does not agree with its result is an error naming the file and what is
// wrong with it.
func LoadRun(dir string) (*Run, error) {
	return loadRun(dir, dir)
}

// loadRun loads the run in dir, naming its files after name in errors.
func loadRun(dir, name string) (*Run, error) {
	rp, hp := filepath.Join(name, resultFile), filepath.Join(name, historyFile)
	var res scenarios.Result
	if err := readJSON(filepath.Join(dir, resultFile), rp, scenarios.SchemaVersion, &res); err != nil {
		return nil, err
	}
	var h checker.History
	b, err := readVersioned(filepath.Join(dir, historyFile), hp, checker.HistoryVersion)
	if err != nil {
		return nil, err
	}
	if h, err = checker.ReadHistory(bytes.NewReader(b)); err != nil {
		if inner := errors.Unwrap(err); inner != nil {
			err = inner
		}
		return nil, fmt.Errorf("reports: %s: %w", hp, explainJSON(b, err))
	}
	r := &Run{Dir: name, Result: &res, History: h}
	if err := r.consistent(); err != nil {
		return nil, fmt.Errorf("reports: %s: %w", hp, err)
	}
	return r, nil
}

// readVersioned reads the file at path (called name in errors) and checks
// that its "version" is one this etcdsim reads.
func readVersioned(path, name string, newest int) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reports: %s is missing", name)
	}
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("reports: %s is empty", name)
	}
	var v struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("reports: %s: %w", name, explainJSON(b, err))
	}
	if v.Version > newest {
		return nil, fmt.Errorf("reports: %s has schema version %d; this etcdsim reads versions up to %d: render it with a newer etcdsim", name, v.Version, newest)
	}
	return b, nil
}

// readJSON reads the file at path (called name in errors) into v,
// rejecting unknown fields and trailing data.
func readJSON(path, name string, newest int, v any) error {
	b, err := readVersioned(path, name, newest)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("reports: %s: %w", name, explainJSON(b, err))
	}
	if dec.More() {
		return fmt.Errorf("reports: %s: data after the JSON document at offset %d", name, dec.InputOffset())
	}
	return nil
}

// explainJSON says where in b a decoding error lies, and calls an early
// end truncation.
func explainJSON(b []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &syn) && syn.Offset >= int64(len(b)):
		return fmt.Errorf("truncated: the JSON ends early, after %d bytes", len(b))
	case errors.As(err, &syn):
		line, col := position(b, syn.Offset)
		return fmt.Errorf("malformed JSON at line %d, column %d: %v", line, col, syn)
	case errors.As(err, &typ):
		line, col := position(b, typ.Offset)
		return fmt.Errorf("line %d, column %d: field %q: JSON %s where a %s belongs", line, col, typ.Field, typ.Value, typ.Type)
	}
	return err
}

// position turns a byte offset into a 1-based line and column.
func position(b []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(b)))
	line = 1 + bytes.Count(b[:off], []byte("\n"))
	col = int(off) - bytes.LastIndexByte(b[:off], '\n')
	return line, col
}
