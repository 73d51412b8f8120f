package scenarios

// registerScenarios are the register family's registered scenarios.
func registerScenarios() []Scenario {
	return nil
}
