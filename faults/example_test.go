package faults_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/internal/patience"
)

// A client writes while its answers are lost: the write is applied, but
// the client only hears a timeout. Then a timeline kills whoever leads for
// a second; the schedule heals it and the cluster takes writes again.
//
// The example runs a cluster on the real clock: an Example has no
// *testing.T, so it cannot enter a synctest bubble. Its deadlines stretch
// with the machine's load (patience.Scale).
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{Members: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	c1, _ := c.Client("c1")
	c2, _ := c.Client("c2")
	c1.Put(ctx, "greeting", "hi") // connect before the answers go missing

	env := faults.NewEnv(c, faults.Config{Seed: 1})
	heal, err := env.Inject(ctx, faults.LoseResponses(faults.Client("c1")))
	if err != nil {
		fmt.Println(err)
		return
	}
	// No answer comes whatever the deadline: it bounds only how long c1
	// waits, time enough on a slow machine for the write to be applied.
	pctx, pcancel := context.WithTimeout(ctx, patience.Scale(time.Second))
	_, err = c1.Put(pctx, "greeting", "hello")
	pcancel()
	fmt.Println("c1 heard:", err)
	heal(ctx)
	resp, _ := c2.Get(ctx, "greeting")
	fmt.Println("c2 reads:", string(resp.Kvs[0].Value))

	lead, _ := c.Leader(ctx)
	tl := faults.Timeline{Seed: 1, Steps: []faults.Step{
		faults.At(0, time.Second, faults.Kill(faults.Leader)),
	}}
	fmt.Println("timeline:", tl.Run(ctx, env))
	_, err = c2.Put(ctx, "greeting", "back")
	fmt.Println("a write after the timeline:", err)

	for _, ev := range env.Log().Events() {
		who := strings.Join(ev.Targets, ", ")
		if who == lead.Name() {
			who = "the leader"
		}
		fmt.Printf("%s on %s, healed: %v\n", ev.Name, who, ev.Healed)
	}
	// Output:
	// c1 heard: context deadline exceeded
	// c2 reads: hello
	// timeline: <nil>
	// a write after the timeline: <nil>
	// lose-responses(client c1) on c1, healed: true
	// kill(leader) on the leader, healed: true
}
