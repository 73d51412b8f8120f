package program

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// programs are the adapters the benchmarks start: the test binary's own
// (see adapter_test.go) and the examples', where their runtimes are here.
func programs(b *testing.B) map[string][]string {
	out := map[string][]string{"go": {os.Args[0], "-test.run=^$", "etcdsim-test-adapter", "mutex"}}
	if _, err := exec.LookPath("node"); err == nil {
		if _, err := os.Stat("../examples/node/node_modules/etcd3"); err == nil {
			out["node"] = []string{"node", "../examples/node/adapter.js"}
		}
	}
	if exec.Command("/usr/bin/python3", "-c", "import etcd3").Run() == nil {
		out["python"] = []string{"/usr/bin/python3", "../examples/python/adapter.py"}
	}
	return out
}

// lazyClient is an etcd client that never dials: init hands its endpoint
// to the program, and ping, the op measured, touches no etcd.
func lazyClient(b *testing.B) *clientv3.Client {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{"http://127.0.0.1:1"}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cli.Close() })
	return cli
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// BenchmarkRoundTrip measures the protocol's cost per operation: a ping
// written as a line and its answer read, one after another.
func BenchmarkRoundTrip(b *testing.B) {
	for name, argv := range programs(b) {
		b.Run(name, func(b *testing.B) {
			s, err := begin(Config{Argv: argv}, lazyClient(b), request{Family: "lock", Name: "L", TTL: 1}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer s.close()
			ctx := context.Background()
			if err := s.wait(ctx); err != nil {
				b.Fatal(err)
			}
			ds := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for b.Loop() {
				t := time.Now()
				if _, err := s.call(ctx, request{Op: "ping"}, nil); err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(t))
			}
			b.ReportMetric(float64(median(ds).Microseconds()), "median-us")
			b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds()), "p99-us")
		})
	}
}

// BenchmarkStart measures how long a client's program takes to start, to
// its init answered. Cold: from its spawn, through its first line (ping:
// ready) — what a client restarted within a run waits. Warm: a program
// Prestart started before the run, from the recipe's constructor to init
// answered — what a run's clock sees of a client's start.
func BenchmarkStart(b *testing.B) {
	for name, argv := range programs(b) {
		b.Run(name+"/cold", func(b *testing.B) {
			cli := lazyClient(b)
			var ds []time.Duration
			for b.Loop() {
				s, d := startTimed(b, argv, cli)
				ds = append(ds, d)
				s.close()
			}
			b.ReportMetric(float64(median(ds).Microseconds())/1000, "start-ms")
		})
		b.Run(name+"/warm", func(b *testing.B) {
			cli := lazyClient(b)
			var ds []time.Duration
			for b.Loop() {
				b.StopTimer()
				st, err := Prestart(context.Background(), Config{Argv: argv}, map[string]*clientv3.Client{"c1": cli})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				s, d := startTimed(b, argv, cli)
				ds = append(ds, d)
				b.StopTimer()
				s.close()
				st.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(median(ds).Microseconds())/1000, "start-ms")
		})
	}
}

// startTimed starts a lock recipe's session of argv and returns it with
// how long it took to have init answered.
func startTimed(b *testing.B, argv []string, cli *clientv3.Client) (*session, time.Duration) {
	t := time.Now()
	s, err := begin(Config{Argv: argv}, cli, request{Family: "lock", Name: "L", TTL: 1}, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.wait(context.Background()); err != nil {
		b.Fatal(err)
	}
	return s, time.Since(t)
}
