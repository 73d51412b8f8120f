package scenarios

// electionScenarios are the election family's registered scenarios.
func electionScenarios() []Scenario {
	return nil
}
