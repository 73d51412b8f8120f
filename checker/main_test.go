package checker

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks for leaked goroutines: porcupine searches in goroutines,
// and a search cut short by its timeout must still end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
