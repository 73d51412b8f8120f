package scenarios_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/scenarios"
)

// nilHolder is a Locker whose Lock returns no holder and no error.
type nilHolder struct{}

func (nilHolder) Lock(context.Context) (lock.Held, error) { return nil, nil }

// nilTerm is an Elector whose Campaign returns no leadership and no error.
type nilTerm struct{}

func (nilTerm) Campaign(context.Context, string) (election.Leadership, error) { return nil, nil }
func (nilTerm) Close() error                                                  { return nil }

// nilObserve is an Elector whose Observe returns no channel.
type nilObserve struct{ election.Elector }

func (nilObserve) Observe(context.Context) <-chan election.LeaderInfo { return nil }

// A recipe that cannot be run — a constructor that returns nil, panics or
// blocks, a call that returns nothing and no error — ends the run with an
// error that names the recipe and what it did, wraps ErrRecipe, and is no
// harness failure.
func TestBadRecipe(t *testing.T) {
	block := make(chan struct{})
	t.Cleanup(func() { close(block) }) // lets the blocked constructors go, for goleak
	type lockNew = func(*clientv3.Client, string, lock.Options) (lock.Locker, error)
	type electionNew = func(*clientv3.Client, string, election.Options) (election.Elector, error)
	tests := []struct {
		name     string
		lock     lockNew
		election electionNew
		ownRead  bool // the workload asks the holder whether it still holds (lock.Checker)
		says     string
	}{
		{name: "lock-nil", lock: func(*clientv3.Client, string, lock.Options) (lock.Locker, error) { return nil, nil },
			says: `lock recipe "lock-nil": its constructor (New) returned a nil lock.Locker and no error for client c1`},
		{name: "lock-nil-pointer", lock: func(*clientv3.Client, string, lock.Options) (lock.Locker, error) {
			var l *nilPointerLock
			return l, nil
		}, says: `lock recipe "lock-nil-pointer": its constructor (New) returned a nil lock.Locker`},
		{name: "lock-panics", lock: func(*clientv3.Client, string, lock.Options) (lock.Locker, error) { panic("not written yet") },
			says: `lock recipe "lock-panics": its constructor (New) panicked for client c1: not written yet`},
		{name: "lock-blocks", lock: func(*clientv3.Client, string, lock.Options) (lock.Locker, error) { <-block; return nil, nil },
			says: `lock recipe "lock-blocks": its constructor (New) did not return within 1s (the workload's patience) for client c1`},
		{name: "lock-nil-holder", lock: func(*clientv3.Client, string, lock.Options) (lock.Locker, error) { return nilHolder{}, nil },
			says: `lock recipe "lock-nil-holder": Lock returned a nil lock.Held and no error for client c`},
		{name: "lock-no-owned", lock: newLeaselessLock, ownRead: true,
			says: `lock recipe "lock-no-owned": its holder (*scenarios_test.leaselessHeld) has no Owned method (lock.Checker), which workload.owner_check "read" needs`},
		{name: "election-nil", election: func(*clientv3.Client, string, election.Options) (election.Elector, error) { return nil, nil },
			says: `election recipe "election-nil": its constructor (New) returned a nil election.Elector and no error for client`},
		{name: "election-panics", election: func(*clientv3.Client, string, election.Options) (election.Elector, error) { panic("oops") },
			says: `election recipe "election-panics": its constructor (New) panicked for client`},
		{name: "election-blocks", election: func(*clientv3.Client, string, election.Options) (election.Elector, error) { <-block; return nil, nil },
			says: `election recipe "election-blocks": its constructor (New) did not return within 1s (the workload's patience)`},
		{name: "election-nil-term", election: func(*clientv3.Client, string, election.Options) (election.Elector, error) { return nilTerm{}, nil },
			says: `election recipe "election-nil-term": Campaign returned a nil election.Leadership and no error for client c`},
		{name: "election-nil-observe", election: func(cli *clientv3.Client, prefix string, opts election.Options) (election.Elector, error) {
			e, err := election.NewRechecked(cli, prefix, opts)
			return nilObserve{e}, err
		}, says: `election recipe "election-nil-observe": Observe returned a nil channel and no error for client o1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s scenarios.Scenario
			if tt.lock != nil {
				s = scenarios.LockSafety(lock.Recipe{Name: tt.name, Summary: "bad", New: tt.lock})[0]
			} else {
				s = scenarios.ElectionSafety(election.Recipe{Name: tt.name, Summary: "bad", New: tt.election})[0]
			}
			s.Workload.Duration = scenarios.Duration(3 * time.Second)
			s.Workload.Patience = scenarios.Duration(time.Second)
			if tt.ownRead {
				s.Workload.OwnerCheck = scenarios.OwnerCheckRead
			}
			if strings.HasSuffix(tt.name, "-blocks") {
				// Blocked on the test's channel, made outside any bubble,
				// a constructor would stand the virtual clock still: the
				// watchdog's case, not this one.
				s.Cluster.Clock = cluster.ClockReal
			}
			_, err := scenarios.Run(context.Background(), s, scenarios.Options{})
			switch {
			case err == nil:
				t.Fatal("Run: no error; want one naming the recipe")
			case !errors.Is(err, scenarios.ErrRecipe) || errors.Is(err, scenarios.ErrHarness):
				t.Errorf("Run: %v; want an error wrapping ErrRecipe and not ErrHarness", err)
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("Run: %v\nwant it to say %s", err, tt.says)
			}
		})
	}
}

// nilPointerLock is a Locker whose nil pointer its constructor returns.
type nilPointerLock struct{ l lock.Locker }

func (p *nilPointerLock) Lock(ctx context.Context) (lock.Held, error) { return p.l.Lock(ctx) }
