package metrics

import (
	"fmt"
	"math"
)

// ClipUnit returns a copy of the patterns x (dimension d, or B×d) with every
// value clipped to [0, 1/√d], the range an image shows (RGBA clips the
// same way); NaN becomes 0. Compare completions with ClipUnit first, as
// RMSE255 compares values as they are.
func ClipUnit(x []float64, d int) []float64 {
	hi := 1 / math.Sqrt(float64(d))
	out := make([]float64, len(x))
	for i, v := range x {
		if v > 0 {
			out[i] = min(v, hi)
		}
	}
	return out
}

// RMSE255 returns the root-mean-square difference between a and b in 0–255
// pixel units, for patterns that are images scaled into [0, 1/√d]^d as
// package imageio makes them (a level v is v/255/√d): √(mean (a_i − b_i)²) · 255·√d, where d is the dimension of one
// pattern. a and b are patterns of dimension d or B×d row-major batches (the
// mean is over all rows). If mask is not nil (length d, true = visible) only
// the coordinates where mask is false, the occluded part, count; if none do,
// the result is NaN. Values are compared as they are, not rounded to levels.
// It panics if len(a) ≠ len(b), len(a) is not a positive multiple of d, or
// mask is neither nil nor of length d.
func RMSE255(a, b []float64, d int, mask []bool) float64 {
	if d <= 0 || len(a) != len(b) || len(a) == 0 || len(a)%d != 0 || (mask != nil && len(mask) != d) {
		panic(fmt.Sprintf("metrics: RMSE255: len(a) = %d, len(b) = %d, d = %d, len(mask) = %d; want len(a) = len(b), a positive multiple of d, and len(mask) = 0 or d",
			len(a), len(b), d, len(mask)))
	}
	var sum float64
	n := 0
	for i := range a {
		if mask != nil && mask[i%d] {
			continue
		}
		e := a[i] - b[i]
		sum += e * e
		n++
	}
	if n == 0 {
		return math.NaN()
	}
	return math.Sqrt(sum/float64(n)) * 255 * math.Sqrt(float64(d))
}
