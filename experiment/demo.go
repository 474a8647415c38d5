package experiment

import (
	"fmt"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/metrics"
	"github.com/drdam/drdam/synth"
)

// Demo is the comparison of drdam demo: K random binary patterns of
// dimension D (§4.1) stored in an MrDAM and in DrDAMs with each Y of Ys;
// the first Queries of them, with a fraction Flip of their bits flipped,
// are the queries; both models descend from them (Step, Tol, MaxSteps).
// Everything is drawn from Seed.
type Demo struct {
	D, K, Queries int
	Flip, Beta    float64
	Ys            []int
	Basis         features.Basis
	Step, Tol     float64
	MaxSteps      int
	Seed          uint64
	Precision     dam.Precision // of both models
	MaxMemory     int64         // memory budget in bytes (0: dam.DefaultBudget)
}

// DemoRow is the comparison of one DrDAM with MrDAM: the mean errors of
// its energies and gradients at the queries (eq. MAE), the mean normalized
// Hamming error between the binarized fixed points (eq.
// binarize-op-hamming-err), and how many fixed points binarize to the
// stored pattern their query came from.
type DemoRow struct {
	Y, F               int // projections and the length of T
	EnergyMAE, GradMAE float64
	Hamming            float64
	Retrieved          int
	Stalled            int // descents that stalled at the clip floor (dam.Stalled)
	Time               time.Duration
}

// DemoResult is MrDAM's own retrieval and a row per Y.
type DemoResult struct {
	MrRetrieved int
	MrSteps     []int // the steps of each query's descent
	MrTime      time.Duration
	Rows        []DemoRow
}

// RunDemo runs the comparison, calling progress (if not nil) before each
// DrDAM with the number done and the total.
func RunDemo(c Demo, progress func(done, total int)) (*DemoResult, error) {
	if c.Queries <= 0 || c.Queries > c.K {
		return nil, fmt.Errorf("demo: %d queries: want 1 to K = %d", c.Queries, c.K)
	}
	if c.K <= 0 || c.D <= 0 {
		return nil, fmt.Errorf("demo: K = %d patterns of dimension D = %d: both must be positive", c.K, c.D)
	}
	parts := []dam.Footprint{
		dam.DataFootprint(fmt.Sprintf("the patterns (K×D = %d×%d)", c.K, c.D), float64(c.K)*float64(c.D)+3*float64(c.Queries)*float64(c.D), "K"),
		dam.EstimateFootprint(dam.Config{Rep: dam.RepMrDAM, D: c.D, Beta: 1, Precision: c.Precision}, c.K),
	}
	for _, y := range c.Ys {
		parts = append(parts, dam.EstimateFootprint(dam.Config{D: c.D, Beta: 1, Y: y, Basis: c.Basis, Precision: c.Precision}, 0))
	}
	if err := dam.CheckFits(c.MaxMemory, parts...); err != nil {
		return nil, err
	}
	xi, err := synth.Binary(c.Seed, c.K, c.D)
	if err != nil {
		return nil, err
	}
	q, err := synth.Flip(c.Seed, xi[:c.Queries*c.D], c.D, c.Flip)
	if err != nil {
		return nil, err
	}
	opt := dam.RecallOptions{Step: c.Step, MaxSteps: c.MaxSteps, Tol: c.Tol}
	t0 := time.Now()
	mr, err := dam.NewMrDAM(dam.Config{D: c.D, Beta: c.Beta, Precision: c.Precision})
	if err != nil {
		return nil, err
	}
	eMR, gMR, resMR, err := evalAndRecall(mr, xi, q, opt)
	if err != nil {
		return nil, err
	}
	res := &DemoResult{MrRetrieved: exact(resMR.X, xi, c.D), MrSteps: resMR.Steps, MrTime: time.Since(t0)}
	for i, y := range c.Ys {
		if progress != nil {
			progress(i, len(c.Ys))
		}
		t0 := time.Now()
		dr, err := dam.NewDrDAM(dam.Config{D: c.D, Beta: c.Beta, Y: y, Basis: c.Basis, Seed: c.Seed, Precision: c.Precision})
		if err != nil {
			return nil, err
		}
		e, g, r, err := evalAndRecall(dr, xi, q, opt)
		if err != nil {
			return nil, err
		}
		_, _, stalled := r.Count()
		res.Rows = append(res.Rows, DemoRow{Y: y, F: dr.Config().FeatureDim(), EnergyMAE: metrics.EnergyMAE(eMR, e), GradMAE: metrics.GradMAE(gMR, g, c.D),
			Hamming: metrics.MeanHamming(resMR.X, r.X, c.D), Retrieved: exact(r.X, xi, c.D), Stalled: stalled, Time: time.Since(t0)})
	}
	return res, nil
}

// evalAndRecall stores the patterns in m and returns its energies and
// gradients at the queries, and its descents from them.
func evalAndRecall(m dam.Memory, patterns, q []float64, opt dam.RecallOptions) (e, g []float64, r *dam.Result, err error) {
	if err := m.Add(patterns); err != nil {
		return nil, nil, nil, err
	}
	e, g = make([]float64, len(q)/m.Dim()), make([]float64, len(q))
	if err := m.EnergyGrad(e, g, q); err != nil {
		return nil, nil, nil, err
	}
	r, err = dam.Recall(m, q, opt)
	if err != nil {
		return nil, nil, nil, err
	}
	r.X = append([]float64(nil), r.X...)
	return e, g, r, nil
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
