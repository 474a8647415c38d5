package fwht

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/drdam/drdam/internal/cpuid"
)

// The benchmarks report ns per transform and ns per butterfly element,
// that is per n·log2(n).
//
// The slices are 64-byte aligned (see unaligned for the cost of other
// alignments). The transforms run in place over and over, so the values
// grow by up to n per transform; NaN and ±Inf slow the adds down on this
// machine, so the input starts at 2^-60 times values uniform in [−1, 1)
// and is copied back in every max(1, ⌊180/log2(n)⌋) transforms, before
// anything can overflow. That copy (about 1/12 of a transform of 16384
// elements) is part of the time.

var benchSizes = []int{1 << 10, 1 << 12, 1 << 14, 1 << 16}

// aligned returns n zeros starting at a multiple of align bytes, plus
// off bytes.
func aligned[T float](n, align, off int) []T {
	var z T
	es := int(unsafe.Sizeof(z))
	buf := make([]T, n+(align+off)/es+1)
	a := int(uintptr(unsafe.Pointer(&buf[0])) % uintptr(align))
	i := ((align-a)%align + off) / es
	return buf[i : i+n : i+n]
}

func benchOne[T float](b *testing.B, n, off int, f func(x, s []T)) {
	rng := rand.New(rand.NewPCG(11, uint64(n)))
	x0 := randVec[T](rng, n)
	for i := range x0 {
		x0[i] *= 0x1p-60
	}
	x, s := aligned[T](n, 64, off), aligned[T](n, 64, off)
	copy(x, x0)
	copy(s, randSigns[T](rng, n))
	every, i := max(1, 180/log2(n)), 0
	for b.Loop() {
		f(x, s)
		if i++; i == every {
			copy(x, x0)
			i = 0
		}
	}
	for _, v := range x {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			b.Fatal("the values overflowed")
		}
	}
	ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(ns, "ns/transform")
	b.ReportMetric(ns/float64(n*log2(n)), "ns/nlogn")
}

func benchLevels[T float](b *testing.B, sizes []int, f func(x, s []T)) {
	for _, lv := range cpuid.Supported() {
		for _, n := range sizes {
			b.Run(fmt.Sprintf("%v/n=%d", lv, n), func(b *testing.B) {
				prev := cpuid.Set(lv)
				defer cpuid.Set(prev)
				benchOne(b, n, 0, f)
			})
		}
	}
}

func BenchmarkTransform32(b *testing.B) {
	benchLevels(b, benchSizes, func(x, _ []float32) { Transform32(x) })
}

func BenchmarkTransform64(b *testing.B) {
	benchLevels(b, benchSizes, func(x, _ []float64) { Transform64(x) })
}

func BenchmarkSignTransform32(b *testing.B) {
	benchLevels(b, []int{1 << 14}, SignTransform32)
}

func BenchmarkTransformSign32(b *testing.B) {
	benchLevels(b, []int{1 << 14}, TransformSign32)
}

// BenchmarkUnaligned32 runs Transform32 at n = 16384 on slices starting
// off bytes after a multiple of 64.
func BenchmarkUnaligned32(b *testing.B) {
	for _, lv := range cpuid.Supported()[1:] {
		for _, off := range []int{0, 4, 16, 32} {
			b.Run(fmt.Sprintf("%v/off=%d", lv, off), func(b *testing.B) {
				prev := cpuid.Set(lv)
				defer cpuid.Set(prev)
				benchOne(b, 1<<14, off, func(x, _ []float32) { Transform32(x) })
			})
		}
	}
}
