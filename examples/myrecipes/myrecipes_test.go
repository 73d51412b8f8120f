package myrecipes_test

import (
	"testing"

	"github.com/etcdsim/etcdsim/scenarios"

	"example.com/myrecipes"
)

// Each recipe under every scenario etcdsim builds for a user's recipe of
// its family, seed 1, each run on the virtual clock in a bubble of its own.

func TestLock(t *testing.T) {
	for _, s := range scenarios.LockSafety(myrecipes.Lock) {
		scenarios.Test(t, s)
	}
}

func TestElection(t *testing.T) {
	for _, s := range scenarios.ElectionSafety(myrecipes.Election) {
		scenarios.Test(t, s)
	}
}

func TestRegistrar(t *testing.T) {
	for _, s := range scenarios.DiscoverySafety(myrecipes.Registrar) {
		scenarios.Test(t, s)
	}
}

func TestResolver(t *testing.T) {
	for _, s := range scenarios.DiscoveryResolverSafety(myrecipes.Resolver) {
		scenarios.Test(t, s)
	}
}

func TestRegistrarWithResolver(t *testing.T) {
	for _, s := range scenarios.DiscoveryPairSafety(myrecipes.Registrar, myrecipes.Resolver) {
		scenarios.Test(t, s)
	}
}
