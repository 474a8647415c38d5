package datasets

import (
	"fmt"
	"math"
)

// NormalizeUnitBox scales the rows of x, a row-major matrix with d columns,
// into [0, 1/√d]^d and writes them to dst, as the paper does for the
// Letter data in its appendix "Ablation study: Comparing choices for basis
// function" (Fig. 6): with lo and hi the smallest and largest entries of
// the whole matrix (not of each column),
//
//	dst[k] = (x[k] − lo) / ((hi − lo)·√d),
//
// so that every entry lies in [0, 1/√d] and any two rows are at most 1
// apart, as assumption (A1) of the paper's Theorem 1 requires. An entry
// equal to lo becomes exactly 0 and one equal to hi exactly 1/√d (computed
// as 1/math.Sqrt(d)). dst and x must have the same length and may be the
// same slice. NormalizeUnitBox returns lo and hi, to scale other data
// (such as queries) alike, and an error, writing nothing, if a value is NaN
// or infinite, if all values are equal (hi = lo), if hi − lo overflows, or
// if the sizes are wrong.
func NormalizeUnitBox(dst, x []float64, d int) (lo, hi float64, err error) {
	switch {
	case d <= 0:
		return 0, 0, fmt.Errorf("NormalizeUnitBox: dimension d = %d, want d > 0", d)
	case len(x) == 0:
		return 0, 0, fmt.Errorf("NormalizeUnitBox: no data")
	case len(x)%d != 0:
		return 0, 0, fmt.Errorf("NormalizeUnitBox: len(x) = %d is not a multiple of d = %d", len(x), d)
	case len(dst) != len(x):
		return 0, 0, fmt.Errorf("NormalizeUnitBox: len(dst) = %d, want len(x) = %d", len(dst), len(x))
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for k, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, 0, fmt.Errorf("NormalizeUnitBox: row %d, column %d: %v is not finite", k/d+1, k%d+1, v)
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	r := hi - lo
	if r == 0 {
		return lo, hi, fmt.Errorf("NormalizeUnitBox: all %d values are %v; the range max − min is 0", len(x), lo)
	}
	if math.IsInf(r, 0) {
		return lo, hi, fmt.Errorf("NormalizeUnitBox: the range max − min = %v − (%v) overflows float64", hi, lo)
	}
	s := 1 / math.Sqrt(float64(d))
	for k, v := range x {
		// (v − lo)/r is in [0, 1] exactly, as v − lo ≤ r and division
		// rounds monotonically, so the result is in [0, s].
		dst[k] = (v - lo) / r * s
	}
	return lo, hi, nil
}

// Unique returns the indices of the distinct rows of x, a row-major
// matrix with d columns: the index of the first occurrence of each
// distinct row, in increasing order. Rows are compared value by value,
// with −0 equal to 0 (and a NaN equal to a NaN with the same bits).
// Unique panics if d ≤ 0 or len(x) is not a multiple of d.
func Unique(x []float64, d int) []int {
	if d <= 0 || len(x)%d != 0 {
		panic(fmt.Sprintf("datasets.Unique: len(x) = %d and d = %d; want d > 0 dividing len(x)", len(x), d))
	}
	n := len(x) / d
	seen := make(map[string]struct{}, n)
	key := make([]byte, 8*d)
	var idx []int
	for i := range n {
		for j, v := range x[i*d : (i+1)*d] {
			if v == 0 {
				v = 0 // −0 as 0
			}
			b := math.Float64bits(v)
			for k := range 8 {
				key[8*j+k] = byte(b >> (8 * k))
			}
		}
		if _, dup := seen[string(key)]; dup {
			continue
		}
		seen[string(key)] = struct{}{}
		idx = append(idx, i)
	}
	return idx
}
