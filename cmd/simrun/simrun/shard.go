package simrun

import (
	"os"
	"strconv"
	"strings"

	"github.com/etcdsim/etcdsim/scenarios/results"
)

// parseShard reads -shard: "" (every run), "i/n", or "auto", which takes
// the index from JOB_COMPLETION_INDEX (as a Kubernetes indexed Job sets
// it) and the count from -shards, or else SHARD_COUNT.
func parseShard(text string, shards int) (results.Shard, error) {
	switch text {
	case "":
		return results.Shard{Index: 0, Count: 1}, nil
	case "auto":
		idx := os.Getenv("JOB_COMPLETION_INDEX")
		if idx == "" {
			return results.Shard{}, usagef("-shard auto: JOB_COMPLETION_INDEX is not set")
		}
		i, err := strconv.Atoi(idx)
		if err != nil {
			return results.Shard{}, usagef("-shard auto: JOB_COMPLETION_INDEX %q is not a number", idx)
		}
		n := shards
		if n == 0 {
			c := os.Getenv("SHARD_COUNT")
			if c == "" {
				return results.Shard{}, usagef("-shard auto needs the shard count: -shards N or SHARD_COUNT")
			}
			if n, err = strconv.Atoi(c); err != nil {
				return results.Shard{}, usagef("-shard auto: SHARD_COUNT %q is not a number", c)
			}
		}
		return checkShard(results.Shard{Index: i, Count: n}, "-shard auto")
	}
	a, b, ok := strings.Cut(text, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return results.Shard{}, usagef("-shard %q: want i/n, such as 0/4, or auto", text)
	}
	return checkShard(results.Shard{Index: i, Count: n}, "-shard "+text)
}

func checkShard(s results.Shard, what string) (results.Shard, error) {
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return results.Shard{}, usagef("%s: shard %d of %d: want a count of at least 1 and an index from 0 to count-1", what, s.Index, s.Count)
	}
	return s, nil
}

// pickShard returns the jobs of shard s; jobs are sorted by key.
func pickShard(s results.Shard, jobs []job) []job {
	var out []job
	for i, j := range jobs {
		if i%s.Count == s.Index {
			out = append(out, j)
		}
	}
	return out
}
