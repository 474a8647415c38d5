package plots

import (
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// valueTicker marks an axis (linear, or logarithmic if log is set) at given values, as the paper marks its
// Y and K axes at the measured values, with compact labels (40k, 1M). It
// labels the largest value and, going down, each value whose label keeps
// minLabelGap from the last one labelled on an axis of the given length;
// the others get unlabelled ticks. Without values in the range it falls
// back to gonum's default ticks.
type valueTicker struct {
	values []float64
	style  text.Style
	length vg.Length // a lower bound on the drawn length of the axis
	log    bool      // the axis is logarithmic: positions go as log v
}

// Ticks implements plot.Ticker.
func (t valueTicker) Ticks(lo, hi float64) []plot.Tick {
	var vs []float64
	for _, v := range t.values {
		if inRange(v, lo, hi) && !math.IsNaN(v) && !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	slices.Sort(vs)
	if len(vs) == 0 {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	scale := func(v float64) float64 { return v }
	if t.log && lo > 0 {
		scale = math.Log
	}
	span := scale(hi) - scale(lo)
	pos := func(v float64) vg.Length {
		if span <= 0 {
			return 0
		}
		return t.length * vg.Length((scale(v)-scale(lo))/span)
	}
	// apart reports whether the labels of a and b keep minLabelGap.
	apart := func(a, b float64) bool {
		need := (t.style.Width(compactLabel(a))+t.style.Width(compactLabel(b)))/2 + minLabelGap
		return pos(b)-pos(a) >= need
	}
	labelled := []int{len(vs) - 1} // from the right: the last value first
	for i := len(vs) - 2; i >= 0; i-- {
		if apart(vs[i], vs[labelled[len(labelled)-1]]) {
			labelled = append(labelled, i)
		}
	}
	ticks := make([]plot.Tick, len(vs))
	for i, v := range vs {
		ticks[i].Value = v
		if slices.Contains(labelled, i) {
			ticks[i].Label = compactLabel(v)
		}
	}
	return ticks
}

// compactLabel writes v briefly: 40000 as 40k, 2000000 as 2M, other
// integers in full, and fractions with up to four significant digits.
func compactLabel(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6 && math.Mod(v, 1e5) == 0:
		return strconv.FormatFloat(v/1e6, 'g', 4, 64) + "M"
	case a >= 1e3 && math.Mod(v, 100) == 0:
		return strconv.FormatFloat(v/1e3, 'g', 4, 64) + "k"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
