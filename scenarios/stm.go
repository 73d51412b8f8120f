package scenarios

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/internal/recipe"
	"github.com/etcdsim/etcdsim/recipes/stm"
)

// FamilySTM names the family.
const FamilySTM = recipe.STM

// stmFamily: a bank on a transaction recipe (recipes/stm). Clients transfer
// money between a few accounts, each transfer one transaction that reads
// both balances and writes both new ones; observers audit, reading every
// account in one transaction and checking that the books balance.
var stmFamily = family{
	name:      FamilySTM,
	key:       "bank",
	observers: 1,
	defaults: func(w *Workload) {
		if w.Recipe == "" && w.STM == nil {
			w.Recipe = stm.Recipes()[0].Name
		}
	},
	checkers: []checker.Name{checker.CheckerBankTotal, checker.CheckerSerializable},
	command:  stmCommand,
	slots:    []slot{slotOf(FamilySTM, "WithSTM", func(w *Workload) **stm.Recipe { return &w.STM }, stm.Lookup)},
	run:      (*world).stmWorkload,
	safety:   []string{"STMSafety"},
	gallery:  stmScenarios,
}

// WithSTM is WithLock for a transaction recipe of the stm family.
func (s Scenario) WithSTM(r stm.Recipe) Scenario {
	s.Workload.STM = &r
	return s.reuse(r.Name, r.Expect, false)
}

// STMLevels returns the names of etcd's STM isolation levels, the stm
// family's registered recipes, strongest first.
func STMLevels() []string {
	var names []string
	for _, r := range stm.Recipes() {
		names = append(names, r.Name)
	}
	return names
}

// STMSafety returns the scenarios a transaction recipe — one of etcd's
// levels, a user's own transaction layer, or a user's own transfer made a
// recipe by stm.Transfers — must pass to keep a bank's books: transfers
// and audits under the standard fault mix, judged by BankTotal (no audit
// sees money made or lost) and Serializable.
func STMSafety(r stm.Recipe) []Scenario {
	s := stmBase(r)
	s.Name = "stm/" + r.Name + "/standard-mix"
	s.Description = "bank transfers and audits through " + r.Name + " under a leader kill, a minority partition, a client cut off, a leader storm and a compaction: " +
		"no audit may see money made or lost, and the transactions must be serializable"
	return []Scenario{s}
}

// stmBase is the bank of recipe r under the standard fault mix, with r as
// a program's own value unless it is registered.
func stmBase(r stm.Recipe) Scenario {
	s := Scenario{
		// A little latency gives each request virtual time, so that
		// transactions overlap as they do on a network.
		Cluster: Cluster{Members: 3, Latency: Duration(time.Millisecond)},
		Workload: Workload{Family: FamilySTM, Recipe: r.Name, Clients: 4, Observers: 2, Duration: Duration(8 * time.Second),
			Think: Duration(stmThink), ThinkJitter: Duration(stmThink / 2), Patience: Duration(time.Second)},
		Faults: Faults{Timeline: standardMix()},
		Seed:   1,
	}
	if r.Family == "" || !slices.ContainsFunc(stm.Recipes(), func(x stm.Recipe) bool { return x.Name == r.Name }) {
		rr := r
		s.Workload.STM = &rr
	}
	return s.recordCommand()
}

// stmScenarios are the stm family's registered scenarios: the bank under
// the standard fault mix at each of etcd's four STM isolation levels. The
// two serializable levels pass. RepeatableReads validates every read at
// commit, so its transfers are serializable, but the reads of one attempt
// come from different revisions: an audit that acts on what it read sees
// read skew. ReadCommitted validates nothing: concurrent transfers
// overwrite each other's balances, and money appears and vanishes.
func stmScenarios() []Scenario {
	what := map[string]string{
		"serializable-snapshot": "no audit sees money made or lost, and the transactions are serializable",
		"serializable":          "no audit sees money made or lost, and the transactions are serializable",
		"repeatable-reads":      "an audit's reads come from different revisions and it sees the books out of balance (read skew: G-single)",
		"read-committed":        "nothing is validated at commit: concurrent transfers overwrite each other's balances and audits find money made or lost",
	}
	var out []Scenario
	for _, r := range stm.Recipes() {
		s := stmBase(r)
		s.Name = "stm/" + r.Name + "/standard-mix"
		s.Description = "bank transfers and audits in etcd's STM at " + r.Name + " under a leader kill, a minority partition, a client cut off, a leader storm and a compaction: " + what[r.Name]
		s.Expect = r.Expect
		out = append(out, s)
	}
	return out
}

// stmAccounts is how many accounts the bank has: few, so that transfers
// contend for them.
const stmAccounts = 5

// stmThink is the think time of the stm family's scenarios: short, so
// that transfers and audits overlap (about a thousand transactions in a
// run). At 10 ms a run committed twice as many and cost twice the CPU,
// and found nothing more: each weak level's anomaly shows within the
// first audits either way.
const stmThink = 25 * time.Millisecond

// errBooks is what an audit's apply function returns when the accounts do
// not sum to zero: the program acts on what it read, as one that raises an
// alarm does, and the transaction ends without committing.
var errBooks = errors.New("the books do not balance")

// stmWorkload runs the stm family: clients c1… transfer, observers o1…
// audit, each with think time, each through a Txner of the recipe's own;
// a Txner that is an stm.Transferer runs its own transfers
// (stm_transfer.go).
func (w *world) stmWorkload(ctx context.Context) error {
	wl := w.s.Workload
	r, err := recipeOf(wl.STM, wl.Recipe, stm.Lookup)
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
		g.Go(func() error { return w.stmClient(ctx, r, name, keys, audit, rng) })
	}
	for i := 1; i <= wl.Clients; i++ {
		start(fmt.Sprintf("c%d", i), false)
	}
	for i := 1; i <= wl.Observers; i++ {
		start(fmt.Sprintf("o%d", i), true)
	}
	return g.Wait()
}

// stmTxner makes client name's Txner, on its client made anew after a
// crash.
func (w *world) stmTxner(ctx context.Context, r stm.Recipe, name string) (stm.Txner, error) {
	cli, err := w.client(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return construct(ctx, w, FamilySTM, r.Name, name, "stm.Txner", func() (stm.Txner, error) {
		t, err := r.New(cli)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: stm recipe %s: New: %w", ErrRecipe, name, r.Name, err)
		}
		return t, nil
	})
}

// stmClient is one transferring or auditing client.
func (w *world) stmClient(ctx context.Context, r stm.Recipe, name string, keys []string, audit bool, rng *rand.Rand) error {
	t, err := w.stmTxner(ctx, r, name)
	if err != nil {
		return err
	}
	think := w.thinker(name)
	for n := 0; w.s.Workload.Ops == 0 || n < w.s.Workload.Ops; n++ {
		err := w.step(ctx, name, func() error {
			if audit {
				w.stmTxn(ctx, t, name, keys, 0, "")
				return nil
			}
			a, b := rng.IntN(len(keys)), rng.IntN(len(keys)-1)
			if b >= a {
				b++
			}
			amount := int64(1 + rng.IntN(20))
			if tr, ok := t.(stm.Transferer); ok { // the user's own transfer (stm_transfer.go)
				w.stmTransfer(ctx, tr, name, keys, keys[a], keys[b], amount)
				return nil
			}
			w.stmTxn(ctx, t, name, []string{keys[a], keys[b]}, amount, fmt.Sprintf("%s-%d", name, n))
			return nil
		})
		switch {
		case errors.Is(err, faults.ErrRestarted):
			if t, err = w.stmTxner(ctx, r, name); err != nil { // the dead process's Txner is closed (adopt)
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

// stmTxn runs one transaction over keys and records it: with id set, a
// transfer of amount from keys[0] to keys[1], writing each new balance
// with the id ("-40 c2-17") so that every write is unique; with id "", an
// audit that reads every key and stops with errBooks if they do not sum
// to zero. It records the reads and writes of the last attempt, the one
// that committed or whose apply function returned an error.
func (w *world) stmTxn(ctx context.Context, t stm.Txner, name string, keys []string, amount int64, id string) {
	p := w.env.Recorder().Invoke(ctx, name, checker.KindTxn, "", checker.Input{})
	var reads, writes []checker.KeyValue
	applied := false // the last attempt's apply function returned nil
	apply := func(tx stm.Tx) error {
		applied, reads, writes = false, nil, nil
		var sum int64
		bal := make([]int64, len(keys))
		for i, k := range keys {
			v, rev, err := tx.Get(k)
			if err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			kv := checker.KeyValue{Key: k, Value: v, Revision: rev, Missing: v == ""}
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
				tx.Put(kv.Key, kv.Value)
			}
		}
		applied = true
		return nil
	}
	rctx, cancel := w.opCtx(ctx)
	rev, err := t.Txn(rctx, apply)
	cancel()
	p.SetWrites(writes) //nolint:errcheck // pending until completed below
	switch {
	case err == nil:
		p.OK(ctx, checker.Output{Reads: reads, Succeeded: true, Revision: rev})
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
