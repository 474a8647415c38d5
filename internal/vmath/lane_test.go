package vmath

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/drdam/drdam/internal/simdtest"
)

// TestTrigLane64: TrigLane64 gives lane l, bit for bit, what TrigBlock64
// gives it (h and acc), and leaves the other lanes alone, on every level;
// with the other lanes zero (a block with one live query, as DrDAM's
// engine calls it), and with phases of every range in the live lane,
// beyond the fast range and NaN included.
func TestTrigLane64(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 64))
	simdtest.ForLevels(t, func(t *testing.T) {
		for _, n := range []int{1, 3, 8, 37, 1024} {
			for _, q := range []int{1, 4, 8, 6} {
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
						wantH, wantAcc := slices.Clone(h), slices.Clone(acc)
						TrigBlock64(wantH, bias, tc, ts, wantAcc, q)
						gotH, gotAcc := slices.Clone(h), slices.Clone(acc)
						TrigLane64(gotH, bias, tc, ts, gotAcc, q, l, make([]float64, 4*n))
						for r := range n {
							for j := range q {
								i := r*q + j
								want := h[i] // other lanes: unchanged
								if j == l {
									want = wantH[i]
								}
								if !same(gotH[i], want) {
									t.Fatalf("n=%d q=%d l=%d bias=%v ts=%v: h[%d] (row %d, lane %d) = %v, want %v", n, q, l, withBias, withTs, i, r, j, gotH[i], want)
								}
							}
						}
						for j := range q {
							want := acc[j]
							if j == l {
								want = wantAcc[j]
							}
							if !same(gotAcc[j], want) {
								t.Fatalf("n=%d q=%d l=%d bias=%v ts=%v: acc[%d] = %v, want %v", n, q, l, withBias, withTs, j, gotAcc[j], want)
							}
						}
					}
				}
			}
		}
	})
}

// same reports whether a and b are the same float64, NaN equal to NaN.
func same(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// TestTrigLane64Args: wrong arguments panic, as TrigBlock64's do.
func TestTrigLane64Args(t *testing.T) {
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

// BenchmarkTrigLane64 times one block of 1024 rows with one live lane of
// q = 4 (float64 panels at AVX2) and 8 (AVX-512): TrigBlock64 over all q
// lanes against TrigLane64 over the one.
func BenchmarkTrigLane64(b *testing.B) {
	const n = 1024
	rng := rand.New(rand.NewPCG(1, 1))
	for _, q := range []int{4, 8} {
		h := uniform(rng, n*q, -200, 200)
		bias, tc, ts := uniform(rng, n, -3, 3), uniform(rng, n, -1, 1), uniform(rng, n, -1, 1)
		acc, buf := make([]float64, q), make([]float64, 4*n)
		b.Run(fmt.Sprintf("q=%d/block", q), func(b *testing.B) {
			for b.Loop() {
				TrigBlock64(h, bias, tc, ts, acc, q)
			}
		})
		b.Run(fmt.Sprintf("q=%d/lane", q), func(b *testing.B) {
			for b.Loop() {
				TrigLane64(h, bias, tc, ts, acc, q, 0, buf)
			}
		})
	}
}
