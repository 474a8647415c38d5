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
	f, ok := logFit(xs, errs)
	iv := Interval{Mean: math.NaN(), Lo: math.Inf(-1), Hi: math.Inf(1), N: f.n}
	if !ok {
		return iv
	}
	iv.Mean = f.p
	if f.n == 2 {
		return iv
	}
	h := TQuantile(0.5+level/2, f.n-2) * math.Sqrt(f.rss/float64(f.n-2)/f.sxx)
	iv.Lo, iv.Hi = f.p-h, f.p+h
	return iv
}
