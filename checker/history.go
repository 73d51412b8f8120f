package checker

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/seed"
)

// HistoryVersion is the version of the history format WriteJSON writes;
// ReadHistory accepts it and every older one. Version 2 added the
// transactions' reads and writes (txn) and the revision in a read's
// response header; a version 1 history is a version 2 history without them.
// Version 3 gave each meaning of an operation field a field of its own: an
// enqueue's priority moved from Input.Token to Input.Priority, and a
// dequeue that found its queue empty from Output.Missing to Output.Empty.
// ReadHistory moves them when it reads an older history, whose enqueues and
// dequeues meant nothing else by those fields (see upgrade). Version 4
// added the lease operations (keepalive, revoke) and Output.TTL; a
// version 3 history is a version 4 history without them. Version 5 added
// the cluster's members and the clients' links (Meta.Members, Meta.Links)
// and the client a fault aimed at "pinned <client>" was resolved for
// (FaultEvent.Pinned); a version 4 history is a version 5 history without
// them, which SessionKept cannot judge. Version 6 added the clients'
// etcd users, what their roles grant and what their recipes need
// (Meta.Users); a version 5 history is a version 6 history without them,
// which PermissionHeld cannot judge. Version 7 added what the clients'
// connections did with leases and keys, whatever code made the calls
// (lease-grant, put), and what etcd held at the run's end
// (History.Final); a version 6 history is a version 7 history without
// them, on which KeysOnLeases is unknown and every judge takes the
// scenario's TTL. Version 8 keeps those calls (lease-grant, revoke, put,
// and delete-range, which it added) in History.Calls, apart from Ops;
// ReadHistory moves a version 7 history's calls there.
const HistoryVersion = 8

// Meta describes the run a history was recorded in.
type Meta struct {
	// RunID identifies the run. Every operation carries it, so histories of
	// two runs mixed into one are detected as invalid. The recorder
	// defaults it to the clock's origin.
	RunID string `json:"run_id,omitempty"`
	// Seed is the run's random seed, so the run can be replayed.
	Seed seed.Seed `json:"seed"`
	// Scenario names what was run; free text.
	Scenario string `json:"scenario,omitempty"`
	// SessionTTL is the TTL of the clients' etcd sessions (leases), 0 if
	// not recorded. Liveness and DiscoveryConvergence read it when their
	// options leave TTL zero.
	SessionTTL time.Duration `json:"session_ttl,omitempty"`
	// Members are the names of the cluster's members when the run began,
	// nil if not recorded. SessionKept reads them to tell a quorum.
	Members []string `json:"members,omitempty"`
	// Links names, per client (a process: "c1", never a thread "c1/2"),
	// the members it may talk to, when those are not all of them; a
	// client absent from it talks to every member.
	Links map[string][]string `json:"links,omitempty"`
	// Users names, per client (a process: "c1"), the etcd user it speaks
	// as, what that user's roles grant and what its recipe needs, when
	// the run had auth on; nil when auth was off or it was not recorded.
	// PermissionHeld reads it.
	Users map[string]ClientUser `json:"users,omitempty"`
	// WorkloadKeys are the prefixes of the keys the workload writes
	// itself, beside its recipe (a guarded resource, a counter). Every
	// other key a client's connection writes (KindPut) is taken as its
	// recipe's.
	WorkloadKeys []string `json:"workload_keys,omitempty"`
}

// ClientUser is the etcd user a client speaks as, with auth on.
type ClientUser struct {
	// User is the user's name.
	User string `json:"user"`
	// Grants are the key prefixes the user's roles grant.
	Grants []Grant `json:"grants,omitempty"`
	// Needs are the key prefixes the client's recipe reads, and writes
	// unless ReadOnly: what the user must be granted for its calls.
	Needs []Grant `json:"needs,omitempty"`
}

// Grant is a permission on the keys under a prefix: to read, and to write
// too unless ReadOnly.
type Grant struct {
	Prefix   string `json:"prefix"`
	ReadOnly bool   `json:"read_only,omitempty"`
}

// String says what g grants: "readwrite on E/", "read on E/".
func (g Grant) String() string {
	if g.ReadOnly {
		return "read on " + g.Prefix
	}
	return "readwrite on " + g.Prefix
}

// History is what a run did: its operations, the faults injected into it,
// and where it came from. Build one with a Recorder, or by hand in tests.
type History struct {
	// Version is the format version; 0 is taken as HistoryVersion in
	// memory, and WriteJSON always writes HistoryVersion.
	Version int `json:"version"`
	Meta
	// Ops are the operations, conventionally in the order they were called.
	Ops []Operation `json:"ops"`
	// Calls are what the clients' connections did with leases and keys,
	// whatever code made the calls: the operations of CallKinds, in the
	// order they were called. Their IDs are unique across Ops and Calls.
	// They are kept apart from Ops so that a judge that does not read them
	// does not walk them.
	Calls []Operation `json:"calls,omitempty"`
	// Faults are the faults injected during the run.
	Faults []FaultEvent `json:"faults,omitempty"`
	// End is when the history was taken, on the run clock (0 if unknown).
	End time.Duration `json:"end,omitempty"`
	// Final is what etcd held under the recipe's keys when the run ended,
	// nil if not recorded.
	Final *FinalState `json:"final,omitempty"`
}

// ErrInvalidHistory is wrapped by every *HistoryError.
var ErrInvalidHistory = errors.New("checker: invalid history")

// HistoryError says why a history cannot be judged, naming the first
// offending operation (or fault).
type HistoryError struct {
	// Op is the offending operation; nil when the problem is elsewhere.
	Op *Operation
	// Reason says what is wrong, in words.
	Reason string
}

func (e *HistoryError) Error() string {
	if e.Op != nil {
		return fmt.Sprintf("checker: invalid history: %s: %s", e.Op, e.Reason)
	}
	return "checker: invalid history: " + e.Reason
}

func (e *HistoryError) Unwrap() error { return ErrInvalidHistory }

func invalidOp(op *Operation, format string, args ...any) *HistoryError {
	c := *op
	return &HistoryError{Op: &c, Reason: fmt.Sprintf(format, args...)}
}

// Validate checks what every checker relies on: a known version; unique,
// non-negative operation IDs across Ops and Calls; the calls of clients'
// connections (CallKinds) in Calls and nowhere else; every operation from
// this history's run, with a client, a known kind and a valid outcome; calls at non-negative finite
// times; returns at or after their calls, and at Infinity exactly when the
// outcome is unknown; faults that heal after they start. It returns a
// *HistoryError naming the first offence, or nil.
//
// Checkers validate further what they read (a release must match an
// acquire, and so on).
func (h *History) Validate() error {
	if h.Version < 0 || h.Version > HistoryVersion {
		return &HistoryError{Reason: fmt.Sprintf("version %d, want 1 to %d", h.Version, HistoryVersion)}
	}
	if h.End < 0 || h.End >= Infinity {
		return &HistoryError{Reason: fmt.Sprintf("history ends at %d ns, not a time on the run clock", int64(h.End))}
	}
	// Recorded histories number their operations in one increasing
	// sequence split between Ops and Calls: each list is checked to
	// increase as it is walked, and only when one does not are the IDs
	// checked for uniqueness the slow way.
	known := make([]Kind, 0, 16)
	increasing, prev := true, -1
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.ID <= prev {
			increasing = false
		}
		prev = op.ID
		if op.Kind.IsCall() {
			return invalidOp(op, "a %s is a call of a client's connection: it belongs in History.Calls, not in Ops", op.Kind)
		}
		if err := h.validOp(op, &known); err != nil {
			return err
		}
	}
	prev = -1
	for i := range h.Calls {
		op := &h.Calls[i]
		if op.ID <= prev {
			increasing = false
		}
		prev = op.ID
		if !op.Kind.IsCall() {
			return invalidOp(op, "a %s in History.Calls, which holds only the calls of clients' connections (%s)", op.Kind, joinKinds(callKinds))
		}
		if err := h.validOp(op, &known); err != nil {
			return err
		}
	}
	if err := h.uniqueIDs(increasing); err != nil {
		return err
	}
	for i := range h.Faults {
		f := &h.Faults[i]
		if f.Start < 0 || f.Start >= Infinity {
			return &HistoryError{Reason: fmt.Sprintf("fault %d (%s) starts at %d ns, not a time on the run clock", i, f.Name, int64(f.Start))}
		}
		if f.Healed && (f.End < f.Start || f.End >= Infinity) {
			return &HistoryError{Reason: fmt.Sprintf("fault %d (%s) healed at %s, before it started at %s", i, f.Name, fmtTime(f.End), fmtTime(f.Start))}
		}
	}
	return nil
}

// joinKinds lists kinds, comma-separated.
func joinKinds(kinds []Kind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// validOp checks one operation of h; known are the kinds already found
// known, which it extends.
func (h *History) validOp(op *Operation, known *[]Kind) error {
	if op.Run != h.RunID {
		return invalidOp(op, "recorded in run %q, but the history is of run %q: histories of two runs are mixed", op.Run, h.RunID)
	}
	if op.Client == "" {
		return invalidOp(op, "operation without a client")
	}
	if !slices.Contains(*known, op.Kind) { // a history has a few kinds: asked once each
		if !op.Kind.Known() {
			return invalidOp(op, "unknown kind %q (custom kinds must begin with \"x-\")", op.Kind)
		}
		*known = append(*known, op.Kind)
	}
	if op.Call < 0 || op.Call >= Infinity {
		return invalidOp(op, "call at %d ns is not a time on the run clock", int64(op.Call))
	}
	switch op.Outcome {
	case OutcomeOK, OutcomeFailed:
		if op.Return >= Infinity {
			return invalidOp(op, "%s operation never returned; record it as unknown", op.Outcome)
		}
		if op.Return < op.Call {
			return invalidOp(op, "returns at %s, before its call at %s", fmtTime(op.Return), fmtTime(op.Call))
		}
	case OutcomeUnknown:
		if op.Return != Infinity {
			return invalidOp(op, "outcome unknown but returns at %s; an unknown outcome returns at +inf", fmtTime(op.Return))
		}
		if op.GaveUp != 0 && (op.GaveUp < op.Call || op.GaveUp >= Infinity) {
			return invalidOp(op, "gave up at %s, before its call", fmtTime(op.GaveUp))
		}
	default:
		return invalidOp(op, "outcome %q is none of ok, failed, unknown", op.Outcome)
	}
	return nil
}

// uniqueIDs checks that every operation ID of Ops and Calls is
// non-negative and used once; increasing says each list's IDs increase,
// and then a merge of the two finds a duplicate.
func (h *History) uniqueIDs(increasing bool) error {
	if increasing {
		for _, ops := range [][]Operation{h.Ops, h.Calls} {
			if len(ops) > 0 && ops[0].ID < 0 {
				return invalidOp(&ops[0], "negative operation id")
			}
		}
		for i, j := 0, 0; i < len(h.Ops) && j < len(h.Calls); {
			switch a, b := &h.Ops[i], &h.Calls[j]; {
			case a.ID == b.ID:
				return invalidOp(b, "operation id %d used twice", b.ID)
			case a.ID < b.ID:
				i++
			default:
				j++
			}
		}
		return nil
	}
	seen := make(map[int]bool, len(h.Ops)+len(h.Calls))
	for _, ops := range [][]Operation{h.Ops, h.Calls} {
		for i := range ops {
			op := &ops[i]
			if op.ID < 0 {
				return invalidOp(op, "negative operation id")
			}
			if seen[op.ID] {
				return invalidOp(op, "operation id %d used twice", op.ID)
			}
			seen[op.ID] = true
		}
	}
	return nil
}

// lastTime is the latest finite time the history mentions: its End, the
// returns of its operations, the times clients gave up, and fault ends.
func (h *History) lastTime() time.Duration {
	t := h.End
	for _, ops := range [][]Operation{h.Ops, h.Calls} {
		for i := range ops {
			op := &ops[i]
			t = max(t, op.Call)
			if op.Outcome == OutcomeUnknown {
				t = max(t, op.GaveUp)
			} else {
				t = max(t, op.Return)
			}
		}
	}
	for _, f := range h.Faults {
		t = max(t, f.Start)
		if f.Healed {
			t = max(t, f.End)
		}
	}
	if t >= Infinity {
		t = Infinity - 1
	}
	return t
}
