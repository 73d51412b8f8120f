package process

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/lock"
)

// Conform runs cfg's program through the ops of family ("lock" or
// "election") in the order a workload sends them, on the etcd client
// cli's endpoints, and returns every way its answers differ from the
// shapes docs/protocol.md names — the check to run on an adapter before a
// campaign. Each step is reported on w as it passes or fails; every line
// sent and read goes to cfg.Trace.
func Conform(ctx context.Context, family string, cfg Config, cli *clientv3.Client, w io.Writer) error {
	var errs []error
	step := func(name string, err error) bool {
		if err != nil {
			fmt.Fprintf(w, "FAIL %s: %v\n", name, err)
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			return false
		}
		fmt.Fprintf(w, "ok   %s\n", name)
		return true
	}
	switch family {
	case "lock":
		conformLock(ctx, cfg, cli, step)
	case "election":
		conformElection(ctx, cfg, cli, step)
	default:
		return fmt.Errorf("process: conform: family %q: want lock or election", family)
	}
	return errors.Join(errs...)
}

// conformTTL is the TTL the conformance check asks for.
const conformTTL = 2 * time.Second

func conformLock(ctx context.Context, cfg Config, cli *clientv3.Client, step func(string, error) bool) {
	cs := &contexts{ctx: ctx}
	defer cs.close()
	l, err := newLocker(cfg, cli, "etcdsim-conform", lock.Options{TTL: conformTTL})
	if err == nil {
		defer l.Close()
		err = l.wait(cs.within(cfg.limit()))
	}
	if !step("init answers ok with recipe and features", err) {
		return
	}
	step("init names the recipe", nonEmpty("recipe", l.recipe))
	hs, err := l.Lock(cs.within(5 * time.Second))
	if !step("acquire answers ok with handle, key and token", err) {
		return
	}
	h := heldOf(hs)
	step("acquire's key is not empty", nonEmpty("key", h.key))
	step("acquire's token is 0 (none) or positive", check(h.token >= 0, "token %d", h.token))
	if l.has("lease") {
		step("acquire's lease, as the feature \"lease\" promises, is a decimal string of a lease", check(h.lease != 0, "lease is 0 or missing"))
	}
	if l.has("put") {
		rev, err := h.put(cs.within(5*time.Second), "etcdsim/conform-data", "v")
		step("put answers ok with the write's revision", firstErr(err, check(rev > 0, "revision %d", rev)))
	}
	if l.has("owned") {
		owned, err := h.owned(cs.within(5 * time.Second))
		step("owned answers ok, owned: true, while held", firstErr(err, check(owned, "owned: false while held")))
	}
	_, err = l.Lock(cs.within(500 * time.Millisecond))
	step("a second acquire while held gives up by its timeout_ms (error \"timeout\")", check(errors.Is(err, context.DeadlineExceeded), "got %v", err))
	step("release answers ok", hs.Unlock(cs.within(5*time.Second)))
	err = hs.Unlock(cs.within(5 * time.Second))
	step("a second release answers error \"not_held\"", check(errors.Is(err, lock.ErrNotHeld), "got %v", err))
	h2, err := l.Lock(cs.within(5 * time.Second))
	if step("acquire after release answers ok", err) {
		step("the next holder's token is greater, or both are 0", check(h2.Token() > h.token || h.token == 0 && h2.Token() == 0, "token %d after %d", h2.Token(), h.token))
		step("release answers ok", h2.Unlock(cs.within(5*time.Second)))
	}
	step("the program exits when its stdin closes", exits(l.proc))
}

func conformElection(ctx context.Context, cfg Config, cli *clientv3.Client, step func(string, error) bool) {
	cs := &contexts{ctx: ctx}
	defer cs.close()
	e, err := newElector(cfg, cli, "etcdsim-conform", election.Options{TTL: conformTTL})
	if err == nil {
		defer e.Close()
		err = e.wait(cs.within(cfg.limit()))
	}
	if !step("init answers ok with recipe and features", err) {
		return
	}
	step("init names the recipe", nonEmpty("recipe", e.recipe))
	l, err := e.Campaign(cs.within(5*time.Second), "v1")
	if !step("campaign answers ok with handle, key and term", err) {
		return
	}
	step("campaign's key is not empty", nonEmpty("key", l.Key()))
	step("campaign's term is positive", check(l.Term() > 0, "term %d", l.Term()))
	if e.has("leader") {
		info, err := e.leader(cs.within(5 * time.Second))
		step("leader answers the campaign's key, value and term", firstErr(err,
			check(info.Key == l.Key() && info.Value == "v1" && info.Term == l.Term(), "got %+v, want key %s, value v1, term %d", info, l.Key(), l.Term())))
	}
	err = l.Proclaim(cs.within(5*time.Second), "v2")
	step("proclaim answers ok", err)
	if err == nil && e.has("leader") {
		info, err := e.leader(cs.within(5 * time.Second))
		step("leader answers the proclaimed value", firstErr(err, check(info.Value == "v2", "value %q, want v2", info.Value)))
	}
	step("resign answers ok", l.Resign(cs.within(5*time.Second)))
	err = l.Resign(cs.within(5 * time.Second))
	step("a second resign answers error \"not_leader\"", check(errors.Is(err, election.ErrNotLeader), "got %v", err))
	if e.has("leader") {
		_, err := e.leader(cs.within(5 * time.Second))
		step("leader with nobody leading answers error \"no_leader\"", check(errors.Is(err, election.ErrNoLeader), "got %v", err))
	}
	l2, err := e.Campaign(cs.within(5*time.Second), "v3")
	if step("campaign after resign answers ok", err) {
		step("the next term is greater", check(l2.Term() > l.Term(), "term %d after %d", l2.Term(), l.Term()))
		step("resign answers ok", l2.Resign(cs.within(5*time.Second)))
	}
	step("the program exits when its stdin closes", exits(e.proc))
}

// heldOf returns the holder behind one of Lock's values.
func heldOf(h lock.Held) *held {
	switch h := h.(type) {
	case *held:
		return h
	case heldWriter:
		return h.held
	case heldChecker:
		return h.held
	case heldWriterChecker:
		return h.held
	}
	panic(fmt.Sprintf("process: a holder of type %T", h))
}

// exits closes p's stdin and reports whether it exited within the grace.
func exits(p *proc) error {
	p.mu.Lock()
	p.closing = true
	p.mu.Unlock()
	p.wmu.Lock()
	p.stdin.Close()
	p.wmu.Unlock()
	t := time.NewTimer(p.cfg.grace())
	defer t.Stop()
	select {
	case <-p.exits:
		return nil
	case <-t.C:
		return fmt.Errorf("still running %v after its stdin closed; it is killed", p.cfg.grace())
	}
}

// contexts hands out contexts with deadlines, cancelled together.
type contexts struct {
	ctx     context.Context
	cancels []context.CancelFunc
}

// within is a context that ends after d.
func (c *contexts) within(d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(c.ctx, d)
	c.cancels = append(c.cancels, cancel)
	return ctx
}

func (c *contexts) close() {
	for _, cancel := range c.cancels {
		cancel()
	}
}

func nonEmpty(field, v string) error {
	if v == "" {
		return fmt.Errorf("%s is missing or empty", field)
	}
	return nil
}

func check(ok bool, format string, args ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf(format, args...)
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
