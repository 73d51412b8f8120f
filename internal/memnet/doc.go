// Package memnet is the virtual clock's network: listeners at made-up
// loopback addresses and dials matched to them, in memory. Its
// connections are pipes of its own — buffered, waiting on sync.Cond, with
// deadlines on timers — so when a cluster runs in a synctest bubble a
// goroutine waiting on the network is durably blocked and the bubble's
// clock moves on.
//
// Nothing here is a fault: every link of a cluster is still a proxy with
// pumps, as on the real clock; memnet only carries their bytes.
//
//	n := memnet.New()
//	ln, err := n.Listen("")                      // 127.B.C.D:1, in memory
//	c, err := n.DialAs(ctx, ln.Addr().String(), "m0")
//	// the accepted end's From() is "m0"
package memnet
