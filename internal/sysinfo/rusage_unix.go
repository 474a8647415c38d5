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

// AddressSpaceLimit returns the soft limit on the process's virtual memory
// (RLIMIT_AS, ulimit -v) in bytes, or 0 if there is none.
func AddressSpaceLimit() int64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil || rl.Cur == ^uint64(0) || rl.Cur > 1<<62 {
		return 0
	}
	return int64(rl.Cur)
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
