//go:build !race

package process_test

// raceDetector says whether this test binary was built with -race.
const raceDetector = false
