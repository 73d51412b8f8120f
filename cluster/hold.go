package cluster

import (
	"sync"
	"sync/atomic"
)

// holds keep the bytes of a frozen member's connections where they are:
// a chunk to or from a held node waits, just before it would be written
// to its destination, until the node is released. Nothing is dropped and
// no connection closes; a pump that waits stops reading, so its source's
// buffer fills and the sender blocks, as TCP does for a process that has
// stopped reading. Latency and delays of chunks already in flight run out
// during the hold, so at the release what was due is written at once, as
// a resumed process finds it waiting in its socket buffers.
type holds struct {
	n  atomic.Int32 // how many nodes are held: the fast path when none is
	mu sync.Mutex   // guards by
	by map[string]chan struct{}
}

// hold starts holding node's bytes; holding a held node changes nothing.
func (h *holds) hold(node string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.by == nil {
		h.by = make(map[string]chan struct{})
	}
	if h.by[node] == nil {
		h.by[node] = make(chan struct{})
		h.n.Add(1)
	}
}

// release lets node's held bytes go.
func (h *holds) release(node string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ch := h.by[node]; ch != nil {
		close(ch)
		delete(h.by, node)
		h.n.Add(-1)
	}
}

// held returns a channel that closes when neither end of c is held any
// more, or nil if neither is held now.
func (h *holds) held(c *pconn) chan struct{} {
	if h.n.Load() == 0 {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if ch := h.by[c.member]; ch != nil {
		return ch
	}
	if c.from != "" {
		return h.by[c.from]
	}
	return nil
}

// wait blocks while either end of c is held; false if c or the network
// closed meanwhile.
func (h *holds) wait(c *pconn) bool {
	for {
		ch := h.held(c)
		if ch == nil {
			return true
		}
		select {
		case <-ch:
		case <-c.done:
			return false
		case <-c.n.ctx.Done():
			return false
		}
	}
}
