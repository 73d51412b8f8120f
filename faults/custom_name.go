package faults

import (
	"context"
	"fmt"
	"strings"
)

// A Custom fault is a function of the program that built it, so its text
// form is its name alone: "custom " followed by String's form,
// "custom wipe-disk(member m1)". Written into a run's files, it says what
// ran; read back, it is a fault known by name only, which the program
// that has the function swaps for its own (see NameOnly) — a replay
// through any other program fails the step, as a schedule error, with a
// sentence saying where the fault lives.

// customPrefix begins the text form of a Custom fault.
const customPrefix = "custom "

// NameOnly reports whether f was read from the text form of a Custom
// fault: it names the fault, but has no function to run. A program that
// defines the fault replaces f with its own (same String) before it runs
// the schedule.
func (f Fault) NameOnly() bool { return f.custom && f.named != "" }

// IsCustom reports whether f is a Custom fault, or one known by name only.
func (f Fault) IsCustom() bool { return f.custom }

// parseCustom reads the text form of a Custom fault, "custom NAME(...)",
// into a fault known by name only.
func parseCustom(text string) (Fault, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(text), customPrefix)
	rest = strings.TrimSpace(rest)
	if !ok || rest == "" {
		return Fault{}, false
	}
	name, _, _ := strings.Cut(rest, "(")
	return Fault{
		action: strings.TrimSpace(name),
		named:  rest,
		custom: true,
		apply: func(context.Context, *shot) (healFunc, string, error) {
			return noHeal, "", fmt.Errorf("custom fault %s is known here by name only: its function is in the program that defined it; "+
				"run the scenario through that program (its own simrun, built with simrun.Main, or its test)", rest)
		},
	}, true
}
