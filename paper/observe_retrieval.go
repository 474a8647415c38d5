package paper

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/drdam/drdam/experiment"
)

// observeRetrieval checks the first claim of Fig. 4A (§4.2) on
// retrieval-error rows: retrieval errors are lowest at and near the
// stored patterns. At the largest Y of each (D, β), each of the at and
// near sets is a group; per seed, the statistic is Δ_H(far) − Δ_H(set);
// the claim holds for a group when its interval lies above 0.
func observeRetrieval(rows []experiment.Row) Finding {
	f := Finding{Name: "Fig. 4A", Claim: "retrieval errors are lowest at and near the stored patterns",
		Rule: "at the largest Y of each (D, β), for the at and near sets and each seed, Δ_H(far) − Δ_H(set) over all queries; the claim holds for a set when its 95% interval across seeds lies above 0"}
	cells := retrievalCells(rows)
	m := 2 * len(cells)
	var vs []string
	for _, c := range cells {
		var parts []string
		for _, q := range []experiment.QuerySet{experiment.At, experiment.Near} {
			xs := perSeed(c.rows, func(rs []experiment.Row) float64 {
				ix := newIndex(rs)
				k, ok := anyKey(rs)
				far, ok1 := ix.get(k, experiment.Far, experiment.MetricHamming)
				r, ok2 := ix.get(k, q, experiment.MetricHamming)
				if !ok || !ok1 || !ok2 {
					return math.NaN()
				}
				return far.Mean - r.Mean
			})
			t := decide(xs, above, 0, 0, m)
			if t.verdict == NotMeasured {
				continue
			}
			vs = append(vs, t.verdict)
			parts = append(parts, fmt.Sprintf("far − %s %s: %s", q, fmtInterval(t.iv), t.verdict))
		}
		line := fmt.Sprintf("D = %d, β = %g, Y = %d: %s", c.d, c.beta, c.y, strings.Join(parts, "; "))
		line += c.context()
		f.Details = append(f.Details, line)
	}
	f.finish(rows, vs)
	return f
}

// observeRetrievalRandom checks the second claim of Fig. 4A: far from the
// stored patterns at high β and D (β ≥ 40, D ≥ 100), DrDAM's retrievals
// are random (Δ_H ≈ ½). Queries whose descent stalled at the clip floor
// stay where they started and are left out (MetricHammingMoved): they are
// not retrievals. Per (D, β) at the largest Y (a group) and seed, the
// statistic is Δ_H of the far queries that moved; the claim holds when
// its interval lies within [0.4, 0.6].
func observeRetrievalRandom(rows []experiment.Row) Finding {
	f := Finding{Name: "Fig. 4A (far random)", Claim: "far from the stored patterns at high β and D, retrievals are random (Δ_H ≈ ½)",
		Rule: "at the largest Y of each (D, β) with β ≥ 40 and D ≥ 100 and each seed, Δ_H of the far queries whose descent did not stall (stalled ones stay where they started: they are not retrievals); the claim holds when its 95% interval across seeds lies within [0.4, 0.6] (two independent random patterns of D ≥ 100 bits differ in a fraction with s.d. ≤ 0.05, so ½ ± 0.1 holds 95% of random outcomes; stated before measuring)"}
	var cells []retrievalCell
	for _, c := range retrievalCells(rows) {
		if c.beta >= 40 && c.d >= 100 {
			cells = append(cells, c)
		}
	}
	var vs []string
	for _, c := range cells {
		xs := perSeed(c.rows, func(rs []experiment.Row) float64 {
			k, ok := anyKey(rs)
			r, ok1 := newIndex(rs).get(k, experiment.Far, experiment.MetricHammingMoved)
			if !ok || !ok1 {
				return math.NaN()
			}
			return r.Mean
		})
		t := decide(xs, inside, 0.4, 0.6, len(cells))
		line := fmt.Sprintf("D = %d, β = %g, Y = %d: far Δ_H of the moved queries %v", c.d, c.beta, c.y, t)
		if t.verdict == NotMeasured {
			line = fmt.Sprintf("D = %d, β = %g, Y = %d: no far query moved (or no hamming_moved rows: a run older than this rule)", c.d, c.beta, c.y)
		} else {
			vs = append(vs, t.verdict)
		}
		f.Details = append(f.Details, line+c.context())
	}
	if len(cells) == 0 {
		f.Details = append(f.Details, "no (D, β) with β ≥ 40 and D ≥ 100 measured")
	}
	f.finish(rows, vs)
	return f
}

// retrievalCell is the rows of one (D, β) of retrieval-error at its
// largest Y, all seeds.
type retrievalCell struct {
	d    int
	beta float64
	y    int
	rows []experiment.Row
}

func retrievalCells(rows []experiment.Row) []retrievalCell {
	var cells []retrievalCell
	for _, d := range values(rows, func(r experiment.Row) int { return r.D }) {
		for _, b := range betas(rows) {
			sel := experiment.Select(rows, func(r experiment.Row) bool { return r.D == d && r.Beta == b })
			if len(sel) == 0 {
				continue
			}
			y := slices.MaxFunc(sel, func(a, b experiment.Row) int { return a.Y - b.Y }).Y
			cells = append(cells, retrievalCell{d, b, y, experiment.Select(sel, func(r experiment.Row) bool { return r.Y == y })})
		}
	}
	return cells
}

// anyKey returns the key of the first row.
func anyKey(rs []experiment.Row) (experiment.Key, bool) {
	if len(rs) == 0 {
		return experiment.Key{}, false
	}
	return rs[0].Key(), true
}

// context gives the means over seeds of Δ_H per set, of MrDAM's own
// recall and of the stalled fractions of a cell.
func (c retrievalCell) context() string {
	mean := func(q experiment.QuerySet, m string) (float64, bool) {
		var v []float64
		for _, r := range c.rows {
			if r.Queries == q && r.Metric == m && !math.IsNaN(r.Mean) {
				v = append(v, r.Mean)
			}
		}
		if len(v) == 0 {
			return 0, false
		}
		return stat.Mean(v, nil), true
	}
	var parts []string
	for _, q := range experiment.QuerySets() {
		if h, ok := mean(q, experiment.MetricHamming); ok {
			parts = append(parts, fmt.Sprintf("%s %.3f", q, h))
		}
	}
	s := " (mean Δ_H: " + strings.Join(parts, ", ") + ")"
	if mr, ok := mean(experiment.At, experiment.MetricMrRecall); ok && mr > 0.05 {
		s += fmt.Sprintf("; MrDAM itself does not keep the stored patterns here: its fixed points from them differ from them in %.0f%% of the bits", 100*mr)
	}
	var stalled []string
	for _, q := range experiment.QuerySets() {
		if st, ok := mean(q, experiment.MetricStalled); ok && st > 0 {
			stalled = append(stalled, fmt.Sprintf("%.0f%% %s", 100*st, q))
		}
	}
	if len(stalled) > 0 {
		s += "; DrDAM queries stalled at the clip floor (not retrievals: they stay where they started): " + strings.Join(stalled, ", ")
	}
	return s
}
