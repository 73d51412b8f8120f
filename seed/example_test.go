package seed_test

import (
	"encoding/json"
	"fmt"

	"github.com/etcdsim/etcdsim/seed"
)

// A seed read from a flag gives the same random streams every time, and
// is written to JSON as a string so that a seed above 2^53 survives
// readers that hold numbers as float64.
func Example() {
	s, err := seed.Parse("18446744073709551615")
	if err != nil {
		fmt.Println(err)
		return
	}
	a, b := s.Rand(1), s.Rand(1)
	fmt.Println("same stream, same draws:", a.Uint64() == b.Uint64())
	out, _ := json.Marshal(struct{ Seed seed.Seed }{s})
	fmt.Println(string(out))
	_, err = seed.Parse("lucky")
	fmt.Println(err)
	// Output:
	// same stream, same draws: true
	// {"Seed":"18446744073709551615"}
	// seed: parse "lucky": want a whole number from 0 to 18446744073709551615
}
