//go:build !unix

package main

// processPeakMiB is unknown off Unix.
func processPeakMiB() *float64 { return nil }
