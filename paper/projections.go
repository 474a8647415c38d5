package paper

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/atomicfile"
)

// projections compares the projection kinds on the set-up of Fig. 3.
var projections = &comparisonExperiment{
	info: Info{
		Name:    "projections",
		Summary: "energy and gradient errors of SORF and ORF beside iid features (§4.1 setup)",
		Help: `
The setup of the paper's Fig. 3 (§4.1), with the projection as an axis: K
unique random binary patterns in {0, 1/√D}^D are stored in an MrDAM and in
DrDAMs whose random projections are iid Gaussian, orthogonal (ORF) or
structured (SORF); the mean absolute errors of DrDAM's energies and of its
gradients (L2 norm) against MrDAM's are measured at the stored patterns,
near them (--flip of the bits flipped) and far from them (fresh patterns).

Each (D, Y, projection) is drawn --seeds times (seeds --seed, --seed+1, …):
the errors pool the K queries of every draw, and their standard errors are
taken across the draws, so that a ratio between two projections reflects
the projections, not one lucky draw. With --control, a second sample of iid
projections (the next --seeds seeds) is measured too: its ratios to the
first are what chance alone gives, the yardstick for the other ratios.
Where φ(x)·T is of the order of its own noise (far queries at large β, or
small Y), the gradient errors are dominated by rare queries near the clip
floor; the medians, also given, are less sensitive to them.

Writes OUT/points.csv (every point: means, standard errors, medians) and
OUT/table.md (each projection's errors as ratios to the first one's, with
standard errors, and a summary of the rows above --tolerance), and prints
the table.

Example (the issue's grid, about 10 minutes on two cores):
  drdam experiment projections --out docs/projections/sincos`,
	},
	comparison: comparisonSpec{K: 500, Ds: []int{64, 256, 1024}, Betas: []float64{10, 30, 50}, Ys: []int{1000, 10000, 100000},
		Projections: features.ProjectionKinds(), Basis: features.SinCos, Flip: 0.1, Seeds: 5, Control: true, Tolerance: 1.2, Precision: dam.Float64},
}

// comparisonExperiment is an experiment that compares projection kinds on
// the set-up of §4.1 (a comparisonSpec): points.csv, table.md.
type comparisonExperiment struct {
	info       Info
	comparison comparisonSpec // the defaults of the grid
}

// Info returns what x is.
func (x *comparisonExperiment) Info() Info { return x.info }

// Params returns the parameters of the comparison (the same at every
// scale).
func (x *comparisonExperiment) Params(string) *Params {
	c := x.comparison
	c.Ds, c.Betas, c.Ys, c.Projections = slices.Clone(c.Ds), slices.Clone(c.Betas), slices.Clone(c.Ys), slices.Clone(c.Projections)
	ps := &Params{cfg: &c}
	ps.add("k", countValue{&c.K, 1, dam.MaxCount}, "int", "number of stored patterns K")
	ps.add("d", counts(&c.Ds), "string", "comma-separated dimensions D")
	ps.add("beta", positives(&c.Betas), "string", "comma-separated inverse temperatures β")
	ps.add("y", counts(&c.Ys), "string", "comma-separated numbers of random projections Y")
	ps.add("projections", projectionsValue(&c.Projections), "string", "comma-separated projections (the first is the reference of the ratios)")
	ps.add("basis", basisValue(&c.Basis), "string", "feature basis: "+features.BasisNames())
	ps.add("flip", numberValue{&c.Flip, isFraction, "from 0 to 1"}, "float", "fraction of bits flipped for the near queries")
	ps.add("seed", seedValue{&c.Seed}, "uint", "seed of the patterns and of the first projection (0, as encode)")
	ps.add("seeds", countValue{&c.Seeds, 1, dam.MaxCount}, "int", "independent projections drawn per (D, Y, projection)")
	ps.add("control", switchValue{&c.Control}, "", "also draw a second sample of --seeds iid projections (the next seeds), as a control: its ratio to the first shows the spread of chance alone")
	ps.add("tolerance", numberValue{&c.Tolerance, isPositive, "> 0"}, "float", "summary: list the rows whose ratio to the reference exceeds this")
	ps.add("precision", precisionValue(&c.Precision), "string", "compute precision of DrDAM (float64, as the grid experiments: the errors compared are the projections', not rounding)")
	ps.add("estimate", switchValue{&c.Estimate}, "", "print the plan and its estimated run time (on a machine whose cores the run has to itself; the calibration takes about two seconds), and stop")
	return ps
}

// Run runs the comparison into dir: points.csv and table.md, headed by
// p.Command and p.Version. Text is the table and the files written.
func (x *comparisonExperiment) Run(ctx context.Context, p *Params, dir string, obs Observer) (*Result, error) {
	c, ok := p.cfg.(*comparisonSpec)
	if !ok {
		return nil, fmt.Errorf("%s: parameters of another experiment", x.info.Name)
	}
	if c.Estimate {
		if err := c.check(); err != nil {
			return nil, err
		}
		rates, err := experiment.Calibrate(ctx, c.Precision)
		if err != nil {
			return nil, err
		}
		plan, err := experiment.EnergyPlan(c.grid(), rates, nil)
		if err != nil {
			return nil, err
		}
		return &Result{Info: x.Info(), Dir: dir, Text: fmt.Sprintf("%s\t-\t%d tasks\t%s\n", x.info.Name, len(plan.Tasks), FormatDuration(plan.Cost()))}, nil
	}
	start := time.Now()
	table, err := runComparison(ctx, *c, dir, p.Command, p.Version, func(done, total float64, label string) { obs.progress(done, total, x.info.Name+": "+label) })
	if err != nil {
		return nil, err
	}
	text := table + fmt.Sprintf("\nwrote %s and %s\n", filepath.Join(dir, "points.csv"), filepath.Join(dir, "table.md"))
	return &Result{Info: x.Info(), Dir: dir, Elapsed: time.Since(start), Text: text}, nil
}

// comparisonSpec is the grid of a Comparison experiment: energy-error's
// set-up with the projection as an axis.
type comparisonSpec struct {
	K           int
	Ds          []int
	Betas       []float64
	Ys          []int
	Projections []features.ProjectionKind // the first is the reference of the ratios
	Basis       features.Basis
	Flip        float64
	Seed        uint64
	Seeds       int  // projections drawn per (D, Y, projection)
	Control     bool // also a second sample of iid projections (see experiment.BinaryGrid)
	Tolerance   float64
	Precision   dam.Precision
	Estimate    bool // print the plan's estimated run time and stop
}

// grid returns the energy grid that c measures.
func (c comparisonSpec) grid() experiment.BinaryGrid {
	return experiment.BinaryGrid{Ds: c.Ds, Ks: []int{c.K}, Betas: c.Betas, Ys: c.Ys, Projections: c.Projections, Basis: c.Basis,
		Flip: c.Flip, Seed: c.Seed, Seeds: c.Seeds, Control: c.Control, Precision: c.Precision}
}

// check validates the parameters that the plan does not.
func (c comparisonSpec) check() error {
	switch {
	case c.K < 1:
		return paramErrorf("k", c.K, "want at least 1")
	case c.Seeds < 1:
		return paramErrorf("seeds", c.Seeds, "want at least 1")
	case !(c.Flip >= 0 && c.Flip <= 1):
		return paramErrorf("flip", c.Flip, "want a fraction in [0, 1]")
	case !(c.Tolerance > 0):
		return paramErrorf("tolerance", c.Tolerance, "want a positive ratio")
	case len(c.Projections) == 0:
		return &ParamError{Name: "projections", Msg: "empty list"}
	case c.Control && c.Projections[0] != features.Gaussian:
		return &ParamError{Name: "control", Msg: `compares iid samples: list gaussian first in parameter "projections", or set it false`}
	}
	return nil
}

// cmpPoint is one row of a comparison's points.csv: the errors of one
// projection sample at one (D, β, Y, query set).
type cmpPoint struct {
	d, y                              int
	beta                              float64
	arm                               string
	set                               experiment.QuerySet
	energyMAE, energySE, energyMedian float64
	gradMAE, gradSE, gradMedian       float64
	seeds, count                      int
}

// runComparison runs the Comparison experiment c into dir: points.csv and
// table.md, headed by command (the command line that ran it) and version.
// It returns the table.
func runComparison(ctx context.Context, c comparisonSpec, dir, command, version string, progress func(done, total float64, label string)) (string, error) {
	if err := c.check(); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	plan, err := experiment.EnergyPlan(c.grid(), experiment.DefaultRates(), nil)
	if err != nil {
		return "", err
	}
	start := time.Now()
	var rows []experiment.Row
	if err := plan.Run(ctx, func(r []experiment.Row) error { rows = append(rows, r...); return nil }, progress); err != nil {
		return "", err
	}
	pts := comparisonPoints(rows, c.Seeds)
	if err := writeComparisonCSV(filepath.Join(dir, "points.csv"), pts); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Energy and gradient errors by projection\n\n"+
		"`%s` (%s; %v on %d cores).\n\n"+
		"K = %d binary patterns, basis %v, flip %g, %d projection draws per point (seeds %d…%d), %v.\n\n",
		command, "drdam "+version, time.Since(start).Round(time.Second), runtime.NumCPU(),
		c.K, c.Basis, c.Flip, c.Seeds, c.Seed, c.Seed+uint64(c.Seeds)-1, c.Precision)
	by := pointsByRow(pts)
	b.WriteString(ratioTable(by, c))
	b.WriteString("\n")
	b.WriteString(ratioSummary(by, c))
	table := b.String()
	return table, writeFile(filepath.Join(dir, "table.md"), table)
}

// comparisonPoints pairs the energy and gradient rows of the at, near and
// far sets, in the order of the plan (D, projection sample, Y, β, set).
func comparisonPoints(rows []experiment.Row, seeds int) []cmpPoint {
	var pts []cmpPoint
	for i, r := range rows {
		if r.Metric != experiment.MetricEnergy || r.Queries == experiment.Guess {
			continue
		}
		gr := rows[i+1] // the gradient row follows the energy row of its set
		pts = append(pts, cmpPoint{d: r.D, y: r.Y, beta: r.Beta, arm: r.Projection, set: r.Queries,
			energyMAE: r.Mean, energySE: r.SE, gradMAE: gr.Mean, gradSE: gr.SE, energyMedian: r.Median, gradMedian: gr.Median,
			seeds: seeds, count: r.Count})
	}
	return pts
}

func writeComparisonCSV(path string, pts []cmpPoint) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"D", "beta", "Y", "projection", "queries", "energy_mae", "energy_se", "grad_mae", "grad_se",
			"energy_median", "grad_median", "seeds", "count"})
		g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
		for _, p := range pts {
			cw.Write([]string{strconv.Itoa(p.d), g(p.beta), strconv.Itoa(p.y), p.arm, string(p.set),
				g(p.energyMAE), g(p.energySE), g(p.gradMAE), g(p.gradSE), g(p.energyMedian), g(p.gradMedian),
				strconv.Itoa(p.seeds), strconv.Itoa(p.count)})
		}
		cw.Flush()
		return cw.Error()
	})
}

// ratio returns a/b and its standard error by the delta method, for
// independent estimates a ± sa and b ± sb.
func ratio(a, sa, b, sb float64) (r, se float64) {
	r = a / b
	return r, math.Abs(r) * math.Hypot(sa/a, sb/b)
}

// ratioKey identifies one row of the ratio table.
type ratioKey struct {
	d    int
	beta float64
	y    int
	q    experiment.QuerySet
}

// armLabels returns the labels of c's samples, the reference first.
func armLabels(c comparisonSpec) []string {
	var l []string
	for _, k := range c.Projections {
		l = append(l, k.String())
	}
	if c.Control {
		l = append(l, experiment.ControlProjection)
	}
	return l
}

func pointsByRow(pts []cmpPoint) map[ratioKey]map[string]cmpPoint {
	by := map[ratioKey]map[string]cmpPoint{}
	for _, p := range pts {
		k := ratioKey{p.d, p.beta, p.y, p.set}
		if by[k] == nil {
			by[k] = map[string]cmpPoint{}
		}
		by[k][p.arm] = p
	}
	return by
}

// eachRow calls f for every (D, β, Y, query set) of c, in the table's
// order, with the points of each sample.
func eachRow(by map[ratioKey]map[string]cmpPoint, c comparisonSpec, f func(k ratioKey, m map[string]cmpPoint)) {
	for _, d := range c.Ds {
		for _, beta := range c.Betas {
			for _, y := range c.Ys {
				for _, q := range experiment.QuerySets() {
					k := ratioKey{d, beta, y, q}
					f(k, by[k])
				}
			}
		}
	}
}

// ratioTable formats, for each (D, β, Y, query set), the reference
// projection's errors and every other projection's errors as ratios to
// them (mean ratios with standard errors, then the ratio of the medians).
func ratioTable(by map[ratioKey]map[string]cmpPoint, c comparisonSpec) string {
	labels := armLabels(c)
	ref := labels[0]
	var b strings.Builder
	fmt.Fprintf(&b, "| D | β | Y | queries | %v energy MAE | %v gradient MAE |", ref, ref)
	for _, k := range labels[1:] {
		fmt.Fprintf(&b, " %v / %v energy | %v / %v gradient | medians (energy, gradient) |", k, ref, k, ref)
	}
	b.WriteString("\n|---|---|---|---|---|---|")
	for range labels[1:] {
		b.WriteString("---|---|---|")
	}
	b.WriteString("\n")
	eachRow(by, c, func(k ratioKey, m map[string]cmpPoint) {
		r := m[ref]
		fmt.Fprintf(&b, "| %d | %g | %d | %s | %.3g ± %.1g | %.3g ± %.1g |", k.d, k.beta, k.y, k.q, r.energyMAE, r.energySE, r.gradMAE, r.gradSE)
		for _, l := range labels[1:] {
			p := m[l]
			er, ese := ratio(p.energyMAE, p.energySE, r.energyMAE, r.energySE)
			gr, gse := ratio(p.gradMAE, p.gradSE, r.gradMAE, r.gradSE)
			fmt.Fprintf(&b, " %.2f ± %.2f | %.2f ± %.2f | %.2f, %.2f |", er, ese, gr, gse,
				p.energyMedian/r.energyMedian, p.gradMedian/r.gradMedian)
		}
		b.WriteString("\n")
	})
	return b.String()
}

// ratioSummary lists, per projection and D, the rows whose energy or
// gradient MAE ratio to the reference exceeds the tolerance, saying for
// each whether it exceeds it by more than two standard errors
// (significant) or not.
func ratioSummary(by map[ratioKey]map[string]cmpPoint, c comparisonSpec) string {
	labels := armLabels(c)
	ref, tol := labels[0], c.Tolerance
	var b strings.Builder
	fmt.Fprintf(&b, "## Rows above %g× the %v errors\n\n", tol, ref)
	if len(labels) == 1 {
		b.WriteString("(only one projection: nothing to compare)\n")
		return b.String()
	}
	for _, l := range labels[1:] {
		for _, d := range c.Ds {
			rows, worstE, worstG := 0, 0.0, 0.0
			var above []string
			eachRow(by, comparisonSpec{Ds: []int{d}, Betas: c.Betas, Ys: c.Ys}, func(k ratioKey, m map[string]cmpPoint) {
				r, p := m[ref], m[l]
				rows++
				check := func(what string, a, sa, b, sb float64) float64 {
					v, se := ratio(a, sa, b, sb)
					if v > tol {
						sig := "within 2 s.e. of " + strconv.FormatFloat(tol, 'g', -1, 64)
						if v-2*se > tol {
							sig = "**significant**"
						}
						above = append(above, fmt.Sprintf("β=%g Y=%d %s %s %.2f ± %.2f (%s)", k.beta, k.y, k.q, what, v, se, sig))
					}
					return v
				}
				worstE = math.Max(worstE, check("energy", p.energyMAE, p.energySE, r.energyMAE, r.energySE))
				worstG = math.Max(worstG, check("gradient", p.gradMAE, p.gradSE, r.gradMAE, r.gradSE))
			})
			fmt.Fprintf(&b, "- %v, D = %d: largest ratios %.2f (energy), %.2f (gradient); %d of %d values above %g",
				l, d, worstE, worstG, len(above), 2*rows, tol)
			if len(above) == 0 {
				b.WriteString(".\n")
				continue
			}
			b.WriteString(":\n")
			for _, a := range above {
				fmt.Fprintf(&b, "  - %s\n", a)
			}
		}
	}
	return b.String()
}
