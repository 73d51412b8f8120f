package scenarios

// discoveryScenarios are the discovery family's registered scenarios.
func discoveryScenarios() []Scenario {
	return nil
}
