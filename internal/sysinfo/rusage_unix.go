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
