package metrics

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

func TestLogSlopeInterval(t *testing.T) {
	t.Parallel()
	e := math.Exp
	inf := math.Inf(1)
	for _, tc := range []struct {
		name         string
		xs, ys       []float64
		mean, lo, hi float64
		n            int
	}{
		// log y = log 3 − ½ log x exactly: no residual, a zero-width
		// interval.
		{"exact power law", []float64{1, 4, 16, 64}, []float64{3, 1.5, 0.75, 0.375}, -0.5, -0.5, -0.5, 4},
		// log x = 0, 1, 2, 3 and log y = 0, 1, 1, 2: slope 3/5, residuals
		// −0.1, 0.3, −0.3, 0.1, RSS 0.2, SE √(0.2/2/5) = √0.02 and
		// t(0.975, 2) = 4.302653 (Values calculated by hand; t from
		// TQuantile, checked against scipy.stats.t.ppf).
		{"noisy", []float64{e(0), e(1), e(2), e(3)}, []float64{e(0), e(1), e(1), e(2)}, 0.6, 0.6 - 4.302653*math.Sqrt(0.02), 0.6 + 4.302653*math.Sqrt(0.02), 4},
		{"two points", []float64{1, 10}, []float64{1, 0.1}, -1, -inf, inf, 2},
		{"non-positive left out", []float64{1, 10, 100, 0}, []float64{1, 0, 0.1, 5}, -0.5, -inf, inf, 2},
	} {
		iv := LogSlopeInterval(tc.xs, tc.ys, 0.95)
		// 1e-6: the t quantile above is given to 7 digits.
		ok := iv.N == tc.n && scalar.EqualWithinAbsOrRel(iv.Mean, tc.mean, 1e-12, 1e-12) &&
			(iv.Lo == tc.lo || scalar.EqualWithinAbsOrRel(iv.Lo, tc.lo, 1e-6, 1e-6)) &&
			(iv.Hi == tc.hi || scalar.EqualWithinAbsOrRel(iv.Hi, tc.hi, 1e-6, 1e-6))
		if !ok {
			t.Errorf("%s: got %+v, want mean %g in [%g, %g], N %d", tc.name, iv, tc.mean, tc.lo, tc.hi, tc.n)
		}
	}
	for _, tc := range []struct {
		name   string
		xs, ys []float64
	}{
		{"one point", []float64{1}, []float64{1}},
		{"equal x", []float64{2, 2, 2}, []float64{1, 2, 3}},
	} {
		if iv := LogSlopeInterval(tc.xs, tc.ys, 0.95); !math.IsNaN(iv.Mean) || !math.IsInf(iv.Lo, -1) || !math.IsInf(iv.Hi, 1) {
			t.Errorf("%s: got %+v, want NaN in (−∞, +∞)", tc.name, iv)
		}
	}
}
