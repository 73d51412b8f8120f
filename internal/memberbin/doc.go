// Package memberbin runs an etcd member as a binary of its own — a member
// binary — for a cluster whose Config.MemberBinaries is set: it builds the
// binary (the command etcdmember, from this module's source, once per
// process), starts one per member run, and speaks the line protocol
// between the two (Spec in, Reports out). Everything here is about the
// operating-system program around etcd: its build, its start, its signals
// (SIGSTOP, SIGCONT, SIGKILL, SIGTERM) and its death with the process that
// started it. What a member is to a cluster stays in package cluster.
//
// The binary runs etcd's embed package with the configuration the cluster
// would have used in its own process, so a member behaves the same
// whichever way it runs; only the program around it differs, which is
// what the signals reach.
//
//	path, err := memberbin.Binary(ctx)            // go build, first time only
//	s, err := memberbin.Start(ctx, memberbin.Options{Binary: path, Config: cfg, Log: log})
//	<-s.Ready()
//	s.Pause()                                     // SIGSTOP
//	s.Resume()                                    // SIGCONT
//	s.Halt()                                      // SIGKILL, and wait
package memberbin
