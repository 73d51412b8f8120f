package barrier

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// BROKEN (deliberately): a watch not pinned to the read. Wait reads the
// key and, finding the barrier up, watches the key for its delete — from
// now, with no start revision, where etcd's recipe watches from the
// read's revision + 1. A Release that lands between the read and the
// watch's creation is an event before the watch begins: the waiter never
// sees it and sleeps on until some later Release, or for ever if the
// barrier stays down. Hold and Release are etcd's. Shown by the scenario
// plain-barrier/unpinned-watch/slow-waiter.
func newUnpinnedWatch(cli *clientv3.Client, name string) (Barrier, error) {
	c, err := NewCheckedBarrier(cli, name)
	if err != nil {
		return nil, err
	}
	return &unpinnedWatch{CheckedBarrier: c.(*CheckedBarrier)}, nil
}

type unpinnedWatch struct {
	*CheckedBarrier
	mu sync.Mutex // serializes Waits, as CheckedBarrier's mutex does its calls
}

// Wait reads the key, then watches it from now.
func (u *unpinnedWatch) Wait(ctx context.Context) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	resp, err := u.cli.Get(ctx, u.key)
	if err != nil {
		return fmt.Errorf("barrier: %s: wait: %w", u.key, err)
	}
	if len(resp.Kvs) == 0 {
		return nil
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for wr := range u.cli.Watch(wctx, u.key) { // BROKEN: from now, not from resp.Header.Revision+1
		if err := wr.Err(); err != nil {
			return fmt.Errorf("barrier: %s: wait: %w", u.key, err)
		}
		for _, ev := range wr.Events {
			if ev.Type == mvccpb.DELETE {
				return nil
			}
		}
	}
	err = context.Cause(ctx)
	if err == nil {
		err = errors.New("the watch closed")
	}
	return fmt.Errorf("barrier: %s: wait: %w", u.key, err)
}
