package checker

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// BankOptions configures BankTotal. The zero value expects a total of 0
// and keeps 20 violations.
type BankOptions struct {
	// Total is what every audit must find the accounts to sum to; 0 means
	// 0: accounts open empty and transfers only move money between them.
	Total int64
	// MaxViolations caps the violations kept in the result: 0 means 20,
	// negative keeps all.
	MaxViolations int
}

// BankTotal checks that transfers between accounts conserve money: every
// audit — a transaction that read every account — finds the accounts to
// sum to opts.Total.
//
// It reads txn operations with outcome ok. The accounts are the keys that
// any txn of the history reads or writes. A value's balance is its first
// space-separated field, a decimal integer ("-40 c2-17" holds -40: the
// rest of the value is free, so that a workload can make every write
// unique); a missing account holds 0. An audit is a txn whose
// Output.Reads name every account, committed or not (Output.Succeeded
// false): what a program read and acted on counts, whether or not the
// transaction committed.
//
// It is linear in the history: O(T·K) for T txns over K accounts.
//
// Invalid: a balance that is not an integer, whatever Serializable finds
// invalid of a txn, and whatever History.Validate rejects. With no audit
// the verdict is unknown.
func BankTotal(h History, opts BankOptions) Result {
	rep := newReport(CheckerBankTotal, opts.MaxViolations)
	t, err := txns(&h)
	if err != nil {
		return rep.invalid(err)
	}
	accounts := map[string]bool{}
	for _, i := range t.ops {
		op := &h.Ops[i]
		for _, w := range op.Input.Writes {
			accounts[w.Key] = true
		}
		for _, r := range op.Output.Reads {
			accounts[r.Key] = true
		}
	}
	keys := make([]string, 0, len(accounts))
	for k := range accounts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	audits := 0
	for _, i := range t.ops {
		op := &h.Ops[i]
		if op.Outcome != OutcomeOK || !readsAll(op, keys) {
			continue
		}
		audits++
		var sum int64
		for _, r := range op.Output.Reads {
			if r.Missing {
				continue
			}
			b, err := Balance(r.Value)
			if err != nil {
				return rep.invalid(invalidOp(op, "reads %s: %v", r.Key, err))
			}
			sum += b
		}
		if sum != opts.Total {
			rep.violation(ViolationTotalChanged, []*Operation{op},
				"audit op %d (%s at %s) found the accounts to sum to %d, want %d: %s",
				op.ID, op.Client, fmtTime(op.Call), sum, opts.Total, describeKVs(op.Output.Reads))
		}
	}
	rep.res.Metrics["audits"] = float64(audits)
	rep.res.Metrics["accounts"] = float64(len(keys))
	summary := sprintf("%s over %s", plural(audits, "audit"), plural(len(keys), "account"))
	undecided := ""
	if audits == 0 {
		undecided = "no transaction read every account (" + joinKeys(keys) + ")"
	}
	return rep.done(summary, undecided)
}

// Balance reads the balance a bank account's value holds: its first
// space-separated field, a decimal integer.
func Balance(value string) (int64, error) {
	f, _, _ := strings.Cut(value, " ")
	b, err := strconv.ParseInt(f, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("balance %q is not an integer (want a value such as \"-40 c2-17\")", f)
	}
	return b, nil
}
