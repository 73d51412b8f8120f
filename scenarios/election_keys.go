package scenarios

import (
	"strconv"
	"strings"
)

// electionOf is the election client (c1, …, o1, …) takes part in:
// Workload.Key, or with Workload.Elections above 1, Key1, Key2, … in turn.
func electionOf(w Workload, client string) string {
	if w.Elections <= 1 {
		return w.Key
	}
	i, err := strconv.Atoi(strings.TrimLeft(client, "co"))
	if err != nil || i < 1 {
		return w.Key
	}
	return w.Key + strconv.Itoa((i-1)%w.Elections+1)
}

// electionKeys are the key prefixes of w's elections: one per election.
func electionKeys(w Workload) []string {
	if w.Elections <= 1 {
		return []string{w.Key + "/"}
	}
	out := make([]string, w.Elections)
	for i := range out {
		out[i] = w.Key + strconv.Itoa(i+1) + "/"
	}
	return out
}
