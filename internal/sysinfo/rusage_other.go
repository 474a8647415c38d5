//go:build !unix

package sysinfo

// PeakMiB is unknown off Unix.
func PeakMiB() *float64 { return nil }

// CPUSeconds is unknown off Unix.
func CPUSeconds() (float64, bool) { return 0, false }
