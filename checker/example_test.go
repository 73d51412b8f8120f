package checker_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/etcdsim/etcdsim/checker"
)

// Two clients take turns holding lock /jobs and write to the resource it
// guards, presenting their fencing tokens. Then c1, back from a long pause,
// writes with its old token, and the resource rejects it. The history is
// checked for mutual exclusion and for fencing.
func Example() {
	ctx := context.Background()
	rec := checker.NewRecorder(checker.NewClock())
	rec.SetMeta(checker.Meta{RunID: "example", Seed: 1})
	for i, c := range []string{"c1", "c2"} {
		tok := int64(10 + i)
		rec.Invoke(ctx, c, checker.KindAcquire, "/jobs", checker.Input{}).OK(ctx, checker.Output{Token: tok})
		rec.Invoke(ctx, c, checker.KindGuardedWrite, "/jobs", checker.Input{Value: c, Token: tok}).OK(ctx, checker.Output{})
		rec.Invoke(ctx, c, checker.KindRelease, "/jobs", checker.Input{}).OK(ctx, checker.Output{})
	}
	late := rec.Invoke(ctx, "c1", checker.KindGuardedWrite, "/jobs", checker.Input{Value: "late", Token: 10})
	late.Fail(ctx, errors.New("stale fencing token"))

	h := rec.History()
	res := checker.Combine("locks",
		checker.MutualExclusion(h, checker.MutexOptions{}),
		checker.Fencing(h, checker.FencingOptions{}),
	)
	fmt.Println(res.Verdict)
	for _, p := range res.Parts {
		fmt.Printf("%s: %s: %s\n", p.Checker, p.Verdict, p.Summary)
	}
	// Output:
	// ok
	// mutual-exclusion: ok: 2 holds of 1 lock, 3 resource operations
	// fencing: ok: 2 guarded writes accepted, 1 stale write rejected, 0 unknown, over 1 resource
}

// A hand-built history in which c2 acquires a lock c1 still holds.
func ExampleMutualExclusion() {
	ms := time.Millisecond
	op := func(id int, client string, kind checker.Kind, call, ret time.Duration) checker.Operation {
		return checker.Operation{ID: id, Client: client, Kind: kind, Key: "/jobs",
			Call: call * ms, Return: ret * ms, Outcome: checker.OutcomeOK}
	}
	h := checker.History{Ops: []checker.Operation{
		op(0, "c1", checker.KindAcquire, 2900, 2980),
		op(1, "c2", checker.KindAcquire, 3000, 3412),
		op(2, "c1", checker.KindRelease, 4101, 4150),
		op(3, "c2", checker.KindRelease, 5000, 5020),
	}}
	res := checker.MutualExclusion(h, checker.MutexOptions{})
	fmt.Println(res.Verdict)
	for _, v := range res.Violations {
		fmt.Println(v.Message, v.OpIDs())
	}
	// Output:
	// violation
	// c2 acquired lock /jobs at 3.412s while c1 held it since 2.980s; c1 released at 4.101s [0 1 2]
}
