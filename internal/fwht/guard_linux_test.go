//go:build linux

package fwht

import (
	"github.com/drdam/drdam/internal/simdtest"
	"syscall"
	"testing"
	"unsafe"
)

// guarded returns n elements that end at a page followed by an
// inaccessible one (atEnd) or start at a page preceded by one, so that a
// load or store past either end of the slice faults.
func guarded[T float32 | float64](t *testing.T, n int, atEnd bool, fill func(i int) T) []T {
	ps := syscall.Getpagesize()
	var z T
	es := int(unsafe.Sizeof(z))
	size := (n*es+ps-1)/ps*ps + 2*ps
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mprotect(mem[:ps], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mprotect(mem[size-ps:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	start := ps
	if atEnd {
		start = size - ps - n*es
	}
	s := unsafe.Slice((*T)(unsafe.Pointer(&mem[start])), n)
	for i := range s {
		s[i] = fill(i)
	}
	return s
}

// TestPageGuard runs every function on slices next to an inaccessible
// page, at either end, for every length up to 2^16. (Misaligned slices
// are tested in testDefinition, with sentinels on both sides.)
func TestPageGuard(t *testing.T) {
	simdtest.ForLevels(t, func(t *testing.T) {
		for n := 1; n <= 1<<16; n *= 2 {
			for _, atEnd := range []bool{false, true} {
				f32 := func(i int) float32 { return float32(i%7) - 3 }
				f64 := func(i int) float64 { return float64(i%7) - 3 }
				s32 := func(i int) float32 { return float32(1 - 2*(i%3&1)) }
				s64 := func(i int) float64 { return float64(1 - 2*(i%3&1)) }
				Transform32(guarded(t, n, atEnd, f32))
				Transform64(guarded(t, n, atEnd, f64))
				SignTransform32(guarded(t, n, atEnd, f32), guarded(t, n, atEnd, s32))
				SignTransform64(guarded(t, n, atEnd, f64), guarded(t, n, atEnd, s64))
				TransformSign32(guarded(t, n, atEnd, f32), guarded(t, n, atEnd, s32))
				TransformSign64(guarded(t, n, atEnd, f64), guarded(t, n, atEnd, s64))
			}
		}
	})
}
