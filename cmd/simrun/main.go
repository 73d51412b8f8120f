// Command simrun runs etcdsim scenarios against real embedded etcd clusters
// and judges what they recorded. See package
// github.com/etcdsim/etcdsim/cmd/simrun/simrun for the commands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/etcdsim/etcdsim/cmd/simrun/simrun"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// After the first signal a second one kills simrun at once.
	go func() { <-ctx.Done(); stop() }()
	code := simrun.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
