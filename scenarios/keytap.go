package scenarios

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/etcdsim/etcdsim/checker"
)

// This file records, from the client side, what a run's clients' etcd
// connections do with leases and keys — every lease granted (with the TTL
// given) or revoked, every key put with the lease it went on, every key or
// range deleted — whatever code made the call: the recipe, the library
// under it, the workload. A judge then reads the TTL the recipe used, the
// keys it wrote and those it took away again from the history
// (checker.KindLeaseGrant, checker.KindPut, checker.KindDeleteRange), not
// from the scenario's settings.
//
// The tap sits on each named client's gRPC connection as a unary
// interceptor, so it sees each attempt clientv3 makes, retries included.
// The recorder is made after the clients (its clock starts with the run),
// so the tap holds it in an atomic pointer and records nothing before it
// is set.

// keyTap records the lease and key calls of a run's clients.
type keyTap struct {
	rec atomic.Pointer[checker.Recorder]
}

// configure returns the ClientConfig.Configure that taps the client called
// name.
func (t *keyTap) configure(name string) func(*clientv3.Config) {
	return func(cfg *clientv3.Config) {
		cfg.DialOptions = append(cfg.DialOptions, grpc.WithChainUnaryInterceptor(t.unary(name), captureInterceptor)) // captureInterceptor: stm_capture.go
	}
}

// unary records the calls it knows of the client called name.
func (t *keyTap) unary(name string) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoke grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		rec := t.rec.Load()
		if rec == nil {
			return invoke(ctx, method, req, reply, cc, opts...)
		}
		var done func(error)
		switch r := req.(type) {
		case *pb.LeaseGrantRequest:
			done = t.grant(ctx, rec, name, r, reply)
		case *pb.LeaseRevokeRequest:
			done = t.revoke(ctx, rec, name, r, reply)
		case *pb.PutRequest:
			done = t.put(ctx, rec, name, r, reply)
		case *pb.DeleteRangeRequest:
			done = t.del(ctx, rec, name, r, reply)
		case *pb.TxnRequest:
			done = t.txn(ctx, rec, name, r, reply)
		}
		err := invoke(ctx, method, req, reply, cc, opts...)
		if done != nil {
			done(err)
		}
		return err
	}
}

func (t *keyTap) grant(ctx context.Context, rec *checker.Recorder, name string, r *pb.LeaseGrantRequest, reply any) func(error) {
	p := rec.Invoke(ctx, name, checker.KindLeaseGrant, "", checker.Input{})
	return func(err error) {
		resp, _ := reply.(*pb.LeaseGrantResponse)
		if err == nil && resp != nil && resp.Error != "" {
			p.Fail(ctx, errorString(resp.Error)) //nolint:errcheck // completed once
			return
		}
		if err != nil || resp == nil {
			complete(ctx, p, err)
			return
		}
		p.OK(ctx, checker.Output{Lease: resp.ID, TTL: time.Duration(resp.TTL) * time.Second}) //nolint:errcheck // completed once
	}
}

func (t *keyTap) revoke(ctx context.Context, rec *checker.Recorder, name string, r *pb.LeaseRevokeRequest, reply any) func(error) {
	p := rec.Invoke(ctx, name, checker.KindRevoke, "", checker.Input{})
	return func(err error) {
		resp, _ := reply.(*pb.LeaseRevokeResponse)
		if err != nil || resp == nil {
			complete(ctx, p, err)
			return
		}
		p.OK(ctx, checker.Output{Lease: r.ID, Revision: resp.GetHeader().GetRevision()}) //nolint:errcheck // completed once
	}
}

func (t *keyTap) put(ctx context.Context, rec *checker.Recorder, name string, r *pb.PutRequest, reply any) func(error) {
	if r.IgnoreLease {
		return nil // the key keeps a lease this call does not name
	}
	p := rec.Invoke(ctx, name, checker.KindPut, string(r.Key), checker.Input{})
	return func(err error) {
		resp, _ := reply.(*pb.PutResponse)
		if err != nil || resp == nil {
			complete(ctx, p, err)
			return
		}
		p.OK(ctx, checker.Output{Lease: r.Lease, Revision: resp.GetHeader().GetRevision()}) //nolint:errcheck // completed once
	}
}

func (t *keyTap) del(ctx context.Context, rec *checker.Recorder, name string, r *pb.DeleteRangeRequest, reply any) func(error) {
	p := rec.Invoke(ctx, name, checker.KindDeleteRange, string(r.Key), checker.Input{Value: string(r.RangeEnd)})
	return func(err error) {
		resp, _ := reply.(*pb.DeleteRangeResponse)
		if err != nil || resp == nil {
			complete(ctx, p, err)
			return
		}
		p.OK(ctx, checker.Output{Count: resp.Deleted, Revision: resp.GetHeader().GetRevision()}) //nolint:errcheck // completed once
	}
}

// txn records each put and delete of both branches as called; those of
// the branch that ran complete ok, the others failed.
func (t *keyTap) txn(ctx context.Context, rec *checker.Recorder, name string, r *pb.TxnRequest, reply any) func(error) {
	type tapped struct {
		p       *checker.Pending
		lease   int64
		del     int // the index of a delete's response in the branch's, -1 for a put
		success bool
	}
	var puts []tapped
	for _, branch := range []struct {
		ops     []*pb.RequestOp
		success bool
	}{{r.Success, true}, {r.Failure, false}} {
		for i, op := range branch.ops {
			if d := op.GetRequestDeleteRange(); d != nil {
				p := rec.Invoke(ctx, name, checker.KindDeleteRange, string(d.Key), checker.Input{Value: string(d.RangeEnd)})
				puts = append(puts, tapped{p, 0, i, branch.success})
				continue
			}
			put := op.GetRequestPut()
			if put == nil || put.IgnoreLease {
				continue
			}
			puts = append(puts, tapped{rec.Invoke(ctx, name, checker.KindPut, string(put.Key), checker.Input{}), put.Lease, -1, branch.success})
		}
	}
	if len(puts) == 0 {
		return nil
	}
	return func(err error) {
		resp, _ := reply.(*pb.TxnResponse)
		for _, x := range puts {
			switch {
			case err != nil || resp == nil:
				complete(ctx, x.p, err)
			case resp.Succeeded == x.success && x.del >= 0:
				var n int64
				if x.del < len(resp.Responses) {
					n = resp.Responses[x.del].GetResponseDeleteRange().GetDeleted()
				}
				x.p.OK(ctx, checker.Output{Count: n, Revision: resp.GetHeader().GetRevision()}) //nolint:errcheck // completed once
			case resp.Succeeded == x.success:
				x.p.OK(ctx, checker.Output{Lease: x.lease, Revision: resp.GetHeader().GetRevision()}) //nolint:errcheck // completed once
			default:
				x.p.Fail(ctx, errBranchNotRun) //nolint:errcheck // completed once
			}
		}
	}
}

// complete records a call that returned err: failed when etcd refused it
// (it took no effect), unknown otherwise (it may have).
func complete(ctx context.Context, p *checker.Pending, err error) {
	if err == nil {
		err = errorString("no response")
	}
	switch status.Code(err) {
	case codes.InvalidArgument, codes.NotFound, codes.PermissionDenied, codes.FailedPrecondition, codes.AlreadyExists, codes.Unauthenticated:
		p.Fail(ctx, err) //nolint:errcheck // completed once
	default:
		p.Unknown(ctx, err) //nolint:errcheck // completed once
	}
}

// errorString is an error that is its text.
type errorString string

func (e errorString) Error() string { return string(e) }

// errBranchNotRun is the error of a put in the branch of a transaction
// that did not run.
const errBranchNotRun = errorString("in the branch of the transaction that did not run")

// workloadKeys are the prefixes of the keys s's workload writes itself,
// beside its recipe (checker.Meta.WorkloadKeys).
func (s Scenario) workloadKeys() []string {
	if f := familyOf(s.Workload.Family); f != nil && f.workloadKeys != nil {
		return f.workloadKeys(s.Workload)
	}
	return nil
}

// unwatched says why KeysOnLeases cannot judge h, when its recipe's key
// writes were not seen: a recipe in another process (a program), or a
// library that dials etcd with a client of its own.
func unwatched(h checker.History) (string, bool) {
	if checker.RecipeWrites(h) > 0 {
		return "", false
	}
	return fmt.Sprintf("%s: not applicable: no key write of the recipe was seen on its clients' connections "+
		"(a recipe run as a program, or a library that dials etcd with a client of its own, writes where the harness does not watch)",
		checker.CheckerKeysOnLeases), true
}

// withNA returns na with name not applicable for why.
func withNA(na map[checker.Name]string, name checker.Name, why string) map[checker.Name]string {
	if na == nil {
		na = map[checker.Name]string{}
	}
	na[name] = why
	return na
}

// judgeKeys adds keys-on-leases to the checks of each of ss, the
// scenarios a correct recipe of a family whose keys live on leases must
// pass (LockSafety, ElectionSafety, DiscoverySafety, RWMutexSafety). A
// scenario with no checks of its own takes its family's, which have it.
func judgeKeys(ss []Scenario) []Scenario {
	for i := range ss {
		if len(ss[i].Checkers) > 0 && !slices.ContainsFunc(ss[i].Checkers, func(c Check) bool { return c.Name == checker.CheckerKeysOnLeases }) {
			ss[i].Checkers = append(slices.Clip(ss[i].Checkers), Check{Name: checker.CheckerKeysOnLeases})
		}
	}
	return ss
}
