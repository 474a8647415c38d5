package metrics

import "math"

// FitInvSqrt returns b of the curve err ≈ b/√Y fitted to (ys, errs) by
// least squares on the log scale (log err = log b − ½ log Y), and false if
// fewer than two points are positive and finite.
func FitInvSqrt(ys, errs []float64) (float64, bool) {
	var s float64
	n := 0
	for i := range ys {
		if errs[i] > 0 && !math.IsInf(errs[i], 0) && ys[i] > 0 {
			s += math.Log(errs[i]) + 0.5*math.Log(ys[i])
			n++
		}
	}
	if n < 2 {
		return 0, false
	}
	return math.Exp(s / float64(n)), true
}

// LogSlope returns the least-squares slope of log err against log x, the
// exponent p of err ∝ x^p (−½ for the b/√Y of random features), and
// false if fewer than two points are positive and finite.
func LogSlope(xs, errs []float64) (float64, bool) {
	var lx, ly []float64
	for i := range xs {
		if errs[i] > 0 && !math.IsInf(errs[i], 0) && xs[i] > 0 {
			lx, ly = append(lx, math.Log(xs[i])), append(ly, math.Log(errs[i]))
		}
	}
	if len(lx) < 2 {
		return 0, false
	}
	var mx, my float64
	for i := range lx {
		mx += lx[i]
		my += ly[i]
	}
	mx /= float64(len(lx))
	my /= float64(len(lx))
	var sxy, sxx float64
	for i := range lx {
		sxy += (lx[i] - mx) * (ly[i] - my)
		sxx += (lx[i] - mx) * (lx[i] - mx)
	}
	if sxx == 0 {
		return 0, false
	}
	return sxy / sxx, true
}

// EnvelopeInvSqrt returns b = max over the points of √Y·err, so that b/√Y
// lies on or above every point: the envelope the paper's code draws as
// its "bound" curves (max(√Y·err)/√Y), a curve fitted to the data, not a
// bound derived from the theory. It returns false if no point is
// positive and finite.
func EnvelopeInvSqrt(ys, errs []float64) (float64, bool) {
	b, ok := 0.0, false
	for i := range ys {
		if errs[i] > 0 && !math.IsInf(errs[i], 0) && ys[i] > 0 {
			b, ok = max(b, math.Sqrt(ys[i])*errs[i]), true
		}
	}
	return b, ok
}
