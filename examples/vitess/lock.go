package vitess

import (
	"cmp"
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

// Lock holds the lock with no fencing token, and vitess tells no one when
// the lease is lost; Owned asks with vitess's Check, a KeepAliveOnce.
func (l *locker) Lock(ctx context.Context) (lock.Held, error) {
	if err := makeDir(ctx, l.srv, l.dir); err != nil {
		return nil, err
	}
	ld, err := l.srv.LockWithTTL(ctx, l.dir, "etcdsim", cmp.Or(l.opts.TTL, lock.DefaultTTL))
	if err != nil {
		return nil, err
	}
	return &lock.Hold{Name: root + "/" + l.dir + "/locks", Release: ld.Unlock, Check: func(ctx context.Context) (bool, error) {
		err := ld.Check(ctx)
		if topo.IsErrType(err, topo.NoNode) {
			return false, nil
		}
		return err == nil, err
	}}, nil
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
