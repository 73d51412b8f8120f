package faults

import (
	"fmt"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
)

// Delay slows every link of each node t resolves to, both ways, by d give
// or take jitter (drawn per chunk by the cluster's network). Aimed at a
// member it slows its peers and clients too.
func Delay(t Target, d, jitter time.Duration) Fault {
	cond := cluster.Delayed(d, jitter)
	f := linkFault("delay", t, anyNodes, fmt.Sprintf("%v±%v", d, jitter), func(n, p string) []linkChange {
		return []linkChange{{from: n, to: p, set: cond}, {from: p, to: n, set: cond}}
	})
	f.check = func(shape) error {
		if d <= 0 {
			return fmt.Errorf("delay %v must be positive", d)
		}
		if jitter < 0 || jitter > d {
			return fmt.Errorf("jitter %v must be between 0 and the delay %v", jitter, d)
		}
		return nil
	}
	return f
}

// Reset makes every member reset the connections of each client t
// resolves to, open ones at once and new ones as they come, as a server
// whose port is closed would.
func Reset(t Target) Fault {
	return linkFault("reset", t, clientsOnly, "", func(n, p string) []linkChange {
		return []linkChange{{from: n, to: p, set: cluster.Rejecting()}, {from: p, to: n, set: cluster.Rejecting()}}
	})
}

// LoseResponses drops every byte from the members to each client t
// resolves to, while its requests still arrive: the cluster applies a
// write, and its caller never hears so. When it heals, the connections
// that lost bytes are reset.
func LoseResponses(t Target) Fault {
	return linkFault("lose-responses", t, clientsOnly, "", func(n, p string) []linkChange {
		return []linkChange{{from: p, to: n, set: cluster.Blackholed()}}
	})
}
