package program

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// maxLine is the longest line a program may write; a longer one breaks
// the protocol.
const maxLine = 1 << 20

// tick is how often the watchdog looks for late answers.
const tick = 20 * time.Millisecond

// prog is one running program: one simulated client. Requests go out as
// lines on its stdin and answers come back on its stdout, matched by id.
// Whatever breaks the protocol — an exit, a line that is not JSON, an
// answer to nothing pending, an answer later than its deadline plus the
// grace — kills the process group and is reported once, through onExit,
// naming the line and the operation pending.
type prog struct {
	cfg    Config
	client string   // the client it was started for, "" if it is not known
	stderr *os.File // where its stderr is kept whole (Config.StderrDir), nil if nowhere; closed once reaped
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	tail   *tail         // the end of its stderr, for messages
	exits  chan struct{} // closed when the process has been waited for
	dead   chan struct{} // closed when the process is to be seen as gone
	done   sync.WaitGroup
	taken  bool // a constructor took it from Prestart's programs; guarded by warm.mu

	wmu sync.Mutex // guards writes to stdin

	mu       sync.Mutex // guards the fields below
	next     int64
	pending  map[int64]*call
	why      error // why the process is gone; set once, with dead closed
	closing  bool  // Close or a crash ended it: no onExit
	onExit   func(string)
	onEvent  func(answer)
	frozen   time.Time     // when Freeze stopped it; zero while running
	frozenIn time.Duration // how long it has been frozen in all, before frozen
}

// call is one request waiting for its answer.
type call struct {
	op       string
	line     []byte
	sent     time.Time
	limit    time.Duration // how long the answer may take, frozen time not counted
	frozenAt time.Duration // p.frozenIn when it was sent
	ch       chan answer   // gets the answer; closed if the process goes
	late     func(answer)  // if set, the caller gave up: what to do with the answer
}

// errGone wraps every error of a call to a process that is gone.
var errGone = errors.New("process: gone")

// start starts cfg's program for client ("" if not known). The process
// and its children are a process group of their own, so a kill or a
// freeze reaches all of them.
func start(cfg Config, client string, onEvent func(answer)) (*prog, error) {
	if len(cfg.Argv) == 0 {
		return nil, errors.New("process: no command")
	}
	cmd := exec.Command(cfg.Argv[0], cfg.Argv[1:]...)
	cmd.Dir = cfg.Dir
	cmd.Env = cfg.Env
	cmd.SysProcAttr = sysProcAttr()
	p := &prog{cfg: cfg, client: client, cmd: cmd, tail: &tail{}, exits: make(chan struct{}), dead: make(chan struct{}),
		pending: make(map[int64]*call), onEvent: onEvent}
	cmd.Stderr = p.tail
	if cfg.StderrDir != "" {
		f, err := stderrFile(cfg.StderrDir, client)
		if err != nil {
			return nil, fmt.Errorf("process %s: %w", cfg.Argv[0], err)
		}
		p.stderr = f
		cmd.Stderr = io.MultiWriter(p.tail, f)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("process %s: %w", cfg.Argv[0], err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("process %s: %w", cfg.Argv[0], err)
	}
	started := make(chan error, 1)
	p.done.Add(1)
	go p.run(started)
	if err := <-started; err != nil {
		p.done.Wait()
		if p.stderr != nil {
			p.stderr.Close()
			os.Remove(p.stderr.Name())
		}
		return nil, fmt.Errorf("process: starting %q: %w", cfg.Argv, err)
	}
	p.stdin = stdin
	p.done.Add(2)
	go p.read(stdout)
	go p.watch()
	return p, nil
}

// read reads the program's stdout, a line at a time, until it closes.
func (p *prog) read(stdout io.Reader) {
	defer p.done.Done()
	r := bufio.NewReaderSize(stdout, maxLine)
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			p.fail(fmt.Errorf("wrote a line longer than %d bytes%s", maxLine, p.pendingText()))
			io.Copy(io.Discard, r) //nolint:errcheck // draining a killed process
			return
		}
		if err != nil {
			if len(bytes.TrimSpace(line)) > 0 {
				p.fail(fmt.Errorf("wrote %q with no newline and closed its stdout%s", line, p.pendingText()))
			}
			return
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		line = bytes.TrimRight(line, "\r\n")
		p.trace("< ", line)
		p.handle(line)
	}
}

// handle takes one line from the program.
func (p *prog) handle(line []byte) {
	var a answer
	if !json.Valid(line) || line[0] != '{' {
		p.fail(fmt.Errorf("wrote %q, which is not a JSON object%s", line, p.pendingText()))
		return
	}
	if err := json.Unmarshal(line, &a); err != nil {
		p.fail(fmt.Errorf("wrote %q: %v%s", line, err, p.pendingText()))
		return
	}
	if a.Event != "" {
		if a.ID != 0 || a.OK != nil {
			p.fail(fmt.Errorf("wrote %q: an event has no id and no ok%s", line, p.pendingText()))
			return
		}
		p.mu.Lock()
		onEvent := p.onEvent
		p.mu.Unlock()
		if onEvent != nil {
			onEvent(a)
		}
		return
	}
	if a.OK == nil {
		p.fail(fmt.Errorf("wrote %q: an answer needs \"id\" and \"ok\", an event \"event\"%s", line, p.pendingText()))
		return
	}
	p.mu.Lock()
	c := p.pending[a.ID]
	delete(p.pending, a.ID)
	p.mu.Unlock()
	if c == nil {
		p.fail(fmt.Errorf("wrote %q, an answer to id %d, which was not sent or was answered already%s", line, a.ID, p.pendingText()))
		return
	}
	if c.late != nil {
		c.late(a)
		return
	}
	c.ch <- a
}

// run starts the process, says on started whether it did, and reaps it.
// An exit nobody asked for breaks the protocol.
//
// It holds an OS thread of its own from the start until the process is
// reaped. The process is to die with the process that started it, even
// one killed with SIGKILL, which runs no cleanup: Linux sends it the
// parent-death signal (sysProcAttr) — but when the thread that started it
// exits, not the whole process (go.dev/issue/27505), and the Go runtime
// ends a thread when a goroutine locked to it returns. A thread locked
// here, and only here, lives exactly as long as the program needs it to.
// run returns without unlocking, so the thread ends with it, once the
// program is gone.
func (p *prog) run(started chan<- error) {
	defer p.done.Done()
	runtime.LockOSThread()
	if err := p.cmd.Start(); err != nil {
		started <- err
		return
	}
	started <- nil
	err := p.cmd.Wait()
	if p.stderr != nil {
		p.stderr.Close()
		if p.tail.String() == "" {
			os.Remove(p.stderr.Name()) //nolint:errcheck // an empty file says nothing
		}
	}
	close(p.exits)
	if err == nil {
		err = errors.New("exit status 0")
	}
	p.fail(fmt.Errorf("exited (%v)%s", err, p.pendingText()))
}

// watch fails the process when an answer is late: not there by its
// limit, frozen time not counted.
func (p *prog) watch() {
	defer p.done.Done()
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-p.dead:
			return
		case now := <-t.C:
			if err := p.late(now); err != nil {
				p.fail(err)
				return
			}
		}
	}
}

// late returns an error naming the first answer that is late at now.
func (p *prog) late(now time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.frozen.IsZero() {
		return nil
	}
	for id, c := range p.pending {
		waited := now.Sub(c.sent) - (p.frozenIn - c.frozenAt)
		if waited > c.limit {
			return fmt.Errorf("did not answer %s (id %d, sent as %s) within %v%s", c.op, id, c.line, c.limit.Round(time.Millisecond), p.pendingLocked())
		}
	}
	return nil
}

// pendingText names what was pending, for a message about a line.
func (p *prog) pendingText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pendingLocked()
}

func (p *prog) pendingLocked() string {
	if len(p.pending) == 0 {
		return "; no operation was pending"
	}
	var b bytes.Buffer
	b.WriteString("; pending: ")
	first := true
	for _, c := range p.pending {
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.Write(c.line)
	}
	return b.String()
}

// fail ends the process for err, once: kills its group, fails every call
// pending and, unless it was closed or crashed on purpose, calls onExit.
func (p *prog) fail(err error) {
	p.mu.Lock()
	if p.why != nil {
		p.mu.Unlock()
		return
	}
	p.why = err
	close(p.dead)
	pending := p.pending
	p.pending = map[int64]*call{}
	closing, onExit := p.closing, p.onExit
	p.mu.Unlock()
	p.kill()
	for _, c := range pending {
		if c.late == nil {
			close(c.ch)
		}
	}
	if !closing && onExit != nil {
		p.waitExit()
		onExit(fmt.Sprintf("process %q%s %v%s", p.cfg.Argv, p.clientText(), err, p.said()))
	}
}

// waitExit waits, up to the grace, until the killed process has been
// reaped, and with it the last of its stderr read: what it said before it
// went belongs in the message that says it went.
func (p *prog) waitExit() {
	t := time.NewTimer(p.cfg.grace())
	defer t.Stop()
	select {
	case <-p.exits:
	case <-t.C:
	}
}

// kill kills the process group, thawing it first: a frozen process takes
// SIGKILL all the same, but its children may not be.
func (p *prog) kill() {
	pid := p.cmd.Process.Pid
	syscall.Kill(-pid, syscall.SIGKILL) //nolint:errcheck // the group may be gone already
	syscall.Kill(-pid, syscall.SIGCONT) //nolint:errcheck
}

// gone returns why the process is gone, nil while it runs.
func (p *prog) gone() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.why == nil {
		return nil
	}
	return fmt.Errorf("%w: %q %w", errGone, p.cfg.Argv, p.why)
}

// call sends req and waits for its answer. If ctx ends first it sends a
// cancel and returns ctx's error; the answer, when it comes, goes to late
// (nil: dropped). Its answer is due by ctx's deadline plus the grace (or,
// without a deadline, Config.Limit).
func (p *prog) call(ctx context.Context, req request, late func(answer)) (answer, error) {
	limit := p.cfg.limit()
	if d, ok := ctx.Deadline(); ok {
		left := time.Until(d)
		if left < time.Millisecond {
			left = time.Millisecond
		}
		req.TimeoutMs = left.Milliseconds()
		limit = left + p.cfg.grace()
	}
	p.mu.Lock()
	if p.why != nil {
		p.mu.Unlock()
		return answer{}, p.gone()
	}
	p.next++
	req.ID = p.next
	line, err := json.Marshal(req)
	if err != nil {
		p.mu.Unlock()
		return answer{}, err
	}
	c := &call{op: req.Op, line: line, sent: time.Now(), limit: limit, frozenAt: p.frozenIn, ch: make(chan answer, 1)}
	p.pending[req.ID] = c
	p.mu.Unlock()
	if err := p.write(line); err != nil {
		return answer{}, err
	}
	select {
	case a, ok := <-c.ch:
		if !ok {
			return answer{}, p.gone()
		}
		return a, nil
	case <-ctx.Done():
		p.mu.Lock()
		if _, still := p.pending[req.ID]; still {
			c.late = func(a answer) {
				if late != nil {
					late(a)
				}
			}
			p.mu.Unlock()
			cancel, _ := json.Marshal(request{Op: "cancel", Of: req.ID})
			p.write(cancel) //nolint:errcheck // a process that cannot take it fails on its own
			return answer{}, context.Cause(ctx)
		}
		p.mu.Unlock()
		if a, ok := <-c.ch; ok { // answered as ctx ended
			return a, nil
		}
		return answer{}, p.gone()
	}
}

// write writes one line to the program. A write that fails most often
// means the program has exited: its exit, and its status, is then why it
// is gone, given the grace to be reaped; only a program still running
// after that stopped reading its stdin.
func (p *prog) write(line []byte) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.trace("> ", line)
	if _, err := p.stdin.Write(append(line, '\n')); err != nil {
		why := fmt.Errorf("stopped reading its stdin (%v)%s", err, p.pendingText())
		t := time.NewTimer(p.cfg.grace())
		select {
		case <-p.exits: // wait has failed it with the exit status
		case <-t.C:
		}
		t.Stop()
		p.fail(why)
		return p.gone()
	}
	return nil
}

// traceMu guards writes to every Config.Trace: programs may share one
// (conform's two programs of a read-write lock do).
var traceMu sync.Mutex

// trace writes line to Config.Trace, if set.
func (p *prog) trace(dir string, line []byte) {
	if p.cfg.Trace != nil {
		traceMu.Lock()
		defer traceMu.Unlock()
		fmt.Fprintf(p.cfg.Trace, "%s%s\n", dir, line)
	}
}

// Freeze stops the process group, as SIGSTOP does.
func (p *prog) Freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.why != nil || !p.frozen.IsZero() {
		return
	}
	p.frozen = time.Now()
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGSTOP) //nolint:errcheck // a group that is gone cannot be frozen
}

// Thaw lets a frozen process group go on, as SIGCONT does.
func (p *prog) Thaw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frozen.IsZero() {
		return
	}
	p.frozenIn += time.Since(p.frozen)
	p.frozen = time.Time{}
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGCONT) //nolint:errcheck
}

// setOnEvent sets the function the program's events go to.
func (p *prog) setOnEvent(f func(answer)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.onEvent = f
}

// OnExit sets the function fail calls when the process goes on its own.
func (p *prog) OnExit(f func(string)) {
	p.mu.Lock()
	why, closing := p.why, p.closing
	p.onExit = f
	p.mu.Unlock()
	if why != nil && !closing {
		f(fmt.Sprintf("process %q%s %v%s", p.cfg.Argv, p.clientText(), why, p.said()))
	}
}

// crash kills the process as a crash of its client does: no onExit, since
// whoever crashed it has recorded it.
func (p *prog) crash() {
	p.mu.Lock()
	p.closing = true
	p.mu.Unlock()
	p.fail(errors.New("was killed: its client crashed"))
	p.done.Wait()
}

// close ends the process: stdin closed, so that it finishes what is in
// flight and exits, then killed after the grace. It waits for its
// goroutines and is idempotent.
func (p *prog) close() {
	p.mu.Lock()
	p.closing = true
	p.mu.Unlock()
	p.wmu.Lock()
	p.stdin.Close()
	p.wmu.Unlock()
	t := time.NewTimer(p.cfg.grace())
	select {
	case <-p.exits:
	case <-t.C:
	}
	t.Stop()
	p.fail(errors.New("was closed"))
	p.done.Wait()
}

// tail keeps the last bytes a program wrote to its stderr.
type tail struct {
	mu sync.Mutex // guards b
	b  []byte
}

const tailSize = 2 << 10

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, b...)
	if len(t.b) > tailSize {
		t.b = append(t.b[:0], t.b[len(t.b)-tailSize:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.b))
}
