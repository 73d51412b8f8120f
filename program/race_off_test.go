//go:build !race

package program_test

// raceDetector says whether this test binary was built with -race.
const raceDetector = false
