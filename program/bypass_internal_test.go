package program

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/internal/patience"
	"github.com/etcdsim/etcdsim/lock"
)

// TestAProgramThatBypassesItsLinksIsNamed runs a lock's program that dials
// the endpoints init hands it, and one that dials the members' own
// addresses instead, and requires the second, and only it, to be named as
// bypassing the faults aimed at its client.
//
// Real clock: the program is another OS process that dials over loopback
// sockets. Its lease and deadline stretch with the machine's load, so a
// slow start does not lose the lock under the test.
func TestAProgramThatBypassesItsLinksIsNamed(t *testing.T) {
	c := cluster.New(t, cluster.Config{Clock: cluster.ClockReal})
	var members []string
	for _, m := range c.Members() {
		members = append(members, m.Endpoint())
	}
	tests := []struct {
		name string
		mode string // the adapter's (adapter_test.go)
		says []string
	}{
		{name: "dials its endpoints", mode: "mutex"},
		{name: "dials the members", mode: "direct",
			says: []string{"(client c1) bypasses the faults: it was connected to 127.0.0.1:", "and never to the endpoints init handed it", "dial the endpoints init hands the program"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cli, err := c.Client("c1")
			if err != nil {
				t.Fatal(err)
			}
			cfg := Config{Argv: []string{os.Args[0], "-test.run=^$", "etcdsim-test-adapter", tt.mode},
				Env: append(os.Environ(), "ETCDSIM_TEST_DIRECT="+strings.Join(members, " "))}
			st, err := Prestart(context.Background(), cfg, map[string]*clientv3.Client{"c1": cli})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			l, err := newLocker(cfg, cli, "L", lock.Options{TTL: patience.Scale(2 * time.Second).Round(time.Second)})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
			defer cancel()
			for range 2 {
				h, err := l.Lock(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if err := h.Unlock(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if got := l.Bypassing(); got != "" {
				t.Errorf("Bypassing before Close: %q; it is judged when the program is closed", got)
			}
			l.Close()
			got := l.Bypassing()
			if len(tt.says) == 0 && (got != "" || !l.bypass.crossed) {
				t.Errorf("a program that dialed its endpoints: seen crossing its links %v, named %q", l.bypass.crossed, got)
			}
			for _, want := range tt.says {
				if !strings.Contains(got, want) {
					t.Errorf("Bypassing: %q does not say %q", got, want)
				}
			}
			t.Log(got)
		})
	}
}
