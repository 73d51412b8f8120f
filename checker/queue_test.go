package checker

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// Queue histories, the failing ones first.
var queueCases = []struct {
	name      string
	h         History
	want      Verdict
	wantMsg   string
	wantCount int // violations, if not 0
}{
	{
		name: "a dequeue of an item never enqueued",
		h: hist(
			mk("p1", KindEnqueue, "Q", 0, 1, value("a")),
			mk("c1", KindDequeue, "Q", 1, 2, read("a")),
			mk("c1", KindDequeue, "Q", 2, 3, read("zz")),
			mk("c1", KindDequeue, "Q", 4, 5, empty),
		),
		want:    VerdictViolation,
		wantMsg: `c1 dequeued item "zz" from queue Q at 3.000s, which nobody enqueued`,
	},
	{
		name: "an item dequeued twice",
		h: hist(
			mk("p1", KindEnqueue, "Q", 0, 1, value("a")),
			mk("c1", KindDequeue, "Q", 1, 2, read("a")),
			mk("c2", KindDequeue, "Q", 1, 2.5, read("a")),
		),
		want:    VerdictViolation,
		wantMsg: `item "a" of queue Q was dequeued twice`,
	},
	{
		name: "an item lost before the drain",
		h: hist(
			mk("p1", KindEnqueue, "Q", 0, 1, value("a")),
			mk("p1", KindEnqueue, "Q", 1, 2, value("b")),
			mk("c1", KindDequeue, "Q", 2, 3, read("a")),
			mk("c1", KindDequeue, "Q", 4, 5, empty),
		),
		want:    VerdictViolation,
		wantMsg: `1 item of queue Q never delivered ([b])`,
	},
	{
		name: "a dequeue returned before its item was enqueued",
		h: hist(
			mk("c1", KindDequeue, "Q", 0, 1, read("a")),
			mk("p1", KindEnqueue, "Q", 2, 3, value("a")),
		),
		want:    VerdictViolation,
		wantMsg: `before p1 began to enqueue it at 2.000s`,
	},
	{
		name: "an item enqueued twice",
		h: hist(
			mk("p1", KindEnqueue, "Q", 0, 1, value("a")),
			mk("p2", KindEnqueue, "Q", 0, 1, value("a")),
		),
		want:    VerdictInvalid,
		wantMsg: `item "a" enqueued twice`,
	},
	{
		name:    "an enqueue without an item",
		h:       hist(mk("p1", KindEnqueue, "Q", 0, 1)),
		want:    VerdictInvalid,
		wantMsg: "enqueue without an item",
	},
	{
		name: "an item a dequeue whose answer was lost took from everyone",
		h: hist(
			mk("p1", KindEnqueue, "Q", 0, 1, value("a")),
			mk("c1", KindDequeue, "Q", 2, never, gaveUp(3)),
			mk("c1", KindDequeue, "Q", 4, 5, empty),
		),
		want:    VerdictViolation,
		wantMsg: `1 item of queue Q never delivered ([a]), although c1 saw the queue empty at 5.000s; 1 dequeue of unknown outcome may have claimed some`,
	},
	{
		name: "an item a producer's put on one fixed key overwrote",
		h: hist(
			mk("p1", KindEnqueue, "Q", 0, 1, value("a")),
			putAt("p1", "Q/item", 0, 0.5),
			mk("p2", KindEnqueue, "Q", 1, 2, value("b")),
			putAt("p2", "Q/item", 0, 1.5),
			mk("c1", KindDequeue, "Q", 2.5, never, gaveUp(3)),
			mk("c1", KindDequeue, "Q", 3, 3.5, read("b")),
			mk("c1", KindDequeue, "Q", 4, 5, empty),
		),
		want:    VerdictViolation,
		wantMsg: `1 item of queue Q never delivered ([a]), although c1 saw the queue empty at 5.000s; item a was overwritten, not dequeued: p1's enqueue wrote it to key Q/item (op 1 at 0.500s), and p2 put the same key again at 1.500s (op 3) before anyone took it`,
	},
	{
		name: "a lower priority served while a higher one waited throughout",
		h: hist(
			mk("p1", KindEnqueue, "Q", 0, 1, value("urgent"), prio(0)),
			mk("p1", KindEnqueue, "Q", 1, 2, value("later"), prio(10)),
			mk("c1", KindDequeue, "Q", 3, 4, read("later")),
			mk("c2", KindDequeue, "Q", 5, 6, read("urgent")),
			mk("c1", KindDequeue, "Q", 7, 8, empty),
		),
		want:    VerdictViolation,
		wantMsg: `c1 dequeued item "later" (priority 10) from queue Q at 4.000s while item "urgent" (priority 0), enqueued by p1 at 1.000s, waited: c2 took it only at 6.000s`,
	},
	{
		name: "a higher priority whose taker overlapped: either may have claimed first",
		h: hist(
			mk("p1", KindEnqueue, "Q", 0, 1, value("urgent"), prio(0)),
			mk("p1", KindEnqueue, "Q", 1, 2, value("later"), prio(10)),
			mk("c1", KindDequeue, "Q", 3, 4, read("later")),
			mk("c2", KindDequeue, "Q", 3.5, 6, read("urgent")),
			mk("c1", KindDequeue, "Q", 7, 8, empty),
		),
		want: VerdictOK,
	},
	{
		name: "an item claimed by the client's dequeue whose answer was lost, delivered by its next",
		h: hist(
			mk("p1", KindEnqueue, "Q", 0, 1, value("later"), prio(10)),
			mk("c1", KindDequeue, "Q", 1.5, never),
			mk("p1", KindEnqueue, "Q", 2, 3, value("urgent"), prio(0)),
			mk("c1", KindDequeue, "Q", 4, 5, read("later")),
			mk("c2", KindDequeue, "Q", 6, 7, read("urgent")),
			mk("c1", KindDequeue, "Q", 8, 9, empty),
		),
		want: VerdictOK,
	},
	{
		name: "a higher priority taken late by a client that had claimed it before the dequeue",
		h: hist(
			mk("p1", KindEnqueue, "Q", 0, 1, value("urgent"), prio(0)),
			mk("p1", KindEnqueue, "Q", 1, 2, value("later"), prio(10)),
			mk("c2", KindDequeue, "Q", 2.5, never),
			mk("c1", KindDequeue, "Q", 3, 4, read("later")),
			mk("c2", KindDequeue, "Q", 5, 6, read("urgent")),
			mk("c1", KindDequeue, "Q", 7, 8, empty),
		),
		want: VerdictOK,
	},
	{
		name: "the same once an ok dequeue came between",
		h: hist(
			mk("p1", KindEnqueue, "Q", 0, 1, value("later"), prio(10)),
			mk("p1", KindEnqueue, "Q", 0, 1, value("first"), prio(10)),
			mk("c1", KindDequeue, "Q", 1.5, never),
			mk("c1", KindDequeue, "Q", 1.7, 1.9, read("first")),
			mk("p1", KindEnqueue, "Q", 2, 3, value("urgent"), prio(0)),
			mk("c1", KindDequeue, "Q", 4, 5, read("later")),
			mk("c2", KindDequeue, "Q", 6, 7, read("urgent")),
			mk("c1", KindDequeue, "Q", 8, 9, empty),
		),
		want:    VerdictViolation,
		wantMsg: `c1 dequeued item "later" (priority 10)`,
	},
	{
		name: "a higher priority enqueued while the dequeue ran",
		h: hist(
			mk("p1", KindEnqueue, "Q", 1, 2, value("later"), prio(10)),
			mk("p2", KindEnqueue, "Q", 2.5, 3.5, value("urgent"), prio(0)),
			mk("c1", KindDequeue, "Q", 3, 4, read("later")),
			mk("c2", KindDequeue, "Q", 5, 6, read("urgent")),
			mk("c1", KindDequeue, "Q", 7, 8, empty),
		),
		want: VerdictOK,
	},
	{
		name: "a higher priority never delivered is no witness, but lost",
		h: hist(
			mk("p1", KindEnqueue, "Q", 0, 1, value("urgent"), prio(0)),
			mk("p1", KindEnqueue, "Q", 1, 2, value("later"), prio(10)),
			mk("c2", KindDequeue, "Q", 2.5, never),
			mk("c1", KindDequeue, "Q", 3, 4, read("later")),
			mk("c1", KindDequeue, "Q", 7, 8, empty),
		),
		want:      VerdictViolation,
		wantMsg:   `never delivered ([urgent])`,
		wantCount: 1,
	},
	{
		name: "every item delivered once, concurrently",
		h: hist(
			mk("p1", KindEnqueue, "Q", 0, 1, value("a")),
			mk("c1", KindDequeue, "Q", 0, 1.5, read("a")),
			mk("p1", KindEnqueue, "Q", 1, 2, value("b")),
			mk("p2", KindEnqueue, "Q", 1, never, value("c")),
			mk("c2", KindDequeue, "Q", 1, 3, read("b")),
			mk("c2", KindDequeue, "Q", 4, 5, empty),
		),
		want: VerdictOK,
	},
	{
		name: "no drain: loss cannot be judged",
		h: hist(
			mk("p1", KindEnqueue, "Q", 0, 1, value("a")),
		),
		want: VerdictUnknown,
	},
}

func prio(p int64) mod { return func(op *Operation) { op.Input.Priority = p } }

func empty(op *Operation) { op.Output.Empty = true }

func TestQueueDelivery(t *testing.T) {
	for _, tt := range queueCases {
		t.Run(tt.name, func(t *testing.T) {
			res := QueueDelivery(tt.h, QueueOptions{})
			if res.Verdict != tt.want {
				t.Fatalf("verdict %s, want %s: %s %q", res.Verdict, tt.want, res.Summary, messages(res))
			}
			if tt.wantCount > 0 && res.Metrics["violations"] != float64(tt.wantCount) {
				t.Errorf("%v violations, want %d: %q", res.Metrics["violations"], tt.wantCount, messages(res))
			}
			if tt.wantMsg != "" && !slices.ContainsFunc(messages(res), func(m string) bool { return strings.Contains(m, tt.wantMsg) }) {
				t.Errorf("no sentence contains %q; have %q", tt.wantMsg, messages(res))
			}
		})
	}
}

// genQueueLoad: producers put unique items of four priorities on each
// queue, consumers take them in order, and a drain sees each queue empty
// at the end.
func genQueueLoad(queues, items int) History {
	const step = time.Microsecond
	var ops []Operation
	for q := range queues {
		key := fmt.Sprintf("/q/%d", q)
		t := time.Duration(q) * step
		for i := range items {
			v := fmt.Sprintf("q%d-%d", q, i)
			ops = append(ops,
				Operation{Client: fmt.Sprintf("p%d", i%5), Kind: KindEnqueue, Key: key, Input: Input{Value: v, Priority: int64(i % 4)}, Call: t, Return: t + step, Outcome: OutcomeOK},
				Operation{Client: fmt.Sprintf("c%d", i%5), Kind: KindDequeue, Key: key, Output: Output{Value: v}, Call: t, Return: t + 2*step, Outcome: OutcomeOK})
			t += 2 * step
		}
		ops = append(ops, Operation{Client: "c0", Kind: KindDequeue, Key: key, Output: Output{Empty: true}, Call: t, Return: t + step, Outcome: OutcomeOK})
	}
	for i := range ops {
		ops[i].ID = i
	}
	return History{Ops: ops}
}

// A 10-minute run of 10 clients, five producing and five consuming an item
// every 50 ms each, moves about 60,000 items; this judges 100,000.
func BenchmarkQueueDelivery(b *testing.B) {
	h := genQueueLoad(10, 10000)
	benchCheck(b, "ops", h, func(h History) Result { return QueueDelivery(h, QueueOptions{}) })
}
