package lock

import (
	"fmt"
	"slices"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// NewLocker makes the Locker of one client for the lock called name: the
// constructor every recipe provides.
type NewLocker func(cli *clientv3.Client, name string, opts Options) (Locker, error)

// Recipe is a lock implementation scenarios can run by name. A user's own
// lock becomes one by filling in a Recipe; it need not be registered here.
type Recipe struct {
	// Name identifies the recipe in scenarios and reports.
	Name string `json:"name"`
	// Broken marks a deliberately broken recipe: scenarios expect its
	// violation rather than report it.
	Broken bool `json:"broken,omitempty"`
	// Number is a broken recipe's number in issue 4's list of pitfalls;
	// 0 for a correct recipe.
	Number int `json:"number,omitempty"`
	// Pitfall says, for a broken recipe, what breaks and where it comes
	// from. "" for a correct recipe.
	Pitfall string `json:"pitfall,omitempty"`
	// New returns a Locker for the lock called name on cli. Each client
	// of a scenario gets a Locker of its own.
	New NewLocker `json:"-"`
}

// recipes is the registry, in the order Recipes returns it: the correct
// ones, then the pitfalls by their number in issue 4.
var recipes = []Recipe{
	{Name: "mutex", New: func(cli *clientv3.Client, name string, opts Options) (Locker, error) {
		return NewMutex(cli, name, opts)
	}},
	{Name: "v3lock", New: func(cli *clientv3.Client, name string, opts Options) (Locker, error) {
		return NewServerLock(cli, name, opts)
	}},
	{Name: "fenced", New: func(cli *clientv3.Client, name string, opts Options) (Locker, error) {
		return NewFenced(cli, name, opts)
	}},
	{Name: "released-marker", Broken: true, Number: 1, New: newReleasedMarker,
		Pitfall: "release marks the key released instead of deleting it; a client that locks again keeps its old, " +
			"lower create revision and jumps ahead of the holder: two holders (ordering by the wrong revision, lock documents)"},
	{Name: "keepalive-misconfigured", Broken: true, Number: 3, New: newDocumentKeepalive,
		Pitfall: "hand-rolled keepalive, TTL 8 s, heartbeat 2 s, 2 retries: the holder gives up 12 s after its last " +
			"renewal and keeps working after its lease expired (the lock document's misconfiguration)"},
	{Name: "unfenced", Broken: true, Number: 4, New: newUnfenced,
		Pitfall: "a correct mutex guarding an external resource without a fencing token: a holder paused past its TTL " +
			"writes after its successor (Jepsen etcd 3.4.3; Kleppmann on fencing; etcd #10811)"},
	{Name: "shared-session", Broken: true, Number: 5, New: newSharedSession,
		Pitfall: "goroutines sharing one session share the mutex key, so both hold the lock (etcd #11360)"},
	{Name: "setnx", Broken: true, Number: 6, New: newSetNX,
		Pitfall: "put-if-absent without a lease: a crashed holder's lock is never freed, a liveness failure (vault #2526)"},
	{Name: "delete-name", Broken: true, Number: 7, New: newDeleteName,
		Pitfall: "release and clean-up delete the lock's name rather than the client's own key: a waiter that gives up " +
			"frees the holder's lock (the symmetry property of the lock document)"},
	{Name: "serializable-check", Broken: true, Number: 8, New: newSerializableCheck,
		Pitfall: "ownership checked with a serializable read: a member cut off from the leader answers a stale yes (etcd #6829)"},
	{Name: "herd", Broken: true, Number: 9, New: newHerd,
		Pitfall: "every waiter watches the whole prefix: correct, but each change wakes every waiter (the herd effect)"},
}

// Recipes returns every registered recipe: the correct ones first, then
// the deliberately broken ones in the order of issue 4's pitfalls.
func Recipes() []Recipe { return slices.Clone(recipes) }

// Lookup returns the recipe called name, or an error wrapping
// ErrUnknownRecipe that lists the names there are.
func Lookup(name string) (Recipe, error) {
	for _, r := range recipes {
		if r.Name == name {
			return r, nil
		}
	}
	names := make([]string, len(recipes))
	for i, r := range recipes {
		names[i] = r.Name
	}
	return Recipe{}, fmt.Errorf("%w %q; have %v", ErrUnknownRecipe, name, names)
}
