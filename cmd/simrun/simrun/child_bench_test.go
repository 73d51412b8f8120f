package simrun_test

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkChildProcess measures what a child process of its own costs a
// run: a short scenario run by the simrun binary, each run in a child
// process and with -inprocess. The difference of the two ms/run is the
// cost of starting the child and reading its result back.
//
//	go test -run '^$' -bench ChildProcess -benchtime 5x ./cmd/simrun/simrun
func BenchmarkChildProcess(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "simrun")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/etcdsim/etcdsim/cmd/simrun").CombinedOutput(); err != nil {
		b.Fatalf("go build simrun: %v\n%s", err, out)
	}
	for _, mode := range []struct {
		name  string
		flags []string
	}{{"child", nil}, {"inprocess", []string{"-inprocess"}}} {
		b.Run(mode.name, func(b *testing.B) {
			var total time.Duration
			for range b.N {
				args := append([]string{"run", "-parallel", "1", "-out", b.TempDir()}, mode.flags...)
				t0 := time.Now()
				if out, err := exec.Command(bin, append(args, short)...).CombinedOutput(); err != nil {
					b.Fatalf("simrun %v: %v\n%s", args, err, out)
				}
				total += time.Since(t0)
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/run")
		})
	}
}
