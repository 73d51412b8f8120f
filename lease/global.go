package lease

import (
	"fmt"
	"time"
)

// Global is a library's lease TTL that is one variable for the whole
// process, in whole seconds — vitess's etcd2topo leaseTTL (a binary's
// -topo-etcd-lease-ttl flag), go-zero's discov.TimeToLive — where a
// recipe's constructor is asked for the TTL of one scenario. A test sets
// it once, before any run (Set), runs the scenarios whose TTL it is, and
// the recipe refuses any other (Check) rather than run a scenario on a TTL
// it did not ask for.
type Global struct {
	// Name says what the variable is and how a user sets it, for errors.
	Name string
	// Seconds points at the variable (reached with go:linkname when the
	// library does not export it).
	Seconds *int
}

// Set sets the variable to d, rounded down to whole seconds.
func (g Global) Set(d time.Duration) { *g.Seconds = int(d / time.Second) }

// Check returns nil if ttl is 0 (the recipe's default) or the variable's
// TTL, and otherwise an error wrapping ErrBadTTL that names the variable.
func (g Global) Check(ttl time.Duration) error {
	if have := time.Duration(*g.Seconds) * time.Second; ttl != 0 && ttl != have {
		return fmt.Errorf("%w: %v asked for, but %s is %v for the whole process: set it to %v before the first run, or run the scenarios whose TTL it is",
			ErrBadTTL, ttl, g.Name, have, ttl)
	}
	return nil
}
