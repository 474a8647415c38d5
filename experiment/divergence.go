package experiment

import (
	"fmt"
	"math"
	"slices"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/metrics"
)

// The metrics of the theorem1 experiment (DivergencePlan). Those without
// a suffix are measured at the step size of Corollary 1, η = C₂/(L·B),
// B = 1 + 2Kβe^{β/2}; those ending in "_user" at Theorem 1's general step
// (Divergence.Step). Each row summarizes one value per query of a set.
const (
	// MetricDivergence is ‖x_L − x̂_L‖₂ between MrDAM's and DrDAM's
	// states after L steps of plain descent from the same query (the left
	// side of eq. div-ub).
	MetricDivergence = "divergence"
	// MetricDivergenceFloat64 is MetricDivergence measured by plain
	// float64 descents that store x itself (dam.Recall), where
	// MetricDivergence holds the displacement x − x₀ apart: where the two
	// differ, a float64 descent of x does not resolve the divergence.
	MetricDivergenceFloat64 = "divergence_float64"
	// MetricDisplacement is MrDAM's own displacement ‖x_L − x₀‖₂.
	MetricDisplacement = "displacement"
	// MetricTheorem1Bound is the right side of eq. div-ub, with C₁ from
	// MetricC1 and E₀ the query's MrDAM energy (+Inf where it overflows).
	MetricTheorem1Bound = "theorem1_bound"
	// MetricCorollary1Bound is the right side of eq. lrate-div-ub (same
	// C₁, C₂ and E₀).
	MetricCorollary1Bound = "corollary1_bound"
	// MetricLogRatioMax is the largest over the set's queries of
	// ln(divergence / Theorem 1 bound), computed in the log domain (it is
	// finite where the bound overflows): below 0 where the bound holds
	// for every query. Its Mean and Median are that maximum.
	MetricLogRatioMax = "log_ratio_max"

	// The same at Theorem 1's general step η = Divergence.Step.
	MetricDivergenceUser    = "divergence_user"
	MetricDisplacementUser  = "displacement_user"
	MetricTheorem1BoundUser = "theorem1_bound_user"
	MetricLogRatioMaxUser   = "log_ratio_max_user"

	// MetricStep (query set Pairs) is the step size η of the descents at
	// Corollary 1's step, and MetricStepUser Theorem 1's general one; the
	// Count of both is L, the number of steps.
	MetricStep     = "step"
	MetricStepUser = "step_user"

	// MetricFloor is the fraction of the set's queries whose DrDAM
	// descent (at either step) was at the clip floor ε at some step
	// (dam.FloorReporter): there DrDAM's gradient is the floor's (zero),
	// not an estimate, and (A2)'s φ·φ ≥ 0 of the proof fails.
	MetricFloor = "floor"
)

// Divergence configures the descents of the theorem1 experiment: L steps
// of plain descent x ← x − η∇E(x) (eq. gen-up) from the same queries for
// MrDAM and DrDAM, with no clamping, no box and no convergence stop, at
// two step sizes: Corollary 1's η = C₂/(L(1 + 2Kβe^{β/2})) and Step.
type Divergence struct {
	Queries int     // queries per set: the first Queries of the at, near and far sets (1 ≤ Queries ≤ K)
	Step    float64 // Theorem 1's general step η (> 0)
	Steps   int     // L ≥ 1
	// C2 is Corollary 1's C₂ in (0, 1); 0 means ½, the value of the
	// energy-error experiment's bound rows.
	C2 float64
}

func (v *Divergence) check(k int) error {
	if v.C2 == 0 {
		v.C2 = boundC2
	}
	switch {
	case v.Queries < 1 || v.Queries > k:
		return fmt.Errorf("theorem1: %d queries per set, want 1 to K = %d", v.Queries, k)
	case !(v.Step > 0) || math.IsInf(v.Step, 0):
		return fmt.Errorf("theorem1: step η = %v, want a finite number > 0", v.Step)
	case v.Steps < 1:
		return fmt.Errorf("theorem1: L = %d steps, want at least 1", v.Steps)
	case !(v.C2 > 0 && v.C2 < 1):
		return fmt.Errorf("theorem1: C₂ = %v, want a number in (0, 1)", v.C2)
	}
	return nil
}

// DivergencePlan returns the plan of the theorem1 experiment (Theorem 1
// and Corollary 1 measured as stated): for every (D, K, Y, β) of g, MrDAM
// and DrDAM (SinCos features) descend L steps from the same first
// Queries at, near and far queries, at Corollary 1's step and at
// v.Step, and the rows give per set the divergence ‖x_L − x̂_L‖₂, MrDAM's
// displacement ‖x_L − x₀‖₂, the bounds of eq. div-ub and eq. lrate-div-ub
// per query (C₁ measured on the projection as for energy-error's bound
// rows, on the pairs of each query with the first 8 stored patterns; E₀
// the query's MrDAM energy), the largest log ratio of divergence to
// bound, DrDAM's gradient error at the queries (MetricGradient) and the
// fraction of DrDAM's descents that touched its clip floor
// (MetricFloor). One projection per task (g.Seeds must be 1: the
// replicates are runs with other seeds). Configurations for which done
// returns true are left out; done may be nil.
//
// The descents hold the displacement δ = x − x₀ apart from x₀ and
// evaluate the gradients at x₀ + δ: at Corollary 1's step the states move
// by as little as 10⁻¹⁶ (B is up to ~10¹⁵), below the resolution of x₀'s
// coordinates, and a descent that stores x itself would round most of the
// divergence away. MetricDivergenceFloat64 is that descent, for
// comparison.
func DivergencePlan(g BinaryGrid, v Divergence, rates Rates, done func(Key) bool) (*Plan, error) {
	if err := g.check("theorem1"); err != nil {
		return nil, err
	}
	switch {
	case g.Basis != features.SinCos:
		return nil, fmt.Errorf("theorem1: basis %v: C₁ is measured for sincos features only", g.Basis)
	case g.Control:
		return nil, fmt.Errorf("theorem1: no control sample (it belongs to energy-error)")
	case g.Seeds > 1:
		return nil, fmt.Errorf("theorem1: Seeds = %d: one projection per run (replicates are runs with other seeds)", g.Seeds)
	}
	if err := v.check(slices.Min(g.Ks)); err != nil {
		return nil, err
	}
	return g.plan("theorem1", done, func(t binaryTask) float64 {
		b, nb := 3*v.Queries, len(t.keys)
		// Per β: two δ-descents of each model at two steps (4L
		// evaluations, 2L of them DrDAM's) and one float64 descent of
		// each (L + 1), T of K patterns (about half an evaluation of K
		// queries), and C₁: the pairs' projections (a plain loop, ~0.5 ns
		// per multiply-add) and cosines (~20 ns each, math.Cos), as
		// measured on the machine of docs/reproduce.
		pairs := float64(b * min(t.k, boundPairs) * t.y)
		cost := rates.evalCost(t.a.kind, t.y, t.d, b, nb*(3*v.Steps+1), 1) + rates.evalCost(t.a.kind, t.y, t.d, t.k, nb, 0)/2
		cost += rates.mrCost(t.k, t.d, b, nb*(3*v.Steps+2))
		cost += pairs*float64(t.d)*0.5e-9 + pairs*float64(nb)*20e-9
		return cost
	}, func(t binaryTask, bd *binaryData, part partFunc) ([]Row, error) {
		return divergenceTask(&g, v, t.a, bd, t.keys, part)
	}), nil
}

// divergencePairs returns the differences between each of the queries x0
// (B×D) and the first boundPairs stored patterns: the pairs on which C₁
// is measured.
func divergencePairs(stored, x0 []float64, d, k int) []float64 {
	n := min(boundPairs, k)
	var diffs []float64
	for q := range len(x0) / d {
		x := x0[q*d : (q+1)*d]
		for m := range n {
			xi := stored[m*d : (m+1)*d]
			for i := range d {
				diffs = append(diffs, x[i]-xi[i])
			}
		}
	}
	return diffs
}

// deltaDescent runs l steps of plain descent of m from x0 (B×D) with step
// eta, holding the displacement apart: δ ← δ − η∇E(x₀ + δ), δ₀ = 0. It
// returns δ_L (B×D), the gradient at x0, and for each query whether the
// model (a DrDAM) reported it at its clip floor at any step.
func deltaDescent(m dam.Model, x0 []float64, d int, eta float64, l int) (delta, g0 []float64, floor []bool, err error) {
	b := len(x0) / d
	delta, g0 = make([]float64, b*d), make([]float64, b*d)
	x, g, e := make([]float64, b*d), make([]float64, b*d), make([]float64, b)
	floor, at := make([]bool, b), make([]bool, b)
	fr, _ := m.(dam.FloorReporter)
	for t := range l {
		for i := range x {
			x[i] = x0[i] + delta[i]
		}
		if fr != nil {
			err = fr.EnergyGradFloor(e, g, x, at)
		} else {
			err = m.EnergyGrad(e, g, x)
		}
		if err != nil {
			return nil, nil, nil, fmt.Errorf("step %d: %w", t, err)
		}
		for q := range at {
			floor[q] = floor[q] || at[q]
		}
		if t == 0 {
			copy(g0, g)
		}
		for i := range delta {
			delta[i] -= eta * g[i]
		}
	}
	return delta, g0, floor, nil
}

// dist returns ‖a − b‖₂ for each of the rows (width d) of a and b.
func dist(a, b []float64, d int) []float64 {
	out := make([]float64, len(a)/d)
	for q := range out {
		var s float64
		for i := q * d; i < (q+1)*d; i++ {
			s += (a[i] - b[i]) * (a[i] - b[i])
		}
		out[q] = math.Sqrt(s)
	}
	return out
}

// stepRun is the outcome of the descents of both models at one step
// size: per query (3nq), the divergence, MrDAM's displacement, the bound
// of Theorem 1 and its log.
type stepRun struct {
	div, disp, bound, logBound []float64
	g0Mr, g0Dr                 []float64
	floor                      []bool
}

// runStep descends mr and dr from x0 at step eta for l steps and
// evaluates Theorem 1's bound per query with the parameters p (E₀ from
// e0).
func runStep(mr, dr dam.Model, x0, e0 []float64, d int, eta float64, l int, p metrics.BoundParams) (*stepRun, error) {
	dm, gm, _, err := deltaDescent(mr, x0, d, eta, l)
	if err != nil {
		return nil, fmt.Errorf("MrDAM: %w", err)
	}
	dd, gd, fl, err := deltaDescent(dr, x0, d, eta, l)
	if err != nil {
		return nil, fmt.Errorf("DrDAM: %w", err)
	}
	zero := make([]float64, len(dm))
	r := &stepRun{div: dist(dm, dd, d), disp: dist(dm, zero, d), g0Mr: gm, g0Dr: gd, floor: fl}
	for q := range e0 {
		p.E0 = e0[q]
		lb, err := metrics.LogTheorem1Bound(p, eta, l)
		if err != nil {
			lb = math.NaN()
		}
		// Theorem1Bound is exp(LogTheorem1Bound): one evaluation serves both.
		r.bound, r.logBound = append(r.bound, math.Exp(lb)), append(r.logBound, lb)
	}
	return r, nil
}

// logRatioMaxRows returns, per set, the row of the largest ln(divergence
// / bound) over its nq queries (NaN if no query has a positive
// divergence and a bound).
func logRatioMaxRows(key Key, metric string, r *stepRun, nq int) []Row {
	var rows []Row
	for s, set := range QuerySets() {
		m := math.NaN()
		for q := s * nq; q < (s+1)*nq; q++ {
			if lr := math.Log(r.div[q]) - r.logBound[q]; !math.IsNaN(lr) && !math.IsInf(lr, 0) && !(lr <= m) {
				m = lr
			}
		}
		rows = append(rows, Row{Seed: key.Seed, D: key.D, K: key.K, Y: key.Y, Beta: key.Beta, Basis: key.Basis, Projection: key.Projection,
			Queries: set, Metric: metric, Mean: m, Median: m, Count: nq})
	}
	return rows
}

// perSet returns the rows of metric summarizing v (3nq values: nq per
// query set) per set.
func perSet(key Key, metric string, v []float64, nq int) []Row {
	rows := make([]Row, len(QuerySets()))
	for s, set := range QuerySets() {
		rows[s] = summarize(key, set, metric, v[s*nq:(s+1)*nq], 1)
	}
	return rows
}

func divergenceTask(g *BinaryGrid, v Divergence, a arm, bd *binaryData, keys []Key, part partFunc) ([]Row, error) {
	d, k, y, nq := bd.d, bd.k, keys[0].Y, v.Queries
	x0 := bd.retrievalQueries(nq)
	betas := make([]float64, len(keys))
	for i, key := range keys {
		betas[i] = key.Beta
	}
	cfg := drdamConfig(a.kind, g.Basis, a.seed, y, d, g.Precision)
	proj, err := features.NewProjection(a.kind, cfg.Generator, a.seed, y, d)
	if err != nil {
		return nil, err
	}
	c1 := kernelSup(proj, divergencePairs(bd.stored, x0, d, k), d, betas)
	proj = nil
	sp := &sharedProjection{cfg: cfg}
	var rows []Row
	for ki, key := range keys {
		c1[ki] *= math.Sqrt(float64(y) / float64(d))
		rows = append(rows, Row{Seed: key.Seed, D: d, K: k, Y: y, Beta: key.Beta, Basis: key.Basis, Projection: key.Projection,
			Queries: Pairs, Metric: MetricC1, Mean: c1[ki], Median: c1[ki], Count: 1})
		kr, err := divergenceKey(sp, v, bd, key, x0, c1[ki])
		if err != nil {
			return nil, fmt.Errorf("%v: %w", key, err)
		}
		rows = append(rows, kr...)
		if err := part.report(float64(ki+1) / float64(len(keys))); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// divergenceKey measures one β: the rows of divergenceTask for key.
func divergenceKey(sp *sharedProjection, v Divergence, bd *binaryData, key Key, x0 []float64, c1 float64) ([]Row, error) {
	d, k, nq, l := bd.d, bd.k, v.Queries, v.Steps
	mr, err := mrdam(bd.stored, d, key.Beta)
	if err != nil {
		return nil, err
	}
	dr, err := sp.storing(key.Beta, bd.stored)
	if err != nil {
		return nil, err
	}
	e0 := make([]float64, len(x0)/d)
	if err := mr.EnergyGrad(e0, nil, x0); err != nil {
		return nil, fmt.Errorf("MrDAM: %w", err)
	}
	p := metrics.BoundParams{C1: c1, K: k, D: d, Y: key.Y, Beta: key.Beta}
	etaC, err := metrics.Corollary1Step(p, v.C2, l)
	if err != nil {
		return nil, err
	}
	cor, err := runStep(mr, dr, x0, e0, d, etaC, l, p)
	if err != nil {
		return nil, fmt.Errorf("at Corollary 1's step η = %g: %w", etaC, err)
	}
	user, err := runStep(mr, dr, x0, e0, d, v.Step, l, p)
	if err != nil {
		return nil, fmt.Errorf("step η = %g: %w", v.Step, err)
	}
	// The same descent at Corollary 1's step with x stored in float64.
	opt := dam.RecallOptions{Step: etaC, MaxSteps: l, KeepStalled: true}
	rm, err := dam.Recall(mr, x0, opt)
	if err != nil {
		return nil, fmt.Errorf("MrDAM float64 descent: %w", err)
	}
	rd, err := dam.Recall(dr, x0, opt)
	if err != nil {
		return nil, fmt.Errorf("DrDAM float64 descent: %w", err)
	}
	cb := make([]float64, len(e0))
	stalled := make([]float64, len(e0))
	for q := range e0 {
		p.E0 = e0[q]
		if cb[q], err = metrics.Corollary1Bound(p, v.C2); err != nil {
			cb[q] = math.NaN()
		}
		if cor.floor[q] || user.floor[q] {
			stalled[q] = 1
		}
	}
	rows := []Row{
		{Seed: key.Seed, D: d, K: k, Y: key.Y, Beta: key.Beta, Basis: key.Basis, Projection: key.Projection, Queries: Pairs, Metric: MetricStep, Mean: etaC, Median: etaC, Count: l},
		{Seed: key.Seed, D: d, K: k, Y: key.Y, Beta: key.Beta, Basis: key.Basis, Projection: key.Projection, Queries: Pairs, Metric: MetricStepUser, Mean: v.Step, Median: v.Step, Count: l},
	}
	add := func(metric string, vals []float64) { rows = append(rows, perSet(key, metric, vals, nq)...) }
	add(MetricGradient, dist(cor.g0Mr, cor.g0Dr, d))
	add(MetricDivergence, cor.div)
	add(MetricDivergenceFloat64, dist(rm.X, rd.X, d))
	add(MetricDisplacement, cor.disp)
	add(MetricTheorem1Bound, cor.bound)
	add(MetricCorollary1Bound, cb)
	rows = append(rows, logRatioMaxRows(key, MetricLogRatioMax, cor, nq)...)
	add(MetricDivergenceUser, user.div)
	add(MetricDisplacementUser, user.disp)
	add(MetricTheorem1BoundUser, user.bound)
	rows = append(rows, logRatioMaxRows(key, MetricLogRatioMaxUser, user, nq)...)
	add(MetricFloor, stalled)
	return rows, nil
}
