package scenarios

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/internal/bubble"
	"github.com/etcdsim/etcdsim/internal/runfile"
)

// Options shape how Run runs a scenario. The zero Options writes nothing.
type Options struct {
	// Out is the directory the run's files go to: result.json,
	// history.json, and the members' logs when the expectation was not
	// met. It is created if need be. "" writes nothing.
	Out string
	// Replay is the command that replays the run, as the result and its
	// failure message show it. "" means simrun's: replay of the result
	// file when Out is set, else run by name and seed.
	Replay string
	// OnFrozen, on the virtual clock, is called from outside the run's
	// bubble when the bubble's clock has stood still for a minute of wall
	// time while the run was unfinished; its error names the goroutines
	// that were not durably blocked and holds every goroutine's stack. A
	// frozen bubble cannot be unblocked, so OnFrozen should end the
	// process (simrun's child writes its harness failure and exits). nil
	// panics with the error.
	OnFrozen func(error)

	last *lastEvent // set by Run on the virtual clock: what its bubble's watchdog says of the run
	// ttlNote, set by runObservedTTL, says which TTL the run took.
	ttlNote string
}

// ErrHarness is wrapped by Run's error when the harness itself failed — a
// cluster that would not start, a client that could not be made, a file
// that could not be written — so that the run has no verdict.
var ErrHarness = errors.New("scenarios: harness failure")

// Run runs s: it validates it, starts its cluster and clients, arms its
// fault schedule, runs the workload for its duration while the schedule
// fires, heals everything and waits for the cluster to settle, runs the
// checkers on the recorded history, and judges the expectation. It always
// heals and closes what it started, whatever happens. A scenario that is
// not valid, or a harness that fails, is an error, not a verdict. Many
// runs may go on in one process at once.
//
// On the virtual clock Run opens a synctest bubble for the run, unless it
// is called in one already (as Test does): that needs a host for bubbles —
// a test (use Test), or a program under simrun.Main — and is otherwise an
// error that says so.
func Run(ctx context.Context, s Scenario, opts Options) (*Result, error) {
	s = s.withDefaults()
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.Cluster.Clock != cluster.ClockVirtual || bubble.Inside() {
		return run(ctx, s, opts)
	}
	var res *Result
	var err error
	opts.last = &lastEvent{}
	berr := bubble.Run(bubble.Options{Name: s.Name, OnFrozen: onFrozen(opts), LastEvent: opts.last.String}, func() error {
		bctx, cancel := bubble.Context(ctx)
		defer cancel()
		res, err = run(bctx, s, opts)
		return nil
	})
	if errors.Is(berr, bubble.ErrNoHost) {
		return nil, fmt.Errorf("%w: %s: the virtual clock runs a scenario in a synctest bubble, which needs a test (use scenarios.Test) or a program under simrun.Main; or set cluster.clock to \"real\"", ErrHarness, s.Name)
	}
	if berr != nil && errors.Is(err, ErrRecipe) {
		// A recipe that blocked or broke left its goroutines behind: the
		// recipe is what to report.
		return nil, fmt.Errorf("%w (and the run's bubble was left with goroutines: %w)", err, berr)
	}
	if berr != nil && err == nil {
		// The run was judged, and then goroutines the recipe started
		// outlived it: the recipe's fault, said in a sentence.
		if msg, ok := leftBehind(s, res.made, berr); ok {
			res.RecipeFaults = append(res.RecipeFaults, msg)
			if opts.Out != "" {
				if werr := runfile.WriteRun(opts.Out, res, res.history); werr != nil {
					return nil, fmt.Errorf("%w: %s: %w", ErrHarness, s.Name, werr)
				}
			}
			return res, nil
		}
	}
	if berr != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrHarness, s.Name, berr)
	}
	return res, err
}

func onFrozen(opts Options) func(*bubble.Frozen) {
	if opts.OnFrozen == nil {
		return nil
	}
	return func(f *bubble.Frozen) { opts.OnFrozen(f) }
}

// run is Run on the scenario's own clock: in a bubble on the virtual one.
func run(ctx context.Context, s Scenario, opts Options) (*Result, error) {
	if s.Workload.ObservedTTL {
		return runObservedTTL(ctx, s, opts)
	}
	res := &Result{Version: SchemaVersion, Scenario: s, Started: bubble.WallNow()}
	res.Replay = replayCommand(s, opts)
	var logDir string
	if opts.Out != "" {
		if err := os.MkdirAll(opts.Out, 0o755); err != nil {
			return nil, fmt.Errorf("%w: %s: output directory: %w", ErrHarness, s.Name, err)
		}
		res.Dir = opts.Out
		logDir = filepath.Join(opts.Out, "logs")
	}
	t0 := time.Now()
	c, err := cluster.Start(ctx, cluster.Config{Members: s.Cluster.Members, Durable: s.Cluster.Durable,
		Clock: s.Cluster.Clock, MemberBinaries: s.Cluster.MemberBinaries, Latency: s.Cluster.Latency.D(), Seed: s.Seed, LogDir: logDir,
		ClientKeepAliveTime: s.Cluster.ClientKeepAliveTime.D(), ClientKeepAliveTimeout: s.Cluster.ClientKeepAliveTimeout.D(),
		Auth: s.Cluster.Auth.config(), FeatureGates: s.Cluster.FeatureGates})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: starting the cluster: %w", ErrHarness, s.Name, err)
	}
	defer c.Close()
	tap := &keyTap{}
	for i, name := range s.clientNames() {
		cfg := s.clientConfig(i)
		cfg.Configure = tap.configure(name)
		if _, err := c.NewClient(name, cfg); err != nil {
			return nil, fmt.Errorf("%w: %s: client %s: %w", ErrHarness, s.Name, name, err)
		}
	}
	started, err := s.prestart(ctx, c, programsDir(opts.Out))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrRecipe, s.Name, err)
	}
	defer started.Close()
	rec := checker.NewRecorder(checker.NewClock())
	rec.SetMeta(checker.Meta{RunID: fmt.Sprintf("%s#%s", s.Name, s.Seed), Seed: s.Seed, Scenario: s.Name,
		SessionTTL: s.Workload.TTL.D(), Members: memberNames(s.Cluster.Members), Links: s.links(),
		Users: s.users(), WorkloadKeys: s.workloadKeys()})
	tap.rec.Store(rec)
	if opts.last != nil {
		defer rec.Observe(opts.last.observe)()
	}
	env := faults.NewEnv(c, faults.Config{Recorder: rec, Seed: s.Seed})
	res.Timings.Start = Duration(time.Since(t0))

	t1 := time.Now()
	stopLeaders := watchLeaders(ctx, c, rec)
	stopSamples := sampleMembers(ctx, c, rec, s.judgedBy(checker.CheckerMemberResources))
	notes := &recipeNotes{}
	werr, serr := s.drive(ctx, env, notes)
	stopSamples()
	stopLeaders()
	res.RecipeFaults = notes.all()
	if opts.ttlNote != "" {
		res.RecipeFaults = append(res.RecipeFaults, opts.ttlNote)
	}
	res.made = notes.made
	for _, err := range c.StrayDials() {
		res.RecipeFaults = append(res.RecipeFaults, err.Error())
	}
	res.Timings.Workload = Duration(time.Since(t1))
	if serr != nil {
		res.ScheduleErr = serr.Error()
	}
	if errors.Is(werr, ErrRecipe) { // the recipe under test cannot run: no harness failure
		return nil, fmt.Errorf("scenarios: %s: %w", s.Name, werr)
	}
	if werr != nil {
		return nil, fmt.Errorf("%w: %s: workload: %w", ErrHarness, s.Name, werr)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("scenarios: %s: stopped: %w", s.Name, context.Cause(ctx))
	}

	final := readFinal(ctx, c, s.workloadKeys(), rec.Clock().Now())
	t2 := time.Now()
	h := rec.History()
	h.Final = final
	if note := checker.TTLNote(h, s.Workload.TTL.D()); note != "" {
		res.RecipeFaults = append(res.RecipeFaults, note)
	}
	res.history = h
	res.Ops = len(h.Ops)
	res.Faults = h.Faults
	judged := s
	na := notes.notApplicable(s.Workload.Recipe)
	if why, ok := unwatched(h); ok {
		na = withNA(na, checker.CheckerKeysOnLeases, why)
	}
	if len(na) > 0 {
		judged.Checkers = slices.DeleteFunc(slices.Clone(s.Checkers), func(c Check) bool {
			why, ok := na[c.Name]
			if ok {
				res.NotApplicable = append(res.NotApplicable, why)
			}
			return ok
		})
	}
	res.Checks = judged.check(h)
	res.Verdict = checker.Combine(s.Name, res.Checks...).Verdict
	res.Met, res.Why = s.Expect.Met(res.Checks...)
	if res.ScheduleErr != "" {
		// A fault that did not go in as written leaves the run short of
		// what it claims to have tested.
		res.Met, res.Why = false, "the fault schedule did not run as written: "+res.ScheduleErr
	}
	res.Timings.Check = Duration(time.Since(t2))
	res.Timings.Total = Duration(time.Since(t0))
	res.Timings.Wall = Duration(bubble.WallNow().Sub(res.Started))

	if opts.Out != "" {
		if res.Met {
			os.RemoveAll(logDir) // the logs are kept only for runs worth reading
		}
		if err := runfile.WriteRun(opts.Out, res, res.history); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrHarness, s.Name, err)
		}
	}
	return res, nil
}

// drive runs the schedules and the workload together: the schedules are
// armed before the first client acts, the workload runs for its duration,
// then every schedule is stopped, which heals whatever is still in force
// and waits for the cluster to be healthy. It returns the workload's
// error and the schedules' errors apart.
func (s Scenario) drive(ctx context.Context, env *faults.Env, notes *recipeNotes) (workErr, schedErr error) {
	var running []*faults.Running
	var errs []error
	stopAll := func() error {
		for _, r := range running {
			errs = append(errs, r.Stop())
		}
		running = nil
		return errors.Join(errs...)
	}
	for _, sch := range s.schedules() {
		r, err := faults.Start(ctx, env, sch)
		if err != nil {
			stopAll()
			return fmt.Errorf("arming the fault schedule: %w", err), nil
		}
		running = append(running, r)
	}
	wctx, cancel := context.WithTimeout(ctx, s.Workload.Duration.D())
	defer cancel()
	w := &world{s: s, env: env, rng: s.Seed.Rand(workloadStream), notes: notes}
	workErr = w.run(wctx)
	last := w.ending()
	schedErr = stopAll()
	w.endAll(last)
	w.lives.mu.Lock()
	notes.mu.Lock()
	notes.made = slices.Clone(w.lives.made)
	notes.mu.Unlock()
	w.lives.mu.Unlock()
	return workErr, schedErr
}

// workloadStream separates the workload's random choices from the
// schedule's, both drawn from the run's seed.
const workloadStream = 0x776f726b6c6f6164

// client returns the etcd client of the client called name, for a process
// that starts. A crash can land between a restart and the new process's
// first step: then the process waits, as its next step would, for the
// restart that follows.
func (w *world) client(ctx context.Context, name string) (*clientv3.Client, error) {
	for {
		cli, err := w.env.Cluster().Client(name)
		if !errors.Is(err, cluster.ErrCrashed) {
			return cli, err
		}
		if err := w.env.Gate().Step(ctx, name); err != nil && !errors.Is(err, faults.ErrRestarted) {
			return nil, err
		}
	}
}

// thinker returns the think times of the client called name: Think, spread
// over Think±ThinkJitter by a random stream of the client's own, drawn from
// the run's seed, so that clients draw independently and a replay draws
// the same.
func (w *world) thinker(name string) func() time.Duration {
	wl := w.s.Workload
	if wl.ThinkJitter == 0 {
		return wl.Think.D
	}
	h := fnv.New64a()
	h.Write([]byte(name)) //nolint:errcheck // a hash does not fail
	rng := w.s.Seed.Rand(workloadStream ^ h.Sum64())
	return func() time.Duration {
		j := wl.ThinkJitter.D()
		return max(0, wl.Think.D()-j+time.Duration(rng.Int64N(int64(2*j)+1)))
	}
}

// world is what a workload runs in.
type world struct {
	s     Scenario
	env   *faults.Env
	rng   *rand.Rand   // the workload's choices; not safe for concurrent use
	notes *recipeNotes // what the recipes did wrong that does not stop the run
	lives lifetimes    // the processes' recipe values, closed as each process ends
}

// run runs the family's workload until ctx ends or the clients are done.
func (w *world) run(ctx context.Context) error {
	f := familyOf(w.s.Workload.Family)
	if f == nil {
		return fmt.Errorf("no workload family %q", w.s.Workload.Family)
	}
	return f.run(w, ctx)
}

// clientConfig is the configuration of the run's i-th client: a pinned
// lock client talks to one member, round the members; every other client
// to every member. With auth on, it speaks as its user.
func (s Scenario) clientConfig(i int) cluster.ClientConfig {
	cfg := cluster.ClientConfig{User: s.Cluster.Auth.user(s.clientNames()[i])}
	if s.Workload.Pinned {
		cfg.Members = []string{fmt.Sprintf("m%d", i%s.Cluster.Members)}
	}
	return cfg
}

// links names the members each client links to when it does not link to
// all of them (checker.Meta.Links); nil when every client does.
func (s Scenario) links() map[string][]string {
	var out map[string][]string
	for i, name := range s.clientNames() {
		if ms := s.clientConfig(i).Members; len(ms) > 0 {
			if out == nil {
				out = map[string][]string{}
			}
			out[name] = ms
		}
	}
	return out
}

// replayCommand is the command that runs s again with its seed.
func replayCommand(s Scenario, opts Options) string {
	if opts.Replay != "" {
		return opts.Replay
	}
	if opts.Out != "" {
		return "simrun replay " + filepath.Join(opts.Out, runfile.ResultFile)
	}
	return fmt.Sprintf("simrun run -seed %s %s", s.Seed, s.Name)
}

// check runs the scenario's checkers on h.
func (s Scenario) check(h checker.History) []checker.Result {
	var out []checker.Result
	for _, c := range s.Checkers {
		out = append(out, c.Run(h, s.Workload.TTL.D()))
	}
	return out
}

// Run runs the checker c names on h with c's options; ttl is the session
// TTL the run's clients used, which Liveness and DiscoveryConvergence
// allow for. It is a pure function of its arguments, so a history read
// back from a result's files is judged as the run judged it.
func (c Check) Run(h checker.History, ttl time.Duration) checker.Result {
	return checker.RunJudge(c.Name, h, checker.JudgeOptions{TTL: ttl, Bound: c.Bound.D(), ResourceOnly: c.ResourceOnly, ByChecks: c.ByChecks})
}

// Linearizability runs the linearizability checker c names on h with
// opts, and returns its whole result: what Run judges with, and what
// porcupine draws its search from (LinResult.Visualize). ok is false when
// c names no linearizability checker.
func (c Check) Linearizability(h checker.History, opts checker.LinOptions) (lin checker.LinResult, ok bool) {
	j, ok := checker.LookupJudge(c.Name)
	if !ok || j.Lin == nil {
		return checker.LinResult{}, false
	}
	return j.Lin(h, opts), true
}
