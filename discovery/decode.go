package discovery

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Decode reads the record a registrar put at key, returning the address
// of the instance it registers. A registrar that writes a record format
// of its own hands its Decode to the scenarios
// (scenarios.Scenario.WithDecoder), and every resolver here reads its keys
// through it, so the registrar is judged alone, beside the correct
// resolver. A user's resolver gets the Decode of the registrar it runs
// with in Options.Decode, so it is judged alone beside the correct
// registrar. An error (or an empty address) makes the record unreadable:
// it is left out of the set, and the set is one its resolver cannot vouch
// for (State.Err holds an *UnreadableError), which the scenarios report
// and do not judge.
type Decode func(key, value string) (addr string, err error)

// DecodeEndpoint is the Decode of the record etcd's endpoints manager
// writes (Record, NewKeepAlive): the JSON {"Op":0,"Addr":"…"}. It is what
// a resolver reads when Options.Decode is nil.
func DecodeEndpoint(key, value string) (string, error) {
	var rec record
	if err := json.Unmarshal([]byte(value), &rec); err != nil {
		return "", fmt.Errorf("not the JSON record of etcd's endpoints manager: %w", err)
	}
	if rec.Op != 0 {
		return "", fmt.Errorf("an endpoints manager record of Op %d, not 0 (add)", rec.Op)
	}
	if rec.Addr == "" {
		return "", errors.New(`an endpoints manager record with no "Addr"`)
	}
	return rec.Addr, nil
}

// decoder returns the Decode opts gives, DecodeEndpoint if none.
func (opts Options) decoder() Decode {
	if opts.Decode != nil {
		return opts.Decode
	}
	return DecodeEndpoint
}

// UnreadableError is a record a resolver's Decode could not read.
type UnreadableError struct {
	Key   string // the record's key
	Value string // its value, whole
	Err   error  // what the Decode returned; "empty address" if it returned none
}

// shownValue is how much of a record's value an UnreadableError quotes.
const shownValue = 64

func (e *UnreadableError) Error() string {
	v := fmt.Sprintf("%q", e.Value)
	if len(e.Value) > shownValue {
		v = fmt.Sprintf("%q… (%d bytes in all)", e.Value[:shownValue], len(e.Value))
	}
	return fmt.Sprintf("discovery: the decoder could not read the record at key %q, value %s: %v", e.Key, v, e.Err)
}

func (e *UnreadableError) Unwrap() error { return e.Err }

// Unreadable returns the records err says could not be read: those of
// every *UnreadableError it wraps, alone or joined (State.Err).
func Unreadable(err error) []*UnreadableError {
	var out []*UnreadableError
	var walk func(error)
	walk = func(err error) {
		var u *UnreadableError
		switch x := err.(type) {
		case nil:
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				walk(e)
			}
		default:
			if errors.As(err, &u) {
				out = append(out, u)
			}
		}
	}
	walk(err)
	return out
}

// listing is what a resolver knows of its service: the instances read,
// and the records its Decode could not read, each by key.
type listing struct {
	decode Decode
	eps    map[string]Endpoint
	bad    map[string]*UnreadableError
}

func newListing(decode Decode) *listing {
	return &listing{decode: decode, eps: map[string]Endpoint{}, bad: map[string]*UnreadableError{}}
}

// put reads the record at key, replacing what the key held.
func (l *listing) put(key string, value []byte) {
	delete(l.eps, key)
	delete(l.bad, key)
	addr, err := l.read(key, string(value))
	if err != nil {
		l.bad[key] = &UnreadableError{Key: key, Value: string(value), Err: err}
		return
	}
	l.eps[key] = Endpoint{Key: key, Addr: addr}
}

// read runs the Decode, turning a panic or an empty address into an error.
func (l *listing) read(key, value string) (addr string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the decoder panicked: %v", p)
		}
	}()
	addr, err = l.decode(key, value)
	if err == nil && addr == "" {
		err = errors.New("the decoder returned an empty address")
	}
	return addr, err
}

// del forgets the record at key.
func (l *listing) del(key string) {
	delete(l.eps, key)
	delete(l.bad, key)
}

// state is the listing as a State at revision rev: the instances read,
// and, if any record could not be, an Err that says each.
func (l *listing) state(rev int64) State {
	out := slices.Collect(maps.Values(l.eps))
	slices.SortFunc(out, func(a, b Endpoint) int { return strings.Compare(a.Key, b.Key) })
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(l.bad)) {
		errs = append(errs, l.bad[k])
	}
	return State{Endpoints: out, Listed: true, Rev: rev, Err: errors.Join(errs...)}
}
