package plots

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// Log axes are drawn as linear axes over log10 of the data: a panel's
// plotters receive log10 coordinates and logTicker labels them with the
// values they stand for. This keeps every coordinate finite (gonum's
// LogScale panics on values ≤ 0) and places gonum's axis labels correctly
// (it centres them at the arithmetic mean of the range, which on a
// LogScale axis sits near one end).

// logTicker marks a log10-transformed axis. It labels powers of ten
// (10⁻³, 10⁻², …, written "10^{−3}" for supText), thinning them to every
// second, third, … decade until neighbouring labels no longer overlap on
// an axis of the given length; unlabelled decades and the 2…9 multiples
// become minor ticks. When the axis holds fewer than two powers of ten it
// labels 1, 2 and 5 times a power, then every multiple, then plain linear
// ticks, so that at least two labels are always shown.
type logTicker struct {
	style    text.Style // the tick label style, to measure labels
	length   vg.Length  // a lower bound on the drawn length of the axis
	vertical bool       // labels stack vertically (a Y axis)
}

// minLabelGap is the free space required between two tick labels.
const minLabelGap = vg.Length(6)

// Ticks implements plot.Ticker; lo and hi are log10 of the axis ends, and
// so are the values of the returned ticks.
func (t logTicker) Ticks(lo, hi float64) []plot.Tick {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil // never reached through Figure, which sanitizes ranges
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	powers := t.powerTicks(lo, hi)
	if labelCount(powers) >= 3 {
		return powers
	}
	// Two labels or none: 1, 2 and 5 times powers of ten say more, if
	// they fit.
	if ticks := t.mantissaTicks(lo, hi, []int{1, 2, 5}); ticks != nil {
		return ticks
	}
	if powers != nil {
		return powers
	}
	if ticks := t.mantissaTicks(lo, hi, []int{1, 2, 3, 4, 5, 6, 7, 8, 9}); ticks != nil {
		return ticks
	}
	return t.linearTicks(lo, hi)
}

// tol widens the axis range by a hair (in decades) so that a power of ten
// at an end of the range, up to rounding, still gets its tick.
const tol = 1e-9

func inRange(v, lo, hi float64) bool { return v >= lo-tol && v <= hi+tol }

// decades returns the exponents e with 10^e inside the axis range.
func decades(lo, hi float64) (first, last int) {
	return int(math.Ceil(lo - tol)), int(math.Floor(hi + tol))
}

// powerTicks labels powers of ten, or returns nil if fewer than two fit.
// On a long range it labels every step-th decade, with step 1, 2, 3, 5,
// 10, 20, 30, 50, … chosen as the smallest that keeps labels apart.
func (t logTicker) powerTicks(lo, hi float64) []plot.Tick {
	first, last := decades(lo, hi)
	n := last - first + 1
	if n < 2 {
		return nil
	}
	for _, step := range niceSteps(n) {
		var ticks []plot.Tick
		for e := first; e <= last; e++ {
			if mod(e, step) == 0 {
				ticks = append(ticks, plot.Tick{Value: float64(e), Label: powerLabel(e)})
			}
		}
		if len(ticks) < 2 {
			break // thinning further would leave one label
		}
		if !t.fits(ticks, lo, hi) {
			continue
		}
		switch {
		case step == 1 && n <= 12:
			ticks = appendMinor(ticks, first-1, last, lo, hi)
		case step > 1 && n <= 60:
			// Unlabelled decades as minor ticks, while they stay sparse.
			for e := first; e <= last; e++ {
				if mod(e, step) != 0 {
					ticks = append(ticks, plot.Tick{Value: float64(e)})
				}
			}
		}
		return ticks
	}
	// Labels overlap even at the sparsest thinning that keeps two (a very
	// short axis): label the powers at the two ends.
	return []plot.Tick{
		{Value: float64(first), Label: powerLabel(first)},
		{Value: float64(last), Label: powerLabel(last)},
	}
}

// niceSteps returns 1, 2, 3, 5, 10, 20, 30, 50, … up to n.
func niceSteps(n int) []int {
	var steps []int
	for p := 1; p <= n; p *= 10 {
		for _, m := range []int{1, 2, 3, 5} {
			if m*p <= n {
				steps = append(steps, m*p)
			}
		}
		if p > math.MaxInt/10 {
			break
		}
	}
	return steps
}

func labelCount(ticks []plot.Tick) int {
	n := 0
	for _, tk := range ticks {
		if tk.Label != "" {
			n++
		}
	}
	return n
}

// appendMinor adds unlabelled ticks at k·10^e, k = 2…9, inside the range.
func appendMinor(ticks []plot.Tick, first, last int, lo, hi float64) []plot.Tick {
	for e := first; e <= last; e++ {
		for k := 2; k <= 9; k++ {
			if v := float64(e) + math.Log10(float64(k)); inRange(v, lo, hi) {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
	}
	return ticks
}

// mantissaTicks labels k·10^e for k in ks, or returns nil if that gives
// fewer than two labels or labels that overlap.
func (t logTicker) mantissaTicks(lo, hi float64, ks []int) []plot.Tick {
	first, last := decades(lo, hi)
	var ticks []plot.Tick
	labelled := 0
	for e := first - 1; e <= last; e++ {
		for k := 1; k <= 9; k++ {
			v := float64(e) + math.Log10(float64(k))
			if !inRange(v, lo, hi) {
				continue
			}
			tk := plot.Tick{Value: v}
			for _, m := range ks {
				if k == m {
					tk.Label = mantissaLabel(k, e)
					labelled++
				}
			}
			ticks = append(ticks, tk)
		}
	}
	if labelled < 2 || !t.fits(ticks, lo, hi) {
		return nil
	}
	return ticks
}

// linearTicks is the last resort for an axis spanning less than a factor
// of about two: evenly spaced ticks at multiples of 1, 2 or 5 times a power
// of ten, or just the two ends of the range.
func (t logTicker) linearTicks(lo, hi float64) []plot.Tick {
	a, b := math.Pow(10, lo), math.Pow(10, hi)
	if b > a && !math.IsInf(b, 0) {
		k := int(math.Floor(math.Log10(b-a))) - 1
		for try := 0; try < 6; try++ {
			step, decimals := niceLinearStep(k, try)
			var ticks []plot.Tick
			start := math.Ceil(a / step)
			for j := 0.0; j < 7; j++ { // bounded: start+j may round to start
				v := (start + j) * step
				if v > b*(1+tol) {
					break
				}
				if v <= 0 {
					continue
				}
				ticks = append(ticks, plot.Tick{Value: math.Log10(v), Label: strconv.FormatFloat(v, 'f', decimals, 64)})
			}
			if len(ticks) >= 2 && len(ticks) <= 6 && t.fits(ticks, lo, hi) {
				return ticks
			}
		}
	}
	la, lb := endLabels(a, b)
	return []plot.Tick{{Value: lo, Label: la}, {Value: hi, Label: lb}}
}

// niceLinearStep returns the try-th step of 1, 2, 5 × 10^k, 1, 2, 5 ×
// 10^(k+1), …, and the decimals that print its multiples exactly.
func niceLinearStep(k, try int) (step float64, decimals int) {
	e := k + try/3
	step = []float64{1, 2, 5}[try%3] * math.Pow(10, float64(e))
	return step, max(0, -e)
}

// endLabels formats a and b with the fewest significant digits (at least
// two) that tell them apart.
func endLabels(a, b float64) (string, string) {
	for prec := 2; prec < 17; prec++ {
		la := strconv.FormatFloat(a, 'g', prec, 64)
		lb := strconv.FormatFloat(b, 'g', prec, 64)
		if la != lb {
			return la, lb
		}
	}
	return strconv.FormatFloat(a, 'g', -1, 64), strconv.FormatFloat(b, 'g', -1, 64)
}

// fits reports whether the labelled ticks keep minLabelGap between
// neighbouring labels on an axis of length t.length.
func (t logTicker) fits(ticks []plot.Tick, lo, hi float64) bool {
	span := hi - lo
	if span <= 0 {
		return true
	}
	var labelled []plot.Tick
	for _, tk := range ticks {
		if tk.Label != "" {
			labelled = append(labelled, tk)
		}
	}
	for i := 1; i < len(labelled); i++ {
		a, b := labelled[i-1], labelled[i]
		dist := t.length * vg.Length(math.Abs(b.Value-a.Value)/span)
		var need vg.Length
		if t.vertical {
			need = (t.style.Height(a.Label)+t.style.Height(b.Label))/2 + minLabelGap
		} else {
			need = (t.style.Width(a.Label)+t.style.Width(b.Label))/2 + minLabelGap
		}
		if dist < need {
			return false
		}
	}
	return true
}

func mod(a, b int) int {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// powerLabel returns "10^{e}", drawn by supText as 10 with a raised e;
// negative exponents use the minus sign U+2212.
func powerLabel(e int) string {
	return "10^{" + strings.Replace(strconv.Itoa(e), "-", "−", 1) + "}"
}

// mantissaLabel labels k·10^e: plainly between 0.01 and 9000 (0.01, 0.02,
// 5, 300), otherwise as 10ᵉ or k×10ᵉ.
func mantissaLabel(k, e int) string {
	switch {
	case e >= -2 && e <= 3:
		return strconv.FormatFloat(float64(k)*math.Pow(10, float64(e)), 'f', max(0, -e), 64)
	case k == 1:
		return powerLabel(e)
	default:
		return strconv.Itoa(k) + "×" + powerLabel(e)
	}
}
