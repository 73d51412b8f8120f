// Command mysim shows that a program of your own is a full simrun: it
// brings its own lock recipe, and simrun.Main adds the scenarios every
// correct lock must pass to the registered ones. Every command works on
// them as on the registered scenarios:
//
//	go run ./cmd/simrun/example/mysim list
//	go run ./cmd/simrun/example/mysim run 'lock/my-mutex/*'
//	go run ./cmd/simrun/example/mysim campaign -f my-campaign.yaml -shard 0/4
//
// Replay needs the recipe too, so replay a run of my-mutex with mysim, not
// with simrun. examples/myrecipes, a module of its own, does the same with
// a lock, an election, a registrar and a resolver written from scratch.
package main

import (
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cmd/simrun/simrun"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/scenarios"
)

func main() {
	simrun.Main(scenarios.LockSafety(myMutex())...)
}

// myMutex is the lock under test: here the registered mutex recipe
// behind a constructor of our own, where yours would build your lock.
func myMutex() lock.Recipe {
	mutex, err := lock.Lookup("mutex")
	if err != nil {
		panic(err) // the mutex recipe ships with etcdsim
	}
	return lock.Recipe{
		Name:    "my-mutex",
		Summary: "our lock: etcd's concurrency.Mutex behind our own constructor",
		New: func(cli *clientv3.Client, name string, opts lock.Options) (lock.Locker, error) {
			return mutex.New(cli, name, opts)
		},
	}
}
