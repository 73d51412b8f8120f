package patience

import "time"

// Heartbeat is raft's heartbeat for a cluster on the real clock that must
// not change leaders because the machine is slow: the 10 ms a cluster
// takes by default, scaled (Scale) and whole milliseconds, as etcd counts
// them. The election timeout, ten heartbeats by default, stretches with
// it. A test that starts a real-clock cluster and needs its leader to
// stay gives it as cluster.Config.HeartbeatInterval: on two cores under
// load a 100 ms election timeout passes between two heartbeats, and a
// request in flight fails with "leader changed". Not every test should: a
// longer heartbeat lets a follower fall further behind the leader, so a
// serializable read at a revision just written may find its member short
// of it ("required revision is a future revision", as etcd's STM at
// SerializableSnapshot did in recipes/stm's Example).
func Heartbeat() time.Duration {
	return max(Scale(10*time.Millisecond).Round(time.Millisecond), 10*time.Millisecond)
}
