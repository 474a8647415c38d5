package paper

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/metrics"
	"github.com/drdam/drdam/plots"
)

// The grid figures follow the layout of the paper's figures, as its code
// draws them (eval_QUANT1b_*, eval_QUANT1c, eval_QUANT2 in the reference
// repository): Figs. 3, 4A and 5 have a row per D and the columns at, near
// and far; Fig. 6 has a row per β and the columns energy and gradient at
// the stored and the new patterns. The x axes (Y, K) are linear, the error
// axes logarithmic except Fig. 4A's Hamming error, linear from 0 to ½.
// Panels of one row share their error axis in Figs. 3 and 5 (the paper sets
// its limits per D), all panels in Fig. 4A, and the energy panels and the
// gradient panels of Fig. 6 each.
//
// Every figure takes the raw rows, one per seed, and draws the mean over
// seeds (experiment.OverSeeds) with its 95% interval as error bars.

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

// meanCurve returns, ordered by x, the points of the summaries selected by
// keep: x, the mean over seeds and the half-width of its 95% interval (NaN,
// no bar, where the interval is unbounded or unknown).
func meanCurve(sums []experiment.Summary, keep func(experiment.Row) bool, x func(experiment.Row) float64) (xs, ys, hs []float64) {
	var sel []experiment.Summary
	for _, s := range sums {
		if keep(s.Row) {
			sel = append(sel, s)
		}
	}
	slices.SortStableFunc(sel, func(a, b experiment.Summary) int {
		switch xa, xb := x(a.Row), x(b.Row); {
		case xa < xb:
			return -1
		case xa > xb:
			return 1
		}
		return 0
	})
	for _, s := range sel {
		h := (s.Hi - s.Lo) / 2
		if math.IsInf(h, 0) {
			h = math.NaN()
		}
		xs, ys, hs = append(xs, x(s.Row)), append(ys, s.Mean), append(hs, h)
	}
	return xs, ys, hs
}

// seriesSlope returns the log–log slope p (err ∝ x^p) of the series of
// rows selected by keep, the rows' Mean against x(row), with its 95%
// (experiment.Level) confidence interval. The rows may hold several seeds
// (replicates): then the slope is fitted to each seed's series
// (metrics.LogSlope) and the interval is Student's t interval of those
// slopes (metrics.MeanInterval), so that it shows how much the slope
// varies between replicates; N is the number of seeds with a slope. With
// one seed it is the regression's own interval (metrics.LogSlopeInterval:
// t at n − 2 degrees of freedom over its n points, unbounded with two
// points); N is then n. Without rows, or with fewer than two slopes from
// several seeds, the interval is unbounded.
//
// keep must select one series: one row per seed and x.
func seriesSlope(rows []experiment.Row, keep func(experiment.Row) bool, x func(experiment.Row) float64) metrics.Interval {
	sel := experiment.Select(rows, keep)
	points := func(rs []experiment.Row) (xs, ys []float64) {
		for _, r := range rs {
			xs, ys = append(xs, x(r)), append(ys, r.Mean)
		}
		return xs, ys
	}
	seeds := experiment.Seeds(sel)
	if len(seeds) == 1 {
		xs, ys := points(sel)
		return metrics.LogSlopeInterval(xs, ys, experiment.Level)
	}
	var slopes []float64
	for _, seed := range seeds {
		xs, ys := points(experiment.Select(sel, func(r experiment.Row) bool { return r.Seed == seed }))
		if p, ok := metrics.LogSlope(xs, ys); ok {
			slopes = append(slopes, p)
		}
	}
	return metrics.MeanInterval(slopes, experiment.Level)
}

// fitDrawn reports whether a fitted b/√Y curve is drawn on a series with
// the slope interval iv: only where the series falls significantly, that
// is where the whole 95% interval of its log–log slope lies below zero.
// On a flat series, or a rising one, a falling curve would read as a
// bound the data do not follow.
func fitDrawn(iv metrics.Interval) bool { return iv.Below(0) }

// fitRule states the rule of fitDrawn for captions.
const fitRule = "drawn only where the series falls significantly: the 95% interval of its log–log slope against Y lies below 0 " +
	"(Student's t over the seeds' slopes; with one seed, the regression's t interval at n − 2 df, none with two Y)"

// barsNote describes the points and error bars of a figure of the
// summaries sums.
func barsNote(sums []experiment.Summary) string {
	lo, hi := 0, 0
	for i, s := range sums {
		if i == 0 {
			lo, hi = s.Seeds, s.Seeds
		}
		lo, hi = min(lo, s.Seeds), max(hi, s.Seeds)
	}
	switch {
	case hi <= 1:
		return "Points: one seed; bars: 95% interval, ±1.96 s.e. over its queries (leaves out the variation between seeds)."
	case lo == hi:
		return fmt.Sprintf("Points: mean over %d seeds; bars: 95%% interval of the mean (Student's t over the seeds).", hi)
	}
	return fmt.Sprintf("Points: mean over %d to %d seeds; bars: 95%% interval of the mean (Student's t over the seeds; "+
		"with one seed, ±1.96 s.e. over its queries).", lo, hi)
}

// smoothX returns n points evenly spaced from the smallest to the largest
// of xs, for drawing a fitted curve on a linear axis.
func smoothX(xs []float64, n int) []float64 {
	lo, hi := slices.Min(xs), slices.Max(xs)
	out := make([]float64, n)
	for i := range out {
		out[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	return out
}

// invSqrt returns b/√x at each x.
func invSqrt(b float64, xs []float64) []float64 {
	ys := make([]float64, len(xs))
	for i, x := range xs {
		ys[i] = b / math.Sqrt(x)
	}
	return ys
}

// interp returns the piecewise linear interpolation of (xs, ys), xs
// increasing and at least two, at each of at.
func interp(xs, ys, at []float64) []float64 {
	out := make([]float64, len(at))
	for i, a := range at {
		j := slices.IndexFunc(xs, func(x float64) bool { return x > a })
		if j < 0 {
			j = len(xs)
		}
		j = max(1, min(len(xs)-1, j))
		t := (a - xs[j-1]) / (xs[j] - xs[j-1])
		out[i] = ys[j-1] + t*(ys[j]-ys[j-1])
	}
	return out
}

// guessBaseline returns the random-guess error of §4.1 for dimension d and
// a metric: the mean over Y of the guess rows' errors (each the mean over
// its seeds), maximized over β ("the highest average error across all βs
// is plotted"), and false if there are no guess rows.
func guessBaseline(rows []experiment.Row, d int, metric string) (float64, bool) {
	sums := experiment.OverSeeds(experiment.Select(rows, func(r experiment.Row) bool {
		return r.D == d && r.Queries == experiment.Guess && r.Metric == metric
	}))
	best, ok := 0.0, false
	for _, b := range values(experiment.SummaryRows(sums), func(r experiment.Row) float64 { return r.Beta }) {
		var s float64
		n := 0
		for _, x := range sums {
			if x.Beta == b {
				s += x.Mean
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

// guessLine returns the random-guess baseline of a metric at dimension d.
func guessLine(rows []experiment.Row, metric string) func(d int) (plots.HLine, bool) {
	return func(d int) (plots.HLine, bool) {
		v, ok := guessBaseline(rows, d, metric)
		return plots.HLine{Label: "random guess", Y: v}, ok
	}
}

// gridLayout is what a D × query-set figure draws in each panel.
type gridLayout struct {
	title, metric string
	x             func(experiment.Row) float64 // the x axis: Y or K
	xLabel        string
	logY          bool
	points        bool // markers without lines, as the paper's Fig. 3
	fit           bool // fitted b/√Y where fitDrawn
	envelope      bool // Corollary 1 and the paper's fitted envelope
	yInclude      []float64
	shareRows     bool // panels of a row share the Y range; else all do
	baseline      func(d int) (plots.HLine, bool)
}

// dByQueries draws the rows of one metric as a grid with a row per D and a
// column per query set (at, near, far), one line per β.
func dByQueries(rows []experiment.Row, g gridLayout) *plots.Figure {
	sel := experiment.Select(rows, func(r experiment.Row) bool { return r.Metric == g.metric })
	sums := experiment.OverSeeds(sel)
	var bounds []experiment.Summary
	if g.envelope {
		bounds = experiment.OverSeeds(experiment.Select(rows, func(r experiment.Row) bool { return r.Metric == experiment.MetricBound }))
	}
	ds := values(sel, func(r experiment.Row) int { return r.D })
	betas := values(sel, func(r experiment.Row) float64 { return r.Beta })
	sets := experiment.QuerySets()
	f := &plots.Figure{Title: g.title, Rows: len(ds), Cols: len(sets), ShareX: true, ShareY: true}
	caption := []string{barsNote(sums)}
	if g.fit {
		caption = append(caption, "Dashed: b/√Y fitted by least squares on the log scale, "+fitRule+".")
	}
	if g.envelope {
		caption = append(caption, "Dark dashed: Corollary 1 as written (eq. lrate-div-ub, C₂ = ½, C₁ measured on the projection), mean over seeds. "+
			"Dark solid: the curve the paper's code draws as its bound, b/√Y with b = max over Y of √Y·err, fitted to the data, not derived; "+
			"drawn, as there, only for series below the random guess at every Y, and shaded to the data.")
	}
	f.Caption = strings.Join(caption, " ")
	labelled := map[string]bool{}
	label := func(s string) string {
		if labelled[s] {
			return ""
		}
		labelled[s] = true
		return s
	}
	xticks := values(sel, g.x) // as the paper's, at the measured values
	for di, d := range ds {
		h, hok := plots.HLine{}, false
		if g.baseline != nil {
			h, hok = g.baseline(d)
		}
		for _, set := range sets {
			p := plots.Panel{Title: fmt.Sprintf("%s, D = %d", set, d), XLabel: g.xLabel, YLabel: metricTitles[g.metric],
				LogY: g.logY, YInclude: g.yInclude, XTicks: xticks}
			if g.shareRows {
				p.YGroup = di
			}
			if hok {
				p.HLines = append(p.HLines, h)
			}
			for bi, b := range betas {
				keep := func(r experiment.Row) bool { return r.D == d && r.Beta == b && r.Queries == set }
				xs, ys, hs := meanCurve(sums, keep, g.x)
				if len(xs) == 0 {
					continue
				}
				p.Series = append(p.Series, plots.Series{Label: betaLabel(b), X: xs, Y: ys, Err: hs, Style: bi, Points: g.points})
				if g.fit && fitDrawn(seriesSlope(sel, keep, g.x)) {
					if bf, ok := metrics.FitInvSqrt(xs, ys); ok {
						sx := smoothX(xs, 60)
						p.Series = append(p.Series, plots.Series{Label: label("fitted b/√Y"), X: sx, Y: invSqrt(bf, sx), Style: bi, Dashed: true})
					}
				}
				if g.envelope {
					addEnvelope(&p, bounds, keep, g.x, xs, ys, bi, h, hok, label)
				}
			}
			f.Panels = append(f.Panels, p)
		}
	}
	return f
}

// addEnvelope adds to p, for the series (xs, ys) of style bi, the bound of
// Corollary 1 as written (the summaries bounds selected by keep) and the
// envelope the paper's code draws, b/√Y with b = max √Y·err, shaded to the
// data, if every point lies below the random guess h (the paper's code's
// rule).
func addEnvelope(p *plots.Panel, bounds []experiment.Summary, keep func(experiment.Row) bool, x func(experiment.Row) float64,
	xs, ys []float64, bi int, h plots.HLine, hok bool, label func(string) string) {
	if bx, by, _ := meanCurve(bounds, keep, x); len(bx) > 0 {
		p.Series = append(p.Series, plots.Series{Label: label("Corollary 1 as written (C₂ = ½, C₁ measured)"), X: bx, Y: by, Style: bi, Dark: true, Dashed: true})
	}
	for _, y := range ys {
		if hok && !(y < h.Y) {
			return
		}
	}
	b, ok := metrics.EnvelopeInvSqrt(xs, ys)
	if !ok || len(xs) < 2 {
		return
	}
	sx := smoothX(xs, 60)
	env := invSqrt(b, sx)
	p.Series = append(p.Series, plots.Series{Label: label("fitted envelope max(√Y·err)/√Y (the paper's code)"), X: sx, Y: env, Style: bi, Dark: true})
	p.Bands = append(p.Bands, plots.Band{Label: label("envelope to measured"), X: sx, Lo: interp(xs, ys, sx), Hi: env, Style: bi})
}

// energyFigures returns the figures of energy-error (Fig. 3) by file base
// name: "energy" and "gradient", each with a row per D and the columns at,
// near and far, the mean errors over seeds against Y as points with 95%
// intervals, the random guess as a red dashed line, and a fitted b/√Y
// where the series falls significantly (fitDrawn, seriesSlope); and
// "bound", the gradient errors with the bound of Corollary 1 as written
// and the fitted envelope the paper's code draws in its place, apart
// because the bound lies orders of magnitude below the errors and would
// squash them.
func energyFigures(rows []experiment.Row) map[string]*plots.Figure {
	out := map[string]*plots.Figure{}
	y := func(r experiment.Row) float64 { return float64(r.Y) }
	for _, m := range []string{experiment.MetricEnergy, experiment.MetricGradient} {
		out[m] = dByQueries(rows, gridLayout{title: fmt.Sprintf("DrDAM vs MrDAM: %s (Fig. 3)", metricTitles[m]), metric: m,
			x: y, xLabel: "Y", logY: true, points: true, fit: true, shareRows: true, baseline: guessLine(rows, m)})
	}
	if len(experiment.Select(rows, func(r experiment.Row) bool { return r.Metric == experiment.MetricBound })) > 0 {
		out["bound"] = dByQueries(rows, gridLayout{title: "Gradient errors, Corollary 1 as written, and the paper's fitted envelope (Fig. 3)",
			metric: experiment.MetricGradient, x: y, xLabel: "Y", logY: true, points: true, envelope: true, shareRows: true,
			baseline: guessLine(rows, experiment.MetricGradient)})
	}
	return out
}

// retrievalFigure returns the figure of retrieval-error (Fig. 4A): the
// Hamming error between binarized fixed points against Y, mean over seeds
// with 95% intervals, a row per D and the columns at, near and far, on a
// linear axis from 0 to the error of a random guess (½), drawn as the
// baseline.
func retrievalFigure(rows []experiment.Row) *plots.Figure {
	return dByQueries(rows, gridLayout{title: "Retrieval error of DrDAM against MrDAM (Fig. 4A)", metric: experiment.MetricHamming,
		x: func(r experiment.Row) float64 { return float64(r.Y) }, xLabel: "Y", yInclude: []float64{0, 0.5},
		baseline: func(int) (plots.HLine, bool) { return plots.HLine{Label: "random (½)", Y: 0.5}, true }})
}

// errorVsKFigures returns the figures of error-vs-k (Fig. 5) by file base
// name ("energy", "gradient"): error against K at fixed Y, a row per D and
// the columns at, near and far, one line per β, with the random guess.
func errorVsKFigures(rows []experiment.Row) map[string]*plots.Figure {
	out := map[string]*plots.Figure{}
	ys := values(rows, func(r experiment.Row) int { return r.Y })
	yl := make([]string, len(ys))
	for i, y := range ys {
		yl[i] = strconv.Itoa(y)
	}
	for _, m := range []string{experiment.MetricEnergy, experiment.MetricGradient} {
		out[m] = dByQueries(rows, gridLayout{title: fmt.Sprintf("%s against K at Y = %s (Fig. 5)", metricTitles[m], strings.Join(yl, ", ")),
			metric: m, x: func(r experiment.Row) float64 { return float64(r.K) }, xLabel: "K (stored patterns)", logY: true,
			shareRows: true, baseline: guessLine(rows, m)})
	}
	return out
}

// fig6Betas are the β of the rows of the paper's Fig. 6.
var fig6Betas = []float64{1, 10, 30, 60}

// maxFig6Rows is the largest number of β drawn as rows of Fig. 6; with
// more, the figure keeps the paper's (fig6Betas).
const maxFig6Rows = 6

// basisFigures returns the figures of basis-ablation (Fig. 6), one per
// projection, by file base name: error against Y, one line per basis, in
// a grid whose columns are (energy, gradient) × (stored, new) and whose
// rows are the values of β (the paper's four, 1, 10, 30 and 60, where
// there are more than six).
func basisFigures(rows []experiment.Row) map[string]*plots.Figure {
	out := map[string]*plots.Figure{}
	for _, proj := range values(rows, func(r experiment.Row) string { return r.Projection }) {
		sel := experiment.Select(rows, func(r experiment.Row) bool { return r.Projection == proj })
		sums := experiment.OverSeeds(sel)
		betas := values(sel, func(r experiment.Row) float64 { return r.Beta })
		if len(betas) > maxFig6Rows {
			var keep []float64
			for _, b := range fig6Betas {
				if slices.Contains(betas, b) {
					keep = append(keep, b)
				}
			}
			if len(keep) >= 2 {
				betas = keep
			}
		}
		type col struct {
			m   string
			set experiment.QuerySet
		}
		cols := []col{{experiment.MetricEnergy, experiment.Stored}, {experiment.MetricEnergy, experiment.New}, {experiment.MetricGradient, experiment.Stored}, {experiment.MetricGradient, experiment.New}}
		f := &plots.Figure{Title: fmt.Sprintf("Basis functions on the Letter data, %s projections (Fig. 6)", proj),
			Rows: len(betas), Cols: len(cols), ShareX: true, ShareY: true, Caption: barsNote(sums)}
		bases := values(sel, func(r experiment.Row) string { return r.Basis })
		for _, b := range betas {
			for _, c := range cols {
				p := plots.Panel{Title: fmt.Sprintf("%s, %s patterns, β = %g", c.m, c.set, b), XLabel: "Y",
					YLabel: metricTitles[c.m], LogY: true, XTicks: values(sel, func(r experiment.Row) float64 { return float64(r.Y) })}
				if c.m == experiment.MetricGradient {
					p.YGroup = 1
				}
				for bi, name := range basisNames(0) {
					if !slices.Contains(bases, name) {
						continue
					}
					xs, vs, hs := meanCurve(sums, func(r experiment.Row) bool {
						return r.Beta == b && r.Basis == name && r.Queries == c.set && r.Metric == c.m
					}, func(r experiment.Row) float64 { return float64(r.Y) })
					if len(xs) > 0 {
						p.Series = append(p.Series, plots.Series{Label: name, X: xs, Y: vs, Err: hs, Style: bi})
					}
				}
				f.Panels = append(f.Panels, p)
			}
		}
		out[proj] = f
	}
	return out
}
