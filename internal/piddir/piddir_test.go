package piddir

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// deadPID returns the ID of a process that has exited.
func deadPID(t testing.TB) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestSweep(t *testing.T) {
	dead := strconv.Itoa(deadPID(t))
	self := strconv.Itoa(os.Getpid())
	parent := strconv.Itoa(os.Getppid())
	tests := []struct {
		name string
		dir  string // its name in the temp dir
		file bool   // a file, not a directory
		gone bool   // Sweep removes it
	}{
		{name: "a dead process's", dir: "etcdsim-child-" + dead + "-123", gone: true},
		{name: "a dead process's, other prefix", dir: "etcdsim-member-" + dead + "-9", gone: true},
		{name: "this process's", dir: "etcdsim-child-" + self + "-1"},
		{name: "a running process's", dir: "etcdsim-child-" + parent + "-1"},
		{name: "no ID", dir: "etcdsim-child-abc-1"},
		{name: "no dash after the ID", dir: "etcdsim-child-" + dead},
		{name: "another prefix", dir: "etcdsim-" + dead + "-1"},
		{name: "a file", dir: "etcdsim-child-" + dead + "-f", file: true},
	}
	tmp := t.TempDir()
	for _, tt := range tests {
		p := filepath.Join(tmp, tt.dir)
		if tt.file {
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Join(p, "member", "wal"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	n, err := Sweep(tmp, "etcdsim-child-", "etcdsim-member-")()
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := os.Stat(filepath.Join(tmp, tt.dir))
			if gone := os.IsNotExist(err); gone != tt.gone {
				t.Errorf("%s: removed %v, want %v", tt.dir, gone, tt.gone)
			}
		})
		if tt.gone {
			want++
		}
	}
	if n != want {
		t.Errorf("Sweep removed %d, want %d", n, want)
	}
}

func TestSweepMissingDir(t *testing.T) {
	if _, err := Sweep(filepath.Join(t.TempDir(), "missing"), "etcdsim-child-")(); err == nil {
		t.Error("Sweep of a missing directory: no error")
	}
}

func TestMake(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir, err := Make("etcdsim-test-")
	if err != nil {
		t.Fatal(err)
	}
	pid, ok := owner(filepath.Base(dir), []string{"etcdsim-test-"})
	if !ok || pid != os.Getpid() {
		t.Errorf("Make made %s: owner %d, %v; want this process, %d", dir, pid, ok, os.Getpid())
	}
	if n, err := Sweep(os.TempDir(), "etcdsim-test-")(); err != nil || n != 0 {
		t.Errorf("Sweep removed %d (%v) with its owner running; want 0", n, err)
	}
	entries, _ := os.ReadDir(os.TempDir())
	if !slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() == filepath.Base(dir) }) {
		t.Errorf("%s is gone", dir)
	}
}

// BenchmarkSweep sweeps a temp dir holding 50 directories left by dead
// processes, each with a small member data tree, as a start after kill -9s
// finds them: the cost at start (ms/start, Sweep's return) and the removal
// that goes on in the background (ms/removal).
func BenchmarkSweep(b *testing.B) {
	const stale = 50
	dead := strconv.Itoa(deadPID(b))
	tmp := b.TempDir()
	var start, removal time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for j := range stale {
			d := filepath.Join(tmp, "etcdsim-child-"+dead+"-"+strconv.Itoa(j), "etcdsim-1", "m1", "member", "wal")
			if err := os.MkdirAll(d, 0o755); err != nil {
				b.Fatal(err)
			}
			for k := range 8 {
				if err := os.WriteFile(filepath.Join(d, strconv.Itoa(k)+".wal"), make([]byte, 64<<10), 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.StartTimer()
		t0 := time.Now()
		wait := Sweep(tmp, "etcdsim-child-", "etcdsim-member-", "etcdsim-procs-")
		t1 := time.Now()
		n, err := wait()
		start, removal = start+t1.Sub(t0), removal+time.Since(t1)
		if err != nil || n != stale {
			b.Fatalf("Sweep removed %d (%v), want %d", n, err, stale)
		}
	}
	b.ReportMetric(float64(start.Microseconds())/1000/float64(b.N), "ms/start")
	b.ReportMetric(float64(removal.Microseconds())/1000/float64(b.N), "ms/removal")
}
