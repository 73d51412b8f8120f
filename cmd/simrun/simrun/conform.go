package simrun

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/program"
	"github.com/etcdsim/etcdsim/scenarios"
)

var conformCommand = &command{
	name:    "conform",
	usage:   "[-family FAMILY] [-role registrar|resolver] [-trace] -- COMMAND [ARG...]",
	summary: "check that a program speaks the process protocol (docs/protocol.md): start it on a real-clock cluster and send it each op of the family in the order a workload does",
	flags:   func(fs *flag.FlagSet) { new(conformFlags).register(fs) },
}

func init() { conformCommand.run = runConform }

type conformFlags struct {
	family string
	role   string
	trace  bool
}

func (f *conformFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.family, "family", "lock", "the family the program's recipe is of: "+strings.Join(program.ConformFamilies(), ", "))
	fs.StringVar(&f.role, "role", "", "for -family discovery: registrar or resolver (default both)")
	fs.BoolVar(&f.trace, "trace", false, "print every line sent (>) and read (<)")
}

// runConform starts a 3-member real-clock cluster, runs the program
// through program.Conform, and exits 0 when it conforms, 1 when not.
func runConform(e *env, args []string) (int, error) {
	var f conformFlags
	argv, err := e.parseFlags(conformCommand, args, f.register)
	if err != nil {
		return exitUsage, err
	}
	if len(argv) == 0 {
		return exitUsage, usagef("name the program to check after --, such as: simrun conform -family lock -- node examples/node/adapter.js")
	}
	family := f.family
	if f.role != "" {
		family += "/" + f.role
	}
	if !slices.Contains(program.ConformFamilies(), family) && !(f.role == "" && slices.Contains(program.ConformFamilies(), family+"/registrar")) {
		return exitUsage, usagef("-family %q -role %q: want -family one of %s (-role registrar or resolver for discovery)", f.family, f.role, strings.Join(program.ConformFamilies(), ", "))
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
	cfg := program.Config{Argv: argv}
	if f.trace {
		cfg.Trace = e.stdout
	}
	fmt.Fprintf(e.stdout, "simrun conform: %q, %s family\n", argv, family)
	if err := program.Conform(e.ctx, family, cfg, cli, e.stdout); err != nil {
		return exitMissed, fmt.Errorf("%q does not conform:\n%w", argv, err)
	}
	io.WriteString(e.stdout, "simrun conform: ok\n") //nolint:errcheck // a report
	return exitOK, nil
}

// withCommand gives every scenario of ss a process recipe called name
// running command (split on spaces) instead of its own; "" leaves them be.
// A program that cannot be started is a configuration error. A scenario
// that cannot run a program's recipe (its family cannot, or it has etcd's
// auth on) is an error when exact says it was named exactly; one a prefix
// or glob matched is left out, and note says which, in one line. Leaving
// out every scenario is an error.
func withCommand(ss []scenarios.Scenario, command, name string, exact func(string) bool) (out []scenarios.Scenario, note string, err error) {
	if command == "" {
		return ss, "", nil
	}
	argv := strings.Fields(command)
	if len(argv) == 0 {
		return nil, "", usagef("-command %q names no program", command)
	}
	if err := checkProgram("-command", argv); err != nil {
		return nil, "", configErr(err)
	}
	var skipped []scenarios.Scenario
	var reasons []string
	for _, s := range ss {
		c, err := s.WithCommand(name, argv)
		if err == nil {
			err = c.Validate()
		}
		if err != nil {
			reason := strings.Join(findings(c.Name, err), "; ")
			reason = strings.TrimPrefix(reason, "scenarios: "+s.Name+": ")
			if exact(s.Name) {
				return nil, "", configErr(fmt.Errorf("-command: %s cannot run a program's recipe: %s", s.Name, reason))
			}
			skipped, reasons = append(skipped, s), append(reasons, reason)
			continue
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, "", configErr(fmt.Errorf("-command: none of the scenarios matched can run a program's recipe: %s", skipList(skipped, reasons)))
	}
	if len(skipped) > 0 {
		note = fmt.Sprintf("simrun: -command: skipping %d of the %d scenarios matched, which cannot run a program's recipe: %s", len(skipped), len(ss), skipList(skipped, reasons))
	}
	return out, note, nil
}
