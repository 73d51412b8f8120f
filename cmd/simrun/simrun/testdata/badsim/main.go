// Command badsim is a simrun whose own scenarios run deliberately bad
// recipes, for simrun's tests of runs in child processes: one lock's Lock
// blocks forever, ignoring its context, another's spins, another's panics, and a third
// prints to standard output and logs to standard error at every Lock.
//
//	go build -o badsim ./testdata/badsim
//	badsim run -run-timeout 20s lock/hang/healthy lock/panic/healthy
package main

import (
	"context"
	"fmt"
	"log"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cmd/simrun/simrun"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/scenarios"
)

func main() {
	simrun.Main(
		healthy(lock.Recipe{Name: "hang", Summary: "Lock blocks forever, ignoring its context",
			New: func(*clientv3.Client, string, lock.Options) (lock.Locker, error) { return hang{}, nil }}),
		healthy(lock.Recipe{Name: "panic", Summary: "Lock panics",
			New: func(*clientv3.Client, string, lock.Options) (lock.Locker, error) { return panics{}, nil }}),
		healthy(lock.Recipe{Name: "spin", Summary: "Lock spins forever, never blocking",
			New: func(*clientv3.Client, string, lock.Options) (lock.Locker, error) { return spin{}, nil }}),
		healthy(lock.Recipe{Name: "chatty", Summary: "a correct mutex that prints at every Lock",
			New: func(cli *clientv3.Client, name string, opts lock.Options) (lock.Locker, error) {
				l, err := lock.NewMutex(cli, name, opts)
				return chatty{l}, err
			}}),
	)
}

// healthy is a short run of r on a healthy cluster.
func healthy(r lock.Recipe) scenarios.Scenario {
	return scenarios.Scenario{
		Name:     "lock/" + r.Name + "/healthy",
		Workload: scenarios.Workload{Family: scenarios.FamilyLock, Recipe: r.Name, Clients: 1, Duration: scenarios.Duration(2 * time.Second), Lock: &r},
		Seed:     1,
	}
}

// hang is a Locker whose Lock never returns.
type hang struct{}

func (hang) Lock(context.Context) (lock.Held, error) { select {} }

// spin is a Locker whose Lock spins forever without blocking: on the
// virtual clock, the clock stands still while it does.
type spin struct{}

func (spin) Lock(context.Context) (lock.Held, error) {
	for n := 0; ; n++ {
		spinning.Store(int64(n))
	}
}

var spinning atomic.Int64

// panics is a Locker whose Lock panics.
type panics struct{}

func (panics) Lock(context.Context) (lock.Held, error) { panic("badsim: this Lock panics") }

// chatty is a correct Locker whose library prints to standard output and
// logs to standard error at every Lock.
type chatty struct{ lock.Locker }

func (c chatty) Lock(ctx context.Context) (lock.Held, error) {
	fmt.Println("chatty: locking")
	log.Print("chatty: locking, the log says")
	return c.Locker.Lock(ctx)
}
