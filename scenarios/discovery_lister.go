package scenarios

import (
	"context"
	"slices"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/checker"
)

// listerName is the client that lists the registry for left-behind.
const listerName = "lister"

// judgedBy reports whether the scenario runs the checker called name.
func (s Scenario) judgedBy(name checker.Name) bool {
	return slices.ContainsFunc(s.Checkers, func(c Check) bool { return c.Name == name })
}

// lister lists the service's keys every think time, and records each
// listing with the keys it found (checker.KindList, Output.Values), until
// ctx ends: what left-behind judges the registrars' keys by. It runs only
// in a scenario that left-behind judges. A listing that fails is recorded
// failed; the next one tries again.
func (w *world) lister(ctx context.Context) error {
	cli, err := w.client(ctx, listerName)
	if err != nil {
		return err
	}
	think := w.thinker(listerName)
	prefix := w.s.Workload.Key + "/"
	rec := w.env.Recorder()
	for {
		p := rec.Invoke(ctx, listerName, checker.KindList, prefix, checker.Input{})
		lctx, cancel := context.WithTimeout(ctx, w.s.Workload.Patience.D())
		resp, err := cli.Get(lctx, prefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
		cancel()
		if err != nil {
			p.Fail(context.WithoutCancel(ctx), err)
		} else {
			keys := make([]string, len(resp.Kvs))
			for i, kv := range resp.Kvs {
				keys[i] = string(kv.Key)
			}
			p.OK(ctx, checker.Output{Revision: resp.Header.Revision, Values: keys})
		}
		if sleep(ctx, think()) != nil {
			return nil
		}
	}
}
