package scenarios

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/lock"
)

// lockResources are what the lock guards in a run: a counter kept in a
// store that checks fencing tokens, inside the run's process, and — for a
// recipe whose Held writes through its guard (lock.Writer) — a key in etcd.
type lockResources struct {
	store lock.FencedResource
}

// count reads the counter for a holder presenting token: the last
// accepted write, 0 before any, or ErrStaleToken if a higher token has
// reached the store.
func (r *lockResources) count(token int64, who string) (int64, error) {
	w, ok, err := r.store.Read(token, who)
	if err != nil || !ok {
		return 0, err
	}
	n, _ := strconv.ParseInt(w.Value, 10, 64) // every value is written by update
	return n, nil
}

// dataKey is the etcd key a holder writes through its guard.
func dataKey(lockName string) string { return "etcdsim/data/" + lockName }

// hold is a holder's critical section: Writes times, it makes sure it
// still holds the lock (OwnerCheck), reads the counter, works, and writes
// the counter plus one with its token — a pause aimed at the holder when
// it acquired lands in the work, between its check and its write, as a GC
// pause would. Then, if the recipe has a guarded write, it writes once to
// etcd through it, and releases. A holder that finds it may have lost the
// lock stops at once and releases.
func (w *world) hold(ctx context.Context, name string, h lock.Held, res *lockResources, watch *lostWatch) error {
	wl := w.s.Workload
	work := wl.Hold.D() / time.Duration(wl.Writes)
	owned := true
	for i := 0; i < wl.Writes && owned; i++ {
		var err error
		if owned, err = w.owns(ctx, name, h); err != nil {
			return err
		}
		if owned {
			if err := w.update(ctx, name, h, res, work); err != nil {
				return err
			}
		}
	}
	if wr, ok := h.(lock.Writer); ok && owned {
		if err := w.step(ctx, name, func() error { return w.etcdWrite(ctx, name, h.Token(), wr) }); err != nil {
			return err
		}
	}
	return w.step(ctx, name, func() error {
		release(ctx, w.env.Recorder(), name, wl.Key, h, wl.TTL.D(), watch)
		return nil
	})
}

// owns reports whether the holder believes it still holds the lock, as the
// workload's OwnerCheck decides.
func (w *world) owns(ctx context.Context, name string, h lock.Held) (bool, error) {
	if w.s.Workload.OwnerCheck == OwnerCheckKeepAlive {
		return w.keepAliveOwns(ctx, name, h)
	}
	if w.s.Workload.OwnerCheck != OwnerCheckRead {
		select {
		case <-h.Done():
			return false, nil // a careful holder does not write once its lease may be gone
		default:
			return true, nil
		}
	}
	c, ok := h.(lock.Checker)
	if !ok {
		return false, fmt.Errorf("%w: lock recipe %q: its holder (%T) has no Owned method (lock.Checker), which workload.owner_check %q needs; use %q",
			ErrRecipe, w.s.Workload.Recipe, h, OwnerCheckRead, OwnerCheckDone)
	}
	cctx, cancel := context.WithTimeout(ctx, w.s.Workload.TTL.D())
	defer cancel()
	yes, err := c.Owned(cctx)
	return err == nil && yes, nil // a holder that cannot tell stops
}

// update adds one to the counter with a read-modify-write that presents
// the holder's token to the read and to the write: counter-read, work,
// guarded-write; the counter-incr spans them all and succeeds if the
// write was accepted.
func (w *world) update(ctx context.Context, name string, h lock.Held, res *lockResources, work time.Duration) error {
	rec := w.env.Recorder()
	key, token := w.s.Workload.Key, h.Token()
	incr := rec.Invoke(ctx, name, checker.KindCounterIncr, key, checker.Input{Token: token})
	read := rec.Invoke(ctx, name, checker.KindCounterRead, key, checker.Input{Token: token})
	n, err := res.count(token, name)
	if err != nil { // superseded: the store has seen a newer holder
		read.Fail(ctx, err)
		return incr.Fail(ctx, err)
	}
	read.OK(ctx, checker.Output{Count: n})
	err = w.step(ctx, name, func() error { return sleep(ctx, work) })
	if err == nil {
		err = w.step(ctx, name, func() error {
			v := strconv.FormatInt(n+1, 10)
			p := rec.Invoke(ctx, name, checker.KindGuardedWrite, key, checker.Input{Value: v, Token: token})
			if err := res.store.Write(token, name, v); err != nil {
				p.Fail(ctx, err)
				return incr.Fail(ctx, err)
			}
			p.OK(ctx, checker.Output{})
			return incr.OK(ctx, checker.Output{})
		})
	}
	if err != nil {
		incr.Fail(ctx, err) // stopped before its write: the counter is as it was
	}
	return err
}

// etcdWrite writes the holder's name to the lock's data key in etcd
// through the recipe's guard, which commits only while the holder owns
// the lock.
func (w *world) etcdWrite(ctx context.Context, name string, token int64, wr lock.Writer) error {
	key := w.s.Workload.Key
	v := fmt.Sprintf("%s-%d", name, token)
	p := w.env.Recorder().Invoke(ctx, name, checker.KindGuardedWrite, key, checker.Input{Value: v, Token: token})
	pctx, cancel := context.WithTimeout(ctx, w.s.Workload.TTL.D())
	defer cancel()
	switch _, err := wr.Put(pctx, dataKey(key), v); {
	case err == nil:
		return p.OK(ctx, checker.Output{})
	case errors.Is(err, lock.ErrNotHeld):
		return p.Fail(ctx, err)
	default:
		return p.Unknown(ctx, err)
	}
}
