package faults_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/etcdsim/etcdsim/cluster"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { cluster.RemoveMemberBinary() }))
}
