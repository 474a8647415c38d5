package metrics

import "math"

// LogSlopeInterval returns the least-squares slope of log err against
// log x (the p of err ∝ x^p, as LogSlope) over the points where both are
// positive and finite, with its two-sided confidence interval at the
// given level from the regression itself: p ± t·SE, where t is Student's
// quantile at n − 2 degrees of freedom, n the number of points used, and
// SE = √(RSS/(n − 2)/Sxx) the slope's standard error from the residuals.
// N is n. With two points there is no residual to estimate the spread
// from, and the interval is unbounded (Lo = −∞, Hi = +∞); with fewer than
// two points, or all x equal, Mean is NaN too.
//
// It treats the points as independent with equal variance on the log
// scale; for replicated series, the interval of the replicates' slopes
// (MeanInterval of their LogSlopes) needs neither assumption.
func LogSlopeInterval(xs, errs []float64, level float64) Interval {
	if !(level > 0 && level < 1) {
		panic("metrics: LogSlopeInterval needs 0 < level < 1")
	}
	var lx, ly []float64
	for i := range xs {
		if errs[i] > 0 && !math.IsInf(errs[i], 0) && xs[i] > 0 && !math.IsInf(xs[i], 0) {
			lx, ly = append(lx, math.Log(xs[i])), append(ly, math.Log(errs[i]))
		}
	}
	n := len(lx)
	iv := Interval{Mean: math.NaN(), Lo: math.Inf(-1), Hi: math.Inf(1), N: n}
	if n < 2 {
		return iv
	}
	var mx, my float64
	for i := range lx {
		mx += lx[i]
		my += ly[i]
	}
	mx /= float64(n)
	my /= float64(n)
	var sxy, sxx float64
	for i := range lx {
		sxy += (lx[i] - mx) * (ly[i] - my)
		sxx += (lx[i] - mx) * (lx[i] - mx)
	}
	if sxx == 0 {
		return iv
	}
	p := sxy / sxx
	iv.Mean = p
	if n == 2 {
		return iv
	}
	var rss float64
	for i := range lx {
		r := ly[i] - my - p*(lx[i]-mx)
		rss += r * r
	}
	h := TQuantile(0.5+level/2, n-2) * math.Sqrt(rss/float64(n-2)/sxx)
	iv.Lo, iv.Hi = p-h, p+h
	return iv
}
