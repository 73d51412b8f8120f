package scenarios

// detectionSeeds is how many seeds a test tries before it calls a
// scenario that expects a violation (a pitfall or an upstream
// reproduction) missed; DetectionSeeds gives it to the package's external
// tests and to simrun's gallery, which judges a pitfall's row the same way.
// Detection is a rate: the calibration (make pitfalls) holds each
// such scenario to 19 of 20 or better, and a window of one hand-off or
// one retry is missed on some seeds, on the virtual clock too, where
// goroutines still interleave as the scheduler pleases. One seed would
// make a 95% scenario fail its test one time in twenty; five miss
// together about once in three million, so a gallery of some forty
// pitfall rows misses one about once in 70 000 runs. A seed after the
// first costs time only when the one before it missed. A scenario that
// expects a pass gets no second seed: one violation is a failure.
const (
	detectionSeeds = 5
	DetectionSeeds = detectionSeeds
)
