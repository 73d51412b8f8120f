package myrecipes

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/recipes/stm"
)

// Bank runs a bank's transactions the way hand-written etcd code often
// does: it reads each key with its own Get, lets the caller compute, and
// writes the new values in one Txn. With Check false the Txn compares
// nothing — read committed: two transfers that read the same balance both
// commit, and one's update is lost. With Check true every read after the
// first is pinned to the first one's revision, and the Txn commits only if
// no key it read has changed since, and otherwise runs the transaction
// again: serializable.
type Bank struct {
	Cli   *clientv3.Client
	Check bool
}

// Txn runs apply over one attempt's reads and commits its writes.
func (b Bank) Txn(ctx context.Context, apply func(stm.Tx) error) (int64, error) {
	for {
		tx := &bankTx{ctx: ctx, bank: b, read: map[string]int64{}}
		if err := apply(tx); err != nil {
			return 0, err
		}
		var cmps []clientv3.Cmp
		if b.Check {
			for key, rev := range tx.read {
				cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(key), "=", rev))
			}
		}
		resp, err := b.Cli.Txn(ctx).If(cmps...).Then(tx.writes...).Commit()
		if err != nil {
			return 0, err
		}
		if resp.Succeeded {
			return resp.Header.Revision, nil
		}
	}
}

// bankTx is one attempt: what it read, at which revision, and what it
// will write.
type bankTx struct {
	ctx    context.Context
	bank   Bank
	rev    int64            // the first read's revision, which Check pins the others to
	read   map[string]int64 // each key read, and its mod revision
	writes []clientv3.Op
}

func (t *bankTx) Get(key string) (string, int64, error) {
	var opts []clientv3.OpOption
	if t.bank.Check && t.rev != 0 {
		opts = append(opts, clientv3.WithRev(t.rev))
	}
	resp, err := t.bank.Cli.Get(t.ctx, key, opts...)
	if err != nil {
		return "", 0, err
	}
	if t.rev == 0 {
		t.rev = resp.Header.Revision
	}
	if len(resp.Kvs) == 0 {
		t.read[key] = 0
		return "", 0, nil
	}
	t.read[key] = resp.Kvs[0].ModRevision
	return string(resp.Kvs[0].Value), resp.Kvs[0].ModRevision, nil
}

func (t *bankTx) Put(key, value string) { t.writes = append(t.writes, clientv3.OpPut(key, value)) }
