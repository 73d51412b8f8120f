package cluster

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime/pprof"
	"strconv"
	"strings"
)

// This file counts, per member, the goroutines that serve lease
// keep-alive streams. Every member runs in this one process, so a
// goroutine's stack does not say whose it is: the request gate runs each
// stream's handler under pprof labels naming the cluster and the member,
// and every goroutine the handler starts inherits them. The goroutine
// profile lists stacks with their labels; a sample counts those of one
// cluster's members whose stack is in etcd's keep-alive loop.

// The labels of a member's stream goroutines.
const (
	labelCluster = "etcdsim-cluster"
	labelMember  = "etcdsim-member"
)

// The frames that mark a keep-alive goroutine: the stream's handler, and
// the loop it starts that receives renewals and answers them (etcd
// v3.7.3, etcdserver/api/v3rpc/lease.go).
const (
	keepAliveHandler = "go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc.(*LeaseServer).LeaseKeepAlive"
	keepAliveLoop    = "go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc.(*LeaseServer).leaseKeepAlive"
)

// KeepAliveSample is what one member runs for lease keep-alive streams at
// one instant.
type KeepAliveSample struct {
	Member string
	// Streams is how many keep-alive streams are open: their handlers
	// have not returned.
	Streams int
	// Handlers is how many goroutines are in a stream's handler, and Loops
	// how many in the receive loop a handler starts. A stream that is open
	// has one of each; a loop whose handler has returned serves nobody.
	Handlers, Loops int
}

// ErrNotInProcess is returned for members that run as their own OS
// programs (Config.MemberBinaries): their goroutines are not this
// process's.
var ErrNotInProcess = errors.New("cluster: members run as their own programs; their goroutines cannot be counted from here")

// KeepAliveGoroutines samples, for each running member, its open lease
// keep-alive streams and the goroutines that serve them. It takes a
// goroutine profile of the whole process, which stops the world for a
// moment: sample every few seconds, not in a tight loop.
func (c *Cluster) KeepAliveGoroutines() ([]KeepAliveSample, error) {
	if c.cfg.MemberBinaries {
		return nil, ErrNotInProcess
	}
	var out []KeepAliveSample
	index := map[string]int{}
	for _, m := range c.Members() {
		s := m.running()
		if s == nil {
			continue
		}
		index[m.name] = len(out)
		out = append(out, KeepAliveSample{Member: m.name, Streams: s.requests().streamCount(leaseKeepAliveMethod)})
	}
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		return nil, fmt.Errorf("cluster: goroutine profile: %w", err)
	}
	id := c.labelID()
	err := eachStack(&buf, func(n int, labels string, funcs []string) {
		if !strings.Contains(labels, strconv.Quote(labelCluster)+":"+strconv.Quote(id)) {
			return
		}
		for name, i := range index {
			if !strings.Contains(labels, strconv.Quote(labelMember)+":"+strconv.Quote(name)) {
				continue
			}
			for _, f := range funcs {
				switch f {
				case keepAliveHandler:
					out[i].Handlers += n
				case keepAliveLoop:
					out[i].Loops += n
				}
			}
		}
	})
	return out, err
}

// labelID is the cluster's value of labelCluster: unique among the
// clusters alive in the process.
func (c *Cluster) labelID() string { return fmt.Sprintf("%p", c) }

// labels are the pprof labels of the member's stream goroutines.
func (m *Member) labels() pprof.LabelSet {
	return pprof.Labels(labelCluster, m.c.labelID(), labelMember, m.name)
}

// labeled runs fn under labels; goroutines fn starts inherit them.
func labeled(ctx context.Context, labels pprof.LabelSet, fn func() error) error {
	var err error
	pprof.Do(ctx, labels, func(context.Context) { err = fn() })
	return err
}

// streamCount returns how many streams of method are open.
func (g *requestGate) streamCount(method string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for k, c := range g.streams {
		if k.method == method {
			n += c
		}
	}
	return n
}

// eachStack calls fn with each stack of a goroutine profile written with
// debug=1: how many goroutines share it, its labels ("" if none) and its
// functions, innermost first. The format is runtime/pprof's:
//
//	3 @ 0x4711 0x4712
//	# labels: {"k":"v"}
//	#	0x4711	pkg.fn+0x55	/file.go:12
//	(a blank line)
func eachStack(buf *bytes.Buffer, fn func(n int, labels string, funcs []string)) error {
	sc := bufio.NewScanner(buf)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	n, labels, funcs := 0, "", []string(nil)
	flush := func() {
		if n > 0 {
			fn(n, labels, funcs)
		}
		n, labels, funcs = 0, "", nil
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "# labels: "):
			labels = strings.TrimPrefix(line, "# labels: ")
		case strings.HasPrefix(line, "#\t"):
			fields := strings.Split(line, "\t")
			if len(fields) >= 3 {
				f, _, _ := strings.Cut(fields[2], "+0x")
				funcs = append(funcs, f)
			}
		default:
			count, rest, ok := strings.Cut(line, " @ ")
			if !ok || rest == "" {
				continue // the profile's heading
			}
			flush()
			v, err := strconv.Atoi(count)
			if err != nil {
				return fmt.Errorf("cluster: goroutine profile: a stack's count %q: %w", count, err)
			}
			n = v
		}
	}
	flush()
	return sc.Err()
}
