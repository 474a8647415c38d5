package metrics

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Interval is a two-sided confidence interval for the mean of a sample of
// N independent values: Mean ± t·SE, with t Student's quantile at N − 1
// degrees of freedom. With fewer than two values nothing is known about
// the spread: Lo = −∞ and Hi = +∞.
type Interval struct {
	Mean, Lo, Hi float64
	N            int
}

// TQuantile returns the p-quantile of Student's t distribution with nu
// degrees of freedom (nu ≥ 1, 0 < p < 1), e.g. TQuantile(0.975, 2) =
// 4.303, the half-width factor of a 95% interval from 3 values.
func TQuantile(p float64, nu int) float64 {
	if nu < 1 || !(p > 0 && p < 1) {
		panic("metrics: TQuantile needs nu ≥ 1 and 0 < p < 1")
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(nu)}.Quantile(p)
}

// MeanInterval returns the two-sided confidence interval at the given
// level (e.g. 0.95) for the mean of the values xs, taken as independent
// draws (Student's t interval). NaN values are an error of the caller and
// give a NaN interval; with fewer than two values the interval is
// unbounded (Lo = −∞, Hi = +∞), and with none its Mean is NaN.
func MeanInterval(xs []float64, level float64) Interval {
	if !(level > 0 && level < 1) {
		panic("metrics: MeanInterval needs 0 < level < 1")
	}
	iv := Interval{N: len(xs)}
	if len(xs) == 0 {
		iv.Mean, iv.Lo, iv.Hi = math.NaN(), math.Inf(-1), math.Inf(1)
		return iv
	}
	mean, se := MeanStdErr(xs)
	iv.Mean = mean
	if len(xs) < 2 {
		iv.Lo, iv.Hi = math.Inf(-1), math.Inf(1)
		return iv
	}
	h := TQuantile(0.5+level/2, len(xs)-1) * se
	iv.Lo, iv.Hi = mean-h, mean+h
	return iv
}

// Above reports whether the whole interval lies above x.
func (iv Interval) Above(x float64) bool { return iv.Lo > x }

// Below reports whether the whole interval lies below x.
func (iv Interval) Below(x float64) bool { return iv.Hi < x }

// Within reports whether the whole interval lies in [lo, hi].
func (iv Interval) Within(lo, hi float64) bool { return iv.Lo >= lo && iv.Hi <= hi }

// Outside reports whether the whole interval lies outside [lo, hi], on
// either side.
func (iv Interval) Outside(lo, hi float64) bool { return iv.Hi < lo || iv.Lo > hi }
