package simrun

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/reports"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// batchFlags are the flags of every command that runs scenarios.
type batchFlags struct {
	parallel   int
	out        string
	inProcess  bool
	runTimeout time.Duration
	clock      string
	// memberBinaries runs every run's members as member binaries, each
	// an operating-system program of its own (memberbinaries.go).
	memberBinaries bool
	// auth turns etcd's auth on in every run whose scenario has it off
	// (-auth; see parseAuth); "" leaves each scenario's own.
	auth string
}

// defaultParallel is -parallel's default: a run on the virtual clock is
// CPU-bound, so one run a CPU.
func defaultParallel() int { return runtime.NumCPU() }

func (b *batchFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&b.parallel, "parallel", defaultParallel(), "how many clusters run at once (each a few etcd members in a child process of its own)")
	fs.StringVar(&b.clock, "clock", "", "the clock every run goes on: virtual (in a synctest bubble, costing CPU time, not wall time) or real (embedded etcd on loopback sockets); default each scenario's own")
	fs.StringVar(&b.auth, "auth", "", "turn etcd's authentication on in every run whose scenario has it off, each client a user limited to the recipe's keys: "+authSpecForm+" (default each scenario's own)")
	fs.BoolVar(&b.memberBinaries, "member-binaries", false, "run every run's etcd members as member binaries, each a program of its own, on the real clock: a freeze is SIGSTOP, a kill SIGKILL (the member binary is built once, with go build)")
	fs.StringVar(&b.out, "out", "", "directory for the results (default results/<timestamp>)")
	fs.BoolVar(&b.inProcess, "inprocess", defaultInProcess(),
		"run every run in this process, not each in a child process (for debugging; a run that hangs then holds up simrun)")
	fs.DurationVar(&b.runTimeout, "run-timeout", 0,
		"how long one run may take before it is killed and recorded as a harness failure (default its workload's duration plus 2m)")
}

// check checks the flags and picks the output directory (makeOut makes
// it).
func (b *batchFlags) check(e *env) error {
	if b.parallel <= 0 {
		return usagef("-parallel %d: want at least 1", b.parallel)
	}
	if n := runtime.NumCPU() * 2; b.parallel > n {
		fmt.Fprintf(e.stderr, "simrun: warning: -parallel %d is more than twice the %d CPUs; runs may starve each other and miss deadlines\n", b.parallel, runtime.NumCPU())
	}
	if b.runTimeout < 0 {
		return usagef("-run-timeout %v: must not be negative", b.runTimeout)
	}
	if _, err := cluster.ParseClock(b.clock); err != nil {
		return usagef("-clock %q: want virtual or real (default each scenario's own)", b.clock)
	}
	if _, err := parseAuth(b.auth); err != nil {
		return usagef("-auth %v", err)
	}
	if b.memberBinaries && b.clock == string(cluster.ClockVirtual) {
		return usagef("-member-binaries runs members as binaries of their own on the real clock; it cannot go with -clock virtual")
	}
	if !b.inProcess && !childSupported {
		return configErr(errNoChild)
	}
	if b.out == "" {
		b.out = filepath.Join("results", time.Now().Format("20060102-150405"))
	}
	return nil
}

// makeOut makes the output directory and checks that it can be written
// to: the last check before anything runs, so that a batch refused for a
// mistake leaves no directory behind.
func (b *batchFlags) makeOut() error { return configErr(writable(b.out)) }

// writable makes dir if need be and checks that a file can be made in it.
func writable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("-out %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".simrun-write-check-")
	if err != nil {
		return fmt.Errorf("-out %s is not writable: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// batch runs jobs and reports them: progress on stderr, the summary table
// on stdout, summary.json in the output directory — written as the batch
// begins, kept up to date as runs finish (see journal) and written again
// when it ends. sum carries what the command knows of the batch (its
// command, campaign, shards); batch fills in the rest. done holds the runs
// of jobs, by index, that an earlier campaign into the same directory
// finished (see resume): they are reported, not run again. It returns the
// exit code.
func (e *env) batch(jobs []job, b batchFlags, sum results.Summary, done map[int]results.SummaryRun) (int, error) {
	applyClock(jobs, b.clock)
	applyMemberBinaries(jobs, b.memberBinaries)
	a, _ := parseAuth(b.auth) // checked in check
	applyAuth(jobs, a)
	if err := validateJobs(jobs); err != nil {
		return exitUsage, configErr(err)
	}
	if err := b.makeOut(); err != nil {
		return exitUsage, err
	}
	cleanup, err := e.provideMemberBinary(jobs)
	if err != nil {
		return exitUsage, configErr(err)
	}
	defer cleanup()
	sum.Planned = len(jobs)
	sum.Started = time.Now()
	r := runner{inProcess: b.inProcess, timeout: b.runTimeout, replay: e.replayCommand, hard: e.hardDone()}
	where := "each in a child process"
	if r.inProcess {
		where = "in this process"
	} else {
		exe, err := os.Executable()
		if err != nil {
			return exitUsage, configErr(fmt.Errorf("finding this program's binary for the child processes: %w; use -inprocess", err))
		}
		r.exe = exe
	}
	var todo []job
	order := map[string]int{} // a job's directory → its index in jobs
	for i, j := range jobs {
		order[j.dir()] = i
		if o, ok := done[i]; ok {
			sum.Runs = append(sum.Runs, o)
		} else {
			todo = append(todo, j)
		}
	}
	sum.Reused = len(sum.Runs)
	kept := ""
	if sum.Reused > 0 {
		kept = fmt.Sprintf(" (and %d kept from before)", sum.Reused)
	}
	fmt.Fprintf(e.stderr, "simrun: %d runs%s, %d at a time, %s, into %s\n", len(todo), kept, b.parallel, where, b.out)
	io.WriteString(e.stderr, leakWarning(todo, r.inProcess)) //nolint:errcheck // progress output, as above
	jr := &journal{progress: newProgress(e.stderr), dir: b.out, sum: &sum, order: order}
	if err := jr.write(); err != nil {
		return exitUsage, configErr(fmt.Errorf("-out %s: %w", b.out, err))
	}
	if len(todo) > 0 {
		execute(e.ctx, r, todo, b.parallel, b.out, jr)
	}
	sum.Interrupted = e.ctx.Err() != nil && sum.Finished() < len(jobs)
	if err := jr.write(); err != nil {
		return exitMissed, fmt.Errorf("writing the summary: %w", err)
	}
	table(e.stdout, &sum)
	fmt.Fprintf(e.stdout, "summary: %s\n", filepath.Join(b.out, results.SummaryFile))
	// The pages are a view of the JSON: a run that cannot be drawn is
	// reported, and changes no verdict. An interrupted batch does not draw
	// them: reading back every run's history takes a minute or more for a
	// few thousand runs, and whoever pressed Ctrl-C wants the prompt back;
	// the resume, or simrun report, draws them.
	if sum.Interrupted {
		fmt.Fprintf(e.stderr, "simrun: interrupted: the pages are not drawn; the same command resumes the runs and draws them, or simrun report %s draws them now\n", b.out)
		return exitCode(&sum), nil
	}
	if err := reports.RenderDir(b.out); err != nil {
		fmt.Fprintf(e.stderr, "simrun: report: %v\n", err)
	}
	fmt.Fprintf(e.stdout, "report: %s\n", filepath.Join(b.out, "index.html"))
	return exitCode(&sum), nil
}

// applyClock puts every job on clock, unless it is "" (each scenario's
// own).
func applyClock(jobs []job, clock string) {
	if clock == "" {
		return
	}
	for i := range jobs {
		jobs[i].scenario.Cluster.Clock = cluster.Clock(clock)
	}
}
