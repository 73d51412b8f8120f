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
)

// batchFlags are the flags of every command that runs scenarios.
type batchFlags struct {
	parallel   int
	out        string
	inProcess  bool
	runTimeout time.Duration
	clock      string
}

// defaultParallel is -parallel's default: a run on the virtual clock is
// CPU-bound, so one run a CPU.
func defaultParallel() int { return runtime.NumCPU() }

func (b *batchFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&b.parallel, "parallel", defaultParallel(), "how many clusters run at once (each a few etcd members in a child process of its own)")
	fs.StringVar(&b.clock, "clock", "", "the clock every run goes on: virtual (in a synctest bubble, costing CPU time, not wall time) or real (embedded etcd on loopback sockets); default each scenario's own")
	fs.StringVar(&b.out, "out", "", "directory for the results (default results/<timestamp>)")
	fs.BoolVar(&b.inProcess, "inprocess", defaultInProcess(),
		"run every run in this process, not each in a child process (for debugging; a run that hangs then holds up simrun)")
	fs.DurationVar(&b.runTimeout, "run-timeout", 0,
		"how long one run may take before it is killed and recorded as a harness failure (default its workload's duration plus 2m)")
}

// check checks the flags and makes the output directory, making sure it
// can be written to before anything runs.
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
	if !b.inProcess && !childSupported {
		return configErr(errNoChild)
	}
	if b.out == "" {
		b.out = filepath.Join("results", time.Now().Format("20060102-150405"))
	}
	return configErr(writable(b.out))
}

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
// on stdout, summary.json in the output directory. sum carries what the
// command knows of the batch (its command, campaign, shards); batch fills
// in the rest. It returns the exit code.
func (e *env) batch(jobs []job, b batchFlags, sum Summary) (int, error) {
	if b.clock != "" {
		for i := range jobs {
			jobs[i].scenario.Cluster.Clock = cluster.Clock(b.clock)
		}
	}
	if err := validateJobs(jobs); err != nil {
		return exitUsage, configErr(err)
	}
	sum.Version = summaryVersion
	sum.Planned = len(jobs)
	sum.Started = time.Now()
	r := runner{inProcess: b.inProcess, timeout: b.runTimeout, replay: e.replayCommand}
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
	fmt.Fprintf(e.stderr, "simrun: %d runs, %d at a time, %s, into %s\n", len(jobs), b.parallel, where, b.out)
	io.WriteString(e.stderr, leakWarning(jobs, r.inProcess)) //nolint:errcheck // progress output, as above
	sum.Runs = execute(e.ctx, r, jobs, b.parallel, b.out, newProgress(e.stderr))
	if sum.Runs == nil {
		sum.Runs = []outcome{}
	}
	sum.Elapsed = durationOf(time.Since(sum.Started))
	sum.Interrupted = e.ctx.Err() != nil && len(sum.Runs) < len(jobs)
	sum.aggregate()
	sum.table(e.stdout)
	if err := sum.write(b.out); err != nil {
		return exitMissed, fmt.Errorf("writing the summary: %w", err)
	}
	fmt.Fprintf(e.stdout, "summary: %s\n", filepath.Join(b.out, "summary.json"))
	// The pages are a view of the JSON: a run that cannot be drawn is
	// reported, and changes no verdict.
	if err := reports.RenderDir(b.out); err != nil {
		fmt.Fprintf(e.stderr, "simrun: report: %v\n", err)
	}
	fmt.Fprintf(e.stdout, "report: %s\n", filepath.Join(b.out, "index.html"))
	return sum.code(), nil
}
