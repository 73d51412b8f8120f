// Package patience says how long a test on the real clock should wait for
// something that will happen, on this machine, now.
//
// A test on the virtual clock (clustertest.Virtual) needs none of this: its
// deadlines are on a clock that moves only when the cluster waits, so a
// slow machine makes it slower, never wrong. A test on the real clock —
// one about OS processes, sockets, or the wall clock itself — races real
// time against a CPU it shares: an election that takes 100 ms on an idle
// machine takes seconds on two cores under sixteen busy loops and the race
// detector. Such a test waits Scale(d), where d is what an idle machine
// needs with a generous margin; Scale multiplies d by Factor, measured from
// the race detector, GOMAXPROCS and the machine's load.
//
//	ctx, cancel := context.WithTimeout(ctx, patience.Scale(30*time.Second))
//
// ETCDSIM_PATIENCE (a number, default 1) multiplies the factor further, for
// a machine slower than the measures can tell.
package patience
