package program

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
)

// A program may take seconds to load its libraries on a loaded machine
// (node's require('etcd3') costs half a second of CPU alone). Started
// inside a run, that time would pass on the run's clock while the faults
// fire: the first acquires would give up, and a checker would blame the
// recipe for a slow start. Prestart starts every client's program before
// the run and waits until each has answered its first line, a ping — the
// program saying it is ready. The run's clock and its faults start after
// that. The recipe's constructor then takes the started program (by the
// endpoints of the etcd client it is handed, which are the client's own
// and stay the same when it restarts) and sends it init, a matter of
// milliseconds. Each program taken is replaced by a spare started at
// once, so that a client restarted after a crash finds one ready too.

// DefaultReadyLimit is how long Prestart waits for a program to say it is
// ready when Config.Limit is 0.
const DefaultReadyLimit = 60 * time.Second

// The ready programs no constructor has taken yet travel with the run's
// cluster: Prestart attaches its Started to the cluster its clients were
// made by (cluster.Cluster.Attach), and a constructor handed one of those
// clients finds it there (cluster.OwnerOf). A client no cluster made, or
// one whose cluster has no programs started, starts its program cold.

// startedKey keys a cluster's Started among what it keeps.
type startedKey struct{}

// warmProc is a ready program and the Started that owns it.
type warmProc struct {
	p  *prog
	st *Started
}

// takeWarm returns the ready program Prestart started for cli's client,
// if it runs cfg's program and is still up, takes it from the pool, and has its
// Started start a spare in its place.
func takeWarm(cfg Config, cli *clientv3.Client) (*prog, bool) {
	c, name, ok := cluster.OwnerOf(cli)
	if !ok {
		return nil, false
	}
	st, _ := c.Attached(startedKey{}).(*Started)
	if st == nil {
		return nil, false
	}
	st.mu.Lock()
	w := st.ready[name]
	if w == nil || !sameProgram(w.p.cfg, cfg) || w.p.gone() != nil {
		st.mu.Unlock()
		return nil, false
	}
	delete(st.ready, name)
	w.p.taken = true
	st.mu.Unlock()
	st.spare(name)
	return w.p, true
}

// sameProgram reports whether a and b start the same program the same way.
func sameProgram(a, b Config) bool {
	return slices.Equal(a.Argv, b.Argv) && a.Dir == b.Dir && slices.Equal(a.Env, b.Env)
}

// Started is the programs Prestart started; Close ends those no
// constructor took.
type Started struct {
	cfg    Config
	limit  time.Duration
	ctx    context.Context // ends with Close: a spare still starting gives up
	cancel context.CancelFunc
	spares sync.WaitGroup // spares starting

	detach func() // takes st from its cluster's keeping

	mu     sync.Mutex // guards progs, ready and closed
	progs  map[*prog]string
	ready  map[string]*warmProc // by client name: started, ready, not yet taken
	closed bool
}

// Prestart starts cfg's program once for each client of clis (by name)
// and waits until every one has answered its first line, a ping: it is
// ready. A program that exits, breaks the protocol or is not ready within
// the ready limit (Config.Limit, 0 meaning DefaultReadyLimit) is an error
// that names the client, the program, why, and the end of its stderr;
// every program started is then ended. A recipe of cfg's program built
// afterwards for one of clis's clients takes its started program.
func Prestart(ctx context.Context, cfg Config, clis map[string]*clientv3.Client) (*Started, error) {
	limit := cfg.Limit
	if limit == 0 {
		limit = DefaultReadyLimit
	}
	st := &Started{cfg: cfg, limit: limit, progs: make(map[*prog]string), ready: make(map[string]*warmProc), detach: func() {}}
	st.ctx, st.cancel = context.WithCancel(context.Background())
	names := make([]string, 0, len(clis))
	for name := range clis {
		names = append(names, name)
	}
	sort.Strings(names)
	errs := make([]error, len(names))
	ready := make([]*prog, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			ready[i], errs[i] = st.startOne(ctx, name)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("client %s: %w", name, errs[i])
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		st.Close()
		return nil, fmt.Errorf("process: %w", err)
	}
	st.mu.Lock()
	for i, name := range names {
		st.ready[name] = &warmProc{p: ready[i], st: st}
	}
	st.mu.Unlock()
	for _, name := range names {
		c, _, ok := cluster.OwnerOf(clis[name])
		if !ok {
			continue // a client no cluster made starts its program cold
		}
		if c.Attach(startedKey{}, st) != st {
			st.Close()
			return nil, errors.New("program: the cluster has programs started for another run already")
		}
		st.detach = func() { c.Detach(startedKey{}, st) }
		break
	}
	return st, nil
}

// startOne starts a program for the client called name and waits until
// it is ready.
func (st *Started) startOne(ctx context.Context, name string) (*prog, error) {
	p, err := start(st.cfg, name, nil)
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		p.close()
		return nil, errors.New("process: closed")
	}
	st.progs[p] = name
	st.mu.Unlock()
	rctx, cancel := context.WithTimeout(ctx, st.limit)
	defer cancel()
	t0 := time.Now()
	if _, err := p.call(rctx, request{Op: "ping"}, nil); err != nil {
		why := err.Error()
		if errors.Is(err, context.DeadlineExceeded) {
			why = fmt.Sprintf("did not answer its first line, a ping, within %v: it never said it was ready", st.limit)
		}
		why += p.said()
		return nil, fmt.Errorf("program %q is not ready after %v: %s", st.cfg.Argv, time.Since(t0).Round(time.Millisecond), why)
	}
	return p, nil
}

// spare starts a program in the background for the client called name,
// and puts it among the ready ones once it is, unless st is closed by then.
func (st *Started) spare(name string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return
	}
	st.spares.Go(func() {
		p, err := st.startOne(st.ctx, name)
		if err != nil {
			return // a spare that fails leaves the next restart a cold start
		}
		st.mu.Lock()
		defer st.mu.Unlock()
		if !st.closed && st.ready[name] == nil {
			st.ready[name] = &warmProc{p: p, st: st}
		}
	})
}

// Close ends every program of st that no constructor took, and waits for
// them. It is idempotent, and a nil *Started has nothing to close.
func (st *Started) Close() {
	if st == nil {
		return
	}
	st.mu.Lock()
	st.closed = true
	st.mu.Unlock()
	st.cancel()
	st.spares.Wait()
	st.detach()
	var left []*prog
	st.mu.Lock()
	for p := range st.progs {
		if !p.taken {
			left = append(left, p)
		}
	}
	st.progs, st.ready = nil, nil
	st.mu.Unlock()
	for _, p := range left {
		p.close()
	}
}
