package paper

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/metrics"
	"github.com/drdam/drdam/plots"
)

// Constructed rows for the figure tests: three seeds; at β = 10 every
// series falls as Y^(−½+q) and at β = 50 it is flat, Y^p, with per-seed
// exponents q and p that scatter around 0, so that the seeds' slopes are
// known exactly (the rows are noise-free powers of Y).
var (
	figSeeds    = []uint64{0, 100, 200}
	figSteepDev = []float64{0.01, -0.02, 0.01} // mean 0: slope −½
	figFlatDev  = []float64{0.03, -0.06, 0.01} // mean −0.0067: falls, but not significantly
	figYs       = []int{1000, 4000, 16000, 64000}
)

// figValue is the mean error of seed i at (β, Y): the steep series at
// β = 10, the flat one otherwise, scaled by c.
func figValue(i int, beta float64, y int, c float64) float64 {
	if beta == 10 {
		return c * math.Pow(float64(y), -0.5+figSteepDev[i])
	}
	return c * math.Pow(float64(y), figFlatDev[i])
}

// figGridRows returns binary-grid rows (D ∈ {30, 100}, β ∈ {10, 50}, the
// query sets at, near, far and guess) of the given metrics over x, one
// row per seed. Guess rows are 10× the others, bound rows 10⁻⁶×.
func figGridRows(ms []string, ys, ks []int) []experiment.Row {
	var rows []experiment.Row
	for i, seed := range figSeeds {
		for _, d := range []int{30, 100} {
			for _, b := range []float64{10, 50} {
				for _, k := range ks {
					for _, y := range ys {
						for _, q := range append(slices.Clone(experiment.QuerySets()), experiment.Guess) {
							for _, m := range ms {
								c := 1.0
								switch {
								case q == experiment.Guess:
									c = 10
								case m == experiment.MetricBound:
									c = 1e-6
								}
								if m == experiment.MetricBound && q == experiment.Guess {
									continue
								}
								rows = append(rows, experiment.Row{Seed: seed, D: d, K: k, Y: y, Beta: b, Basis: "sincos", Projection: "gaussian",
									Queries: q, Metric: m, Mean: figValue(i, b, y, c), SE: 0.01, Count: 50})
							}
						}
					}
				}
			}
		}
	}
	return rows
}

// wantInterval returns the mean over the seeds at (β, Y) and the
// half-width of its 95% interval.
func wantInterval(beta float64, y int, c float64) (mean, half float64) {
	var vs []float64
	for i := range figSeeds {
		vs = append(vs, figValue(i, beta, y, c))
	}
	iv := metrics.MeanInterval(vs, experiment.Level)
	return iv.Mean, (iv.Hi - iv.Lo) / 2
}

// seriesOf returns the series of p with the given style and kind.
func seriesOf(p plots.Panel, style int, keep func(plots.Series) bool) []plots.Series {
	var out []plots.Series
	for _, s := range p.Series {
		if s.Style == style && keep(s) {
			out = append(out, s)
		}
	}
	return out
}

func plain(s plots.Series) bool  { return !s.Dashed && !s.Dark }
func fitted(s plots.Series) bool { return s.Dashed && !s.Dark }

func TestFigureLayout(t *testing.T) {
	t.Parallel()
	byY := figGridRows([]string{experiment.MetricEnergy, experiment.MetricGradient, experiment.MetricHamming, experiment.MetricBound}, figYs, []int{500})
	byK := figGridRows([]string{experiment.MetricEnergy, experiment.MetricGradient}, []int{200000}, []int{50, 100, 200, 400})
	energy := energyFigures(byY)
	errK := errorVsKFigures(byK)
	// Titles of a row per D and the columns at, near, far.
	dTitles := []string{"at, D = 30", "near, D = 30", "far, D = 30", "at, D = 100", "near, D = 100", "far, D = 100"}
	for _, tc := range []struct {
		name       string
		f          *plots.Figure
		rows, cols int
		titles     []string
		logY       bool
		xLabel     string
		yGroups    []int // of the panels, with ShareY
	}{
		{"fig3-energy", energy["energy"], 2, 3, dTitles, true, "Y", []int{0, 0, 0, 1, 1, 1}},
		{"fig3-gradient", energy["gradient"], 2, 3, dTitles, true, "Y", []int{0, 0, 0, 1, 1, 1}},
		{"fig3-bound", energy["bound"], 2, 3, dTitles, true, "Y", []int{0, 0, 0, 1, 1, 1}},
		{"fig4a", retrievalFigure(byY), 2, 3, dTitles, false, "Y", []int{0, 0, 0, 0, 0, 0}},
		{"fig5-energy", errK["energy"], 2, 3, dTitles, true, "K (stored patterns)", []int{0, 0, 0, 1, 1, 1}},
		{"fig5-gradient", errK["gradient"], 2, 3, dTitles, true, "K (stored patterns)", []int{0, 0, 0, 1, 1, 1}},
	} {
		f := tc.f
		if f == nil {
			t.Errorf("%s: no figure", tc.name)
			continue
		}
		if f.Rows != tc.rows || f.Cols != tc.cols || len(f.Panels) != tc.rows*tc.cols || !f.ShareX || !f.ShareY {
			t.Errorf("%s: %d×%d grid of %d panels (share %v, %v), want %d×%d shared", tc.name, f.Rows, f.Cols, len(f.Panels), f.ShareX, f.ShareY, tc.rows, tc.cols)
			continue
		}
		if !strings.Contains(f.Caption, "95% interval") {
			t.Errorf("%s: caption %q does not say what the bars are", tc.name, f.Caption)
		}
		for i, p := range f.Panels {
			if p.Title != tc.titles[i] || p.LogX || p.LogY != tc.logY || p.XLabel != tc.xLabel || p.YGroup != tc.yGroups[i] {
				t.Errorf("%s: panel %d %q (log %v, %v; x %q; group %d), want %q (log false, %v; x %q; group %d)",
					tc.name, i, p.Title, p.LogX, p.LogY, p.XLabel, p.YGroup, tc.titles[i], tc.logY, tc.xLabel, tc.yGroups[i])
			}
			if want := seriesOf(p, 0, plain); len(want) == 1 && !slices.Equal(p.XTicks, want[0].X) {
				t.Errorf("%s: panel %d ticks %v, want the measured %v", tc.name, i, p.XTicks, want[0].X)
			}
			if len(seriesOf(p, 0, plain)) != 1 || len(seriesOf(p, 1, plain)) != 1 {
				t.Errorf("%s: panel %d has not one line for each β", tc.name, i)
			}
		}
	}

	// Fig. 4A: a linear axis from 0 to ½ at least.
	for i, p := range retrievalFigure(byY).Panels {
		if !slices.Contains(p.YInclude, 0) || !slices.Contains(p.YInclude, 0.5) || len(p.HLines) != 1 || p.HLines[0].Y != 0.5 {
			t.Errorf("fig4a panel %d: YInclude %v, baselines %v; want 0 and ½ and a baseline at ½", i, p.YInclude, p.HLines)
		}
	}

	// Fig. 6: a row per β, the columns (energy, gradient) × (stored, new),
	// against Y; energies and gradients share their Y ranges apart.
	var basis []experiment.Row
	for i, seed := range figSeeds {
		for _, b := range []float64{1, 10} {
			for _, y := range figYs {
				for _, name := range []string{"cos", "sincos"} {
					for _, q := range []experiment.QuerySet{experiment.Stored, experiment.New} {
						for _, m := range []string{experiment.MetricEnergy, experiment.MetricGradient} {
							basis = append(basis, experiment.Row{Seed: seed, D: 16, K: 500, Y: y, Beta: b, Basis: name, Projection: "gaussian",
								Queries: q, Metric: m, Mean: figValue(i, b, y, 1), Count: 500})
						}
					}
				}
			}
		}
	}
	f := basisFigures(basis)["gaussian"]
	if f == nil || f.Rows != 2 || f.Cols != 4 || len(f.Panels) != 8 {
		t.Fatalf("fig6: %+v, want a 2×4 grid", f)
	}
	for i, p := range f.Panels {
		b := []float64{1, 10}[i/4]
		m := []string{"energy", "energy", "gradient", "gradient"}[i%4]
		set := []string{"stored", "new", "stored", "new"}[i%4]
		want := fmt.Sprintf("%s, %s patterns, β = %g", m, set, b)
		if p.Title != want || p.XLabel != "Y" || p.LogX || !p.LogY || p.YGroup != i%4/2 || len(p.Series) != 2 {
			t.Errorf("fig6 panel %d: %q, x %q, log %v %v, group %d, %d series; want %q against Y, group %d, 2 series",
				i, p.Title, p.XLabel, p.LogX, p.LogY, p.YGroup, len(p.Series), want, i%4/2)
		}
	}

	// A figure renders.
	if err := energy["bound"].Save(filepath.Join(t.TempDir(), "bound.png")); err != nil {
		t.Error(err)
	}
}

// TestFigureBarsAndFits checks that the points are the means over the
// seeds with their 95% intervals as error bars, and that a fitted b/√Y is
// drawn on the falling series only, not on the flat one.
func TestFigureBarsAndFits(t *testing.T) {
	t.Parallel()
	rows := figGridRows([]string{experiment.MetricEnergy, experiment.MetricGradient, experiment.MetricBound}, figYs, []int{500})
	figs := energyFigures(rows)
	for _, tc := range []struct {
		fig   string
		beta  float64
		style int
		fit   bool
	}{
		{"energy", 10, 0, true},
		{"energy", 50, 1, false},
		{"gradient", 10, 0, true},
		{"gradient", 50, 1, false},
	} {
		f := figs[tc.fig]
		if !strings.Contains(f.Caption, "log–log slope") {
			t.Errorf("%s: caption %q does not state the rule for fits", tc.fig, f.Caption)
		}
		for pi, p := range f.Panels {
			s := seriesOf(p, tc.style, plain)
			if len(s) != 1 || len(s[0].X) != len(figYs) || !s[0].Points {
				t.Fatalf("%s panel %d β = %g: %d series, want one of %d points without lines", tc.fig, pi, tc.beta, len(s), len(figYs))
			}
			for i, y := range figYs {
				mean, half := wantInterval(tc.beta, y, 1)
				// 1e-12: the same sums in another order.
				if s[0].X[i] != float64(y) || !scalar.EqualWithinAbsOrRel(s[0].Y[i], mean, 1e-12, 1e-12) || !scalar.EqualWithinAbsOrRel(s[0].Err[i], half, 1e-12, 1e-12) {
					t.Errorf("%s panel %d β = %g, Y = %d: point %g ± %g, want %g ± %g", tc.fig, pi, tc.beta, y, s[0].Y[i], s[0].Err[i], mean, half)
				}
			}
			fits := seriesOf(p, tc.style, fitted)
			if got := len(fits) == 1; got != tc.fit {
				t.Errorf("%s panel %d β = %g: %d fits, want fit %v", tc.fig, pi, tc.beta, len(fits), tc.fit)
			}
			if len(fits) == 1 {
				// The fit is b/√Y: √Y·fit is constant.
				b := fits[0].Y[0] * math.Sqrt(fits[0].X[0])
				for j, x := range fits[0].X {
					if !scalar.EqualWithinAbsOrRel(fits[0].Y[j]*math.Sqrt(x), b, 1e-12, 1e-12) {
						t.Errorf("%s panel %d: fit not b/√Y at Y = %g", tc.fig, pi, x)
					}
				}
			}
		}
	}

	// fig3-bound: Corollary 1 as written on every series, and the
	// paper's envelope b = max √Y·err wherever every point is below the
	// random guess (10× the errors here).
	for pi, p := range figs["bound"].Panels {
		for style, beta := range []float64{10, 50} {
			cor := seriesOf(p, style, func(s plots.Series) bool { return s.Dark && s.Dashed })
			env := seriesOf(p, style, func(s plots.Series) bool { return s.Dark && !s.Dashed })
			if len(cor) != 1 || len(env) != 1 {
				t.Errorf("bound panel %d β = %g: %d Corollary 1 and %d envelope curves, want 1 and 1", pi, beta, len(cor), len(env))
				continue
			}
			if m, _ := wantInterval(beta, figYs[0], 1e-6); !scalar.EqualWithinAbsOrRel(cor[0].Y[0], m, 1e-12, 1e-12) {
				t.Errorf("bound panel %d β = %g: Corollary 1 at Y = %d is %g, want the mean over seeds %g", pi, beta, figYs[0], cor[0].Y[0], m)
			}
			var b float64
			for _, y := range figYs {
				m, _ := wantInterval(beta, y, 1)
				b = max(b, math.Sqrt(float64(y))*m)
			}
			if got := env[0].Y[0] * math.Sqrt(env[0].X[0]); !scalar.EqualWithinAbsOrRel(got, b, 1e-12, 1e-12) {
				t.Errorf("bound panel %d β = %g: envelope b = %g, want max √Y·err = %g", pi, beta, got, b)
			}
		}
	}
	var labels []string
	for _, p := range figs["bound"].Panels {
		for _, s := range p.Series {
			if s.Label != "" {
				labels = append(labels, s.Label)
			}
		}
	}
	for _, want := range []string{"Corollary 1 as written", "fitted envelope", "(the paper's code)"} {
		if !slices.ContainsFunc(labels, func(l string) bool { return strings.Contains(l, want) }) {
			t.Errorf("bound figure: no label says %q (labels %q)", want, labels)
		}
	}
}

func TestSeriesSlope(t *testing.T) {
	t.Parallel()
	rows := figGridRows([]string{experiment.MetricEnergy}, figYs, []int{500})
	y := func(r experiment.Row) float64 { return float64(r.Y) }
	keep := func(beta float64, seeds ...uint64) func(experiment.Row) bool {
		return func(r experiment.Row) bool {
			return r.D == 30 && r.Beta == beta && r.Queries == experiment.At && r.Metric == experiment.MetricEnergy && slices.Contains(seeds, r.Seed)
		}
	}
	slopes := func(dev []float64, p float64) metrics.Interval {
		var s []float64
		for _, d := range dev {
			s = append(s, p+d)
		}
		return metrics.MeanInterval(s, experiment.Level)
	}
	inf := math.Inf(1)
	for _, tc := range []struct {
		name string
		keep func(experiment.Row) bool
		want metrics.Interval
		fit  bool
	}{
		{"steep, 3 seeds", keep(10, figSeeds...), slopes(figSteepDev, -0.5), true},
		{"flat, 3 seeds", keep(50, figSeeds...), slopes(figFlatDev, 0), false},
		// One seed, noise-free Y^−0.49: the regression's interval has no
		// width.
		{"steep, 1 seed", keep(10, 0), metrics.Interval{Mean: -0.49, Lo: -0.49, Hi: -0.49, N: 4}, true},
		{"flat, 1 seed", keep(50, 0), metrics.Interval{Mean: 0.03, Lo: 0.03, Hi: 0.03, N: 4}, false},
		{"none", keep(10), metrics.Interval{Mean: math.NaN(), Lo: -inf, Hi: inf}, false},
	} {
		got := seriesSlope(rows, tc.keep, y)
		// 1e-9: slopes of exact powers, up to rounding in the logs.
		eq := func(a, b float64) bool {
			return a == b || math.IsNaN(a) && math.IsNaN(b) || scalar.EqualWithinAbsOrRel(a, b, 1e-9, 1e-9)
		}
		if !eq(got.Mean, tc.want.Mean) || !eq(got.Lo, tc.want.Lo) || !eq(got.Hi, tc.want.Hi) || got.N != tc.want.N {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
		if fitDrawn(got) != tc.fit {
			t.Errorf("%s: fit drawn %v, want %v", tc.name, fitDrawn(got), tc.fit)
		}
	}
	// Two Y and one seed: no interval, so no fit.
	two := experiment.Select(rows, func(r experiment.Row) bool { return r.Y <= 4000 })
	if got := seriesSlope(two, keep(10, 0), y); !math.IsInf(got.Lo, -1) || !math.IsInf(got.Hi, 1) || fitDrawn(got) {
		t.Errorf("two points: %+v, want an unbounded interval and no fit", got)
	}
}

// TestGuessBaseline checks that the random guess averages over seeds and
// Y before taking the largest over β.
func TestGuessBaseline(t *testing.T) {
	t.Parallel()
	rows := figGridRows([]string{experiment.MetricEnergy}, figYs, []int{500})
	want := 0.0
	for _, b := range []float64{10, 50} {
		var s float64
		for _, y := range figYs {
			m, _ := wantInterval(b, y, 10)
			s += m
		}
		want = max(want, s/float64(len(figYs)))
	}
	got, ok := guessBaseline(rows, 30, experiment.MetricEnergy)
	if !ok || !scalar.EqualWithinAbsOrRel(got, want, 1e-12, 1e-12) {
		t.Errorf("guessBaseline = %g, %v; want %g", got, ok, want)
	}
	if _, ok := guessBaseline(rows, 31, experiment.MetricEnergy); ok {
		t.Error("guessBaseline found rows at D = 31")
	}
}

func TestBarsNote(t *testing.T) {
	t.Parallel()
	row := func(seed uint64, y int) experiment.Row {
		return experiment.Row{Seed: seed, D: 30, K: 500, Y: y, Beta: 10, Queries: experiment.At, Metric: experiment.MetricEnergy, Mean: 1, SE: 0.1, Count: 50}
	}
	for _, tc := range []struct {
		name string
		rows []experiment.Row
		want string
	}{
		{"one seed", []experiment.Row{row(0, 1000), row(0, 4000)}, "one seed; bars: 95% interval, ±1.96 s.e."},
		{"three seeds", []experiment.Row{row(0, 1000), row(100, 1000), row(200, 1000)}, "mean over 3 seeds; bars: 95% interval of the mean"},
		{"mixed", []experiment.Row{row(0, 1000), row(100, 1000), row(0, 4000)}, "mean over 1 to 2 seeds"},
	} {
		if got := barsNote(experiment.OverSeeds(tc.rows)); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want it to contain %q", tc.name, got, tc.want)
		}
	}
}
