package simrun

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// TestReadmeCommandsParse reads the README's simrun commands — every
// `simrun …` in a table, and every `go run ./cmd/simrun …` line of a code
// block — and parses each with simrun's own flag parsing, without running
// it: the command must exist, its flags be its own and their values of
// the right kind, and the scenarios run names must match registered ones.
// A README that shows a command simrun would refuse fails here.
func TestReadmeCommandsParse(t *testing.T) {
	cmds := readmeCommands(t, "../../../README.md")
	tables := 0
	for _, c := range cmds {
		if c.table {
			tables++
		}
	}
	if tables < len(commands)-1 { // the table shows every command but conform
		t.Fatalf("found %d simrun commands in the README's tables, want at least %d: has the table moved?", tables, len(commands)-1)
	}
	for _, c := range cmds {
		t.Run(fmt.Sprintf("line %d", c.line), func(t *testing.T) {
			args, err := shellWords(c.text)
			if err != nil {
				t.Fatalf("README line %d: %q: %v", c.line, c.text, err)
			}
			if err := parseOnly(args); err != nil {
				t.Errorf("README line %d: simrun %s: %v", c.line, strings.Join(args, " "), err)
			}
		})
	}
}

// TestParseOnlyRefuses checks that parseOnly, which the README test
// rests on, refuses what simrun would refuse.
func TestParseOnlyRefuses(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown command", []string{"runn", "lock/"}, `unknown command "runn"`},
		{"unknown flag", []string{"run", "-sed", "7", "lock/"}, "flag provided but not defined: -sed"},
		{"flag of another command", []string{"gallery", "-shard", "0/4"}, "flag provided but not defined: -shard"},
		{"bad value", []string{"run", "-runs", "many", "lock/"}, `invalid value "many" for flag -runs`},
		{"no such scenario", []string{"run", "lock/mutex/leadr-kill"}, `no scenario matches "lock/mutex/leadr-kill"`},
		{"fine", []string{"run", "-seed", "7", "-runs", "20", "lock/*/pause-holder"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := parseOnly(tt.args)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("parseOnly(%q) = %v; want %q", tt.args, err, tt.want)
			}
		})
	}
}

// parseOnly parses args (a simrun command line without "simrun") as
// simrun would, and runs nothing: the command, its flags, and for run the
// scenario names.
func parseOnly(args []string) error {
	if len(args) == 0 {
		return errors.New("no command")
	}
	c := lookupCommand(args[0])
	if c == nil {
		return fmt.Errorf("unknown command %q; valid commands: %s", args[0], strings.Join(commandNames(), ", "))
	}
	e := &env{prog: "simrun", stdout: io.Discard, stderr: io.Discard}
	pos, err := e.parseFlags(c, args[1:], c.flags)
	if err != nil {
		return err
	}
	if c == runCommand {
		if _, err := match(e.all(), pos); err != nil {
			return err
		}
	}
	if c == campaignCommand {
		fs := flag.NewFlagSet("", flag.ContinueOnError)
		var f campaignFlags
		f.register(fs)
		fs.SetOutput(io.Discard)
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if f.shard != "" && f.shard != "auto" {
			if _, err := parseShard(f.shard, 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// readmeCommand is a simrun command line the README shows.
type readmeCommand struct {
	line  int
	text  string // after "simrun "
	table bool   // in a table, not a code block
}

// readmeCommands finds the README's simrun commands: each `simrun …` code
// span of a table row, and each `go run ./cmd/simrun …` line of a code
// block (its comment cut off).
func readmeCommands(t *testing.T, path string) []readmeCommand {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []readmeCommand
	sc := bufio.NewScanner(f)
	inCode := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```"):
			inCode = !inCode
		case inCode:
			if _, rest, ok := strings.Cut(line, "go run ./cmd/simrun "); ok {
				if i := strings.Index(rest, " #"); i >= 0 {
					rest = rest[:i]
				}
				out = append(out, readmeCommand{line: n, text: strings.TrimSpace(rest)})
			}
		case strings.HasPrefix(line, "|"):
			spans := strings.Split(line, "`")
			for i := 1; i < len(spans); i += 2 {
				if rest, ok := strings.CutPrefix(spans[i], "simrun "); ok {
					out = append(out, readmeCommand{line: n, text: rest, table: true})
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// shellWords splits s into words as a POSIX shell would for the commands
// the README shows: on spaces, with '…' and "…" quoting.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c", quote)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
