// Package faults injects faults into a cluster.Cluster: a vocabulary of
// actions aimed at targets chosen by role, fired by time or by what the
// workload is doing, in schedules that replay exactly from a seed.
//
// docs/faults.md describes every fault of the vocabulary.
//
// A fault is a value, an action aimed at a target: Kill(Leader),
// Partition(Minority), Pause(Client("c2")), Cut(Leader, Follower). Its
// targets are resolved when it fires, from the cluster's state at that
// moment, or from what the workload recorded: LockHolder("L") is the
// client whose recorded acquire of lock L holds now. Injecting returns the
// heal, the way context.WithCancel returns cancel:
//
//	env := faults.NewEnv(c, faults.Config{Recorder: rec})
//	heal, err := env.Inject(ctx, faults.Isolate(faults.Leader))
//	...
//	defer heal(ctx)
//
// Every injection is an event (checker.FaultEvent) with the fault's name,
// the member and client names it hit, and its start and end on the run's
// clock, kept in the Env's Log and recorded on the run's recorder when it
// is injected and again when it is healed.
//
// Schedules fire faults for you and always heal them, on normal end, on
// cancel and on panic, then wait until the cluster is healthy again. A
// Timeline is explicit — at t, for d, this fault; when client c1 acquires
// lock L, pause it for 3s:
//
//	tl := faults.Timeline{
//		Seed: seed,
//		Steps: []faults.Step{
//			faults.At(1*time.Second, 2*time.Second, faults.Kill(faults.Leader)),
//		},
//		Triggers: []faults.Trigger{
//			faults.On(faults.Match{Kind: checker.KindAcquire, Key: "L"}, 3*time.Second,
//				faults.Pause(faults.LockHolder("L"))),
//		},
//	}
//	err := tl.Run(ctx, env)
//
// Run blocks; Start runs a schedule in the background and returns once its
// triggers are armed, so the workload can start right after it:
//
//	run, err := faults.Start(ctx, env, tl)
//	... // the workload
//	err = run.Wait() // or run.Stop() to end it early; both heal
//
// A Nemesis draws faults from a weighted mix in Jepsen's style. All the
// randomness of a schedule comes from its seed, so Plan gives the same
// faults, durations and targets for the same seed and cluster state.
//
// The workload plays its part through the Env: it records each operation
// of its clients once, on the Env's recorder (checker.Recorder) — the Env
// observes the recording and fires matching triggers before the recording
// call returns — and calls Gate().Step(ctx, client) before each step,
// which blocks while that client is paused or crashed and tells it when it
// has been restarted (ErrRestarted). It also tells the Env what its recipe
// does not offer (NoLease): a fault aimed at that — a lease revoke on a
// holder with no lease — does nothing and is recorded as not applicable to
// the recipe, with the reason (ErrNotApplicable); it is no error of the
// schedule, and the run is judged without it.
package faults
