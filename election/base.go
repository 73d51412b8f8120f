package election

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/lease"
)

// base is what every recipe's Elector shares: its client, prefix and
// options, the leases of its campaigns, and its observers.
type base struct {
	cli    *clientv3.Client
	prefix string // as given
	pfx    string // prefix + "/": where candidate keys live
	opts   Options
	ord    order
	obs    observers

	mu      sync.Mutex // guards holders and closed
	holders map[holder]struct{}
	closed  bool
}

// newBase checks the arguments every constructor shares.
func newBase(cli *clientv3.Client, prefix string, opts Options, ord order) (*base, error) {
	if cli == nil {
		return nil, errors.New("election: nil client")
	}
	opts, err := opts.check(prefix)
	if err != nil {
		return nil, err
	}
	return &base{cli: cli, prefix: prefix, pfx: prefix + "/", opts: opts, ord: ord, holders: make(map[holder]struct{})}, nil
}

// hold starts a lease guard for a new campaign, or fails after Close.
func (b *base) hold(ctx context.Context) (*lease.Guard, error) {
	if err := b.checkOpen(); err != nil {
		return nil, err
	}
	g, err := grant(ctx, b.cli, b.prefix, b.opts.TTL)
	if err != nil {
		return nil, err
	}
	if err := b.track(g); err != nil {
		g.Close(ctx)
		return nil, err
	}
	return g, nil
}

// grant grants a campaign's lease on prefix and keeps it alive. A TTL
// the cluster would raise to its own minimum is an error wrapping both
// ErrBadTTL and lease.ErrBadTTL.
func grant(ctx context.Context, cli *clientv3.Client, prefix string, ttl time.Duration) (*lease.Guard, error) {
	g, err := lease.Grant(ctx, cli, ttl)
	switch {
	case errors.Is(err, lease.ErrBadTTL):
		return nil, fmt.Errorf("%w on %s: %w", ErrBadTTL, prefix, err)
	case err != nil:
		return nil, fmt.Errorf("election: campaign on %s: %w", prefix, err)
	}
	return g, nil
}

// track remembers h so that Close releases it; it fails after Close.
func (b *base) track(h holder) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return ErrClosed
	}
	b.holders[h] = struct{}{}
	return nil
}

// untrack forgets a holder that has been closed.
func (b *base) untrack(h holder) {
	b.mu.Lock()
	delete(b.holders, h)
	b.mu.Unlock()
}

// drop closes and forgets h after a failed campaign. The caller's ctx has
// often ended — a candidate that gave up is why the campaign failed — and a
// close under it would fail at once and leave the candidate's key to live
// out its lease, in the way of every other candidate. So the close runs on
// a context of its own, kept from ctx's values and bounded by dropTimeout.
func (b *base) drop(ctx context.Context, h holder) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), dropTimeout)
	defer cancel()
	h.Close(cctx)
	b.untrack(h)
}

// dropTimeout bounds the close of a failed campaign's lease: long enough
// for a revoke through a leader change, short enough not to hold the
// caller long when the cluster cannot answer (the lease then expires).
const dropTimeout = 2 * time.Second

func (b *base) checkOpen() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return ErrClosed
	}
	return nil
}

// lead wraps a won campaign.
func (b *base) lead(key string, term int64, value string, h holder) *leadership {
	return &leadership{cli: b.cli, key: key, term: term, h: h, value: value, end: b.untrack}
}

func (b *base) Leader(ctx context.Context) (LeaderInfo, error) {
	if err := b.checkOpen(); err != nil {
		return LeaderInfo{}, err
	}
	return leader(ctx, b.cli, b.pfx, b.ord)
}

func (b *base) Observe(ctx context.Context) <-chan LeaderInfo {
	out := make(chan LeaderInfo)
	b.obs.start(ctx, out, watchLeader(b.cli, b.pfx, b.ord))
	return out
}

// Close revokes the lease of every campaign still held, ends the observers
// and waits for every goroutine.
func (b *base) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	held := b.holders
	b.holders = nil
	b.mu.Unlock()
	b.obs.close()
	var errs []error
	for h := range held {
		if err := h.Close(context.Background()); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("election: close elector on %s: %w", b.prefix, err)
	}
	return nil
}

// Every recipe built on base reads and follows the leader.
var (
	_ LeaderReader = (*base)(nil)
	_ Observer     = (*base)(nil)
)

// campaignQueued is the Campaign of a recipe that queues candidates by their
// keys: it creates the candidate's key on a lease of its own, then waits,
// guarded by the lease, until wait returns nil — the key leads — and takes
// the term. how says in errors which way the recipe waits.
func (b *base) campaignQueued(ctx context.Context, value, how string, wait func(ctx context.Context, key string, term int64) error) (Leadership, error) {
	g, err := b.hold(ctx)
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%s%x", b.pfx, int64(g.ID()))
	resp, err := b.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, value, clientv3.WithLease(g.ID()))).
		Commit()
	if err != nil {
		b.drop(ctx, g)
		return nil, fmt.Errorf("election: create candidate key %s: %w", key, err)
	}
	term := resp.Header.Revision
	if err := waitGuarded(ctx, g, func(ctx context.Context) error { return wait(ctx, key, term) }); err != nil {
		b.drop(ctx, g)
		return nil, fmt.Errorf("election: campaign on %s%s: %w", b.prefix, how, err)
	}
	return b.lead(key, term, value, g), nil
}
