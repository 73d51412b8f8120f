package embedleak

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/version"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3lock/v3lockpb"
	"go.uber.org/zap"
)

// TestV3LockClientOutlivesClose starts one embedded member, makes one
// server-side Lock and Unlock, closes the client and the member, and
// counts the goroutines that stay. It passes while etcd leaks them, and
// skips once it no longer does.
func TestV3LockClientOutlivesClose(t *testing.T) {
	before := settle(runtime.NumGoroutine())
	var heapBefore runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&heapBefore)

	e, endpoint := startMember(t)
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	lease, err := cli.Grant(ctx, 5)
	if err != nil {
		t.Fatalf("grant: %v", err)
	}
	lc := v3lockpb.NewLockClient(cli.ActiveConnection())
	resp, err := lc.Lock(ctx, &v3lockpb.LockRequest{Name: []byte("embedleak"), Lease: int64(lease.ID)})
	if err != nil {
		t.Fatalf("lock: %v", err)
	}
	if _, err := lc.Unlock(ctx, &v3lockpb.UnlockRequest{Key: resp.Key}); err != nil {
		t.Fatalf("unlock: %v", err)
	}
	if _, err := cli.Revoke(ctx, lease.ID); err != nil {
		t.Fatalf("revoke: %v", err)
	}
	if err := cli.Close(); err != nil {
		t.Fatalf("close client: %v", err)
	}
	e.Close()

	after := settle(before)
	var heapAfter runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&heapAfter)
	grown := after - before
	t.Logf("etcd %s: %d goroutines before the member started, %d after it closed (%+d); heap in use %+d bytes",
		version.Version, before, after, grown, int64(heapAfter.HeapInuse)-int64(heapBefore.HeapInuse))
	frames := etcdFrames()
	for _, f := range frames {
		t.Logf("left behind:\n%s", f)
	}
	if grown <= 0 {
		t.Skipf("etcd %s no longer leaks the v3lock client after Close: drop this workaround note", version.Version)
	}
	if len(frames) == 0 {
		t.Errorf("%d goroutines more after Close, but none in etcd's code: the growth is not etcd's", grown)
	}
}

// startMember starts a one-member cluster on free loopback ports, logging
// nothing, and returns it with its client URL. Its directory is the
// test's.
func startMember(t *testing.T) (*embed.Etcd, string) {
	t.Helper()
	client, peer := freePort(t), freePort(t)
	cfg := embed.NewConfig()
	cfg.Name = "m0"
	cfg.Dir = t.TempDir()
	cfg.Logger = "zap"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.UnsafeNoFsync = true
	cfg.ListenMetricsUrls = nil
	cu := url.URL{Scheme: "http", Host: client}
	pu := url.URL{Scheme: "http", Host: peer}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{cu}, []url.URL{cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{pu}, []url.URL{pu}
	cfg.InitialCluster = "m0=" + pu.String()
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("start etcd: %v", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		t.Fatalf("etcd stopped while starting: %v", err)
	case <-time.After(10 * time.Second):
		e.Close()
		t.Fatal("etcd not ready after 10s")
	}
	return e, cu.String()
}

// freePort returns a loopback address the kernel just handed out and that
// nobody listens on any more.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// settle waits, up to 3s, for the goroutine count to come down to floor,
// and returns the count it settled at: what stays after the goroutines on
// their way out have gone.
func settle(floor int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(3 * time.Second); n > floor && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(50 * time.Millisecond)
	}
	return n
}

// etcdFrames returns the goroutines whose stacks run through etcd's code,
// as the goroutine profile prints them, one string each, with how many
// goroutines share the stack.
func etcdFrames() []string {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		return []string{fmt.Sprintf("goroutine profile: %v", err)}
	}
	var out []string
	for _, rec := range strings.Split(buf.String(), "\n\n") {
		if !strings.Contains(rec, "go.etcd.io/etcd/") {
			continue
		}
		var lines []string
		for _, l := range strings.Split(rec, "\n") {
			// Keep the count line and the function names, not the PCs.
			if i := strings.Index(l, "go.etcd.io/etcd/"); i >= 0 {
				l = "    " + l[i:]
			} else if !strings.Contains(l, "@ 0x") {
				continue
			}
			lines = append(lines, l)
		}
		out = append(out, strings.Join(lines, "\n"))
	}
	return out
}
