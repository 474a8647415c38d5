//go:build linux

package vmath

import (
	"github.com/drdam/drdam/internal/simdtest"
	"syscall"
	"testing"
	"unsafe"
)

// pageEnd returns n elements ending at a page followed by an inaccessible
// one, so that reading or writing past the end faults.
func pageEnd[T float32 | float64](t *testing.T, n int, fill T) []T {
	ps := syscall.Getpagesize()
	es := int(unsafe.Sizeof(fill))
	size := (n*es+ps-1)/ps*ps + ps
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mprotect(mem[size-ps:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	s := unsafe.Slice((*T)(unsafe.Pointer(&mem[size-ps-n*es])), n)
	for i := range s {
		s[i] = fill
	}
	return s
}

// TestPageEnd runs every kernel on slices that end at an inaccessible
// page: a load or store past the end would crash the test.
func TestPageEnd(t *testing.T) {
	simdtest.ForLevels(t, func(t *testing.T) {
		for _, n := range lengths {
			SinCos32(pageEnd(t, n, float32(0)), pageEnd(t, n, float32(0)), pageEnd(t, n, float32(1.5)))
			SinCos64(pageEnd(t, n, 0.0), pageEnd(t, n, 0.0), pageEnd(t, n, 1.5))
			Exp32(pageEnd(t, n, float32(0)), pageEnd(t, n, float32(-1)))
			Exp64(pageEnd(t, n, 0.0), pageEnd(t, n, -1.0))
		}
		for _, bc := range blockCases32 {
			n, q := bc.n, bc.q
			p := func(k int, v float32) []float32 { return pageEnd(t, k, v) }
			TrigBlock32(p(n*q, 1), p(n, 1), p(n, 1), p(n, 1), p(q, 0), q)
			ExpBlockMax32(p(q, -1), p(n*q, 1), p(n, -1), p(n, -1), q)
			ExpBlockWeights32(p(q, 0), p(n*q, 1), p(n, -1), p(n, -1), p(q, 2), q)
		}
		for _, bc := range blockCases64 {
			n, q := bc.n, bc.q
			p := func(k int, v float64) []float64 { return pageEnd(t, k, v) }
			TrigBlock64(p(n*q, 1), p(n, 1), p(n, 1), p(n, 1), p(q, 0), q)
			TrigLane64(p(n*q, 1), p(n, 1), p(n, 1), p(n, 1), p(q, 0), q, q-1, p(4*n, 0))
			TrigLane64(p(n*q, 1), nil, p(n, 1), nil, p(q, 0), q, q-1, p(4*n, 0))
			ExpBlockMax64(p(q, -1), p(n*q, 1), p(n, -1), p(n, -1), q)
			ExpBlockWeights64(p(q, 0), p(n*q, 1), p(n, -1), p(n, -1), p(q, 2), q)
		}
	})
}
