package scenarios

// WithDefaults is withDefaults, for the external tests.
func WithDefaults(s Scenario) Scenario { return s.withDefaults() }
