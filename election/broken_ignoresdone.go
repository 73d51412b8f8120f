package election

import (
	"context"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// BROKEN (deliberately): an elected leader that
// ignores its session's Done channel. Leadership in etcd is a lease: it
// ends when the lease expires, whether or not the leader hears about it.
// The documents this project grew from tell a leader to stop acting when
// its session is done (concurrency.Session.Done; here Leadership.Done).
// This recipe campaigns exactly as NewRechecked does, but its
// Leadership.Done closes only on Resign, so a leader that was paused or cut
// off past its TTL wakes up still believing it leads while another
// candidate has been elected: two leaders. Shown by the scenario
// election/ignoresdone/pause-leader.
//
// newIgnoresDone returns an Elector like NewRechecked whose Leadership.Done
// closes only when the leader resigns.
func newIgnoresDone(cli *clientv3.Client, prefix string, opts Options) (Elector, error) {
	b, err := newBase(cli, prefix, opts, byCreate)
	if err != nil {
		return nil, err
	}
	return ignoresDone{&rechecked{base: b}}, nil
}

// ignoresDone is rechecked, Leader and Observe included, but for Done.
type ignoresDone struct{ *rechecked }

func (e ignoresDone) Campaign(ctx context.Context, value string) (Leadership, error) {
	l, err := e.rechecked.Campaign(ctx, value)
	if err != nil {
		return nil, err
	}
	return &deafLeadership{Leadership: l, resigned: make(chan struct{})}, nil
}

// deafLeadership hears of the end of its term only from its own Resign.
type deafLeadership struct {
	Leadership
	once     sync.Once
	resigned chan struct{} // closed by Resign
}

func (l *deafLeadership) Done() <-chan struct{} { return l.resigned }

func (l *deafLeadership) Resign(ctx context.Context) error {
	defer l.once.Do(func() { close(l.resigned) })
	return l.Leadership.Resign(ctx)
}
