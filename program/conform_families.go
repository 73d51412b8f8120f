package program

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/internal/patience"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/recipes/barrier"
	"github.com/etcdsim/etcdsim/recipes/stm"
)

// The conformance checks of the families beyond lock and election: each
// builds the recipe as a workload does, sends each op in the order a
// workload does, and ends with stdin closed.

func conformRWMutex(cs *contexts, cfg Config, cli *clientv3.Client, step stepFunc) {
	rec := RWMutexWith("conform", cfg)
	r, err := rec.New(cli, conformName, lock.Options{TTL: conformTTL()})
	if err != nil {
		step("init answers ok with recipe and features", err)
		return
	}
	l := r.(rwLocker)
	defer l.Close()
	if !initStep(cs, cfg, l.session, nil, step) {
		return
	}
	// A second program, as a second client: a process holds one hold at a
	// time, as a workload's client does.
	r2, err := rec.New(cli, conformName, lock.Options{TTL: conformTTL()})
	if err != nil {
		step("a second program answers init", err)
		return
	}
	l2 := r2.(rwLocker)
	defer l2.Close()
	step("a second program answers init", l2.wait(cs.within(cfg.limit())))
	rh, err := l.RLock(cs.within(5 * time.Second))
	if !step("acquire with read: true answers ok with handle, key and token", err) {
		return
	}
	step("acquire's key is not empty", nonEmpty("key", heldOf(rh).key))
	rh2, err := l2.RLock(cs.within(5 * time.Second))
	if step("a second client's read acquire shares the lock", err) {
		step("its release answers ok", rh2.Unlock(cs.within(5*time.Second)))
	}
	_, err = l2.Lock(cs.givingUp(500 * time.Millisecond))
	step("a write acquire while a reader holds gives up by its timeout_ms (error \"timeout\")", check(errors.Is(err, context.DeadlineExceeded), "got %v", err))
	step("release answers ok", rh.Unlock(cs.within(5*time.Second)))
	step("a second release answers error \"not_held\"", check(errors.Is(rh.Unlock(cs.within(5*time.Second)), lock.ErrNotHeld), "not not_held"))
	w, err := l2.Lock(cs.within(5 * time.Second))
	if step("a write acquire with nobody holding answers ok", err) {
		_, err = l.RLock(cs.givingUp(500 * time.Millisecond))
		step("a read acquire while a writer holds gives up by its timeout_ms", check(errors.Is(err, context.DeadlineExceeded), "got %v", err))
		step("release of the writer answers ok", w.Unlock(cs.within(5*time.Second)))
	}
	rh, err = l.RLock(cs.within(5 * time.Second))
	if step("a read acquire after the writer released answers ok", err) {
		step("release answers ok", rh.Unlock(cs.within(5*time.Second)))
	}
	step("the program exits when its stdin closes", exits(l.prog))
}

func conformQueue(cs *contexts, cfg Config, cli *clientv3.Client, step stepFunc) {
	r, err := QueueWith("conform", cfg).New(cli, conformName)
	if err != nil {
		step("init answers ok with recipe and features", err)
		return
	}
	q := r.(*queueClient)
	defer q.Close()
	if !initStep(cs, cfg, q.session, nil, step) {
		return
	}
	n, err := q.Pending(cs.within(5 * time.Second))
	step("pending answers ok with count 0 on an empty queue", firstErr(err, check(n == 0, "count %d", n)))
	step("enqueue answers ok", q.Enqueue(cs.within(5*time.Second), "a"))
	step("a second enqueue answers ok", q.Enqueue(cs.within(5*time.Second), "b"))
	n, err = q.Pending(cs.within(5 * time.Second))
	step("pending counts both", firstErr(err, check(n == 2, "count %d, want 2", n)))
	v, err := q.Dequeue(cs.within(5 * time.Second))
	step("dequeue answers the first item enqueued", firstErr(err, check(v == "a", "value %q, want a", v)))
	v, err = q.Dequeue(cs.within(5 * time.Second))
	step("dequeue answers the second", firstErr(err, check(v == "b", "value %q, want b", v)))
	_, err = q.Dequeue(cs.givingUp(500 * time.Millisecond))
	step("dequeue on an empty queue waits, then gives up by its timeout_ms (error \"timeout\")", check(errors.Is(err, context.DeadlineExceeded), "got %v", err))
	if q.has("priority") {
		err := errors.Join(q.EnqueuePriority(cs.within(5*time.Second), "low", 7), q.EnqueuePriority(cs.within(5*time.Second), "high", 1))
		v, derr := q.Dequeue(cs.within(5 * time.Second))
		step("with the feature \"priority\", dequeue answers the lowest priority number first", firstErr(err, derr, check(v == "high", "value %q, want high", v)))
		q.Dequeue(cs.within(5 * time.Second)) //nolint:errcheck // emptying it
	}
	step("the program exits when its stdin closes", exits(q.prog))
}

func conformBarrier(cs *contexts, cfg Config, cli *clientv3.Client, step stepFunc) {
	r, err := BarrierWith("conform", cfg).New(cli, conformName, 1, lock.Options{TTL: conformTTL()})
	if err != nil {
		step("init answers ok with recipe and features", err)
		return
	}
	b := r.(*doubleBarrier)
	defer b.Close()
	if !initStep(cs, cfg, b.session, nil, step) {
		return
	}
	step("enter of a barrier of count 1 answers ok", b.Enter(cs.within(5*time.Second)))
	step("leave answers ok", b.Leave(cs.within(5*time.Second)))
	step("enter again answers ok", b.Enter(cs.within(5*time.Second)))
	step("leave again answers ok", b.Leave(cs.within(5*time.Second)))
	step("the program exits when its stdin closes", exits(b.prog))
}

func conformPlainBarrier(cs *contexts, cfg Config, cli *clientv3.Client, step stepFunc) {
	r, err := PlainBarrierWith("conform", cfg).New(cli, conformName)
	if err != nil {
		step("init answers ok with recipe and features", err)
		return
	}
	b := r.(*plainBarrier)
	defer b.Close()
	if !initStep(cs, cfg, b.session, nil, step) {
		return
	}
	step("wait with the barrier down answers ok at once", b.Wait(cs.within(5*time.Second)))
	step("hold answers ok", b.Hold(cs.within(5*time.Second)))
	err = b.Hold(cs.within(5 * time.Second))
	step("a second hold answers error \"held\"", check(errors.Is(err, barrier.ErrHeld), "got %v", err))
	err = b.Wait(cs.givingUp(500 * time.Millisecond))
	step("wait while held gives up by its timeout_ms (error \"timeout\")", check(errors.Is(err, context.DeadlineExceeded), "got %v", err))
	step("release answers ok", b.Release(cs.within(5*time.Second)))
	step("wait after release answers ok", b.Wait(cs.within(5*time.Second)))
	step("the program exits when its stdin closes", exits(b.prog))
}

func conformRegister(cs *contexts, cfg Config, cli *clientv3.Client, step stepFunc) {
	r, err := RegisterWith("conform", cfg).New(context.Background(), cli, conformTTL())
	if err != nil {
		step("init answers ok with recipe and features", err)
		return
	}
	kv := r.(*kvClient)
	defer kv.Close()
	if !initStep(cs, cfg, kv.session, nil, step) {
		return
	}
	const key = conformName + "/register"
	g, err := kv.Get(cs.within(5*time.Second), key)
	step("get of a missing key answers exists: false and the read's header revision", firstErr(err, check(err != nil || len(g.Kvs) == 0 && g.Header.Revision > 0, "got %v", g)))
	var missing int64 // a revision at which the key was missing
	if err == nil && len(g.Kvs) == 0 {
		missing = g.Header.Revision
	}
	p, err := kv.Put(cs.within(5*time.Second), key, "v1")
	if !step("put answers ok with the write's revision", firstErr(err, check(err != nil || p.Header.Revision > 0, "revision 0"))) {
		return
	}
	g, err = kv.Get(cs.within(5*time.Second), key)
	step("get answers the value and its mod_rev", firstErr(err, check(err != nil || len(g.Kvs) == 1 && string(g.Kvs[0].Value) == "v1" && g.Kvs[0].ModRevision == p.Header.Revision, "got %v after put at %d", g, p.Header.Revision)))
	step("get (serializable: true) answers the value and its mod_rev once its member has applied the put", serializableSees(cs.within(5*time.Second), kv, key, "v1", missing, p.Header.Revision))
	t, err := kv.Txn(cs.within(5 * time.Second)).If(clientv3.Compare(clientv3.Value(key), "=", "v1")).Then(clientv3.OpPut(key, "v2")).Commit()
	step("cas expecting the value it holds answers succeeded: true", firstErr(err, check(err != nil || t.Succeeded && t.Header.Revision > p.Header.Revision, "got %v", t)))
	t, err = kv.Txn(cs.within(5 * time.Second)).If(clientv3.Compare(clientv3.Value(key), "=", "v1")).Then(clientv3.OpPut(key, "v3")).Commit()
	step("cas expecting another value answers succeeded: false", firstErr(err, check(err != nil || !t.Succeeded, "swapped")))
	t, err = kv.Txn(cs.within(5 * time.Second)).If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).Then(clientv3.OpPut(key, "v4")).Commit()
	step("cas expecting the key missing (expect_missing) answers succeeded: false while it exists", firstErr(err, check(err != nil || !t.Succeeded, "swapped")))
	d, err := kv.Delete(cs.within(5*time.Second), key)
	step("delete answers deleted: 1 and its revision", firstErr(err, check(err != nil || d.Deleted == 1 && d.Header.Revision > 0, "got %v", d)))
	d, err = kv.Delete(cs.within(5*time.Second), key)
	step("delete of a missing key answers deleted: 0", firstErr(err, check(err != nil || d.Deleted == 0, "got %v", d)))
	t, err = kv.Txn(cs.within(5 * time.Second)).If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).Then(clientv3.OpPut(key, "v5")).Commit()
	step("cas expecting the key missing answers succeeded: true once it is", firstErr(err, check(err != nil || t.Succeeded, "did not swap")))
	step("the program exits when its stdin closes", exits(kv.prog))
}

// serializableSees asks for key with serializable gets until one is
// answered at revision rev or later, and checks that it holds value at
// mod_rev rev. A serializable get is answered from the member's own store
// without asking the leader, so it may lag behind a write already
// acknowledged (only a linearizable get must see it): an answer from
// before rev is no fault, but one from missing (a revision at which a
// linearizable get found the key missing; 0 for none) on must show the key
// missing, as it was then.
func serializableSees(ctx context.Context, kv *kvClient, key, value string, missing, rev int64) error {
	for {
		g, err := kv.Get(ctx, key, clientv3.WithSerializable())
		if err != nil {
			return err
		}
		switch {
		case g.Header.Revision >= rev:
			return check(len(g.Kvs) == 1 && string(g.Kvs[0].Value) == value && g.Kvs[0].ModRevision == rev, "got %v after put at %d", g, rev)
		case missing > 0 && g.Header.Revision >= missing && len(g.Kvs) != 0:
			return fmt.Errorf("got %v at revision %d, between a get that found the key missing at %d and the put at %d", g, g.Header.Revision, missing, rev)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("every answer until %w was from before the put at %d; the last: %v", ctx.Err(), rev, g)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func conformRegistrar(cs *contexts, cfg Config, cli *clientv3.Client, step stepFunc) {
	const service, addr = conformName + "-svc", "127.0.0.1:7001"
	r, err := RegistrarWith("conform", cfg).New(cli, service, addr, discovery.Options{TTL: conformTTL()})
	if err != nil {
		step("init answers ok with recipe and features", err)
		return
	}
	reg := r.(*registrar)
	defer reg.Close()
	if !initStep(cs, cfg, reg.session, nil, step) {
		return
	}
	if !step("register answers ok", reg.Register(cs.within(5*time.Second))) {
		return
	}
	g, err := cli.Get(cs.within(5*time.Second), reg.Key())
	step("the instance's key holds the endpoints manager's record of its addr", firstErr(err, check(err != nil || len(g.Kvs) == 1 && recordAddr(g.Kvs[0].Value) == addr && g.Kvs[0].Lease != 0,
		"key %s: %v, want a record of %s on a lease", reg.Key(), g, addr)))
	if err == nil && len(g.Kvs) == 1 {
		step("register's lease, if it names one, is the key's", check(reg.Lease() == clientv3.LeaseID(g.Kvs[0].Lease), "lease %x, the key is on %x", reg.Lease(), g.Kvs[0].Lease))
	}
	step("the program exits when its stdin closes", exits(reg.prog))
	g, err = cli.Get(cs.within(5*time.Second), reg.Key())
	step("it deregistered as it exited", firstErr(err, check(err != nil || len(g.Kvs) == 0, "key %s is still there", reg.Key())))
}

func recordAddr(v []byte) string {
	addr, _ := discovery.AddrOf(string(v))
	return addr
}

func conformResolver(cs *contexts, cfg Config, cli *clientv3.Client, step stepFunc) {
	const service = conformName + "-res"
	put := func(addr string) error {
		_, err := cli.Put(cs.within(5*time.Second), service+"/"+addr, discovery.Record(addr))
		return err
	}
	if !step("(a first instance is registered)", put("127.0.0.1:7101")) {
		return
	}
	r, err := ResolverWith("conform", cfg).New(cli, service, discovery.Options{})
	if err != nil {
		step("init answers ok with recipe and features", err)
		return
	}
	res := r.(*resolverProc)
	defer res.Close()
	if !initStep(cs, cfg, res.f.session, nil, step) {
		return
	}
	seen := res.Observe(cs.within(time.Minute))
	step("watch answers ok with the instances there are", sees(seen, "127.0.0.1:7101"))
	step("(a second instance is registered)", put("127.0.0.1:7102"))
	step("an \"endpoints\" event brings the set with both", sees(seen, "127.0.0.1:7101", "127.0.0.1:7102"))
	_, err = cli.Delete(cs.within(5*time.Second), service+"/127.0.0.1:7101")
	step("(the first is deregistered)", err)
	step("an \"endpoints\" event brings the set without it", sees(seen, "127.0.0.1:7102"))
	step("the program exits when its stdin closes", exits(res.f.prog))
}

// sees waits up to 5s (scaled by patience.Scale) for a listed state of
// exactly addrs.
func sees(seen <-chan discovery.State, addrs ...string) error {
	wait := patience.Scale(5 * time.Second)
	t := time.NewTimer(wait)
	defer t.Stop()
	var last discovery.State
	for {
		select {
		case s, ok := <-seen:
			if !ok {
				return errors.New("the resolver stopped")
			}
			if s.Listed && slices.Equal(s.Addrs(), addrs) {
				return nil
			}
			last = s
		case <-t.C:
			return check(false, "none within %v; the last set was %v, want %v", wait, last.Addrs(), addrs)
		}
	}
}

func conformSTM(cs *contexts, cfg Config, cli *clientv3.Client, step stepFunc) {
	r, err := STMWith("conform", cfg).New(cli)
	if err != nil {
		step("init answers ok with recipe and features", err)
		return
	}
	t := r.(*txner)
	defer t.Close()
	if !initStep(cs, cfg, t.session, nil, step) {
		return
	}
	const a, b = conformName + "/stm-a", conformName + "/stm-b"
	rev, err := t.Txn(cs.within(5*time.Second), func(tx stm.Tx) error {
		v, mod, err := tx.Get(a)
		if err == nil && (v != "" || mod != 0) {
			err = check(false, "value %q, mod_rev %d of a missing key, want \"\" and 0", v, mod)
		}
		tx.Put(a, "1")
		tx.Put(b, "1")
		return err
	})
	step("begin, get of a missing key (value \"\", mod_rev 0), commit with writes: ok with the revision", firstErr(err, check(rev > 0, "revision %d", rev)))
	attempts := 0
	rev2, err := t.Txn(cs.within(5*time.Second), func(tx stm.Tx) error {
		attempts++
		want := map[int]string{1: "1", 2: "other"}[attempts]
		v, _, err := tx.Get(a)
		if err == nil && v != want {
			err = check(false, "attempt %d read %q, want %q", attempts, v, want)
		}
		if attempts == 1 && err == nil {
			_, err = cli.Put(cs.within(5*time.Second), a, "other") // another writer, between the read and the commit
		}
		tx.Put(b, "2")
		return err
	})
	step("commit after a key read was changed by another answers error \"conflict\", and the attempt is run again", firstErr(err, check(attempts == 2 && rev2 > 0, "%d attempts, revision %d", attempts, rev2)))
	g, err := cli.Get(cs.within(5*time.Second), b)
	step("the committed writes are in etcd", firstErr(err, check(err != nil || len(g.Kvs) == 1 && string(g.Kvs[0].Value) == "2", "%s: %v", b, g)))
	giveUp := errors.New("the transaction's code gives up")
	_, err = t.Txn(cs.within(5*time.Second), func(stm.Tx) error { return giveUp })
	step("abort answers ok when the code gives up", check(errors.Is(err, giveUp), "got %v", err))
	step("the program exits when its stdin closes", exits(t.prog))
}
