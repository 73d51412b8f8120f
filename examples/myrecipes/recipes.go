package myrecipes

import (
	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/recipes/stm"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// The recipes as etcdsim's scenario constructors take them: a name, a
// line that says what each is, and its constructor.
var (
	Lock      = lock.Recipe{Name: "my-lock", Summary: "a queue of keys on guarded leases, each waiter watching the key ahead", New: NewLock}
	Election  = election.Recipe{Name: "my-election", Summary: "concurrency.Election on a guarded lease, the key rechecked after the wait", New: NewElection}
	Registrar = discovery.RegistrarRecipe{Name: "my-registrar", Summary: "endpoints manager record on a guarded lease, registered again when the lease may be lost", New: NewRegistrar}
	Resolver  = discovery.ResolverRecipe{Name: "my-resolver", Summary: "linearizable listing and a watch that require a leader, listed again when the watch fails", New: NewResolver}

	// The two banks, as scenarios.STMSafety takes them.
	BankReadCommitted = stm.Recipe{Name: "my-bank", Summary: "separate Gets, then a Txn that compares nothing", New: func(cli *clientv3.Client) (stm.Txner, error) {
		return Bank{Cli: cli}, nil
	}}
	BankSerializable = stm.Recipe{Name: "my-checked-bank", Summary: "Gets pinned to the first one's revision, then a Txn that compares every key read", New: func(cli *clientv3.Client) (stm.Txner, error) {
		return Bank{Cli: cli, Check: true}, nil
	}}
)
