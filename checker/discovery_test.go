package checker

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDiscoveryConvergence(t *testing.T) {
	opts := DiscoveryOptions{TTL: 2 * time.Second, Bound: time.Second}
	// Backends ba and bb register endpoints a and b of service /svc.
	registered := []Operation{
		mk("ba", KindRegister, "/svc", 0, 0.1, value("a")),
		mk("bb", KindRegister, "/svc", 0, 0.1, value("b")),
	}
	ops := func(more ...Operation) History { return hist(append(append([]Operation{}, registered...), more...)...) }
	tests := []struct {
		name        string
		h           History
		want        Verdict
		wantMsg     string
		wantMetrics map[string]float64 // only these keys are compared
	}{
		{
			name: "resolvers converge within the bound",
			h: ops(
				mk("r1", KindResolve, "/svc", 0.5, 0.5, endpoints("a")),
				mk("r1", KindResolve, "/svc", 1.5, 1.5, endpoints("a", "b")),
				mk("bb", KindDeregister, "/svc", 3, 3.1, value("b")),
				mk("r1", KindResolve, "/svc", 3.5, 3.5, endpoints("a", "b")),
				mk("r1", KindResolve, "/svc", 4.5, 4.5, endpoints("a")),
				mk("r2", KindResolve, "/svc", 5, 5, endpoints("a")),
			),
			want:        VerdictOK,
			wantMetrics: map[string]float64{"judged_reports": 3, "stale_reports": 2, "changes": 2},
		},
		{
			name: "a resolver still lists a deregistered endpoint after the bound",
			h: ops(
				mk("bb", KindDeregister, "/svc", 3, 3.1, value("b")),
				mk("r1", KindResolve, "/svc", 5, 5, endpoints("a", "b")),
			),
			want:    VerdictViolation,
			wantMsg: "resolver r1 reported [a b] for service /svc at 5.000s, 1.9s after the last change (bb deregister b at 3.100s), beyond the bound of 1s: still listing b (registered: [a])",
		},
		{
			name: "a resolver misses a registered endpoint",
			h: ops(
				mk("r1", KindResolve, "/svc", 5, 5, endpoints("b")),
			),
			want:    VerdictViolation,
			wantMsg: "missing a",
		},
		{
			name: "a resolver lists an endpoint nobody registered",
			h: ops(
				mk("r1", KindResolve, "/svc", 5, 5, endpoints("a", "b", "c")),
			),
			want:    VerdictViolation,
			wantMsg: "c was never registered",
		},
		{
			name: "a resolver lists an empty address nobody registered",
			h: ops(
				mk("r1", KindResolve, "/svc", 5, 5, endpoints("", "a")),
			),
			want:    VerdictViolation,
			wantMsg: `beyond the bound of 1s: "" was never registered (registered: [a b])`,
		},
		{
			name: "a crashed backend's endpoint may linger until its lease expires",
			h: ops(
				crash("bb", 6),
				mk("r1", KindResolve, "/svc", 7.5, 7.5, endpoints("a", "b")),
				mk("c1", KindRPC, "/svc", 7, 7.1, value("b"), failed),
				mk("r1", KindResolve, "/svc", 9.5, 9.5, endpoints("a")),
			),
			want:        VerdictOK,
			wantMetrics: map[string]float64{"rpc_to_dead": 1, "rpc_to_deregistered": 0, "rpcs": 1},
		},
		{
			name: "a crashed backend's endpoint outlives its lease",
			h: ops(
				crash("bb", 6),
				mk("r1", KindResolve, "/svc", 9.5, 9.5, endpoints("a", "b")),
			),
			want:    VerdictViolation,
			wantMsg: "1.5s after the last change (bb's lease ran out at 8.000s, a TTL after it crashed at 6.000s), beyond the bound of 1s: still listing b",
		},
		{
			name: "a backend's endpoint may be gone while a fault aimed at it lasts, and the TTL and bound after",
			h: withFaults(ops(
				mk("r1", KindResolve, "/svc", 4, 4, endpoints("a")),
				mk("r1", KindResolve, "/svc", 5.5, 5.5, endpoints("a")), // the fault at 3 s, the TTL 2 s, the bound 1 s
				mk("r1", KindResolve, "/svc", 6.5, 6.5, endpoints("a", "b")),
			), FaultEvent{ID: 1, Name: "revoke-lease(client bb)", Targets: []string{"bb"}, Start: 3 * time.Second, End: 3 * time.Second, Healed: true}),
			want:        VerdictOK,
			wantMetrics: map[string]float64{"judged_reports": 3},
		},
		{
			name: "a backend whose registration a fault took is still gone after the TTL and bound",
			h: withFaults(ops(
				mk("r1", KindResolve, "/svc", 6.5, 6.5, endpoints("a")),
			), FaultEvent{ID: 1, Name: "revoke-lease(client bb)", Targets: []string{"bb"}, Start: 3 * time.Second, End: 3 * time.Second, Healed: true}),
			want:    VerdictViolation,
			wantMsg: "missing b",
		},
		{
			name: "a crash fault leaves its doubt to the crash operation",
			h: withFaults(ops(
				crash("bb", 3),
				mk("r1", KindResolve, "/svc", 6.5, 6.5, endpoints("a", "b")),
			), FaultEvent{ID: 1, Name: "crash(client bb)", Action: "crash", Targets: []string{"bb"}, Start: 3 * time.Second, End: 4 * time.Second, Healed: true}),
			want:    VerdictViolation,
			wantMsg: "still listing b",
		},
		{
			name: "a fault that never took effect leaves no doubt",
			h: withFaults(ops(
				mk("r1", KindResolve, "/svc", 4, 4, endpoints("a")),
			), FaultEvent{ID: 1, Name: "revoke-lease(client bb)", Targets: []string{"bb"}, Start: 3 * time.Second, End: 3 * time.Second, Err: "no lease"}),
			want:    VerdictViolation,
			wantMsg: "missing b",
		},
		{
			name: "a registration of unknown outcome may or may not show",
			h: ops(
				mk("bc", KindRegister, "/svc", 2, never, value("c")),
				mk("r1", KindResolve, "/svc", 5, 5, endpoints("a", "b")),
				mk("r2", KindResolve, "/svc", 5, 5, endpoints("a", "b", "c")),
			),
			want: VerdictOK,
		},
		{
			name: "RPCs to a deregistered backend are counted",
			h: ops(
				mk("bb", KindDeregister, "/svc", 3, 3.1, value("b")),
				mk("c1", KindRPC, "/svc", 3.2, 3.3, value("b")),
				mk("c1", KindRPC, "/svc", 3.2, 3.3, value("a")),
				mk("r1", KindResolve, "/svc", 5, 5, endpoints("a")),
			),
			want:        VerdictOK,
			wantMetrics: map[string]float64{"rpc_to_dead": 0, "rpc_to_deregistered": 1, "rpcs": 2},
		},
		{
			name:    "a registration without an endpoint",
			h:       hist(mk("ba", KindRegister, "/svc", 0, 1)),
			want:    VerdictInvalid,
			wantMsg: "register without an endpoint",
		},
		{
			name:    "a resolve without a service",
			h:       hist(mk("r1", KindResolve, "", 0, 1)),
			want:    VerdictInvalid,
			wantMsg: "resolve without a service name",
		},
		{
			name: "no report after the registry settled",
			h: ops(
				mk("r1", KindResolve, "/svc", 0.5, 0.5, endpoints("a")),
			),
			want: VerdictUnknown,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := DiscoveryConvergence(tc.h, opts)
			checkResult(t, res, tc.want, tc.wantMsg)
			got := map[string]float64{}
			for k := range tc.wantMetrics {
				got[k] = res.Metrics[k]
			}
			if diff := cmp.Diff(tc.wantMetrics, got, cmpEmptyMaps); diff != "" {
				t.Errorf("metrics (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiscoveryStaleness(t *testing.T) {
	h := hist(
		mk("ba", KindRegister, "/svc", 0, 1, value("a")),
		mk("r1", KindResolve, "/svc", 1.2, 1.2),
		mk("r1", KindResolve, "/svc", 1.5, 1.5, endpoints("a")),
		mk("r2", KindResolve, "/svc", 2, 2, endpoints("a")),
		mk("ba", KindDeregister, "/svc", 3, 4, value("a")),
		mk("r1", KindResolve, "/svc", 4.25, 4.25),
		mk("r2", KindResolve, "/svc", 6, 6),
	)
	res := DiscoveryConvergence(h, DiscoveryOptions{})
	checkResult(t, res, VerdictOK, "")
	want := Distribution{Count: 4, Min: at(0.25), Mean: at(0.9375), P50: at(1), P90: at(2), P99: at(2), Max: at(2)}
	if diff := cmp.Diff(want, res.Distributions["staleness"]); diff != "" {
		t.Errorf("staleness (-want +got):\n%s", diff)
	}
}
