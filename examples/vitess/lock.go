package vitess

import (
	"cmp"
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"
	"vitess.io/vitess/go/vt/topo"

	"github.com/etcdsim/etcdsim/lock"
)

// NewLocker locks the directory name with etcd2topo's LockWithTTL, on a
// lease of opts.TTL (lock.DefaultTTL if 0), with no fencing token; vitess
// tells no one when the lease is lost, and Owned asks with its Check, a
// KeepAliveOnce. Close closes vitess's server and its etcd client.
func NewLocker(cli *clientv3.Client, name string, opts lock.Options) (lock.Locker, error) {
	srv, err := newServer(cli)
	if err != nil {
		return nil, err
	}
	return &lock.Funcs{Stop: srv.Close, NoFencing: "etcd2topo's LockDescriptor exposes neither its key nor its revision",
		Acquire: func(ctx context.Context) (lock.Held, error) {
			if err := makeDir(ctx, srv, name); err != nil {
				return nil, err
			}
			ld, err := srv.LockWithTTL(ctx, name, "etcdsim", cmp.Or(opts.TTL, lock.DefaultTTL))
			if err != nil {
				return nil, err
			}
			notHeld := func(err error) bool { return topo.IsErrType(err, topo.NoNode) }
			return &lock.Hold{Name: root + "/" + name + "/locks", Release: ld.Unlock, Check: lock.ErrCheck(ld.Check, notHeld)}, nil
		}}, nil
}
