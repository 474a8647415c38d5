package paper

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/metrics"
	"github.com/drdam/drdam/plots"
)

// breakEven is drdam's own experiment: when DrDAM is faster than MrDAM.
var breakEven = &gridExperiment{
	info: Info{
		Name:    "break-even",
		Figure:  "beyond the paper",
		Summary: "when to choose DrDAM: time per step, memory and retrieval of MrDAM and DrDAM as K grows",
		Help: `
Beyond the paper: MrDAM's step costs O(K·D) and DrDAM's O(Y·D) (iid
Gaussian projection, "gaussian") or O(Y·log D) (structured, SORF)
whatever K, so DrDAM is faster beyond a break-even K. For K random binary
patterns in {0, 1/√D}^D (as §4.1), at each D and its Y (--y pairs with
--d: one Y per D), this measures:

  - seconds_per_step: the wall time of one energy-and-gradient evaluation
    of one query (a descent step; batch of 1), the fastest of at least 5
    timings repeated for 0.2 s (the least disturbed by other processes, as
    in BENCHMARKS.md). DrDAM's does not depend on K (T has a fixed size):
    it is timed once per (D, Y, kind), storing one pattern, and written at
    K = 0. MrDAM is timed at every K up to the scale's limit (quick: 10⁵)
    where it and its patterns fit the memory budget; beyond, its time is
    extrapolated linearly in K from the largest K timed, and those rows
    are marked "extrapolated" (dashed in the figure).
  - bytes: the models' memory by dam.EstimateFootprint (MrDAM: the K×D
    patterns in float64 and their copy in the compute precision; DrDAM: T
    and the projection's stored state).
  - recall: from --queries near queries (the first patterns with --flip
    of their bits flipped; 0 measures no retrieval), each model descends
    (--step 0.05, at most --steps 50: an exact descent has then closed
    1 − 0.95⁵⁰ ≈ 92% of its distance to the attractor, enough for the
    binarized point; --tol) and the normalized Hamming distance Δ_H
    between its binarized fixed point and the stored pattern is taken (0:
    retrieved; the queries start at 0.1); hamming is Δ_H between DrDAM's
    and MrDAM's (the paper's Fig. 4A metric) and stalled the fraction of
    DrDAM's descents stopped at the clip floor. Storing K patterns in
    DrDAM costs K·Y·D multiply-adds, so retrieval is measured where
    K·Y·D ≤ 1.5·10¹¹ (quick) or 2·10¹² (paper).

The paper grid times MrDAM at K = 10⁶, D = 784 (7.8·10⁸ values: about
16 GB at its peak, the generated patterns and MrDAM's float64 copy); at
D = 3072 it does not fit and is extrapolated from K = 10⁵.

Both models compute in --precision (float32 by default, the fast path);
MrDAM, in that precision, is also the reference of the retrieval. The
break-even K is DrDAM's time divided by c, the slope of MrDAM's time
fitted as c·K (experiment.BreakEvenK) on its timings at K ≥ 10⁴, where
the patterns (≥ 30 MB) no longer fit the caches and a step streams them
from memory as at every larger K. --projection takes a comma-separated
list of DrDAM's kinds here.`,
		Context: "drdam's own experiment (issue 13): at D = 784 (28×28, MNIST) and D = 3072 (32×32×3, CIFAR-10), " +
			"Y = 12000 and 45000, about the paper's ratio Y/D of Fig. 1 (1.8·10⁵/12288 ≈ 15), and β = 40, the retrieval-error β " +
			"at which MrDAM keeps 500 stored patterns. The quick grid times MrDAM up to K = 10⁵ and extrapolates beyond; " +
			"the paper grid times it wherever it fits the memory budget. At these Y, DrDAM does not retrieve random binary patterns " +
			"at β = 40 even at K = 10² (a pilot with structured features and 1 seed: Δ_H to the stored pattern 0.15 at D = 784, " +
			"against 0.0014 at Y = 2·10⁵; at D = 3072 still 0.054 at Y = 4·10⁵), and a smaller β merges MrDAM's memories " +
			"(Δ_H 0.16 at β = 20, K = 10²): the break-even K grows in proportion to Y, so the table scales to another Y.",
		Deviations: []string{
			"Not in the paper, which reports no timings of MrDAM against DrDAM: the set-up (random binary patterns as §4.1, β = 40, Y ≈ 15·D as Fig. 1) is drdam's choice, stated in the help.",
			"Descents take at most 50 steps of η = 0.05 (the paper's code: up to 1000 of 0.03) from 8 near queries per K, and MrDAM computes in the same precision as DrDAM (float32) as the reference of the retrieval; retrieval is measured only where storing the K patterns in a dense DrDAM costs at most 1.5·10¹¹ multiply-adds (quick) or 2·10¹² (paper).",
			"The quick grid times MrDAM up to K = 10⁵ and extrapolates linearly in K beyond (marked `extrapolated` in points.csv, dashed in the figure); the paper grid times it wherever MrDAM and its patterns fit the memory budget (K = 10⁶ at D = 784, not at D = 3072).",
			"Timings are wall-clock minima of repeated steps on a machine shared with other processes: the minimum is the least disturbed, and the seeds' spread is in the intervals.",
		},
		Reproduce: true,
	},
	spec: func(scale string) Spec {
		s := Spec{Experiment: "break-even", Scale: scale, Precision: dam.Float32, Basis: features.SinCos, Projection: KindList{features.Gaussian, features.Structured},
			Flip: 0.1, Seeds: 3, D: []int{784, 3072}, K: []int{100, 1000, 10000, 100000, 1000000}, Y: []int{12000, 45000},
			Beta: []float64{40}, Queries: 8, Step: 0.05, MaxSteps: 50, Tol: 1e-8}
		if scale == "paper" {
			s.Seeds = 5
		}
		return s
	},
	flagNotes: map[string]string{
		"precision":  "compute precision of both models, MrDAM and DrDAM alike (timed in it)",
		"queries":    "near queries whose descents measure retrieval (0: no retrieval measured)",
		"projection": "comma-separated DrDAM projections timed against MrDAM: gaussian, orthogonal, structured",
	},
	plan: func(s Spec, prec dam.Precision, rates experiment.Rates, done func(experiment.Key) bool) (*experiment.Plan, error) {
		g, err := s.breakEvenGrid(prec)
		if err != nil {
			return nil, err
		}
		return experiment.BreakEvenPlan(g, rates, done)
	},
	figures: func(rows []experiment.Row) map[string]*plots.Figure {
		return map[string]*plots.Figure{"break-even": breakEvenFigure(rows)}
	},
	observe: func(rows []experiment.Row) []Finding {
		return []Finding{observeBreakEven(rows), observeBreakEvenRecall(rows)}
	},
}

// The scale-dependent limits of break-even (see its Help).
const (
	breakEvenQuickMaxK    = 100000
	breakEvenQuickQuality = 1.5e11
	breakEvenPaperQuality = 2e12
	// breakEvenFitK is the smallest K whose MrDAM timing enters the fit
	// of its slope: from there the patterns outgrow the caches.
	breakEvenFitK = 10000
)

// breakEvenGrid returns the grid of s for break-even.
func (s Spec) breakEvenGrid(prec dam.Precision) (experiment.BreakEvenGrid, error) {
	g := experiment.BreakEvenGrid{Ds: s.D, Ks: s.K, Ys: s.Y, Seed: s.Seed, Precision: prec, Flip: s.Flip, Queries: s.Queries,
		MaxMeasuredK: math.MaxInt, QualityWork: breakEvenPaperQuality}
	if s.Scale == "quick" {
		g.MaxMeasuredK, g.QualityWork = breakEvenQuickMaxK, breakEvenQuickQuality
	}
	if len(s.Beta) != 1 {
		return g, paramErrorf("beta", s.Beta, "want one β")
	}
	g.Beta = s.Beta[0]
	if len(s.Y) != len(s.D) {
		return g, paramErrorf("y", s.Y, "want one Y per value of parameter \"d\" (%d)", len(s.D))
	}
	var err error
	if g.Basis, err = s.basis(); err != nil {
		return g, err
	}
	if err := named("projection", s.Projection); err != nil {
		return g, err
	}
	for _, kind := range s.Projection {
		if slices.Contains(g.Projections, kind) {
			return g, paramErrorf("projection", s.Projection, "a kind listed twice")
		}
		g.Projections = append(g.Projections, kind)
	}
	if !(s.Flip >= 0 && s.Flip <= 1) {
		return g, paramErrorf("flip", s.Flip, "want a fraction in [0, 1]")
	}
	if s.Seeds < 1 {
		return g, paramErrorf("seeds", s.Seeds, "want at least 1")
	}
	if g.Retrieval, err = s.retrieval(); err != nil {
		return g, err
	}
	return g, nil
}

// breakEvenSeed is what one seed of break-even measured at one D.
type breakEvenSeed struct {
	mrK, mrSec []float64 // MrDAM's timed K and seconds per step, by K
	maxK       int       // the largest K of the grid (timed or extrapolated)
	mrMax      float64   // MrDAM's seconds per step at maxK
	dr         map[string]float64
}

// breakEvenData gathers the timings of rows of one seed at D = d.
func breakEvenData(rows []experiment.Row, d int) breakEvenSeed {
	s := breakEvenSeed{dr: map[string]float64{}, mrMax: math.NaN()}
	for _, r := range rows {
		if r.D != d || r.Metric != experiment.MetricSeconds {
			continue
		}
		switch {
		case r.Projection != experiment.MrDAMProjection:
			s.dr[r.Projection] = r.Mean
		case r.K > s.maxK:
			s.maxK, s.mrMax = r.K, r.Mean
		}
	}
	type pt struct {
		k   int
		sec float64
	}
	var pts []pt
	for _, r := range rows {
		if r.D == d && r.Metric == experiment.MetricSeconds && r.Projection == experiment.MrDAMProjection && r.Queries == experiment.Measured {
			pts = append(pts, pt{r.K, r.Mean})
		}
	}
	slices.SortFunc(pts, func(a, b pt) int { return a.k - b.k })
	// Fit on K ≥ breakEvenFitK, or on the largest K timed if none is.
	from := slices.IndexFunc(pts, func(p pt) bool { return p.k >= breakEvenFitK })
	if from < 0 {
		from = max(0, len(pts)-1)
	}
	for _, p := range pts[from:] {
		s.mrK, s.mrSec = append(s.mrK, float64(p.k)), append(s.mrSec, p.sec)
	}
	return s
}

// breakEvenKs returns, per seed of rows, the break-even K of DrDAM kind
// proj at D = d (NaN where not measured).
func breakEvenKs(rows []experiment.Row, d int, proj string) []float64 {
	return perSeed(rows, func(rs []experiment.Row) float64 {
		s := breakEvenData(rs, d)
		dr, ok := s.dr[proj]
		if !ok {
			return math.NaN()
		}
		k, _, err := experiment.BreakEvenK(s.mrK, s.mrSec, dr)
		if err != nil {
			return math.NaN()
		}
		return k
	})
}

// breakEvenGroups returns the (D, DrDAM kind) of rows, in order.
func breakEvenGroups(rows []experiment.Row) (ds []int, kinds []string) {
	for _, r := range rows {
		if r.Metric != experiment.MetricSeconds {
			continue
		}
		if !slices.Contains(ds, r.D) {
			ds = append(ds, r.D)
		}
		if r.Projection != experiment.MrDAMProjection && !slices.Contains(kinds, r.Projection) {
			kinds = append(kinds, r.Projection)
		}
	}
	slices.Sort(ds)
	return ds, kinds
}

// log10Interval gives the geometric mean of positive xs and its 95%
// interval (that of the mean of log10 x), e.g. "1.2e+04 [9e+03,
// 1.6e+04]".
func log10Interval(xs []float64) string {
	var ls []float64
	for _, x := range xs {
		if x > 0 && !math.IsInf(x, 0) {
			ls = append(ls, math.Log10(x))
		}
	}
	if len(ls) == 0 {
		return "not measured"
	}
	iv := metrics.MeanInterval(ls, experiment.Level)
	if iv.N < 2 {
		return fmt.Sprintf("%.3g (1 seed)", math.Pow(10, iv.Mean))
	}
	return fmt.Sprintf("%.3g [%.3g, %.3g]", math.Pow(10, iv.Mean), math.Pow(10, iv.Lo), math.Pow(10, iv.Hi))
}

// observeBreakEven checks that a break-even K exists within the grid: at
// each D and for each DrDAM kind, MrDAM's time per step at the largest K
// (timed or extrapolated) exceeds DrDAM's. Its details hold the table of
// break-even K.
func observeBreakEven(rows []experiment.Row) Finding {
	f := Finding{Ours: true, Name: "Break-even", Claim: "DrDAM is faster per step than MrDAM below the largest K of the grid, at every D and for each projection kind",
		Rule: "per (D, DrDAM kind), one statistic per seed: log(t_MrDAM(K_max)/t_DrDAM), MrDAM's time per step at the largest K of the grid " +
			"(timed, or extrapolated linearly in K where marked) over DrDAM's; the claim is that its mean is above 0 (DrDAM faster), " +
			"judged by the stated rule, the groups being the (D, kind)"}
	ds, kinds := breakEvenGroups(rows)
	m := len(ds) * len(kinds)
	var vs []string
	table := []string{"| D | DrDAM | Y | DrDAM s/step [95%] | DrDAM memory | MrDAM s/step at K_max [95%] | break-even K [95%] | MrDAM memory at the break-even K |",
		"|---|---|---|---|---|---|---|---|"}
	for _, d := range ds {
		for _, kind := range kinds {
			xs := perSeed(rows, func(rs []experiment.Row) float64 {
				s := breakEvenData(rs, d)
				dr, ok := s.dr[kind]
				if !ok || !(s.mrMax > 0) || !(dr > 0) {
					return math.NaN()
				}
				return math.Log(s.mrMax / dr)
			})
			t := decide(xs, above, 0, 0, m)
			vs = append(vs, t.verdict)
			maxK, how := 0, ""
			for _, r := range rows {
				if r.D == d && r.Projection == experiment.MrDAMProjection && r.Metric == experiment.MetricSeconds && r.K > maxK {
					maxK, how = r.K, string(r.Queries)
				}
			}
			f.Details = append(f.Details, fmt.Sprintf("D = %d, %s: log(t_MrDAM/t_DrDAM) at K = %d (%s) %s", d, kind, maxK, how, t))
			ks := breakEvenKs(rows, d, kind)
			row := breakEvenTableRow(rows, d, kind, ks)
			table = append(table, row)
		}
	}
	f.Verdict = combine(vs...)
	f.Details = append(f.Details, seedNote(rows),
		fmt.Sprintf("the break-even K per D and DrDAM kind (MrDAM's time fitted as c·K on its timings at K ≥ %d; geometric mean over seeds, "+
			"95%% interval; a K beyond the largest timed is an extrapolation; one query per step, each timing the fastest of at least 5 "+
			"repetitions; memory by dam.EstimateFootprint):\n\n%s",
			breakEvenFitK, strings.Join(table, "\n")))
	return f
}

// breakEvenTableRow is the row of the break-even table at (d, kind).
func breakEvenTableRow(rows []experiment.Row, d int, kind string, ks []float64) string {
	sum := func(proj, metric string, k int) (experiment.Summary, bool) {
		for _, s := range experiment.OverSeeds(experiment.Select(rows, func(r experiment.Row) bool {
			return r.D == d && r.Projection == proj && r.Metric == metric && r.K == k
		})) {
			return s, true
		}
		return experiment.Summary{}, false
	}
	y := 0
	for _, r := range rows {
		if r.D == d && r.Projection == kind {
			y = r.Y
		}
	}
	// Times are positive and spread by factors: their geometric means
	// over seeds, with intervals on the log scale.
	times := func(proj string, k int) string {
		return log10Interval(perSeed(rows, func(rs []experiment.Row) float64 {
			for _, r := range rs {
				if r.D == d && r.Projection == proj && r.Metric == experiment.MetricSeconds && r.K == k {
					return r.Mean
				}
			}
			return math.NaN()
		}))
	}
	drB, okB := sum(kind, experiment.MetricBytes, 0)
	maxK := 0
	for _, r := range rows {
		if r.D == d && r.Projection == experiment.MrDAMProjection && r.Metric == experiment.MetricSeconds {
			maxK = max(maxK, r.K)
		}
	}
	mem := "—"
	if k := geoMean(ks); !math.IsNaN(k) {
		// MrDAM's footprint is linear in K: scale the one at maxK.
		if b, ok := sum(experiment.MrDAMProjection, experiment.MetricBytes, maxK); ok {
			mem = dam.Bytes(b.Mean * k / float64(maxK))
		}
	}
	bytes := "—"
	if okB {
		bytes = dam.Bytes(drB.Mean)
	}
	return fmt.Sprintf("| %d | %s | %d | %s | %s | %s (K = %d) | %s | %s |", d, kind, y, times(kind, 0), bytes,
		times(experiment.MrDAMProjection, maxK), maxK, log10Interval(ks), mem)
}

// breakEvenRecallMax is the largest excess of DrDAM's recall error over
// MrDAM's that counts as retrieving as well: 1% of the bits, a tenth of
// the 10% flipped in the near queries.
const breakEvenRecallMax = 0.01

// observeBreakEvenRecall checks that DrDAM retrieves as well as MrDAM at
// its break-even K: at the smallest K of the grid at or above it where
// retrieval was measured, DrDAM's Δ_H to the stored patterns exceeds
// MrDAM's by less than breakEvenRecallMax.
func observeBreakEvenRecall(rows []experiment.Row) Finding {
	f := Finding{Ours: true, Name: "Retrieval at break-even", Claim: "where DrDAM becomes faster than MrDAM, it retrieves the stored patterns as well as MrDAM",
		Rule: fmt.Sprintf("per (D, DrDAM kind), at the smallest K of the grid at or above the break-even K (geometric mean over seeds) where retrieval "+
			"was measured, one statistic per seed: DrDAM's Δ_H between its fixed points from the near queries and the stored patterns, "+
			"minus MrDAM's; the claim is that its mean is below %g (1%% of the bits, a tenth of the 10%% flipped: set a priori), "+
			"judged by the stated rule; a group whose break-even K is beyond the K where retrieval was measured is not measured", breakEvenRecallMax)}
	ds, kinds := breakEvenGroups(rows)
	m := len(ds) * len(kinds)
	var vs []string
	for _, d := range ds {
		for _, kind := range kinds {
			kq := -1
			if kstar := geoMean(breakEvenKs(rows, d, kind)); !math.IsNaN(kstar) {
				for _, r := range rows {
					if r.D == d && r.Projection == kind && r.Metric == experiment.MetricRecall && float64(r.K) >= kstar && (kq < 0 || r.K < kq) {
						kq = r.K
					}
				}
			}
			if kq < 0 {
				vs = append(vs, NotMeasured)
				f.Details = append(f.Details, fmt.Sprintf("D = %d, %s: retrieval not measured at or above the break-even K", d, kind))
				continue
			}
			xs := perSeed(rows, func(rs []experiment.Row) float64 {
				var dr, mr = math.NaN(), math.NaN()
				for _, r := range rs {
					if r.D == d && r.K == kq && r.Metric == experiment.MetricRecall {
						switch r.Projection {
						case kind:
							dr = r.Mean
						case experiment.MrDAMProjection:
							mr = r.Mean
						}
					}
				}
				return dr - mr
			})
			t := decide(xs, below, breakEvenRecallMax, 0, m)
			vs = append(vs, t.verdict)
			f.Details = append(f.Details, fmt.Sprintf("D = %d, %s, K = %d: Δ_H(DrDAM) − Δ_H(MrDAM) %s; %s", d, kind, kq, t, recallNote(rows, d, kq, kind)))
		}
	}
	f.Verdict = combine(vs...)
	f.Details = append(f.Details, seedNote(rows))
	return f
}

// recallNote gives both models' mean recall errors and DrDAM's stalled
// fraction at (d, k).
func recallNote(rows []experiment.Row, d, k int, kind string) string {
	get := func(proj, metric string) float64 {
		for _, s := range experiment.OverSeeds(experiment.Select(rows, func(r experiment.Row) bool {
			return r.D == d && r.K == k && r.Projection == proj && r.Metric == metric
		})) {
			return s.Mean
		}
		return math.NaN()
	}
	return fmt.Sprintf("Δ_H to the stored patterns: MrDAM %.3g, DrDAM %.3g (%.0f%% of DrDAM's descents stalled at the clip floor)",
		get(experiment.MrDAMProjection, experiment.MetricRecall), get(kind, experiment.MetricRecall), 100*get(kind, experiment.MetricStalled))
}

// geoMean returns the geometric mean of the positive, finite values of xs,
// NaN if there is none.
func geoMean(xs []float64) float64 {
	var s float64
	n := 0
	for _, x := range xs {
		if x > 0 && !math.IsInf(x, 0) {
			s += math.Log(x)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return math.Exp(s / float64(n))
}

// breakEvenFigure draws break-even: one column per D; time per step
// against K (log–log: MrDAM's timed line, its extrapolation dashed,
// DrDAM's flat lines and the break-even K marked by vertical dashed
// lines), memory against K (with the memory budget), and the retrieval
// error Δ_H to the stored patterns against K. Points are means over seeds
// with their 95% intervals as bars.
func breakEvenFigure(rows []experiment.Row) *plots.Figure {
	ds, kinds := breakEvenGroups(rows)
	sums := experiment.OverSeeds(rows)
	f := &plots.Figure{Title: "MrDAM against DrDAM as K grows (bars: 95% intervals)",
		Rows: 3, Cols: max(1, len(ds)), Panels: make([]plots.Panel, 3*max(1, len(ds))), ShareX: true}
	style := func(proj string) int {
		if proj == experiment.MrDAMProjection {
			return 0
		}
		return 1 + slices.Index(kinds, proj)
	}
	series := func(d int, proj, metric string, q experiment.QuerySet, label string) plots.Series {
		s := plots.Series{Label: label, Style: style(proj)}
		for _, x := range sums {
			if x.D == d && x.Projection == proj && x.Metric == metric && (q == "" || x.Queries == q) {
				s.X, s.Y, s.Err = append(s.X, float64(x.K)), append(s.Y, x.Mean), append(s.Err, (x.Hi-x.Lo)/2)
			}
		}
		return s
	}
	for j, d := range ds {
		var kmin, kmax float64 = math.Inf(1), 0
		for _, r := range rows {
			if r.D == d && r.K > 0 {
				kmin, kmax = min(kmin, float64(r.K)), max(kmax, float64(r.K))
			}
		}
		flat := func(s plots.Series) plots.Series {
			if len(s.Y) == 1 {
				s.X, s.Y, s.Err = []float64{kmin, kmax}, []float64{s.Y[0], s.Y[0]}, []float64{s.Err[0], s.Err[0]}
			}
			return s
		}
		// Time per step.
		tp := plots.Panel{Title: fmt.Sprintf("time per step, D = %d (DrDAM: timed once)", d), XLabel: "K", YLabel: "seconds per step", LogX: true, LogY: true}
		meas := series(d, experiment.MrDAMProjection, experiment.MetricSeconds, experiment.Measured, "MrDAM")
		tp.Series = append(tp.Series, meas)
		if ext := series(d, experiment.MrDAMProjection, experiment.MetricSeconds, experiment.Extrapolated, "MrDAM extrapolated as c·K (not timed)"); len(ext.X) > 0 {
			if n := len(meas.X); n > 0 {
				ext.X, ext.Y, ext.Err = append([]float64{meas.X[n-1]}, ext.X...), append([]float64{meas.Y[n-1]}, ext.Y...), nil
			}
			ext.Dashed, ext.Err = true, nil
			tp.Series = append(tp.Series, ext)
		}
		lo, hi := math.Inf(1), 0.0
		for _, s := range tp.Series {
			for _, v := range s.Y {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		var notes []string
		for _, kind := range kinds {
			s := flat(series(d, kind, experiment.MetricSeconds, "", "DrDAM "+kind))
			tp.Series = append(tp.Series, s)
			for _, v := range s.Y {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		for _, kind := range kinds {
			k := geoMean(breakEvenKs(rows, d, kind))
			if math.IsNaN(k) {
				continue
			}
			tp.Series = append(tp.Series, plots.Series{Label: "break-even K (" + kind + ")", X: []float64{k, k}, Y: []float64{lo, hi}, Style: style(kind), Dashed: true})
			notes = append(notes, fmt.Sprintf("K* %s %.2g", kind, k))
		}
		tp.Note = strings.Join(notes, "; ")
		// Memory.
		mp := plots.Panel{Title: fmt.Sprintf("memory, D = %d", d), XLabel: "K", YLabel: "bytes", LogX: true, LogY: true,
			HLines: []plots.HLine{{Label: "memory budget (3/4 of this machine's)", Y: float64(dam.DefaultBudget())}}}
		mp.Series = append(mp.Series, series(d, experiment.MrDAMProjection, experiment.MetricBytes, "", "MrDAM"))
		for _, kind := range kinds {
			mp.Series = append(mp.Series, flat(series(d, kind, experiment.MetricBytes, "", "DrDAM "+kind)))
		}
		// Retrieval.
		rp := plots.Panel{Title: fmt.Sprintf("retrieval from near queries, D = %d", d), XLabel: "K", YLabel: "Δ_H to the stored pattern", LogX: true}
		rp.Series = append(rp.Series, series(d, experiment.MrDAMProjection, experiment.MetricRecall, "", "MrDAM"))
		for _, kind := range kinds {
			rp.Series = append(rp.Series, series(d, kind, experiment.MetricRecall, "", "DrDAM "+kind))
		}
		f.Panels[j], f.Panels[f.Cols+j], f.Panels[2*f.Cols+j] = tp, mp, rp
	}
	return f
}
