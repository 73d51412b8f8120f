package scenarios_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/scenarios"
)

// processLock is a lock recipe that starts a goroutine for its process,
// as a recipe keeping a lease.Guard or a library's client does, which only
// its Close stops; close says how Close then behaves.
type processLock struct {
	lock.Locker
	stop   chan struct{}
	done   chan struct{}
	closes *atomic.Int32
	close  func() error
	once   sync.Once
}

func newProcessLock(closes *atomic.Int32, onClose func() error) lock.NewLocker {
	return func(cli *clientv3.Client, name string, opts lock.Options) (lock.Locker, error) {
		l, err := lock.NewMutex(cli, name, opts)
		if err != nil {
			return nil, err
		}
		p := &processLock{Locker: l, stop: make(chan struct{}), done: make(chan struct{}), closes: closes, close: onClose}
		go func() { // the process's own machinery
			defer close(p.done)
			<-p.stop
		}()
		return p, nil
	}
}

func (p *processLock) Close() error {
	p.closes.Add(1)
	p.once.Do(func() { close(p.stop); <-p.done })
	return p.close()
}

// The scenarios close each process's Locker once, as it crashes or as the
// run ends, so a recipe with machinery of its own leaves nothing behind; a
// Close that fails, panics or blocks is the recipe's fault, said in a
// sentence, and the run is judged all the same.
func TestRecipeClose(t *testing.T) {
	tests := []struct {
		name  string
		close func() error
		says  string
	}{
		{"closes", func() error { return nil }, ""},
		{"fails", func() error { return errors.New("lease already gone") }, "Close of client c1's *scenarios_test.processLock returned an error: lease already gone"},
		{"panics", func() error { panic("closed twice") }, "panicked: closed twice"},
		{"blocks", func() error { time.Sleep(time.Minute); return nil }, "did not return within 10s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var closes atomic.Int32
			s := scenarios.LockSafety(lock.Recipe{Name: "process-" + tt.name, Summary: "a Locker with a Close", New: newProcessLock(&closes, tt.close)})[0]
			s.Workload.Duration = scenarios.Duration(3 * time.Second)
			r, err := scenarios.Run(context.Background(), s, scenarios.Options{})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if len(r.Checks) == 0 {
				t.Errorf("the run was not judged: %+v", r)
			}
			if got := int(closes.Load()); got < s.Workload.Clients {
				t.Errorf("Close called %d times, want at least once for each of %d processes", got, s.Workload.Clients)
			}
			joined := strings.Join(r.RecipeFaults, "\n")
			switch {
			case tt.says == "" && joined != "":
				t.Errorf("RecipeFaults = %q, want none", r.RecipeFaults)
			case tt.says != "" && !strings.Contains(joined, tt.says):
				t.Errorf("RecipeFaults = %q, want one saying %q", r.RecipeFaults, tt.says)
			}
		})
	}
}
