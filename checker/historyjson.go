package checker

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// WriteJSON writes the history as one JSON document of format version
// HistoryVersion. Times are integer nanoseconds on the run clock; an unknown
// outcome's return is Infinity, 9223372036854775807.
func (h History) WriteJSON(w io.Writer) error {
	h.Version = HistoryVersion
	enc := json.NewEncoder(w)
	if err := enc.Encode(h); err != nil {
		return fmt.Errorf("checker: write history: %w", err)
	}
	return nil
}

// ReadHistory reads one history written by WriteJSON, of version 1 to
// HistoryVersion, and returns it in the form of HistoryVersion: an older
// history's fields are moved to where this version keeps them. It
// rejects other versions, unknown fields and trailing data. It does not
// judge the operations: a history that decodes may still be invalid (see
// History.Validate), and every checker says so.
func ReadHistory(r io.Reader) (History, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var h History
	if err := dec.Decode(&h); err != nil {
		return History{}, fmt.Errorf("checker: read history: %w", err)
	}
	if h.Version < 1 || h.Version > HistoryVersion {
		return History{}, fmt.Errorf("checker: read history: version %d, want 1 to %d", h.Version, HistoryVersion)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return History{}, errors.New("checker: read history: data after the history")
	}
	h.upgrade()
	return h, nil
}

// upgrade moves the fields of a history older than version 3 to where
// version 3 keeps them, and the calls of a version 7 history's connections
// from Ops to Calls, and marks it of HistoryVersion. Before version 3
// an enqueue carried its item's priority in Input.Token and a dequeue
// that found its queue empty said so with Output.Missing; neither kind
// gave those fields another meaning, so the move is exact, and a history
// read back is judged as it was when it was written.
func (h *History) upgrade() {
	if h.Version < 8 {
		h.SplitCalls() // version 7 kept its connections' calls in Ops
	}
	if h.Version >= 3 {
		h.Version = HistoryVersion // versions 4 to 8 otherwise only added kinds and fields
		return
	}
	for i := range h.Ops {
		op := &h.Ops[i]
		switch op.Kind {
		case KindEnqueue:
			op.Input.Priority, op.Input.Token = op.Input.Token, 0
		case KindDequeue:
			op.Output.Empty, op.Output.Missing = op.Output.Missing, false
		}
	}
	h.Version = HistoryVersion
}

// SplitCalls moves the calls of clients' connections (CallKinds) from Ops
// to Calls, keeping their IDs and the order of each list: a history built
// by hand, or read as written before version 8, in the form every judge
// reads.
func (h *History) SplitCalls() {
	if !slices.ContainsFunc(h.Ops, func(op Operation) bool { return op.Kind.IsCall() }) {
		return
	}
	ops := make([]Operation, 0, len(h.Ops))
	var calls []Operation
	for _, op := range h.Ops {
		if op.Kind.IsCall() {
			calls = append(calls, op)
		} else {
			ops = append(ops, op)
		}
	}
	h.Ops = ops
	h.Calls = append(calls, h.Calls...)
	slices.SortStableFunc(h.Calls, func(a, b Operation) int { return cmp.Compare(a.ID, b.ID) })
}
