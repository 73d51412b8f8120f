package faults

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Flap injects f and heals it again and again: f is in force for down,
// then healed for up, n times over; a flapping link, a member that drops
// out of its network and back. Each cycle resolves f's targets anew —
// Flap(Isolate(Leader), …) isolates whoever leads at that moment — and is
// recorded as an event of its own, noted "flap i/n", beside the flap's.
// The flap ends after the n-th heal, or earlier when it is healed, which
// heals a cycle in force. A schedule gives it a duration of
// n×(down+up) to see every cycle.
//
// Written flap(<fault>, down <d>, up <d>, ×<n>) — "x<n>" reads too. f must
// last until healed (not compact, revoke-lease, …) and not flap itself;
// down and up must be positive and n at least 1.
func Flap(f Fault, down, up time.Duration, n int) Fault {
	return Fault{
		action:  "flap",
		targets: f.targets,
		implied: true,
		custom:  f.custom,
		kind:    f.kind,
		param:   fmt.Sprintf("%v, down %v, up %v, ×%d", f, down, up, n),
		check: func(s shape) error {
			var errs []error
			switch {
			case f.apply == nil:
				errs = append(errs, errors.New("flap needs a fault to flap"))
			case f.instant:
				errs = append(errs, fmt.Errorf("%v is over as it is injected; flap needs a fault that lasts until healed (isolate, partition, cut, delay, pause, freeze, …)", f))
			case f.action == "flap":
				errs = append(errs, errors.New("a flap cannot flap another flap; give the inner fault's periods to one flap"))
			}
			if down <= 0 || up <= 0 {
				errs = append(errs, fmt.Errorf("flap's periods down %v and up %v must both be positive", down, up))
			}
			if n < 1 {
				errs = append(errs, fmt.Errorf("flap's count ×%d must be at least 1", n))
			}
			if f.check != nil {
				if err := f.check(s); err != nil {
					errs = append(errs, err)
				}
			}
			return errors.Join(errs...)
		},
		apply: func(ctx context.Context, x *shot) (healFunc, string, error) {
			return flapping(ctx, x, f, down, up, n)
		},
	}
}

// flapping runs the cycles of a flap: the first one now, so that an
// inner fault that cannot be injected fails the flap, the others in a
// goroutine until the n-th heal or the flap's own heal.
func flapping(ctx context.Context, x *shot, f Fault, down, up time.Duration, n int) (healFunc, string, error) {
	note := func(i int) string { return fmt.Sprintf("flap %d/%d", i, n) }
	first, err := x.env.inject(ctx, f, x.rng, note(1))
	if err != nil {
		return noHeal, "", err
	}
	fctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	// Written by the goroutine, read by the heal after done.
	var cycles int
	var errs []error
	current := first
	go func() {
		defer close(done)
		wait := func(d time.Duration) bool {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
				return true
			case <-fctx.Done():
				return false
			}
		}
		for i := 1; ; i++ {
			if !wait(down) {
				return
			}
			h := current
			current = nil
			if err := h(fctx); err != nil {
				errs = append(errs, err)
			}
			cycles = i
			if i == n || !wait(up) {
				return
			}
			h, err := x.env.inject(fctx, f, x.rng, note(i+1))
			if err != nil {
				if fctx.Err() == nil {
					errs = append(errs, err)
				}
				return
			}
			current = h
		}
	}()
	heal := func(ctx context.Context) (string, error) {
		stop()
		select {
		case <-done:
		case <-ctx.Done():
			return "", fmt.Errorf("the flap did not stop: %w", context.Cause(ctx))
		}
		if current != nil {
			if err := current(ctx); err != nil {
				errs = append(errs, err)
			}
			cycles++
		}
		return fmt.Sprintf("%d of %d cycles", cycles, n), errors.Join(errs...)
	}
	return heal, "", nil
}

// parseFlap reads what is written between flap's parentheses:
// "<fault>, down <d>, up <d>, ×<n>"; the fault may hold commas.
func parseFlap(inside string) (Fault, error) {
	const form = "flap(<fault>, down <duration>, up <duration>, ×<count>)"
	parts := trimAll(strings.Split(inside, ","))
	if len(parts) < 4 {
		return Fault{}, fmt.Errorf("flap takes a fault and three more arguments, got %s; write %s", quoteAll(parts), form)
	}
	k := len(parts) - 3
	inner, err := parseFault(strings.Join(parts[:k], ","))
	if err != nil {
		return Fault{}, fmt.Errorf("flap's fault: %w", err)
	}
	period := func(word, s string) (time.Duration, error) {
		fs := strings.Fields(s)
		if len(fs) != 2 || fs[0] != word {
			return 0, fmt.Errorf("want \"%s <duration>\", got %q; write %s", word, s, form)
		}
		return parseDuration(word+" period", fs[1])
	}
	down, err := period("down", parts[k])
	if err != nil {
		return Fault{}, err
	}
	up, err := period("up", parts[k+1])
	if err != nil {
		return Fault{}, err
	}
	c := parts[k+2]
	digits, ok := strings.CutPrefix(c, "×")
	if !ok {
		digits, ok = strings.CutPrefix(c, "x")
	}
	n, err := strconv.Atoi(strings.TrimSpace(digits))
	if !ok || err != nil {
		return Fault{}, fmt.Errorf("want a count \"×<n>\" (or \"x<n>\"), got %q; write %s", c, form)
	}
	return Flap(inner, down, up, n), nil
}
