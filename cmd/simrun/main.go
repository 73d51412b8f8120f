// Command simrun runs etcdsim scenarios against real embedded etcd clusters
// and judges what they recorded. See package
// github.com/etcdsim/etcdsim/cmd/simrun/simrun for the commands.
package main

import "github.com/etcdsim/etcdsim/cmd/simrun/simrun"

func main() { simrun.Main() }
