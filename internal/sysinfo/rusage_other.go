//go:build !unix

package sysinfo

// PeakMiB is unknown off Unix.
func PeakMiB() *float64 { return nil }
