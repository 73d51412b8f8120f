package program

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/internal/recipe"
)

// Election is an election recipe called name whose every candidate and
// observer is a program run from argv speaking the protocol of
// docs/protocol.md. The Elector is an election.LeaderReader, which the
// workload's observers poll: with the feature "leader" the program answers
// who leads; without it Leader fails, naming the missing feature, and the
// observers see nothing. With the feature "lease" a leadership names its
// lease.
func Election(name string, argv ...string) election.Recipe {
	return ElectionWith(name, Config{Argv: argv})
}

// ElectionWith is Election with the program's settings.
func ElectionWith(name string, cfg Config) election.Recipe {
	return election.Recipe{
		Name:    name,
		Summary: fmt.Sprintf("an election in a process of its own per client: %q", cfg.Argv),
		Command: cfg.Argv,
		New: func(cli *clientv3.Client, prefix string, opts election.Options) (election.Elector, error) {
			e, err := newElector(cfg, cli, prefix, opts)
			if err != nil {
				return nil, err
			}
			return electorReader{e}, nil
		},
	}
}

// elector is one client's way into the election: its program.
type elector struct {
	*session
	mu        sync.Mutex                        // guards terms, observers, observing
	terms     map[string]*term                  // live leaderships by handle
	observers map[chan election.LeaderInfo]bool // open Observe channels
	observing bool                              // observe was sent
}

func newElector(cfg Config, cli *clientv3.Client, prefix string, opts election.Options) (*elector, error) {
	if prefix == "" {
		return nil, election.ErrBadPrefix
	}
	e := &elector{terms: make(map[string]*term), observers: make(map[chan election.LeaderInfo]bool)}
	s, err := begin(cfg, cli, request{Family: recipe.Election, Name: prefix, TTL: ttlSeconds(opts.TTL, election.DefaultTTL)}, e.event)
	if err != nil {
		return nil, err
	}
	e.session = s
	go func() { // a process gone ends every term it had
		<-s.dead
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, t := range e.terms {
			t.lose()
		}
		e.terms = nil
	}()
	return e, nil
}

// event takes the program's "done" and "leader" events.
func (e *elector) event(a answer) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch a.Event {
	case "done":
		if t := e.terms[a.Handle]; t != nil {
			t.lose()
		}
	case "leader":
		info := election.LeaderInfo{Key: a.Key, Value: a.Value, Term: a.Term, Rev: a.Rev}
		for ch := range e.observers {
			latest(ch, info)
		}
	}
}

// latest puts info in ch, a channel of one slot, in place of what a slow
// reader has not taken.
func latest(ch chan election.LeaderInfo, info election.LeaderInfo) {
	select {
	case <-ch:
	default:
	}
	ch <- info
}

// Campaign sends campaign and waits to lead. A campaign won after
// Campaign gave up is resigned at once.
func (e *elector) Campaign(ctx context.Context, value string) (election.Leadership, error) {
	if err := e.wait(ctx); err != nil {
		return nil, err
	}
	a, err := e.call(ctx, request{Op: "campaign", Value: value}, func(a answer) {
		if *a.OK && a.Handle != "" {
			go e.call(context.Background(), request{Op: "resign", Handle: a.Handle}, nil) //nolint:errcheck // a term nobody wanted
		}
	})
	if err != nil {
		return nil, err
	}
	if !*a.OK {
		return nil, opError("campaign", a, codeTimeout, context.DeadlineExceeded)
	}
	e.look(true)
	if a.Handle == "" {
		err := errors.New("answered campaign with no handle: a leader needs one to resign")
		e.fail(err)
		return nil, fmt.Errorf("process: %w", err)
	}
	t := &term{e: e, handle: a.Handle, key: a.Key, term: a.Term, value: value, lease: clientv3.LeaseID(a.Lease), done: make(chan struct{})}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.terms == nil {
		return nil, e.gone()
	}
	e.terms[t.handle] = t
	if t.lease != 0 {
		return leaserTerm{t}, nil
	}
	return t, nil
}

func (e *elector) leader(ctx context.Context) (election.LeaderInfo, error) {
	if err := e.wait(ctx); err != nil {
		return election.LeaderInfo{}, err
	}
	if !e.has("leader") {
		return election.LeaderInfo{}, fmt.Errorf("process %q: its init named no feature \"leader\", so it cannot say who leads", e.cfg.Argv)
	}
	a, err := e.call(ctx, request{Op: "leader"}, nil)
	if err != nil {
		return election.LeaderInfo{}, err
	}
	if !*a.OK {
		return election.LeaderInfo{}, opError("leader", a, codeNoLeader, election.ErrNoLeader)
	}
	return election.LeaderInfo{Key: a.Key, Value: a.Value, Term: a.Term, Rev: a.Rev}, nil
}

// electorReader is the Elector the recipe hands out: one that reads who
// leads and follows the election.
type electorReader struct{ *elector }

func (e electorReader) Leader(ctx context.Context) (election.LeaderInfo, error) { return e.leader(ctx) }

func (e electorReader) Observe(ctx context.Context) <-chan election.LeaderInfo { return e.observe(ctx) }

// pollEvery is how often Observe asks a program with no feature "observe"
// who leads.
const pollEvery = 100 * time.Millisecond

// observe follows the election until ctx ends or the program goes. With
// the feature "observe" the program is sent observe once, and its
// "leader" events go to every channel; without it, but with "leader",
// the program is asked who leads every pollEvery; with neither, the
// channel stays silent.
func (e *elector) observe(ctx context.Context) <-chan election.LeaderInfo {
	ch := make(chan election.LeaderInfo, 1)
	e.mu.Lock()
	e.observers[ch] = true
	e.mu.Unlock()
	go func() {
		defer func() {
			e.mu.Lock()
			delete(e.observers, ch)
			close(ch)
			e.mu.Unlock()
		}()
		if e.wait(ctx) != nil {
			return
		}
		if e.has("observe") && e.startObserving(ctx) == nil {
			select {
			case <-ctx.Done():
			case <-e.dead:
			}
			return
		}
		if !e.has("leader") {
			select {
			case <-ctx.Done():
			case <-e.dead:
			}
			return
		}
		t := time.NewTicker(pollEvery)
		defer t.Stop()
		var last election.LeaderInfo
		for {
			select {
			case <-ctx.Done():
				return
			case <-e.dead:
				return
			case <-t.C:
			}
			info, err := e.leader(ctx)
			if err == nil && info != last {
				last = info
				e.mu.Lock()
				latest(ch, info)
				e.mu.Unlock()
			}
		}
	}()
	return ch
}

// startObserving sends observe, once per program.
func (e *elector) startObserving(ctx context.Context) error {
	e.mu.Lock()
	if e.observing {
		e.mu.Unlock()
		return nil
	}
	e.observing = true
	e.mu.Unlock()
	a, err := e.call(ctx, request{Op: "observe"}, nil)
	if err == nil && !*a.OK {
		err = fmt.Errorf("process: observe: %s", errText(a))
	}
	if err != nil {
		e.mu.Lock()
		e.observing = false
		e.mu.Unlock()
	}
	return err
}

// term is one leadership, by its program's handle.
type term struct {
	e      *elector
	handle string
	key    string
	term   int64
	lease  clientv3.LeaseID
	once   sync.Once
	done   chan struct{}

	mu    sync.Mutex // guards value
	value string
}

func (t *term) Term() int64           { return t.term }
func (t *term) Key() string           { return t.key }
func (t *term) Done() <-chan struct{} { return t.done }
func (t *term) lose()                 { t.once.Do(func() { close(t.done) }) }

func (t *term) Value() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.value
}

// Proclaim sends proclaim.
func (t *term) Proclaim(ctx context.Context, value string) error {
	a, err := t.e.call(ctx, request{Op: "proclaim", Handle: t.handle, Value: value}, nil)
	if err != nil {
		return err
	}
	if !*a.OK {
		return opError("proclaim", a, codeNotLeader, election.ErrNotLeader)
	}
	t.mu.Lock()
	t.value = value
	t.mu.Unlock()
	return nil
}

// Resign sends resign.
func (t *term) Resign(ctx context.Context) error {
	defer func() {
		t.e.mu.Lock()
		delete(t.e.terms, t.handle)
		t.e.mu.Unlock()
		t.lose()
	}()
	a, err := t.e.call(ctx, request{Op: "resign", Handle: t.handle}, nil)
	if err != nil {
		if errors.Is(err, errGone) {
			return fmt.Errorf("%w: %w", election.ErrNotLeader, err)
		}
		return err
	}
	if !*a.OK {
		return opError("resign", a, codeNotLeader, election.ErrNotLeader)
	}
	return nil
}

// leaserTerm is a term whose program named its lease.
type leaserTerm struct{ *term }

func (t leaserTerm) Lease() clientv3.LeaseID { return t.lease }

// A program may declare its election's terms unnumbered in its init answer.
var _ election.Unfenced = (*elector)(nil)
