package simrun

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/etcdsim/etcdsim/scenarios"
)

func TestDispatchOrder(t *testing.T) {
	j := func(d time.Duration, clients, observers int) job {
		return job{scenario: scenarios.Scenario{Workload: scenarios.Workload{
			Duration: scenarios.Duration(d), Clients: clients, Observers: observers}}}
	}
	for _, tt := range []struct {
		name string
		jobs []job
		want []int
	}{
		{"none", nil, []int{}},
		{"longest first", []job{j(6*time.Second, 3, 0), j(2*time.Minute, 2, 0), j(12*time.Second, 3, 0)}, []int{1, 2, 0}},
		{"clients and observers count", []job{j(8*time.Second, 2, 0), j(8*time.Second, 4, 2)}, []int{1, 0}},
		{"unset length and clients are the defaults, 8s and 3", []job{j(7*time.Second, 3, 0), j(0, 0, 0), j(9*time.Second, 3, 0)}, []int{2, 1, 0}},
		{"equal guesses keep their order", []job{j(4*time.Second, 3, 0), j(12*time.Second, 1, 0), j(6*time.Second, 2, 0)}, []int{0, 1, 2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, dispatchOrder(tt.jobs)); diff != "" {
				t.Errorf("dispatchOrder (-want +got):\n%s", diff)
			}
		})
	}
}
