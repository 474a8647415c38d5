//go:build !unix

package sysinfo

// PeakMiB is unknown off Unix.
func PeakMiB() *float64 { return nil }

// AddressSpaceLimit returns 0: the limit is not known on this system.
func AddressSpaceLimit() int64 { return 0 }

// CPUSeconds is unknown off Unix.
func CPUSeconds() (float64, bool) { return 0, false }
