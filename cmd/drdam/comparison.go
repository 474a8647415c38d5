package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/paper"
)

// runComparison parses the flags of a Comparison experiment (drdam
// experiment projections) and runs it.
func runComparison(e *env, x *paper.Experiment, args []string) error {
	d := x.Comparison
	fs := newFlags("experiment "+x.Name, "", x.Help)
	k := fs.Count("k", d.K, 1, maxCount, "number of stored patterns K")
	ds := fs.String("d", joinList(d.Ds), "comma-separated dimensions D")
	betas := fs.String("beta", joinList(d.Betas), "comma-separated inverse temperatures β")
	ys := fs.String("y", joinList(d.Ys), "comma-separated numbers of random projections Y")
	projs := fs.String("projections", joinList(d.Projections), "comma-separated projections (the first is the reference of the ratios)")
	basis := fs.String("basis", d.Basis.String(), "feature basis: "+features.BasisNames())
	flip := fs.Number("flip", d.Flip, fraction, "from 0 to 1", "fraction of bits flipped for the near queries")
	seed := fs.Uint64("seed", d.Seed, "seed of the patterns and of the first projection (0, as encode)")
	seeds := fs.Count("seeds", d.Seeds, 1, maxCount, "independent projections drawn per (D, Y, projection)")
	control := fs.Bool("control", d.Control, "also draw a second sample of --seeds iid projections (the next seeds), as a control: its ratio to the first shows the spread of chance alone")
	tol := fs.Number("tolerance", d.Tolerance, positive, "> 0", "summary: list the rows whose ratio to the reference exceeds this")
	prec := fs.String("precision", d.Precision.String(), "compute precision of DrDAM (float64, as the grid experiments: the errors compared are the projections', not rounding)")
	out := fs.String("out", filepath.Join("out", x.Name), "output directory")
	if err := fs.parse(e, args); err != nil {
		return err
	}
	c := paper.ComparisonSpec{K: *k, Flip: *flip, Seed: *seed, Seeds: *seeds, Control: *control, Tolerance: *tol}
	var err error
	if c.Ds, err = parseCounts("--d", *ds); err != nil {
		return err
	}
	if c.Betas, err = parsePositives("--beta", *betas); err != nil {
		return err
	}
	if c.Ys, err = parseCounts("--y", *ys); err != nil {
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
	if c.Basis, err = features.ParseBasis(*basis); err != nil {
		return usageError{"--basis: " + err.Error()}
	}
	if c.Precision, err = dam.ParsePrecision(*prec); err != nil {
		return usageError{"--precision: " + err.Error()}
	}
	pr := newProgress(e)
	table, err := paper.RunComparison(c, *out, "drdam experiment "+x.Name+" "+strings.Join(args, " "), versionString(),
		func(done, total float64, label string) { pr.bar(x.Name+": "+label, done, total) })
	pr.done()
	if err != nil {
		return err
	}
	fmt.Fprint(e.stdout, table)
	fmt.Fprintf(e.stdout, "\nwrote %s and %s\n", filepath.Join(*out, "points.csv"), filepath.Join(*out, "table.md"))
	return nil
}
