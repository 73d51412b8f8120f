package program

import (
	"context"
	"errors"
	"fmt"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/internal/recipe"
	"github.com/etcdsim/etcdsim/lock"
)

// Lock is a lock recipe called name whose every client is a program run from
// argv speaking the protocol of docs/protocol.md: the lock family's
// scenarios judge a lock written in any language.
//
//	for _, s := range scenarios.LockSafety(program.Lock("node-etcd3", "node", "examples/node/lock.js")) {
//		scenarios.Test(t, s)
//	}
//
// A scenario running it goes on the real clock (the program dials etcd
// through real sockets) and records argv in workload.command.
func Lock(name string, argv ...string) lock.Recipe { return LockWith(name, Config{Argv: argv}) }

// LockWith is Lock with the program's settings.
func LockWith(name string, cfg Config) lock.Recipe {
	return lock.Recipe{
		Name:    name,
		Summary: fmt.Sprintf("a lock in a process of its own per client: %q", cfg.Argv),
		Command: cfg.Argv,
		New: func(cli *clientv3.Client, key string, opts lock.Options) (lock.Locker, error) {
			return newLocker(cfg, cli, key, opts)
		},
	}
}

// locker is one client's lock: its program.
type locker struct {
	*session
	mu   sync.Mutex       // guards held
	held map[string]*held // live holders by handle
}

func newLocker(cfg Config, cli *clientv3.Client, key string, opts lock.Options) (*locker, error) {
	if key == "" {
		return nil, lock.ErrBadName
	}
	return startLocker(cfg, cli, request{Family: recipe.Lock, Name: key, TTL: ttlSeconds(opts.TTL, lock.DefaultTTL)})
}

// startLocker starts the program of a lock or a read-write lock.
func startLocker(cfg Config, cli *clientv3.Client, init request) (*locker, error) {
	l := &locker{held: make(map[string]*held)}
	s, err := begin(cfg, cli, init, l.event)
	if err != nil {
		return nil, err
	}
	l.session = s
	go func() { // a process gone ends every hold it had
		<-s.dead
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, h := range l.held {
			h.lose()
		}
		l.held = nil
	}()
	return l, nil
}

// event takes the program's "done" events.
func (l *locker) event(a answer) {
	if a.Event != "done" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if h := l.held[a.Handle]; h != nil {
		h.lose()
	}
}

// Lock sends acquire and waits for the holder. An acquire answered after
// Lock gave up is released at once, so nothing blocks others for longer
// than its TTL.
func (l *locker) Lock(ctx context.Context) (lock.Held, error) { return l.acquire(ctx, false) }

// acquire sends acquire, shared (a read-write lock's RLock) or not.
func (l *locker) acquire(ctx context.Context, read bool) (lock.Held, error) {
	if err := l.wait(ctx); err != nil {
		return nil, err
	}
	a, err := l.call(ctx, request{Op: "acquire", Read: read}, func(a answer) {
		if *a.OK && a.Handle != "" {
			go l.call(context.Background(), request{Op: "release", Handle: a.Handle}, nil) //nolint:errcheck // a holder nobody wanted
		}
	})
	if err != nil {
		return nil, err
	}
	if !*a.OK {
		return nil, opError("acquire", a, codeTimeout, context.DeadlineExceeded)
	}
	if a.Handle == "" {
		err := fmt.Errorf("answered acquire with no handle: a holder needs one for release")
		l.fail(err)
		return nil, fmt.Errorf("process: %w", err)
	}
	h := &held{l: l, handle: a.Handle, key: a.Key, token: a.Token, lease: clientv3.LeaseID(a.Lease), done: make(chan struct{})}
	l.mu.Lock()
	if l.held == nil {
		l.mu.Unlock()
		return nil, l.gone()
	}
	l.held[h.handle] = h
	l.mu.Unlock()
	switch put, owned := l.has("put"), l.has("owned"); {
	case put && owned:
		return heldWriterChecker{h}, nil
	case put:
		return heldWriter{h}, nil
	case owned:
		return heldChecker{h}, nil
	}
	return h, nil
}

// held is one holder, by its program's handle.
type held struct {
	l      *locker
	handle string
	key    string
	token  int64
	lease  clientv3.LeaseID
	once   sync.Once
	done   chan struct{}
}

func (h *held) Key() string             { return h.key }
func (h *held) Token() int64            { return h.token }
func (h *held) Done() <-chan struct{}   { return h.done }
func (h *held) Lease() clientv3.LeaseID { return h.lease }
func (h *held) lose()                   { h.once.Do(func() { close(h.done) }) }

// Unlock sends release.
func (h *held) Unlock(ctx context.Context) error {
	defer func() {
		h.l.mu.Lock()
		delete(h.l.held, h.handle)
		h.l.mu.Unlock()
		h.lose()
	}()
	a, err := h.l.call(ctx, request{Op: "release", Handle: h.handle}, nil)
	if err != nil {
		if errors.Is(err, errGone) {
			return fmt.Errorf("%w: %w", lock.ErrNotHeld, err) // its process, and its hold, are gone
		}
		return err
	}
	if !*a.OK {
		return opError("release", a, codeNotHeld, lock.ErrNotHeld)
	}
	return nil
}

func (h *held) put(ctx context.Context, key, val string) (int64, error) {
	a, err := h.l.call(ctx, request{Op: "put", Handle: h.handle, Key: key, Value: val}, nil)
	if err != nil {
		return 0, err
	}
	if !*a.OK {
		return 0, opError("put", a, codeNotHeld, lock.ErrNotHeld)
	}
	return a.Revision, nil
}

func (h *held) owned(ctx context.Context) (bool, error) {
	a, err := h.l.call(ctx, request{Op: "owned", Handle: h.handle}, nil)
	if err != nil {
		return false, err
	}
	if !*a.OK {
		return false, opError("owned", a, codeNotHeld, lock.ErrNotHeld)
	}
	return a.Owned, nil
}

// The holder's optional interfaces, as the program's features offer them.
type (
	heldWriter        struct{ *held }
	heldChecker       struct{ *held }
	heldWriterChecker struct{ *held }
)

func (h heldWriter) Put(ctx context.Context, key, val string) (int64, error) {
	return h.put(ctx, key, val)
}
func (h heldChecker) Owned(ctx context.Context) (bool, error) { return h.owned(ctx) }
func (h heldWriterChecker) Put(ctx context.Context, key, val string) (int64, error) {
	return h.put(ctx, key, val)
}
func (h heldWriterChecker) Owned(ctx context.Context) (bool, error) { return h.owned(ctx) }

var (
	_ lock.Writer  = heldWriter{}
	_ lock.Checker = heldChecker{}
	_ lock.Leaser  = &held{}
)

// A program may declare its lock unfenced in its init answer.
var _ lock.Unfenced = (*locker)(nil)
