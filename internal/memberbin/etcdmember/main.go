// Command etcdmember is the member binary: one etcd member as an
// operating-system program of its own, started by package memberbin for a
// cluster whose Config.MemberBinaries is set; it is not meant to be run by
// hand. It reads the member's configuration (memberbin.Spec) as one JSON
// line on stdin, runs etcd's embed package with it, and writes
// memberbin.Reports on stdout, etcd's logs on stderr.
//
// It ends when stdin closes (the cluster that started it is gone: its
// process died, so no member outlives it), at once; on SIGTERM it shuts
// etcd down gracefully, as a stopped member does; SIGKILL is a crash.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"google.golang.org/grpc"
	"google.golang.org/grpc/peer"

	"github.com/etcdsim/etcdsim/internal/memberbin"
)

func main() {
	if err := run(os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "etcdmember: %v\n", err)
		os.Exit(1)
	}
}

func run(stdin io.Reader, stdout, stderr io.Writer) error {
	in := bufio.NewReader(stdin)
	line, err := in.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("reading the member's configuration from stdin: %w", err)
	}
	var spec memberbin.Spec
	if err := json.Unmarshal(line, &spec); err != nil {
		return fmt.Errorf("the configuration on stdin is not a memberbin.Spec: %w", err)
	}
	out := &reporter{w: stdout}
	streams := &streamSet{out: out}
	e, err := start(spec, stderr, streams)
	if err != nil {
		return err
	}
	out.report(memberbin.Report{Kind: memberbin.Started, ID: uint64(e.Server.MemberID()),
		Peer: e.Peers[0].Listener.Addr().String(), Client: e.Clients[0].Addr().String()})

	orphaned := make(chan struct{})
	go func() {
		io.Copy(io.Discard, in) // until the cluster's end of the pipe closes
		close(orphaned)
	}()
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	go watchView(e, out, spec.ViewEvery)

	select {
	case <-e.Server.ReadyNotify():
		out.report(memberbin.Report{Kind: memberbin.Ready})
	case err := <-e.Err():
		return fmt.Errorf("etcd stopped while starting: %w", err)
	case <-e.Server.StopNotify():
		return errors.New("etcd stopped while starting")
	case <-orphaned:
		os.Exit(3)
	case <-term:
		e.Close()
		return nil
	}
	select {
	case err := <-e.Err():
		return fmt.Errorf("etcd failed while serving: %w", err)
	case <-e.Server.StopNotify():
		return errors.New("etcd stopped on its own")
	case <-orphaned:
		os.Exit(3) // no graceful end: nobody is left to see it
	case <-term:
		e.Close()
	}
	return nil
}

// start starts etcd. etcd's HTTP/JSON gateway dials the client URL as
// configured, so port 0 would leave it dialing 127.0.0.1:0: it gets a port
// the kernel just handed out, and another if someone takes that first.
func start(spec memberbin.Spec, logs io.Writer, streams *streamSet) (e *embed.Etcd, err error) {
	defer func() {
		if r := recover(); r != nil { // a fatal log panics with our logger
			err = fmt.Errorf("etcd panicked while starting: %v", r)
		}
	}()
	for try := 0; ; try++ {
		var addr string
		if addr, err = memberbin.FreePort(); err != nil {
			return nil, err
		}
		cfg, err := spec.Embed("127.0.0.1:0", addr)
		if err != nil {
			return nil, err
		}
		cfg.Logger = "zap"
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(logger(logs, spec.Name))
		cfg.GRPCAdditionalServerOptions = []grpc.ServerOption{grpc.ChainStreamInterceptor(streams.intercept)}
		e, err = embed.StartEtcd(cfg)
		if err == nil || try == 2 || !strings.Contains(err.Error(), "address already in use") {
			return e, err
		}
	}
}

// logger writes etcd's logs as the cluster's own members' logs read, one
// entry a line; a fatal log panics instead of exiting, so start can say
// what went wrong.
func logger(w io.Writer, name string) *zap.Logger {
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	core := zapcore.NewCore(zapcore.NewConsoleEncoder(enc), zapcore.Lock(zapcore.AddSync(w)), zapcore.InfoLevel)
	return zap.New(core, zap.WithFatalHook(zapcore.WriteThenPanic)).Named(name)
}

// reporter writes Reports, one JSON line each.
type reporter struct {
	mu sync.Mutex // guards w
	w  io.Writer
}

func (r *reporter) report(rep memberbin.Report) {
	b, _ := json.Marshal(rep)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.w.Write(append(b, '\n'))
}

// watchView reports the member's view of the leader and the term whenever
// it changes, looking every `every`. A binary stopped and resumed reports
// its view as it finds it on resuming.
func watchView(e *embed.Etcd, out *reporter, every time.Duration) {
	if every <= 0 {
		every = time.Millisecond
	}
	s := e.Server
	var lead, term uint64
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if l, tm := uint64(s.Leader()), s.Term(); l != lead || tm != term {
			lead, term = l, tm
			out.report(memberbin.Report{Kind: memberbin.View, Leader: l, Term: tm})
		}
		select {
		case <-t.C:
		case <-s.StopNotify():
			return
		}
	}
}

// streamSet counts the open client streams and reports their set when it
// changes, so the cluster can tell which member a client's lease
// keepalive or watch is on (Cluster.PinnedMember).
type streamSet struct {
	out  *reporter
	mu   sync.Mutex // guards open
	open map[memberbin.Stream]int
}

func (s *streamSet) intercept(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	p, ok := peer.FromContext(ss.Context())
	if !ok || p.Addr == nil {
		return handler(srv, ss)
	}
	k := memberbin.Stream{Addr: p.Addr.String(), Method: info.FullMethod}
	s.change(k, 1)
	defer s.change(k, -1)
	return handler(srv, ss)
}

func (s *streamSet) change(k memberbin.Stream, by int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open == nil {
		s.open = make(map[memberbin.Stream]int)
	}
	before := s.open[k] > 0
	s.open[k] += by
	if s.open[k] <= 0 {
		delete(s.open, k)
	}
	if before == (s.open[k] > 0) {
		return
	}
	all := make([]memberbin.Stream, 0, len(s.open))
	for k := range s.open {
		all = append(all, k)
	}
	// Under s.mu, so that reports leave in the order of the changes.
	s.out.report(memberbin.Report{Kind: memberbin.Streams, Streams: all})
}
