package faults

import (
	"context"
	"fmt"
	"sync"
)

// Gate stops paused clients at their next step. The workload calls Step
// before each step of a client; Step returns at once unless the client is
// paused, and otherwise blocks until it is resumed (or ctx ends). On
// resume the client carries on with the step it was about to take,
// re-checking nothing, as a process woken from SIGSTOP would: a lock it
// believed it held, it still believes it holds.
//
// The zero Gate has every client running.
type Gate struct {
	mu     sync.Mutex               // guards paused
	paused map[string]chan struct{} // closed on resume
}

// Step blocks while client is paused. It returns nil when the client may
// go on, or ctx's error if ctx ends first.
func (g *Gate) Step(ctx context.Context, client string) error {
	g.mu.Lock()
	wait := g.paused[client]
	g.mu.Unlock()
	if wait == nil {
		return nil
	}
	select {
	case <-wait:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("faults: client %s paused: %w", client, context.Cause(ctx))
	}
}

// Pause stops client at its next Step. Pausing a paused client does
// nothing.
func (g *Gate) Pause(client string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.paused == nil {
		g.paused = make(map[string]chan struct{})
	}
	if g.paused[client] == nil {
		g.paused[client] = make(chan struct{})
	}
}

// Resume lets client go on. Resuming a running client does nothing.
func (g *Gate) Resume(client string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if ch := g.paused[client]; ch != nil {
		close(ch)
		delete(g.paused, client)
	}
}

// Paused reports whether client is paused.
func (g *Gate) Paused(client string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.paused[client] != nil
}
