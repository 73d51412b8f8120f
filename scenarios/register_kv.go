package scenarios

import (
	"context"
	"fmt"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.etcd.io/etcd/client/v3/leasing"
	"go.etcd.io/etcd/client/v3/ordering"
)

// The register family's recipes are the client-side KVs a register client
// reads and writes through, each over the client's own etcd client:
//
//   - "" (etcd's KV): the client's own KV API, straight to the cluster.
//   - "leasing": client/v3/leasing's KV used as its API reads: Get, Put,
//     Delete and Txn. It caches each key it reads under a lease of its
//     session and serves later reads from the cache until another
//     client's write revokes the lease. On etcd v3.7.3 its Put and Delete
//     of a key the client holds no lease on run twice (see
//     register_leasing.go): not linearizable, even on a healthy cluster.
//   - "leasing-txn-writes": the same KV, with every put and delete sent
//     as a one-operation transaction, which the leasing KV runs once;
//     its cached reads are served as the leasing KV serves them.
//   - "leasing-guarded": leasing-txn-writes whose cached reads are served
//     only while a keepalive of the client's own proves the lease alive
//     (register_leasing_guard.go): the correct use.
//   - "ordering": client/v3/ordering's KV, which refuses a read answered
//     at a revision below one the client has seen and asks again, the
//     balancer sending the retry to another member, until
//     NewOrderViolationSwitchEndpointClosure gives up.
var registerKVs = []string{"", RegisterLeasing, RegisterLeasingTxnWrites, RegisterLeasingGuarded, RegisterOrdering}

// The register family's leasing recipes.
const (
	RegisterLeasing          = "leasing"
	RegisterLeasingTxnWrites = "leasing-txn-writes"
	RegisterLeasingGuarded   = "leasing-guarded"
	RegisterOrdering         = "ordering"
)

// leasingPrefix is where the leasing KVs keep their lease keys: outside
// the register keys' prefix, so that the register watchers see only the
// registers.
const leasingPrefix = "leasing/"

// checkRegisterKV reports a register recipe there is not.
func checkRegisterKV(name string) error {
	for _, k := range registerKVs {
		if k == name {
			return nil
		}
	}
	return fmt.Errorf("no register KV %q: want \"\" (etcd's own KV) or one of %s", name, strings.Join(registerKVs[1:], ", "))
}

// registerKV returns the KV a register client reads and writes through,
// over cli, and what closes it.
func (w *world) registerKV(ctx context.Context, cli *clientv3.Client) (clientv3.KV, func(), error) {
	ttl := int(w.s.Workload.TTL.D().Seconds())
	switch w.s.Workload.Recipe {
	case "":
		return cli, func() {}, nil
	case RegisterLeasing, RegisterLeasingTxnWrites:
		kv, closeKV, err := leasing.NewKV(cli, leasingPrefix, concurrency.WithTTL(ttl))
		if err != nil {
			return nil, nil, fmt.Errorf("a leasing KV: %w", err)
		}
		if w.s.Workload.Recipe == RegisterLeasingTxnWrites {
			kv = txnWrites{kv}
		}
		return kv, closeKV, nil
	case RegisterOrdering:
		return ordering.NewKV(cli, ordering.NewOrderViolationSwitchEndpointClosure(cli)), func() {}, nil
	case RegisterLeasingGuarded:
		g, err := newGuardedLeasing(ctx, cli, ttl)
		if err != nil {
			return nil, nil, err
		}
		return g, g.Close, nil
	}
	return nil, nil, checkRegisterKV(w.s.Workload.Recipe)
}

// txnWrites sends every Put and Delete of a KV as a one-operation
// transaction. Through etcd's leasing KV, a transaction runs once where
// its Put and Delete may run twice.
type txnWrites struct{ clientv3.KV }

func (t txnWrites) Put(ctx context.Context, key, val string, opts ...clientv3.OpOption) (*clientv3.PutResponse, error) {
	resp, err := t.Txn(ctx).Then(clientv3.OpPut(key, val, opts...)).Commit()
	if err != nil {
		return nil, err
	}
	put := (*clientv3.PutResponse)(resp.Responses[0].GetResponsePut())
	put.Header = resp.Header
	return put, nil
}

func (t txnWrites) Delete(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.DeleteResponse, error) {
	resp, err := t.Txn(ctx).Then(clientv3.OpDelete(key, opts...)).Commit()
	if err != nil {
		return nil, err
	}
	del := (*clientv3.DeleteResponse)(resp.Responses[0].GetResponseDeleteRange())
	del.Header = resp.Header
	return del, nil
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
