package scenarios_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/recipes/barrier"
	"github.com/etcdsim/etcdsim/recipes/queue"
	"github.com/etcdsim/etcdsim/recipes/register"
	"github.com/etcdsim/etcdsim/recipes/rwmutex"
	"github.com/etcdsim/etcdsim/recipes/stm"
	"github.com/etcdsim/etcdsim/scenarios"
)

// lifecycle counts the recipe values a run made and the Close calls they
// had. A value's Close panics if it is called twice.
type lifecycle struct {
	made, closed atomic.Int32
	panics       bool // a value's Close panics: the recipe's fault, named
}

// value is one recipe value's Close, called once.
type value struct {
	lc     *lifecycle
	closed atomic.Bool
	inner  func() error // the wrapped value's own Close, if any
}

func (lc *lifecycle) value(inner func() error) *value {
	lc.made.Add(1)
	return &value{lc: lc, inner: inner}
}

func (v *value) Close() error {
	if v.closed.Swap(true) {
		panic("closed twice by the scenarios")
	}
	v.lc.closed.Add(1)
	var err error
	if v.inner != nil {
		err = v.inner() // what it started is stopped, then it breaks
	}
	if v.lc.panics {
		panic("broken on purpose")
	}
	return err
}

// The wrapped values of each family, each with a Close of its own.
type (
	closingQueue struct {
		queue.Queue
		*value
	}
	closingRW struct {
		rwmutex.Locker
		*value
	}
	closingDouble struct {
		barrier.DoubleBarrier
		*value
	}
	closingPlain struct {
		barrier.Barrier
		*value
	}
	closingKV struct {
		clientv3.KV
		*value
	}
	closingTxner struct {
		stm.Txner
		*value
	}
	closingElector struct {
		election.Elector
		*value
	}
	closingRegistrar struct {
		discovery.Registrar
		*value
	}
	closingResolver struct {
		discovery.Resolver
		*value
	}
)

func (e closingElector) Close() error   { return e.value.Close() }
func (r closingRegistrar) Close() error { return r.value.Close() }
func (r closingResolver) Close() error  { return r.value.Close() }

// Observe keeps the wrapped Elector's, so that observers see the election.
func (e closingElector) Observe(ctx context.Context) <-chan election.LeaderInfo {
	return e.Elector.(election.Observer).Observe(ctx)
}

// registered returns the recipe a lookup found: one the registry has.
func registered[R any](r R, err error) R {
	if err != nil {
		panic(err)
	}
	return r
}

// Every family's recipe value is closed exactly once, by the same
// mechanism: as its process crashes, or as the run ends. A Close that
// panics is named as the recipe's fault, whichever the family, and the
// run is judged all the same.
func TestRecipeCloseEveryFamily(t *testing.T) {
	tests := []struct {
		name     string
		scenario func(t *testing.T, lc *lifecycle) scenarios.Scenario
		what     string // the value's type, as the fault names it
	}{
		{"election", func(t *testing.T, lc *lifecycle) scenarios.Scenario {
			r := registered(election.Lookup("rechecked"))
			in := r.New
			r.Name, r.New = "closing-election", func(cli *clientv3.Client, prefix string, opts election.Options) (election.Elector, error) {
				e, err := in(cli, prefix, opts)
				if err != nil {
					return nil, err
				}
				return closingElector{e, lc.value(e.Close)}, nil
			}
			return scenarios.ElectionSafety(r)[0]
		}, "election.Elector"},
		{"discovery-registrar", func(t *testing.T, lc *lifecycle) scenarios.Scenario {
			r := registered(discovery.LookupRegistrar("keepalive"))
			in := r.New
			r.Name, r.New = "closing-registrar", func(cli *clientv3.Client, service, addr string, opts discovery.Options) (discovery.Registrar, error) {
				reg, err := in(cli, service, addr, opts)
				if err != nil {
					return nil, err
				}
				return closingRegistrar{reg, lc.value(reg.Close)}, nil
			}
			return scenarios.DiscoverySafety(r)[0]
		}, "discovery.Registrar"},
		{"discovery-resolver", func(t *testing.T, lc *lifecycle) scenarios.Scenario {
			r := registered(discovery.LookupResolver("relisting"))
			in := r.New
			r.Name, r.New = "closing-resolver", func(cli *clientv3.Client, service string, opts discovery.Options) (discovery.Resolver, error) {
				res, err := in(cli, service, opts)
				if err != nil {
					return nil, err
				}
				return closingResolver{res, lc.value(res.Close)}, nil
			}
			return scenarios.DiscoveryResolverSafety(r)[0]
		}, "discovery.Resolver"},
		{"queue", func(t *testing.T, lc *lifecycle) scenarios.Scenario {
			r := registered(queue.Lookup("claimed"))
			in := r.New
			r.Name, r.New = "closing-queue", func(cli *clientv3.Client, name string) (queue.Queue, error) {
				q, err := in(cli, name)
				return closingQueue{q, lc.value(nil)}, err
			}
			return scenarios.QueueSafety(r)[0]
		}, "queue.Queue"},
		{"rwmutex", func(t *testing.T, lc *lifecycle) scenarios.Scenario {
			r := registered(rwmutex.Lookup("checked"))
			in := r.New
			r.Name, r.New = "closing-rwmutex", func(cli *clientv3.Client, name string, opts lock.Options) (rwmutex.Locker, error) {
				l, err := in(cli, name, opts)
				return closingRW{l, lc.value(nil)}, err
			}
			return scenarios.RWMutexSafety(r)[0]
		}, "rwmutex.Locker"},
		{"barrier", func(t *testing.T, lc *lifecycle) scenarios.Scenario {
			r := registered(barrier.Lookup("checked"))
			in := r.New
			r.Name, r.New = "closing-barrier", func(cli *clientv3.Client, name string, count int, opts lock.Options) (barrier.DoubleBarrier, error) {
				b, err := in(cli, name, count, opts)
				return closingDouble{b, lc.value(nil)}, err
			}
			return scenarios.BarrierSafety(r)[0]
		}, "barrier.DoubleBarrier"},
		{"plain-barrier", func(t *testing.T, lc *lifecycle) scenarios.Scenario {
			r := registered(barrier.LookupPlain("checked"))
			in := r.New
			r.Name, r.New = "closing-plain", func(cli *clientv3.Client, name string) (barrier.Barrier, error) {
				b, err := in(cli, name)
				return closingPlain{b, lc.value(nil)}, err
			}
			return scenarios.PlainBarrierSafety(r)[0]
		}, "barrier.Barrier"},
		{"register", func(t *testing.T, lc *lifecycle) scenarios.Scenario {
			r := registered(register.Lookup("leasing-guarded"))
			in := r.New
			r.Name, r.New = "closing-register", func(ctx context.Context, cli *clientv3.Client, ttl time.Duration) (clientv3.KV, error) {
				kv, err := in(ctx, cli, ttl)
				if err != nil {
					return nil, err
				}
				return closingKV{kv, lc.value(func() error { return register.Close(kv) })}, nil
			}
			return scenarios.RegisterSafety(r)[0]
		}, "clientv3.KV"},
		{"stm", func(t *testing.T, lc *lifecycle) scenarios.Scenario {
			r := registered(stm.Lookup("serializable"))
			in := r.New
			r.Name, r.New = "closing-stm", func(cli *clientv3.Client) (stm.Txner, error) {
				x, err := in(cli)
				return closingTxner{x, lc.value(nil)}, err
			}
			return scenarios.STMSafety(r)[0]
		}, "stm.Txner"},
	}
	sampled := 0
	for i, tt := range tests {
		for _, panics := range []bool{false, true} {
			name := tt.name
			if panics {
				name += "/panics"
				if testing.Short() {
					continue
				}
			}
			// Under -race, one of each family's two runs, the panicking
			// one every other family: the detector's look at every
			// family's workload, recorder and checkers (see
			// race_sample_test.go); make test runs them all once more
			// without it.
			if scenarios.RaceDetector && panics != (i%2 == 1) {
				sampled++
				continue
			}
			t.Run(name, func(t *testing.T) {
				parallelWithoutRace(t)
				lc := &lifecycle{panics: panics}
				s := tt.scenario(t, lc)
				s.Workload.Duration = scenarios.Duration(3 * time.Second)
				r, err := scenarios.Run(context.Background(), s, scenarios.Options{})
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if len(r.Checks) == 0 {
					t.Errorf("the run was not judged: %+v", r)
				}
				made, closed := lc.made.Load(), lc.closed.Load()
				if made == 0 || closed != made {
					t.Errorf("%d values made, %d closed; want every one closed once", made, closed)
				}
				joined := strings.Join(r.RecipeFaults, "\n")
				switch want := "'s " + tt.what + " ("; {
				case !panics && joined != "":
					t.Errorf("RecipeFaults = %q, want none", r.RecipeFaults)
				case panics && (!strings.Contains(joined, want) || !strings.Contains(joined, ") panicked: broken on purpose")):
					t.Errorf("RecipeFaults =\n%s\nwant a Close of a %s that panicked: broken on purpose", joined, tt.what)
				}
			})
		}
	}
	if sampled > 0 {
		t.Logf("race detector on: %d runs left out, one of each family's two kept; make test runs them all without it", sampled)
	}
}
