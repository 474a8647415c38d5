//go:build unix

package sysinfo

import "syscall"

// PeakMiB returns the process's peak resident set size
// (getrusage's ru_maxrss, in KiB on Linux), in MiB.
func PeakMiB() *float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return nil
	}
	v := float64(ru.Maxrss) / 1024
	return &v
}

// CPUSeconds returns the CPU time (user and system) the process has used
// so far, in seconds, and whether it is known.
func CPUSeconds() (float64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) * 1e-9, true
}
