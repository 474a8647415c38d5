package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/features"
)

func runDemo(e *env, args []string) error {
	fs := newFlags("demo", "", `
Store K random binary patterns (in {0, 1/√D}^D, as in §4.1 of the paper) in
an MrDAM and in DrDAMs with several numbers of random features Y; corrupt
some of them by flipping bits; and compare DrDAM with MrDAM: the mean error
of the energies and gradients at the corrupted queries (eq. MAE), and the
normalized Hamming error between the fixed points the two reach by energy
descent (eq. binarize-op-hamming-err). Everything is generated from --seed.`)
	d := fs.Count("d", 64, 1, maxCount, "pattern dimension D")
	k := fs.Count("k", 50, 1, maxCount, "number of stored patterns K")
	nq := fs.Count("queries", 20, 1, maxCount, "number of queries (the first stored patterns, corrupted)")
	flip := fs.Number("flip", 0.1, fraction, "from 0 to 1", "fraction of each query's bits flipped")
	beta := fs.Number("beta", 30, positive, "> 0", "inverse temperature β (at 30 MrDAM retrieves every pattern; at 10 its fixed points are mixtures)")
	ys := fs.String("y", "1000,10000,100000", "comma-separated numbers of random projections Y")
	basisName := fs.String("basis", "sincos", "feature basis: "+features.BasisNames())
	step := fs.Number("step", 0.1, positive, "> 0", "descent step size η (0.1, as recall and the peers' alpha)")
	tol := fs.Number("tol", 1e-8, nonNegative, "≥ 0", "stop a query once |ΔE| < tol (tighter than recall's 1e-6: the table compares fixed points)")
	maxSteps := fs.Count("max-steps", 1000, 1, maxCount, "maximum number of descent steps")
	seed := fs.Uint64("seed", 1, "seed of the patterns, the corruption and the features (1, unlike encode's 0: the README's table was printed with it)")
	precName := fs.String("precision", "float64", "compute precision of both models: float64 (as encode: the errors shown are DrDAM's, not rounding) or float32")
	budget := addBudget(fs)
	if err := fs.parse(e, args); err != nil {
		return err
	}
	basis, err := features.ParseBasis(*basisName)
	if err != nil {
		return usageError{"--basis: " + err.Error()}
	}
	prec, err := dam.ParsePrecision(*precName)
	if err != nil {
		return usageError{"--precision: " + err.Error()}
	}
	ylist, err := parseCounts("--y", *ys)
	if err != nil {
		return err
	}
	c := experiment.Demo{D: *d, K: *k, Queries: *nq, Flip: *flip, Beta: *beta, Ys: ylist, Basis: basis,
		Step: *step, Tol: *tol, MaxSteps: *maxSteps, Seed: *seed, Precision: prec, MaxMemory: int64(*budget)}
	if *nq <= 0 || *nq > *k {
		return usagef("--queries %d: want at most --k (%d)", *nq, *k)
	}
	pr := newProgress(e)
	res, err := experiment.RunDemo(c, func(i, n int) { pr.update("demo: DrDAM row", i, n) })
	pr.done()
	if err != nil {
		return budgetHint(err)
	}
	printDemo(e.stdout, c, res)
	return nil
}

// printDemo prints the demo's comparison.
func printDemo(w io.Writer, c experiment.Demo, res *experiment.DemoResult) {
	fmt.Fprintf(w, "K = %d random binary patterns of dimension D = %d, β = %g; %d queries: stored patterns with %.0f%% of their bits flipped.\n",
		c.K, c.D, c.Beta, c.Queries, 100*c.Flip)
	fmt.Fprintf(w, "Descent: η = %g until |ΔE| < %g (at most %d steps).\n\n", c.Step, c.Tol, c.MaxSteps)
	fmt.Fprintf(w, "MrDAM (%d×%d patterns): retrieves %d of %d stored patterns exactly, in %s steps (%v)\n\n",
		c.K, c.D, res.MrRetrieved, c.Queries, stepsSummary(res.MrSteps), res.MrTime.Round(time.Millisecond))
	fmt.Fprintf(w, "DrDAM, %v features:\n", c.Basis)
	fmt.Fprintf(w, "%9s %10s %12s %12s %10s %10s %8s\n", "Y", "size of T", "energy MAE", "grad MAE", "Hamming", "retrieved", "time")
	stalled := 0
	for _, r := range res.Rows {
		fmt.Fprintf(w, "%9d %10d %12.3g %12.3g %10.3g %7d/%-2d %8v\n", r.Y, r.F, r.EnergyMAE, r.GradMAE, r.Hamming, r.Retrieved, c.Queries, r.Time.Round(time.Millisecond))
		stalled += r.Stalled
	}
	if stalled > 0 {
		var parts []string
		for _, r := range res.Rows {
			if r.Stalled > 0 {
				parts = append(parts, fmt.Sprintf("%d of %d queries at Y = %d", r.Stalled, c.Queries, r.Y))
			}
		}
		fmt.Fprintf(w, "\nStalled at DrDAM's clip floor (their fixed points are where they started, not retrievals): %s.\n", strings.Join(parts, ", "))
	}
	fmt.Fprintln(w, `
energy MAE, grad MAE: mean |E − Ê| and ‖∇E − ∇Ê‖ at the queries (eq. MAE);
Hamming: mean fraction of coordinates where the binarized fixed points of DrDAM
and MrDAM differ (eq. binarize-op-hamming-err); retrieved: queries whose DrDAM
fixed point binarizes to the stored pattern they came from.`)
}

func stepsSummary(steps []int) string {
	lo, hi, sum := math.MaxInt, 0, 0
	for _, s := range steps {
		lo, hi, sum = min(lo, s), max(hi, s), sum+s
	}
	return fmt.Sprintf("%d–%d (mean %.0f)", lo, hi, float64(sum)/float64(len(steps)))
}
