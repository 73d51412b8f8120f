//go:build !race

package patience

const raceEnabled = false
