//go:build !race

package dam

const raceEnabled = false
