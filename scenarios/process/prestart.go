package process

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// A program may take seconds to load its libraries on a loaded machine
// (node's require('etcd3') costs half a second of CPU alone). Started
// inside a run, that time would pass on the run's clock while the faults
// fire: the first acquires would give up, and a checker would blame the
// recipe for a slow start. Prestart starts every client's program before
// the run and waits until each has answered its first line, a ping — the
// program saying it is ready. The run's clock and its faults start after
// that. The recipe's constructor then takes the started program (by the
// etcd client it is handed, the one Prestart was given for that client)
// and sends it init, which is a matter of milliseconds.

// DefaultReadyLimit is how long Prestart waits for a program to say it is
// ready when Config.Limit is 0.
const DefaultReadyLimit = 60 * time.Second

// warm holds the programs Prestart started that no constructor has taken
// yet, by the etcd client of the client each was started for.
var warm struct {
	mu sync.Mutex // guards m
	m  map[*clientv3.Client]*proc
}

// takeWarm returns the program Prestart started for cli, if it runs argv
// and is still up, and takes it from the pool.
func takeWarm(argv []string, cli *clientv3.Client) (*proc, bool) {
	warm.mu.Lock()
	defer warm.mu.Unlock()
	p := warm.m[cli]
	if p == nil || !slices.Equal(p.cfg.Argv, argv) || p.gone() != nil {
		return nil, false
	}
	delete(warm.m, cli)
	p.taken = true
	return p, true
}

// Started is the programs Prestart started; Close ends those no
// constructor took.
type Started struct {
	procs map[*clientv3.Client]*proc
}

// Prestart starts cfg's program once for each client of clis (by name)
// and waits until every one has answered its first line, a ping: it is
// ready. A program that exits, breaks the protocol or is not ready within
// the ready limit (Config.Limit, 0 meaning DefaultReadyLimit) is an
// error that names the client, the program, why, and the end of its
// stderr; every program started is then ended. A recipe of cfg's program
// built afterwards for one of clis's clients takes its started program.
func Prestart(ctx context.Context, cfg Config, clis map[string]*clientv3.Client) (*Started, error) {
	limit := cfg.Limit
	if limit == 0 {
		limit = DefaultReadyLimit
	}
	st := &Started{procs: make(map[*clientv3.Client]*proc)}
	names := make([]string, 0, len(clis))
	for name := range clis {
		names = append(names, name)
	}
	sort.Strings(names)
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		cli := clis[name]
		p, err := start(cfg, nil)
		if err != nil {
			errs[i] = fmt.Errorf("client %s: %w", name, err)
			continue
		}
		st.procs[cli] = p
		watchClient(p, cli)
		wg.Go(func() {
			rctx, cancel := context.WithTimeout(ctx, limit)
			defer cancel()
			t0 := time.Now()
			if _, err := p.call(rctx, request{Op: "ping"}, nil); err != nil {
				why := err.Error()
				if errors.Is(err, context.DeadlineExceeded) {
					why = fmt.Sprintf("did not answer its first line, a ping, within %v: it never said it was ready", limit)
				}
				if t := p.tail.String(); t != "" {
					why += "; its stderr ended: " + t
				}
				errs[i] = fmt.Errorf("client %s: program %q is not ready after %v: %s", name, cfg.Argv, time.Since(t0).Round(time.Millisecond), why)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		st.Close()
		return nil, fmt.Errorf("process: %w", err)
	}
	warm.mu.Lock()
	if warm.m == nil {
		warm.m = make(map[*clientv3.Client]*proc)
	}
	for cli, p := range st.procs {
		warm.m[cli] = p
	}
	warm.mu.Unlock()
	return st, nil
}

// Close ends every program of st that no constructor took, and waits for
// them. It is idempotent, and a nil *Started has nothing to close.
func (st *Started) Close() {
	if st == nil {
		return
	}
	var left []*proc
	warm.mu.Lock()
	for cli, p := range st.procs {
		if warm.m[cli] == p {
			delete(warm.m, cli)
		}
		if !p.taken {
			left = append(left, p)
		}
	}
	st.procs = nil
	warm.mu.Unlock()
	for _, p := range left {
		p.close()
	}
}
