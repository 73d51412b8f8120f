package stm

import (
	"context"
	"errors"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/internal/recipe"
)

// Tx is one attempt of a transaction, as the function Txn runs sees it.
type Tx interface {
	// Get returns key's value and the revision it was last modified at,
	// as the recipe reads it: "" and 0 for a key that does not exist.
	// An error ends the attempt; the function returns it.
	Get(key string) (value string, modRev int64, err error)
	// Put stages a write of value to key, committed with the attempt.
	Put(key, value string)
}

// Txner runs one process's transactions. A Txner that also has a Close()
// error method is closed once, when its process ends: when the run crashes
// it, and at the end of the run; what Close does wrong is the recipe's
// fault, by the rules lock.Locker's documentation gives.
type Txner interface {
	// Txn runs apply as one transaction: apply reads through the Tx it is
	// given and stages its writes there, and Txn commits them as the
	// recipe isolates them, calling apply again for each attempt the
	// recipe makes. It returns the revision the commit made. An error
	// apply returns ends the transaction uncommitted and is returned
	// (wrapped or not: errors.Is finds it). ctx bounds every request.
	Txn(ctx context.Context, apply func(Tx) error) (rev int64, err error)
}

// New makes the Txner of one process on its etcd client: the constructor
// every recipe provides.
type New func(cli *clientv3.Client) (Txner, error)

// Recipe is a transaction recipe scenarios can run by name, of the
// registry type every family shares (see lock.Recipe). A user's own:
//
//	stm.Recipe{Name: "my-bank", Summary: "what it does", New: newMine}
type Recipe = recipe.Recipe[New]

// ErrUnknownRecipe is wrapped by Lookup's error for a name not registered.
var ErrUnknownRecipe = errors.New("stm: unknown recipe")

// registry lists etcd's isolation levels, strongest first: the two
// serializable ones are correct, the two weaker ones show what they let
// through.
var registry = recipe.NewRegistry(recipe.STM,
	Recipe{Name: "serializable-snapshot", New: etcdLevel(levelSerializableSnapshot),
		Summary: "etcd's STM at SerializableSnapshot: every read at the revision of the first, every read key compared at commit"},
	Recipe{Name: "serializable", New: etcdLevel(levelSerializable),
		Summary: "etcd's STM at Serializable: reads at the first read's revision after the first, every read key compared at commit"},
	Recipe{Name: "repeatable-reads", Broken: true, New: etcdLevel(levelRepeatableReads),
		Expect: checker.Expectation{Checker: checker.CheckerSerializable, Violation: checker.ViolationNotSerializable},
		Summary: "etcd's STM at RepeatableReads: every read compared at commit, but the reads of one attempt come from " +
			"different revisions, so an audit that acts on what it read sees read skew"},
	Recipe{Name: "read-committed", Broken: true, New: etcdLevel(levelReadCommitted),
		Expect: checker.Expectation{Checker: checker.CheckerBankTotal, Violation: checker.ViolationTotalChanged},
		Summary: "etcd's STM at ReadCommitted: nothing compared at commit, so concurrent transfers overwrite each " +
			"other's balances and money appears and vanishes"},
)

// Recipes returns the gallery: etcd's isolation levels, strongest first.
func Recipes() []Recipe { return registry.All() }

// Lookup returns the recipe called name, or an error wrapping
// ErrUnknownRecipe that lists the names there are, the closest first.
func Lookup(name string) (Recipe, error) {
	r, err := registry.Lookup(name)
	if err != nil {
		return Recipe{}, recipe.Unknown("stm: ", ErrUnknownRecipe, err)
	}
	return r, nil
}
