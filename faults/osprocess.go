package faults

import (
	"context"
	"fmt"

	"github.com/etcdsim/etcdsim/checker"
)

// OSProcess is implemented by a recipe value whose client runs in an
// operating-system process of its own (package scenarios/process), so that
// faults reach the process itself and not only its links. The workload
// hands such a value to Env.AttachProcess after it builds it.
//
// Pause freezes the process (Freeze, SIGSTOP) after its links are
// blackholed, and its heal thaws it (Thaw, SIGCONT) after the links are
// restored: the order a real pause takes, so that what the process sends
// first on waking reaches the cluster. A crash needs no hook: it closes
// the client's *clientv3.Client, whose context the recipe watches.
type OSProcess interface {
	// Freeze stops the process, as SIGSTOP does. Freezing a process that
	// has exited does nothing.
	Freeze()
	// Thaw lets a frozen process go on, as SIGCONT does.
	Thaw()
	// OnExit is called once, by AttachProcess, with the function the
	// process calls when it has ended on its own or broken the protocol
	// (the process is killed by then), saying why: the Env records it as
	// the client's crash and the workload starts the client afresh.
	OnExit(crashed func(reason string))
}

// AttachProcess tells the Env that client runs in process p, so that
// pauses of client freeze p and a p that ends on its own is recorded as
// the client's crash (a KindCrash operation and a "process-exit" fault
// event whose detail is the reason) and its next Gate().Step returns
// ErrRestarted. A client started afresh is attached again; the later
// process replaces the earlier.
func (e *Env) AttachProcess(client string, p OSProcess) {
	e.gate.attach(client, p)
	p.OnExit(func(reason string) {
		if !e.gate.attached(client, p) {
			return // a process the client has replaced already
		}
		ctx := context.Background()
		now := e.clock.Now()
		e.log.add(e, checker.FaultEvent{Name: fmt.Sprintf("process-exit(client %s)", client), Action: "process-exit",
			Targets: []string{client}, Start: now, End: now, Healed: true, Detail: reason})
		e.rec.Instant(ctx, client, checker.KindCrash, "", checker.Input{}, checker.Output{})
		e.gate.Crash(client)
		e.gate.Restart(client)
	})
}
