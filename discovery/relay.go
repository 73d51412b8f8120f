package discovery

import (
	"context"
	"fmt"
)

// Relay returns a Follow for a library that sends what it lists on a
// channel — go-kit's sd.Event, a watcher's updates. Each event set turns
// into the service's addresses, handed to Feed.Set, or into an error
// that leaves the last set unsure, handed to Feed.Fail. When the Follow's
// context ends, Relay calls stop, which must make the library stop
// sending, and reads on from events meanwhile, so that a library blocked
// in a send (or holding a lock while it sends) can stop; then the Follow
// returns. If events closes first, the Follow returns an error saying the
// library stopped. Relay never closes events.
//
//	events := make(chan sd.Event, 1)
//	inst.Register(events)
//	return discovery.Adapt(service, discovery.Relay(events,
//		func(ev sd.Event) ([]string, error) { return discovery.Addrs(ev.Instances), ev.Err },
//		func() { inst.Deregister(events); inst.Stop() }))
func Relay[E any](events <-chan E, set func(E) ([]string, error), stop func()) Follow {
	return func(ctx context.Context, feed Feed) error {
		if events == nil || set == nil {
			return fmt.Errorf("discovery: Relay needs a channel and a set function")
		}
		defer drainWhile(events, stop)
		for {
			select {
			case <-ctx.Done():
				return nil
			case e, ok := <-events:
				if !ok {
					return fmt.Errorf("discovery: the library closed its channel of events: it follows the service no more")
				}
				addrs, err := set(e)
				if err != nil {
					feed.Fail(err)
					continue
				}
				feed.Set(addrs...)
			}
		}
	}
}

// drainWhile calls stop, if set, while it reads and drops what events
// carries.
func drainWhile[E any](events <-chan E, stop func()) {
	if stop == nil {
		return
	}
	quit := make(chan struct{})
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for {
			select {
			case _, ok := <-events:
				if !ok {
					events = nil // closed: wait for quit alone
				}
			case <-quit:
				return
			}
		}
	}()
	stop()
	close(quit)
	<-drained
}

// Addrs returns the address of each value that is a record (AddrOf), in
// order, leaving out the values that are not: what a library lists as the
// values of a service's keys, as instances.
func Addrs(values []string) []string {
	addrs := make([]string, 0, len(values))
	for _, v := range values {
		if addr, ok := AddrOf(v); ok {
			addrs = append(addrs, addr)
		}
	}
	return addrs
}
