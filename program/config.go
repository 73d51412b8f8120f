package program

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
)

// Config is the program a process recipe runs, one process per simulated
// client. The zero value of every field but Argv has a default.
type Config struct {
	// Argv is the command and its arguments: {"node", "adapter.js"}. It is
	// what a scenario records in workload.command, so a replay starts the
	// same program (relative paths resolve from the directory simrun runs
	// in).
	Argv []string `json:"argv"`
	// Dir is the directory the program runs in; "" means simrun's.
	Dir string `json:"-"`
	// Env is the program's environment; nil means simrun's.
	Env []string `json:"-"`
	// Grace is how much later than the deadline its request carried
	// (timeout_ms) an answer may come before the process is taken as
	// broken, and how long a process given its end (stdin closed) has to
	// exit before it is killed. 0 means 5s: a library's own retries may
	// outlast the deadline it was given by a call's RPC timeout or two.
	Grace time.Duration `json:"-"`
	// Limit is how long an answer to a request with no deadline (init,
	// ping, …) may take. 0 means 10s.
	Limit time.Duration `json:"-"`
	// RPCTimeout is the per-call deadline the program is asked to give
	// each etcd RPC (init's rpc_timeout_ms), so that a call sent to a
	// member cut off from the rest fails and is retried elsewhere instead
	// of hanging. 0 means 1s.
	RPCTimeout time.Duration `json:"-"`
	// Trace, if set, gets every line sent ("> ") and read ("< "), as
	// simrun conform shows them.
	Trace io.Writer `json:"-"`
	// StderrDir, if set, is the directory (made if need be) where each
	// program's standard error is kept whole, in a file named after its
	// client: c1.stderr, then c1-2.stderr for the next program started for
	// c1 (a spare, or a cold start after a crash); a program that wrote
	// nothing there leaves no file. "" keeps only the end of it, for
	// messages.
	StderrDir string `json:"-"`
}

func (c Config) grace() time.Duration {
	if c.Grace > 0 {
		return c.Grace
	}
	return 5 * time.Second
}

func (c Config) limit() time.Duration {
	if c.Limit > 0 {
		return c.Limit
	}
	return 10 * time.Second
}

func (c Config) rpcTimeout() time.Duration {
	if c.RPCTimeout > 0 {
		return c.RPCTimeout
	}
	return time.Second
}

// session is a started program: what every family's recipe shares. Its
// init is answered in the background — a program may take seconds to
// start on a loaded machine, and a recipe's constructor must not block —
// and every op waits for it (ready). A program started before the run
// (Prestart) has loaded already, and its init is a matter of
// milliseconds.
type session struct {
	*prog
	ready    chan struct{} // closed when init is answered, or failed
	initErr  error         // why init failed; read after ready
	recipe   string        // what init answered the program is; read after ready
	features []string      // optional ops it offers; read after ready
	unfenced string        // why it hands out no fencing token or term, "" if it does; read after ready

	endpoints []string // its client's, as init handed them
	bypass    bypass   // what has been seen of its connections (bypass.go)
}

// begin starts cfg's program for the client cli stands for — or takes
// the one Prestart started for it — and sends init, whose family, role,
// name, ttl and count the caller fills in. The program dials
// cli.Endpoints(): on a real-clock cluster, the proxies of that client's
// links alone, so every fault aimed at the client reaches it. When cli is
// closed — the client crashed, or the run ended — the process is killed.
func begin(cfg Config, cli *clientv3.Client, init request, onEvent func(answer)) (*session, error) {
	if cli == nil {
		return nil, errors.New("process: no etcd client")
	}
	eps := cli.Endpoints()
	if len(eps) == 0 {
		return nil, errors.New("process: the etcd client has no endpoints to hand the program")
	}
	p, warm := takeWarm(cfg, cli)
	if warm {
		p.setOnEvent(onEvent)
	} else {
		// A cold start — no program was started for the client ahead, or
		// none of this Config — is still the client's: init names it, and
		// its stderr file is kept under its name.
		_, name, _ := cluster.OwnerOf(cli)
		var err error
		if p, err = start(cfg, name, onEvent); err != nil {
			return nil, err
		}
	}
	watchClient(p, cli)
	s := &session{prog: p, ready: make(chan struct{}), endpoints: eps}
	go func() {
		defer close(s.ready)
		ctx, cancel := context.WithTimeout(context.Background(), cfg.limit())
		defer cancel()
		if !warm { // the first line is always a ping: the program is up
			if _, err := p.call(ctx, request{Op: "ping"}, nil); err != nil {
				s.initErr = fmt.Errorf("process %q: ping, the first line: %w%s", cfg.Argv, err, p.said())
				return
			}
		}
		init.Op, init.Endpoints, init.RPCTimeoutMs, init.Client = "init", eps, cfg.rpcTimeout().Milliseconds(), p.client
		a, err := p.call(ctx, init, nil)
		if err == nil && !*a.OK {
			err = fmt.Errorf("refused init: %s", errText(a))
			p.fail(err)
			p.waitExit()
		}
		if err != nil {
			s.initErr = fmt.Errorf("process %q%s: init: %w%s", cfg.Argv, p.clientText(), err, p.said())
			return
		}
		s.recipe, s.features, s.unfenced = a.Recipe, a.Features, a.Unfenced
	}()
	return s, nil
}

// watchClient kills p when cli is closed: a crash of the client is a
// crash of the process.
func watchClient(p *prog, cli *clientv3.Client) {
	go func() {
		select {
		case <-cli.Ctx().Done():
			p.crash()
		case <-p.dead:
		}
	}()
}

// ttlSeconds is a TTL as init carries it: whole seconds, at least 1.
func ttlSeconds(ttl, def time.Duration) int64 {
	if ttl == 0 {
		ttl = def
	}
	return max(int64(ttl/time.Second), 1)
}

// Close ends the program: stdin closed, so that it finishes what is in
// flight and exits (a registrar deregisters, a lease is revoked), then
// killed after the grace. It waits for the process and is idempotent.
func (s *session) Close() error {
	s.close()
	return nil
}

// close ends the program as prog.close does, having looked at its
// connections first (bypass.go): whether it used its client's links is
// known once it is closed.
func (s *session) close() {
	s.look(false)
	s.prog.close()
	s.judgeBypass()
}

// Err returns why the program is of no more use: its init failed (refused,
// or never answered), or it has gone (exited, broke the protocol, or was
// closed), with the end of its stderr; nil while it runs. A workload that
// finds a channel of the recipe's closed says it.
func (s *session) Err() error {
	select {
	case <-s.ready:
		if s.initErr != nil {
			return s.initErr
		}
	default:
	}
	if err := s.gone(); err != nil {
		return fmt.Errorf("%w%s", err, s.said())
	}
	return nil
}

// wait waits for init's answer.
func (s *session) wait(ctx context.Context) error {
	select {
	case <-s.ready:
		return s.initErr
	case <-ctx.Done():
		return fmt.Errorf("process %q: waiting for init: %w", s.cfg.Argv, context.Cause(ctx))
	}
}

// has reports whether the program offers the optional op.
func (s *session) has(op string) bool { return slices.Contains(s.features, op) }

// Unfenced is lock.Unfenced and election.Unfenced for a program that said
// in its init answer, as "unfenced", why its lock hands out no fencing
// token or its election no term: fencing is then judged not applicable
// rather than unknown. It waits for the program's init answer; "" (the
// program hands them out, or never answered) leaves fencing judged.
func (s *session) Unfenced() string {
	<-s.ready
	return s.unfenced
}

// Answered reports whether the program answered init, waiting for its
// answer or its failure. A program that never answered (killed as its
// client closed, refused, too slow) declared nothing: its Unfenced ""
// says nothing of its recipe, and the scenarios keep what the client's
// earlier program declared.
func (s *session) Answered() bool {
	<-s.ready
	return s.initErr == nil
}

// errText is an error answer as a person reads it: "not_held: …".
func errText(a answer) string {
	switch {
	case a.Error == "" && a.Text == "":
		return "no error given"
	case a.Text == "":
		return a.Error
	case a.Error == "":
		return a.Text
	}
	return a.Error + ": " + a.Text
}

// opError turns an error answer into an error wrapping sentinel when its
// code is code.
func opError(op string, a answer, code string, sentinel error) error {
	switch a.Error {
	case code:
		return fmt.Errorf("process: %s: %w (%s)", op, sentinel, errText(a))
	case codeTimeout:
		return fmt.Errorf("process: %s: %w (%s)", op, context.DeadlineExceeded, errText(a))
	}
	return fmt.Errorf("process: %s: %s", op, errText(a))
}

// op waits for init, sends req and returns its answer; an error answer is
// an error: "timeout" wraps context.DeadlineExceeded, each code of codes
// wraps its sentinel, any other code is an error whose outcome is
// unknown.
func (s *session) op(ctx context.Context, req request, codes ...codeErr) (answer, error) {
	if err := s.wait(ctx); err != nil {
		return answer{}, err
	}
	a, err := s.call(ctx, req, nil)
	if err != nil {
		return answer{}, err
	}
	if *a.OK {
		s.look(true)
	}
	if !*a.OK {
		for _, c := range codes {
			if a.Error == c.code {
				return a, fmt.Errorf("process: %s: %w (%s)", req.Op, c.err, errText(a))
			}
		}
		return a, opError(req.Op, a, codeTimeout, context.DeadlineExceeded)
	}
	return a, nil
}

// codeErr is an error code of an answer and the sentinel it stands for.
type codeErr struct {
	code string
	err  error
}
