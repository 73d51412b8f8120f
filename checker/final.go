package checker

import (
	"slices"
	"strings"
	"time"
)

// FinalState is what etcd held under a run's recipe keys when the run
// ended, read after every fault had healed and every process had ended:
// the keys and the leases alive. A judge that says a key was left behind
// checks its sentence against it; KeysOnLeases finds in it the keys that
// stayed after their writers were gone.
type FinalState struct {
	// At is when it was read, on the run clock.
	At time.Duration `json:"at"`
	// Keys are every key etcd held but those under History.WorkloadKeys,
	// in key order, each with its lease.
	Keys []FinalKey `json:"keys,omitempty"`
	// Leases are the leases etcd held, each with its TTL and the keys on
	// it, in ID order.
	Leases []FinalLease `json:"leases,omitempty"`
	// Err says what could not be read, "" if everything was: a state
	// with an error lists only what was read before it.
	Err string `json:"error,omitempty"`
}

// FinalKey is a key etcd held at a run's end.
type FinalKey struct {
	Key string `json:"key"`
	// Lease is the lease the key is on, 0 for none.
	Lease int64 `json:"lease,omitempty"`
	// CreateRevision and ModRevision are the key's revisions.
	CreateRevision int64 `json:"create_revision,omitempty"`
	ModRevision    int64 `json:"mod_revision,omitempty"`
}

// FinalLease is a lease etcd held at a run's end.
type FinalLease struct {
	ID int64 `json:"id"`
	// TTL is the TTL it was granted; Remaining what was left of it.
	TTL       time.Duration `json:"ttl"`
	Remaining time.Duration `json:"remaining"`
	// Keys are the keys attached to it, under any prefix.
	Keys []string `json:"keys,omitempty"`
}

// Key returns the key called k as etcd held it, and whether it held it.
func (f *FinalState) Key(k string) (FinalKey, bool) {
	if f == nil {
		return FinalKey{}, false
	}
	i, ok := slices.BinarySearchFunc(f.Keys, k, func(x FinalKey, k string) int { return strings.Compare(x.Key, k) })
	if !ok {
		return FinalKey{}, false
	}
	return f.Keys[i], true
}

// Lease returns the lease id as etcd held it, and whether it held it.
func (f *FinalState) Lease(id int64) (FinalLease, bool) {
	if f == nil {
		return FinalLease{}, false
	}
	for _, l := range f.Leases {
		if l.ID == id {
			return l, true
		}
	}
	return FinalLease{}, false
}

// Complete reports whether the state was read in full, so that a key's
// absence from it means etcd no longer held the key.
func (f *FinalState) Complete() bool { return f != nil && f.Err == "" }
