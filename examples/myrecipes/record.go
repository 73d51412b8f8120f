package myrecipes

import (
	"encoding/json"
	"errors"
	"fmt"
)

// record is what the registrar writes at "<service>/<addr>": a format of
// its own, {"address":"…","weight":1}, not the record etcd's endpoints
// manager writes. etcdsim's resolvers read it through DecodeRecord, which
// the discovery scenarios take with WithDecoder; the resolver here reads
// it too.
type record struct {
	Address string `json:"address"`
	Weight  int    `json:"weight"`
}

// encodeRecord returns the record of the instance at addr.
func encodeRecord(addr string) string {
	b, _ := json.Marshal(record{Address: addr, Weight: 1}) // a string and an int: cannot fail
	return string(b)
}

// DecodeRecord reads a record the registrar wrote and returns its
// instance's address: a discovery.Decode.
func DecodeRecord(key, value string) (string, error) {
	var rec record
	if err := json.Unmarshal([]byte(value), &rec); err != nil {
		return "", fmt.Errorf("myrecipes: the record at %s: %w", key, err)
	}
	if rec.Address == "" {
		return "", errors.New(`myrecipes: a record with no "address"`)
	}
	return rec.Address, nil
}
