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
	close  func(p *processLock) error
	once   sync.Once
}

func newProcessLock(closes *atomic.Int32, onClose func(p *processLock) error) lock.NewLocker {
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
	return p.close(p)
}

// selfClosingLock is a lock whose library closes it itself once its first
// hold is released, as a library that closes a value when its session
// ends does; its Close is not idempotent: the scenarios' call, the second,
// closes a closed channel.
type selfClosingLock struct {
	lock.Locker
	stop chan struct{}
}

func newSelfClosingLock(cli *clientv3.Client, name string, opts lock.Options) (lock.Locker, error) {
	l, err := lock.NewMutex(cli, name, opts)
	return &selfClosingLock{Locker: l, stop: make(chan struct{})}, err
}

func (s *selfClosingLock) Lock(ctx context.Context) (lock.Held, error) {
	select {
	case <-s.stop:
		return nil, errors.New("closed by its library")
	default:
	}
	h, err := s.Locker.Lock(ctx)
	if err == nil {
		s.Close() //nolint:errcheck // the library's own call: the first
	}
	return h, err
}

func (s *selfClosingLock) Close() error {
	close(s.stop)
	return nil
}

// foreverClose never returns: it waits on a channel of the run's bubble
// that no one closes.
func foreverClose(*processLock) error {
	<-make(chan struct{})
	return nil
}

// leakyLock starts a goroutine for each process that nothing stops, and
// has no Close.
type leakyLock struct{ lock.Locker }

func newLeakyLock(cli *clientv3.Client, name string, opts lock.Options) (lock.Locker, error) {
	l, err := lock.NewMutex(cli, name, opts)
	go leakyKeepAlive(make(chan struct{}))
	return leakyLock{l}, err
}

// leakyKeepAlive stands for a keep-alive loop the recipe never stops.
func leakyKeepAlive(never chan struct{}) { <-never }

// The scenarios close each process's Locker once, as it crashes or as the
// run ends, so a recipe with machinery of its own leaves nothing behind; a
// Close that fails, panics, blocks — for a while or for good — or finds
// itself closed already by the recipe's library, and a recipe that leaves
// goroutines behind with no Close, are the recipe's fault, each said in a
// sentence naming it and what to do, and the run is judged all the same.
func TestRecipeClose(t *testing.T) {
	tests := []struct {
		name  string
		new   func(closes *atomic.Int32) lock.NewLocker
		says  []string // what RecipeFaults says, in one of its sentences each
		never bool     // Close is not called: the recipe has none
		// raceOut: left out under -race, where "slow" puts the same
		// 10 s wait under the detector (and a Close that returns late).
		raceOut bool
	}{
		{name: "closes", new: func(c *atomic.Int32) lock.NewLocker {
			return newProcessLock(c, func(*processLock) error { return nil })
		}},
		{name: "fails", new: func(c *atomic.Int32) lock.NewLocker {
			return newProcessLock(c, func(*processLock) error { return errors.New("lease already gone") })
		}, says: []string{`lock recipe "process-fails": Close of client c1's lock.Locker (*scenarios_test.processLock) returned an error: lease already gone; Close must stop what the recipe started for the process and return nil`}},
		{name: "panics", new: func(c *atomic.Int32) lock.NewLocker {
			return newProcessLock(c, func(*processLock) error { panic("out of order") })
		}, says: []string{`Close of client c1's lock.Locker (*scenarios_test.processLock) panicked: out of order`}},
		{name: "slow", new: func(c *atomic.Int32) lock.NewLocker {
			return newProcessLock(c, func(*processLock) error { time.Sleep(30 * time.Second); return nil })
		}, says: []string{`Close of client c1's lock.Locker (*scenarios_test.processLock) did not return within 10s on the run's clock`}},
		{name: "blocks", new: func(c *atomic.Int32) lock.NewLocker { return newProcessLock(c, foreverClose) }, raceOut: true,
			says: []string{
				`Close of client c1's lock.Locker (*scenarios_test.processLock) did not return within 10s on the run's clock`,
				`lock recipe "process-blocks" left `, ` goroutines behind when the run ended, blocked for good: `,
				`in github.com/etcdsim/etcdsim/scenarios_test.foreverClose`,
				`its lock.Locker (*scenarios_test.processLock) has a Close, which the scenarios called for every process, and these outlived it`,
			}},
		{name: "closed-twice", new: func(*atomic.Int32) lock.NewLocker { return newSelfClosingLock }, never: true,
			says: []string{`'s lock.Locker (*scenarios_test.selfClosingLock) panicked: close of closed channel; Close must stop what the recipe started for the process and return nil; ` +
				`it found the value closed before — the scenarios call Close once for each process, when it crashes or when the run ends, so something else closed it first`}},
		{name: "shared", new: func(c *atomic.Int32) lock.NewLocker {
			var once sync.Once
			var shared lock.Locker
			var serr error
			mk := newProcessLock(c, func(*processLock) error { return nil })
			return func(cli *clientv3.Client, name string, opts lock.Options) (lock.Locker, error) {
				once.Do(func() { shared, serr = mk(cli, name, opts) })
				return shared, serr
			}
		}, never: true, // one value for every process: closed once
			says: []string{`lock recipe "process-shared": New returned the same *scenarios_test.processLock to clients c1 and c2; each process needs a value of its own`}},
		{name: "leaks", new: func(*atomic.Int32) lock.NewLocker { return newLeakyLock }, never: true,
			says: []string{
				`lock recipe "process-leaks" left `, ` goroutines behind when the run ended, blocked for good: `,
				`in github.com/etcdsim/etcdsim/scenarios_test.leakyKeepAlive`,
				`implement Close() error on its lock.Locker (scenarios_test.leakyLock): the scenarios call it when the process crashes and when the run ends`,
				`they are goroutines of github.com/etcdsim/etcdsim/scenarios_test (`,
				`the library cannot run on the virtual clock, whose run ends only once every goroutine it started has returned: run its scenarios on the real clock`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parallelWithoutRace(t)
			if tt.raceOut {
				raceLeavesOut(t, `the "slow" case waits out the same 10 s`)
			}
			var closes atomic.Int32
			s := scenarios.LockSafety(lock.Recipe{Name: "process-" + tt.name, Summary: "a Locker with a Close", New: tt.new(&closes)})[0]
			s.Workload.Duration = scenarios.Duration(3 * time.Second)
			r, err := scenarios.Run(context.Background(), s, scenarios.Options{})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if len(r.Checks) == 0 {
				t.Errorf("the run was not judged: %+v", r)
			}
			if got := int(closes.Load()); !tt.never && got < s.Workload.Clients {
				t.Errorf("Close called %d times, want at least once for each of %d processes", got, s.Workload.Clients)
			}
			joined := strings.Join(r.RecipeFaults, "\n")
			if len(tt.says) == 0 && joined != "" {
				t.Errorf("RecipeFaults = %q, want none", r.RecipeFaults)
			}
			for _, want := range tt.says {
				if !strings.Contains(joined, want) {
					t.Errorf("RecipeFaults =\n%s\nwant one saying %q", joined, want)
				}
			}
		})
	}
}
