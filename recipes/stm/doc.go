// Package stm holds the transaction recipes of the stm family: the code a
// process runs a transaction through — read some keys, compute, write
// some keys, all or nothing — behind one small interface, so that a
// user's own transaction code is judged as etcd's STM is.
//
// A recipe is a Txner: Txn runs a function that reads through a Tx and
// stages writes on it, then commits them as the recipe isolates them,
// running the function again when the recipe retries. etcd's four STM
// isolation levels (concurrency.NewSTM) are registered under their names;
// a user's own is a Recipe literal:
//
//	type rc struct{ cli *clientv3.Client }     // reads, then writes: no compare
//	func (b rc) Txn(ctx context.Context, apply func(stm.Tx) error) (int64, error) { … }
//
//	scenarios.STMSafety(stm.Recipe{Name: "my-bank", New: func(cli *clientv3.Client) (stm.Txner, error) {
//		return rc{cli}, nil
//	}})
//
// A user's own transfer — the business code that reads both balances,
// decides and writes, against etcd as the application does — plugs in
// whole, with no Txner to write (transfer.go):
//
//	func Transfer(ctx context.Context, cli *clientv3.Client, from, to string, amount int64) error { … }
//
//	scenarios.STMSafety(stm.Recipe{Name: "my-transfer", New: stm.Transfers(Transfer)})
//
// The workload then records, from the client's connection, the accounts
// the transfer read (value and mod revision) and wrote (at the revision
// each write took effect), and the same checkers judge that.
//
// The stm scenarios run a bank on it: clients transfer money between a
// few accounts, each transfer one Txn that reads both balances and writes
// both new ones, and auditors read every account in one Txn and check
// that the books balance. checker.BankTotal and checker.Serializable
// judge what they saw.
package stm
