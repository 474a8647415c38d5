package main

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/metrics"
	"github.com/drdam/drdam/synth"
)

func runDemo(e *env, args []string) error {
	fs := newFlags("demo", "", `
Store K random binary patterns (in {0, 1/√D}^D, as in §4.1 of the paper) in
an MrDAM and in DrDAMs with several numbers of random features Y; corrupt
some of them by flipping bits; and compare DrDAM with MrDAM: the mean error
of the energies and gradients at the corrupted queries (eq. MAE), and the
normalized Hamming error between the fixed points the two reach by energy
descent (eq. binarize-op-hamming-err). Everything is generated from --seed.`)
	d := fs.Int("d", 64, "pattern dimension D")
	k := fs.Int("k", 50, "number of stored patterns K")
	nq := fs.Int("queries", 20, "number of queries (the first stored patterns, corrupted)")
	flip := fs.Float64("flip", 0.1, "fraction of each query's bits flipped")
	beta := fs.Float64("beta", 30, "inverse temperature β (at 30 MrDAM retrieves every pattern; at 10 its fixed points are mixtures)")
	ys := fs.String("y", "1000,10000,100000", "comma-separated numbers of random projections Y")
	basisName := fs.String("basis", "sincos", "feature basis: sincos, cos, exp or expexp")
	step := fs.Float64("step", 0.1, "descent step size η")
	tol := fs.Float64("tol", 1e-8, "stop a query once |ΔE| < tol")
	maxSteps := fs.Int("max-steps", 1000, "maximum number of descent steps")
	seed := fs.Uint64("seed", 1, "seed of the patterns, the corruption and the features")
	precName := fs.String("precision", "float64", "compute precision of both models: float64 or float32")
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
	var ylist []int
	for _, s := range splitList(*ys) {
		y, err := strconv.Atoi(s)
		if err != nil || y <= 0 {
			return usagef("--y: %q is not a positive integer", s)
		}
		ylist = append(ylist, y)
	}
	if *nq <= 0 || *nq > *k {
		return usagef("--queries %d: want 1 to K = %d", *nq, *k)
	}
	xi, err := synth.Binary(*seed, *k, *d)
	if err != nil {
		return err
	}
	q, err := synth.Flip(*seed, xi[:*nq**d], *d, *flip)
	if err != nil {
		return err
	}
	opt := dam.RecallOptions{Step: *step, MaxSteps: *maxSteps, Tol: *tol}
	w := e.stdout
	fmt.Fprintf(w, "K = %d random binary patterns of dimension D = %d, β = %g; %d queries: stored patterns with %.0f%% of their bits flipped.\n",
		*k, *d, *beta, *nq, 100**flip)
	fmt.Fprintf(w, "Descent: η = %g until |ΔE| < %g (at most %d steps).\n\n", *step, *tol, *maxSteps)

	t0 := time.Now()
	mr, _ := dam.NewMrDAM(dam.Config{D: *d, Beta: *beta, Precision: prec})
	if err := mr.Add(xi); err != nil {
		return err
	}
	eMR, gMR := make([]float64, *nq), make([]float64, len(q))
	if err := mr.EnergyGrad(eMR, gMR, q); err != nil {
		return err
	}
	resMR, err := dam.Recall(mr, q, opt)
	if err != nil {
		return err
	}
	xMR := append([]float64(nil), resMR.X...)
	fmt.Fprintf(w, "MrDAM (%d×%d patterns): retrieves %d of %d stored patterns exactly, in %s steps (%v)\n\n",
		*k, *d, exact(xMR, xi, *d), *nq, stepsSummary(resMR.Steps), time.Since(t0).Round(time.Millisecond))

	fmt.Fprintf(w, "DrDAM, %v features:\n", basis)
	fmt.Fprintf(w, "%9s %10s %12s %12s %10s %10s %8s\n", "Y", "size of T", "energy MAE", "grad MAE", "Hamming", "retrieved", "time")
	pr := newProgress(e)
	for i, y := range ylist {
		pr.update("demo: DrDAM row", i, len(ylist))
		t0 := time.Now()
		dr, err := dam.NewDrDAM(dam.Config{D: *d, Beta: *beta, Y: y, Basis: basis, Seed: *seed, Precision: prec})
		if err != nil {
			pr.done()
			return err
		}
		if err := dr.Add(xi); err != nil {
			pr.done()
			return err
		}
		eDR, gDR := make([]float64, *nq), make([]float64, len(q))
		if err := dr.EnergyGrad(eDR, gDR, q); err != nil {
			pr.done()
			return err
		}
		res, err := dam.Recall(dr, q, opt)
		if err != nil {
			pr.done()
			return err
		}
		pr.done()
		fmt.Fprintf(w, "%9d %10d %12.3g %12.3g %10.3g %7d/%-2d %8v\n", y, dr.Config().FeatureDim(),
			metrics.EnergyMAE(eMR, eDR), metrics.GradMAE(gMR, gDR, *d),
			metrics.MeanHamming(xMR, res.X, *d), exact(res.X, xi, *d), *nq, time.Since(t0).Round(time.Millisecond))
	}
	fmt.Fprintln(w, `
energy MAE, grad MAE: mean |E − Ê| and ‖∇E − ∇Ê‖ at the queries (eq. MAE);
Hamming: mean fraction of coordinates where the binarized fixed points of DrDAM
and MrDAM differ (eq. binarize-op-hamming-err); retrieved: queries whose DrDAM
fixed point binarizes to the stored pattern they came from.`)
	return nil
}

// exact counts the rows of x whose binarization equals the pattern of xi
// they were made from (row r of x comes from row r of xi).
func exact(x, xi []float64, d int) int {
	n := 0
	for r := range len(x) / d {
		if metrics.Hamming(x[r*d:(r+1)*d], xi[r*d:(r+1)*d]) == 0 {
			n++
		}
	}
	return n
}

func stepsSummary(steps []int) string {
	lo, hi, sum := math.MaxInt, 0, 0
	for _, s := range steps {
		lo, hi, sum = min(lo, s), max(hi, s), sum+s
	}
	return fmt.Sprintf("%d–%d (mean %.0f)", lo, hi, float64(sum)/float64(len(steps)))
}
