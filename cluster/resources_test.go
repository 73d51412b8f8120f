package cluster

import (
	"bytes"
	"testing"

	"github.com/etcdsim/etcdsim/internal/bubble"
)

// A keep-alive stream shows on the member that serves it, as a handler and
// its receive loop; when the client goes, both go.
func TestKeepAliveGoroutinesPerMember(t *testing.T) {
	bubble.Test(t, bubble.Options{Name: t.Name()}, func(t *testing.T) {
		c, ctx, cli := withClient(t)
		keptAlive(t, ctx, cli)
		sum := func() (streams, handlers, loops int) {
			t.Helper()
			samples, err := c.KeepAliveGoroutines()
			if err != nil {
				t.Fatal(err)
			}
			if len(samples) != 3 {
				t.Fatalf("%d samples, want one per member: %+v", len(samples), samples)
			}
			for _, s := range samples {
				streams, handlers, loops = streams+s.Streams, handlers+s.Handlers, loops+s.Loops
			}
			return
		}
		eventually(t, "one stream, one handler and one loop", func() bool {
			s, h, l := sum()
			return s == 1 && h == 1 && l == 1
		})
		cli.Close()
		eventually(t, "no stream, handler or loop once the client has closed", func() bool {
			s, h, l := sum()
			return s == 0 && h == 0 && l == 0
		})
	})
}

// eachStack reads runtime/pprof's debug=1 goroutine profile: counts,
// labels and functions per stack.
func TestEachStack(t *testing.T) {
	profile := "goroutine profile: total 4\n" +
		"3 @ 0x1 0x2\n# labels: {\"etcdsim-member\":\"m0\"}\n#\t0x1\tpkg.(*T).loop+0x55\t/a.go:1\n#\t0x2\tpkg.run+0x9\t/a.go:2\n\n" +
		"1 @ 0x3\n#\t0x3\truntime.gopark+0x1\t/b.go:3\n\n"
	type stack struct {
		n      int
		labels string
		funcs  []string
	}
	var got []stack
	if err := eachStack(bytes.NewBufferString(profile), func(n int, labels string, funcs []string) {
		got = append(got, stack{n, labels, funcs})
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].n != 3 || got[0].labels != `{"etcdsim-member":"m0"}` || len(got[0].funcs) != 2 ||
		got[0].funcs[0] != "pkg.(*T).loop" || got[1].n != 1 || got[1].labels != "" || got[1].funcs[0] != "runtime.gopark" {
		t.Errorf("eachStack = %+v", got)
	}
	if err := eachStack(bytes.NewBufferString("x @ 0x1\n"), func(int, string, []string) {}); err == nil {
		t.Error("a stack whose count is not a number: no error")
	}
}
