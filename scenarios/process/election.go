package process

import (
	"context"
	"errors"
	"fmt"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/election"
)

// Election is an election recipe called name whose every candidate and
// observer is a process of argv speaking the protocol of
// docs/protocol.md. The program's init answer says which optional ops it
// offers: "leader" makes the Elector an election.LeaderReader, "observe"
// an election.Observer, "lease" gives leaderships their lease.
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
			switch leader, observe := e.has("leader"), e.has("observe"); {
			case leader && observe:
				return electorReaderObserver{e}, nil
			case leader:
				return electorReader{e}, nil
			case observe:
				return electorObserver{e}, nil
			}
			return e, nil
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
	ttl := opts.TTL
	if ttl == 0 {
		ttl = election.DefaultTTL
	}
	e := &elector{terms: make(map[string]*term), observers: make(map[chan election.LeaderInfo]bool)}
	s, err := begin(cfg, cli, "election", prefix, ttl, e.event)
	if err != nil {
		return nil, err
	}
	e.session = s
	go func() { // a process gone ends every term and observation it had
		<-s.dead
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, t := range e.terms {
			t.lose()
		}
		e.terms = nil
		for ch := range e.observers {
			close(ch)
		}
		e.observers = nil
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
			select { // a slow reader sees the latest change
			case ch <- info:
			default:
				select {
				case <-ch:
				default:
				}
				ch <- info
			}
		}
	}
}

// Campaign sends campaign and waits to lead. A campaign won after
// Campaign gave up is resigned at once.
func (e *elector) Campaign(ctx context.Context, value string) (election.Leadership, error) {
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

// Close ends the program: its leaderships end with its leases.
func (e *elector) Close() error {
	e.close()
	return nil
}

func (e *elector) leader(ctx context.Context) (election.LeaderInfo, error) {
	a, err := e.call(ctx, request{Op: "leader"}, nil)
	if err != nil {
		return election.LeaderInfo{}, err
	}
	if !*a.OK {
		return election.LeaderInfo{}, opError("leader", a, codeNoLeader, election.ErrNoLeader)
	}
	return election.LeaderInfo{Key: a.Key, Value: a.Value, Term: a.Term, Rev: a.Rev}, nil
}

// observe sends observe once per process; every Observe channel gets the
// program's leader events until ctx ends or the process goes.
func (e *elector) observe(ctx context.Context) <-chan election.LeaderInfo {
	ch := make(chan election.LeaderInfo, 1)
	e.mu.Lock()
	if e.observers == nil {
		e.mu.Unlock()
		close(ch)
		return ch
	}
	e.observers[ch] = true
	first := !e.observing
	e.observing = true
	e.mu.Unlock()
	if first {
		octx, cancel := context.WithTimeout(ctx, e.cfg.limit())
		a, err := e.call(octx, request{Op: "observe"}, nil)
		cancel()
		if err != nil || !*a.OK {
			e.mu.Lock()
			e.observing = false
			e.mu.Unlock()
		}
	}
	go func() {
		select {
		case <-ctx.Done():
		case <-e.dead:
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.observers[ch] {
			delete(e.observers, ch)
			close(ch)
		}
	}()
	return ch
}

// The Elector's optional interfaces, as the program's features offer them.
type (
	electorReader         struct{ *elector }
	electorObserver       struct{ *elector }
	electorReaderObserver struct{ *elector }
)

func (e electorReader) Leader(ctx context.Context) (election.LeaderInfo, error) { return e.leader(ctx) }
func (e electorObserver) Observe(ctx context.Context) <-chan election.LeaderInfo {
	return e.observe(ctx)
}
func (e electorReaderObserver) Leader(ctx context.Context) (election.LeaderInfo, error) {
	return e.leader(ctx)
}
func (e electorReaderObserver) Observe(ctx context.Context) <-chan election.LeaderInfo {
	return e.observe(ctx)
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
