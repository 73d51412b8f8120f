package election

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	pb "go.etcd.io/etcd/server/v3/etcdserver/api/v3election/v3electionpb"
	"google.golang.org/grpc/status"
)

// NewServer returns an Elector that uses etcd's election service (the
// v3election gRPC API every member serves) instead of client-side
// transactions. The server runs concurrency.Election on the client's
// behalf, with the lease the client holds, so it has the same holes as the
// upstream Campaign (etcd #19597): this recipe closes them as NewRechecked
// does, by cancelling the call when the lease may be gone and checking the
// leader key with a linearizable read when it returns.
//
// The server's Resign succeeds silently for a key it no longer holds;
// Resign here first checks the key, so a resign of a lost leadership is an
// error wrapping ErrNotLeader.
func NewServer(cli *clientv3.Client, prefix string, opts Options) (Elector, error) {
	b, err := newBase(cli, prefix, opts, byCreate)
	if err != nil {
		return nil, err
	}
	return &server{base: b, ec: pb.NewElectionClient(cli.ActiveConnection())}, nil
}

type server struct {
	*base
	ec pb.ElectionClient
}

func (e *server) Campaign(ctx context.Context, value string) (Leadership, error) {
	g, err := e.hold(ctx)
	if err != nil {
		return nil, err
	}
	var lk *pb.LeaderKey
	err = waitGuarded(ctx, g, func(ctx context.Context) error {
		resp, err := e.ec.Campaign(ctx, &pb.CampaignRequest{Name: []byte(e.prefix), Lease: int64(g.ID()), Value: []byte(value)})
		if err == nil {
			lk = resp.Leader
		}
		return err
	})
	if err != nil {
		e.drop(ctx, g)
		return nil, fmt.Errorf("election: campaign on %s with lease %x through the election service: %w", e.prefix, int64(g.ID()), err)
	}
	if err := recheck(ctx, e.cli, string(lk.Key), lk.Rev, g); err != nil {
		e.drop(ctx, g)
		return nil, err
	}
	l := e.lead(string(lk.Key), lk.Rev, value, g)
	l.office = serverOffice{ec: e.ec, lk: lk}
	return l, nil
}

func (e *server) Leader(ctx context.Context) (LeaderInfo, error) {
	if err := e.checkOpen(); err != nil {
		return LeaderInfo{}, err
	}
	resp, err := e.ec.Leader(ctx, &pb.LeaderRequest{Name: []byte(e.prefix)})
	if err != nil {
		if status.Convert(err).Message() == concurrency.ErrElectionNoLeader.Error() {
			return LeaderInfo{}, fmt.Errorf("%w under %s", ErrNoLeader, e.pfx)
		}
		return LeaderInfo{}, fmt.Errorf("election: leader of %s from the election service: %w", e.prefix, err)
	}
	kv := resp.Kv
	return LeaderInfo{Key: string(kv.Key), Value: string(kv.Value), Term: kv.CreateRevision, Rev: kv.ModRevision}, nil
}

// Observe follows the election service's Observe stream, opening it again
// when it breaks.
func (e *server) Observe(ctx context.Context) <-chan LeaderInfo {
	out := make(chan LeaderInfo)
	e.obs.start(ctx, out, func(ctx context.Context, out chan<- LeaderInfo) {
		defer close(out)
		var last LeaderInfo
		for ctx.Err() == nil {
			stream, err := e.ec.Observe(ctx, &pb.LeaderRequest{Name: []byte(e.prefix)})
			for err == nil {
				var resp *pb.LeaderResponse
				if resp, err = stream.Recv(); err != nil {
					break
				}
				kv := resp.Kv
				info := LeaderInfo{Key: string(kv.Key), Value: string(kv.Value), Term: kv.CreateRevision, Rev: kv.ModRevision}
				if info == last {
					continue
				}
				select {
				case out <- info:
					last = info
				case <-ctx.Done():
					return
				}
			}
			pause(ctx, retryPause)
		}
	})
	return out
}

// serverOffice proclaims and resigns through the election service.
type serverOffice struct {
	ec pb.ElectionClient
	lk *pb.LeaderKey
}

func (o serverOffice) proclaim(ctx context.Context, l *leadership, value string) error {
	_, err := o.ec.Proclaim(ctx, &pb.ProclaimRequest{Leader: o.lk, Value: []byte(value)})
	if err != nil {
		if status.Convert(err).Message() == concurrency.ErrElectionNotLeader.Error() {
			return fmt.Errorf("%w: %s (term %d) is gone", ErrNotLeader, l.key, l.term)
		}
		return fmt.Errorf("election: proclaim %s through the election service: %w", l.key, err)
	}
	return nil
}

func (o serverOffice) resign(ctx context.Context, l *leadership) error {
	resp, err := l.cli.Get(ctx, l.key)
	if err != nil {
		return fmt.Errorf("election: resign %s: %w", l.key, err)
	}
	if len(resp.Kvs) == 0 || resp.Kvs[0].CreateRevision != l.term {
		return fmt.Errorf("%w: %s (term %d) was lost before the resign", ErrNotLeader, l.key, l.term)
	}
	if _, err := o.ec.Resign(ctx, &pb.ResignRequest{Leader: o.lk}); err != nil {
		return fmt.Errorf("election: resign %s through the election service: %w", l.key, err)
	}
	return nil
}

// The server recipe reads and follows the leader through the election
// service.
var (
	_ LeaderReader = (*server)(nil)
	_ Observer     = (*server)(nil)
)
