package bubble

import (
	"sync"
	"time"
)

// A run that hangs or spins is stopped from outside: simrun's child is told
// to stop when its run times out, and what it can say then is how far each
// of its bubbles got. The bubbles are opened deep inside a run (scenarios.Run
// opens one per scenario) by code that hands the caller nothing back while
// it runs, so the process keeps the set of open bubbles' watchdogs here, in
// this one file, for Progress to read.

// open is the watchdogs of the bubbles Run has open.
var open = &watchdogs{m: map[*watchdog]struct{}{}}

// watchdogs is a set of watchdogs.
type watchdogs struct {
	mu sync.Mutex // guards m
	m  map[*watchdog]struct{}
}

func (o *watchdogs) add(w *watchdog) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.m[w] = struct{}{}
}

func (o *watchdogs) remove(w *watchdog) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.m, w)
}

// Progress says how far each bubble open in this process has got: where its
// clock stands, how long in wall time it has stood there, the last event its
// run recorded (Options.LastEvent), and the goroutines that ran most while
// it stood still (Frozen.Progress says it in a line). Its Stacks are empty.
func Progress() []*Frozen {
	open.mu.Lock()
	ws := make([]*watchdog, 0, len(open.m))
	for w := range open.m {
		ws = append(ws, w)
	}
	open.mu.Unlock()
	var out []*Frozen
	now := time.Now()
	for _, w := range ws {
		if w.stamp.Load() == 0 || w.finished.Load() {
			continue
		}
		out = append(out, w.report(now))
	}
	return out
}
