package libdial

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// A channel to any target that is not one of Endpoints' addresses gets
// nothing from the process-wide options: it dials as gRPC would.
func TestOtherTargetsDialAsGRPCWould(t *testing.T) {
	for _, target := range []string{"dns:///example.com:443", "passthrough:///127.0.0.1:2379", "etcd-endpoints://0x1/127.0.0.1:2379"} {
		u, err := url.Parse(target)
		if err != nil {
			t.Fatal(err)
		}
		if opt := (targetDialer{}).DialOptionForTarget(*u); opt != (grpc.EmptyDialOption{}) {
			t.Errorf("the dialer for %s is %T, want gRPC's own (an EmptyDialOption)", target, opt)
		}
		if opt := (targetInterceptors{}).DialOptionForTarget(*u); opt != (grpc.EmptyDialOption{}) {
			t.Errorf("the interceptor for %s is %T, want none (an EmptyDialOption)", target, opt)
		}
	}
}

// A channel to a life's address reaches the owner's network through
// Owner.Dial, with nothing but the address given to gRPC; when the life
// ends its connection closes and its addresses lead nowhere, and a dial
// of an address the harness did not give is refused and recorded.
func TestLifeRoutesItsAddresses(t *testing.T) {
	if !Installed() {
		t.Skip("this gRPC lacks the per-target dial options")
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	healthpb.RegisterHealthServer(srv, health.NewServer())
	go srv.Serve(lis)
	defer srv.Stop()

	var mu sync.Mutex // guards dialed and strays
	var dialed []string
	var strays []error
	life := NewLife(Owner{
		Name: "c1",
		Dial: func(ctx context.Context, addr string) (net.Conn, error) {
			mu.Lock()
			dialed = append(dialed, addr)
			mu.Unlock()
			var d net.Dialer
			return d.DialContext(ctx, "tcp", addr)
		},
		Stray:   func(err error) { mu.Lock(); strays = append(strays, err); mu.Unlock() },
		Crashed: errors.New("crashed"),
	})
	defer life.End()
	eps := life.Endpoints([]string{"m0"}, []string{"http://" + lis.Addr().String()})
	host := strings.TrimPrefix(eps[0], "http://")
	if !strings.HasPrefix(host, "m0.c1.l") || !strings.HasSuffix(host, ".etcdsim.invalid:2379") {
		t.Fatalf("Endpoints = %v, want m0.c1.l<life>.etcdsim.invalid:2379", eps)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cc, err := grpc.NewClient("passthrough:///"+host, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	if _, err := healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{}); err != nil {
		t.Fatalf("a call on the life's address: %v", err)
	}
	mu.Lock()
	got := dialed
	mu.Unlock()
	if len(got) == 0 || got[0] != lis.Addr().String() {
		t.Errorf("Owner.Dial dialed %v, want %s", got, lis.Addr())
	}

	life.End()
	if !life.Ended() || life.Context().Err() == nil {
		t.Errorf("after End: Ended %v, Context().Err() %v; want true and an error", life.Ended(), life.Context().Err())
	}
	again, err := grpc.NewClient("passthrough:///"+host, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	short, cancelShort := context.WithTimeout(ctx, 2*time.Second)
	defer cancelShort()
	if _, err := healthpb.NewHealthClient(again).Check(short, &healthpb.HealthCheckRequest{}); err == nil {
		t.Errorf("a call on an ended life's address succeeded")
	}

	stray := life.GuardedDialer(eps)
	if _, err := stray(ctx, "127.0.0.1:1"); !errors.Is(err, ErrStrayDial) || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("GuardedDialer of an address not given = %v, want ErrStrayDial naming it", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(strays) != 1 {
		t.Errorf("strays recorded: %v, want the one refusal", strays)
	}
}
