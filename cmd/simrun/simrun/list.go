package simrun

import (
	"encoding/json"
	"flag"
	"fmt"
	"text/tabwriter"
)

var listCommand = &command{
	name:    "list",
	usage:   "[-json]",
	summary: "list every scenario with its description and expectation",
	flags:   func(fs *flag.FlagSet) { listFlags(fs, new(bool)) },
}

func init() { listCommand.run = runList }

// listEntry is one scenario as list -json writes it.
type listEntry struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Expect      string `json:"expect"`
	Seed        string `json:"seed"`
}

func listFlags(fs *flag.FlagSet, asJSON *bool) {
	fs.BoolVar(asJSON, "json", false, "write a JSON array of {name, description, expect, seed}")
}

func runList(e *env, args []string) (int, error) {
	var asJSON bool
	pos, err := e.parseFlags(listCommand, args, func(fs *flag.FlagSet) { listFlags(fs, &asJSON) })
	if err != nil {
		return exitUsage, err
	}
	if len(pos) > 0 {
		return exitUsage, usagef("list takes no arguments (got %q)", pos)
	}
	var entries []listEntry
	for _, s := range e.all() {
		entries = append(entries, listEntry{Name: s.Name, Description: s.Description, Expect: s.Expect.String(), Seed: s.Seed.String()})
	}
	if asJSON {
		b, err := json.MarshalIndent(entries, "", "  ")
		if err != nil {
			return exitMissed, err
		}
		fmt.Fprintf(e.stdout, "%s\n", b)
		return exitOK, nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tEXPECT\tDESCRIPTION")
	for _, en := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", en.Name, en.Expect, en.Description)
	}
	return exitOK, tw.Flush()
}
