package program_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/recipes/barrier"
	"github.com/etcdsim/etcdsim/recipes/queue"
	"github.com/etcdsim/etcdsim/recipes/rwmutex"
)

// familyAdapter is the test program's side of the families beyond lock
// and election: etcdsim's own correct recipes of each (and a small STM of
// its own) behind the protocol, so that a run through the protocol can be
// held to what the same recipe does in Go.
type familyAdapter struct {
	a      *goAdapter
	family string
	role   string
	name   string
	count  int

	// acquiring is held while an rwmutex acquire runs: the harness sends
	// the next op as soon as its deadline for one has passed, and under
	// load the acquire it gave up on may still be giving up, on the same
	// session. Two acquires of one session at once tread on each other's
	// keys ("session expired while waiting: no key on lease", seen under
	// load): a program answers one acquire of a client after another.
	acquiring sync.Mutex

	mu    sync.Mutex // guards the fields below
	el    election.Elector
	terms map[string]election.Leadership
	rw    rwmutex.Locker
	holds map[string]lock.Held
	q     queue.Queue
	db    barrier.DoubleBarrier
	pb    barrier.Barrier
	reg   discovery.Registrar
	txs   map[string]*stmAttempt
	obs   bool // observe was sent
}

func newFamilyAdapter(a *goAdapter, m map[string]any) (*familyAdapter, []string, error) {
	f := &familyAdapter{a: a, holds: map[string]lock.Held{}, txs: map[string]*stmAttempt{}, terms: map[string]election.Leadership{}}
	f.family, _ = m["family"].(string)
	f.role, _ = m["role"].(string)
	f.name, _ = m["name"].(string)
	f.count = int(num(m["count"]))
	ttl := lock.Options{TTL: time.Duration(a.ttl) * time.Second}
	var err error
	switch f.family {
	case "election":
		f.el, err = mustNew(election.Lookup("rechecked")).New(a.cli, f.name, election.Options{TTL: ttl.TTL})
		return f, []string{"lease", "leader", "observe"}, err
	case "rwmutex":
		f.rw, err = mustNew(rwmutex.Lookup("checked")).New(a.cli, f.name, ttl)
		return f, []string{"lease"}, err
	case "queue":
		f.q, err = mustNew(queue.Lookup("priority-claimed")).New(a.cli, f.name)
		return f, []string{"priority"}, err
	case "barrier":
		f.db, err = mustNew(barrier.Lookup("checked")).New(a.cli, f.name, f.count, ttl)
	case "plain-barrier":
		f.pb, err = mustNew(barrier.LookupPlain("checked")).New(a.cli, f.name)
	case "register", "stm", "discovery":
	default:
		return nil, nil, fmt.Errorf("family %q", f.family)
	}
	return f, nil, err
}

func mustNew[R any](r R, err error) R {
	if err != nil {
		panic(err)
	}
	return r
}

// code is the protocol's error code for err.
func code(err error, codes map[error]string) string {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return "timeout"
	}
	for e, c := range codes {
		if errors.Is(err, e) {
			return c
		}
	}
	return "unavailable"
}

func (f *familyAdapter) serve(ctx context.Context, op string, m map[string]any) map[string]any {
	str := func(k string) string { s, _ := m[k].(string); return s }
	ok := map[string]any{"ok": true}
	errAns := func(err error, codes map[error]string) map[string]any { return fail(code(err, codes), err) }
	cli := f.a.cli
	switch f.family + "/" + op {
	case "election/campaign":
		l, err := f.el.Campaign(ctx, str("value"))
		if err != nil {
			return errAns(err, nil)
		}
		id := f.a.handle("e")
		f.mu.Lock()
		f.terms[id] = l
		f.mu.Unlock()
		go func() { <-l.Done(); f.a.send(map[string]any{"event": "done", "handle": id}) }()
		return map[string]any{"ok": true, "handle": id, "key": l.Key(), "term": l.Term(), "lease": strconv.FormatInt(int64(l.(election.Leaser).Lease()), 10)}
	case "election/proclaim", "election/resign":
		f.mu.Lock()
		l := f.terms[str("handle")]
		if op == "resign" {
			delete(f.terms, str("handle"))
		}
		f.mu.Unlock()
		if l == nil {
			return fail("not_leader", fmt.Errorf("no handle %q", str("handle")))
		}
		var err error
		if op == "resign" {
			err = l.Resign(ctx)
		} else {
			err = l.Proclaim(ctx, str("value"))
		}
		if err != nil {
			return errAns(err, map[error]string{election.ErrNotLeader: "not_leader"})
		}
		return ok
	case "election/leader":
		info, err := f.el.(election.LeaderReader).Leader(ctx)
		if err != nil {
			return errAns(err, map[error]string{election.ErrNoLeader: "no_leader"})
		}
		return map[string]any{"ok": true, "key": info.Key, "value": info.Value, "term": info.Term, "rev": info.Rev}
	case "election/observe":
		return f.observe()
	case "rwmutex/acquire":
		var h lock.Held
		var err error
		f.acquiring.Lock()
		if read, _ := m["read"].(bool); read {
			h, err = f.rw.RLock(ctx)
		} else {
			h, err = f.rw.Lock(ctx)
		}
		f.acquiring.Unlock()
		if err != nil {
			return errAns(err, nil)
		}
		id := f.a.handle("h")
		f.mu.Lock()
		f.holds[id] = h
		f.mu.Unlock()
		go func() { <-h.Done(); f.a.send(map[string]any{"event": "done", "handle": id}) }()
		lease := ""
		if l, ok := h.(lock.Leaser); ok {
			lease = strconv.FormatInt(int64(l.Lease()), 10)
		}
		return map[string]any{"ok": true, "handle": id, "key": h.Key(), "token": h.Token(), "lease": lease}
	case "rwmutex/release":
		f.mu.Lock()
		h := f.holds[str("handle")]
		delete(f.holds, str("handle"))
		f.mu.Unlock()
		if h == nil {
			return fail("not_held", fmt.Errorf("no handle %q", str("handle")))
		}
		if err := h.Unlock(ctx); err != nil {
			return errAns(err, map[error]string{lock.ErrNotHeld: "not_held"})
		}
		return ok
	case "queue/enqueue":
		var err error
		if p := num(m["priority"]); p > 0 {
			err = f.q.(queue.PriorityQueue).EnqueuePriority(ctx, str("value"), uint16(p))
		} else {
			err = f.q.Enqueue(ctx, str("value"))
		}
		if err != nil {
			return errAns(err, nil)
		}
		return ok
	case "queue/dequeue":
		v, err := f.q.Dequeue(ctx)
		if err != nil {
			return errAns(err, nil)
		}
		return map[string]any{"ok": true, "value": v}
	case "queue/pending":
		n, err := f.q.Pending(ctx)
		if err != nil {
			return errAns(err, nil)
		}
		return map[string]any{"ok": true, "count": n}
	case "barrier/enter", "barrier/leave":
		enter := op == "enter"
		var err error
		if enter {
			err = f.db.Enter(ctx)
		} else {
			err = f.db.Leave(ctx)
		}
		if err != nil {
			return errAns(err, map[error]string{barrier.ErrFull: "full", barrier.ErrLeaseLost: "lease_lost"})
		}
		return ok
	case "plain-barrier/hold", "plain-barrier/release", "plain-barrier/wait":
		call := map[string]func(context.Context) error{"hold": f.pb.Hold, "release": f.pb.Release, "wait": f.pb.Wait}[op]
		if err := call(ctx); err != nil {
			return errAns(err, map[error]string{barrier.ErrHeld: "held"})
		}
		return ok
	case "register/get":
		var opts []clientv3.OpOption
		if s, _ := m["serializable"].(bool); s {
			opts = append(opts, clientv3.WithSerializable())
		}
		r, err := cli.Get(ctx, str("key"), opts...)
		if err != nil {
			return errAns(err, nil)
		}
		if len(r.Kvs) == 0 {
			return map[string]any{"ok": true, "exists": false, "header": r.Header.Revision}
		}
		return map[string]any{"ok": true, "exists": true, "value": string(r.Kvs[0].Value), "mod_rev": r.Kvs[0].ModRevision, "header": r.Header.Revision}
	case "register/put":
		r, err := cli.Put(ctx, str("key"), str("value"))
		if err != nil {
			return errAns(err, nil)
		}
		return map[string]any{"ok": true, "revision": r.Header.Revision}
	case "register/delete":
		r, err := cli.Delete(ctx, str("key"))
		if err != nil {
			return errAns(err, nil)
		}
		return map[string]any{"ok": true, "revision": r.Header.Revision, "deleted": r.Deleted}
	case "register/cas":
		cmp := clientv3.Compare(clientv3.Value(str("key")), "=", str("expect"))
		if missing, _ := m["expect_missing"].(bool); missing {
			cmp = clientv3.Compare(clientv3.CreateRevision(str("key")), "=", 0)
		}
		r, err := cli.Txn(ctx).If(cmp).Then(clientv3.OpPut(str("key"), str("value"))).Commit()
		if err != nil {
			return errAns(err, nil)
		}
		return map[string]any{"ok": true, "succeeded": r.Succeeded, "revision": r.Header.Revision}
	case "discovery/register":
		r, err := mustNew(discovery.LookupRegistrar("keepalive")).New(cli, f.name, str("addr"), discovery.Options{TTL: time.Duration(f.a.ttl) * time.Second})
		if err == nil {
			err = r.Register(ctx)
		}
		if err != nil {
			return errAns(err, nil)
		}
		f.mu.Lock()
		f.reg = r
		f.mu.Unlock()
		go func() { <-r.Done(); f.a.send(map[string]any{"event": "done"}) }()
		return map[string]any{"ok": true, "key": r.Key()}
	case "discovery/watch":
		return f.watch(ctx)
	case "stm/begin":
		id := f.a.handle("t")
		f.mu.Lock()
		f.txs[id] = &stmAttempt{reads: map[string]int64{}}
		f.mu.Unlock()
		return map[string]any{"ok": true, "handle": id}
	case "stm/get", "stm/commit", "stm/abort":
		f.mu.Lock()
		t := f.txs[str("handle")]
		if op != "get" {
			delete(f.txs, str("handle"))
		}
		f.mu.Unlock()
		if t == nil {
			return fail("bad_request", fmt.Errorf("no attempt %q", str("handle")))
		}
		switch op {
		case "get":
			return t.get(ctx, cli, str("key"))
		case "commit":
			return t.commit(ctx, cli, m["writes"])
		}
		return ok
	}
	return fail("unsupported", fmt.Errorf("op %q of family %q", op, f.family))
}

// watch follows the service with etcdsim's relisting resolver: its first
// set is the answer, each later one an event.
func (f *familyAdapter) watch(ctx context.Context) map[string]any {
	res, err := mustNew(discovery.LookupResolver("relisting")).New(f.a.cli, f.name, discovery.Options{})
	if err != nil {
		return fail("unavailable", err)
	}
	states := res.Observe(context.Background())
	set := func(s discovery.State) []map[string]any {
		out := []map[string]any{}
		for _, e := range s.Endpoints {
			out = append(out, map[string]any{"key": e.Key, "addr": e.Addr})
		}
		return out
	}
	var first discovery.State
	for first = range states {
		if first.Listed {
			break
		}
	}
	go func() {
		for s := range states {
			if s.Err != nil {
				f.a.send(map[string]any{"event": "unsure", "text": s.Err.Error()})
				continue
			}
			f.a.send(map[string]any{"event": "endpoints", "endpoints": set(s), "rev": s.Rev})
		}
	}()
	return map[string]any{"ok": true, "endpoints": set(first), "rev": first.Rev}
}

// stmAttempt is one attempt of the adapter's STM, isolated as
// SerializableSnapshot is: every read at the first read's revision, every
// key read compared at commit.
type stmAttempt struct {
	rev   int64
	reads map[string]int64 // key → the mod revision read
}

func (t *stmAttempt) get(ctx context.Context, cli *clientv3.Client, key string) map[string]any {
	var opts []clientv3.OpOption
	if t.rev != 0 {
		opts = append(opts, clientv3.WithRev(t.rev))
	}
	r, err := cli.Get(ctx, key, opts...)
	if err != nil {
		return fail(code(err, nil), err)
	}
	if t.rev == 0 {
		t.rev = r.Header.Revision
	}
	if len(r.Kvs) == 0 {
		t.reads[key] = 0
		return map[string]any{"ok": true, "value": "", "mod_rev": 0}
	}
	t.reads[key] = r.Kvs[0].ModRevision
	return map[string]any{"ok": true, "value": string(r.Kvs[0].Value), "mod_rev": r.Kvs[0].ModRevision}
}

func (t *stmAttempt) commit(ctx context.Context, cli *clientv3.Client, writes any) map[string]any {
	ws, _ := writes.([]any)
	if len(ws) == 0 && t.rev != 0 {
		// Every read was at one revision: a read-only attempt is
		// serializable there, with nothing to validate.
		return map[string]any{"ok": true, "revision": t.rev}
	}
	var cmps []clientv3.Cmp
	for k, rev := range t.reads {
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(k), "=", rev))
	}
	var puts []clientv3.Op
	for _, w := range ws {
		w := w.(map[string]any)
		puts = append(puts, clientv3.OpPut(w["key"].(string), w["value"].(string)))
	}
	r, err := cli.Txn(ctx).If(cmps...).Then(puts...).Commit()
	if err != nil {
		return fail(code(err, nil), err)
	}
	if !r.Succeeded {
		return fail("conflict", errors.New("a key read changed"))
	}
	return map[string]any{"ok": true, "revision": r.Header.Revision}
}

// observe follows the election with the recipe's Observe, each leader an
// event.
func (f *familyAdapter) observe() map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.obs {
		f.obs = true
		seen := f.el.(election.Observer).Observe(context.Background())
		go func() {
			for info := range seen {
				f.a.send(map[string]any{"event": "leader", "key": info.Key, "value": info.Value, "term": info.Term, "rev": info.Rev})
			}
		}()
	}
	return map[string]any{"ok": true}
}
