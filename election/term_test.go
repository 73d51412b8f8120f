package election

import (
	"context"
	"errors"
	"testing"
)

// A Term resigns once, says it has no proclaim unless given one, and
// reports the last value announced.
func TestTerm(t *testing.T) {
	ctx := context.Background()
	stops := 0
	term := &Term{Campaigned: "a", Stop: func() { stops++ }}
	if err := term.Proclaim(ctx, "b"); !errors.Is(err, ErrNotLeader) {
		t.Errorf("Proclaim without Announce = %v, want ErrNotLeader", err)
	}
	if err := term.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	if err := term.Resign(ctx); !errors.Is(err, ErrNotLeader) || stops != 1 {
		t.Errorf("second Resign = %v after %d stops, want ErrNotLeader after 1", err, stops)
	}
	announced := &Term{Campaigned: "a", Announce: func(context.Context, string) error { return nil }}
	if err := announced.Proclaim(ctx, "b"); err != nil || announced.Value() != "b" {
		t.Errorf("Proclaim(b) = %v, Value %q; want nil, b", err, announced.Value())
	}
	if term.Term() != 0 || term.Key() != "" || term.Done() != nil {
		t.Errorf("a Term reports term %d, key %q, Done %v; want none", term.Term(), term.Key(), term.Done())
	}
}

// A Term given the library's lease reports it (Leaser), so a fault can
// revoke it.
func TestTermLease(t *testing.T) {
	var ls Leaser = &Term{LeaseID: 0x694d}
	if ls.Lease() != 0x694d {
		t.Errorf("Lease = %x, want 694d", ls.Lease())
	}
}
