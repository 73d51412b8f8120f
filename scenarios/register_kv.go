package scenarios

import (
	"fmt"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.etcd.io/etcd/client/v3/leasing"
)

// The register family's recipes are the client-side KVs a register client
// reads and writes through, each over the client's own etcd client:
//
//   - "" (etcd's KV): the client's own KV API, straight to the cluster.
//   - "leasing": client/v3/leasing's KV, which caches each key it reads
//     under a lease of its session and serves later reads of it from the
//     cache until another client's write revokes the lease.
var registerKVs = []string{"", RegisterLeasing}

// RegisterLeasing names the leasing KV recipe of the register family.
const RegisterLeasing = "leasing"

// leasingPrefix is where the leasing KVs keep their lease keys: outside
// the register keys' prefix, so that the register watchers see only the
// registers.
const leasingPrefix = "leasing/"

// checkRegisterKV reports a register recipe there is not.
func checkRegisterKV(name string) error {
	for _, k := range registerKVs {
		if k == name {
			return nil
		}
	}
	return fmt.Errorf("no register KV %q: want \"\" (etcd's own KV) or one of %s", name, strings.Join(registerKVs[1:], ", "))
}

// registerKV returns the KV a register client reads and writes through,
// over cli, and what closes it.
func (w *world) registerKV(cli *clientv3.Client) (clientv3.KV, func(), error) {
	switch w.s.Workload.Recipe {
	case "":
		return cli, func() {}, nil
	case RegisterLeasing:
		ttl := int(w.s.Workload.TTL.D().Seconds())
		kv, closeKV, err := leasing.NewKV(cli, leasingPrefix, concurrency.WithTTL(ttl))
		if err != nil {
			return nil, nil, fmt.Errorf("a leasing KV: %w", err)
		}
		return kv, closeKV, nil
	}
	return nil, nil, checkRegisterKV(w.s.Workload.Recipe)
}
