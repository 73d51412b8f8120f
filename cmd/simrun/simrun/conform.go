package simrun

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/process"
)

var conformCommand = &command{
	name:    "conform",
	usage:   "[-family lock|election] [-trace] -- COMMAND [ARG...]",
	summary: "check that a program speaks the process protocol (docs/protocol.md): start it on a real-clock cluster and send it each op of the family in the order a workload does",
	flags:   func(fs *flag.FlagSet) { new(conformFlags).register(fs) },
}

func init() { conformCommand.run = runConform }

type conformFlags struct {
	family string
	trace  bool
}

func (f *conformFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.family, "family", "lock", "the family the program's recipe is of: lock or election")
	fs.BoolVar(&f.trace, "trace", false, "print every line sent (>) and read (<)")
}

// runConform starts a 3-member real-clock cluster, runs the program
// through process.Conform, and exits 0 when it conforms, 1 when not.
func runConform(e *env, args []string) (int, error) {
	var f conformFlags
	argv, err := e.parseFlags(conformCommand, args, f.register)
	if err != nil {
		return exitUsage, err
	}
	if len(argv) == 0 {
		return exitUsage, usagef("name the program to check after --, such as: simrun conform -family lock -- node examples/node/adapter.js")
	}
	if f.family != "lock" && f.family != "election" {
		return exitUsage, usagef("-family %q: want lock or election", f.family)
	}
	c, err := cluster.Start(e.ctx, cluster.Config{Clock: cluster.ClockReal})
	if err != nil {
		return exitMissed, fmt.Errorf("starting a cluster: %w", err)
	}
	defer c.Close()
	cli, err := c.Client("conform")
	if err != nil {
		return exitMissed, err
	}
	cfg := process.Config{Argv: argv}
	if f.trace {
		cfg.Trace = e.stdout
	}
	fmt.Fprintf(e.stdout, "simrun conform: %q, %s family\n", argv, f.family)
	if err := process.Conform(e.ctx, f.family, cfg, cli, e.stdout); err != nil {
		return exitMissed, fmt.Errorf("%q does not conform:\n%w", argv, err)
	}
	io.WriteString(e.stdout, "simrun conform: ok\n") //nolint:errcheck // a report
	return exitOK, nil
}

// withCommand gives every scenario of ss a process recipe called name
// running command (split on spaces) instead of its own; "" leaves them be.
// A scenario of a family that cannot run one is a usage error.
func withCommand(ss []scenarios.Scenario, command, name string) ([]scenarios.Scenario, error) {
	if command == "" {
		return ss, nil
	}
	argv := strings.Fields(command)
	if len(argv) == 0 {
		return nil, usagef("-command %q names no program", command)
	}
	out := make([]scenarios.Scenario, 0, len(ss))
	for _, s := range ss {
		switch s.Workload.Family {
		case scenarios.FamilyLock:
			s = s.WithLock(process.Lock(name, argv...))
		case scenarios.FamilyElection:
			s = s.WithElection(process.Election(name, argv...))
		default:
			return nil, usagef("-command: scenario %s is of the %s family; a recipe in another process runs lock and election scenarios", s.Name, s.Workload.Family)
		}
		if err := s.Validate(); err != nil {
			return nil, configErr(err)
		}
		out = append(out, s)
	}
	return out, nil
}
