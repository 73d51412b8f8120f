package myrecipes_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/seed"

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

// The registrar writes a record format of its own: judged alone, beside
// etcdsim's resolver, which reads its records through DecodeRecord.
func TestRegistrar(t *testing.T) {
	for _, s := range scenarios.DiscoverySafety(myrecipes.Registrar) {
		scenarios.Test(t, s.WithDecoder(myrecipes.DecodeRecord))
	}
}

// The resolver alone, beside etcdsim's registrar: it reads that
// registrar's records with the decoder etcdsim hands it.
func TestResolver(t *testing.T) {
	for _, s := range scenarios.DiscoveryResolverSafety(myrecipes.Resolver) {
		scenarios.Test(t, s)
	}
}

func TestRegistrarWithResolver(t *testing.T) {
	for _, s := range scenarios.DiscoveryPairSafety(myrecipes.Registrar, myrecipes.Resolver) {
		scenarios.Test(t, s.WithDecoder(myrecipes.DecodeRecord))
	}
}

// The checked bank keeps the books under faults.
func TestBankSerializable(t *testing.T) {
	for _, s := range scenarios.STMSafety(myrecipes.BankSerializable) {
		scenarios.Test(t, s)
	}
}

// The transfer that compares nothing loses updates, and the
// serializability judge names one. Detection is a rate (20 of 20
// measured), so the test gives it up to three seeds, as etcdsim's own
// tests give a pitfall.
func TestBankReadCommittedIsCaught(t *testing.T) {
	s := scenarios.STMSafety(myrecipes.BankReadCommitted)[0]
	s.Expect = checker.Expectation{Checker: checker.CheckerSerializable, Violation: checker.ViolationNotSerializable}
	for i := range 3 {
		c := s
		c.Seed = s.Seed + seed.Seed(i)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		r, err := scenarios.Run(ctx, c, scenarios.Options{})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if r.Met && strings.Contains(r.Why, "a lost update") {
			t.Logf("seed %s: %s", c.Seed, r.Why)
			return
		}
		t.Logf("seed %s: %s", c.Seed, r.Why)
	}
	t.Errorf("%s: no lost update found on seeds %s to %s", s.Name, s.Seed, s.Seed+2)
}
