package checker

import (
	"fmt"
	"slices"
	"strings"
)

// KeyValue is one key of a transaction: what it wrote (Input.Writes: Key
// and Value) or what it read (Output.Reads: Key, and Value or Missing, and
// Revision, the mod revision of the value read; 0 when the key was
// missing).
type KeyValue struct {
	Key      string `json:"key"`
	Value    string `json:"value,omitempty"`
	Missing  bool   `json:"missing,omitempty"`
	Revision int64  `json:"revision,omitempty"`
}

// String renders kv as key=value@revision, or key=missing.
func (kv KeyValue) String() string {
	switch {
	case kv.Missing:
		return kv.Key + "=missing"
	case kv.Revision != 0:
		return fmt.Sprintf("%s=%q@%d", kv.Key, kv.Value, kv.Revision)
	}
	return fmt.Sprintf("%s=%q", kv.Key, kv.Value)
}

// describeKVs renders up to 8 key-values.
func describeKVs(kvs []KeyValue) string {
	s := make([]string, len(kvs))
	for i, kv := range kvs {
		s[i] = kv.String()
	}
	return shortList(s)
}

// txnSet is what BankTotal and Serializable read of a history: its
// transactions, checked for what both rely on.
type txnSet struct {
	ops []int // indices of the txn operations, in history order
}

// txns collects h's transactions. Invalid: a txn that writes or reads a
// key twice or without a key, a read both missing and valued, a committed
// txn without a revision, and whatever History.Validate rejects.
func txns(h *History) (txnSet, error) {
	if err := h.Validate(); err != nil {
		return txnSet{}, err
	}
	var t txnSet
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind != KindTxn {
			continue
		}
		seen := map[string]bool{}
		for _, w := range op.Input.Writes {
			if w.Key == "" {
				return t, invalidOp(op, "txn writes without a key")
			}
			if seen[w.Key] {
				return t, invalidOp(op, "txn writes %s twice", w.Key)
			}
			seen[w.Key] = true
		}
		clear(seen)
		if op.Outcome == OutcomeOK {
			for _, r := range op.Output.Reads {
				if r.Key == "" {
					return t, invalidOp(op, "txn reads without a key")
				}
				if seen[r.Key] {
					return t, invalidOp(op, "txn reads %s twice", r.Key)
				}
				seen[r.Key] = true
				if r.Missing && (r.Value != "" || r.Revision != 0) {
					return t, invalidOp(op, "txn read of %s is both missing and %s", r.Key, r)
				}
			}
			if op.Output.Succeeded && len(op.Input.Writes) > 0 && op.Output.Revision <= 0 {
				return t, invalidOp(op, "committed txn with writes but no commit revision")
			}
		}
		t.ops = append(t.ops, i)
	}
	return t, nil
}

// readsAll reports whether op read every key of keys.
func readsAll(op *Operation, keys []string) bool {
	if len(op.Output.Reads) < len(keys) {
		return false
	}
	read := make(map[string]bool, len(op.Output.Reads))
	for _, r := range op.Output.Reads {
		read[r.Key] = true
	}
	for _, k := range keys {
		if !read[k] {
			return false
		}
	}
	return true
}

// joinKeys renders keys for a message.
func joinKeys(keys []string) string { return strings.Join(keys, " ") }

// SetWrites records what a pending transaction writes, which it knows only
// once it has read: a transfer's new balances depend on the old. Call it
// before the operation completes; it returns an error wrapping
// ErrCompleted after.
func (p *Pending) SetWrites(writes []KeyValue) error {
	writes = slices.Clone(writes)
	p.r.mu.Lock()
	defer p.r.mu.Unlock()
	op := p.log.at(p.index)
	if op.Outcome != "" {
		return fmt.Errorf("%w: %s: writes set after it completed", ErrCompleted, op)
	}
	op.Input.Writes = writes
	return nil
}
