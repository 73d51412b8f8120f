package register

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.etcd.io/etcd/client/v3/leasing"
	"go.etcd.io/etcd/client/v3/ordering"
)

// LeasingPrefix is where the leasing KVs keep their lease keys: outside
// the register keys' prefix, so that the register watchers see only the
// registers.
const LeasingPrefix = "leasing/"

// newKV is the client's own KV: cli.KV, not cli, which Close would
// close.
func newKV(_ context.Context, cli *clientv3.Client, _ time.Duration) (clientv3.KV, error) {
	return cli.KV, nil
}

func newOrdering(_ context.Context, cli *clientv3.Client, _ time.Duration) (clientv3.KV, error) {
	return ordering.NewKV(cli, ordering.NewOrderViolationSwitchEndpointClosure(cli)), nil
}

func newLeasing(_ context.Context, cli *clientv3.Client, ttl time.Duration) (clientv3.KV, error) {
	kv, closeKV, err := leasing.NewKV(cli, LeasingPrefix, concurrency.WithTTL(int(ttl/time.Second)))
	if err != nil {
		return nil, fmt.Errorf("register: a leasing KV: %w", err)
	}
	return closing{kv, closeKV}, nil
}

func newLeasingTxnWrites(ctx context.Context, cli *clientv3.Client, ttl time.Duration) (clientv3.KV, error) {
	kv, err := newLeasing(ctx, cli, ttl)
	if err != nil {
		return nil, err
	}
	return closing{txnWrites{kv}, kv.(closing).close}, nil
}

// closing is a KV with the function that closes it.
type closing struct {
	clientv3.KV
	close func()
}

func (c closing) Close() error {
	c.close()
	return nil
}

// txnWrites sends every Put and Delete of a KV as a one-operation
// transaction. Through etcd's leasing KV, a transaction runs once where
// its Put and Delete may run twice.
type txnWrites struct{ clientv3.KV }

func (t txnWrites) Put(ctx context.Context, key, val string, opts ...clientv3.OpOption) (*clientv3.PutResponse, error) {
	resp, err := t.Do(ctx, clientv3.OpPut(key, val, opts...))
	if err != nil {
		return nil, err
	}
	return resp.Put(), nil
}

func (t txnWrites) Delete(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.DeleteResponse, error) {
	resp, err := t.Do(ctx, clientv3.OpDelete(key, opts...))
	if err != nil {
		return nil, err
	}
	return resp.Del(), nil
}

// Do sends a put or a delete as a one-operation transaction, and anything
// else as it is.
func (t txnWrites) Do(ctx context.Context, op clientv3.Op) (clientv3.OpResponse, error) {
	if !op.IsPut() && !op.IsDelete() {
		return t.KV.Do(ctx, op)
	}
	resp, err := t.Txn(ctx).Then(op).Commit()
	if err != nil {
		return clientv3.OpResponse{}, err
	}
	if op.IsPut() {
		put := (*clientv3.PutResponse)(resp.Responses[0].GetResponsePut())
		put.Header = resp.Header
		return put.OpResponse(), nil
	}
	del := (*clientv3.DeleteResponse)(resp.Responses[0].GetResponseDeleteRange())
	del.Header = resp.Header
	return del.OpResponse(), nil
}
