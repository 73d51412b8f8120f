package checker

import (
	"testing"
	"time"
)

func FuzzLockLinearizable(f *testing.F) {
	fuzzChecker(f, func(h History) Result { return LockLinearizable(h, LinOptions{Timeout: 100 * time.Millisecond}).Result })
}

func FuzzRegisterLinearizable(f *testing.F) {
	fuzzChecker(f, func(h History) Result {
		return RegisterLinearizable(h, LinOptions{Timeout: 100 * time.Millisecond}).Result
	})
}
