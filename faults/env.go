package faults

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/seed"
)

// Config shapes an Env. The zero Config works: a recorder of its own on a
// new clock, seed 0, 30s timeout.
type Config struct {
	// Recorder is the run's history recorder. The Env observes every
	// operation recorded on it — to know who holds a lock, leads an
	// election or owns a lease, and to fire the triggers of running
	// schedules — and records there every fault event, on the recorder's
	// clock, and every client crash it causes (checker.KindCrash). nil
	// means a recorder of the Env's own (see Env.Recorder).
	Recorder *checker.Recorder `json:"-"`
	// Seed seeds the random source of faults injected with Env.Inject.
	// Schedules have seeds of their own.
	Seed seed.Seed `json:"seed"`
	// Timeout bounds each wait of an injection or heal: for a leader to
	// be agreed, a member to restart, a maintenance call. 0 means 30s.
	Timeout time.Duration `json:"timeout,omitempty"`
}

// Env is where faults fire: a cluster, the run's recorder and clock, the
// fault log, and the step gate of paused and crashed clients. One Env
// serves one run; it is safe for concurrent use and starts no goroutine
// of its own.
type Env struct {
	c       *cluster.Cluster
	seed    seed.Seed
	rec     *checker.Recorder
	clock   *checker.Clock
	timeout time.Duration
	log     Log
	gate    Gate

	rngMu sync.Mutex // guards rng
	rng   *rand.Rand // for Env.Inject only

	mu      sync.Mutex        // guards locks, leaders, leases, noLease, armed
	locks   map[string]string // lock name → holder, from the recorded operations
	leaders map[string]string // election name → leader, likewise
	leases  map[string]int64  // client → lease of its latest key
	noLease map[string]string // client → why its recipe offers no lease (NoLease)
	armed   []*armedTrigger   // triggers of running schedules
}

// NewEnv returns an Env for faults against c. It registers itself as an
// observer of the config's recorder for as long as that recorder lives:
// one Env per run and recorder.
func NewEnv(c *cluster.Cluster, cfg Config) *Env {
	e := &Env{
		c:       c,
		seed:    cfg.Seed,
		rec:     cfg.Recorder,
		timeout: cfg.Timeout,
		rng:     cfg.Seed.Rand(0),
		locks:   make(map[string]string),
		leaders: make(map[string]string),
		leases:  make(map[string]int64),
		noLease: make(map[string]string),
	}
	if e.rec == nil {
		e.rec = checker.NewRecorder(checker.NewClock())
	}
	e.clock = e.rec.Clock()
	if e.timeout <= 0 {
		e.timeout = 30 * time.Second
	}
	e.rec.Observe(e.observe)
	return e
}

// Recorder returns the run's recorder: the workload records its
// operations here, and the Env records its fault events and crashes.
func (e *Env) Recorder() *checker.Recorder { return e.rec }

// Seed returns the seed of the Env's Config: the run's seed. A schedule
// of a program's own draws its random choices from it, from a stream of
// its own (Seed().Rand(stream)), so that the run's seed replays it; the
// targets of the faults it injects with Inject are resolved from the
// same seed already.
func (e *Env) Seed() seed.Seed { return e.seed }

// Cluster returns the cluster the Env's faults hit.
func (e *Env) Cluster() *cluster.Cluster { return e.c }

// Clock returns the run's clock.
func (e *Env) Clock() *checker.Clock { return e.clock }

// Log returns the Env's record of every injection.
func (e *Env) Log() *Log { return &e.log }

// Gate returns the step gate that Pause and Crash close. The workload
// calls Gate().Step(ctx, client) before each step of a client.
func (e *Env) Gate() *Gate { return &e.gate }

// Inject fires f now: it resolves f's targets against the cluster as it is,
// injects, records the event, and returns the heal. The caller must call
// the heal, as it would call a context's cancel; an instant fault's heal
// does nothing. If injecting fails, whatever was done is undone before
// Inject returns the error, and the returned heal does nothing. A fault
// aimed at something the run's recipe does not offer does nothing and is
// recorded as not applicable; its error wraps ErrNotApplicable.
func (e *Env) Inject(ctx context.Context, f Fault) (Heal, error) {
	e.rngMu.Lock()
	seed := e.rng.Uint64()
	e.rngMu.Unlock()
	return e.inject(ctx, f, stepRand(seed), "")
}

// stepRand is the random source of one firing, seeded from the schedule's
// random source. Resolving targets may draw a number of values that
// depends on the cluster's state; a source per firing keeps that from
// shifting every later choice of the schedule.
func stepRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x6661756c7473)) }

// inject is Inject with the firing's random source and a note for the
// event's detail.
func (e *Env) inject(ctx context.Context, f Fault, rng *rand.Rand, note string) (Heal, error) {
	if err := f.validate(e.shape()); err != nil {
		e.log.add(e, checker.FaultEvent{Name: f.String(), Action: f.action, Start: e.clock.Now(), End: e.clock.Now(), Detail: note, Err: err.Error()})
		return nopHeal, err
	}
	rctx, cancel := context.WithTimeout(ctx, e.timeout)
	x := &shot{env: e, rng: rng}
	var err error
	for _, t := range f.targets {
		var names []string
		names, err = t.resolve(rctx, e, rng)
		if err != nil {
			err = fmt.Errorf("faults: %v: resolving %v: %w", f, t, err)
			break
		}
		if err = checkKind(f, t, names, e.shape()); err != nil {
			break
		}
		x.targets = append(x.targets, names)
	}
	cancel()
	if err != nil {
		now := e.clock.Now()
		e.log.add(e, checker.FaultEvent{Name: f.String(), Action: f.action, Start: now, End: now, Detail: note, Err: err.Error()})
		return nopHeal, err
	}
	ev := checker.FaultEvent{Name: f.String(), Action: f.action, Targets: flatten(x.targets), Start: e.clock.Now(), Detail: note}
	for _, t := range f.targets {
		if t.kind == pinnedTarget {
			ev.Pinned = t.arg
		}
	}
	actx, cancel := context.WithTimeout(ctx, e.timeout)
	h, detail, err := f.apply(actx, x)
	cancel()
	ev.Detail = joinDetail(ev.Detail, detail)
	if why, ok := whyNotApplicable(err); ok {
		// Nothing was done: the event is over as it starts, and no error.
		ev.End, ev.Healed, ev.NotApplicable = ev.Start, true, why
		e.log.add(e, ev)
		return nopHeal, fmt.Errorf("faults: %v on %v: %w", f, ev.Targets, err)
	}
	id := e.log.begin(e, ev)
	if err != nil {
		err = fmt.Errorf("faults: %v on %v: %w", f, ev.Targets, err)
		herr := e.finish(ctx, id, h, err)
		if herr != nil {
			err = fmt.Errorf("%w (and undoing it: %w)", err, herr)
		}
		return nopHeal, err
	}
	if f.instant {
		return nopHeal, e.finish(ctx, id, h, nil)
	}
	var once sync.Once
	var herr error
	return func(ctx context.Context) error {
		once.Do(func() { herr = e.finish(ctx, id, h, nil) })
		return herr
	}, nil
}

// finish runs a heal and closes the event. injectErr is the injection's
// error, if the heal is undoing a failed injection.
func (e *Env) finish(ctx context.Context, id int, h healFunc, injectErr error) (err error) {
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.timeout)
	defer cancel()
	var detail string
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("heal panicked: %v", r)
			}
		}()
		detail, err = h(hctx)
	}()
	if err != nil {
		err = fmt.Errorf("faults: healing %s: %w", e.log.name(id), err)
	}
	e.log.end(e, id, e.clock.Now(), detail, injectErr, err)
	return err
}

func nopHeal(context.Context) error { return nil }

// checkKind reports a target that resolved to the wrong kind of node,
// such as a lock holder that is not a client of the cluster.
func checkKind(f Fault, t Target, names []string, s shape) error {
	if t.onKeys() || t.kind == userTarget {
		return nil // it names keys or a user, which are no node
	}
	for _, n := range names {
		isMember := slices.Contains(s.members, n)
		isClient := slices.Contains(s.clients, n)
		switch {
		case !isMember && !isClient:
			return fmt.Errorf("faults: %v: %v resolved to %q, which is neither a member nor a client of the cluster", f, t, n)
		case f.kind == membersOnly && !isMember:
			return fmt.Errorf("faults: %v: %v resolved to client %q; %s needs members", f, t, n, f.action)
		case (f.kind == clientsOnly || f.kind == keysOrClients) && !isClient:
			return fmt.Errorf("faults: %v: %v resolved to member %q; %s needs clients", f, t, n, f.action)
		}
	}
	return nil
}

// shape returns the cluster's members and clients now.
func (e *Env) shape() shape { return shapeOf(e.c) }

// leader returns the name of the leader a quorum agrees on, waiting up to
// the Env's timeout.
func (e *Env) leader(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	m, err := e.c.Leader(ctx)
	if err != nil {
		return "", err
	}
	return m.Name(), nil
}

func flatten(targets [][]string) []string {
	var out []string
	for _, ts := range targets {
		for _, t := range ts {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

func joinDetail(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
