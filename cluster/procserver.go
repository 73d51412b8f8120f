package cluster

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver"

	"github.com/etcdsim/etcdsim/internal/memberproc"
)

// procServer is a member's etcd in an operating-system process of its own
// (Config.MemberProcesses): the member program (procprogram.go) running
// embed with the configuration an embedded member would get. The cluster
// sees it as the other members see it, through its sockets; what etcd
// believes of the leader and the term, and which client streams it has
// open, it hears from the program's reports. The process is in a process
// group of its own, so a terminal's Ctrl-C reaches only this one, and dies
// with this one (procattr_*.go).
type procServer struct {
	name    string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	gate    *requestGate // holds nothing back; knows the open streams
	started chan struct{}
	ready   chan struct{}
	exited  chan struct{} // closed once the process has ended and its output is read
	errs    chan error    // an end nobody asked for
	ending  atomic.Bool   // halt or stop asked for the end
	onExit  func(error)   // told of an end nobody asked for, after exited closed
	readers sync.WaitGroup

	mu       sync.Mutex // guards the fields below
	id       uint64
	peer     string
	client   string
	leader   uint64
	term     uint64
	exitErr  error
	badLines []string // stdout lines that were no report
}

// procStartWait bounds how long a member program may take to have etcd's
// servers up (not to be ready: that is Start's context's).
const procStartWait = 30 * time.Second

// procStopWait is how long a graceful stop may take before the process is
// killed.
const procStopWait = 20 * time.Second

// startProcess starts the member program for cfg and returns once etcd's
// servers are up in it. Its logs go to log; onExit is told if it ends
// without halt or stop.
func startProcess(ctx context.Context, prog string, cfg *embed.Config, log io.Writer, onExit func(*procServer, error)) (*procServer, error) {
	spec, err := memberproc.FromEmbed(cfg)
	if err != nil {
		return nil, err
	}
	line, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	p := &procServer{name: cfg.Name, gate: &requestGate{}, started: make(chan struct{}), ready: make(chan struct{}),
		exited: make(chan struct{}), errs: make(chan error, 1)}
	p.onExit = func(err error) { onExit(p, err) }
	p.cmd = exec.Command(prog)
	setMemberProcAttr(p.cmd)
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", prog, err)
	}
	p.readers.Add(2)
	go p.readReports(stdout)
	go p.copyLogs(stderr, log)
	go p.wait()
	// The pipe holds the one line whether or not the program reads it yet.
	if _, err := p.stdin.Write(append(line, '\n')); err != nil {
		p.halt()
		return nil, fmt.Errorf("sending the configuration: %w (%v)", err, p.exitError())
	}
	t := time.NewTimer(procStartWait)
	defer t.Stop()
	select {
	case <-p.started:
		return p, nil
	case <-p.exited:
		return nil, p.exitError()
	case <-ctx.Done():
		p.halt()
		return nil, context.Cause(ctx)
	case <-t.C:
		p.halt()
		return nil, fmt.Errorf("its etcd servers were not up within %v", procStartWait)
	}
}

// readReports follows the program's stdout.
func (p *procServer) readReports(r io.Reader) {
	defer p.readers.Done()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var rep memberproc.Report
		if err := json.Unmarshal(sc.Bytes(), &rep); err != nil {
			p.mu.Lock()
			p.badLines = append(p.badLines, sc.Text())
			p.mu.Unlock()
			continue
		}
		p.take(rep)
	}
	io.Copy(io.Discard, r)
}

func (p *procServer) take(rep memberproc.Report) {
	switch rep.Kind {
	case memberproc.Started:
		p.mu.Lock()
		p.id, p.peer, p.client = rep.ID, rep.Peer, rep.Client
		p.mu.Unlock()
		closeOnce(p.started)
	case memberproc.Ready:
		closeOnce(p.ready)
	case memberproc.View:
		p.mu.Lock()
		p.leader, p.term = rep.Leader, rep.Term
		p.mu.Unlock()
	case memberproc.Streams:
		p.gate.setStreams(rep.Streams)
	}
}

// closeOnce closes ch unless it is closed already: a program that said it
// twice is not worth a panic. Only readReports closes these.
func closeOnce(ch chan struct{}) {
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// copyLogs puts the program's stderr, line by line, into the member's log.
func (p *procServer) copyLogs(r io.Reader, log io.Writer) {
	defer p.readers.Done()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		log.Write(append(sc.Bytes(), '\n'))
	}
	io.Copy(io.Discard, r)
}

// wait waits for the process to end, once its output is read.
func (p *procServer) wait() {
	p.readers.Wait()
	err := p.cmd.Wait()
	p.mu.Lock()
	p.exitErr = err
	bad := p.badLines
	p.mu.Unlock()
	var why error
	if !p.ending.Load() {
		why = fmt.Errorf("the process of member %s ended on its own (%s)", p.name, exitText(err))
		if len(bad) > 0 {
			why = fmt.Errorf("%w; it wrote on stdout what is no report: %q", why, bad)
		}
		p.errs <- why
	}
	close(p.exited)
	if why != nil {
		p.onExit(why)
	}
}

// exitError says how the process ended; it is called once it has.
func (p *procServer) exitError() error {
	<-p.exited
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Errorf("the process of member %s ended (%s)", p.name, exitText(p.exitErr))
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

func (p *procServer) etcd() *etcdserver.EtcdServer { return nil }
func (p *procServer) embedded() *embed.Etcd        { return nil }
func (p *procServer) requests() *requestGate       { return p.gate }
func (p *procServer) errc() <-chan error           { return p.errs }

func (p *procServer) peerAddr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.peer
}

func (p *procServer) clientAddr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.client
}

// view is the member's ID, and the leader and term it last reported.
func (p *procServer) view() (id, leader, term uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.id, p.leader, p.term
}

// halt kills the process (SIGKILL, a stopped one too) and waits for it.
func (p *procServer) halt() {
	p.ending.Store(true)
	p.signal(syscall.SIGKILL)
	p.stdin.Close()
	<-p.exited
}

// stop asks etcd to shut down gracefully (SIGTERM): a leader hands its
// leadership over first. A process that does not end within procStopWait
// is killed.
func (p *procServer) stop() {
	p.ending.Store(true)
	p.signal(syscall.SIGTERM)
	t := time.NewTimer(procStopWait)
	defer t.Stop()
	select {
	case <-p.exited:
	case <-t.C:
		p.halt()
	}
}

// pause and resume stop and continue the process (SIGSTOP, SIGCONT).
func (p *procServer) pause() error  { return p.signal(syscall.SIGSTOP) }
func (p *procServer) resume() error { return p.signal(syscall.SIGCONT) }

// signal sends sig to the process unless it has ended and been reaped
// (its ID may belong to another process by then).
func (p *procServer) signal(sig syscall.Signal) error {
	select {
	case <-p.exited:
		return fmt.Errorf("%w: %s: %v", ErrNotRunning, p.name, p.exitError())
	default:
	}
	if err := signalMember(p.cmd, sig); err != nil {
		return fmt.Errorf("cluster: sending %v to member %s (pid %d): %w", sig, p.name, p.cmd.Process.Pid, err)
	}
	return nil
}
