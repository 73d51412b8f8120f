package scenarios

import (
	"errors"
	"fmt"
	"time"
)

// Space bounds what Explore draws. Every zero field takes the default its
// comment gives; a bound that contradicts another is an error that names
// both.
type Space struct {
	// MinMembers and MaxMembers bound the cluster's members: 0 means 1
	// and 5. Draws favour 3.
	MinMembers int `json:"min_members,omitempty"`
	MaxMembers int `json:"max_members,omitempty"`
	// MinClients and MaxClients bound the clients: 0 means 2 and 4.
	MinClients int `json:"min_clients,omitempty"`
	MaxClients int `json:"max_clients,omitempty"`
	// MinTTL and MaxTTL bound the lease TTL, whole seconds: 0 means 1s
	// and 3s.
	MinTTL time.Duration `json:"min_ttl,omitempty"`
	MaxTTL time.Duration `json:"max_ttl,omitempty"`
	// MinDuration and MaxDuration bound the workload's run before the
	// draw stretches it past its last fault: 0 means 4s and 10s.
	MinDuration time.Duration `json:"min_duration,omitempty"`
	MaxDuration time.Duration `json:"max_duration,omitempty"`
	// MinFaults and MaxFaults bound the faults composed in one draw:
	// MaxFaults 0 means 3. A draw of no fault runs the workload's shape on
	// a healthy cluster, judged in full.
	MinFaults int `json:"min_faults,omitempty"`
	MaxFaults int `json:"max_faults,omitempty"`
	// MaxLatency bounds the network's one-way latency; 0 means 10ms.
	MaxLatency time.Duration `json:"max_latency,omitempty"`
}

func (sp Space) withDefaults() Space {
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	defD := func(p *time.Duration, v time.Duration) {
		if *p == 0 {
			*p = v
		}
	}
	def(&sp.MinMembers, 1)
	def(&sp.MaxMembers, 5)
	def(&sp.MinClients, 2)
	def(&sp.MaxClients, 4)
	defD(&sp.MinTTL, time.Second)
	defD(&sp.MaxTTL, 3*time.Second)
	defD(&sp.MinDuration, 4*time.Second)
	defD(&sp.MaxDuration, 10*time.Second)
	def(&sp.MaxFaults, 3)
	defD(&sp.MaxLatency, 10*time.Millisecond)
	return sp
}

// validate reports every bound that cannot be drawn from.
func (sp Space) validate() error {
	var errs []error
	rng := func(name string, lo, hi, floor, ceil int) {
		switch {
		case lo < floor || hi > ceil:
			errs = append(errs, fmt.Errorf("space: %s %d to %d: want %d to %d", name, lo, hi, floor, ceil))
		case lo > hi:
			errs = append(errs, fmt.Errorf("space: min %s %d is above max %s %d", name, lo, name, hi))
		}
	}
	rng("members", sp.MinMembers, sp.MaxMembers, 1, 7)
	rng("clients", sp.MinClients, sp.MaxClients, 1, maxClients)
	rng("faults", sp.MinFaults, sp.MaxFaults, 0, 3)
	if sp.MinTTL%time.Second != 0 || sp.MaxTTL%time.Second != 0 || sp.MinTTL <= 0 {
		errs = append(errs, fmt.Errorf("space: TTL %v to %v: want whole seconds, at least 1s", sp.MinTTL, sp.MaxTTL))
	} else if sp.MinTTL > sp.MaxTTL {
		errs = append(errs, fmt.Errorf("space: min TTL %v is above max TTL %v", sp.MinTTL, sp.MaxTTL))
	}
	if sp.MinDuration < time.Second || sp.MinDuration > sp.MaxDuration {
		errs = append(errs, fmt.Errorf("space: duration %v to %v: want at least 1s, min no more than max", sp.MinDuration, sp.MaxDuration))
	}
	if sp.MaxLatency < 0 {
		errs = append(errs, fmt.Errorf("space: max latency %v is negative", sp.MaxLatency))
	}
	return errors.Join(errs...)
}
