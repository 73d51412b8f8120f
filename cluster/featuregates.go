package cluster

import (
	"fmt"

	"go.etcd.io/etcd/pkg/v3/featuregate"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/features"
)

// checkFeatureGates says what is wrong with cfg.FeatureGates: a gate etcd
// does not know, a value that is no bool, or member binaries, whose
// protocol carries no gates.
func checkFeatureGates(cfg Config) error {
	if cfg.FeatureGates == "" {
		return nil
	}
	if cfg.MemberBinaries {
		return fmt.Errorf("cluster: Config.FeatureGates (%q) is for members run in this process; member binaries take etcd's defaults: unset one of them", cfg.FeatureGates)
	}
	if err := ValidFeatureGates(cfg.FeatureGates); err != nil {
		return fmt.Errorf("cluster: Config.FeatureGates %q: %w", cfg.FeatureGates, err)
	}
	return nil
}

// ValidFeatureGates returns nil if etcd's --feature-gates flag would take
// gates, and otherwise an error that says why and lists the gates etcd
// knows.
func ValidFeatureGates(gates string) error {
	probe := features.NewDefaultServerFeatureGate("etcdsim", nil).(featuregate.MutableFeatureGate)
	if err := probe.Set(gates); err != nil {
		return fmt.Errorf("%w; valid: comma-separated Name=true|false, Name one of etcd's server feature gates (%v)", err, probe.KnownFeatures())
	}
	return nil
}

// setFeatureGates sets the gates of gates on cfg, as etcd's
// --feature-gates flag does; gates was validated by checkFeatureGates.
func setFeatureGates(cfg *embed.Config, gates string) {
	if gates == "" {
		return
	}
	// NewConfig gives every config a gate of its own, so setting it
	// touches no other member.
	cfg.ServerFeatureGate.(featuregate.MutableFeatureGate).Set(gates) //nolint:errcheck // validated by checkFeatureGates
}
