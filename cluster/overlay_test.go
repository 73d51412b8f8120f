package cluster

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/etcdsim/etcdsim/internal/bubble"
)

// The overlay cases share one cluster and read links with Links, which
// needs no traffic; each case starts from and leaves healthy links. No
// byte crosses a link, so the test runs on the virtual clock, where a
// cluster starts in its CPU time; a bubble cannot hold t.Run, so the cases
// are one loop, each named in the log before it runs.
func TestOverlays(t *testing.T) { bubble.Test(t, bubble.Options{Name: t.Name()}, overlays) }

func overlays(t *testing.T) {
	c := New(t, Config{Clock: ClockVirtual})
	slow := Delayed(50*time.Millisecond, 0)
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, c *Cluster)
	}{
		{"a direct isolate under an overlay survives its removal", func(t *testing.T, c *Cluster) {
			o := c.NewOverlay()
			must(t, o.Set("m0", "m1", slow))
			must(t, c.Isolate("m0"))
			wantLinks(t, c, "isolated under an overlay: the overlay shows where it is set",
				Link{"m0", "m1", slow}, Link{"m0", "m2", Blackholed()},
				Link{"m1", "m0", Blackholed()}, Link{"m2", "m0", Blackholed()})
			o.Remove()
			wantLinks(t, c, "overlay removed: the isolate shows",
				Link{"m0", "m1", Blackholed()}, Link{"m0", "m2", Blackholed()},
				Link{"m1", "m0", Blackholed()}, Link{"m2", "m0", Blackholed()})
			o.Remove() // idempotent
			wantLinks(t, c, "overlay removed twice",
				Link{"m0", "m1", Blackholed()}, Link{"m0", "m2", Blackholed()},
				Link{"m1", "m0", Blackholed()}, Link{"m2", "m0", Blackholed()})
		}},
		{"overlays removed oldest first", func(t *testing.T, c *Cluster) {
			must(t, c.SetLink("m0", "m1", slow))
			older, newer := c.NewOverlay(), c.NewOverlay()
			must(t, older.Set("m0", "m1", Blackholed()))
			must(t, newer.Set("m0", "m1", Rejecting()))
			wantLinks(t, c, "both overlays on", Link{"m0", "m1", Rejecting()})
			older.Remove()
			wantLinks(t, c, "older removed", Link{"m0", "m1", Rejecting()})
			newer.Remove()
			wantLinks(t, c, "both removed: the base", Link{"m0", "m1", slow})
		}},
		{"overlays removed newest first", func(t *testing.T, c *Cluster) {
			must(t, c.SetLink("m0", "m1", slow))
			older, newer := c.NewOverlay(), c.NewOverlay()
			must(t, older.Set("m0", "m1", Blackholed()))
			must(t, newer.Set("m0", "m1", Rejecting()))
			newer.Remove()
			wantLinks(t, c, "newer removed", Link{"m0", "m1", Blackholed()})
			older.Remove()
			wantLinks(t, c, "both removed: the base", Link{"m0", "m1", slow})
		}},
		{"setting a link again makes the layer newest", func(t *testing.T, c *Cluster) {
			a, b := c.NewOverlay(), c.NewOverlay()
			must(t, a.Set("m1", "m2", Blackholed()))
			must(t, b.Set("m1", "m2", slow))
			must(t, a.Set("m1", "m2", Rejecting()))
			wantLinks(t, c, "a set again", Link{"m1", "m2", Rejecting()})
			a.Remove()
			wantLinks(t, c, "a removed", Link{"m1", "m2", slow})
			b.Remove()
			wantLinks(t, c, "both removed")
		}},
		{"HealAll clears base and overlays", func(t *testing.T, c *Cluster) {
			o := c.NewOverlay()
			must(t, o.SetBoth("m0", "m1", Blackholed()))
			must(t, c.SetLink("m1", "m2", Rejecting()))
			must(t, c.HealAll())
			wantLinks(t, c, "after HealAll")
			o.Remove()
			wantLinks(t, c, "the healed overlay removed")
		}},
		{"Heal drops overlays on the node's links only", func(t *testing.T, c *Cluster) {
			o := c.NewOverlay()
			must(t, o.SetBoth("m0", "m1", Blackholed()))
			must(t, o.Set("m1", "m2", slow))
			must(t, c.SetLink("m2", "m0", Rejecting()))
			must(t, c.Heal("m0"))
			wantLinks(t, c, "after Heal(m0)", Link{"m1", "m2", slow})
			must(t, c.SetLink("m0", "m1", Rejecting()))
			o.Remove()
			wantLinks(t, c, "overlay removed: a base set after the heal stays", Link{"m0", "m1", Rejecting()})
		}},
	} {
		t.Logf("case: %s", tc.name) // shown with the failures it is followed by
		tc.run(t, c)
		must(t, c.HealAll())
	}

	o := c.NewOverlay()
	for _, tc := range []struct {
		name string
		call func() error
		want string
	}{
		{"unknown node", func() error { return o.Set("m0", "m7", Blackholed()) }, `no member or client named "m7"`},
		{"self link", func() error { return o.SetBoth("m1", "m1", Blackholed()) }, "to itself"},
		{"bad condition", func() error { return o.Set("m0", "m1", Condition{Jitter: time.Millisecond}) }, "needs a delay"},
		{"removed", func() error { o.Remove(); return o.Set("m0", "m1", Blackholed()) }, "overlay was removed"},
		{"zero overlay", func() error { return new(Overlay).Set("m0", "m1", Blackholed()) }, "Cluster.NewOverlay"},
	} {
		if err := tc.call(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
	wantLinks(t, c, "after failed sets")
	if err := new(Overlay).Set("m0", "m1", Blackholed()); !errors.Is(err, ErrClosed) {
		t.Errorf("Set on a zero Overlay: %v, want ErrClosed", err)
	}
}

// wantLinks checks that exactly the links given are not healthy, with
// these conditions.
func wantLinks(t *testing.T, c *Cluster, when string, want ...Link) {
	t.Helper()
	if diff := cmp.Diff(want, c.Links()); diff != "" {
		t.Errorf("%s: faulty links (-want +got):\n%s", when, diff)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
