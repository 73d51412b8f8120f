package program_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// adapter is a program speaking the protocol, written in Go, run as a
// process of this test binary. Mode "mutex" is a correct lock on
// concurrency.Mutex, with tokens, leases, guarded writes and done events,
// and every other family on etcdsim's own correct recipes — the election
// on rechecked (adapter_families_test.go). The other
// modes are that, until they break the protocol in one way each at the
// second acquire — or the second of the op after a colon, "garbage:enqueue",
// or its nth, "garbage:watch:1" (the first shows the program is up,
// however slowly it started):
//
//	exit        exits
//	garbage     answers with a line that is not JSON
//	stranger    answers an id that was never sent
//	late        answers 4s after its deadline (a minute after a request with none)
//	silent      never answers
//	noinit      exits before its first line
//	sleepy      waits 3s before it reads its first line
//	unfenced    hands out terms and tokens of 0, and says so in init's answer
//	unfenced-forgets  unfenced, but a client's later program (a restart after a
//	            crash; $ETCDSIM_TEST_STARTS keeps the clients seen) does not say so
//	unfenced-slow     unfenced, but a client's later program never answers init
//	zeroterms   hands out terms and tokens of 0, and does not say so
//	refuse      says its client's name and 12 lines more on stderr, and refuses init
//	direct      dials $ETCDSIM_TEST_DIRECT (the members' own addresses) instead of the endpoints init hands it
func adapter(mode string) int {
	mode, breakOp, ok := strings.Cut(mode, ":")
	if !ok {
		breakOp = "acquire"
	}
	breakOp, nth, ok := strings.Cut(breakOp, ":")
	breakAt := 2
	if ok {
		breakAt, _ = strconv.Atoi(nth)
	}
	in := bufio.NewScanner(os.Stdin)
	restarted := false // a program for this client has run before (the unfenced-… modes)
	var mu sync.Mutex  // guards stdout
	send := func(m map[string]any) {
		if strings.HasPrefix(mode, "unfenced") || mode == "zeroterms" {
			for _, k := range []string{"term", "token"} {
				if _, ok := m[k]; ok {
					m[k] = 0
				}
			}
			if _, ok := m["recipe"]; ok && strings.HasPrefix(mode, "unfenced") && !(restarted && mode == "unfenced-forgets") {
				m["unfenced"] = "this recipe hands out no term"
			}
		}
		b, _ := json.Marshal(m)
		mu.Lock()
		defer mu.Unlock()
		os.Stdout.Write(append(b, '\n'))
	}
	switch mode {
	case "noinit":
		fmt.Fprintln(os.Stderr, "adapter: cannot load my libraries")
		return 3
	case "sleepy":
		time.Sleep(3 * time.Second)
	}
	a := &goAdapter{send: send, held: map[string]*concurrency.Mutex{}, sessions: map[string]*concurrency.Session{}}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer a.close()
	acquires := 0
	for in.Scan() {
		var m map[string]any
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fmt.Fprintln(os.Stderr, "adapter: bad line:", err)
			return 2
		}
		op, _ := m["op"].(string)
		id := int64(num(m["id"]))
		if op == "cancel" {
			continue
		}
		if op == "init" && mode == "refuse" {
			fmt.Fprintf(os.Stderr, "adapter: I am client %v\n", m["client"])
			for i := 1; i <= 12; i++ {
				fmt.Fprintf(os.Stderr, "adapter: stderr line %d\n", i)
			}
			send(map[string]any{"id": id, "ok": false, "error": "unavailable", "text": "no credentials"})
			continue
		}
		if op == "init" && mode == "direct" {
			direct := strings.Fields(os.Getenv("ETCDSIM_TEST_DIRECT"))
			if len(direct) == 0 { // ask the cluster for its members, as a library that follows them does
				direct = memberURLs(m["endpoints"].([]any))
			}
			m["endpoints"] = []any{}
			for _, e := range direct {
				m["endpoints"] = append(m["endpoints"].([]any), e)
			}
		}
		if op == "init" && strings.HasPrefix(mode, "unfenced-") {
			restarted = startedBefore(m["client"])
			if restarted && mode == "unfenced-slow" {
				time.Sleep(time.Minute) // killed when its client closes, long before
			}
		}
		if op == "init" {
			send(a.init(id, m))
			continue
		}
		if op == breakOp {
			acquires++
		}
		switch broken := acquires >= breakAt; {
		case !broken:
		default:
			switch mode {
			case "exit":
				if op == breakOp {
					fmt.Fprintln(os.Stderr, "adapter: giving up")
					return 1
				}
			case "garbage":
				if op == breakOp {
					fmt.Println("lock acquired!")
					continue
				}
			case "stranger":
				if op == breakOp {
					send(map[string]any{"id": id + 100, "ok": true})
					continue
				}
			case "late":
				if op == breakOp {
					wg.Go(func() {
						late := time.Duration(num(m["timeout_ms"]))*time.Millisecond + 4*time.Second
						if num(m["timeout_ms"]) == 0 {
							late = time.Minute // no deadline: later than any Limit a test gives, however scaled
						}
						time.Sleep(late)
						send(map[string]any{"id": id, "ok": false, "error": "timeout"})
					})
					continue
				}
			case "silent":
				if op == breakOp {
					continue
				}
			}
		}
		wg.Go(func() {
			ans := a.serve(op, m)
			ans["id"] = id
			send(ans)
		})
	}
	return 0
}

type goAdapter struct {
	send func(map[string]any)
	cli  *clientv3.Client
	name string
	ttl  int
	fam  *familyAdapter // the family's, past lock and election

	mu       sync.Mutex // guards the maps and next
	held     map[string]*concurrency.Mutex
	sessions map[string]*concurrency.Session
	next     int
}

func num(v any) float64 { f, _ := v.(float64); return f }

// memberURLs asks the cluster, through eps, for its members' own client
// URLs.
func memberURLs(eps []any) []string {
	var given []string
	for _, e := range eps {
		given = append(given, e.(string))
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: given, DialTimeout: time.Second})
	if err != nil {
		return given
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := cli.MemberList(ctx)
	if err != nil {
		return given
	}
	var out []string
	for _, m := range resp.Members {
		out = append(out, m.ClientURLs...)
	}
	return out
}

func (a *goAdapter) init(id int64, m map[string]any) map[string]any {
	var eps []string
	for _, e := range m["endpoints"].([]any) {
		eps = append(eps, e.(string))
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: time.Second})
	if err != nil {
		return map[string]any{"id": id, "ok": false, "error": "unavailable", "text": err.Error()}
	}
	a.cli, a.ttl = cli, int(num(m["ttl"]))
	a.name, _ = m["name"].(string)
	switch m["family"] {
	case "lock":
		return map[string]any{"id": id, "ok": true, "recipe": "go-mutex", "features": []string{"lease", "put", "owned", "leader", "observe"}}
	}
	fam, features, err := newFamilyAdapter(a, m)
	if err != nil {
		return map[string]any{"id": id, "ok": false, "error": "unsupported", "text": err.Error()}
	}
	a.fam = fam
	return map[string]any{"id": id, "ok": true, "recipe": "go-" + fam.family, "features": features}
}

// close ends what the recipes started: a registrar deregisters, a
// lease is revoked.
func (a *goAdapter) close() {
	if a.fam == nil {
		return
	}
	a.fam.mu.Lock()
	defer a.fam.mu.Unlock()
	for _, v := range []any{a.fam.el, a.fam.reg, a.fam.rw, a.fam.q, a.fam.db, a.fam.pb} {
		if c, ok := v.(interface{ Close() error }); ok && c != nil {
			c.Close()
		}
	}
}

func (a *goAdapter) ctx(m map[string]any) (context.Context, context.CancelFunc) {
	if t := num(m["timeout_ms"]); t > 0 {
		return context.WithTimeout(context.Background(), time.Duration(t)*time.Millisecond)
	}
	return context.WithTimeout(context.Background(), 5*time.Second)
}

func fail(code string, err error) map[string]any {
	return map[string]any{"ok": false, "error": code, "text": err.Error()}
}

func (a *goAdapter) handle(prefix string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.next++
	return prefix + strconv.Itoa(a.next)
}

func (a *goAdapter) serve(op string, m map[string]any) map[string]any {
	ctx, cancel := a.ctx(m)
	defer cancel()
	h, _ := m["handle"].(string)
	a.mu.Lock()
	mx, s := a.held[h], a.sessions[h]
	a.mu.Unlock()
	switch {
	case op == "ping":
		return map[string]any{"ok": true}
	case a.fam != nil:
		return a.fam.serve(ctx, op, m)
	}
	switch op {
	case "acquire":
		s, err := concurrency.NewSession(a.cli, concurrency.WithTTL(a.ttl))
		if err != nil {
			return fail("unavailable", err)
		}
		h := a.handle("h")
		mx := concurrency.NewMutex(s, "etcdsim/lock/"+a.name)
		if err := mx.Lock(ctx); err != nil {
			s.Close()
			return fail("timeout", err)
		}
		a.mu.Lock()
		a.held[h], a.sessions[h] = mx, s
		a.mu.Unlock()
		go func() {
			<-s.Done()
			a.send(map[string]any{"event": "done", "handle": h})
		}()
		return map[string]any{"ok": true, "handle": h, "key": mx.Key(), "token": mx.Header().Revision, "lease": strconv.FormatInt(int64(s.Lease()), 10)}
	case "release":
		if s == nil {
			return fail("not_held", fmt.Errorf("no handle %q", h))
		}
		a.mu.Lock()
		delete(a.held, h)
		delete(a.sessions, h)
		a.mu.Unlock()
		defer s.Close()
		key := mx.Key()
		r, err := a.cli.Txn(ctx).If(clientv3.Compare(clientv3.LeaseValue(key), "=", s.Lease())).Then(clientv3.OpDelete(key)).Commit()
		if err != nil {
			return fail("unavailable", err)
		}
		if !r.Succeeded {
			return fail("not_held", fmt.Errorf("%s is gone", key))
		}
		return map[string]any{"ok": true}
	case "put", "owned":
		if mx == nil {
			return fail("not_held", fmt.Errorf("no handle %q", h))
		}
		cmp := clientv3.Compare(clientv3.CreateRevision(mx.Key()), "=", mx.Header().Revision)
		var then []clientv3.Op
		if op == "put" {
			then = append(then, clientv3.OpPut(m["key"].(string), m["value"].(string)))
		}
		r, err := a.cli.Txn(ctx).If(cmp).Then(then...).Commit()
		if err != nil {
			return fail("unavailable", err)
		}
		if op == "owned" {
			return map[string]any{"ok": true, "owned": r.Succeeded}
		}
		if !r.Succeeded {
			return fail("not_held", fmt.Errorf("%s is gone", mx.Key()))
		}
		return map[string]any{"ok": true, "revision": r.Header.Revision}
	}
	return fail("unsupported", fmt.Errorf("op %q", op))
}

// startedBefore reports whether a program for client has started before
// in this test, as a file per client in $ETCDSIM_TEST_STARTS records; it
// records this one.
func startedBefore(client any) bool {
	path := filepath.Join(os.Getenv("ETCDSIM_TEST_STARTS"), fmt.Sprint(client))
	if _, err := os.Stat(path); err == nil {
		return true
	}
	os.WriteFile(path, nil, 0o600) //nolint:errcheck // a test program: a failed write reads as a first start
	return false
}
