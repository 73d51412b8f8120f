// Command soakcheck reads a simrun summary.json and checks that simrun's
// own goroutines, resident memory and open files — each run's parent
// figures — stay flat from one run to the end of the campaign:
//
//	soakcheck [-from 50] [-tolerance 0.1] results/soak/summary.json
//
// It prints the figures at both ends and exits 1 if one grew past the
// tolerance. make soak runs it after a 1000-run campaign.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	from := flag.Int("from", 50, "the run (1-based, in the summary's order) the figures are measured from")
	tol := flag.Float64("tolerance", 0.1, "how much a figure may grow, as a fraction of its value at -from")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: soakcheck [-from N] [-tolerance F] summary.json")
		os.Exit(2)
	}
	rep, err := checkFile(flag.Arg(0), *from, *tol)
	fmt.Print(rep)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soakcheck:", err)
		os.Exit(1)
	}
}
