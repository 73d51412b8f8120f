package lock

import (
	"context"
	"errors"
	"testing"
)

// A Hold calls its functions, and says what the library lacks when one is
// nil.
func TestHold(t *testing.T) {
	ctx := context.Background()
	released := false
	h := &Hold{Name: "L/locks", Release: func(context.Context) error { released = true; return nil },
		Check: func(context.Context) (bool, error) { return !released, nil }}
	if yes, err := h.Owned(ctx); !yes || err != nil {
		t.Errorf("Owned before Unlock = %v, %v; want true", yes, err)
	}
	if err := h.Unlock(ctx); err != nil || !released {
		t.Fatalf("Unlock = %v, released %v", err, released)
	}
	if yes, _ := h.Owned(ctx); yes {
		t.Error("Owned after Unlock = true")
	}
	bare := &Hold{Name: "L"}
	if err := bare.Unlock(ctx); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Unlock without Release = %v, want ErrUnsupported", err)
	}
	if _, err := bare.Owned(ctx); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Owned without Check = %v, want ErrUnsupported", err)
	}
	if h.Key() != "L/locks" || h.Token() != 0 || h.Done() != nil {
		t.Errorf("Hold reports key %q, token %d, Done %v", h.Key(), h.Token(), h.Done())
	}
}
