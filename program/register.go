package program

import (
	"context"
	"errors"
	"fmt"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/internal/recipe"
	"github.com/etcdsim/etcdsim/recipes/register"
)

// Register is a register (KV) recipe called name whose every client is a
// process of argv (docs/protocol.md, family "register"): get, put, delete
// and cas (a compare-and-swap in one transaction) of one key. The KV it
// hands the workload takes exactly those: a Get of one key, linearizable
// or serializable; a Put and a Delete of one key, with no options; a Txn
// that puts a key if it holds a value, or if it is missing. Anything else
// is an error that names what the protocol can carry.
func Register(name string, argv ...string) register.Recipe {
	return RegisterWith(name, Config{Argv: argv})
}

// RegisterWith is Register with the program's settings.
func RegisterWith(name string, cfg Config) register.Recipe {
	return register.Recipe{
		Name:    name,
		Summary: fmt.Sprintf("a KV in a process of its own per client: %q", cfg.Argv),
		Command: cfg.Argv,
		New: func(_ context.Context, cli *clientv3.Client, ttl time.Duration) (clientv3.KV, error) {
			s, err := begin(cfg, cli, request{Family: recipe.Register, TTL: ttlSeconds(ttl, 10*time.Second)}, nil)
			if err != nil {
				return nil, err
			}
			return &kvClient{s}, nil
		},
	}
}

// errKVShape is wrapped by a KV call the protocol cannot carry.
var errKVShape = errors.New("process: the register protocol carries get, put, delete and cas of one key")

// kvClient is one client's KV: its program.
type kvClient struct{ *session }

func header(rev int64) *pb.ResponseHeader { return &pb.ResponseHeader{Revision: rev} }

func (k *kvClient) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	op := clientv3.OpGet(key, opts...)
	if len(op.RangeBytes()) > 0 || op.IsKeysOnly() || op.IsCountOnly() || op.Rev() != 0 {
		return nil, fmt.Errorf("%w: a Get of a range, of keys only, of a count or at a revision is not one of them", errKVShape)
	}
	a, err := k.op(ctx, request{Op: "get", Key: key, Serializable: op.IsSerializable()})
	if err != nil {
		return nil, err
	}
	resp := &clientv3.GetResponse{Header: header(a.Header)}
	if a.Exists {
		resp.Kvs = []*mvccpb.KeyValue{{Key: []byte(key), Value: []byte(a.Value), ModRevision: a.ModRev}}
		resp.Count = 1
	}
	return resp, nil
}

func (k *kvClient) Put(ctx context.Context, key, val string, opts ...clientv3.OpOption) (*clientv3.PutResponse, error) {
	if len(opts) > 0 {
		return nil, fmt.Errorf("%w: a Put with options is not one of them", errKVShape)
	}
	a, err := k.op(ctx, request{Op: "put", Key: key, Value: val})
	if err != nil {
		return nil, err
	}
	return &clientv3.PutResponse{Header: header(a.Revision)}, nil
}

func (k *kvClient) Delete(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.DeleteResponse, error) {
	if len(opts) > 0 {
		return nil, fmt.Errorf("%w: a Delete with options is not one of them", errKVShape)
	}
	a, err := k.op(ctx, request{Op: "delete", Key: key})
	if err != nil {
		return nil, err
	}
	return &clientv3.DeleteResponse{Header: header(a.Revision), Deleted: a.Deleted}, nil
}

func (k *kvClient) GetStream(context.Context, string, ...clientv3.OpOption) (clientv3.GetStreamChan, error) {
	return nil, fmt.Errorf("%w: not GetStream", errKVShape)
}

func (k *kvClient) Compact(context.Context, int64, ...clientv3.CompactOption) (*clientv3.CompactResponse, error) {
	return nil, fmt.Errorf("%w: not Compact", errKVShape)
}

func (k *kvClient) Do(ctx context.Context, op clientv3.Op) (clientv3.OpResponse, error) {
	switch {
	case op.IsGet():
		return clientv3.OpResponse{}, fmt.Errorf("%w: call Get, not Do", errKVShape)
	case op.IsPut():
		r, err := k.Put(ctx, string(op.KeyBytes()), string(op.ValueBytes()))
		if err != nil {
			return clientv3.OpResponse{}, err
		}
		return r.OpResponse(), nil
	case op.IsDelete():
		r, err := k.Delete(ctx, string(op.KeyBytes()))
		if err != nil {
			return clientv3.OpResponse{}, err
		}
		return r.OpResponse(), nil
	}
	return clientv3.OpResponse{}, fmt.Errorf("%w: not a transaction through Do", errKVShape)
}

func (k *kvClient) Txn(ctx context.Context) clientv3.Txn { return &casTxn{k: k, ctx: ctx} }

// casTxn is the one transaction the protocol carries: put a key if it
// holds a value, or if it is missing (create revision 0).
type casTxn struct {
	k     *kvClient
	ctx   context.Context
	cmps  []clientv3.Cmp
	then  []clientv3.Op
	elses []clientv3.Op
}

func (t *casTxn) If(cs ...clientv3.Cmp) clientv3.Txn { t.cmps = append(t.cmps, cs...); return t }
func (t *casTxn) Then(ops ...clientv3.Op) clientv3.Txn {
	t.then = append(t.then, ops...)
	return t
}
func (t *casTxn) Else(ops ...clientv3.Op) clientv3.Txn {
	t.elses = append(t.elses, ops...)
	return t
}

func (t *casTxn) Commit() (*clientv3.TxnResponse, error) {
	req, err := t.cas()
	if err != nil {
		return nil, err
	}
	a, err := t.k.op(t.ctx, req)
	if err != nil {
		return nil, err
	}
	return &clientv3.TxnResponse{Header: header(a.Revision), Succeeded: a.Succeeded}, nil
}

// cas returns the cas request the transaction stands for.
func (t *casTxn) cas() (request, error) {
	bad := fmt.Errorf("%w: a Txn must be If(Compare(Value(k), \"=\", v)) or If(Compare(CreateRevision(k), \"=\", 0)), then Then(OpPut(k, w)), with no Else", errKVShape)
	if len(t.cmps) != 1 || len(t.then) != 1 || len(t.elses) != 0 || !t.then[0].IsPut() {
		return request{}, bad
	}
	c, put := t.cmps[0].GetCompare(), t.then[0]
	key := string(c.Key)
	if string(put.KeyBytes()) != key || c.Result != pb.Compare_EQUAL || len(c.RangeEnd) > 0 {
		return request{}, bad
	}
	req := request{Op: "cas", Key: key, Value: string(put.ValueBytes())}
	switch u := c.TargetUnion.(type) {
	case *pb.Compare_Value:
		req.Expect = string(u.Value)
	case *pb.Compare_CreateRevision:
		if u.CreateRevision != 0 {
			return request{}, bad
		}
		req.ExpectMissing = true
	default:
		return request{}, bad
	}
	return req, nil
}
