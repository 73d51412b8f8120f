package scenarios

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/internal/bubble"
)

// The end state says which lease each key is on, and that a key on no
// lease is on none, though etcd's keys-only listing gives no key's lease.
func TestReadFinalKnowsEachKeysLease(t *testing.T) {
	bubble.Test(t, bubble.Options{Name: t.Name()}, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{Members: 1, Latency: time.Millisecond})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cli, err := c.Client("c1")
		if err != nil {
			t.Fatal(err)
		}
		lease, err := cli.Grant(ctx, 30)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cli.Put(ctx, "svc/a", "x", clientv3.WithLease(lease.ID)); err != nil {
			t.Fatal(err)
		}
		if _, err := cli.Put(ctx, "svc/b", "y"); err != nil {
			t.Fatal(err)
		}
		f := readFinal(ctx, c, nil, time.Second)
		if f.Err != "" {
			t.Fatal(f.Err)
		}
		a, okA := f.Key("svc/a")
		b, okB := f.Key("svc/b")
		if !okA || !okB || a.Lease != int64(lease.ID) || b.Lease != 0 {
			t.Errorf("end state %+v: want svc/a on lease %x and svc/b on none", f.Keys, int64(lease.ID))
		}
	})
}
