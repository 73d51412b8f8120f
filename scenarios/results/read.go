package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
)

// Every file is read the same way: whole, its "version" first, then
// strictly — an unknown field, a value of the wrong type or anything after
// the document is an error that names the file and says where. A newer
// version is a *VersionError, and is reported before any field is looked
// at: a newer etcdsim may have added the fields an older one would call
// unknown.

// ErrTruncated is wrapped by the error for a file that ends early, empty
// ones included: the mark of a process killed while writing it (simrun
// writes atomically, so only files written by other means end that way).
var ErrTruncated = errors.New("truncated")

// VersionError is the error for a file of a newer version than this
// etcdsim reads.
type VersionError struct {
	File    string // the file, as it was named to the reader
	Version int    // the file's version
	Newest  int    // the newest version of that file this etcdsim reads
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("results: %s has version %d; this etcdsim reads versions up to %d: read it with a newer etcdsim", e.File, e.Version, e.Newest)
}

// ReadSummary reads the summary.json at path.
func ReadSummary(path string) (*Summary, error) {
	var s Summary
	if err := readFile(path, path, SummaryVersion, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// ReadScenario reads a scenario file, as simrun writes scenario.json and
// as simrun run -f takes one: path may have any name.
func ReadScenario(path string) (scenarios.Scenario, error) {
	var s scenarios.Scenario
	if err := readFile(path, path, scenarios.SchemaVersion, &s); err != nil {
		return scenarios.Scenario{}, err
	}
	return s, nil
}

// ReadResult reads the result.json at path alone. Its History is empty:
// ReadRun reads a run's directory, the history beside the result included.
func ReadResult(path string) (*scenarios.Result, error) {
	return readResult(path, path)
}

// readResult reads the result.json at path, called name in errors.
func readResult(path, name string) (*scenarios.Result, error) {
	var r scenarios.Result
	if err := readFile(path, name, scenarios.SchemaVersion, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// readHistory reads the history.json at path, called name in errors.
func readHistory(path, name string) (checker.History, error) {
	b, err := readVersioned(path, name, checker.HistoryVersion)
	if err != nil {
		return checker.History{}, err
	}
	h, err := checker.ReadHistory(bytes.NewReader(b))
	if err != nil {
		if inner := errors.Unwrap(err); inner != nil {
			err = inner
		}
		return checker.History{}, fmt.Errorf("results: %s: %w", name, explainJSON(b, err))
	}
	return h, nil
}

// readFile reads the file at path (called name in errors), of a version
// up to newest, into v.
func readFile(path, name string, newest int, v any) error {
	b, err := readVersioned(path, name, newest)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("results: %s: %w", name, explainJSON(b, err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("results: %s: data after the JSON document at offset %d", name, dec.InputOffset())
	}
	return nil
}

// readVersioned reads the file at path (called name in errors) and
// checks that its "version" is one this etcdsim reads.
func readVersioned(path, name string, newest int) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("results: %s is missing: %w", name, fs.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("results: %s is empty: %w", name, ErrTruncated)
	}
	var v struct {
		Version int `json:"version"`
	}
	// The first document's version only: what follows it is readFile's
	// to refuse.
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&v); err != nil {
		return nil, fmt.Errorf("results: %s: %w", name, explainJSON(b, err))
	}
	if v.Version > newest {
		return nil, &VersionError{File: name, Version: v.Version, Newest: newest}
	}
	return b, nil
}

// explainJSON says where in b a decoding error lies, and calls an early
// end truncation (wrapping ErrTruncated).
func explainJSON(b []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &syn) && syn.Offset >= int64(len(b)):
		return fmt.Errorf("%w: the JSON ends early, after %d bytes", ErrTruncated, len(b))
	case errors.As(err, &syn):
		line, col := position(b, syn.Offset)
		return fmt.Errorf("malformed JSON at line %d, column %d: %v", line, col, syn)
	case errors.As(err, &typ):
		line, col := position(b, typ.Offset)
		return fmt.Errorf("line %d, column %d: field %q: JSON %s where a %s belongs", line, col, typ.Field, typ.Value, typ.Type)
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Errorf("unknown field %s (check its spelling against the documented fields, or read the file with the etcdsim that wrote it)", f)
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
