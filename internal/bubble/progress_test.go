package bubble_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/internal/bubble"
)

// spin holds the CPU, never blocking, until stop: a recipe that spins.
func spin(stop *atomic.Bool) {
	for !stop.Load() {
	}
}

// TestASpinningBubbleSaysHowFarItGot runs a bubble whose clock moves five
// seconds, records an event and then spins, and requires the watchdog to
// say where the clock stands, the event, and the spinning goroutine, both
// when asked (Progress, as a run told to stop asks) and when it reports the
// bubble frozen at last.
func TestASpinningBubbleSaysHowFarItGot(t *testing.T) {
	tests := []struct {
		name string
		ask  bool // read Progress while it spins; else wait for OnFrozen
	}{
		{name: "asked while it spins", ask: true},
		{name: "reported frozen"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bubble.UseT(t)
			var stop atomic.Bool
			var event atomic.Value
			event.Store("")
			frozen := make(chan *bubble.Frozen, 1)
			opts := bubble.Options{Name: "spin", FrozenAfter: 200 * time.Millisecond,
				LastEvent: func() string { return event.Load().(string) },
				OnFrozen: func(f *bubble.Frozen) {
					frozen <- f
					stop.Store(true)
				}}
			if tt.ask {
				opts.FrozenAfter = time.Hour
			}
			ran := make(chan error, 1)
			go func() {
				ran <- bubble.Run(opts, func() error {
					time.Sleep(5 * time.Second)
					event.Store("c1 acquire /lock ok at 5s")
					spin(&stop)
					return nil
				})
			}()
			var f *bubble.Frozen
			if tt.ask {
				deadline := time.Now().Add(time.Minute)
				for f == nil {
					if time.Now().After(deadline) {
						t.Fatalf("Progress never named the spinning goroutine: %v", bubble.Progress())
					}
					time.Sleep(100 * time.Millisecond)
					for _, p := range bubble.Progress() {
						if p.Name == "spin" && len(p.Hot) > 0 && p.Looks >= 4 {
							f = p
						}
					}
				}
				stop.Store(true)
			} else {
				select {
				case f = <-frozen:
				case <-time.After(time.Minute):
					stop.Store(true)
					t.Fatal("a bubble that spun was not reported within a minute")
				}
			}
			if err := <-ran; err != nil {
				t.Fatal(err)
			}
			if got := f.Virtual.Format("15:04:05"); got != "00:00:05" {
				t.Errorf("the clock stood at %s, want 00:00:05", got)
			}
			if f.Event != "c1 acquire /lock ok at 5s" {
				t.Errorf("the last event: %q", f.Event)
			}
			if len(f.Hot) == 0 || !strings.Contains(f.Hot[0].Goroutine, "bubble_test.spin") || f.Hot[0].Looks*2 < f.Looks {
				t.Errorf("ran most: %+v in %d looks; want bubble_test.spin first, in most of them", f.Hot, f.Looks)
			}
			line := f.Progress()
			if tt.name == "reported frozen" {
				line = f.Error()
			}
			for _, want := range []string{"00:00:05.000", "c1 acquire /lock ok at 5s", "bubble_test.spin (in "} {
				if !strings.Contains(line, want) {
					t.Errorf("%q does not say %q", line, want)
				}
			}
			t.Log(line)
			if p := bubble.Progress(); len(p) != 0 {
				t.Errorf("Progress after the bubble ended: %v", p)
			}
		})
	}
}
