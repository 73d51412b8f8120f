package program

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/lock"
)

// TestProgramsAreToldAndHeard starts, for client c1 — ahead of the run, or
// cold when the constructor asks — a program that says on stderr which
// client init named, refuses init, or gives up at its
// second acquire, and requires the error or the crash report to name the
// client and quote the last lines of its stderr, and the run's directory
// to keep all of it. Real clock: the program is another OS process on
// loopback sockets.
func TestProgramsAreToldAndHeard(t *testing.T) {
	c := cluster.New(t, cluster.Config{Clock: cluster.ClockReal})
	cli, err := c.Client("c1")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		mode     string   // the adapter's (adapter_test.go)
		says     []string // in the init error or the crash report
		saysNot  []string
		kept     []string // in the kept stderr file
		crashAt2 bool     // the report is a crash at the second acquire, not an init error
		cold     bool     // no program started ahead: the constructor starts one, still the client's
	}{
		{name: "refused init", mode: "refuse",
			says:    []string{"(client c1)", "refused init: unavailable: no credentials", "its stderr ended: adapter: stderr line 3 | ", "adapter: stderr line 12 (all of it in "},
			saysNot: []string{"stderr line 2 |"},
			kept:    []string{"adapter: I am client c1\n", "adapter: stderr line 1\n", "adapter: stderr line 12\n"}},
		{name: "refused init, started cold", mode: "refuse", cold: true,
			says: []string{"(client c1)", "refused init: unavailable: no credentials"},
			kept: []string{"adapter: I am client c1\n"}},
		{name: "crash", mode: "exit", crashAt2: true,
			says: []string{"(client c1)", "exited (exit status 1)", "its stderr ended: adapter: giving up (all of it in "},
			kept: []string{"adapter: giving up\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := Config{Argv: []string{os.Args[0], "-test.run=^$", "etcdsim-test-adapter", tt.mode}, StderrDir: dir}
			var st *Started // nil has nothing to close
			if !tt.cold {
				st, err = Prestart(context.Background(), cfg, map[string]*clientv3.Client{"c1": cli})
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
			}
			l, err := newLocker(cfg, cli, "L", lock.Options{TTL: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			crashed := make(chan string, 1)
			l.OnExit(func(reason string) { crashed <- reason })
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var report string
			if tt.crashAt2 {
				h, err := l.Lock(ctx)
				if err != nil {
					t.Fatal(err)
				}
				h.Unlock(ctx) //nolint:errcheck // the second acquire is what matters
				l.Lock(ctx)   //nolint:errcheck // it gives up here
				select {
				case report = <-crashed:
				case <-ctx.Done():
					t.Fatal("no crash report within a minute")
				}
			} else {
				_, err := l.Lock(ctx)
				if err == nil {
					t.Fatal("a program that refused init took a lock")
				}
				report = err.Error()
				if got := l.Err(); got == nil || got.Error() != report {
					t.Errorf("Err: %v; want the init error", got)
				}
			}
			for _, want := range tt.says {
				if !strings.Contains(report, want) {
					t.Errorf("%q does not say %q", report, want)
				}
			}
			for _, not := range tt.saysNot {
				if strings.Contains(report, not) {
					t.Errorf("%q says %q, more than the last lines", report, not)
				}
			}
			if !strings.Contains(report, filepath.Join(dir, "c1")) {
				t.Errorf("%q does not name the file in %s that keeps its stderr", report, dir)
			}
			l.Close()
			st.Close()
			b, err := os.ReadFile(filepath.Join(dir, "c1.stderr"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tt.kept {
				if !strings.Contains(string(b), want) {
					t.Errorf("c1.stderr does not keep %q:\n%s", want, b)
				}
			}
		})
	}
}
