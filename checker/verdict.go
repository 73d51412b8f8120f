package checker

import "fmt"

// Verdict is what a checker concluded. The zero Verdict is VerdictUnknown,
// so a result nobody filled in never reads as ok.
type Verdict int

const (
	// VerdictUnknown: the checker could not decide (search timed out,
	// nothing to judge, a fault never healed).
	VerdictUnknown Verdict = iota
	// VerdictOK: the checker looked and found no violation.
	VerdictOK
	// VerdictViolation: the history breaks the property; the violations
	// name the operations that prove it.
	VerdictViolation
	// VerdictInvalid: the history cannot be judged (a return before its
	// call, a release with no acquire, two runs mixed...).
	VerdictInvalid
)

var verdictNames = [...]string{
	VerdictUnknown:   "unknown",
	VerdictOK:        "ok",
	VerdictViolation: "violation",
	VerdictInvalid:   "invalid",
}

func (v Verdict) String() string {
	if v >= 0 && int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// MarshalText encodes the verdict as its name ("ok", "violation"...).
func (v Verdict) MarshalText() ([]byte, error) {
	if v < 0 || int(v) >= len(verdictNames) {
		return nil, fmt.Errorf("checker: no such verdict %d", int(v))
	}
	return []byte(verdictNames[v]), nil
}

// UnmarshalText decodes a verdict's name.
func (v *Verdict) UnmarshalText(b []byte) error {
	for i, name := range verdictNames {
		if string(b) == name {
			*v = Verdict(i)
			return nil
		}
	}
	return fmt.Errorf("checker: no such verdict %q", b)
}

// severity orders verdicts for Combine: invalid > violation > unknown > ok.
func (v Verdict) severity() int {
	switch v {
	case VerdictOK:
		return 0
	case VerdictViolation:
		return 2
	case VerdictInvalid:
		return 3
	default:
		return 1
	}
}
