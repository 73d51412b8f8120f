package cluster

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"golang.org/x/sync/errgroup"

	"github.com/etcdsim/etcdsim/internal/memberbin"
	"github.com/etcdsim/etcdsim/internal/memnet"
	"github.com/etcdsim/etcdsim/internal/patience"
	"github.com/etcdsim/etcdsim/internal/peertls"
)

// Cluster is a running multi-member etcd cluster inside this process, with a
// network the harness controls. Create one with Start or, in tests, New. A
// zero Cluster was never started: its calls fail with ErrClosed, and Close
// returns nil.
type Cluster struct {
	cfg    Config
	dir    string
	ownDir bool // dir was created by Start and is removed by Close
	token  string
	net    *network
	ca     *peertls.CA // issues the members' peer certificates, on the real clock

	mu        sync.Mutex // guards members, clients and what namedClient says it guards, harness, closed, nextIndex, attached
	members   []*Member
	clients   map[string]*namedClient
	harness   map[string]*clientv3.Client // per member, through its front proxy
	closed    bool
	nextIndex int
	attached  map[any]any // what packages built on the cluster keep with it (attach.go)

	lib libState // what libraries' clients left: their stray dials (libclient.go)

	closeOnce sync.Once
	closeErr  error
}

// New starts a cluster for a test: it fails the test if the cluster cannot
// start and closes the cluster when the test and its subtests end. The
// start may take DefaultStartTimeout stretched by the machine's load
// (patience.Scale): a loaded machine starts a real-clock cluster slowly.
func New(t testing.TB, cfg Config) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(DefaultStartTimeout))
	defer cancel()
	c, err := Start(ctx, cfg)
	if err != nil {
		t.Fatalf("cluster.New: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("cluster.Close: %v", err)
		}
	})
	return c
}

// closeSettle is how long Close waits, on the virtual clock, for what etcd
// leaves running briefly after its servers have stopped.
const closeSettle = 200 * time.Millisecond

// DefaultStartTimeout bounds Start when its context has no deadline.
const DefaultStartTimeout = time.Minute

// Start starts a cluster and waits until every member is ready and a leader
// is agreed. ctx bounds the start only, not the cluster's life: call Close.
// Without a deadline in ctx, DefaultStartTimeout applies. On error
// everything started so far is closed again.
func Start(ctx context.Context, cfg Config) (_ *Cluster, err error) {
	cfg, err = cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultStartTimeout)
		defer cancel()
	}
	if cfg.MemberBinaries {
		// Before the start's deadline: the first build takes a while.
		if _, err := memberbin.Binary(ctx); err != nil {
			return nil, err
		}
	}
	var mem *memnet.Net
	if cfg.Clock.Resolve() == ClockVirtual {
		if err := checkVirtual(); err != nil {
			return nil, err
		}
		mem = memnet.New()
	}
	c := &Cluster{
		cfg:     cfg,
		net:     newNetwork(cfg.Seed, mem, cfg.Latency),
		clients: make(map[string]*namedClient),
		harness: make(map[string]*clientv3.Client),
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, c.Close())
		}
	}()
	if cfg.DataDir == "" {
		if c.dir, err = os.MkdirTemp("", tempDirPrefix(cfg)); err != nil {
			return nil, fmt.Errorf("cluster: creating a temp dir: %w", err)
		}
		c.ownDir = true
	} else {
		if err := checkDataDir(cfg.DataDir); err != nil {
			return nil, err
		}
		c.dir = cfg.DataDir
	}
	c.token = "etcdsim-" + filepath.Base(c.dir)
	if mem == nil { // on the virtual clock the network itself says who dialed a peer
		if c.ca, err = peertls.NewCA(filepath.Join(c.dir, "certs")); err != nil {
			return nil, fmt.Errorf("cluster: making peer certificates: %w", err)
		}
	}
	if cfg.Auth != nil {
		if _, err := authTokenOption(cfg.Auth, filepath.Join(c.dir, "auth")); err != nil {
			return nil, err
		}
	}
	for range cfg.Members {
		if _, err := c.newMember(); err != nil {
			return nil, err
		}
	}
	peers := map[string]string{}
	for _, m := range c.members {
		peers[m.name] = m.PeerURL()
	}
	if c.token, err = tokenPicker(c.token, peers); err != nil {
		return nil, err
	}
	res, err := c.reserveFirstStart()
	if err != nil {
		return nil, err
	}
	var g errgroup.Group
	for _, m := range c.members {
		g.Go(func() error { return m.start("new") })
	}
	err = g.Wait()
	res.release()
	if err != nil {
		return nil, err
	}
	for _, m := range c.members {
		g.Go(func() error { return m.waitReady(ctx) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if _, err := c.Leader(ctx); err != nil {
		return nil, err
	}
	if err := c.enableAuth(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

func checkDataDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cluster: Config.DataDir: %w", err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "m") && e.IsDir() {
			return fmt.Errorf("cluster: Config.DataDir %s already holds member data (%s); use an empty directory or \"\" for a temp dir", dir, e.Name())
		}
	}
	return nil
}

// newMember prepares the next member (name, certificate, proxies, log)
// without starting it.
func (c *Cluster) newMember() (*Member, error) {
	c.mu.Lock()
	if err := c.openLocked(); err != nil {
		c.mu.Unlock()
		return nil, err
	}
	index := c.nextIndex
	c.nextIndex++
	c.mu.Unlock()
	name := fmt.Sprintf("m%d", index)
	m := &Member{c: c, name: name, index: index, dir: filepath.Join(c.dir, name)}
	var err error
	var peerTLS *tls.Config
	if c.ca != nil {
		if m.cert, m.tls, err = c.ca.Issue(name); err != nil {
			return nil, fmt.Errorf("cluster: certificate for %s: %w", name, err)
		}
		peerTLS = c.ca.ServerConfig(m.cert)
	}
	if m.log, err = newMemberLog(c.cfg.LogDir, name); err != nil {
		return nil, fmt.Errorf("cluster: log for %s: %w", name, err)
	}
	c.net.addMember(name)
	if m.peer, err = c.net.newProxy(name, "", peerTLS, false, ""); err != nil {
		return nil, fmt.Errorf("cluster: peer proxy for %s: %w", name, err)
	}
	if m.front, err = c.net.newProxy(name, "", nil, true, ""); err != nil {
		return nil, fmt.Errorf("cluster: client proxy for %s: %w", name, err)
	}
	c.mu.Lock()
	c.members = append(c.members, m)
	c.mu.Unlock()
	return m, nil
}

// initialCluster is etcd's --initial-cluster for the current membership.
func (c *Cluster) initialCluster() string {
	var parts []string
	for _, m := range c.Members() {
		parts = append(parts, m.name+"="+m.PeerURL())
	}
	return strings.Join(parts, ",")
}

func (c *Cluster) checkOpen() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.openLocked()
}

// openLocked is checkOpen with c.mu held.
func (c *Cluster) openLocked() error {
	switch {
	case c.closed:
		return ErrClosed
	case c.net == nil:
		return fmt.Errorf("%w: a zero Cluster was never started; use Start or New", ErrClosed)
	}
	return nil
}

// Members returns the cluster's members in order of creation, removed ones
// left out.
func (c *Cluster) Members() []*Member {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*Member, 0, len(c.members))
	for _, m := range c.members {
		m.mu.Lock()
		removed := m.state == stateRemoved
		m.mu.Unlock()
		if !removed {
			out = append(out, m)
		}
	}
	return out
}

// Member returns the member called name.
func (c *Cluster) Member(name string) (*Member, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	var names []string
	for _, m := range c.Members() {
		if m.name == name {
			return m, nil
		}
		names = append(names, m.name)
	}
	return nil, fmt.Errorf("%w %q (members: %v)", ErrUnknownNode, name, names)
}

// Dir returns the directory that holds the members' data.
func (c *Cluster) Dir() string { return c.dir }

// Config returns the configuration with its defaults filled in.
func (c *Cluster) Config() Config { return c.cfg }

// Close stops every member, client and proxy, waits for every goroutine the
// cluster started and removes the temp dir. It is safe to call more than
// once and on a cluster that did not finish starting; on a zero Cluster or
// a nil *Cluster it does nothing and returns nil.
func (c *Cluster) Close() error {
	if c == nil {
		return nil
	}
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		members := c.members
		c.mu.Unlock()
		var errs []error
		errs = append(errs, c.closeClients())
		var wg sync.WaitGroup
		errc := make(chan error, len(members))
		for _, m := range members {
			wg.Go(func() { errc <- m.closeForCluster() })
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			errs = append(errs, err)
		}
		if c.net != nil {
			c.net.close()
			if c.net.mem != nil {
				// etcd's lease-renewal forwarder (EtcdServer.LeaseRenew, run
				// by a goroutine the keep-alive handler leaves behind) sleeps
				// 50ms between tries and sees its stream cancelled only
				// after: let it end before the bubble's time stops with the
				// run. Virtual time: it costs nothing.
				time.Sleep(closeSettle)
			}
		}
		if c.ownDir && c.dir != "" {
			if err := os.RemoveAll(c.dir); err != nil {
				errs = append(errs, fmt.Errorf("cluster: removing %s: %w", c.dir, err))
			}
		}
		c.closeErr = errors.Join(errs...)
	})
	return c.closeErr
}
