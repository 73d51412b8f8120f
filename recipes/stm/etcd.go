package stm

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// The levels of etcd's STM the registry names.
const (
	levelSerializableSnapshot = concurrency.SerializableSnapshot
	levelSerializable         = concurrency.Serializable
	levelRepeatableReads      = concurrency.RepeatableReads
	levelReadCommitted        = concurrency.ReadCommitted
)

// etcdLevel is the recipe of etcd's STM (concurrency.NewSTM, unmodified)
// at isolation level iso.
func etcdLevel(iso concurrency.Isolation) New {
	return func(cli *clientv3.Client) (Txner, error) { return etcdSTM{cli: cli, iso: iso}, nil }
}

// etcdSTM runs each transaction through concurrency.NewSTM.
type etcdSTM struct {
	cli *clientv3.Client
	iso concurrency.Isolation
}

func (e etcdSTM) Txn(ctx context.Context, apply func(Tx) error) (int64, error) {
	resp, err := concurrency.NewSTM(e.cli, func(s concurrency.STM) error { return apply(stmTx{s}) },
		concurrency.WithIsolation(e.iso), concurrency.WithAbortContext(ctx))
	if err != nil {
		return 0, err
	}
	return resp.Header.Revision, nil
}

// stmTx is etcd's STM seen as a Tx. etcd's STM reports a failed read by
// ending the attempt itself, so Get never returns an error here.
type stmTx struct{ s concurrency.STM }

func (t stmTx) Get(key string) (string, int64, error) { return t.s.Get(key), t.s.Rev(key), nil }
func (t stmTx) Put(key, value string)                 { t.s.Put(key, value) }
