package election

import (
	"context"
	"fmt"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Term is a Leadership made of values and functions, for a library whose
// leadership handle has methods of its own: a recipe returns &Term{...}
// instead of declaring a type. It has no term number (Term is 0: declare
// Unfenced on the Elector) and no key.
//
//	lctx, err := participation.WaitForLeadership()
//	...
//	return &election.Term{Campaigned: value, Lost: lctx.Done(), Stop: participation.Stop}, nil
type Term struct {
	// Campaigned is the value the candidate campaigned with; Value
	// reports it, or the last value Proclaim announced.
	Campaigned string
	// Lost is closed when the library says leadership is gone (Done). nil
	// means it never says.
	Lost <-chan struct{}
	// Stop ends the term, as Resign does; Resign calls it once. nil means
	// the library cannot resign.
	Stop func()
	// Announce changes the leader's value, as Proclaim does. nil means the
	// library has no proclaim: Proclaim returns an error wrapping
	// ErrNotLeader that says so.
	Announce func(ctx context.Context, value string) error
	// LeaseID is the lease the leader's key is on (Lease), 0 if the
	// library does not say: then no fault can revoke it.
	LeaseID clientv3.LeaseID

	once sync.Once
	mu   sync.Mutex // guards value and announced
	// value is the last value Proclaim announced, if announced.
	value     string
	announced bool
}

func (t *Term) Term() int64           { return 0 }
func (t *Term) Key() string           { return "" }
func (t *Term) Done() <-chan struct{} { return t.Lost }

// Lease returns LeaseID (election.Leaser).
func (t *Term) Lease() clientv3.LeaseID { return t.LeaseID }

var _ Leaser = (*Term)(nil)

func (t *Term) Value() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.announced {
		return t.value
	}
	return t.Campaigned
}
func (t *Term) Proclaim(ctx context.Context, value string) error {
	if t.Announce == nil {
		return fmt.Errorf("election: the library has no proclaim: %w", ErrNotLeader)
	}
	if err := t.Announce(ctx, value); err != nil {
		return err
	}
	t.mu.Lock()
	t.value, t.announced = value, true
	t.mu.Unlock()
	return nil
}

// Resign calls Stop the first time; after that it returns an error
// wrapping ErrNotLeader.
func (t *Term) Resign(context.Context) error {
	resigned := true
	t.once.Do(func() {
		resigned = false
		if t.Stop != nil {
			t.Stop()
		}
	})
	if resigned {
		return fmt.Errorf("election: resigned already: %w", ErrNotLeader)
	}
	return nil
}
