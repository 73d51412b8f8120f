package faults

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrRestarted is returned by Gate.Step, once, to a client that crashed
// and has been restarted since its last step: everything the client held
// in memory — its etcd client, sessions, locks it believed it held — died
// with it. The workload starts the client afresh (a new etcd client from
// cluster.Client, a new session) and records nothing for the crash
// itself: the Env recorded it.
var ErrRestarted = errors.New("faults: client crashed and was restarted")

// Gate stops paused and crashed clients at their next step. The workload
// calls Step before each step of a client; Step returns at once unless the
// client is paused or crashed, and otherwise blocks until it is resumed or
// restarted (or ctx ends). On resume the client carries on with the step
// it was about to take, re-checking nothing, as a process woken from
// SIGSTOP would: a lock it believed it held, it still believes it holds.
// On restart Step returns ErrRestarted instead.
//
// The zero Gate has every client running.
type Gate struct {
	mu        sync.Mutex               // guards stopped, restarted, programs
	stopped   map[string]chan struct{} // paused or crashed clients; closed on resume or restart
	restarted map[string]bool          // crashed since their last step: Step owes them ErrRestarted
	programs  map[string]Program       // clients that run as programs of their own (Env.AttachProgram)
}

// Step blocks while client is paused or crashed. It returns nil when the
// client may go on, an error wrapping ErrRestarted when the client crashed
// since its last step, or ctx's error if ctx ends first.
func (g *Gate) Step(ctx context.Context, client string) error {
	g.mu.Lock()
	wait := g.stopped[client]
	g.mu.Unlock()
	if wait != nil {
		select {
		case <-wait:
		case <-ctx.Done():
			return fmt.Errorf("faults: client %s stopped: %w", client, context.Cause(ctx))
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.restarted[client] && g.stopped[client] == nil {
		delete(g.restarted, client)
		return fmt.Errorf("%w: %s", ErrRestarted, client)
	}
	return nil
}

// Pause stops client at its next Step, and freezes its process if it
// runs in one of its own (Env.AttachProgram). Pausing a paused client
// does nothing.
func (g *Gate) Pause(client string) {
	if g.stop(client) {
		if p := g.program(client); p != nil {
			p.Freeze()
		}
	}
}

// Resume lets client go on, and thaws its process. Resuming a running
// client does nothing.
func (g *Gate) Resume(client string) {
	if p := g.program(client); p != nil && g.Paused(client) {
		p.Thaw()
	}
	g.start(client)
}

// attach records that client runs in process p.
func (g *Gate) attach(client string, p Program) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.programs == nil {
		g.programs = make(map[string]Program)
	}
	g.programs[client] = p
}

// attached reports whether p is client's process still.
func (g *Gate) attached(client string, p Program) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.programs[client] == p
}

// program returns the program client runs as, or nil.
func (g *Gate) program(client string) Program {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.programs[client]
}

// Crash stops client at its next Step until Restart, after which that Step
// returns ErrRestarted.
func (g *Gate) Crash(client string) {
	g.stop(client)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.restarted == nil {
		g.restarted = make(map[string]bool)
	}
	g.restarted[client] = true
}

// Restart lets a crashed client go on as a new process.
func (g *Gate) Restart(client string) { g.start(client) }

// Paused reports whether client is paused or crashed.
func (g *Gate) Paused(client string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stopped[client] != nil
}

// stop reports whether client was running.
func (g *Gate) stop(client string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped == nil {
		g.stopped = make(map[string]chan struct{})
	}
	if g.stopped[client] == nil {
		g.stopped[client] = make(chan struct{})
		return true
	}
	return false
}

func (g *Gate) start(client string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if ch := g.stopped[client]; ch != nil {
		close(ch)
		delete(g.stopped, client)
	}
}
