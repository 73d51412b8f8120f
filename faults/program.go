package faults

import (
	"context"
	"fmt"

	"github.com/etcdsim/etcdsim/checker"
)

// Program is implemented by a recipe value whose client is a program of
// its own, run in an operating-system process (package program), so that
// faults reach the program itself and not only its links. The workload
// hands such a value to Env.AttachProgram after it builds it.
//
// Pause freezes the process (Freeze, SIGSTOP) after its links are
// blackholed, and its heal thaws it (Thaw, SIGCONT) after the links are
// restored: the order a real pause takes, so that what the process sends
// first on waking reaches the cluster. A crash needs no hook: it closes
// the client's *clientv3.Client, whose context the recipe watches.
type Program interface {
	// Freeze stops the process, as SIGSTOP does. Freezing a process that
	// has exited does nothing.
	Freeze()
	// Thaw lets a frozen process go on, as SIGCONT does.
	Thaw()
	// OnExit is called once, by AttachProgram, with the function the
	// process calls when it has ended on its own or broken the protocol
	// (the process is killed by then), saying why: the Env records it as
	// the client's crash and the workload starts the client afresh.
	OnExit(crashed func(reason string))
}

// AttachProgram tells the Env that client runs as program p, so that
// pauses of client freeze p and a p that ends on its own is recorded as
// the client's crash (a KindCrash operation and a "program-exit" fault
// event whose detail is the reason) and its next Gate().Step returns
// ErrRestarted. A client started afresh is attached again; the later
// program replaces the earlier.
func (e *Env) AttachProgram(client string, p Program) {
	e.gate.attach(client, p)
	p.OnExit(func(reason string) {
		if !e.gate.attached(client, p) {
			return // a program the client has replaced already
		}
		ctx := context.Background()
		now := e.clock.Now()
		e.log.add(e, checker.FaultEvent{Name: fmt.Sprintf("program-exit(client %s)", client), Action: "program-exit",
			Targets: []string{client}, Start: now, End: now, Healed: true, Detail: reason})
		e.rec.Instant(ctx, client, checker.KindCrash, "", checker.Input{}, checker.Output{})
		e.gate.Crash(client)
		e.gate.Restart(client)
	})
}
