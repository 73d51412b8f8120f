package scenarios

import (
	"context"
	"slices"
	"sync"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/etcdsim/etcdsim/checker"
)

// This file records, from a client's connection, what one user's transfer
// (stm.Transferer) read and wrote of the bank's accounts, whatever code
// made the calls: etcd's STM, a Txn with compares, plain Gets and Puts.
// The transfer's ctx carries a capture; an interceptor on every named
// client's connection (keyTap.configure) hands it each call made under
// that ctx. The model of a transaction it builds:
//
//   - a read is the value and mod revision of an account a range returned,
//     or the account missing from a range that covers it; an account read
//     twice keeps its last read;
//   - a Txn whose success branch writes and whose compares failed ends an
//     attempt: the transfer will read again, so the reads so far are
//     dropped (etcd's STM, and a compare-and-swap loop, retry this way);
//   - a write is a put to an account, in a plain Put or in the branch of a
//     Txn that ran, at the revision of its response's header; a put whose
//     call returned no response may have taken effect (its revision is
//     unknown), one etcd refused did not;
//   - clientv3 may send one request several times (its retries): the last
//     attempt's outcome is the request's.

// txnCaptureKey is the context key of a transfer's capture.
type txnCaptureKey struct{}

// withCapture returns ctx carrying c.
func withCapture(ctx context.Context, c *txnCapture) context.Context {
	return context.WithValue(ctx, txnCaptureKey{}, c)
}

// captureInterceptor hands each unary call made under a capture's ctx to
// the capture.
func captureInterceptor(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoke grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	err := invoke(ctx, method, req, reply, cc, opts...)
	if c, ok := ctx.Value(txnCaptureKey{}).(*txnCapture); ok {
		c.saw(req, reply, err)
	}
	return err
}

// txnCapture is what one transfer did to the accounts.
type txnCapture struct {
	accounts []string // the bank's accounts, sorted

	mu     sync.Mutex                  // guards the rest
	calls  int                         // the calls made under the ctx
	reads  map[string]checker.KeyValue // this attempt's reads, by account
	writes map[any][]capturedWrite     // each request's writes, as its last attempt left them
	order  []any                       // the requests that wrote, first attempt first
}

// capturedWrite is a put to an account: at Revision if it took effect
// there; Revision 0 and unknown if it may have.
type capturedWrite struct {
	kv      checker.KeyValue
	unknown bool
}

func newTxnCapture(accounts []string) *txnCapture {
	return &txnCapture{accounts: slices.Sorted(slices.Values(accounts)), reads: map[string]checker.KeyValue{}, writes: map[any][]capturedWrite{}}
}

// saw records one call: its request, its reply and its error.
func (c *txnCapture) saw(req, reply any, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	switch r := req.(type) {
	case *pb.RangeRequest:
		if resp, ok := reply.(*pb.RangeResponse); ok && err == nil {
			c.ranged(r, resp)
		}
	case *pb.PutRequest:
		resp, _ := reply.(*pb.PutResponse)
		c.wrote(req, []*pb.PutRequest{r}, resp.GetHeader().GetRevision(), err)
	case *pb.TxnRequest:
		c.txn(r, reply, err)
	}
}

// txn records a Txn: the reads and puts of the branch that ran.
func (c *txnCapture) txn(r *pb.TxnRequest, reply any, err error) {
	resp, _ := reply.(*pb.TxnResponse)
	if err != nil || resp == nil {
		// Either branch may have run: what it put may have taken effect.
		var puts []*pb.PutRequest
		for _, op := range slices.Concat(r.Success, r.Failure) {
			if p := op.GetRequestPut(); p != nil {
				puts = append(puts, p)
			}
		}
		c.wrote(r, puts, 0, err)
		return
	}
	ran := r.Success
	if !resp.Succeeded {
		ran = r.Failure
		if slices.ContainsFunc(r.Success, func(op *pb.RequestOp) bool { return op.GetRequestPut() != nil }) {
			clear(c.reads) // the commit's compares failed: the attempt is over
		}
	}
	var puts []*pb.PutRequest
	for i, op := range ran {
		switch {
		case op.GetRequestPut() != nil:
			puts = append(puts, op.GetRequestPut())
		case op.GetRequestRange() != nil && i < len(resp.Responses):
			if rr := resp.Responses[i].GetResponseRange(); rr != nil {
				c.ranged(op.GetRequestRange(), rr)
			}
		}
	}
	c.wrote(r, puts, resp.GetHeader().GetRevision(), nil)
}

// ranged records the accounts a range returned, and those it covers but
// did not return as missing.
func (c *txnCapture) ranged(r *pb.RangeRequest, resp *pb.RangeResponse) {
	if r.KeysOnly || r.CountOnly || r.Limit > 0 && resp.More {
		return // no values, or not every key it covers
	}
	got := map[string]bool{}
	for _, kv := range resp.Kvs {
		k := string(kv.Key)
		if c.account(k) {
			got[k] = true
			c.reads[k] = checker.KeyValue{Key: k, Value: string(kv.Value), Revision: kv.ModRevision}
		}
	}
	for _, k := range c.accounts {
		if !got[k] && covers(r, k) {
			c.reads[k] = checker.KeyValue{Key: k, Missing: true}
		}
	}
}

// covers reports whether range r covers key k.
func covers(r *pb.RangeRequest, k string) bool {
	switch end := string(r.RangeEnd); {
	case end == "":
		return k == string(r.Key)
	case end == "\x00":
		return k >= string(r.Key)
	default:
		return k >= string(r.Key) && k < end
	}
}

// wrote records the puts of one attempt of request req: at rev if it
// returned, unknown if it may have taken effect, none if etcd refused it.
func (c *txnCapture) wrote(req any, puts []*pb.PutRequest, rev int64, err error) {
	var ws []capturedWrite
	for _, p := range puts {
		k := string(p.Key)
		if !c.account(k) {
			continue
		}
		switch {
		case err == nil:
			ws = append(ws, capturedWrite{kv: checker.KeyValue{Key: k, Value: string(p.Value), Revision: rev}})
		case !refused(err):
			ws = append(ws, capturedWrite{kv: checker.KeyValue{Key: k, Value: string(p.Value)}, unknown: true})
		}
	}
	if _, seen := c.writes[req]; !seen {
		c.order = append(c.order, req)
	}
	c.writes[req] = ws
}

// refused reports whether err says etcd refused a request, which then
// took no effect.
func refused(err error) bool {
	switch status.Code(err) {
	case codes.InvalidArgument, codes.NotFound, codes.PermissionDenied, codes.FailedPrecondition, codes.AlreadyExists, codes.Unauthenticated:
		return true
	}
	return false
}

func (c *txnCapture) account(k string) bool {
	_, ok := slices.BinarySearch(c.accounts, k)
	return ok
}

// result returns what the transfer did: its reads in account order; its
// writes, the last to each account, with the revision each took effect
// at (0 if unknown); the revision of the last; whether any may or may
// not have taken effect; the accounts it wrote more than once (only the
// last write to each is kept); and how many calls it made under its ctx.
func (c *txnCapture) result() (reads, writes []checker.KeyValue, rev int64, unknown bool, rewritten []string, calls int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range c.accounts {
		if r, ok := c.reads[k]; ok {
			reads = append(reads, r)
		}
	}
	last := map[string]capturedWrite{}
	for _, req := range c.order {
		for _, w := range c.writes[req] {
			if _, again := last[w.kv.Key]; again && !slices.Contains(rewritten, w.kv.Key) {
				rewritten = append(rewritten, w.kv.Key)
			}
			last[w.kv.Key] = w
		}
	}
	for _, k := range c.accounts {
		w, ok := last[k]
		if !ok {
			continue
		}
		writes = append(writes, w.kv)
		rev = max(rev, w.kv.Revision)
		unknown = unknown || w.unknown
	}
	return reads, writes, rev, unknown, rewritten, c.calls
}
