package cluster

import (
	"fmt"
	"reflect"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// closeClientWait is how long closeClient lets clientv3's Close run before
// it looks for a watch teardown left waiting, and again after handing the
// waiting watchers over. A Close that is not stuck takes milliseconds.
const closeClientWait = 5 * time.Second

// closeClient closes cli, and does not wait for good where clientv3 v3.7.3
// would.
//
// clientv3's watch stream (watchGRPCStream in client/v3 watch.go) ends each
// watcher's substream goroutine by having it send the watcher on closingc,
// an unbuffered channel that the stream's run goroutine receives from. When
// run returns — the client closes, or the stream fails for good — its
// deferred teardown receives once for each watcher it counted as closing
// and then waits for every substream goroutine (wg.Wait). A watcher whose
// creation the server refused (a response both Created and Canceled with a
// cancel reason, as "permission denied" under auth, which a stopping
// server's auth check also gives) has its substream closed by addSubstream
// without being counted: its goroutine's send on closingc is received only
// by run's main loop. If run leaves the loop before it takes that send, the
// goroutine blocks on closingc for good, wg.Wait with it, the stream's done
// channel never closes, and Client.Close waits forever (etcd v3.7.3's
// watch.go: the deferred teardown at lines 520–540, the send at line 803).
//
// So closeClient notes cli's watch streams before Close forgets them, and
// when Close has not returned after closeClientWait, takes each send still
// blocked on a stream's closingc and offers it again from a goroutine of
// its own until the stream takes it or Close returns. That is the same
// hand-off, made by another goroutine: the substream goroutine ends, run's
// wait for it returns, and run still receives every watcher it counts. It
// returns an error saying what it did, or, if Close still waits, what it
// waits on.
func closeClient(cli *clientv3.Client) error {
	closings, ierr := watchClosings(cli)
	done := make(chan struct{})
	go func() {
		defer close(done)
		cli.Close()
	}()
	if waitClosed(done) {
		return nil
	}
	var waiting []relayed
	for _, c := range closings {
		for {
			v, ok := c.TryRecv()
			if !ok {
				break
			}
			waiting = append(waiting, relayed{c, v})
		}
	}
	for _, r := range waiting {
		go r.offer(done)
	}
	if waitClosed(done) {
		return fmt.Errorf("cluster: closing a client, clientv3's watch teardown waited for good on %d closing watcher(s) it had not counted "+
			"(clientv3 v3.7.3 leaves a watch the server refused at creation to a send on closingc that only run's main loop takes); "+
			"etcdsim handed them over and the client closed", len(waiting))
	}
	if ierr != nil {
		return fmt.Errorf("cluster: closing a client: clientv3's Close has not returned after %v, and its watch streams could not be looked into: %w", 2*closeClientWait, ierr)
	}
	return fmt.Errorf("cluster: closing a client: clientv3's Close has not returned after %v (%d watch stream(s), %d closing watcher(s) handed over); its goroutines are left running", 2*closeClientWait, len(closings), len(waiting))
}

// waitClosed reports whether done closed within closeClientWait, on the
// clock of the caller (a bubble's, where a teardown that waits for good
// lets it run on).
func waitClosed(done <-chan struct{}) bool {
	t := time.NewTimer(closeClientWait)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// relayed is a watcher taken off a watch stream's closingc, to be offered
// to the stream again.
type relayed struct {
	closingc reflect.Value
	ws       reflect.Value
}

// offer sends the watcher on closingc, or gives up when done closes: then
// the stream's teardown has ended and did not need it.
func (r relayed) offer(done <-chan struct{}) {
	reflect.Select([]reflect.SelectCase{
		{Dir: reflect.SelectSend, Chan: r.closingc, Send: r.ws},
		{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(done)},
	})
}
