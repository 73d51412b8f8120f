package scenarios

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/recipes/register"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"golang.org/x/sync/errgroup"
)

// registerKeys is how many keys the register workload shares among its
// clients: few, so that clients contend for them.
const registerKeys = 3

// registerWorkload runs the register family on etcd's own KV API. Each
// client loops over random reads, writes, compare-and-swaps and deletes
// of a few keys under the workload's key ("k/0", "k/1", …), recording the
// revisions etcd returns, with think time; reads are linearizable unless
// Workload.Serializable says otherwise. Each observer lists the keys'
// prefix and watches it from the revision after the listing, recording the
// stream, every event, and the listing; after ErrCompacted it lists again
// before it watches again.
func (w *world) registerWorkload(ctx context.Context) error {
	wl := w.s.Workload
	keys := make([]string, registerKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("%s/%d", wl.Key, i)
	}
	var g errgroup.Group
	for i := 1; i <= wl.Clients; i++ {
		name := fmt.Sprintf("c%d", i)
		// Each client draws from a stream of its own, seeded in order
		// here, so that the run replays whatever the goroutines do.
		rng := rand.New(rand.NewPCG(w.rng.Uint64(), w.rng.Uint64()))
		reader := i <= wl.Readers
		g.Go(func() error { return w.registerClient(ctx, name, keys, reader, rng) })
	}
	for i := 1; i <= wl.Observers; i++ {
		name := fmt.Sprintf("o%d", i)
		g.Go(func() error { return w.watcher(ctx, name, wl.Key+"/") })
	}
	return g.Wait()
}

// registerClient is one client of the register workload.
// A reader only reads.
func (w *world) registerClient(ctx context.Context, name string, keys []string, reader bool, rng *rand.Rand) error {
	wl := w.s.Workload
	cli, err := w.env.Cluster().Client(name)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	r, err := recipeOf(wl.Register, wl.Recipe, register.Lookup)
	if err != nil {
		return err
	}
	kv, err := w.registerKV(ctx, r, cli, name)
	if err != nil {
		return err
	}
	// last is the value the client last saw in each key ("" for missing),
	// which its compare-and-swaps expect, so that some of them succeed.
	last := make(map[string]string, len(keys))
	for n := 0; wl.Ops == 0 || n < wl.Ops; n++ {
		key := keys[rng.IntN(len(keys))]
		value := fmt.Sprintf("%s-%d", name, n)
		pick := rng.IntN(100)
		if reader {
			pick = 0
		}
		err := w.step(ctx, name, func() error {
			switch {
			case pick < 40:
				w.kvRead(ctx, kv, name, key, last)
			case pick < 65:
				w.kvWrite(ctx, kv, name, key, value, last)
			case pick < 90:
				w.kvCAS(ctx, kv, name, key, last[key], value, last)
			default:
				w.kvDelete(ctx, kv, name, key, last)
			}
			return nil
		})
		switch {
		case errors.Is(err, faults.ErrRestarted):
			if cli, err = w.env.Cluster().Client(name); err != nil {
				return fmt.Errorf("%s: restarting: %w", name, err)
			}
			if kv, err = w.registerKV(ctx, r, cli, name); err != nil { // the crashed process's KV is closed (adopt)
				return fmt.Errorf("%s: restarting: %w", name, err)
			}
			clear(last) // a new process remembers nothing
			continue
		case ctx.Err() != nil:
			return nil
		case err != nil:
			return fmt.Errorf("%s: %w", name, err)
		}
		if sleep(ctx, wl.Think.D()) != nil {
			return nil
		}
	}
	return nil
}

// kvRead reads key — linearizably, or serializably if the workload says
// so — and records the value and its mod revision. A read that fails
// changed nothing and saw nothing: it is recorded as failed.
func (w *world) kvRead(ctx context.Context, cli clientv3.KV, name, key string, last map[string]string) {
	var opts []clientv3.OpOption
	if w.s.Workload.Serializable {
		opts = append(opts, clientv3.WithSerializable())
	}
	p := w.env.Recorder().Invoke(ctx, name, checker.KindRead, key, checker.Input{})
	rctx, cancel := w.opCtx(ctx)
	resp, err := cli.Get(rctx, key, opts...)
	cancel()
	if err != nil {
		p.Fail(ctx, err)
		return
	}
	if len(resp.Kvs) == 0 {
		last[key] = ""
		p.OK(ctx, checker.Output{Missing: true, Header: resp.Header.Revision})
		return
	}
	kv := resp.Kvs[0]
	last[key] = string(kv.Value)
	p.OK(ctx, checker.Output{Value: string(kv.Value), Revision: kv.ModRevision, Header: resp.Header.Revision})
}

// kvWrite puts value and records the revision it committed at. A put that
// fails may have committed: it is recorded as unknown.
func (w *world) kvWrite(ctx context.Context, cli clientv3.KV, name, key, value string, last map[string]string) {
	p := w.env.Recorder().Invoke(ctx, name, checker.KindWrite, key, checker.Input{Value: value})
	rctx, cancel := w.opCtx(ctx)
	resp, err := cli.Put(rctx, key, value)
	cancel()
	if err != nil {
		delete(last, key)
		p.Unknown(ctx, err)
		return
	}
	last[key] = value
	p.OK(ctx, checker.Output{Revision: resp.Header.Revision})
}

// kvCAS sets key to value if it holds expect ("" for missing), in one
// transaction, and records whether it swapped and at which revision.
func (w *world) kvCAS(ctx context.Context, cli clientv3.KV, name, key, expect, value string, last map[string]string) {
	in := checker.Input{Value: value, Expect: expect, ExpectMissing: expect == ""}
	cmp := clientv3.Compare(clientv3.Value(key), "=", expect)
	if expect == "" {
		cmp = clientv3.Compare(clientv3.CreateRevision(key), "=", 0)
	}
	p := w.env.Recorder().Invoke(ctx, name, checker.KindCAS, key, in)
	rctx, cancel := w.opCtx(ctx)
	resp, err := cli.Txn(rctx).If(cmp).Then(clientv3.OpPut(key, value)).Commit()
	cancel()
	switch {
	case err != nil:
		delete(last, key)
		p.Unknown(ctx, err)
	case resp.Succeeded:
		last[key] = value
		p.OK(ctx, checker.Output{Succeeded: true, Revision: resp.Header.Revision})
	default:
		delete(last, key) // it holds something else: the next cas expects missing
		p.OK(ctx, checker.Output{})
	}
}

// kvDelete deletes key and records the revision of the deletion. Deleting a
// missing key commits nothing, so no revision is recorded for it.
func (w *world) kvDelete(ctx context.Context, cli clientv3.KV, name, key string, last map[string]string) {
	p := w.env.Recorder().Invoke(ctx, name, checker.KindDelete, key, checker.Input{})
	rctx, cancel := w.opCtx(ctx)
	resp, err := cli.Delete(rctx, key)
	cancel()
	if err != nil {
		delete(last, key)
		p.Unknown(ctx, err)
		return
	}
	last[key] = ""
	out := checker.Output{}
	if resp.Deleted > 0 {
		out.Revision = resp.Header.Revision
	}
	p.OK(ctx, out)
}

// watcher is one observer of the register workload: list, watch from the
// revision after the listing, record each event; a stream that ends is
// resumed from the revision after the last one seen, and one cancelled
// with ErrCompacted is followed by a new listing.
func (w *world) watcher(ctx context.Context, name, prefix string) error {
	wl := w.s.Workload
	cli, err := w.env.Cluster().Client(name)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	var next int64 // the revision to watch from; 0: list first
	for {
		err := w.step(ctx, name, func() error {
			if next == 0 {
				rev, ok := w.list(ctx, cli, name, prefix)
				if !ok {
					return sleep(ctx, wl.Think.D())
				}
				next = rev + 1
			}
			return nil
		})
		if err == nil && next > 0 {
			err = w.watch(ctx, cli, name, prefix, &next)
		}
		switch {
		case errors.Is(err, faults.ErrRestarted):
			if cli, err = w.env.Cluster().Client(name); err != nil {
				return fmt.Errorf("%s: restarting: %w", name, err)
			}
			next = 0 // a new process lists first
			continue
		case ctx.Err() != nil:
			return nil
		case err != nil:
			return fmt.Errorf("%s: %w", name, err)
		}
		if next > 0 {
			// The stream broke: wait a little before resuming it, so that
			// one that keeps failing does not spin.
			if sleep(ctx, wl.Think.D()) != nil {
				return nil
			}
		}
	}
}

// list lists prefix and records the revision it read at.
func (w *world) list(ctx context.Context, cli *clientv3.Client, name, prefix string) (int64, bool) {
	p := w.env.Recorder().Invoke(ctx, name, checker.KindList, prefix, checker.Input{})
	rctx, cancel := w.opCtx(ctx)
	resp, err := cli.Get(rctx, prefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	cancel()
	if err != nil {
		p.Fail(ctx, err) // a listing that failed saw nothing
		return 0, false
	}
	p.OK(ctx, checker.Output{Revision: resp.Header.Revision})
	return resp.Header.Revision, true
}

// watch runs one stream over prefix from *next, recording it and each
// event it delivers, stepping before each batch. It moves *next past every
// event delivered, or to 0 if the stream was cancelled with ErrCompacted.
func (w *world) watch(ctx context.Context, cli *clientv3.Client, name, prefix string, next *int64) error {
	rec := w.env.Recorder()
	p := rec.Invoke(ctx, name, checker.KindWatch, prefix, checker.Input{Revision: *next})
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var compacted int64
	var stepErr error
	for wr := range cli.Watch(wctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(*next)) {
		if wr.CompactRevision != 0 { // ErrCompacted
			compacted = wr.CompactRevision
			continue // the channel closes next
		}
		if len(wr.Events) == 0 {
			continue
		}
		stepErr = w.step(ctx, name, func() error {
			for _, ev := range wr.Events {
				out := checker.Output{Key: string(ev.Kv.Key), Revision: ev.Kv.ModRevision}
				if ev.Type == mvccpb.PUT {
					out.Value = string(ev.Kv.Value)
				}
				rec.Instant(ctx, name, checker.KindWatchEvent, prefix, checker.Input{}, out)
				*next = max(*next, ev.Kv.ModRevision+1)
			}
			return nil
		})
		if stepErr != nil {
			cancel()
			break
		}
	}
	cancel()
	if compacted != 0 {
		*next = 0
	}
	p.OK(ctx, checker.Output{CompactRevision: compacted})
	return stepErr
}

// registerKV makes client name's KV of recipe r over cli, for a process
// that starts.
func (w *world) registerKV(ctx context.Context, r register.Recipe, cli *clientv3.Client, name string) (clientv3.KV, error) {
	kv, err := r.New(ctx, cli, w.s.Workload.TTL.D()) // it takes ctx: no patience of construct's, which a leasing KV's first session may need
	if err != nil {
		return nil, fmt.Errorf("%w: %s: register recipe %s: New: %w", ErrRecipe, name, r.Name, err)
	}
	w.adopt(FamilyRegister, r.Name, name, "clientv3.KV", kv)
	return kv, nil
}
