package gozero_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/zeromicro/go-zero/core/discov"
	"github.com/zeromicro/go-zero/core/logx"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/scenarios"

	"example.com/gozero"
)

// ttl is go-zero's lease TTL in these tests: the scenarios run below all
// lease for 1s, and go-zero reads one package variable for every
// publisher, so it is set once, before any runs.
const ttl = 1

func TestMain(m *testing.M) {
	discov.TimeToLive = ttl
	logx.Disable() // go-zero logs every reconnection to stdout
	verifyNone(m)
}

// scenariosUnder returns the discovery scenarios of go-zero's Publisher
// with its Subscriber whose backends lease for the package's TTL, on the
// real clock, over seeds 1 and 2.
func scenariosUnder(t *testing.T) []scenarios.Scenario {
	t.Helper()
	var out []scenarios.Scenario
	for _, s := range scenarios.DiscoveryPairSafety(gozero.Publisher, gozero.Subscriber) {
		if s.Workload.TTL != 0 && s.Workload.TTL.D() != ttl*time.Second {
			continue // standard-mix and partition-each-member lease for 3s and 2s
		}
		switch s.Name[strings.LastIndexByte(s.Name, '/')+1:] {
		case "revoke-lease", "crash-backend", "reregister":
			s.Cluster.RealClock = gozero.RealClock
			out = append(out, s)
		}
	}
	if len(out) != 3 {
		t.Fatalf("want 3 scenarios, got %d", len(out))
	}
	return scenarios.Seeds(1, 2, out...)
}

// go-zero's Publisher and Subscriber under etcdsim's discovery scenarios:
// a backend's lease revoked, backends crashed, each lease revoked in turn.
func TestPublisherWithSubscriber(t *testing.T) {
	if testing.Short() {
		t.Skip("real-clock scenarios, six at once, about 15 s")
	}
	for _, s := range scenariosUnder(t) {
		scenarios.TestParallel(t, s) // on the real clock a run mostly waits: six at once
	}
}

// A scenario of go-zero asked to run on the virtual clock is refused,
// with the reason it needs the real one.
func TestNeedsTheRealClock(t *testing.T) {
	s := scenariosUnder(t)[0]
	s.Cluster.Clock = "virtual"
	err := s.Validate()
	for _, want := range []string{"needs the real clock", "internal.(*stateWatcher).watch", "autoSync", "run go-zero on the real clock"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate on the virtual clock = %v; want the go-zero reason, naming its goroutines left behind (%q)", err, want)
		}
	}
}

// nowhere returns an endpoint where nothing listens.
func nowhere(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	return "http://" + addr
}

// client returns an etcd client of endpoints that is never used to dial.
func client(t *testing.T, endpoints ...string) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// go-zero pointed at endpoints where no etcd listens says so, naming
// them, instead of hanging.
func TestUnreachableEtcd(t *testing.T) {
	ep := nowhere(t)
	cli := client(t, ep)

	_, err := gozero.NewSubscriber(cli, "svc", discovery.Options{})
	if err == nil || !strings.Contains(err.Error(), ep) || !strings.Contains(err.Error(), "could not reach etcd") {
		t.Errorf("NewSubscriber through %s = %v; want an error naming the endpoint", ep, err)
	}

	reg, err := gozero.NewPublisher(cli, "svc", "10.0.0.1:80", discovery.Options{TTL: ttl * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = reg.Register(ctx)
	if err == nil || !strings.Contains(err.Error(), ep) || !strings.Contains(err.Error(), "could not publish") {
		t.Errorf("Register through %s = %v; want an error naming the endpoint", ep, err)
	}
	if err := reg.Close(); err != nil {
		t.Errorf("Close after a failed Register: %v", err)
	}
}

// Bad arguments are errors naming what is wrong.
func TestBadInput(t *testing.T) {
	ok := client(t, "http://127.0.0.1:2379")
	tests := []struct {
		name string
		new  func() error
		want string
		is   error
	}{
		{name: "in-memory endpoint", want: `endpoint "m0:2379" is not an http URL`, new: func() error {
			_, err := gozero.NewSubscriber(client(t, "m0:2379"), "svc", discovery.Options{})
			return err
		}},
		{name: "empty service", is: discovery.ErrBadService, new: func() error {
			_, err := gozero.NewSubscriber(ok, "", discovery.Options{})
			return err
		}},
		{name: "nil client", want: "nil client", new: func() error {
			_, err := gozero.NewPublisher(nil, "svc", "10.0.0.1:80", discovery.Options{})
			return err
		}},
		{name: "empty address", is: discovery.ErrBadAddr, new: func() error {
			_, err := gozero.NewPublisher(ok, "svc", "", discovery.Options{})
			return err
		}},
		{name: "a TTL go-zero does not lease for", is: discovery.ErrBadTTL, want: "discov.TimeToLive", new: func() error {
			_, err := gozero.NewPublisher(ok, "svc", "10.0.0.1:80", discovery.Options{TTL: 5 * time.Second})
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.new()
			if err == nil || (tc.is != nil && !errors.Is(err, tc.is)) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v; want an error wrapping %v containing %q", err, tc.is, tc.want)
			}
		})
	}
}
