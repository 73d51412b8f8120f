// Command gokitsim is simrun with go-kit's sd/etcdv3 scenarios added, so
// that a run of them can be run, listed and replayed as any other:
//
//	go run ./cmd/gokitsim run -out runs 'discovery/gokit-registrar/revoke-lease'
//	go run ./cmd/gokitsim replay runs/<run>/result.json
package main

import (
	"github.com/etcdsim/etcdsim/cmd/simrun/simrun"

	"example.com/gokit"
)

func main() { simrun.Main(gokit.Scenarios()...) }
