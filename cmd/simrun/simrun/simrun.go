package simrun

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/etcdsim/etcdsim/internal/bubble"
	"github.com/etcdsim/etcdsim/scenarios"
)

// Exit codes.
const (
	exitOK          = 0   // every run met its expectation
	exitMissed      = 1   // a run missed its expectation, or its harness failed
	exitUsage       = 2   // usage or configuration error; nothing ran
	exitInterrupted = 130 // stopped by SIGINT or SIGTERM, as a shell reports it
)

// Main runs simrun on the process's arguments under SIGINT and SIGTERM and
// exits with its code. extra are a program's own scenarios, added to the
// registered ones. A program with scenarios of its own names itself (its
// binary's name), not simrun, in the replay commands it writes: only it
// has their recipes.
func Main(extra ...scenarios.Scenario) {
	prog := "simrun"
	if len(extra) > 0 && len(os.Args) > 0 {
		prog = filepath.Base(os.Args[0])
	}
	// Runs on the virtual clock each open a synctest bubble, which needs a
	// *testing.T: the host gives the program one (see bubble.Host).
	bubble.Host(func() int {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		hard, kill := context.WithCancel(context.Background())
		defer kill()
		go func() { // a second signal kills the runs at once; a third kills simrun
			<-ctx.Done()
			stop()
			again := make(chan os.Signal, 1)
			signal.Notify(again, os.Interrupt, syscall.SIGTERM)
			select {
			case <-again:
				fmt.Fprintln(os.Stderr, "simrun: second signal: killing the runs now; the summary lists them as interrupted (a third signal kills simrun)")
				kill()
			case <-hard.Done():
			}
			signal.Stop(again)
		}()
		code := (&env{ctx: ctx, hard: hard, prog: prog, stdout: os.Stdout, stderr: os.Stderr, extra: extra}).main(os.Args[1:])
		stop()
		return code
	})
}

// Run runs simrun with args (without the program name) and returns its
// exit code. When ctx ends it starts no more runs, waits for the running
// ones to heal and close, writes what it has and returns 130. extra are
// scenarios added to the registered ones.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, extra ...scenarios.Scenario) int {
	return run(ctx, "simrun", args, stdout, stderr, extra...)
}

// run is Run for the program called prog.
func run(ctx context.Context, prog string, args []string, stdout, stderr io.Writer, extra ...scenarios.Scenario) int {
	e := &env{ctx: ctx, hard: context.Background(), prog: prog, stdout: stdout, stderr: stderr, extra: extra}
	return e.main(args)
}

// main runs simrun with args (without the program name) and returns its
// exit code.
func (e *env) main(args []string) int {
	stdout, stderr := e.stdout, e.stderr
	if len(args) == 0 {
		e.help()
		return exitUsage
	}
	name, rest := args[0], args[1:]
	if name == childCommand {
		return runChildCommand(e, rest)
	}
	if name == "help" || name == "-h" || name == "-help" || name == "--help" {
		if len(rest) > 0 {
			if c := lookupCommand(rest[0]); c != nil {
				e.commandHelp(c, stdout)
				return exitOK
			}
		}
		e.help()
		return exitOK
	}
	if err := checkUniqueNames(e.all(), len(scenarios.All())); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", e.prog, err)
		return exitUsage
	}
	c := lookupCommand(name)
	if c == nil {
		fmt.Fprintf(stderr, "simrun: unknown command %q; valid commands: %s\nRun 'simrun help' for usage.\n", name, strings.Join(commandNames(), ", "))
		return exitUsage
	}
	defer e.sweepLeftovers()()
	code, err := c.run(e, rest)
	if err != nil {
		var u usageError
		if errors.As(err, &u) {
			fmt.Fprintf(stderr, "simrun %s: %v\n", c.name, err)
			if u.usage {
				fmt.Fprintf(stderr, "usage: simrun %s %s\nRun 'simrun %s -h' for its flags.\n", c.name, c.usage, c.name)
			}
			return exitUsage
		}
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "simrun %s: %v\n", c.name, err)
		if code == exitOK {
			code = exitMissed
		}
	}
	return code
}

// env is what every command runs with.
type env struct {
	// ctx ends at the first signal: no more runs start, and the running
	// ones are told to stop, heal and close.
	ctx context.Context
	// hard ends at the second signal: a run still closing is killed at
	// once (a child process; a run in this process cannot be).
	hard           context.Context
	prog           string // the program, in the replay commands written: simrun or one's own (Main)
	stdout, stderr io.Writer
	extra          []scenarios.Scenario
}

// hardDone is e.hard's Done channel; nil, which never closes, without
// one.
func (e *env) hardDone() <-chan struct{} {
	if e.hard == nil {
		return nil
	}
	return e.hard.Done()
}

// replayCommand is the command that replays the run whose result.json is
// at path.
func (e *env) replayCommand(path string) string { return e.prog + " replay " + path }

// all returns the registered scenarios and the program's own.
func (e *env) all() []scenarios.Scenario {
	return append(scenarios.All(), e.extra...)
}

// command is one subcommand.
type command struct {
	name    string
	usage   string // the arguments, after "simrun <name>"
	summary string // one line for simrun help
	run     func(e *env, args []string) (int, error)
	flags   func(fs *flag.FlagSet) // registers the flags, for help; may be nil
}

var commands []*command // filled in by init, in the order help lists them

func init() {
	commands = []*command{listCommand, runCommand, galleryCommand, replayCommand, campaignCommand, mergeCommand, reportCommand, shrinkCommand, conformCommand, exploreCommand}
}

func lookupCommand(name string) *command {
	i := slices.IndexFunc(commands, func(c *command) bool { return c.name == name })
	if i < 0 {
		return nil
	}
	return commands[i]
}

func commandNames() []string {
	var out []string
	for _, c := range commands {
		out = append(out, c.name)
	}
	return append(out, "help")
}

// help lists the commands.
func (e *env) help() {
	w := e.stdout
	fmt.Fprintln(w, "simrun runs etcdsim scenarios against real embedded etcd clusters.")
	fmt.Fprintln(w, "\nUsage:\n\n\tsimrun <command> [flags] [arguments]\n\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'simrun <command> -h' for a command's flags.")
	fmt.Fprintln(w, "Exit codes: 0 every run met its expectation; 1 one did not (or its harness failed);")
	fmt.Fprintln(w, "2 usage or configuration error; 130 interrupted (results so far are written).")
}

func (e *env) commandHelp(c *command, w io.Writer) {
	fs := newFlagSet(c, w)
	if c.flags != nil {
		c.flags(fs)
	}
	fs.Usage()
}

// usageError is a usage or configuration error: exit code 2. usage says
// whether to print the command's usage line after it.
type usageError struct {
	err   error
	usage bool
}

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// usagef is a usage error that shows the usage line.
func usagef(format string, args ...any) error {
	return usageError{err: fmt.Errorf(format, args...), usage: true}
}

// configErr is a configuration error: exit code 2, no usage line.
func configErr(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err: err}
}

// newFlagSet is a flag set for c whose -h prints to w.
func newFlagSet(c *command, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("simrun "+c.name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: simrun %s %s\n\n%s\n", c.name, c.usage, c.summary)
		if hasFlags(fs) {
			fmt.Fprintln(w, "\nFlags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// parseFlags parses args with the flags register adds, flags and arguments in any order,
// and returns the arguments. -h prints the usage to stdout and returns
// flag.ErrHelp; a bad flag is a usage error.
func (e *env) parseFlags(c *command, args []string, register func(fs *flag.FlagSet)) ([]string, error) {
	fs := newFlagSet(c, e.stdout)
	if register != nil {
		register(fs)
	}
	var errBuf strings.Builder
	fs.SetOutput(&errBuf)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				io.WriteString(e.stdout, errBuf.String()) //nolint:errcheck // the usage, as flag wrote it
				return nil, flag.ErrHelp
			}
			return nil, usagef("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			pos = append(pos, args[1:]...)
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	return pos, nil
}
