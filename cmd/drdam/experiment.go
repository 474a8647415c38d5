package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

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
			fmt.Fprintf(e.stdout, "  %-12s %s\n", n, experiments[n].summary)
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
Writes OUT/points.csv (every point, with standard errors) and OUT/table.md
(the ratio of each projection's errors to the iid errors), and prints the
table.`)
	k := fs.Int("k", 500, "number of stored patterns K")
	ds := fs.String("d", "64,256,1024", "comma-separated dimensions D")
	betas := fs.String("beta", "10,30,50", "comma-separated inverse temperatures β")
	ys := fs.String("y", "1000,10000,100000", "comma-separated numbers of random projections Y")
	projs := fs.String("projections", "gaussian,orthogonal,structured", "comma-separated projections (gaussian first: it is the reference)")
	basis := fs.String("basis", "sincos", "feature basis")
	flip := fs.Float64("flip", 0.1, "fraction of bits flipped for the near queries")
	seed := fs.Uint64("seed", 0, "seed of the patterns and of the projections")
	prec := fs.String("precision", "float64", "compute precision of DrDAM")
	out := fs.String("out", "out/projections", "output directory")
	if err := fs.parse(e, args); err != nil {
		return err
	}
	c := experiment.EnergyErrorConfig{K: *k, Flip: *flip, Seed: *seed}
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
		c.Projections = append(c.Projections, kind)
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
	pr := newProgress(e)
	pts, err := experiment.EnergyError(c, func(done, total int, p experiment.Point) {
		pr.update(fmt.Sprintf("projections: D=%d β=%g Y=%d %v, point", p.D, p.Beta, p.Y, p.Projection), done, total)
	})
	pr.done()
	if err != nil {
		return err
	}
	if err := writePointsCSV(filepath.Join(*out, "points.csv"), pts); err != nil {
		return err
	}
	table := ratioTable(pts, c)
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
		cw.Write([]string{"D", "beta", "Y", "projection", "queries", "energy_mae", "energy_se", "grad_mae", "grad_se", "count"})
		g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
		for _, p := range pts {
			cw.Write([]string{strconv.Itoa(p.D), g(p.Beta), strconv.Itoa(p.Y), p.Projection.String(), string(p.Queries),
				g(p.EnergyMAE), g(p.EnergySE), g(p.GradMAE), g(p.GradSE), strconv.Itoa(p.Count)})
		}
		cw.Flush()
		return cw.Error()
	})
}

// ratioTable formats, for each (D, β, Y, query set), the iid errors and
// every other projection's errors as ratios to them.
func ratioTable(pts []experiment.Point, c experiment.EnergyErrorConfig) string {
	type key struct {
		d    int
		beta float64
		y    int
		q    experiment.QuerySet
	}
	by := map[key]map[features.ProjectionKind]experiment.Point{}
	for _, p := range pts {
		k := key{p.D, p.Beta, p.Y, p.Queries}
		if by[k] == nil {
			by[k] = map[features.ProjectionKind]experiment.Point{}
		}
		by[k][p.Projection] = p
	}
	ref := c.Projections[0]
	var b strings.Builder
	fmt.Fprintf(&b, "| D | β | Y | queries | %v energy MAE | %v gradient MAE |", ref, ref)
	for _, k := range c.Projections[1:] {
		fmt.Fprintf(&b, " %v / %v energy | %v / %v gradient |", k, ref, k, ref)
	}
	b.WriteString("\n|---|---|---|---|---|---|")
	for range c.Projections[1:] {
		b.WriteString("---|---|")
	}
	b.WriteString("\n")
	for _, d := range c.Ds {
		for _, beta := range c.Betas {
			for _, y := range c.Ys {
				for _, q := range []experiment.QuerySet{experiment.At, experiment.Near, experiment.Far} {
					m := by[key{d, beta, y, q}]
					r := m[ref]
					fmt.Fprintf(&b, "| %d | %g | %d | %s | %.3g ± %.1g | %.3g ± %.1g |", d, beta, y, q, r.EnergyMAE, r.EnergySE, r.GradMAE, r.GradSE)
					for _, k := range c.Projections[1:] {
						p := m[k]
						fmt.Fprintf(&b, " %.2f | %.2f |", p.EnergyMAE/r.EnergyMAE, p.GradMAE/r.GradMAE)
					}
					b.WriteString("\n")
				}
			}
		}
	}
	return b.String()
}
