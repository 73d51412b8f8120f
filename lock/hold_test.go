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

// A Hold given the library's lost signal and lease reports them, so the
// workload can stop on the loss and a fault can revoke the lease.
func TestHoldLostAndLease(t *testing.T) {
	lost := make(chan struct{})
	h := &Hold{Name: "L", Lost: lost, LeaseID: 0x694d}
	var ls Leaser = h
	if ls.Lease() != 0x694d {
		t.Errorf("Lease = %x, want 694d", ls.Lease())
	}
	select {
	case <-h.Done():
		t.Fatal("Done closed before the library said the lock was lost")
	default:
	}
	close(lost)
	select {
	case <-h.Done():
	default:
		t.Error("Done open after the library said the lock was lost")
	}
}
