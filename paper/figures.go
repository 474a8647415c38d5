package paper

import (
	"fmt"
	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/metrics"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/drdam/drdam/plots"
)

// values returns the distinct values of f over rows, sorted.
func values[T int | float64 | string](rows []experiment.Row, f func(experiment.Row) T) []T {
	var v []T
	for _, r := range rows {
		if !slices.Contains(v, f(r)) {
			v = append(v, f(r))
		}
	}
	slices.Sort(v)
	return v
}

// curve returns the points (x(r), mean, se) of the rows selected by keep,
// ordered by x.
func curve(rows []experiment.Row, keep func(experiment.Row) bool, x func(experiment.Row) float64) (xs, ys, es []float64) {
	sel := experiment.Select(rows, keep)
	slices.SortFunc(sel, func(a, b experiment.Row) int {
		if x(a) < x(b) {
			return -1
		}
		if x(a) > x(b) {
			return 1
		}
		return 0
	})
	for _, r := range sel {
		xs, ys, es = append(xs, x(r)), append(ys, r.Mean), append(es, r.SE)
	}
	return xs, ys, es
}

// GuessBaseline returns the random-guess error of §4.1 for dimension d and
// a metric: the mean over Y of the guess rows' errors, maximized over β
// ("the highest average error across all βs is plotted"), and false if
// there are no guess rows.
func GuessBaseline(rows []experiment.Row, d int, metric string) (float64, bool) {
	sel := experiment.Select(rows, func(r experiment.Row) bool { return r.D == d && r.Queries == experiment.Guess && r.Metric == metric })
	best, ok := 0.0, false
	for _, b := range values(sel, func(r experiment.Row) float64 { return r.Beta }) {
		var s float64
		n := 0
		for _, r := range sel {
			if r.Beta == b {
				s += r.Mean
				n++
			}
		}
		if m := s / float64(n); !ok || m > best {
			best, ok = m, true
		}
	}
	return best, ok
}

var metricTitles = map[string]string{
	experiment.MetricEnergy:   "energy MAE |E − Ê|",
	experiment.MetricGradient: "gradient MAE ‖grad E − grad Ê‖",
	experiment.MetricHamming:  "Hamming error Δ_H",
}

func betaLabel(b float64) string { return fmt.Sprintf("β = %g", b) }

// byYFigure draws the rows of one metric as a grid of panels (rows: the
// query sets, columns: D), error against Y on log axes, one line per β
// with standard-error bars and, if fit, its fitted b/√Y, and, if bound,
// the bound of Corollary 1 (experiment.MetricBound rows); baseline returns a panel's
// horizontal reference line, if any.
func byYFigure(rows []experiment.Row, title, metric string, sets []experiment.QuerySet, fit, bound bool, baseline func(d int) (plots.HLine, bool)) *plots.Figure {
	sel := experiment.Select(rows, func(r experiment.Row) bool { return r.Metric == metric })
	ds := values(sel, func(r experiment.Row) int { return r.D })
	betas := values(sel, func(r experiment.Row) float64 { return r.Beta })
	f := &plots.Figure{Title: title, Rows: len(sets), Cols: len(ds), ShareX: true, ShareY: true}
	for _, set := range sets {
		for _, d := range ds {
			p := plots.Panel{Title: fmt.Sprintf("%s, D = %d", set, d), XLabel: "Y", YLabel: metricTitles[metric], LogX: true, LogY: true}
			fitLabelled := false
			for bi, b := range betas {
				xs, ys, es := curve(sel, func(r experiment.Row) bool { return r.D == d && r.Beta == b && r.Queries == set },
					func(r experiment.Row) float64 { return float64(r.Y) })
				if len(xs) == 0 {
					continue
				}
				p.Series = append(p.Series, plots.Series{Label: betaLabel(b), X: xs, Y: ys, Err: es, Style: bi})
				if bf, ok := metrics.FitInvSqrt(xs, ys); ok && fit {
					fy := make([]float64, len(xs))
					for i, x := range xs {
						fy[i] = bf / math.Sqrt(x)
					}
					s := plots.Series{X: xs, Y: fy, Style: bi, Dashed: true}
					if !fitLabelled {
						s.Label, fitLabelled = "fitted b/√Y", true
					}
					p.Series = append(p.Series, s)
				}
			}
			h, hok := plots.HLine{}, false
			if baseline != nil {
				if h, hok = baseline(d); hok {
					p.HLines = append(p.HLines, h)
				}
			}
			if bound {
				boundLabelled := false
				for bi, b := range betas {
					keep := func(r experiment.Row) bool { return r.D == d && r.Beta == b && r.Queries == set }
					bx, by, _ := curve(experiment.Select(rows, func(r experiment.Row) bool { return r.Metric == experiment.MetricBound }), keep, func(r experiment.Row) float64 { return float64(r.Y) })
					mx, my, _ := curve(sel, keep, func(r experiment.Row) float64 { return float64(r.Y) })
					// As in the paper, the bound is drawn only where it is
					// below the random guess, with the gap to the measured
					// errors shaded.
					var sx, sy, lo, hi []float64
					for i := range bx {
						if hok && !(by[i] < h.Y) || i >= len(mx) || mx[i] != bx[i] {
							continue
						}
						sx, sy = append(sx, bx[i]), append(sy, by[i])
						lo, hi = append(lo, math.Min(by[i], my[i])), append(hi, math.Max(by[i], my[i]))
					}
					if len(sx) == 0 {
						continue
					}
					s := plots.Series{X: sx, Y: sy, Style: bi, Dark: true}
					band := plots.Band{X: sx, Lo: lo, Hi: hi, Style: bi}
					if !boundLabelled {
						s.Label, band.Label, boundLabelled = "Corollary 1 bound (C₂ = ½, C₁ measured)", "bound to measured", true
					}
					p.Series = append(p.Series, s)
					p.Bands = append(p.Bands, band)
				}
			}
			f.Panels = append(f.Panels, p)
		}
	}
	return f
}

// EnergyFigures returns the figures of energy-error (Fig. 3) by file base
// name: "energy" and "gradient", each with rows at, near and far and a
// column per D, the random guess as a red dashed line; and "bound", the
// gradient errors with the bound of Corollary 1, apart because the bound
// lies orders of magnitude below the errors and would squash them.
func EnergyFigures(rows []experiment.Row) map[string]*plots.Figure {
	out := map[string]*plots.Figure{}
	for _, m := range []string{experiment.MetricEnergy, experiment.MetricGradient} {
		title := fmt.Sprintf("DrDAM vs MrDAM: %s (Fig. 3)", metricTitles[m])
		out[m] = byYFigure(rows, title, m, experiment.QuerySets, true, false, func(d int) (plots.HLine, bool) {
			v, ok := GuessBaseline(rows, d, m)
			return plots.HLine{Label: "random guess", Y: v}, ok
		})
	}
	if len(experiment.Select(rows, func(r experiment.Row) bool { return r.Metric == experiment.MetricBound })) > 0 {
		out["bound"] = byYFigure(rows, "Gradient errors and the bound of Corollary 1 (eq. lrate-div-ub)", experiment.MetricGradient, experiment.QuerySets, false, true,
			func(d int) (plots.HLine, bool) {
				v, ok := GuessBaseline(rows, d, experiment.MetricGradient)
				return plots.HLine{Label: "random guess", Y: v}, ok
			})
	}
	return out
}

// RetrievalFigure returns the figure of retrieval-error (Fig. 4A): the
// Hamming error between binarized fixed points against Y, with the error
// of a random guess (½) as the baseline. A mean of 0 (every bit of every
// query retrieved alike) cannot be drawn on a log axis; it is drawn at
// half the resolution of the mean, 1/(2·queries·D), and the panel says so.
func RetrievalFigure(rows []experiment.Row) *plots.Figure {
	sel := experiment.Select(rows, func(r experiment.Row) bool { return r.Metric == experiment.MetricHamming })
	ds := values(sel, func(r experiment.Row) int { return r.D })
	var zeros []int // panels with a zero drawn at the floor
	for i, r := range sel {
		if r.Mean == 0 && r.Count > 0 {
			sel[i].Mean = 0.5 / float64(r.Count*r.D)
			zeros = append(zeros, slices.Index(experiment.QuerySets, r.Queries)*len(ds)+slices.Index(ds, r.D))
		}
	}
	f := byYFigure(sel, "Retrieval error of DrDAM against MrDAM (Fig. 4A)", experiment.MetricHamming, experiment.QuerySets, false, false,
		func(int) (plots.HLine, bool) { return plots.HLine{Label: "random (½)", Y: 0.5}, true })
	for _, i := range zeros {
		if i >= 0 && i < len(f.Panels) {
			f.Panels[i].Note = "Δ_H = 0 drawn at 1/(2·queries·D)"
		}
	}
	return f
}

// ErrorVsKFigures returns the figures of error-vs-k (Fig. 5) by file base
// name ("energy", "gradient"): error against K at fixed Y, rows at, near
// and far, a column per D, one line per β.
func ErrorVsKFigures(rows []experiment.Row) map[string]*plots.Figure {
	out := map[string]*plots.Figure{}
	ys := values(rows, func(r experiment.Row) int { return r.Y })
	for _, m := range []string{experiment.MetricEnergy, experiment.MetricGradient} {
		sel := experiment.Select(rows, func(r experiment.Row) bool { return r.Metric == m })
		ds := values(sel, func(r experiment.Row) int { return r.D })
		betas := values(sel, func(r experiment.Row) float64 { return r.Beta })
		yl := make([]string, len(ys))
		for i, y := range ys {
			yl[i] = strconv.Itoa(y)
		}
		f := &plots.Figure{Title: fmt.Sprintf("%s against K at Y = %s (Fig. 5)", metricTitles[m], strings.Join(yl, ", ")), Rows: len(experiment.QuerySets), Cols: len(ds), ShareX: true, ShareY: true}
		for _, set := range experiment.QuerySets {
			for _, d := range ds {
				p := plots.Panel{Title: fmt.Sprintf("%s, D = %d", set, d), XLabel: "K (stored patterns)", YLabel: metricTitles[m], LogX: true, LogY: true}
				for bi, b := range betas {
					xs, ys, es := curve(sel, func(r experiment.Row) bool { return r.D == d && r.Beta == b && r.Queries == set },
						func(r experiment.Row) float64 { return float64(r.K) })
					if len(xs) > 0 {
						p.Series = append(p.Series, plots.Series{Label: betaLabel(b), X: xs, Y: ys, Err: es, Style: bi})
					}
				}
				f.Panels = append(f.Panels, p)
			}
		}
		out[m] = f
	}
	return out
}

// BasisFigures returns the figures of basis-ablation (Fig. 6), one per
// projection, by file base name: error against β, one line per basis, in
// a grid whose columns are (energy, gradient) × (stored, new) and whose
// rows are up to three values of Y (smallest, middle, largest).
func BasisFigures(rows []experiment.Row) map[string]*plots.Figure {
	out := map[string]*plots.Figure{}
	for _, proj := range values(rows, func(r experiment.Row) string { return r.Projection }) {
		sel := experiment.Select(rows, func(r experiment.Row) bool { return r.Projection == proj })
		ys := values(sel, func(r experiment.Row) int { return r.Y })
		if len(ys) > 3 {
			ys = []int{ys[0], ys[len(ys)/2], ys[len(ys)-1]}
		}
		type col struct {
			m   string
			set experiment.QuerySet
		}
		cols := []col{{experiment.MetricEnergy, experiment.Stored}, {experiment.MetricEnergy, experiment.New}, {experiment.MetricGradient, experiment.Stored}, {experiment.MetricGradient, experiment.New}}
		f := &plots.Figure{Title: fmt.Sprintf("Basis functions on the Letter data, %s projections (Fig. 6)", proj),
			Rows: len(ys), Cols: len(cols), ShareX: true}
		bases := values(sel, func(r experiment.Row) string { return r.Basis })
		for _, y := range ys {
			for _, c := range cols {
				p := plots.Panel{Title: fmt.Sprintf("%s, %s patterns, Y = %d", c.m, c.set, y), XLabel: "β",
					YLabel: metricTitles[c.m], LogX: true, LogY: true}
				for bi, name := range basisNames(0) {
					if !slices.Contains(bases, name) {
						continue
					}
					xs, vs, es := curve(sel, func(r experiment.Row) bool {
						return r.Y == y && r.Basis == name && r.Queries == c.set && r.Metric == c.m
					},
						func(r experiment.Row) float64 { return r.Beta })
					if len(xs) > 0 {
						p.Series = append(p.Series, plots.Series{Label: name, X: xs, Y: vs, Err: es, Style: bi})
					}
				}
				f.Panels = append(f.Panels, p)
			}
		}
		out[proj] = f
	}
	return out
}
