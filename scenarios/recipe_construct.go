package scenarios

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"
)

// ErrRecipe is wrapped by Run's error when the recipe under test cannot
// be run at all: its constructor returned nothing and no error, panicked,
// or did not return; or a call returned nothing and no error. The error
// names the recipe, the client and what the recipe did. The run has no
// verdict, and it is no failure of the harness: the recipe is to be fixed.
var ErrRecipe = errors.New("scenarios: unusable recipe")

// construct calls build, the constructor of the recipe called name of a
// family ("lock", "election") for client, and turns what a user's
// constructor can do wrong into an error wrapping ErrRecipe that says so:
// a nil value (of type what) with no error, a panic, a call that does not
// return within the workload's patience or before ctx ends. A call that
// does not return is left behind: nothing can stop it. An error the
// constructor returns is the recipe refusing the scenario's options; it is
// returned as it is, with the recipe and the client. The value it returns
// is the process's: w closes it as the process ends (adopt).
func construct[T any](ctx context.Context, w *world, family, name, client, what string, build func() (T, error)) (T, error) {
	limit := w.s.Workload.Patience.D()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			if p := recover(); p != nil {
				r = result{err: fmt.Errorf("%w: %s recipe %q: its constructor (New) panicked for client %s: %v", ErrRecipe, family, name, client, p)}
			}
			done <- r
		}()
		r.v, r.err = build()
	}()
	t := time.NewTimer(limit)
	defer t.Stop()
	var zero T
	select {
	case r := <-done:
		switch {
		case errors.Is(r.err, ErrRecipe):
			return zero, r.err
		case r.err != nil:
			return zero, fmt.Errorf("%s recipe %q: New for client %s: %w", family, name, client, r.err)
		case isNil(r.v):
			return zero, fmt.Errorf("%w: %s recipe %q: its constructor (New) returned a nil %s and no error for client %s", ErrRecipe, family, name, what, client)
		}
		w.adopt(family, name, client, what, r.v)
		return r.v, nil
	case <-t.C:
		return zero, fmt.Errorf("%w: %s recipe %q: its constructor (New) did not return within %v (the workload's patience) for client %s; a constructor must not block: wait in Lock or Campaign, which take a ctx",
			ErrRecipe, family, name, limit, client)
	case <-ctx.Done():
		return zero, fmt.Errorf("%s recipe %q: New for client %s had not returned when the run ended: %w", family, name, client, context.Cause(ctx))
	}
}

// isNil reports whether v is a nil interface, or holds a nil pointer, map,
// slice, channel or function: nothing a method can be called on.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Chan, reflect.Func, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// nilResult is the error of a call of the recipe's that returned a nil
// value (of type what) and no error.
func nilResult(family, name, client, call, what string) error {
	return fmt.Errorf("%w: %s recipe %q: %s returned a nil %s and no error for client %s", ErrRecipe, family, name, call, what, client)
}
