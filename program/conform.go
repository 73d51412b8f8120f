package program

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/internal/patience"
	"github.com/etcdsim/etcdsim/internal/recipe"
	"github.com/etcdsim/etcdsim/lock"
)

// Conform runs cfg's program through the ops of family (one of
// ConformFamilies) in the order a workload sends them, on the etcd client
// cli's endpoints, and returns every way its answers differ from the
// shapes docs/protocol.md names — the check to run on an adapter before a
// campaign. "discovery" checks both roles. Each step is reported on w as
// it passes or fails; every line sent and read goes to cfg.Trace.
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
	ran := false
	for _, c := range conformers {
		if c.family == family || strings.HasPrefix(c.family, family+"/") {
			if family != c.family {
				fmt.Fprintf(w, "--   %s\n", c.family)
			}
			cs := &contexts{ctx: ctx}
			c.run(cs, cfg, cli, step)
			cs.close()
			ran = true
		}
	}
	if !ran {
		return fmt.Errorf("process: conform: family %q: want one of %s", family, strings.Join(ConformFamilies(), ", "))
	}
	return errors.Join(errs...)
}

// stepFunc reports one step of a conformance check; it returns whether
// the step passed.
type stepFunc func(name string, err error) bool

// conformers are the conformance checks, one per family (and per role of
// discovery's), in the order the families are listed.
var conformers = []struct {
	family string
	run    func(cs *contexts, cfg Config, cli *clientv3.Client, step stepFunc)
}{
	{recipe.Lock, conformLock},
	{recipe.Election, conformElection},
	{recipe.Discovery + "/registrar", conformRegistrar},
	{recipe.Discovery + "/resolver", conformResolver},
	{recipe.Register, conformRegister},
	{recipe.RWMutex, conformRWMutex},
	{recipe.Queue, conformQueue},
	{recipe.Barrier, conformBarrier},
	{recipe.PlainBarrier, conformPlainBarrier},
	{recipe.STM, conformSTM},
}

// ConformFamilies lists the families (and discovery's roles) Conform
// checks.
func ConformFamilies() []string {
	var out []string
	for _, c := range conformers {
		out = append(out, c.family)
	}
	return out
}

// conformName is the lock, election, queue… a conformance check uses.
const conformName = "etcdsim-conform"

// initStep waits for s's init and reports it.
func initStep(cs *contexts, cfg Config, s *session, err error, step stepFunc) bool {
	if err == nil {
		err = s.wait(cs.within(cfg.limit()))
	}
	if !step("init answers ok with recipe and features", err) {
		return false
	}
	step("init names the recipe", nonEmpty("recipe", s.recipe))
	return true
}

// conformTTL is the TTL the conformance check asks for: 2 s on an idle
// machine, longer on a loaded one (patience.Scale). No step waits for a
// lease to expire, and the program's keepalives run on the real clock: on
// two cores under heavy load a program can be starved of the CPU for
// seconds, and a session lost to that would fail a step of a correct
// program.
func conformTTL() time.Duration { return patience.Scale(2 * time.Second) }

func conformLock(cs *contexts, cfg Config, cli *clientv3.Client, step stepFunc) {
	l, err := newLocker(cfg, cli, conformName, lock.Options{TTL: conformTTL()})
	if err != nil {
		step("init answers ok with recipe and features", err)
		return
	}
	defer l.Close()
	if !initStep(cs, cfg, l.session, nil, step) {
		return
	}
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
	_, err = l.Lock(cs.givingUp(500 * time.Millisecond))
	step("a second acquire while held gives up by its timeout_ms (error \"timeout\")", check(errors.Is(err, context.DeadlineExceeded), "got %v", err))
	step("release answers ok", hs.Unlock(cs.within(5*time.Second)))
	err = hs.Unlock(cs.within(5 * time.Second))
	step("a second release answers error \"not_held\"", check(errors.Is(err, lock.ErrNotHeld), "got %v", err))
	h2, err := l.Lock(cs.within(5 * time.Second))
	if step("acquire after release answers ok", err) {
		step("the next holder's token is greater, or both are 0", check(h2.Token() > h.token || h.token == 0 && h2.Token() == 0, "token %d after %d", h2.Token(), h.token))
		step("release answers ok", h2.Unlock(cs.within(5*time.Second)))
	}
	step("the program exits when its stdin closes", exits(l.prog))
}

func conformElection(cs *contexts, cfg Config, cli *clientv3.Client, step stepFunc) {
	e, err := newElector(cfg, cli, conformName, election.Options{TTL: conformTTL()})
	if err != nil {
		step("init answers ok with recipe and features", err)
		return
	}
	defer e.Close()
	if !initStep(cs, cfg, e.session, nil, step) {
		return
	}
	var seen <-chan election.LeaderInfo
	if e.has("observe") {
		seen = e.observe(cs.within(time.Minute))
	}
	l, err := e.Campaign(cs.within(5*time.Second), "v1")
	if !step("campaign answers ok with handle, key and term", err) {
		return
	}
	step("campaign's key is not empty", nonEmpty("key", l.Key()))
	// An election that hands out no term says so in init's "unfenced"
	// (docs/protocol.md): its terms may then be 0, and fencing is judged
	// not applicable.
	unfenced := e.unfenced != ""
	if unfenced {
		step("campaign's term is 0 (none, as init's \"unfenced\" says) or positive", check(l.Term() >= 0, "term %d", l.Term()))
	} else {
		step("campaign's term is positive", check(l.Term() > 0, "term %d; an election that hands out no term says why in init's answer, as \"unfenced\"", l.Term()))
	}
	if e.has("leader") {
		info, err := e.leader(cs.within(5 * time.Second))
		step("leader answers the campaign's key, value and term", firstErr(err,
			check(info.Key == l.Key() && info.Value == "v1" && info.Term == l.Term(), "got %+v, want key %s, value v1, term %d", info, l.Key(), l.Term())))
	}
	if seen != nil {
		step("observe's \"leader\" events show the campaign's key, value and term", observed(seen, l.Key(), "v1", l.Term()))
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
		if unfenced && l.Term() == 0 {
			step("the next term is 0 again or positive", check(l2.Term() >= 0, "term %d after 0", l2.Term()))
		} else {
			step("the next term is greater", check(l2.Term() > l.Term(), "term %d after %d", l2.Term(), l.Term()))
		}
		step("resign answers ok", l2.Resign(cs.within(5*time.Second)))
	}
	step("the program exits when its stdin closes", exits(e.prog))
}

// observed waits up to 5s (scaled by patience.Scale) for an observed
// leader of key, value and term.
func observed(seen <-chan election.LeaderInfo, key, value string, term int64) error {
	wait := patience.Scale(5 * time.Second)
	t := time.NewTimer(wait)
	defer t.Stop()
	var last election.LeaderInfo
	for {
		select {
		case info, ok := <-seen:
			if !ok {
				return errors.New("the observation ended")
			}
			if info.Key == key && info.Value == value && info.Term == term {
				return nil
			}
			last = info
		case <-t.C:
			return fmt.Errorf("none within %v; the last was %+v, want key %s, value %s, term %d", wait, last, key, value, term)
		}
	}
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
func exits(p *prog) error {
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

// within is a context that ends after d on an idle machine, scaled by how
// slow this one is now (patience.Scale): every step waits on the real
// clock, for a program and a cluster that share the machine's CPUs.
func (c *contexts) within(d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(c.ctx, patience.Scale(d))
	c.cancels = append(c.cancels, cancel)
	return ctx
}

// givingUp is a context that ends after d, for a step that asks for the
// program's timeout: unscaled, since a slow machine can only make the
// answer late, which the step takes as the timeout it expects.
func (c *contexts) givingUp(d time.Duration) context.Context {
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
