package memnet_test

import (
	"net/netip"
	"testing"

	"github.com/etcdsim/etcdsim/internal/memnet"
)

// TestNetworksShareNoAddress: two networks of one process never hand out
// the same address, none is in 127.0.0.0/16 where real loopback services
// listen, and a network that has used a block moves to another.
func TestNetworksShareNoAddress(t *testing.T) {
	seen := map[string]string{}
	for _, name := range []string{"a", "b"} {
		n := memnet.New()
		for i := range 600 {
			ln, err := n.Listen("")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			addr := ln.Addr().String()
			ap, err := netip.ParseAddrPort(addr)
			if err != nil {
				t.Fatalf("network %s's address %d, %q: %v", name, i, addr, err)
			}
			if !ap.Addr().IsLoopback() || ap.Addr().As4()[1] == 0 || ap.Port() != 1 {
				t.Errorf("network %s's address %d is %s; want 127.B.C.D:1 with B from 1", name, i, addr)
			}
			if other, ok := seen[addr]; ok {
				t.Fatalf("network %s's address %d, %s, was handed out before, by network %s", name, i, addr, other)
			}
			seen[addr] = name
		}
	}
}
