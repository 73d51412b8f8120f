package scenarios

import (
	"context"
	"fmt"
	"strings"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/recipes/stm"
)

// stmTransfer runs one of a user's own transfers (stm.Transferer) from
// account from to account to and records it as a txn: the reads and
// writes of the accounts that its client's connection carried under the
// transfer's ctx (stm_capture.go), not what the transfer says it did.
//
// Its outcome: unknown if a write may or may not have taken effect;
// committed, at the revision of its last write, if it wrote and every
// write took effect, whatever the transfer returned; failed if it wrote
// nothing and returned an error; else ok and not committed (it read, and
// decided to write nothing).
func (w *world) stmTransfer(ctx context.Context, tr stm.Transferer, name string, accounts []string, from, to string, amount int64) {
	p := w.env.Recorder().Invoke(ctx, name, checker.KindTxn, "", checker.Input{})
	c := newTxnCapture(accounts)
	rctx, cancel := w.opCtx(ctx)
	err := tr.Transfer(withCapture(rctx, c), from, to, amount)
	cancel()
	reads, writes, rev, unknown, rewritten, calls := c.result()
	if calls == 0 && err == nil {
		w.notes.addOnce(fmt.Sprintf("stm recipe %q: a transfer returned having made no request to etcd under the ctx it was given, "+
			"so what it read and wrote went unrecorded: pass ctx to every call (for etcd's STM, concurrency.WithAbortContext(ctx))", w.s.Workload.Recipe))
	}
	if len(rewritten) > 0 {
		w.notes.addOnce(fmt.Sprintf("stm recipe %q: a transfer wrote %s more than once; only its last write to each is judged",
			w.s.Workload.Recipe, strings.Join(rewritten, " and ")))
	}
	p.SetWrites(writes) //nolint:errcheck // pending until completed below
	switch {
	case unknown:
		if err == nil {
			err = errWriteUnknown
		}
		p.Unknown(ctx, err)
	case len(writes) > 0:
		p.OK(ctx, checker.Output{Reads: reads, Succeeded: true, Revision: rev})
	case err != nil:
		p.Fail(ctx, err)
	default:
		p.OK(ctx, checker.Output{Reads: reads})
	}
}

// errWriteUnknown is the error of a transfer that returned nil although
// one of its writes got no response.
const errWriteUnknown = errorString("a write got no response, and may or may not have taken effect")
