package cluster

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// Mode says what a directed link does with the bytes that cross it.
type Mode uint8

const (
	// Up delivers bytes, after the link's delay if it has one. The zero Mode.
	Up Mode = iota
	// Blackhole drops bytes silently: the sender's writes succeed and the
	// receiver waits for bytes that never come, as in a network partition.
	// Nothing sent while a link is blackholed is ever delivered: a
	// connection that lost bytes is reset when its link heals, and
	// delivers nothing in that direction meanwhile, so a later read can
	// never see half a message, nor a message after a lost one.
	Blackhole
	// Reject resets connections: open ones at once, new ones as they are
	// accepted, as a peer whose port is closed would.
	Reject
)

var modeNames = [...]string{Up: "up", Blackhole: "blackhole", Reject: "reject"}

// String returns "up", "blackhole" or "reject".
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// MarshalText encodes the mode by name.
func (m Mode) MarshalText() ([]byte, error) {
	if int(m) >= len(modeNames) {
		return nil, fmt.Errorf("cluster: unknown link mode %d (valid: up, blackhole, reject)", uint8(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText decodes a mode from its name.
func (m *Mode) UnmarshalText(b []byte) error {
	for i, n := range modeNames {
		if n == string(b) {
			*m = Mode(i)
			return nil
		}
	}
	return fmt.Errorf("cluster: unknown link mode %q (valid: up, blackhole, reject)", b)
}

// Condition is the state of one directed link. The zero Condition is a
// healthy link.
type Condition struct {
	// Mode is what the link does with bytes; the zero value is Up.
	Mode Mode `json:"mode"`
	// Delay holds back every chunk of bytes for this long (only with Up).
	// Order is kept: a chunk is never delivered before an earlier one.
	Delay time.Duration `json:"delay,omitempty"`
	// Jitter spreads Delay uniformly over [Delay-Jitter, Delay+Jitter],
	// floored at zero. It needs a Delay.
	Jitter time.Duration `json:"jitter,omitempty"`
}

// Healthy is the condition of a link that delivers at once.
var Healthy = Condition{}

// Blackholed returns the condition of a link that drops every byte.
func Blackholed() Condition { return Condition{Mode: Blackhole} }

// Rejecting returns the condition of a link that resets connections.
func Rejecting() Condition { return Condition{Mode: Reject} }

// Delayed returns the condition of a link that delivers after d ± jitter.
func Delayed(d, jitter time.Duration) Condition {
	return Condition{Mode: Up, Delay: d, Jitter: jitter}
}

// Validate reports a condition that cannot be applied.
func (c Condition) Validate() error {
	switch {
	case int(c.Mode) >= len(modeNames):
		return fmt.Errorf("cluster: unknown link mode %d (valid: up, blackhole, reject)", uint8(c.Mode))
	case c.Delay < 0 || c.Jitter < 0:
		return fmt.Errorf("cluster: link delay %v and jitter %v must not be negative", c.Delay, c.Jitter)
	case c.Mode != Up && (c.Delay != 0 || c.Jitter != 0):
		return fmt.Errorf("cluster: a %v link cannot have a delay (delay applies to an up link)", c.Mode)
	case c.Jitter != 0 && c.Delay == 0:
		return fmt.Errorf("cluster: jitter %v needs a delay", c.Jitter)
	}
	return nil
}

// String returns a short description such as "up", "blackhole" or
// "up delay=5ms±2ms".
func (c Condition) String() string {
	var b strings.Builder
	b.WriteString(c.Mode.String())
	if c.Delay > 0 {
		fmt.Fprintf(&b, " delay=%v", c.Delay)
		if c.Jitter > 0 {
			fmt.Fprintf(&b, "±%v", c.Jitter)
		}
	}
	return b.String()
}

// Link is a directed link and its condition, as reported by Cluster.Links.
type Link struct {
	From      string    `json:"from"`
	To        string    `json:"to"`
	Condition Condition `json:"condition"`
}

func (l Link) String() string { return fmt.Sprintf("%s→%s %v", l.From, l.To, l.Condition) }

// linkKey names a directed link.
type linkKey struct{ from, to string }

// link is the runtime state of one directed link. Every proxied connection
// that carries bytes in this direction is registered here, so a change of
// condition can reach the connections already open.
//
// A link's condition comes in layers (see overlay.go): its base, which the
// Cluster's own calls set, and one layer per Overlay that has set it. cond
// is the one in effect: the newest layer's, or the base.
type link struct {
	key linkKey

	// mu guards base, layers, cond and conns. A pump holds it shared while
	// it decides the fate of one chunk, so a heal that takes it exclusively
	// sees every chunk already dropped (and the taint that came with it).
	mu     sync.RWMutex
	base   Condition
	layers []layer // oldest first
	cond   Condition
	conns  map[*pconn]direction
}

func newLink(k linkKey) *link {
	return &link{key: k, conns: make(map[*pconn]direction)}
}
