package vmath

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/drdam/drdam/internal/simdtest"
)

// TestTrigLane: TrigLane32 and TrigLane64 give lane l, bit for bit, what
// TrigBlock32 and TrigBlock64 give it (h and acc), and leave the other
// lanes alone, on every level; with the other lanes zero (a block with one
// live query, as DrDAM's engine calls them), and with phases of every
// range in the live lane, beyond the fast range and NaN included.
func TestTrigLane(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 64))
	simdtest.ForLevels(t, func(t *testing.T) {
		for _, n := range []int{1, 3, 8, 37, 1024} {
			for _, q := range []int{1, 4, 8, 6, 16} {
				for _, withBias := range []bool{false, true} {
					for _, withTs := range []bool{false, true} {
						l := rng.IntN(q)
						h, bias, tc, ts, acc := trigInputs(rng, n, q, withBias, withTs)
						for r := range n { // the other lanes: no query (zero)
							for j := range q {
								if j != l {
									h[r*q+j] = 0
								}
							}
						}
						if n > 3 {
							h[2*q+l] = math.NaN()
						}
						name := fmt.Sprintf("n=%d q=%d l=%d bias=%v ts=%v", n, q, l, withBias, withTs)
						checkLane(t, "float64 "+name, h, bias, tc, ts, acc, q, l, TrigBlock64, TrigLane64)
						checkLane(t, "float32 "+name, to32(h), to32(bias), to32(tc), to32(ts), to32(acc), q, l, TrigBlock32, TrigLane32)
					}
				}
			}
		}
	})
}

// checkLane runs the block and the lane kernels on copies of the same
// inputs and compares them bit for bit (the sign of a zero included).
func checkLane[T float32 | float64](t *testing.T, name string, h, bias, tc, ts, acc []T, q, l int,
	block func(h, bias, tc, ts, acc []T, q int), lane func(h, bias, tc, ts, acc []T, q, l int, buf []T)) {
	t.Helper()
	n := len(h) / q
	wantH, wantAcc := slices.Clone(h), slices.Clone(acc)
	block(wantH, bias, tc, ts, wantAcc, q)
	gotH, gotAcc := slices.Clone(h), slices.Clone(acc)
	lane(gotH, bias, tc, ts, gotAcc, q, l, make([]T, 4*n))
	for r := range n {
		for j := range q {
			i := r*q + j
			want := h[i] // other lanes: unchanged
			if j == l {
				want = wantH[i]
			}
			if !same(float64(gotH[i]), float64(want)) {
				t.Fatalf("%s: h[%d] (row %d, lane %d) = %v, want %v", name, i, r, j, gotH[i], want)
			}
		}
	}
	for j := range q {
		want := acc[j]
		if j == l {
			want = wantAcc[j]
		}
		if !same(float64(gotAcc[j]), float64(want)) {
			t.Fatalf("%s: acc[%d] = %v, want %v", name, j, gotAcc[j], want)
		}
	}
}

// same reports whether a and b are the same float64 (or float32 widened
// exactly), NaN equal to NaN.
func same(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// TestTrigLaneArgs: wrong arguments panic, as TrigBlock64's do.
func TestTrigLaneArgs(t *testing.T) {
	h, tc, acc := make([]float64, 8), make([]float64, 2), make([]float64, 4)
	for name, f := range map[string]func(){
		"lane beyond q":  func() { TrigLane64(h, nil, tc, nil, acc, 4, 4, make([]float64, 8)) },
		"negative lane":  func() { TrigLane64(h, nil, tc, nil, acc, 4, -1, make([]float64, 8)) },
		"short buf":      func() { TrigLane64(h, nil, tc, nil, acc, 4, 0, make([]float64, 7)) },
		"rows not len/q": func() { TrigLane64(h, nil, tc[:1], nil, acc, 4, 0, make([]float64, 8)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// BenchmarkTrigLane times one block of 1024 rows with one live lane of a
// query panel (q = 8 in float64, 16 in float32: kern.Lanes): TrigBlock
// over all q lanes against TrigLane over the one.
func BenchmarkTrigLane(b *testing.B) {
	const n = 1024
	rng := rand.New(rand.NewPCG(1, 1))
	h := uniform(rng, n*16, -200, 200)
	bias, tc, ts := uniform(rng, n, -3, 3), uniform(rng, n, -1, 1), uniform(rng, n, -1, 1)
	acc, buf := make([]float64, 16), make([]float64, 4*n)
	h32, bias32, tc32, ts32, acc32, buf32 := to32(h), to32(bias), to32(tc), to32(ts), to32(acc), to32(buf)
	b.Run("float64/q=8/block", func(b *testing.B) {
		for b.Loop() {
			TrigBlock64(h[:8*n], bias, tc, ts, acc[:8], 8)
		}
	})
	b.Run("float64/q=8/lane", func(b *testing.B) {
		for b.Loop() {
			TrigLane64(h[:8*n], bias, tc, ts, acc[:8], 8, 0, buf)
		}
	})
	b.Run("float32/q=16/block", func(b *testing.B) {
		for b.Loop() {
			TrigBlock32(h32, bias32, tc32, ts32, acc32, 16)
		}
	})
	b.Run("float32/q=16/lane", func(b *testing.B) {
		for b.Loop() {
			TrigLane32(h32, bias32, tc32, ts32, acc32, 16, 0, buf32)
		}
	})
}
