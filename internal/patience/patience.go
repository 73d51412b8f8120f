package patience

import (
	"bytes"
	"math"
	"os"
	"runtime"
	"strconv"
	"time"
)

// Env names the environment variable that multiplies Factor.
const Env = "ETCDSIM_PATIENCE"

// MaxFactor bounds Factor (before Env's multiplier): past it a wait that
// has not ended is more likely stuck than slow, and a test that hangs for
// its whole package timeout says less than one that fails
// (clustertest.Patience's 90 s become 9 minutes at most, within make
// test's 14).
const MaxFactor = 6

// raceFactor is how much longer a real-clock wait takes under the race
// detector: it slows CPU-bound code five- to tenfold, and a real-clock test
// mostly waits for timers and sockets between its short bursts of work.
const raceFactor = 3

// RaceEnabled says whether this binary was built with the race detector
// (-race).
const RaceEnabled = raceEnabled

// Factor is how many times longer than on an idle machine, without the
// race detector, a real-clock wait may take here and now: raceFactor under
// -race, times the load per CPU this process may use when that is above 1.
// The load is the greater of the one-minute load average and the
// processes runnable right now, so a burst of load that the average has
// not caught up with yet counts too.
func Factor() float64 {
	f := 1.0
	if raceEnabled {
		f = raceFactor
	}
	cpus := float64(min(runtime.NumCPU(), runtime.GOMAXPROCS(0)))
	f *= max(1, load()/cpus)
	return min(f, MaxFactor) * envFactor()
}

// Scale returns d times Factor.
func Scale(d time.Duration) time.Duration {
	return time.Duration(float64(d) * Factor())
}

// load is the machine's load: the greater of the one-minute load average
// and the number of runnable processes, 0 where neither can be read (on
// systems without /proc).
func load() float64 {
	var avg, running float64
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := bytes.Fields(b); len(f) > 0 {
			avg, _ = strconv.ParseFloat(string(f[0]), 64)
		}
	}
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		for line := range bytes.Lines(b) {
			if rest, ok := bytes.CutPrefix(line, []byte("procs_running ")); ok {
				running, _ = strconv.ParseFloat(string(bytes.TrimSpace(rest)), 64)
			}
		}
	}
	return max(avg, running)
}

// envFactor is Env's multiplier: 1 when it is unset or not a positive
// number.
func envFactor() float64 {
	f, err := strconv.ParseFloat(os.Getenv(Env), 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 1
	}
	return f
}
