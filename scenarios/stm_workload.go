package scenarios

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"golang.org/x/sync/errgroup"
)

// The stm family runs etcd's software transactional memory
// (concurrency.NewSTM) as a bank: clients transfer money between a few
// accounts, each transfer one STM transaction that reads both balances and
// writes both new ones; auditors read every account in one STM
// transaction and check that the books balance. The recipe is the
// isolation level. It lives here, not in a package of its own, because it
// is a workload and nothing else: etcd's STM is the code under test, and
// the only choice a user makes — the level — is a name in the scenario.

// stmAccounts is how many accounts the bank has: few, so that transfers
// contend for them.
const stmAccounts = 5

// stmLevels are the isolation levels of etcd's STM, by the names a
// scenario gives them, strongest first.
var stmLevels = []struct {
	name string
	iso  concurrency.Isolation
}{
	{"serializable-snapshot", concurrency.SerializableSnapshot},
	{"serializable", concurrency.Serializable},
	{"repeatable-reads", concurrency.RepeatableReads},
	{"read-committed", concurrency.ReadCommitted},
}

// STMLevels returns the names of etcd's STM isolation levels, the recipes
// of the stm family, strongest first.
func STMLevels() []string {
	names := make([]string, len(stmLevels))
	for i, l := range stmLevels {
		names[i] = l.name
	}
	return names
}

// stmIsolation returns the isolation level called name.
func stmIsolation(name string) (concurrency.Isolation, error) {
	for _, l := range stmLevels {
		if l.name == name {
			return l.iso, nil
		}
	}
	return 0, fmt.Errorf("no STM isolation level %q: want one of %s", name, strings.Join(STMLevels(), ", "))
}

// errBooks is what an audit's apply function returns when the accounts do
// not sum to zero: the program acts on what it read, as one that raises an
// alarm does, and the STM returns without committing.
var errBooks = errors.New("the books do not balance")

// stmWorkload runs the stm family: clients c1… transfer, observers o1…
// audit, each with think time.
func (w *world) stmWorkload(ctx context.Context) error {
	wl := w.s.Workload
	iso, err := stmIsolation(wl.Recipe)
	if err != nil {
		return err
	}
	keys := make([]string, stmAccounts)
	for i := range keys {
		keys[i] = fmt.Sprintf("%s/%d", wl.Key, i)
	}
	var g errgroup.Group
	start := func(name string, audit bool) {
		rng := rand.New(rand.NewPCG(w.rng.Uint64(), w.rng.Uint64()))
		g.Go(func() error { return w.stmClient(ctx, name, keys, iso, audit, rng) })
	}
	for i := 1; i <= wl.Clients; i++ {
		start(fmt.Sprintf("c%d", i), false)
	}
	for i := 1; i <= wl.Observers; i++ {
		start(fmt.Sprintf("o%d", i), true)
	}
	return g.Wait()
}

// stmClient is one transferring or auditing client.
func (w *world) stmClient(ctx context.Context, name string, keys []string, iso concurrency.Isolation, audit bool, rng *rand.Rand) error {
	cli, err := w.client(ctx, name)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	think := w.thinker(name)
	for n := 0; w.s.Workload.Ops == 0 || n < w.s.Workload.Ops; n++ {
		err := w.step(ctx, name, func() error {
			if audit {
				w.stmTxn(ctx, cli, name, iso, keys, 0, "")
				return nil
			}
			a, b := rng.IntN(len(keys)), rng.IntN(len(keys)-1)
			if b >= a {
				b++
			}
			amount := int64(1 + rng.IntN(20))
			w.stmTxn(ctx, cli, name, iso, []string{keys[a], keys[b]}, amount, fmt.Sprintf("%s-%d", name, n))
			return nil
		})
		switch {
		case errors.Is(err, faults.ErrRestarted):
			if cli, err = w.client(ctx, name); err != nil {
				return fmt.Errorf("%s: restarting: %w", name, err)
			}
			continue
		case ctx.Err() != nil:
			return nil
		case err != nil:
			return fmt.Errorf("%s: %w", name, err)
		}
		if sleep(ctx, think()) != nil {
			return nil
		}
	}
	return nil
}

// stmTxn runs one STM transaction over keys and records it: with id set,
// a transfer of amount from keys[0] to keys[1], writing each new balance
// with the id ("-40 c2-17") so that every write is unique; with id "", an
// audit that reads every key and stops with errBooks if they do not sum
// to zero. It records the reads and writes of the last attempt, the one
// that committed or whose apply function returned an error.
func (w *world) stmTxn(ctx context.Context, cli *clientv3.Client, name string, iso concurrency.Isolation, keys []string, amount int64, id string) {
	p := w.env.Recorder().Invoke(ctx, name, checker.KindTxn, "", checker.Input{})
	var reads, writes []checker.KeyValue
	applied := false // the last attempt's apply function returned nil
	apply := func(s concurrency.STM) error {
		applied, reads, writes = false, nil, nil
		var sum int64
		bal := make([]int64, len(keys))
		for i, k := range keys {
			v := s.Get(k)
			kv := checker.KeyValue{Key: k, Value: v, Revision: s.Rev(k), Missing: v == ""}
			reads = append(reads, kv)
			if kv.Missing {
				continue
			}
			b, err := checker.Balance(v)
			if err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			bal[i], sum = b, sum+b
		}
		if id == "" {
			if sum != 0 {
				return fmt.Errorf("%w: the accounts sum to %d", errBooks, sum)
			}
		} else {
			writes = []checker.KeyValue{
				{Key: keys[0], Value: fmt.Sprintf("%d %s", bal[0]-amount, id)},
				{Key: keys[1], Value: fmt.Sprintf("%d %s", bal[1]+amount, id)},
			}
			for _, kv := range writes {
				s.Put(kv.Key, kv.Value)
			}
		}
		applied = true
		return nil
	}
	rctx, cancel := w.opCtx(ctx)
	resp, err := concurrency.NewSTM(cli, apply, concurrency.WithIsolation(iso), concurrency.WithAbortContext(rctx))
	cancel()
	p.SetWrites(writes) //nolint:errcheck // pending until completed below
	switch {
	case err == nil:
		p.OK(ctx, checker.Output{Reads: reads, Succeeded: true, Revision: resp.Header.Revision})
	case errors.Is(err, errBooks):
		// The program acted on what it read: an observation.
		p.OK(ctx, checker.Output{Reads: reads})
	case applied:
		// The commit itself failed: it may have taken effect.
		p.Unknown(ctx, err)
	default:
		// A read failed: no attempt got as far as committing.
		p.Fail(ctx, err)
	}
}

// stmThink is the think time of the stm family's scenarios: short, so
// that transfers and audits overlap (about a thousand transactions in a
// run). At 10 ms a run committed twice as many and cost twice the CPU,
// and found nothing more: each weak level's anomaly shows within the
// first audits either way.
const stmThink = 25 * time.Millisecond
