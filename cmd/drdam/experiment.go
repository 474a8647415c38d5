package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/atomicfile"
)

var experiments = map[string]struct {
	summary string
	run     func(e *env, args []string) error
}{
	"projections": {"energy and gradient errors of SORF and ORF beside iid features (§4.1 setup)", runProjections},
}

func runExperiment(e *env, args []string) error {
	if len(args) == 0 || args[0] == "--help" || args[0] == "-h" {
		fmt.Fprint(e.stdout, "Usage: drdam experiment NAME [flags]\n\nExperiments:\n")
		names := make([]string, 0, len(experiments))
		for n := range experiments {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(e.stdout, "  %-16s %s\n", n, experiments[n].summary)
		}
		fmt.Fprint(e.stdout, "\nRun 'drdam experiment NAME --help' for the flags of one.\n")
		if len(args) == 0 {
			return usagef("missing experiment name")
		}
		return nil
	}
	x, ok := experiments[args[0]]
	if !ok {
		return usagef("unknown experiment %q", args[0])
	}
	return x.run(e, args[1:])
}

func parseInts(flag, s string) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		v, err := strconv.ParseFloat(f, 64) // accepts 1e5
		if err != nil || v <= 0 || v != float64(int(v)) {
			return nil, usagef("%s: %q is not a positive integer", flag, f)
		}
		out = append(out, int(v))
	}
	return out, nil
}

func parseFloats(flag, s string) ([]float64, error) {
	var out []float64
	for _, f := range splitList(s) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v > 0) {
			return nil, usagef("%s: %q is not a positive number", flag, f)
		}
		out = append(out, v)
	}
	return out, nil
}

func runProjections(e *env, args []string) error {
	fs := newFlags("experiment projections", "", `
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
  drdam experiment projections --out docs/projections/sincos`)
	k := fs.Int("k", 500, "number of stored patterns K")
	ds := fs.String("d", "64,256,1024", "comma-separated dimensions D")
	betas := fs.String("beta", "10,30,50", "comma-separated inverse temperatures β")
	ys := fs.String("y", "1000,10000,100000", "comma-separated numbers of random projections Y")
	projs := fs.String("projections", "gaussian,orthogonal,structured", "comma-separated projections (the first is the reference of the ratios)")
	basis := fs.String("basis", "sincos", "feature basis: sincos, cos, exp or expexp")
	flip := fs.Float64("flip", 0.1, "fraction of bits flipped for the near queries")
	seed := fs.Uint64("seed", 0, "seed of the patterns and of the first projection")
	seeds := fs.Int("seeds", 5, "independent projections drawn per (D, Y, projection)")
	control := fs.Bool("control", true, "also draw a second sample of --seeds iid projections (the next seeds), as a control: its ratio to the first shows the spread of chance alone")
	tol := fs.Float64("tolerance", 1.2, "summary: list the rows whose ratio to the reference exceeds this")
	prec := fs.String("precision", "float64", "compute precision of DrDAM")
	out := fs.String("out", "out/projections", "output directory")
	if err := fs.parse(e, args); err != nil {
		return err
	}
	c := experiment.EnergyErrorConfig{K: *k, Flip: *flip, Seed: *seed, Seeds: *seeds, Control: *control}
	if *k < 1 {
		return usagef("--k %d: want at least 1", *k)
	}
	if *seeds < 1 {
		return usagef("--seeds %d: want at least 1", *seeds)
	}
	if !(*flip >= 0 && *flip <= 1) {
		return usagef("--flip %v: want a fraction in [0, 1]", *flip)
	}
	if !(*tol > 0) {
		return usagef("--tolerance %v: want a positive ratio", *tol)
	}
	var err error
	if c.Ds, err = parseInts("--d", *ds); err != nil {
		return err
	}
	if c.Betas, err = parseFloats("--beta", *betas); err != nil {
		return err
	}
	if c.Ys, err = parseInts("--y", *ys); err != nil {
		return err
	}
	for _, p := range splitList(*projs) {
		kind, err := features.ParseProjectionKind(p)
		if err != nil {
			return usageError{"--projections: " + err.Error()}
		}
		if slices.Contains(c.Projections, kind) {
			return usagef("--projections: %v is listed twice", kind)
		}
		c.Projections = append(c.Projections, kind)
	}
	if len(c.Projections) == 0 {
		return usagef("--projections: empty list")
	}
	if c.Basis, err = features.ParseBasis(*basis); err != nil {
		return usageError{"--basis: " + err.Error()}
	}
	if c.Precision, err = dam.ParsePrecision(*prec); err != nil {
		return usageError{"--precision: " + err.Error()}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	if *control && c.Projections[0] != features.Gaussian {
		return usagef("--control compares iid samples: list gaussian first in --projections, or pass --control=false")
	}
	pr := newProgress(e)
	start := time.Now()
	pts, err := experiment.EnergyError(c, func(done, total int, what string) {
		pr.update("projections: "+what, done, total)
	})
	pr.done()
	if err != nil {
		return err
	}
	if err := writePointsCSV(filepath.Join(*out, "points.csv"), pts); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Energy and gradient errors by projection\n\n"+
		"`drdam experiment projections %s` (%s; %v on %d cores).\n\n"+
		"K = %d binary patterns, basis %v, flip %g, %d projection draws per point (seeds %d…%d), %v.\n\n",
		strings.Join(args, " "), "drdam "+versionString(), time.Since(start).Round(time.Second), runtime.NumCPU(),
		c.K, c.Basis, c.Flip, c.Seeds, c.Seed, c.Seed+uint64(c.Seeds)-1, c.Precision)
	b.WriteString(ratioTable(pts, c))
	b.WriteString("\n")
	b.WriteString(ratioSummary(pts, c, *tol))
	table := b.String()
	if err := atomicfile.Write(filepath.Join(*out, "table.md"), func(w io.Writer) error {
		_, err := io.WriteString(w, table)
		return err
	}); err != nil {
		return err
	}
	fmt.Fprint(e.stdout, table)
	fmt.Fprintf(e.stdout, "\nwrote %s and %s\n", filepath.Join(*out, "points.csv"), filepath.Join(*out, "table.md"))
	return nil
}

func writePointsCSV(path string, pts []experiment.Point) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"D", "beta", "Y", "projection", "queries", "energy_mae", "energy_se", "grad_mae", "grad_se",
			"energy_median", "grad_median", "seeds", "count"})
		g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
		for _, p := range pts {
			cw.Write([]string{strconv.Itoa(p.D), g(p.Beta), strconv.Itoa(p.Y), armLabel(p), string(p.Queries),
				g(p.EnergyMAE), g(p.EnergySE), g(p.GradMAE), g(p.GradSE), g(p.EnergyMedian), g(p.GradMedian),
				strconv.Itoa(p.Seeds), strconv.Itoa(p.Count)})
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

// controlLabel names the control sample of iid projections.
const controlLabel = "gaussian (control)"

// armLabel names the sample of projections a point belongs to.
func armLabel(p experiment.Point) string {
	if p.Control {
		return controlLabel
	}
	return p.Projection.String()
}

// armLabels returns the labels of c's samples, the reference first.
func armLabels(c experiment.EnergyErrorConfig) []string {
	var l []string
	for _, k := range c.Projections {
		l = append(l, k.String())
	}
	if c.Control {
		l = append(l, controlLabel)
	}
	return l
}

func pointsByRow(pts []experiment.Point) map[ratioKey]map[string]experiment.Point {
	by := map[ratioKey]map[string]experiment.Point{}
	for _, p := range pts {
		k := ratioKey{p.D, p.Beta, p.Y, p.Queries}
		if by[k] == nil {
			by[k] = map[string]experiment.Point{}
		}
		by[k][armLabel(p)] = p
	}
	return by
}

// ratioTable formats, for each (D, β, Y, query set), the reference
// projection's errors and every other projection's errors as ratios to
// them (mean ratios with standard errors, then the ratio of the medians).
func ratioTable(pts []experiment.Point, c experiment.EnergyErrorConfig) string {
	by := pointsByRow(pts)
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
	for _, d := range c.Ds {
		for _, beta := range c.Betas {
			for _, y := range c.Ys {
				for _, q := range experiment.QuerySets {
					m := by[ratioKey{d, beta, y, q}]
					r := m[ref]
					fmt.Fprintf(&b, "| %d | %g | %d | %s | %.3g ± %.1g | %.3g ± %.1g |", d, beta, y, q, r.EnergyMAE, r.EnergySE, r.GradMAE, r.GradSE)
					for _, k := range labels[1:] {
						p := m[k]
						er, ese := ratio(p.EnergyMAE, p.EnergySE, r.EnergyMAE, r.EnergySE)
						gr, gse := ratio(p.GradMAE, p.GradSE, r.GradMAE, r.GradSE)
						fmt.Fprintf(&b, " %.2f ± %.2f | %.2f ± %.2f | %.2f, %.2f |", er, ese, gr, gse,
							p.EnergyMedian/r.EnergyMedian, p.GradMedian/r.GradMedian)
					}
					b.WriteString("\n")
				}
			}
		}
	}
	return b.String()
}

// ratioSummary lists, per projection and D, the rows whose energy or
// gradient MAE ratio to the reference exceeds tol, saying for each whether
// it exceeds tol by more than two standard errors (significant) or not.
func ratioSummary(pts []experiment.Point, c experiment.EnergyErrorConfig, tol float64) string {
	by := pointsByRow(pts)
	labels := armLabels(c)
	ref := labels[0]
	var b strings.Builder
	fmt.Fprintf(&b, "## Rows above %g× the %v errors\n\n", tol, ref)
	if len(labels) == 1 {
		b.WriteString("(only one projection: nothing to compare)\n")
		return b.String()
	}
	for _, k := range labels[1:] {
		for _, d := range c.Ds {
			rows, worstE, worstG := 0, 0.0, 0.0
			var above []string
			for _, beta := range c.Betas {
				for _, y := range c.Ys {
					for _, q := range experiment.QuerySets {
						m := by[ratioKey{d, beta, y, q}]
						r, p := m[ref], m[k]
						rows++
						check := func(what string, a, sa, b, sb float64) float64 {
							v, se := ratio(a, sa, b, sb)
							if v > tol {
								sig := "within 2 s.e. of " + strconv.FormatFloat(tol, 'g', -1, 64)
								if v-2*se > tol {
									sig = "**significant**"
								}
								above = append(above, fmt.Sprintf("β=%g Y=%d %s %s %.2f ± %.2f (%s)", beta, y, q, what, v, se, sig))
							}
							return v
						}
						worstE = math.Max(worstE, check("energy", p.EnergyMAE, p.EnergySE, r.EnergyMAE, r.EnergySE))
						worstG = math.Max(worstG, check("gradient", p.GradMAE, p.GradSE, r.GradMAE, r.GradSE))
					}
				}
			}
			fmt.Fprintf(&b, "- %v, D = %d: largest ratios %.2f (energy), %.2f (gradient); %d of %d values above %g",
				k, d, worstE, worstG, len(above), 2*rows, tol)
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
