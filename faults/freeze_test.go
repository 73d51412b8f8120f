package faults_test

import (
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/faults"
)

// A freeze on a member frozen or killed already is an error that names
// the fault, the member and what freeze needs, and changes nothing; a
// timeline that would do it is refused before it runs, naming both steps.
func TestFreezeRefusesAFrozenOrKilledMember(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		for _, tt := range []struct {
			name  string
			first faults.Fault
			want  []string
		}{
			{"frozen", faults.Freeze(faults.Member(1)), []string{"freeze(m1)", "m1 since", "thaw it first", "freeze needs a running member that is not frozen already"}},
			{"killed", faults.Kill(faults.Member(1)), []string{"freeze(m1)", "m1 is killed", "freeze needs a running member"}},
		} {
			c, env := start(t, 3)
			heal := inject(ctx, t, env, tt.first)
			_, err := env.Inject(ctx, faults.Freeze(faults.Member(1)))
			if err == nil {
				t.Fatalf("%s: a freeze of a %s member: no error", tt.name, tt.name)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: error %q does not say %q", tt.name, err, w)
				}
			}
			if err := heal(ctx); err != nil {
				t.Fatal(err)
			}
			for _, m := range c.Members() {
				if m.Frozen() || !m.Running() {
					t.Errorf("%s: after the heal %s is frozen %v, running %v; want every member back", tt.name, m.Name(), m.Frozen(), m.Running())
				}
			}
			tl := faults.Timeline{Seed: 1, Steps: []faults.Step{
				faults.At(0, 2*time.Second, tt.first),
				faults.At(500*time.Millisecond, time.Second, faults.Freeze(faults.Member(1))),
			}}
			if err := tl.Run(ctx, env); err == nil || !strings.Contains(err.Error(), "step 1") || !strings.Contains(err.Error(), "step 0") {
				t.Errorf("%s: a timeline freezing m1 during step 0: %v; want it refused naming both steps", tt.name, err)
			}
		}
	})
}

// The event of a freeze names the member it resolved to and says, when
// healed, how long it was frozen.
func TestFreezeEvent(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		c, env := start(t, 3)
		lead, err := c.Leader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		heal := inject(ctx, t, env, faults.Freeze(faults.Leader))
		time.Sleep(time.Second)
		if err := heal(ctx); err != nil {
			t.Fatal(err)
		}
		ev := lastEvent(t, env)
		if len(ev.Targets) != 1 || ev.Targets[0] != lead.Name() {
			t.Errorf("event targets %v; want [%s]", ev.Targets, lead.Name())
		}
		if !strings.Contains(ev.Detail, lead.Name()+" frozen 1s") || ev.End-ev.Start < time.Second {
			t.Errorf("event %+v: want its detail to say %s was frozen 1s and its span to cover it", ev, lead.Name())
		}
		healthy(ctx, t, c)
	})
}
