// Command vitesssim is simrun with vitess's etcd2topo lock and election
// scenarios added, so that a run of them can be run, listed and replayed
// as any other:
//
//	go run ./cmd/vitesssim run -out runs 'lock/vitess-lock/long-hold'
//	go run ./cmd/vitesssim replay runs/<run>/result.json
package main

import (
	"time"

	"github.com/etcdsim/etcdsim/cmd/simrun/simrun"

	"example.com/vitess"
)

func main() {
	vitess.SetLeaseTTL(time.Second) // the election scenarios' TTL: etcd2topo reads one variable for the process
	simrun.Main(vitess.Scenarios()...)
}
