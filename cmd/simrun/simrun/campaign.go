package simrun

var campaignCommand = &command{name: "campaign", usage: "-f FILE", summary: "run a YAML matrix of scenarios, seeds, members and overrides",
	run: func(*env, []string) (int, error) { return exitUsage, usagef("not yet") }}
var mergeCommand = &command{name: "merge", usage: "-out DIR SHARD-DIR...", summary: "join the shard directories of one campaign into one",
	run: func(*env, []string) (int, error) { return exitUsage, usagef("not yet") }}

// Shard is one slice of a campaign's runs.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}
