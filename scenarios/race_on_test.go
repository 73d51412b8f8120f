//go:build race

package scenarios

// raceDetector says whether this test binary was built with -race;
// RaceDetector gives it to the package's external tests.
const (
	raceDetector = true
	RaceDetector = raceDetector
)
