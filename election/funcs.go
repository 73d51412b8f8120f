package election

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Participant is a library's campaign in one election whose wait for
// leadership takes no context: WaitForLeadership blocks until the
// candidate leads, returning a context that ends when the library says
// leadership is gone, or until Stop; Stop withdraws the candidate, or
// resigns the leader, and waits for the library to let go. vitess's
// topo.LeaderParticipation is one.
type Participant interface {
	WaitForLeadership() (context.Context, error)
	Stop()
}

// Funcs is an Elector made of functions, for a library whose campaign is a
// Participant: a recipe returns &Funcs{...} instead of declaring a type.
//
//	srv, err := etcd2topo.NewServer(addrs, root)
//	...
//	return &election.Funcs{NoFencing: "no revision exposed", Stop: srv.Close,
//		Join: func(value string) (election.Participant, error) { return srv.NewLeaderParticipation(name, value) }}, nil
//
// Campaign joins, then waits; when Campaign's context ends first it stops
// the participation and fails. The leadership is a Term whose Lost is the
// library's context's Done and whose Resign is Stop. Close stops every
// participation not stopped yet, then calls Stop: a library's client is
// closed only once no campaign uses it.
type Funcs struct {
	// Join starts a campaign with value, and returns at once: the waiting
	// is WaitForLeadership's (Close waits for a Join under way).
	Join func(value string) (Participant, error)
	// NoFencing says, in a phrase, why the library's terms carry no
	// number (Unfenced). "" means they do.
	NoFencing string
	// Stop ends the library's client; Close calls it once. nil means
	// there is nothing to end.
	Stop func()

	mu     sync.Mutex // guards stops and closed
	stops  []func()   // each participation's Stop, once
	closed bool
}

var (
	_ Elector  = (*Funcs)(nil)
	_ Unfenced = (*Funcs)(nil)
)

// Campaign joins the election with value and waits for leadership.
func (f *Funcs) Campaign(ctx context.Context, value string) (Leadership, error) {
	if f.Join == nil {
		return nil, errors.New("election: Funcs with no Join: the library's campaign call is missing")
	}
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil, ErrClosed
	}
	p, err := f.Join(value)
	if err != nil {
		f.mu.Unlock()
		return nil, fmt.Errorf("election: campaign: %w", err)
	}
	stop := sync.OnceFunc(p.Stop)
	f.stops = append(f.stops, stop)
	f.mu.Unlock()
	after := context.AfterFunc(ctx, stop)
	lctx, err := p.WaitForLeadership()
	switch {
	case !after():
		return nil, fmt.Errorf("election: campaign: %w", context.Cause(ctx))
	case err != nil:
		return nil, fmt.Errorf("election: campaign: %w", err)
	}
	return &Term{Campaigned: value, Lost: lctx.Done(), Stop: stop}, nil
}

func (f *Funcs) Unfenced() string { return f.NoFencing }

// Close stops every participation, then calls Stop, the first time.
func (f *Funcs) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	f.closed = true
	for _, stop := range f.stops {
		stop()
	}
	if f.Stop != nil {
		f.Stop()
	}
	return nil
}
