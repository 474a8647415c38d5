package fwht

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/drdam/drdam/internal/simdtest"
	"testing"
)

// TestLinesMatchColumns checks that the lines transforms give, lane by
// lane, what SignTransform gives on each column, bit for bit, at every
// level, for n = 1 … 2048 lines, with and without signs, and that
// LinesScale multiplies (or adds) line by line.
func TestLinesMatchColumns(t *testing.T) {
	simdtest.ForLevels(t, func(t *testing.T) {
		for _, n := range []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 8192} {
			linesCase(t, n, Lines32, LinesSignTransform32, SignTransform32)
			linesCase(t, n, Lines64, LinesSignTransform64, SignTransform64)
		}
	})
}

func linesCase[T float32 | float64](t *testing.T, n, w int, lines func(x, s []T), col func(x, s []T)) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(n), uint64(w)))
	x := make([]T, n*w)
	for i := range x {
		x[i] = T(2*r.Float64() - 1)
	}
	s := make([]T, n)
	for i := range s {
		s[i] = 1
		if r.IntN(2) == 0 {
			s[i] = -1
		}
	}
	for _, signs := range []bool{false, true} {
		got := append([]T(nil), x...)
		var sg []T
		if signs {
			sg = s
		}
		lines(got, sg)
		for j := range w {
			c := make([]T, n)
			ones := make([]T, n)
			for i := range c {
				c[i] = x[i*w+j]
				ones[i] = 1
			}
			if signs {
				col(c, s)
			} else {
				col(c, ones)
			}
			for i := range c {
				if g := got[i*w+j]; g != c[i] {
					t.Fatalf("n=%d w=%d signs=%v: line %d lane %d = %v, column transform %v", n, w, signs, i, j, g, c[i])
				}
			}
		}
	}
	// LinesScale: set, then add.
	dst := make([]T, n*w)
	sc := make([]T, n)
	for i := range sc {
		sc[i] = T(r.NormFloat64())
	}
	linesScaleOf(dst, x, sc, false)
	for i := range dst {
		if want := sc[i/w] * x[i]; dst[i] != want {
			t.Fatalf("LinesScale n=%d w=%d: [%d] = %v, want %v", n, w, i, dst[i], want)
		}
	}
	add := append([]T(nil), dst...)
	linesScaleOf(add, x, s, true)
	for i := range add {
		// s is ±1: the fused multiply-add is exactly the multiply and the add.
		if want := dst[i] + s[i/w]*x[i]; add[i] != want {
			t.Fatalf("LinesScale add n=%d w=%d: [%d] = %v, want %v", n, w, i, add[i], want)
		}
	}
}

// TestLinesBatch checks that the batched lines transform gives each array
// what LinesSignTransform gives it alone, bit for bit, at every level,
// for arrays smaller and larger than a chunk and batches that end in a
// partial chunk.
func TestLinesBatch(t *testing.T) {
	simdtest.ForLevels(t, func(t *testing.T) {
		for _, n := range []int{1, 2, 16, 32, 128, 256, 1024} {
			for _, arrays := range []int{1, 3, 8, 37} {
				linesBatchCase(t, n, arrays, Lines32, LinesSignTransform32, LinesBatchSignTransform32)
				linesBatchCase(t, n, arrays, Lines64, LinesSignTransform64, LinesBatchSignTransform64)
			}
		}
	})
}

func linesBatchCase[T float32 | float64](t *testing.T, n, arrays, w int, one func(x, s []T), batch func(x, s []T, n int)) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(n), uint64(arrays)))
	x := make([]T, arrays*n*w)
	s := make([]T, arrays*n)
	for i := range x {
		x[i] = T(2*r.Float64() - 1)
	}
	for i := range s {
		s[i] = T(1 - 2*float64(r.IntN(2)))
	}
	for _, signs := range []bool{false, true} {
		got := append([]T(nil), x...)
		var sg []T
		if signs {
			sg = s
		}
		batch(got, sg, n)
		for a := range arrays {
			want := append([]T(nil), x[a*n*w:(a+1)*n*w]...)
			var sa []T
			if signs {
				sa = s[a*n : (a+1)*n]
			}
			one(want, sa)
			for i, v := range want {
				if g := got[a*n*w+i]; g != v {
					t.Fatalf("n=%d arrays=%d w=%d signs=%v: array %d value %d = %v, alone %v", n, arrays, w, signs, a, i, g, v)
				}
			}
		}
	}
}

func linesScaleOf[T float32 | float64](dst, x, s []T, add bool) {
	switch d := any(dst).(type) {
	case []float32:
		LinesScale32(d, any(x).([]float32), any(s).([]float32), add)
	case []float64:
		LinesScale64(d, any(x).([]float64), any(s).([]float64), add)
	}
}

func TestLinesPanics(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"not lines", func() { LinesSignTransform64(make([]float64, 12), nil) }},
		{"not a power of two", func() { LinesSignTransform64(make([]float64, 24), nil) }},
		{"signs", func() { LinesSignTransform32(make([]float32, 64), make([]float32, 3)) }},
		{"scale", func() { LinesScale64(make([]float64, 16), make([]float64, 16), make([]float64, 1), false) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", c.name)
				}
			}()
			c.f()
		}()
	}
	_ = math.Inf
}

// BenchmarkLines transforms a batch of 8 float64 (16 float32) columns of
// length n laid out in lines, against the same columns transformed one by
// one with their gather and scatter (what SORF did per query before).
func BenchmarkLines(b *testing.B) {
	for _, n := range []int{32, 128, 1024, 16384} {
		x := make([]float64, n*Lines64)
		s := make([]float64, n)
		for i := range s {
			s[i] = 1
		}
		b.Run(fmt.Sprintf("lines64/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				LinesSignTransform64(x, s)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(x)*log2(n)), "ns/(n·log2n)")
		})
		b.Run(fmt.Sprintf("scale64/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				LinesScale64(x, x, s, false)
			}
		})
		b.Run(fmt.Sprintf("columns64/n=%d", n), func(b *testing.B) {
			c := make([]float64, n)
			for b.Loop() {
				for j := range Lines64 {
					for i := range c {
						c[i] = x[i*Lines64+j]
					}
					SignTransform64(c, s)
					for i := range c {
						x[i*Lines64+j] = c[i]
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(x)*log2(n)), "ns/(n·log2n)")
		})
	}
}
