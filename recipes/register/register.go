package register

import (
	"context"
	"errors"
	"io"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/internal/recipe"
)

// New makes the KV one register client reads and writes through, over its
// etcd client cli; ttl is the scenario's session TTL, for a KV that keeps
// leases. A KV that also has a Close() error method is closed once, when
// its process ends: when the run crashes it, and at the end of the run;
// what Close does wrong is the recipe's fault, by the rules lock.Locker's
// documentation gives.
type New func(ctx context.Context, cli *clientv3.Client, ttl time.Duration) (clientv3.KV, error)

// Recipe is a register KV scenarios can run by name, of the registry type
// every family shares (see lock.Recipe). A user's own:
//
//	register.Recipe{Name: "my-cache", Summary: "what it does", New: newMine}
type Recipe = recipe.Recipe[New]

// ErrUnknownRecipe is wrapped by Lookup's error for a name not registered.
var ErrUnknownRecipe = errors.New("register: unknown recipe")

// Default is the recipe a register workload with no recipe named runs:
// etcd's own KV.
const Default = "kv"

func notLinearizable() checker.Expectation {
	return checker.Expectation{Checker: checker.CheckerRegisterLinearizable, Violation: checker.ViolationNotLinearizable}
}

// registry lists the correct recipes first, then the broken one; the
// leasing KV that writes in transactions but trusts its cache past the
// lease is an upstream recipe, reproducing etcd #19091.
var registry = recipe.NewRegistry(recipe.Register,
	Recipe{Name: Default, New: newKV,
		Summary: "the client's own KV API, straight to the cluster"},
	Recipe{Name: "leasing-guarded", New: newGuarded,
		Summary: "client/v3/leasing's KV, writes as one-operation transactions, cached reads served only while a " +
			"lease.Guard proves the lease alive"},
	Recipe{Name: "ordering", New: newOrdering,
		Summary: "client/v3/ordering's KV: a read answered below a revision the client has seen is asked again"},
	Recipe{Name: "leasing", Broken: true, New: newLeasing, Expect: notLinearizable(),
		Summary: "client/v3/leasing's KV as its API reads: a Put of a key the client holds no lease on runs twice, " +
			"at two revisions"},
).WithUpstream(
	Recipe{Name: "leasing-txn-writes", Broken: true, New: newLeasingTxnWrites, Expect: notLinearizable(),
		Upstream: "https://github.com/etcd-io/etcd/issues/19091",
		Summary: "client/v3/leasing's KV, writes as one-operation transactions: a client cut off past its TTL " +
			"serves its cache after the lease is gone and others have written"},
)

// Recipes returns the gallery: the correct recipes first, then the broken
// one.
func Recipes() []Recipe { return registry.All() }

// UpstreamRecipes returns the recipes that reproduce a report against
// etcd.
func UpstreamRecipes() []Recipe { return registry.Upstream() }

// Lookup returns the recipe called name ("" is Default), or an error
// wrapping ErrUnknownRecipe that lists the names there are, the closest
// first.
func Lookup(name string) (Recipe, error) {
	if name == "" {
		name = Default
	}
	r, err := registry.Lookup(name)
	if err != nil {
		return Recipe{}, recipe.Unknown("register: ", ErrUnknownRecipe, err)
	}
	return r, nil
}

// Close closes kv if it has a Close() error method, and returns its
// error; a KV with none has nothing to close.
func Close(kv clientv3.KV) error {
	if c, ok := kv.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
