package faults

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// Compact compacts the keyspace to the current revision, physically:
// every older revision is gone, and a watcher that is behind, or a watch
// that starts from an older revision, gets rpctypes.ErrCompacted.
func Compact() Fault {
	return Fault{
		action:  "compact",
		instant: true,
		apply: func(ctx context.Context, x *shot) (healFunc, string, error) {
			cli, err := x.env.admin(nil)
			if err != nil {
				return noHeal, "", err
			}
			defer cli.Close()
			resp, err := cli.Get(ctx, "etcdsim/faults/compact")
			if err != nil {
				return noHeal, "", fmt.Errorf("reading the current revision: %w", err)
			}
			rev := resp.Header.Revision
			// A loaded cluster may time a compaction out before it is
			// applied; the same compaction again is harmless.
			for try := 0; ; try++ {
				_, err = cli.Compact(ctx, rev, clientv3.WithCompactPhysical())
				if try == 4 || !errors.Is(err, rpctypes.ErrTimeout) || ctx.Err() != nil {
					break
				}
			}
			if errors.Is(err, rpctypes.ErrCompacted) {
				return noHeal, fmt.Sprintf("revision %d was compacted already", rev), nil
			}
			if err != nil {
				return noHeal, "", fmt.Errorf("compacting to revision %d: %w", rev, err)
			}
			return noHeal, fmt.Sprintf("compacted to revision %d", rev), nil
		},
	}
}

// Defrag defragments the backend of each member t resolves to, one after
// another. A member defragmenting serves no requests until it is done.
func Defrag(t Target) Fault {
	return Fault{
		action:  "defrag",
		targets: []Target{t},
		kind:    membersOnly,
		instant: true,
		apply: func(ctx context.Context, x *shot) (healFunc, string, error) {
			cli, err := x.env.admin(x.targets[0])
			if err != nil {
				return noHeal, "", err
			}
			defer cli.Close()
			var sizes []string
			for _, name := range x.targets[0] {
				m, err := x.env.c.Member(name)
				if err != nil {
					return noHeal, "", err
				}
				before, err := cli.Status(ctx, m.Endpoint())
				if err != nil {
					return noHeal, "", fmt.Errorf("status of %s: %w", name, err)
				}
				if _, err := cli.Defragment(ctx, m.Endpoint()); err != nil {
					return noHeal, "", fmt.Errorf("defragmenting %s: %w", name, err)
				}
				after, err := cli.Status(ctx, m.Endpoint())
				if err != nil {
					return noHeal, "", fmt.Errorf("status of %s: %w", name, err)
				}
				sizes = append(sizes, fmt.Sprintf("%s %d→%d bytes", name, before.DbSize, after.DbSize))
			}
			return noHeal, "db size " + strings.Join(sizes, ", "), nil
		},
	}
}

// admin returns a new client of the harness to the named members (all
// running members if none), through their front proxies: no link governs
// it, so the faults it carries out never suffer the faults it injects.
// The caller closes it.
func (e *Env) admin(members []string) (*clientv3.Client, error) {
	var eps []string
	for _, m := range e.c.Members() {
		if m.Running() && (len(members) == 0 || slices.Contains(members, m.Name())) {
			eps = append(eps, m.Endpoint())
		}
	}
	if len(eps) == 0 {
		return nil, fmt.Errorf("no running member among %v", members)
	}
	user, password := e.c.RootCredentials()
	cli, err := clientv3.New(clientv3.Config{Endpoints: eps, Logger: zap.NewNop(), DialTimeout: e.timeout, DialOptions: e.c.DialOptions(),
		Username: user, Password: password})
	if err != nil {
		return nil, fmt.Errorf("admin client: %w", err)
	}
	return cli, nil
}
