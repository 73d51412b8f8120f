package memberbin

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// ErrExited is wrapped by the error of a signal sent to a member binary
// that has already ended.
var ErrExited = errors.New("memberbin: the member binary has ended")

// Server is one run of a member binary: the binary (binary.go) running
// embed with the configuration an embedded member would get. Its owner
// sees it as the other members see it, through its sockets; what etcd
// believes of the leader and the term, and which client streams it has
// open, it hears from the binary's reports. The binary is in a process
// group of its own, so a terminal's Ctrl-C reaches only the process that
// started it, and dies with that process (attr_*.go).
type Server struct {
	name      string
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	onStreams func([]Stream)
	started   chan struct{}
	ready     chan struct{}
	exited    chan struct{} // closed once the binary has ended and its output is read
	errs      chan error    // an end nobody asked for
	ending    atomic.Bool   // Halt or Stop asked for the end
	onExit    func(error)   // told of an end nobody asked for, after exited closed
	readers   sync.WaitGroup

	mu       sync.Mutex // guards the fields below
	id       uint64
	peer     string
	client   string
	leader   uint64
	term     uint64
	exitErr  error
	badLines []string // stdout lines that were no report
}

// Options say what Start runs and whom it tells.
type Options struct {
	// Binary is the member binary's path (Binary returns it).
	Binary string
	// Config is the member's etcd configuration, as an embedded member
	// would run it; its serializable part crosses (Spec).
	Config *embed.Config
	// Log receives etcd's logs, line by line.
	Log io.Writer
	// OnExit, if set, is told why the binary ended when it ends without
	// Halt or Stop: a fatal error, a panic, a kill from outside.
	OnExit func(why error)
	// OnStreams, if set, is given the set of open client streams each
	// time the binary reports it.
	OnStreams func([]Stream)
}

// StartWait bounds how long a member binary may take to have etcd's
// servers up (not to be ready: that is the caller's to wait for, Ready).
const StartWait = 30 * time.Second

// StopWait is how long a graceful Stop may take before the binary is
// killed.
const StopWait = 20 * time.Second

// Start starts the member binary for opts.Config and returns once etcd's
// servers are up in it.
func Start(ctx context.Context, opts Options) (*Server, error) {
	spec, err := FromEmbed(opts.Config)
	if err != nil {
		return nil, err
	}
	line, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	p := &Server{name: opts.Config.Name, onStreams: opts.OnStreams, started: make(chan struct{}), ready: make(chan struct{}),
		exited: make(chan struct{}), errs: make(chan error, 1), onExit: opts.OnExit}
	p.cmd = exec.Command(opts.Binary)
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
		return nil, fmt.Errorf("starting %s: %w", opts.Binary, err)
	}
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	p.readers.Add(2)
	go p.readReports(stdout)
	go p.copyLogs(stderr, log)
	go p.wait()
	// The pipe holds the one line whether or not the binary reads it yet.
	if _, err := p.stdin.Write(append(line, '\n')); err != nil {
		p.Halt()
		return nil, fmt.Errorf("sending the configuration: %w (%v)", err, p.exitError())
	}
	t := time.NewTimer(StartWait)
	defer t.Stop()
	select {
	case <-p.started:
		return p, nil
	case <-p.exited:
		return nil, p.exitError()
	case <-ctx.Done():
		p.Halt()
		return nil, context.Cause(ctx)
	case <-t.C:
		p.Halt()
		return nil, fmt.Errorf("its etcd servers were not up within %v", StartWait)
	}
}

// readReports follows the binary's stdout.
func (p *Server) readReports(r io.Reader) {
	defer p.readers.Done()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var rep Report
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

func (p *Server) take(rep Report) {
	switch rep.Kind {
	case Started:
		p.mu.Lock()
		p.id, p.peer, p.client = rep.ID, rep.Peer, rep.Client
		p.mu.Unlock()
		closeOnce(p.started)
	case Ready:
		closeOnce(p.ready)
	case View:
		p.mu.Lock()
		p.leader, p.term = rep.Leader, rep.Term
		p.mu.Unlock()
	case Streams:
		if p.onStreams != nil {
			p.onStreams(rep.Streams)
		}
	}
}

// closeOnce closes ch unless it is closed already: a binary that said it
// twice is not worth a panic. Only readReports closes these.
func closeOnce(ch chan struct{}) {
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// copyLogs puts the binary's stderr, line by line, into the member's log.
func (p *Server) copyLogs(r io.Reader, log io.Writer) {
	defer p.readers.Done()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		log.Write(append(sc.Bytes(), '\n'))
	}
	io.Copy(io.Discard, r)
}

// wait waits for the binary to end, once its output is read.
func (p *Server) wait() {
	p.readers.Wait()
	err := p.cmd.Wait()
	p.mu.Lock()
	p.exitErr = err
	bad := p.badLines
	p.mu.Unlock()
	var why error
	if !p.ending.Load() {
		why = fmt.Errorf("the binary of member %s ended on its own (%s)", p.name, exitText(err))
		if len(bad) > 0 {
			why = fmt.Errorf("%w; it wrote on stdout what is no report: %q", why, bad)
		}
		p.errs <- why
	}
	close(p.exited)
	if why != nil && p.onExit != nil {
		p.onExit(why)
	}
}

// exitError says how the binary ended; it is called once it has.
func (p *Server) exitError() error {
	<-p.exited
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Errorf("the binary of member %s ended (%s)", p.name, exitText(p.exitErr))
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// Ready is closed once the member has joined its cluster and serves.
func (p *Server) Ready() <-chan struct{} { return p.ready }

// Exited is closed once the binary has ended and its output is read.
func (p *Server) Exited() <-chan struct{} { return p.exited }

// Err reports an end nobody asked for (no Halt, no Stop), once.
func (p *Server) Err() <-chan error { return p.errs }

// Pid is the binary's process ID.
func (p *Server) Pid() int { return p.cmd.Process.Pid }

// PeerAddr and ClientAddr are the addresses of etcd's own listeners in the
// binary, as it reported them on starting.
func (p *Server) PeerAddr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.peer
}

func (p *Server) ClientAddr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.client
}

// View is the member's ID, and the leader and term it last reported.
func (p *Server) View() (id, leader, term uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.id, p.leader, p.term
}

// Halt kills the binary (SIGKILL, a stopped one too) and waits for it.
func (p *Server) Halt() {
	p.ending.Store(true)
	p.signal(syscall.SIGKILL)
	p.stdin.Close()
	<-p.exited
}

// Stop asks etcd to shut down gracefully (SIGTERM): a leader hands its
// leadership over first. A binary that does not end within StopWait is
// killed.
func (p *Server) Stop() {
	p.ending.Store(true)
	p.signal(syscall.SIGTERM)
	t := time.NewTimer(StopWait)
	defer t.Stop()
	select {
	case <-p.exited:
	case <-t.C:
		p.Halt()
	}
}

// Pause and Resume stop and continue the binary (SIGSTOP, SIGCONT): the
// kernel keeps its sockets open and queues what is sent to it, and every
// clock inside it stops with it.
func (p *Server) Pause() error  { return p.signal(syscall.SIGSTOP) }
func (p *Server) Resume() error { return p.signal(syscall.SIGCONT) }

// signal sends sig to the binary unless it has ended and been reaped (its
// ID may belong to another process by then).
func (p *Server) signal(sig syscall.Signal) error {
	select {
	case <-p.exited:
		return fmt.Errorf("%w: %s: %v", ErrExited, p.name, p.exitError())
	default:
	}
	if err := signalMember(p.cmd, sig); err != nil {
		return fmt.Errorf("memberbin: sending %v to member %s (pid %d): %w", sig, p.name, p.cmd.Process.Pid, err)
	}
	return nil
}
