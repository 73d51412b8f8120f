package election

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// resignRetrier is concurrency.Election used the way the caller of etcd
// #22123 uses it: a long-lived process with one session for its life,
// made again only once its lease is lost, a new Election on it for each
// campaign, and a Resign that is tried again until it returns nil. Each
// attempt is given a third of the TTL, so that a retry still falls within
// the lease's life; between attempts the process waits resignPause. The
// session outlives each term: resigning deletes the leader key, nothing
// revokes the lease, and the next campaign runs on the same session, as
// such a process's would.
//
// What one attempt runs is the recipe's: upstream's Resign (resign-retry,
// broken: once an attempt fails, the Election has forgotten its key and
// every later one returns nil at once), or Resign's own transaction on the
// key and revision the term won, which a failed attempt leaves as they
// were (resign-retry-fixed, the fix proposed upstream).
type resignRetrier struct {
	*base
	// attempt runs one try at resigning el's term, which won key at rev.
	attempt func(ctx context.Context, cli *clientv3.Client, el *concurrency.Election, key string, rev int64) error

	mu sync.Mutex // guards s and h
	s  *concurrency.Session
	h  sessionHolder
}

// resignPause is how long the process waits between attempts to resign.
const resignPause = 50 * time.Millisecond

func newResignRetrier(cli *clientv3.Client, prefix string, opts Options,
	attempt func(context.Context, *clientv3.Client, *concurrency.Election, string, int64) error) (*resignRetrier, error) {
	b, err := newBase(cli, prefix, opts, byCreate)
	if err != nil {
		return nil, err
	}
	return &resignRetrier{base: b, attempt: attempt}, nil
}

// session returns the process's session, made anew if there is none or
// its lease is lost. The session is tracked: Close revokes its lease.
func (e *resignRetrier) session(ctx context.Context) (*concurrency.Session, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.s != nil {
		select {
		case <-e.s.Done():
			e.drop(ctx, e.h)
			e.s = nil
		default:
			return e.s, nil
		}
	}
	s, h, _, err := e.userSession(ctx)
	if err != nil {
		return nil, err
	}
	e.s, e.h = s, h
	return s, nil
}

// Campaign campaigns with a new Election on the process's session.
func (e *resignRetrier) Campaign(ctx context.Context, value string) (Leadership, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	s, err := e.session(ctx)
	if err != nil {
		return nil, err
	}
	el := concurrency.NewElection(s, e.prefix)
	if err := el.Campaign(ctx, value); err != nil {
		return nil, fmt.Errorf("election: campaign on %s with lease %x: %w", e.prefix, int64(s.Lease()), err)
	}
	l := e.lead(el.Key(), el.Rev(), value, termOf{s})
	l.office = retriedOffice{el: el, attempt: e.attempt, each: e.opts.TTL / 3}
	return l, nil
}

// termOf is the process's session as the holder of one term: its Done is
// the session's, and closing the term leaves the session to the process.
type termOf struct{ s *concurrency.Session }

func (t termOf) Done() <-chan struct{}       { return t.s.Done() }
func (t termOf) ID() clientv3.LeaseID        { return t.s.Lease() }
func (t termOf) Close(context.Context) error { return nil }

// retriedOffice proclaims through the Election that won the term, and
// resigns it by attempts until one returns nil or ctx ends.
type retriedOffice struct {
	el      *concurrency.Election
	attempt func(ctx context.Context, cli *clientv3.Client, el *concurrency.Election, key string, rev int64) error
	each    time.Duration // each attempt's deadline
}

func (o retriedOffice) proclaim(ctx context.Context, l *leadership, value string) error {
	return electionOffice{o.el}.proclaim(ctx, l, value)
}

func (o retriedOffice) resign(ctx context.Context, l *leadership) error {
	var errs []error
	for {
		actx, cancel := context.WithTimeout(ctx, o.each)
		err := o.attempt(actx, l.cli, o.el, l.key, l.term)
		cancel()
		if err == nil {
			return nil
		}
		errs = append(errs, err)
		t := time.NewTimer(resignPause)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("election: resign %s (term %d) after %d attempts: %w", l.key, l.term, len(errs), errors.Join(errs...))
		case <-t.C:
		}
	}
}
