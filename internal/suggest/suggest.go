// Package suggest orders valid names by how close each is to a name that
// is not valid, so that every "no such name" error of the project lists
// what would be valid, the likeliest first:
//
//	fmt.Errorf("no action %q; actions: %s", name, strings.Join(suggest.Nearest(name, actions), ", "))
package suggest

import (
	"cmp"
	"slices"
	"strings"
)

// Nearest returns names ordered by how close each is to want, the closest
// first: a name that want begins or that begins with want before the
// others, then by edit distance, then alphabetically. It is how every
// "no such name" error of the project lists what would be valid.
func Nearest(want string, names []string) []string {
	type scored struct {
		name   string
		prefix bool
		dist   int
	}
	lw := strings.ToLower(want)
	ss := make([]scored, len(names))
	for i, n := range names {
		ln := strings.ToLower(n)
		ss[i] = scored{
			name:   n,
			prefix: lw != "" && (strings.HasPrefix(ln, lw) || strings.HasPrefix(lw, ln) || strings.Contains(ln, lw)),
			dist:   distance(lw, ln),
		}
	}
	slices.SortStableFunc(ss, func(a, b scored) int {
		if a.prefix != b.prefix {
			if a.prefix {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.dist, b.dist), strings.Compare(a.name, b.name))
	})
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.name
	}
	return out
}

// distance is the Levenshtein distance between a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
