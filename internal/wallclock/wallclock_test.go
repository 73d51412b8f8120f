package wallclock

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestNowIsTheWallClockOutsideABubble(t *testing.T) {
	if d := Now().Sub(time.Now()).Abs(); d > time.Second {
		t.Errorf("Now and time.Now differ by %v outside a bubble", d)
	}
	if Virtual() {
		t.Error("Virtual is true outside a bubble")
	}
}

// TestNowMovesWhileABubbleComputes is the reason for the package: a
// goroutine that only computes holds a bubble's clock still, and Now
// still moves.
func TestNowMovesWhileABubbleComputes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		if !Virtual() {
			t.Error("Virtual is false in a bubble")
		}
		v0, w0 := time.Now(), Now()
		if w0.Year() < 2020 {
			t.Fatalf("Now reads %v in a bubble: the virtual clock, not the wall's", w0)
		}
		for Since(w0) < 20*time.Millisecond {
			// compute: nothing here blocks, so the virtual clock stands still
		}
		if d := time.Since(v0); d != 0 {
			t.Errorf("the bubble's clock moved %v while a goroutine computed", d)
		}
	})
}
