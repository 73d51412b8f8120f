package patience

import "time"

// Heartbeat is raft's heartbeat for a cluster on the real clock that must
// not change leaders because the machine is slow: the 10 ms a cluster
// takes by default, scaled (Scale) and whole milliseconds, as etcd counts
// them. The election timeout, ten heartbeats by default, stretches with
// it. Examples and tests that start a real-clock cluster and expect its
// leader to stay give it as cluster.Config.HeartbeatInterval: on two
// cores under load a 100 ms election timeout passes between two
// heartbeats, and a request in flight fails with "leader changed".
func Heartbeat() time.Duration {
	return max(Scale(10*time.Millisecond).Round(time.Millisecond), 10*time.Millisecond)
}
