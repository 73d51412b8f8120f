package cluster_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/etcdsim/etcdsim/cluster"
)

// TestGatewayOnRealClock: etcd's HTTP/JSON gateway answers through a named
// client's endpoints, so a program with no gRPC client can use etcd. Real
// clock: the gateway is an HTTP server on a real socket.
func TestGatewayOnRealClock(t *testing.T) {
	c := cluster.New(t, cluster.Config{Clock: cluster.ClockReal})
	eps, err := c.ClientEndpoints("http-client")
	require.NoError(t, err)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	post := func(ep, path, body string) map[string]any {
		t.Helper()
		resp, err := http.Post(ep+path, "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m), string(b))
		return m
	}
	post(eps[0], "/v3/kv/put", `{"key":"`+b64("k")+`","value":"`+b64("v")+`"}`)
	for _, ep := range eps {
		got := post(ep, "/v3/kv/range", `{"key":"`+b64("k")+`"}`)
		kvs, _ := got["kvs"].([]any)
		require.Len(t, kvs, 1, "%s: %v", ep, got)
		require.Equal(t, b64("v"), kvs[0].(map[string]any)["value"])
	}
}
