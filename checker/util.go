package checker

import "fmt"

var sprintf = fmt.Sprintf

// plural renders n and a noun, adding "s" unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
