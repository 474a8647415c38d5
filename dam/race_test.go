//go:build race

package dam

// raceEnabled: the race detector allocates, so allocation counts are skipped.
const raceEnabled = true
