package cluster

// This file holds the one place etcdsim reaches into clientv3's
// unexported watch state: the channel on which a watch stream's teardown
// collects its closing watchers, for closeClient to relay a send that
// clientv3 v3.7.3 leaves blocked (see closeClient). It is checked against
// the clientv3 version go.mod requires by TestClientv3InternalsMatchGoMod;
// on a clientv3 whose internals differ, watchClosings finds nothing and
// closeClient only waits and reports.

import (
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// watchClosings returns the closingc channel of every watch stream cli's
// watcher has open now (clientv3's watcher.streams[*].closingc), unwrapping
// watchers that embed another (v3client's watchWrapper), or an error that
// names what is missing.
func watchClosings(cli *clientv3.Client) ([]reflect.Value, error) {
	if cli == nil || cli.Watcher == nil {
		return nil, nil
	}
	w := reflect.ValueOf(cli.Watcher)
	for range 4 { // wrappers embed the Watcher they wrap
		if w.Kind() != reflect.Pointer || w.Elem().Kind() != reflect.Struct {
			return nil, fmt.Errorf("cluster: clientv3's watcher is a %s, not a pointer to a struct", w.Type())
		}
		if inner := w.Elem().FieldByName("Watcher"); inner.IsValid() && inner.Kind() == reflect.Interface && w.Elem().Type().Name() != "watcher" {
			w = inner.Elem()
			continue
		}
		break
	}
	mu, err := unexported(w, "mu")
	if err != nil {
		return nil, err
	}
	lock, ok := mu.Addr().Interface().(*sync.Mutex)
	if !ok {
		return nil, fmt.Errorf("cluster: clientv3's watcher.mu is a %s, not a sync.Mutex", mu.Type())
	}
	streams, err := unexported(w, "streams")
	if err != nil {
		return nil, err
	}
	if streams.Kind() != reflect.Map {
		return nil, fmt.Errorf("cluster: clientv3's watcher.streams is a %s, not a map", streams.Type())
	}
	lock.Lock()
	defer lock.Unlock()
	var out []reflect.Value
	for it := streams.MapRange(); it.Next(); {
		c, err := unexported(it.Value(), "closingc")
		if err != nil {
			return nil, err
		}
		if c.Kind() != reflect.Chan {
			return nil, fmt.Errorf("cluster: clientv3's watchGRPCStream.closingc is a %s, not a channel", c.Type())
		}
		out = append(out, c)
	}
	return out, nil
}

// unexported returns the field called name of the struct v points to,
// usable even though it is unexported.
func unexported(v reflect.Value, name string) (reflect.Value, error) {
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, fmt.Errorf("cluster: clientv3's %s is not a pointer to a struct", v.Type())
	}
	f := v.Elem().FieldByName(name)
	if !f.IsValid() {
		return reflect.Value{}, fmt.Errorf("cluster: clientv3's %s has no field %s", v.Elem().Type(), name)
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem(), nil
}
