package discovery

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Funcs is a Registrar made of a key and functions, for a library whose
// registrar has methods of its own: a recipe returns &Funcs{...} instead
// of declaring a type. The library keeps the key registered, or does not:
// Funcs never registers again by itself, so what the library does when
// its lease is lost is what the scenarios judge.
//
//	kit := etcdv3.NewRegistrar(client, etcdv3.Service{Key: key, Value: discovery.Record(addr)}, logger)
//	return &discovery.Funcs{Name: key, ReadBack: cli, Stop: stop,
//		Put:    func(context.Context) error { kit.Register(); return nil },
//		Delete: func(context.Context) error { kit.Deregister(); return nil }}, nil
//
// Register calls Put, refusing a second registration once one succeeded
// (ErrRegistered) and any after Close (ErrClosed); a Register that failed
// may be called again. Close calls Delete, then Stop, once each.
type Funcs struct {
	// Name is the instance's key, "<service>/<addr>" (Key).
	Name string
	// Put registers the instance, as Register does. Its context ends when
	// Register's does or Close is called.
	Put func(ctx context.Context) error
	// ReadBack, if set, is a client Register reads Name back with after
	// Put: a Put that returned nil but left no key fails Register, naming
	// the key. Set it for a library whose register logs its errors rather
	// than returning them.
	ReadBack *clientv3.Client
	// Lost is closed when the library says it stopped keeping the key;
	// Done then closes. nil means it never says.
	Lost <-chan struct{}
	// Delete deregisters, as Close does; its context ends after 5 s. nil
	// means the library has none: the key goes when its lease expires.
	Delete func(ctx context.Context) error
	// Stop ends the library's client, after Delete (the stop of
	// cluster.LibraryClient, say). nil means there is nothing to end.
	Stop func()

	init       sync.Once
	done       chan struct{} // closed when Lost is, or on Close
	ctx        context.Context
	cancel     context.CancelFunc // ends ctx, on Close
	forwarding sync.WaitGroup     // the goroutine that closes done when Lost is
	closeOnce  sync.Once

	mu         sync.Mutex // guards registered, closed, and adding to putting
	registered bool
	closed     bool
	putting    sync.WaitGroup // Puts under way, which Close waits for
}

// deleteGrace bounds the context Close gives Delete.
const deleteGrace = 5 * time.Second

var _ Registrar = (*Funcs)(nil)

func (f *Funcs) start() {
	f.init.Do(func() {
		f.done = make(chan struct{})
		f.ctx, f.cancel = context.WithCancel(context.Background())
		if f.Lost == nil {
			return
		}
		f.forwarding.Go(func() {
			select {
			case <-f.Lost:
				f.closeOnce.Do(func() { close(f.done) })
			case <-f.ctx.Done():
			}
		})
	})
}

func (f *Funcs) Key() string { return f.Name }

func (f *Funcs) Done() <-chan struct{} {
	f.start()
	return f.done
}

// Register calls Put, and reads the key back if ReadBack is set.
func (f *Funcs) Register(ctx context.Context) error {
	f.start()
	f.mu.Lock()
	switch {
	case f.closed:
		f.mu.Unlock()
		return ErrClosed
	case f.registered:
		f.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrRegistered, f.Name)
	case f.Put == nil:
		f.mu.Unlock()
		return fmt.Errorf("discovery: Funcs of %s: nil Put", f.Name)
	}
	f.putting.Add(1)
	f.mu.Unlock()
	defer f.putting.Done()

	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(f.ctx, cancel)()
	err := f.Put(pctx)
	if err == nil && f.ReadBack != nil {
		err = f.readBack(pctx)
	}
	if err != nil {
		return fmt.Errorf("discovery: register %s: %w", f.Name, err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return fmt.Errorf("%w while registering %s", ErrClosed, f.Name)
	}
	f.registered = true
	return nil
}

// readBack fails unless Name is in etcd.
func (f *Funcs) readBack(ctx context.Context) error {
	resp, err := f.ReadBack.Get(ctx, f.Name)
	switch {
	case err != nil:
		return fmt.Errorf("reading the key back: %w", err)
	case len(resp.Kvs) == 0:
		return errors.New("the library's register returned, but the key is not in etcd")
	}
	return nil
}

// Close waits for a Register under way (ending its Put's context), then
// calls Delete and Stop, once each; it returns Delete's error.
func (f *Funcs) Close() error {
	f.start()
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	f.mu.Unlock()
	f.cancel()
	f.putting.Wait()
	f.forwarding.Wait()
	var err error
	if f.Delete != nil {
		ctx, cancel := context.WithTimeout(context.Background(), deleteGrace)
		err = f.Delete(ctx)
		cancel()
	}
	if f.Stop != nil {
		f.Stop()
	}
	f.closeOnce.Do(func() { close(f.done) })
	if err != nil {
		return fmt.Errorf("discovery: deregister %s: %w", f.Name, err)
	}
	return nil
}
