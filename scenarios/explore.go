package scenarios

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/internal/runfile"
	"github.com/etcdsim/etcdsim/seed"
)

// ExploreConfig says what Explore searches and for how long. Family and a
// recipe, and a budget of runs or of time, are required.
type ExploreConfig struct {
	// Family is one of ExploreFamilies().
	Family string `json:"family"`
	// Recipe names the recipe in its family's registry; with Own holding
	// a recipe value, "" means that value's name.
	Recipe string `json:"recipe"`
	// Own holds a program's own recipe, in the slot its family's …Safety
	// constructor uses (Own.Lock, Own.Election, Own.Registrar and
	// Own.ResolverRecipe): every draw carries it (Workload.CarryRecipes).
	// Its other fields are ignored.
	Own Workload `json:"-"`
	// Seed seeds the stream of draws: run i draws from its own random
	// stream of Seed, so a run replays alone from its own seed.
	Seed seed.Seed `json:"seed"`
	// Runs stops the exploration after that many runs (of this shard); 0
	// means no limit but Budget.
	Runs int `json:"runs,omitempty"`
	// Budget stops it after that much wall time; 0 means no limit but
	// Runs. One of the two must be set.
	Budget time.Duration `json:"budget,omitempty"`
	// Shard and Shards split the stream: this exploration runs the draws i
	// with i mod Shards == Shard. 0 Shards means 1.
	Shard  int `json:"shard,omitempty"`
	Shards int `json:"shards,omitempty"`
	// Guided keeps the draws that reached behaviour not seen before and
	// mutates them (see guide); false draws every run afresh, uniformly.
	// Measured on the gallery's broken recipes, uniform draws found them
	// as fast or faster (docs/explore.md), so uniform is the default.
	Guided bool `json:"guided,omitempty"`
	// UntilFound stops the exploration after the first run that finds a
	// violation (and its batch), before the budget is spent.
	UntilFound bool `json:"-"`
	// Parallel runs that many at once; 0 means 1.
	Parallel int `json:"parallel,omitempty"`
	// Space bounds the draws.
	Space Space `json:"space,omitzero"`
	// ShrinkRuns caps the runs spent shrinking each group of findings; 0
	// means 12, negative shrinks nothing.
	ShrinkRuns int `json:"shrink_runs,omitempty"`
	// Out, if set, is the directory the exploration writes: explore.jsonl,
	// one line per run, from which an interrupted exploration resumes;
	// runs/<i>/ for each run that found something; findings.json and
	// findings.md.
	Out string `json:"-"`
	// Clock is the clusters' clock; "" means virtual.
	Clock cluster.Clock `json:"clock,omitempty"`
	// Progress, if set, is called after each run.
	Progress func(ExploreProgress) `json:"-"`
	// Replay names the program in replay commands; "" means simrun.
	Replay string `json:"-"`
}

// ExploreProgress is where an exploration stands.
type ExploreProgress struct {
	Runs      int           // runs so far, resumed ones included
	Elapsed   time.Duration // wall time of this sitting
	Simulated time.Duration // workload time run
	Findings  int           // runs that found a violation
	Groups    int           // distinct ways so far, before shrinking
}

// String is the progress line simrun prints.
func (p ExploreProgress) String() string {
	rate := 0.0
	if p.Elapsed > 0 {
		rate = float64(p.Runs) / p.Elapsed.Seconds()
	}
	return fmt.Sprintf("explore: %d runs, %.2f runs/s, %v simulated, %d findings (%d distinct)",
		p.Runs, rate, p.Simulated.Round(time.Second), p.Findings, p.Groups)
}

// ErrExploreConfig is wrapped by Explore's error when the configuration
// cannot run: nothing ran.
var ErrExploreConfig = errors.New("scenarios: explore")

// exploreStream separates the explorer's draws from the runs' own streams.
const exploreStream = 0x6578706c6f7265

// Explore searches the space of cfg's family for draws that cfg's recipe
// fails: it draws scenarios from cfg.Seed — faults, alone or two or three
// together, aimed by role and by workload state, at a moment of the
// workload; the workload's shape; the network — runs each, judges each
// with the judges a correct recipe must pass under it (the fault table's
// rule), and shrinks and groups what it finds. A recipe that panics or
// hangs in a run is recorded as the recipe's fault and the exploration
// goes on; a draw whose fault cannot apply to its cluster is counted and
// is no finding. A bad configuration is an error wrapping
// ErrExploreConfig. When ctx ends it stops, shrinks nothing more, and
// returns what it has with ctx's error.
func Explore(ctx context.Context, cfg ExploreConfig) (*ExploreReport, error) {
	e, err := newExplorer(cfg)
	if err != nil {
		return nil, err
	}
	return e.explore(ctx)
}

// explorer is one exploration under way.
type explorer struct {
	cfg    ExploreConfig
	fam    *exploreFamily
	base   Scenario
	drawer drawer
	guide  *guide
	rep    *ExploreReport
	j      *journal
	start  time.Time
}

func newExplorer(cfg ExploreConfig) (*explorer, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrExploreConfig}, args...)...)
	}
	fam := exploreFamilyOf(cfg.Family)
	if fam == nil {
		return nil, bad("unknown family %q: want one of %s", cfg.Family, strings.Join(ExploreFamilies(), ", "))
	}
	switch {
	case cfg.Runs < 0:
		return nil, bad("runs %d is negative: want a positive number of runs", cfg.Runs)
	case cfg.Budget < 0:
		return nil, bad("budget %v is negative: want a positive duration such as 5m", cfg.Budget)
	case cfg.Runs == 0 && cfg.Budget == 0:
		return nil, bad("no budget: give a number of runs or a duration")
	case cfg.Shards < 0 || cfg.Shard < 0 || cfg.Shards > 0 && cfg.Shard >= cfg.Shards || cfg.Shards == 0 && cfg.Shard != 0:
		return nil, bad("shard %d/%d: want i/n with 0 ≤ i < n", cfg.Shard, cfg.Shards)
	case cfg.Parallel < 0:
		return nil, bad("parallel %d is negative", cfg.Parallel)
	}
	cfg.Shards = max(cfg.Shards, 1)
	cfg.Parallel = max(cfg.Parallel, 1)
	if cfg.ShrinkRuns == 0 {
		cfg.ShrinkRuns = 12
	}
	cfg.Space = cfg.Space.withDefaults()
	if err := cfg.Space.validate(); err != nil {
		return nil, bad("%v", err)
	}
	base := Scenario{Workload: Workload{Family: cfg.Family, Recipe: cfg.Recipe}, Cluster: Cluster{Clock: cfg.Clock}}
	base.Workload.CarryRecipes(cfg.Own)
	if base.Workload.Recipe == "" {
		for _, sl := range familyOf(cfg.Family).slots {
			if name, _, ok := sl.own(base.Workload); ok && !sl.resolver {
				base.Workload.Recipe = name
			}
		}
	}
	if base.Workload.Recipe == "" {
		return nil, bad("no recipe: name one of the %s family's, or give your own in the family's slot", cfg.Family)
	}
	cfg.Recipe = base.Workload.Recipe
	base.Name = cfg.Family + "/" + cfg.Recipe + "/explore"
	base.Seed = 1
	if err := base.Validate(); err != nil {
		return nil, bad("%v", err)
	}
	base.Cluster.Clock = clusterClock(base)
	e := &explorer{cfg: cfg, fam: fam, base: base, drawer: drawer{fam: fam, space: cfg.Space}, guide: newGuide(),
		rep: &ExploreReport{Family: cfg.Family, Recipe: cfg.Recipe, Seed: cfg.Seed, Shard: cfg.Shard, Shards: cfg.Shards,
			Guided: cfg.Guided, FirstFinding: -1}}
	return e, nil
}

// drawFor draws run i: fresh, or, guided, half the time a mutation of a
// draw that reached something new. A draw whose schedule does not hang
// together — two faults at once on what may be one node — is drawn again,
// up to maxRedraws times; the last is run as drawn, and counted as not
// applicable if it cannot.
func (e *explorer) drawFor(i int) draw {
	rng := e.cfg.Seed.Rand(exploreStream + uint64(i))
	var x draw
	for range maxRedraws {
		x = e.drawer.draw(rng)
		if e.cfg.Guided {
			if parent, ok := e.guide.parent(rng); ok {
				x = e.drawer.mutate(rng, parent)
			}
		}
		s, err := e.drawer.scenario(e.base, x, e.base.Name)
		if err == nil && s.Validate() == nil {
			break
		}
	}
	return x
}

// maxRedraws bounds the draws of one run.
const maxRedraws = 20

// explore is Explore's loop.
func (e *explorer) explore(ctx context.Context) (*ExploreReport, error) {
	e.start = time.Now()
	if e.cfg.Out != "" {
		j, done, err := openJournal(e.cfg)
		if err != nil {
			return nil, err
		}
		e.j = j
		defer j.close()
		for _, r := range done {
			e.account(r)
		}
	}
	var runErr error
	done := map[int]bool{}
	for _, r := range e.rep.Runs {
		done[r.Index] = true
	}
	idx := e.cfg.Shard
	nextIndex := func() int {
		for done[idx] {
			idx += e.cfg.Shards
		}
		i := idx
		idx += e.cfg.Shards
		return i
	}
	for e.more(ctx) {
		// A batch of Parallel draws runs at once; the results are taken in
		// the order of the draws, so the guide learns in the same order
		// whatever finishes first.
		n := e.cfg.Parallel
		if e.cfg.Runs > 0 {
			n = min(n, e.cfg.Runs-len(e.rep.Runs))
		}
		batch := make([]ExploreRun, n)
		var wg sync.WaitGroup
		for k := range n {
			idx := nextIndex()
			x := e.drawFor(idx)
			if e.j != nil {
				if err := e.j.add(ExploreRun{Index: idx, Draw: x, Outcome: OutcomeStarted}); err != nil {
					return e.rep, err
				}
			}
			wg.Go(func() { batch[k] = e.runOne(ctx, idx, x) })
		}
		wg.Wait()
		for _, r := range batch {
			if r.Outcome == OutcomeStopped {
				runErr = ctx.Err()
				if e.j != nil {
					e.j.add(r) //nolint:errcheck // a resume runs it again whether or not this line is there
				}
				continue
			}
			e.account(r)
			if e.j != nil {
				if err := e.j.add(r); err != nil {
					return e.rep, err
				}
			}
		}
		if e.cfg.Progress != nil {
			e.cfg.Progress(e.progress())
		}
	}
	if runErr == nil {
		runErr = ctx.Err()
	}
	e.rep.Elapsed = Duration(time.Since(e.start))
	e.group(ctx)
	if e.cfg.Out != "" {
		if err := e.rep.write(e.cfg.Out); err != nil {
			return e.rep, err
		}
	}
	return e.rep, runErr
}

// more reports whether the budget allows another batch.
func (e *explorer) more(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false
	}
	if e.cfg.Runs > 0 && len(e.rep.Runs) >= e.cfg.Runs || e.cfg.UntilFound && e.rep.Findings > 0 {
		return false
	}
	return e.cfg.Budget == 0 || time.Since(e.start) < e.cfg.Budget
}

func (e *explorer) progress() ExploreProgress {
	return ExploreProgress{Runs: len(e.rep.Runs), Elapsed: time.Since(e.start), Simulated: e.rep.Simulated.D(),
		Findings: e.rep.Findings, Groups: len(e.rep.prelim)}
}

// runOne runs draw x as run idx and says what became of it.
func (e *explorer) runOne(ctx context.Context, idx int, x draw) ExploreRun {
	r := ExploreRun{Index: idx, Draw: x, Shape: x.shape()}
	name := fmt.Sprintf("%s/%s/explore-%d", e.cfg.Family, e.cfg.Recipe, idx)
	s, err := e.drawer.scenario(e.base, x, name)
	if err == nil {
		err = s.Validate()
	}
	if err != nil {
		r.Outcome, r.Note = OutcomeNotApplicable, err.Error()
		return r
	}
	t0 := time.Now()
	rctx, cancel := context.WithTimeout(ctx, budget(s))
	res, err, frozen := runFreezable(rctx, s)
	cancel()
	if frozen != nil {
		r.Wall = Duration(time.Since(t0))
		r.Outcome, r.Note = OutcomeRecipeFault, "the run's virtual clock froze (its goroutines are left behind): "+firstLine(frozen.Error())
		return r
	}
	r.Wall = Duration(time.Since(t0))
	switch {
	case ctx.Err() != nil:
		r.Outcome = OutcomeStopped
		return r
	case errors.Is(err, ErrHarness):
		r.Outcome, r.Note = OutcomeHarness, err.Error()
		return r
	case err != nil && x.OwnerCheck == OwnerCheckRead && noOwned(err.Error()):
		r.Outcome, r.Note = OutcomeNotApplicable, "the recipe's holder cannot say whether it owns the lock (owner check read): "+err.Error()
		return r
	case err != nil:
		// The recipe could not run, panicked or hung: its fault, and the
		// exploration goes on.
		r.Outcome, r.Note = OutcomeRecipeFault, err.Error()
		return r
	}
	r.Simulated = s.Workload.Duration
	r.Features = features(res, x)
	r.RecipeFaults = res.RecipeFaults
	// A schedule stopped because the workload ended (a queue drained, a
	// barrier passed) healed what was in force and was judged: it ran.
	if res.ScheduleErr != "" && !strings.Contains(res.ScheduleErr, "the schedule was stopped") {
		r.Outcome, r.Note = OutcomeNotApplicable, "the fault could not apply: "+res.ScheduleErr
		return r
	}
	for _, c := range res.Checks {
		if c.Verdict != checker.VerdictViolation {
			continue
		}
		v := c.Violations[0]
		r.Outcome = OutcomeFinding
		r.Judge, r.Kind, r.Message = c.Checker, v.Kind, v.Message
		break
	}
	if r.Outcome == "" {
		r.Outcome = OutcomeClean
		if x.OwnerCheck == OwnerCheckRead && slices.ContainsFunc(res.RecipeFaults, noOwned) {
			r.Outcome, r.Note = OutcomeNotApplicable, "the recipe's holder cannot say whether it owns the lock (owner check read)"
			return r
		}
		if len(res.RecipeFaults) > 0 {
			r.Outcome = OutcomeRecipeFault
			r.Note = strings.Join(res.RecipeFaults, "; ")
		}
		return r
	}
	if e.cfg.Out != "" {
		dir := filepath.Join(e.cfg.Out, "runs", fmt.Sprintf("%06d", idx))
		res.Dir = dir
		res.Replay = e.replayPrefix() + " replay " + filepath.Join(dir, runfile.ResultFile)
		if err := writeRun(dir, res); err != nil {
			r.Note = "its files could not be written: " + err.Error()
		} else {
			r.Dir = dir
		}
	}
	return r
}

func (e *explorer) replayPrefix() string {
	if e.cfg.Replay != "" {
		return e.cfg.Replay
	}
	return "simrun"
}

// account adds run r to the report and the guide.
func (e *explorer) account(r ExploreRun) {
	rep := e.rep
	rep.Runs = append(rep.Runs, r)
	rep.Total = len(rep.Runs)
	rep.Simulated += r.Simulated
	rep.CPU += r.Wall
	switch r.Outcome {
	case OutcomeFinding:
		rep.Findings++
		if rep.FirstFinding < 0 {
			rep.FirstFinding = len(rep.Runs)
			rep.FirstFindingAfter = Duration(time.Since(e.start))
		}
		if rep.prelim == nil {
			rep.prelim = map[string]bool{}
		}
		rep.prelim[r.prelimKey()] = true
	case OutcomeNotApplicable:
		rep.NotApplicable++
	case OutcomeRecipeFault:
		rep.RecipeFaults++
	case OutcomeHarness:
		rep.Harness++
	}
	if e.guide.learn(r) {
		rep.Kept++
	}
}

// prelimKey groups findings before they are shrunk.
func (r ExploreRun) prelimKey() string {
	return string(r.Judge) + "|" + string(r.Kind) + "|" + r.Shape
}

// runFreezable runs s. A run whose bubble freezes — a recipe that spins,
// or holds a sync.Mutex while it waits on etcd — cannot be ended from
// outside: in a program (simrun) the run is left where it froze, its
// goroutines behind, and the exploration goes on; in a test binary, whose
// test could not end with the run's subtest unfinished, the freeze panics
// with every stack, as a scenario's run does.
func runFreezable(ctx context.Context, s Scenario) (*Result, error, error) {
	type ran struct {
		res *Result
		err error
	}
	done := make(chan ran, 1)
	frozen := make(chan error, 1)
	onFrozen := func(err error) {
		if testing.Testing() {
			panic(err)
		}
		frozen <- err
	}
	go func() {
		res, err := Run(ctx, s, Options{OnFrozen: onFrozen})
		done <- ran{res, err}
	}()
	select {
	case r := <-done:
		return r.res, r.err, nil
	case err := <-frozen:
		return nil, nil, err
	}
}

// noOwned reports whether msg is the workload's refusal of a holder with
// no Owned method under owner check read (world.owns): a draw the recipe
// cannot take, not its fault.
func noOwned(msg string) bool { return strings.Contains(msg, "(lock.Checker)") }

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
