package faults

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
)

// Freeze stops each member t resolves to as SIGSTOP stops a process (see
// cluster.Member.Freeze): its raft clock, lessor and client service stop,
// its connections stay open and what is sent to it waits, queued. Unlike
// Isolate, a frozen leader does not step down on its own: it still
// believes it leads when it resumes. The heal resumes it the way a
// resumed process runs — its buffered raft tick, what waited, and the
// lessor's overdue pass in the order the Go scheduler would give them,
// drawn from the run's seed — which is how a resumed old leader can
// revoke a lease its client kept alive through the new one.
//
// Targets: leader, follower, m<i>, and Pinned(client), the member a
// client's session is on. A member frozen or down already is an error
// that names it and its state.
func Freeze(t Target) Fault {
	return Fault{
		action:  "freeze",
		targets: []Target{t},
		kind:    membersOnly,
		apply: func(ctx context.Context, x *shot) (healFunc, string, error) {
			var frozen []*cluster.Member
			heal := func(context.Context) (string, error) {
				var errs []error
				var took []string
				for _, m := range frozen {
					if !m.Frozen() {
						// Killed meanwhile, which ends a freeze; a restart is
						// another fault's heal.
						took = append(took, m.Name()+" was no longer frozen")
						continue
					}
					d, err := m.Thaw()
					if err != nil {
						errs = append(errs, fmt.Errorf("thawing %s: %w", m.Name(), err))
						continue
					}
					took = append(took, fmt.Sprintf("%s frozen %v", m.Name(), d.Round(time.Millisecond)))
				}
				return strings.Join(took, ", "), errors.Join(errs...)
			}
			for _, name := range x.targets[0] {
				m, err := x.env.c.Member(name)
				if err != nil {
					return heal, "", err
				}
				if err := m.Freeze(); err != nil {
					return heal, "", fmt.Errorf("%w; freeze needs a running member that is not frozen already", err)
				}
				frozen = append(frozen, m)
			}
			return heal, "", nil
		},
	}
}
