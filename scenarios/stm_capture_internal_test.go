package scenarios

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/etcdsim/etcdsim/checker"
)

// What a transfer's capture makes of the calls its client's connection
// carried: each case is a sequence of calls and the transaction it adds
// up to.
func TestTxnCapture(t *testing.T) {
	get := func(key string) *pb.RangeRequest { return &pb.RangeRequest{Key: []byte(key)} }
	got := func(rev int64, kvs ...*mvccpb.KeyValue) *pb.RangeResponse {
		return &pb.RangeResponse{Header: &pb.ResponseHeader{Revision: rev}, Kvs: kvs}
	}
	kv := func(key, value string, mod int64) *mvccpb.KeyValue {
		return &mvccpb.KeyValue{Key: []byte(key), Value: []byte(value), ModRevision: mod}
	}
	put := func(key, value string) *pb.RequestOp {
		return &pb.RequestOp{Request: &pb.RequestOp_RequestPut{RequestPut: &pb.PutRequest{Key: []byte(key), Value: []byte(value)}}}
	}
	rangeOp := func(key string) *pb.RequestOp {
		return &pb.RequestOp{Request: &pb.RequestOp_RequestRange{RequestRange: get(key)}}
	}
	rangeResp := func(r *pb.RangeResponse) *pb.ResponseOp {
		return &pb.ResponseOp{Response: &pb.ResponseOp_ResponseRange{ResponseRange: r}}
	}
	committed := func(rev int64, ok bool, resps ...*pb.ResponseOp) *pb.TxnResponse {
		return &pb.TxnResponse{Header: &pb.ResponseHeader{Revision: rev}, Succeeded: ok, Responses: resps}
	}
	transfer := &pb.TxnRequest{Success: []*pb.RequestOp{put("a", "-5"), put("b", "5")}}
	type call struct {
		req, reply any
		err        error
	}
	lost := status.Error(codes.Unavailable, "connection lost")
	for _, tc := range []struct {
		name      string
		calls     []call
		reads     []checker.KeyValue
		writes    []checker.KeyValue
		rev       int64
		unknown   bool
		rewritten []string
	}{
		{name: "two gets and a txn", calls: []call{
			{get("a"), got(3, kv("a", "7", 3)), nil},
			{get("b"), got(3), nil},
			{transfer, committed(4, true), nil},
		}, reads: []checker.KeyValue{{Key: "a", Value: "7", Revision: 3}, {Key: "b", Missing: true}},
			writes: []checker.KeyValue{{Key: "a", Value: "-5", Revision: 4}, {Key: "b", Value: "5", Revision: 4}}, rev: 4},
		{name: "a range over the accounts and a key that is none", calls: []call{
			{&pb.RangeRequest{Key: []byte("a"), RangeEnd: []byte("c")}, got(3, kv("a", "7", 3)), nil},
			{get("x"), got(3, kv("x", "1", 2)), nil},
		}, reads: []checker.KeyValue{{Key: "a", Value: "7", Revision: 3}, {Key: "b", Missing: true}}},
		{name: "a failed compare ends the attempt; the else branch's reads begin the next", calls: []call{
			{get("a"), got(3, kv("a", "7", 3)), nil},
			{&pb.TxnRequest{Success: transfer.Success, Failure: []*pb.RequestOp{rangeOp("a")}}, committed(5, false, rangeResp(got(5, kv("a", "9", 5)))), nil},
			{&pb.TxnRequest{Success: []*pb.RequestOp{put("a", "4")}}, committed(6, true), nil},
		}, reads: []checker.KeyValue{{Key: "a", Value: "9", Revision: 5}},
			writes: []checker.KeyValue{{Key: "a", Value: "4", Revision: 6}}, rev: 6},
		{name: "a commit with no response may have taken effect", calls: []call{
			{transfer, nil, lost},
		}, writes: []checker.KeyValue{{Key: "a", Value: "-5"}, {Key: "b", Value: "5"}}, unknown: true},
		{name: "a commit etcd refused did not", calls: []call{
			{transfer, nil, status.Error(codes.InvalidArgument, "too many operations")},
		}},
		{name: "a retried request's last attempt counts", calls: []call{
			{transfer, nil, lost},
			{transfer, committed(8, true), nil},
		}, writes: []checker.KeyValue{{Key: "a", Value: "-5", Revision: 8}, {Key: "b", Value: "5", Revision: 8}}, rev: 8},
		{name: "two puts of one account", calls: []call{
			{&pb.PutRequest{Key: []byte("a"), Value: []byte("1")}, &pb.PutResponse{Header: &pb.ResponseHeader{Revision: 2}}, nil},
			{&pb.PutRequest{Key: []byte("a"), Value: []byte("2")}, &pb.PutResponse{Header: &pb.ResponseHeader{Revision: 3}}, nil},
		}, writes: []checker.KeyValue{{Key: "a", Value: "2", Revision: 3}}, rev: 3, rewritten: []string{"a"}},
		{name: "a failed get reads nothing", calls: []call{
			{get("a"), nil, errors.New("no leader")},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTxnCapture([]string{"b", "a"})
			for _, x := range tc.calls {
				c.saw(x.req, x.reply, x.err)
			}
			reads, writes, rev, unknown, rewritten, calls := c.result()
			if calls != len(tc.calls) {
				t.Errorf("%d calls, want %d", calls, len(tc.calls))
			}
			type out struct {
				Reads, Writes []checker.KeyValue
				Rev           int64
				Unknown       bool
				Rewritten     []string
			}
			if d := cmp.Diff(out{tc.reads, tc.writes, tc.rev, tc.unknown, tc.rewritten}, out{reads, writes, rev, unknown, rewritten}); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}
