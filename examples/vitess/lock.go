package vitess

import (
	"context"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"
	"vitess.io/vitess/go/vt/topo"
	"vitess.io/vitess/go/vt/topo/etcd2topo"

	"github.com/etcdsim/etcdsim/lock"
)

// locker is vitess's etcd2topo lock of one directory as a lock.Locker.
type locker struct {
	srv  *etcd2topo.Server
	dir  string
	opts lock.Options
	once sync.Once
}

// NewLocker locks the directory name with etcd2topo's LockWithTTL, on a
// lease of opts.TTL (lock.DefaultTTL if 0).
func NewLocker(cli *clientv3.Client, name string, opts lock.Options) (lock.Locker, error) {
	srv, err := newServer(cli)
	if err != nil {
		return nil, err
	}
	return &locker{srv: srv, dir: name, opts: opts}, nil
}

func (l *locker) Lock(ctx context.Context) (lock.Held, error) {
	if err := makeDir(ctx, l.srv, l.dir); err != nil {
		return nil, err
	}
	ld, err := l.srv.LockWithTTL(ctx, l.dir, "etcdsim", ttlOr(l.opts.TTL, lock.DefaultTTL))
	if err != nil {
		return nil, err
	}
	return &held{ld: ld, key: root + "/" + l.dir + "/locks"}, nil
}

// Unfenced declares that vitess hands out no fencing token.
func (l *locker) Unfenced() string {
	return "etcd2topo's LockDescriptor exposes neither its key nor its revision"
}

// Close closes vitess's server and its etcd client.
func (l *locker) Close() error {
	l.once.Do(l.srv.Close)
	return nil
}

// held is one hold: vitess hands out no fencing token, and tells no one
// when the lease is lost.
type held struct {
	ld  topo.LockDescriptor
	key string
}

func (h *held) Key() string                      { return h.key }
func (h *held) Token() int64                     { return 0 }
func (h *held) Done() <-chan struct{}            { return nil }
func (h *held) Unlock(ctx context.Context) error { return h.ld.Unlock(ctx) }

// Owned asks etcd with vitess's Check, a KeepAliveOnce of the lease.
func (h *held) Owned(ctx context.Context) (bool, error) {
	if err := h.ld.Check(ctx); err != nil {
		if topo.IsErrType(err, topo.NoNode) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}
