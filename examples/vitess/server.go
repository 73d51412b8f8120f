package vitess

import (
	"context"
	"path"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
	"vitess.io/vitess/go/vt/topo"
	"vitess.io/vitess/go/vt/topo/etcd2topo"

	"github.com/etcdsim/etcdsim/cluster"
)

// root is where the recipes keep vitess's topology in etcd.
const root = "/vt"

// newServer builds vitess's etcd topology server on the endpoints of cli's
// named client: etcd2topo.NewServer takes an address string and builds its
// own clientv3, which on the virtual clock EndpointsOf's addresses carry
// over the cluster's in-memory network.
func newServer(cli *clientv3.Client) (*etcd2topo.Server, error) {
	eps, err := cluster.EndpointsOf(cli, "vitess etcd2topo", "etcd2topo.NewServer takes an address string")
	if err != nil {
		return nil, err
	}
	return etcd2topo.NewServer(strings.Join(eps, ","), root)
}

// makeDir makes sure dir exists, as vitess's Lock requires.
func makeDir(ctx context.Context, srv *etcd2topo.Server, dir string) error {
	if _, err := srv.Create(ctx, path.Join(dir, "dir"), nil); err != nil && !topo.IsErrType(err, topo.NodeExists) {
		return err
	}
	return nil
}
