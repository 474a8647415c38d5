package paper

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/metrics"
)

// The verdicts of a Finding. A claim is judged by a statistical rule on
// independent replicates (seeds, or images): it holds when the data
// support it at the stated confidence, does not hold when they contradict
// it at that confidence, and is inconclusive otherwise — a tie, or too few
// replicates to tell (one seed gives no interval at all).
const (
	Holds        = "holds"
	DoesNotHold  = "does not hold"
	Inconclusive = "inconclusive"
	NotMeasured  = "not measured"
)

// StatRule is the statistical rule every verdict follows, for the report.
const StatRule = "Each claim is split into groups (e.g. one per β); in each, one statistic per independent replicate " +
	"(seed, or image) is computed, and the 95% Student-t interval of its mean is taken. A group **holds** when that interval " +
	"lies wholly on the claim's side of the reference value, **does not hold** when the interval at 1 − 0.05/m " +
	"(Bonferroni over the claim's m groups) lies wholly on the other side, and is **inconclusive** otherwise. " +
	"The claim holds when every group holds (an intersection–union test, valid at 95% without correction), " +
	"does not hold when any group does not, and is inconclusive otherwise. With one replicate there is no interval, " +
	"and every verdict is inconclusive."

// sense is the direction of a claim about a mean.
type sense int

const (
	above  sense = iota // the mean exceeds lo
	below               // the mean is below lo
	inside              // the mean lies in [lo, hi]
)

// test is the judgement of one group of a claim: the claim's sense and
// reference values, the replicates' statistics, and the outcome.
type test struct {
	sense   sense
	lo, hi  float64
	iv      metrics.Interval // at 95%
	verdict string
}

// decide judges the claim (sense, lo, hi) about the mean of xs, the
// independent replicates' values of a statistic, as one of m groups of a
// claim (see StatRule). NaN values are left out (a replicate that
// measured nothing); with fewer than two values left the verdict is
// Inconclusive, with none NotMeasured.
func decide(xs []float64, s sense, lo, hi float64, m int) test {
	xs = slices.DeleteFunc(slices.Clone(xs), math.IsNaN)
	t := test{sense: s, lo: lo, hi: hi, iv: metrics.MeanInterval(xs, experiment.Level)}
	if len(xs) == 0 {
		t.verdict = NotMeasured
		return t
	}
	fam := metrics.MeanInterval(xs, 1-(1-experiment.Level)/float64(max(1, m)))
	var yes, no bool
	switch s {
	case above:
		yes, no = t.iv.Above(lo), fam.Below(lo)
	case below:
		yes, no = t.iv.Below(lo), fam.Above(lo)
	case inside:
		yes, no = t.iv.Within(lo, hi), fam.Outside(lo, hi)
	}
	switch {
	case yes:
		t.verdict = Holds
	case no:
		t.verdict = DoesNotHold
	default:
		t.verdict = Inconclusive
	}
	return t
}

// String gives the interval and the outcome, e.g. "0.31 [0.12, 0.50] > 0:
// holds".
func (t test) String() string {
	var ref string
	switch t.sense {
	case above:
		ref = fmt.Sprintf("> %.3g", t.lo)
	case below:
		ref = fmt.Sprintf("< %.3g", t.lo)
	case inside:
		ref = fmt.Sprintf("in [%.3g, %.3g]", t.lo, t.hi)
	}
	return fmt.Sprintf("%s (want %s): %s", fmtInterval(t.iv), ref, t.verdict)
}

// fmtInterval gives a mean and its 95% interval, e.g. "0.31 [0.12,
// 0.50], 3 seeds".
func fmtInterval(iv metrics.Interval) string {
	if iv.N < 2 {
		return fmt.Sprintf("%.3g (%d replicate: no interval)", iv.Mean, iv.N)
	}
	return fmt.Sprintf("%.3g [%.3g, %.3g] (n = %d)", iv.Mean, iv.Lo, iv.Hi, iv.N)
}

// combine returns the verdict of a claim from those of its groups: Holds
// if every measured group holds, DoesNotHold if any does not hold,
// NotMeasured if none was measured, Inconclusive otherwise.
func combine(vs ...string) string {
	measured, holds := 0, 0
	for _, v := range vs {
		switch v {
		case DoesNotHold:
			return DoesNotHold
		case Holds:
			holds++
			measured++
		case Inconclusive:
			measured++
		}
	}
	switch {
	case measured == 0:
		return NotMeasured
	case holds == measured:
		return Holds
	}
	return Inconclusive
}

// perSeed returns, for each seed of rows (increasing), stat applied to the
// rows of that seed: one statistic per independent replicate.
func perSeed(rows []experiment.Row, stat func(rows []experiment.Row) float64) []float64 {
	var out []float64
	for _, s := range experiment.Seeds(rows) {
		out = append(out, stat(experiment.Select(rows, func(r experiment.Row) bool { return r.Seed == s })))
	}
	return out
}

// meanLogRatio returns the mean of log(num/den) over pairs with both
// positive and finite, and NaN if there is none.
func meanLogRatio(num, den []float64) float64 {
	var s float64
	n := 0
	for i := range num {
		if a, b := num[i], den[i]; a > 0 && b > 0 && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
			s += math.Log(a / b)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// seedNote says how many seeds a finding rests on, for its details.
func seedNote(rows []experiment.Row) string {
	s := experiment.Seeds(rows)
	if len(s) < 2 {
		return fmt.Sprintf("%d seed: no interval across replicates, so every verdict is inconclusive (run with --seeds 3 or more)", len(s))
	}
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = fmt.Sprint(x)
	}
	return fmt.Sprintf("%d seeds (%s), each an independent replicate: new patterns, queries and projections", len(s), strings.Join(parts, ", "))
}
