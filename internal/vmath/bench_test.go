package vmath

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/drdam/drdam/internal/cpuid"
)

// Benchmarks run at 2^16 elements (in cache) and 2^22 (in memory), once
// per level, and report ns per element. The block kernels use q = 512
// lanes (about DrDAM's 500 queries).

var benchSizes = []int{1 << 16, 1 << 22}

const benchQ = 512

func benchLevels(b *testing.B, setup func(n int) func()) {
	// block kernels round n down to whole rows of benchQ lanes
	for _, lv := range cpuid.Supported() {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%v/n=%d", lv, n), func(b *testing.B) {
				prev := cpuid.Set(lv)
				defer cpuid.Set(prev)
				f := setup(n)
				for b.Loop() {
					f()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/elem")
			})
		}
	}
}

func benchData(n int, lo, hi float64) ([]float32, []float64) {
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	x32, x64 := make([]float32, n), make([]float64, n)
	for i := range x64 {
		x64[i] = lo + (hi-lo)*rng.Float64()
		x32[i] = float32(x64[i])
	}
	return x32, x64
}

func BenchmarkSinCos32(b *testing.B) {
	benchLevels(b, func(n int) func() {
		x, _ := benchData(n, -200, 200)
		s, c := make([]float32, n), make([]float32, n)
		return func() { SinCos32(s, c, x) }
	})
}

func BenchmarkSinCos64(b *testing.B) {
	benchLevels(b, func(n int) func() {
		_, x := benchData(n, -200, 200)
		s, c := make([]float64, n), make([]float64, n)
		return func() { SinCos64(s, c, x) }
	})
}

func BenchmarkExp32(b *testing.B) {
	benchLevels(b, func(n int) func() {
		x, _ := benchData(n, -30, 10)
		y := make([]float32, n)
		return func() { Exp32(y, x) }
	})
}

func BenchmarkExp64(b *testing.B) {
	benchLevels(b, func(n int) func() {
		_, x := benchData(n, -30, 10)
		y := make([]float64, n)
		return func() { Exp64(y, x) }
	})
}

// The block benchmarks rewrite h in place; the kernels' speed does not
// depend on the values.

func BenchmarkTrigBlock32(b *testing.B) {
	benchLevels(b, func(n int) func() {
		h, _ := benchData(n/benchQ*benchQ, -200, 200)
		r, _ := benchData(n/benchQ, -1, 1)
		acc := make([]float32, benchQ)
		return func() { TrigBlock32(h, r, r, r, acc, benchQ) }
	})
}

func BenchmarkTrigBlock64(b *testing.B) {
	benchLevels(b, func(n int) func() {
		_, h := benchData(n/benchQ*benchQ, -200, 200)
		_, r := benchData(n/benchQ, -1, 1)
		acc := make([]float64, benchQ)
		return func() { TrigBlock64(h, r, r, r, acc, benchQ) }
	})
}

func BenchmarkExpBlockMax32(b *testing.B) {
	benchLevels(b, func(n int) func() {
		h, _ := benchData(n/benchQ*benchQ, -10, 10)
		lt, _ := benchData(n/benchQ, -10, 0)
		m := make([]float32, benchQ)
		return func() { ExpBlockMax32(m, h, lt, lt, benchQ) }
	})
}

func BenchmarkExpBlockMax64(b *testing.B) {
	benchLevels(b, func(n int) func() {
		_, h := benchData(n/benchQ*benchQ, -10, 10)
		_, lt := benchData(n/benchQ, -10, 0)
		m := make([]float64, benchQ)
		return func() { ExpBlockMax64(m, h, lt, lt, benchQ) }
	})
}

func BenchmarkExpBlockWeights32(b *testing.B) { benchExpBlockWeights(b, ExpBlockWeights32) }
func BenchmarkExpBlockWeights64(b *testing.B) { benchExpBlockWeights(b, ExpBlockWeights64) }

// benchExpBlockWeights times f for the Exp and ExpExp bases (without and
// with the second half's log-weights).
func benchExpBlockWeights[T float32 | float64](b *testing.B, f func(sum, h, lt, ltm, m []T, q int)) {
	for _, expexp := range []bool{false, true} {
		b.Run(map[bool]string{false: "Exp", true: "ExpExp"}[expexp], func(b *testing.B) {
			benchLevels(b, func(n int) func() {
				h := pick[T](benchData(n/benchQ*benchQ, -10, 10))
				lt := pick[T](benchData(n/benchQ, -10, 0))
				var ltm []T
				if expexp {
					ltm = lt
				}
				m := make([]T, benchQ)
				for i := range m {
					m[i] = 20
				}
				sum := make([]T, benchQ)
				return func() { f(sum, h, lt, ltm, m, benchQ) }
			})
		})
	}
}

// pick returns the one of benchData's slices that is of type []T.
func pick[T float32 | float64](x32 []float32, x64 []float64) []T {
	if v, ok := any(x32).([]T); ok {
		return v
	}
	return any(x64).([]T)
}
