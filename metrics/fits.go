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
	f, ok := logFit(xs, errs)
	return f.p, ok
}

// logLine is a least-squares line through (log x, log err): its slope p,
// the number n of points used, the residual sum of squares and Sxx.
type logLine struct {
	p, rss, sxx float64
	n           int
}

// logFit fits log err against log x over the points where both are
// positive and finite; false if fewer than two remain or all x are equal.
func logFit(xs, errs []float64) (logLine, bool) {
	var lx, ly []float64
	for i := range xs {
		if errs[i] > 0 && !math.IsInf(errs[i], 0) && xs[i] > 0 && !math.IsInf(xs[i], 0) {
			lx, ly = append(lx, math.Log(xs[i])), append(ly, math.Log(errs[i]))
		}
	}
	f := logLine{n: len(lx)}
	if f.n < 2 {
		return f, false
	}
	var mx, my float64
	for i := range lx {
		mx += lx[i]
		my += ly[i]
	}
	mx /= float64(f.n)
	my /= float64(f.n)
	var sxy float64
	for i := range lx {
		sxy += (lx[i] - mx) * (ly[i] - my)
		f.sxx += (lx[i] - mx) * (lx[i] - mx)
	}
	if f.sxx == 0 {
		return f, false
	}
	f.p = sxy / f.sxx
	for i := range lx {
		r := ly[i] - my - f.p*(lx[i]-mx)
		f.rss += r * r
	}
	return f, true
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
