package program

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/internal/recipe"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/recipes/rwmutex"
)

// RWMutex is a read-write lock recipe called name whose every client is a
// process of argv (docs/protocol.md, family "rwmutex"): acquire as for a
// lock, with "read": true for a shared hold, and release.
func RWMutex(name string, argv ...string) rwmutex.Recipe {
	return RWMutexWith(name, Config{Argv: argv})
}

// RWMutexWith is RWMutex with the program's settings.
func RWMutexWith(name string, cfg Config) rwmutex.Recipe {
	return rwmutex.Recipe{
		Name:    name,
		Summary: fmt.Sprintf("a read-write lock in a process of its own per client: %q", cfg.Argv),
		Command: cfg.Argv,
		New: func(cli *clientv3.Client, key string, opts lock.Options) (rwmutex.Locker, error) {
			if key == "" {
				return nil, lock.ErrBadName
			}
			l, err := startLocker(cfg, cli, request{Family: recipe.RWMutex, Name: key, TTL: ttlSeconds(opts.TTL, lock.DefaultTTL)})
			if err != nil {
				return nil, err
			}
			return rwLocker{l}, nil
		},
	}
}

// rwLocker is one client's read-write lock: Lock as a lock's, RLock a
// shared acquire.
type rwLocker struct{ *locker }

func (l rwLocker) RLock(ctx context.Context) (lock.Held, error) { return l.acquire(ctx, true) }
