package faults_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/faults"
)

// A foreign delete of the lock holder's key frees the lock for the next
// waiter while the holder, told nothing, still believes it holds it; a
// foreign put of it detaches the key from the holder's lease.
func TestForeignWritesToALockHoldersKey(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3, "c1", "c2")
		obs := clustertest.Observer(t, c.Members()...)
		s1 := session(ctx, t, clustertest.Client(t, c, "c1"), 60)
		m1 := concurrency.NewMutex(s1, "/locks/L")
		if err := m1.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		acquired(ctx, env, "c1", "L", s1.Lease())

		inject(ctx, t, env, faults.Put(faults.LockHolder("L"), "overwritten"))
		resp, err := obs.Get(ctx, m1.Key())
		if err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "overwritten" || resp.Kvs[0].Lease != 0 {
			t.Fatalf("the holder's key after put(lock-holder L): %v (err %v); want value overwritten and no lease", resp.Kvs, err)
		}
		if ev := lastEvent(t, env); !strings.Contains(ev.Detail, "put "+m1.Key()+"=overwritten") || ev.Targets[0] != "c1" {
			t.Errorf("put's event %+v: want it to name c1 and the key it wrote", ev)
		}

		// The put detached the key from c1's lease: find it by the lock's
		// prefix from now on.
		inject(ctx, t, env, faults.Delete(faults.Prefix("/locks/L/")))
		s2 := session(ctx, t, clustertest.Client(t, c, "c2"), 60)
		if err := concurrency.NewMutex(s2, "/locks/L").Lock(ctx); err != nil {
			t.Fatalf("c2 could not acquire L after the holder's key was deleted: %v", err)
		}
		// c1 was told nothing: its session lives, its mutex still names its key.
		select {
		case <-s1.Done():
			t.Error("c1's session ended; the foreign delete should leave it alone")
		default:
		}
	})
}

func TestForeignDeleteOfALockHolderByLease(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3, "c1", "c2")
		s1 := session(ctx, t, clustertest.Client(t, c, "c1"), 60)
		if err := concurrency.NewMutex(s1, "/locks/L").Lock(ctx); err != nil {
			t.Fatal(err)
		}
		acquired(ctx, env, "c1", "L", s1.Lease())
		inject(ctx, t, env, faults.Delete(faults.LockHolder("L")))
		s2 := session(ctx, t, clustertest.Client(t, c, "c2"), 60)
		if err := concurrency.NewMutex(s2, "/locks/L").Lock(ctx); err != nil {
			t.Fatalf("c2 could not acquire L after delete(lock-holder L): %v", err)
		}
	})
}

// A foreign write aimed at nothing does nothing and is recorded as not
// applicable, with the step that fired it and the reason; the schedule
// goes on without an error.
func TestForeignWriteToAMissingKey(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		_, env := start(t, 3)
		for _, f := range []faults.Fault{
			faults.Delete(faults.Key("/nope")),
			faults.Put(faults.Key("/nope"), "x"),
			faults.Delete(faults.Prefix("/none/")),
		} {
			_, err := env.Inject(ctx, f)
			if !errors.Is(err, faults.ErrNotApplicable) {
				t.Errorf("%v on a missing key: %v; want ErrNotApplicable", f, err)
			}
		}
		tl := faults.Timeline{Seed: 1, Steps: []faults.Step{faults.At(100*time.Millisecond, 0, faults.Delete(faults.Key("/nope")))}}
		if err := tl.Run(ctx, env); err != nil {
			t.Fatalf("a timeline whose foreign delete hit nothing: %v; want no error", err)
		}
		ev := lastEvent(t, env)
		if !strings.Contains(ev.Detail, "step 0") || !strings.Contains(ev.NotApplicable, `key "/nope" does not exist`) {
			t.Errorf("event %+v: want it to name step 0 and say the key does not exist", ev)
		}
	})
}

// Faults that write keys refuse targets that are no keys or clients, and
// a value their text form cannot carry.
func TestForeignWriteValidation(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c, _ := start(t, 3, "c1")
		for _, tt := range []struct {
			f    faults.Fault
			want string
		}{
			{faults.Delete(faults.Leader), "leader is a member; delete needs keys"},
			{faults.Put(faults.Key("k"), "a,b"), "may not contain commas"},
			{faults.Put(faults.Prefix("/p/"), "v"), "put overwrites keys one by one"},
			{faults.Freeze(faults.Key("k")), "key:k names etcd keys, not a node; freeze needs members"},
			{faults.Delete(faults.Key("")), "empty key"},
		} {
			err := tt.f.Available(c)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%v: Available = %v; want it to say %q", tt.f, err, tt.want)
			}
		}
	})
}
