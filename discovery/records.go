package discovery

import "encoding/json"

// Record returns the value a registrar puts at its key for the instance
// at addr: the JSON record etcd's endpoints manager writes, which every
// resolver here reads. A library that publishes an opaque value of the
// user's choosing (go-kit's Service.Value, say) publishes this one, and
// its resolver side reads the address back with AddrOf.
func Record(addr string) string {
	b, _ := json.Marshal(record{Addr: addr}) // a string field: cannot fail
	return string(b)
}

// AddrOf returns the address of a value Record wrote, or of any record of
// etcd's endpoints manager that adds an instance; ok is false for any
// other value.
func AddrOf(value string) (addr string, ok bool) {
	addr, err := DecodeEndpoint("", value)
	return addr, err == nil
}
