package memnet

import (
	"fmt"
	"os"
	"sync"
)

// The addresses a network hands out are made up, but etcd still dials some
// of them for real: a member that starts a new cluster first asks its
// peers, over a real HTTP client, whether it was already bootstrapped, and
// a joining member on the virtual clock is answered through a real
// listener at its peers' addresses (cluster's join bridge). Port 1 of
// loopback refuses at once, so the first question fails fast and harms
// nothing — unless another cluster's join bridge listens at that very
// address just then. Every network used to number from 127.0.10.1, so two
// clusters, in one process or in two (a campaign's runs, go test's
// packages), shared their addresses: a new member's question reached the
// other cluster's bridge and waited on a real socket, and a bubble cannot
// move its clock while a goroutine waits on one; the run froze at 0 s.
//
// So each network takes addresses from blocks of its own, 127.B.C.1 to
// 127.B.C.250 (B from 1 to 254, never the 127.0 of real loopback
// services): the blocks go to this process's networks in turn, from a
// start the process id sets, so that two processes start far apart. Two
// processes' blocks meet only after tens of thousands of networks.

// blockSize is how many addresses a network takes from one block before
// it takes another.
const blockSize = 250

// nblocks is the number of blocks, 127.1.0.0/24 to 127.254.255.0/24.
const nblocks = 254 * 256

var blocks = struct {
	sync.Mutex
	start, next int
}{start: int(uint32(os.Getpid()) * 2654435761 % nblocks)}

// newBlock returns the next block of this process's networks.
func newBlock() int {
	blocks.Lock()
	defer blocks.Unlock()
	b := (blocks.start + blocks.next) % nblocks
	blocks.next++
	return b
}

// blockAddr is the i-th address (from 1) of block b, at port 1.
func blockAddr(b, i int) string {
	return fmt.Sprintf("127.%d.%d.%d:1", 1+b/256, b%256, i)
}
