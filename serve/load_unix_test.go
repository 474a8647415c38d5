//go:build unix

package serve

import (
	"math"
	"syscall"
)

// busyCPU returns the CPU time this process has used (user and system),
// in seconds.
func busyCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
