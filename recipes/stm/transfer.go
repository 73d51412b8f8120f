package stm

import (
	"context"
	"errors"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// Transfer is a user's own transaction: the business code that moves
// amount from account from to account to, reading the balances, deciding
// and writing the new ones against etcd through cli, as the application
// does it — with etcd's STM, a Txn with compares, or plain Gets and Puts.
//
// A balance is a decimal integer, optionally followed by a space and
// anything ("40", "40 t17"); a missing account holds 0. ctx bounds the
// transfer and must reach every request it makes (for etcd's STM:
// concurrency.WithAbortContext(ctx)): the stm workload records, from the
// client's connection, the reads and writes made under it. An error
// means the transfer did not complete; whatever it wrote before is
// judged all the same.
type Transfer func(ctx context.Context, cli *clientv3.Client, from, to string, amount int64) error

// Transferer is a Txner whose recipe brings its own transfers: the stm
// workload calls Transfer for each transfer rather than running its own
// through Txn, and audits through Txn.
type Transferer interface {
	Txner
	Transfer(ctx context.Context, from, to string, amount int64) error
}

// Transfers returns the constructor of a recipe whose transfers are t, a
// user's own, so that plugging one in is one line:
//
//	stm.Recipe{Name: "my-transfer", Summary: "two Gets, then a Txn that compares nothing", New: stm.Transfers(Transfer)}
//
// Audits read every account through etcd's STM at SerializableSnapshot,
// all at one revision, so that what they see is what the transfers did.
func Transfers(t Transfer) New {
	return func(cli *clientv3.Client) (Txner, error) {
		if t == nil {
			return nil, errNilTransfer
		}
		return ownTransfer{etcdSTM: etcdSTM{cli: cli, iso: concurrency.SerializableSnapshot}, t: t}, nil
	}
}

var errNilTransfer = errors.New("stm: Transfers: the transfer is nil")

// ownTransfer runs a user's transfers, and audits through etcd's STM.
type ownTransfer struct {
	etcdSTM
	t Transfer
}

func (o ownTransfer) Transfer(ctx context.Context, from, to string, amount int64) error {
	return o.t(ctx, o.cli, from, to, amount)
}
