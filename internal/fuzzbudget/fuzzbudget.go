// Package fuzzbudget holds the memory budget of the input readers' fuzz
// targets (dataio, npy, imageio): an allocation bug, such as a slice sized
// from a header's declared length, becomes a test failure naming the
// input, not a machine-wide out-of-memory kill. It is imported by tests
// only.
//
// A budget is a bound on the bytes that one call allocates, written as
// PerByte × the input's size + Fixed: what a reader may legitimately hold
// is a fixed multiple of what it read (a float64 per two bytes of text, a
// float64 per byte of a uint8 .npy file, ...) plus buffers of fixed size.
// Each fuzz target states its bound, and why, beside its call to Check.
//
// Allocation is measured twice over. First with runtime/metrics
// ("/gc/heap/allocs:bytes", every byte allocated on the heap since the
// program started), before and after the call: cheap, and exact for large
// objects (above 32 KiB, which is where a bug sized from a header shows),
// but small objects are counted only when a P's cached span of their
// size class is refilled, so the count can be off by the unused part of a
// span per size class and P (tens of kilobytes in practice). Only if that
// count passes the bound is the call run again, measured with
// runtime.ReadMemStats (TotalAlloc), which stops the world and flushes
// every P's cache, so it is exact; the failure is reported only if the
// exact count passes too. (Measuring every call with ReadMemStats is
// exact but stops the world twice per input, which on a loaded machine
// took 50 to 500 ms per call and stalled the fuzzer.) The calls must therefore be deterministic, as fuzz targets are.
//
// The count is process-wide, so run fuzz targets with -parallel=1 (go test
// -fuzz then runs one input at a time); the fuzzing engine's own
// allocations during a call are far below the bounds' fixed parts.
package fuzzbudget

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Budget is a bound on the bytes that one call may allocate:
// PerByte × n + Fixed for an input of n bytes.
type Budget struct {
	PerByte uint64 // bytes per byte of input
	Fixed   uint64 // bytes whatever the input
}

// Limit returns the bound for an input of n bytes.
func (b Budget) Limit(n int) uint64 {
	return b.PerByte*uint64(n) + b.Fixed
}

// MemoryLimit is the soft memory limit that Check and Allocated set for the
// process (runtime/debug.SetMemoryLimit, 1 GiB) unless GOMEMLIMIT has set
// one: the garbage collector then works hard to keep a fuzz worker's heap
// below it, so that the garbage of millions of inputs does not pile up on
// a shared machine. It does not stop a single huge allocation; Check
// reports those.
const MemoryLimit = 1 << 30

var setLimit sync.Once

// Allocated returns the bytes that f allocates on the heap, counted
// exactly with runtime.ReadMemStats.
func Allocated(f func()) uint64 {
	setMemoryLimit()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// allocatedFast returns about the bytes that f allocates on the heap,
// counted with runtime/metrics (see the package documentation).
func allocatedFast(f func()) uint64 {
	setMemoryLimit()
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	before := s[0].Value.Uint64()
	f()
	metrics.Read(s)
	return s[0].Value.Uint64() - before
}

// setMemoryLimit sets MemoryLimit once, unless GOMEMLIMIT has set a limit.
func setMemoryLimit() {
	setLimit.Do(func() {
		if debug.SetMemoryLimit(-1) == 1<<63-1 { // not set by GOMEMLIMIT
			debug.SetMemoryLimit(MemoryLimit)
		}
	})
}

// TB is the part of testing.TB that Check uses.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
}

// Check runs f, which reads an input of n bytes, and reports an error
// through t, naming what (the call) and the bound, if f allocates more
// than b allows. If the cheap count passes the bound, f is run a second
// time and counted exactly, and only that count is judged (see the
// package documentation), so f must do the same each time. It returns the
// bytes allocated, as counted.
func Check(t TB, what string, n int, b Budget, f func()) uint64 {
	t.Helper()
	lim := b.Limit(n)
	got := allocatedFast(f)
	if got <= lim {
		return got
	}
	if got = Allocated(f); got > lim {
		t.Errorf("%s allocated %d bytes reading %d bytes of input; the budget is %d×%d + %d = %d bytes",
			what, got, n, b.PerByte, n, b.Fixed, lim)
	}
	return got
}

// String formats the budget as "PerByte×n + Fixed".
func (b Budget) String() string {
	return fmt.Sprintf("%d×n + %d", b.PerByte, b.Fixed)
}
