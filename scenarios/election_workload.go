package scenarios

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/lock"
	clientv3 "go.etcd.io/etcd/client/v3"
	"golang.org/x/sync/errgroup"
)

// electionRecipe returns the scenario's election recipe.
func (s Scenario) electionRecipe() (election.Recipe, error) {
	return recipeOf(s.Workload.Election, s.Workload.Recipe, election.Lookup)
}

// kindProclaim is a leader announcing its value again during its term
// (Leadership.Proclaim). The checkers do not read it; it is recorded so
// that reports show when a leader key's mod revision moved.
const kindProclaim checker.Kind = "x-proclaim"

// electionWorkload runs the election family. Each candidate loops
// campaign → term of office → resign, with think time; in office it writes
// once to a resource fenced by its term and proclaims its value again,
// unless it knows it lost office.
// Each observer follows the election (election.Observer, or
// election.LeaderReader polled) and records every leader it sees. A
// campaign that does not win within the patience is recorded as unknown,
// never as failed: it may have won.
//
// A term ends, in the history, when the leader resigns or, if its
// Leadership.Done closes first, at that instant: a careful leader stops
// acting as one when Done closes (see leaderTerm), so ElectionSafety judges what
// the recipe told the leader, and a recipe whose Done stays open after its
// lease is gone shows two leaders.
func (w *world) electionWorkload(ctx context.Context) error {
	r, err := w.s.electionRecipe()
	if err != nil {
		return err
	}
	store := &lock.FencedResource{}
	var g errgroup.Group
	for i := 1; i <= w.s.Workload.Clients; i++ {
		name := fmt.Sprintf("c%d", i)
		g.Go(func() error { return w.candidate(ctx, r, name, store) })
	}
	for i := 1; i <= w.s.Workload.Observers; i++ {
		name := fmt.Sprintf("o%d", i)
		g.Go(func() error { return w.electionObserver(ctx, r, name) })
	}
	return g.Wait()
}

// newElector makes the Elector of client name: a new process's, after a
// crash.
func (w *world) newElector(ctx context.Context, r election.Recipe, name string) (*clientv3.Client, election.Elector, error) {
	cli, err := w.client(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	wl := w.s.Workload
	e, err := construct(ctx, w, FamilyElection, r.Name, name, "election.Elector", func() (election.Elector, error) {
		return r.New(cli, electionOf(wl, name), election.Options{TTL: wl.TTL.D()})
	})
	if err == nil {
		w.notes.declare(FamilyElection, name, e)
	}
	if err != nil {
		return nil, nil, err
	}
	return cli, e, nil
}

// candidate is one client of the election workload.
func (w *world) candidate(ctx context.Context, r election.Recipe, name string, store *lock.FencedResource) error {
	wl := w.s.Workload
	think := w.thinker(name)
	var cli *clientv3.Client
	var e election.Elector
	fresh := func() error { // a new process: a new client and Elector; the dead one's is closed (adopt)
		var err error
		cli, e, err = w.newElector(ctx, r, name)
		return err
	}
	if err := fresh(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	for n := 0; wl.Ops == 0 || n < wl.Ops; n++ {
		var t *leaderTerm
		err := w.step(ctx, name, func() error {
			var err error
			t, err = w.campaign(ctx, r, name, fmt.Sprintf("%s-%d", name, n), cli, e)
			return err
		})
		if err == nil && t != nil {
			err = w.office(ctx, t, store)
		}
		switch {
		case errors.Is(err, faults.ErrRestarted):
			if t != nil {
				t.abandon() // the crash, recorded by the Env, ended the term
			}
			if err := fresh(); err != nil {
				if ctx.Err() != nil {
					return nil // the run ended as the process came back
				}
				return fmt.Errorf("%s: restarting: %w", name, err)
			}
			continue
		case ctx.Err() != nil:
			switch {
			case t == nil:
			case cli.Ctx().Err() != nil:
				t.abandon() // the process crashed and the run ended before it came back
			default:
				t.resign(ctx, wl.Patience.D(), wl.TTL.D())
			}
			return nil
		case err != nil:
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := sleep(ctx, think()); err != nil {
			return nil
		}
	}
	return nil
}

// campaign campaigns with value and records it. It returns the term won,
// or nil if the campaign did not win within the patience; an error only
// for a recipe that cannot be run (ErrRecipe).
func (w *world) campaign(ctx context.Context, r election.Recipe, name, value string, cli *clientv3.Client, e election.Elector) (*leaderTerm, error) {
	rec := w.env.Recorder()
	key := electionOf(w.s.Workload, name)
	p := rec.Invoke(ctx, name, checker.KindCampaign, key, checker.Input{Value: value})
	cctx, cancel := context.WithTimeout(ctx, w.s.Workload.Patience.D())
	l, err := e.Campaign(cctx, value)
	cancel()
	if err == nil && isNil(l) {
		err = nilResult(FamilyElection, r.Name, name, "Campaign", "election.Leadership")
		p.Fail(ctx, err)
		return nil, err
	}
	if err == nil && cli.Ctx().Err() != nil {
		// The process crashed as it won: it never learnt that it did.
		err = fmt.Errorf("won term %d as the client was closed: %w", l.Term(), context.Cause(cli.Ctx()))
	}
	if err != nil {
		p.Unknown(ctx, err)
		return nil, nil
	}
	out := checker.Output{Token: l.Term(), Value: l.Value(), Lease: leaseOf(l)}
	if out.Lease == 0 {
		// Said before the campaign is recorded, for a trigger on it.
		w.env.NoLease(name, fmt.Sprintf("election recipe %q: its leadership (%T) has no Lease method (election.Leaser), and its key %q does not end in its lease in hex as concurrency.Election's do, so no fault can revoke its lease",
			r.Name, l, l.Key()))
	}
	p.OK(ctx, out) // a trigger on the campaign fires here, before the leader's next step
	return newLeaderTerm(ctx, rec, cli, name, key, l), nil
}

// leaseOf returns the lease of a leadership: its Lease method's
// (election.Leaser) if it has one, else the one its key names in the
// layout of concurrency.Election ("<prefix>/<lease in hex>"), else 0.
func leaseOf(l election.Leadership) int64 {
	if ls, ok := l.(election.Leaser); ok {
		return int64(ls.Lease())
	}
	k := l.Key()
	id, err := strconv.ParseInt(k[strings.LastIndexByte(k, '/')+1:], 16, 64)
	if err != nil {
		return 0
	}
	return id
}

// office is a leader's term: it checks that it still leads, writes to the
// resource with its term as the fencing token, proclaims its value again,
// works for the hold and resigns. The step between the check and the write
// is where a pause aimed at the new leader lands: it wakes up and writes
// without checking again, as a process woken from SIGSTOP would.
func (w *world) office(ctx context.Context, t *leaderTerm, store *lock.FencedResource) error {
	rec := w.env.Recorder()
	select {
	case <-t.l.Done():
		// A careful leader does not act once its lease may be gone.
	default:
		err := w.step(ctx, t.name, func() error {
			value := fmt.Sprintf("%s-%d", t.name, t.l.Term())
			p := rec.Invoke(ctx, t.name, checker.KindGuardedWrite, t.key, checker.Input{Value: value, Token: t.l.Term()})
			if err := store.Write(t.l.Term(), t.name, value); err != nil {
				return p.Fail(ctx, err)
			}
			return p.OK(ctx, checker.Output{})
		})
		if err != nil {
			return err
		}
		if err := w.step(ctx, t.name, func() error { return w.proclaim(ctx, t) }); err != nil {
			return err
		}
	}
	if err := w.step(ctx, t.name, func() error { return sleep(ctx, w.s.Workload.Hold.D()) }); err != nil {
		return err
	}
	return w.step(ctx, t.name, func() error {
		t.resign(ctx, w.s.Workload.Patience.D(), w.s.Workload.TTL.D())
		return nil
	})
}

// proclaim has the leader announce its value again, as a leader that
// refreshes what it publishes does. The value stays the one it campaigned
// with, by which observers' reports of the term are judged; what changes is
// the leader key's mod revision. A proclaim the recipe refuses because the
// term has ended fails; one that times out after the patience is unknown.
func (w *world) proclaim(ctx context.Context, t *leaderTerm) error {
	rec := w.env.Recorder()
	value := t.l.Value()
	p := rec.Invoke(ctx, t.name, kindProclaim, t.key, checker.Input{Value: value, Token: t.l.Term()})
	pctx, cancel := context.WithTimeout(ctx, w.s.Workload.Patience.D())
	err := t.l.Proclaim(pctx, value)
	cancel()
	switch {
	case err == nil:
		p.OK(ctx, checker.Output{})
	case errors.Is(err, election.ErrNotLeader):
		p.Fail(ctx, err)
	default:
		p.Unknown(ctx, err)
	}
	return nil
}

// kindObserve is an observer's attempt to follow the election, recorded
// only when it cannot: the recipe's Elector has neither Observe nor
// Leader. The checkers do not read it; it tells the run's reader why the
// observers saw nothing.
const kindObserve checker.Kind = "x-observe"

// electionObserver is one observer of the election workload: it records
// every leader it sees. It follows the election with the Elector's Observe
// (election.Observer) or, without it, polls its Leader
// (election.LeaderReader) every think time; with neither, it records that
// it can see nothing, naming the recipe and what it lacks, and the run is
// judged on what the candidates recorded. It steps at least every think
// time, so that a crash is noticed even when the election is quiet.
func (w *world) electionObserver(ctx context.Context, r election.Recipe, name string) error {
	wl := w.s.Workload
	rec := w.env.Recorder()
	var e election.Elector
	var seen <-chan election.LeaderInfo
	var poll election.LeaderReader
	var last election.LeaderInfo // the last leader polled
	// fresh starts a new process; the dead one's Elector is closed, which
	// ends its Observe (adopt).
	fresh := func() error {
		var err error
		if _, e, err = w.newElector(ctx, r, name); err != nil {
			return err
		}
		seen, poll, last = nil, nil, election.LeaderInfo{}
		switch x := e.(type) {
		case election.Observer:
			if seen = x.Observe(ctx); seen == nil {
				return nilResult(FamilyElection, r.Name, name, "Observe", "channel")
			}
		case election.LeaderReader:
			poll = x
		}
		return nil
	}
	if err := fresh(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if seen == nil && poll == nil {
		rec.Invoke(ctx, name, kindObserve, electionOf(wl, name), checker.Input{}).Fail(ctx, fmt.Errorf(
			"election recipe %q: its Elector (%T) has neither Observe (election.Observer) nor Leader (election.LeaderReader), so observer %s sees nothing; the run is judged on what the candidates recorded",
			r.Name, e, name))
		return nil
	}
	tick := time.NewTicker(max(wl.Think.D(), 10*time.Millisecond))
	defer tick.Stop()
	for {
		var info election.LeaderInfo
		got := false
		select {
		case <-ctx.Done():
			return nil
		case i, ok := <-seen: // never ready when seen is nil: the Elector is polled
			if !ok {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("%s: the observer's channel closed while the run went on%s", name, whyEnded(e))
			}
			info, got = i, true
		case <-tick.C:
			if poll != nil {
				info, got = w.pollLeader(ctx, poll, &last)
			}
		}
		err := w.step(ctx, name, func() error {
			if got {
				rec.Instant(ctx, name, checker.KindLeaderObserved, electionOf(wl, name), checker.Input{},
					checker.Output{Value: info.Value, Token: info.Term})
			}
			return nil
		})
		switch {
		case errors.Is(err, faults.ErrRestarted):
			if err := fresh(); err != nil {
				if ctx.Err() != nil {
					return nil // the run ended as the process came back
				}
				return fmt.Errorf("%s: restarting: %w", name, err)
			}
		case ctx.Err() != nil:
			return nil
		case err != nil:
			return fmt.Errorf("%s: %w", name, err)
		}
	}
}

// pollLeader reads the leader, within the patience, and returns it if it
// differs from *last, which it updates: a polling observer, like a slow
// reader of Observe, sees the latest change, not each one. No leader, or
// a read that fails, is nothing seen.
func (w *world) pollLeader(ctx context.Context, r election.LeaderReader, last *election.LeaderInfo) (election.LeaderInfo, bool) {
	pctx, cancel := context.WithTimeout(ctx, w.s.Workload.Patience.D())
	info, err := r.Leader(pctx)
	cancel()
	if err != nil || info == *last {
		return election.LeaderInfo{}, false
	}
	*last = info
	return info, true
}

// leaderTerm is one term of office, from a won campaign to its end, which is
// recorded once, as a resign: by the leader's own Resign, or, if the
// leadership's Done closes first, at that instant. Done closing is the
// recipe telling the leader it may have lost office; a careful leader
// stops acting as one then, and the history says so. A Done closed by a
// crash (the client is closed first) records nothing: the crash, recorded
// by the Env, ended the term.
type leaderTerm struct {
	rec       *checker.Recorder
	name, key string
	l         election.Leadership

	mu    sync.Mutex // guards ended
	ended bool       // the end has been recorded, or will be by whoever claimed it

	stop chan struct{} // closed to end the watch on Done
	once sync.Once     // closes stop
	wg   sync.WaitGroup
}

// newLeaderTerm starts the watch on l's Done. The campaign must be recorded
// already, so that no resign can come before it.
func newLeaderTerm(ctx context.Context, rec *checker.Recorder, cli *clientv3.Client, name, key string, l election.Leadership) *leaderTerm {
	t := &leaderTerm{rec: rec, name: name, key: key, l: l, stop: make(chan struct{})}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		select {
		case <-l.Done():
			if cli.Ctx().Err() == nil && t.claim() {
				rec.Instant(ctx, name, checker.KindResign, key, checker.Input{}, checker.Output{})
			}
		case <-t.stop:
		}
	}()
	return t
}

// claim makes the caller the one who records the end of the term. It
// returns false if someone did already.
func (t *leaderTerm) claim() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return false
	}
	t.ended = true
	return true
}

// unwatch ends the watch on Done and waits for it.
func (t *leaderTerm) unwatch() {
	t.once.Do(func() { close(t.stop) })
	t.wg.Wait()
}

// resign resigns, waiting at most timeout (and grace once ctx has ended),
// and records it unless the term
// had ended already. A leader told it no longer leads (ErrNotLeader)
// leads no more: that is recorded as done.
func (t *leaderTerm) resign(ctx context.Context, timeout, grace time.Duration) {
	rctx, cancel := finishing(ctx, timeout, grace) // a resign goes on as the run ends, for grace more
	ctx = context.WithoutCancel(ctx)
	var p *checker.Pending
	if t.claim() {
		p = t.rec.Invoke(ctx, t.name, checker.KindResign, t.key, checker.Input{Value: checker.ResignAsked})
	}
	err := t.l.Resign(rctx)
	cancel()
	t.unwatch()
	switch {
	case p == nil:
	case err == nil, errors.Is(err, election.ErrNotLeader):
		p.OK(ctx, checker.Output{})
	default:
		p.Unknown(ctx, err)
	}
}

// abandon ends the term of a leader that crashed, recording nothing.
func (t *leaderTerm) abandon() {
	t.claim()
	t.unwatch()
}
