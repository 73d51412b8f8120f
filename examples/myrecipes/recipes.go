package myrecipes

import (
	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/recipes/stm"
)

// The recipes as etcdsim's scenario constructors take them: a name, a
// line that says what each is, and its constructor.
var (
	Lock      = lock.Recipe{Name: "my-lock", Summary: "a queue of keys on guarded leases, each waiter watching the key ahead", New: NewLock}
	Election  = election.Recipe{Name: "my-election", Summary: "concurrency.Election on a guarded lease, the key rechecked after the wait", New: NewElection}
	Registrar = discovery.RegistrarRecipe{Name: "my-registrar", Summary: "endpoints manager record on a guarded lease, registered again when the lease may be lost", New: NewRegistrar}
	Resolver  = discovery.ResolverRecipe{Name: "my-resolver", Summary: "linearizable listing and a watch that require a leader, listed again when the watch fails", New: NewResolver}

	// The two transfers of bank.go, as scenarios.STMSafety takes them:
	// the stm workload calls each whole and judges what its client read
	// and wrote.
	BankReadCommitted = stm.Recipe{Name: "my-bank", Summary: "separate Gets, then a Txn that compares nothing", New: stm.Transfers(Transfer)}
	BankSerializable  = stm.Recipe{Name: "my-checked-bank", Summary: "separate Gets, then a Txn that compares both mod revisions, read again if either changed", New: stm.Transfers(CheckedTransfer)}
)
