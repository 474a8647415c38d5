package sysinfo

import (
	"runtime"
	"testing"
)

// TestReadings: on Linux the readings are there and plausible (a Go test
// binary has a resident set of a few MiB to a few GiB); elsewhere they may
// be unknown, never wrong in kind.
func TestReadings(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the /proc readings are Linux's")
	}
	rss, peak := StatusMiB("VmRSS"), PeakMiB()
	if rss == nil || *rss < 1 || *rss > 1<<20 || peak == nil || *peak < *rss/2 {
		t.Errorf("VmRSS %v MiB, peak %v MiB", rss, peak)
	}
	if StatusMiB("NoSuchField") != nil {
		t.Error("a missing field has a value")
	}
	if ResetHWM() {
		if hwm := StatusMiB("VmHWM"); hwm == nil || *hwm < *rss/2 {
			t.Errorf("VmHWM after a reset: %v MiB (RSS %v)", hwm, *rss)
		}
	}
	if CPUModel() == "" && runtime.GOARCH == "amd64" {
		t.Error("no model name in /proc/cpuinfo")
	}
}

// TestCPUSeconds: the process's CPU time is known on Unix and grows with
// work.
func TestCPUSeconds(t *testing.T) {
	c0, ok := CPUSeconds()
	if !ok {
		t.Skip("CPU time unknown here")
	}
	x := 0.0
	for i := range 20_000_000 {
		x += float64(i & 7)
	}
	c1, _ := CPUSeconds()
	if !(c1 > c0) || x == 0 {
		t.Errorf("CPU time %v then %v, want growth", c0, c1)
	}
}
