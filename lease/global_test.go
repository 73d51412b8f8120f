package lease

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// A process-wide TTL is set in whole seconds, and a recipe asked for
// another is refused by the variable's name.
func TestGlobal(t *testing.T) {
	var secs int
	g := Global{Name: "lib.TTL", Seconds: &secs}
	g.Set(2 * time.Second)
	if secs != 2 {
		t.Fatalf("Set(2s) left %d", secs)
	}
	for _, ok := range []time.Duration{0, 2 * time.Second} {
		if err := g.Check(ok); err != nil {
			t.Errorf("Check(%v) = %v, want nil", ok, err)
		}
	}
	if err := g.Check(time.Second); !errors.Is(err, ErrBadTTL) || !strings.Contains(err.Error(), "lib.TTL") {
		t.Errorf("Check(1s) = %v, want ErrBadTTL naming lib.TTL", err)
	}
}
