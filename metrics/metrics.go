package metrics

import (
	"fmt"
	"math"
	"slices"
)

// EnergyMAE returns (1/B) Σ_b |e_b − ê_b|, the mean approximation error of
// the energies e and ê (eq. MAE, left); both have length B.
func EnergyMAE(e, ehat []float64) float64 {
	if len(e) != len(ehat) || len(e) == 0 {
		panic(fmt.Sprintf("metrics: EnergyMAE of %d and %d values", len(e), len(ehat)))
	}
	var s float64
	for i := range e {
		s += math.Abs(e[i] - ehat[i])
	}
	return s / float64(len(e))
}

// GradMAE returns (1/B) Σ_b ‖g_b − ĝ_b‖₂, the mean approximation error of
// the gradients g and ĝ (eq. MAE, right); both are B×D, row-major.
func GradMAE(g, ghat []float64, d int) float64 {
	if len(g) != len(ghat) || d <= 0 || len(g)%d != 0 || len(g) == 0 {
		panic(fmt.Sprintf("metrics: GradMAE of %d and %d values with D = %d", len(g), len(ghat), d))
	}
	b := len(g) / d
	var s float64
	for r := range b {
		s += math.Sqrt(sqDist(g[r*d:(r+1)*d], ghat[r*d:(r+1)*d]))
	}
	return s / float64(b)
}

// GradErrors writes ‖g_b − ĝ_b‖₂ of each of the B rows of g and ĝ (B×D)
// into dst (length B), for callers that want the spread as well as the mean.
func GradErrors(dst, g, ghat []float64, d int) {
	if len(g) != len(ghat) || len(g) != len(dst)*d {
		panic(fmt.Sprintf("metrics: GradErrors of %d and %d values into %d with D = %d", len(g), len(ghat), len(dst), d))
	}
	for r := range dst {
		dst[r] = math.Sqrt(sqDist(g[r*d:(r+1)*d], ghat[r*d:(r+1)*d]))
	}
}

func sqDist(a, b []float64) float64 {
	var s float64
	for i := range a {
		u := a[i] - b[i]
		s += u * u
	}
	return s
}

// Binarize writes ⌈x_i⌋ into dst: 1/√D where x_i ≥ 1/(2√D), else 0
// (eq. binarize-op-hamming-err), for vectors of dimension d. dst and x have
// the same length, a multiple of d; dst may be x.
func Binarize(dst, x []float64, d int) {
	if len(dst) != len(x) || d <= 0 || len(x)%d != 0 {
		panic(fmt.Sprintf("metrics: Binarize of %d values into %d with D = %d", len(x), len(dst), d))
	}
	hi := 1 / math.Sqrt(float64(d))
	for i, v := range x {
		if v >= hi/2 {
			dst[i] = hi
		} else {
			dst[i] = 0
		}
	}
}

// Hamming returns the normalized Hamming error
// Δ_H = (1/√D) Σ_i |⌈x_i⌋ − ⌈x̂_i⌋| between two states of dimension
// D = len(x) (eq. binarize-op-hamming-err): the fraction of coordinates on
// which their binarizations differ, in [0, 1].
func Hamming(x, xhat []float64) float64 {
	if len(x) != len(xhat) || len(x) == 0 {
		panic(fmt.Sprintf("metrics: Hamming of %d and %d values", len(x), len(xhat)))
	}
	half := 0.5 / math.Sqrt(float64(len(x)))
	n := 0
	for i := range x {
		if (x[i] >= half) != (xhat[i] >= half) {
			n++
		}
	}
	return float64(n) / float64(len(x))
}

// MeanHamming returns the mean of Hamming over the B rows of x and x̂
// (B×D).
func MeanHamming(x, xhat []float64, d int) float64 {
	if len(x) != len(xhat) || d <= 0 || len(x)%d != 0 || len(x) == 0 {
		panic(fmt.Sprintf("metrics: MeanHamming of %d and %d values with D = %d", len(x), len(xhat), d))
	}
	b := len(x) / d
	var s float64
	for r := range b {
		s += Hamming(x[r*d:(r+1)*d], xhat[r*d:(r+1)*d])
	}
	return s / float64(b)
}

// Median returns the median of v, the mean of the two middle values for
// an even count (as Python's statistics.median), or NaN if v is empty; v
// is not modified.
func Median(v []float64) float64 {
	n := len(v)
	if n == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(v))
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// MeanStdErr returns the mean of v and its standard error s/√n (s the
// sample standard deviation; 0 when n = 1).
func MeanStdErr(v []float64) (mean, se float64) {
	n := float64(len(v))
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range v {
		mean += x
	}
	mean /= n
	if len(v) == 1 {
		return mean, 0
	}
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss/(n-1)) / math.Sqrt(n)
}
