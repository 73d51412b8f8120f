// Command mysim is a full simrun with this module's recipes beside the
// registered ones: every command works on their scenarios too.
//
//	go run ./cmd/mysim list
//	go run ./cmd/mysim run 'lock/my-lock/*' 'election/my-election/*' 'discovery/my-*/*'
//	go run ./cmd/mysim run -seed 1 -runs 10 'lock/my-lock/standard-mix'
//
// Replay a run of these recipes with mysim, which has them, not with simrun.
package main

import (
	"slices"

	"github.com/etcdsim/etcdsim/cmd/simrun/simrun"
	"github.com/etcdsim/etcdsim/scenarios"

	"example.com/myrecipes"
)

func main() {
	simrun.Main(slices.Concat(
		scenarios.LockSafety(myrecipes.Lock),
		scenarios.ElectionSafety(myrecipes.Election),
		decoded(scenarios.DiscoverySafety(myrecipes.Registrar)),
		scenarios.DiscoveryResolverSafety(myrecipes.Resolver),
		decoded(scenarios.DiscoveryPairSafety(myrecipes.Registrar, myrecipes.Resolver)),
		scenarios.STMSafety(myrecipes.BankReadCommitted),
		scenarios.STMSafety(myrecipes.BankSerializable),
	)...)
}

// decoded gives each scenario of the registrar, which writes a record
// format of its own, its decoder.
func decoded(ss []scenarios.Scenario) []scenarios.Scenario {
	for i := range ss {
		ss[i] = ss[i].WithDecoder(myrecipes.DecodeRecord)
	}
	return ss
}
