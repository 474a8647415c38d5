package experiment

import (
	"fmt"
	"math"
	"slices"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/metrics"
	"github.com/drdam/drdam/synth"
)

// BinaryGrid is the grid of the experiments on random binary patterns:
// energy-error (Fig. 3, §4.1), retrieval-error (Fig. 4A, §4.2) and
// error-vs-k (Fig. 5, appendix). For each D and K, K unique patterns in
// {0, 1/√D}^D are stored; the queries are the stored patterns ("at"), the
// same with a fraction Flip of their bits flipped ("near") and K fresh
// patterns distinct from the stored ones ("far"). The stored patterns for
// a smaller K are the first rows of those for a larger one.
type BinaryGrid struct {
	Ds, Ks []int     // pattern dimensions and numbers of stored patterns
	Betas  []float64 // inverse temperatures
	Ys     []int     // numbers of random projections
	// Projections is the projection axis (default Gaussian alone): every
	// configuration is measured with each kind, on the same patterns and
	// queries.
	Projections []features.ProjectionKind
	Basis       features.Basis // default SinCos
	Flip        float64        // fraction of bits flipped for near queries (the paper: 0.1)
	Seed        uint64         // seed of the patterns and of the first projection
	// Seeds is the number of independent projections (seeds Seed, Seed+1,
	// …) per configuration, default 1. The errors pool the queries of
	// every seed; standard errors are then taken across the seeds' means,
	// which accounts for the queries sharing a projection (see Row).
	Seeds int
	// Control adds (energy-error only) a second sample of iid Gaussian
	// projections, from the seeds Seed+Seeds … Seed+2·Seeds−1, whose rows
	// have the projection ControlProjection: the ratio of its errors to
	// the first Gaussian sample's shows how far two samples of the same
	// kind differ by chance alone, the yardstick for comparing kinds.
	Control bool
	// Bound adds (energy-error with SinCos features only) the rows of the
	// bound of Corollary 1: C₁ measured on each sample's first projection
	// (MetricC1) and the bound at every query set (MetricBound).
	Bound     bool
	Precision dam.Precision // of DrDAM; MrDAM is always float64
}

// ControlProjection is the projection label of the rows of the control
// sample (BinaryGrid.Control).
const ControlProjection = "gaussian (control)"

// arm is one sample of projections: a kind, its first seed and the label
// of its rows.
type arm struct {
	kind  features.ProjectionKind
	seed  uint64
	label string
}

// arms returns the samples of projections of the grid: one per kind, then
// the control sample.
func (g *BinaryGrid) arms() []arm {
	var a []arm
	for _, k := range g.Projections {
		a = append(a, arm{kind: k, seed: g.Seed, label: k.String()})
	}
	if g.Control {
		a = append(a, arm{kind: features.Gaussian, seed: g.Seed + uint64(max(1, g.Seeds)), label: ControlProjection})
	}
	return a
}

// Retrieval configures the descents of retrieval-error (§4.2): x ← x −
// η∇E from each query until |E(x^t) − E(x^(t−1))| < Tol or MaxSteps
// steps, for MrDAM and DrDAM alike.
type Retrieval struct {
	Queries  int     // queries per set: the first Queries of the K (0: all K)
	Step     float64 // η (the paper's code: 0.03)
	MaxSteps int     // L (the paper's code: 1000)
	Tol      float64 // convergence threshold on the energy change, 0 for none
}

func (g *BinaryGrid) check(name string) error {
	if len(g.Ds) == 0 || len(g.Ks) == 0 || len(g.Betas) == 0 || len(g.Ys) == 0 {
		return fmt.Errorf("%s: empty grid (%d D, %d K, %d β, %d Y)", name, len(g.Ds), len(g.Ks), len(g.Betas), len(g.Ys))
	}
	for _, k := range g.Ks {
		for _, d := range g.Ds {
			if d < 63 && float64(2*k) > math.Exp2(float64(d)) {
				return fmt.Errorf("%s: K = %d needs %d distinct patterns, more than the 2^%d of dimension D = %d", name, k, 2*k, d, d)
			}
		}
	}
	if !(g.Flip >= 0 && g.Flip <= 1) {
		return fmt.Errorf("%s: flip fraction %v outside [0, 1]", name, g.Flip)
	}
	if g.Seeds < 0 {
		return fmt.Errorf("%s: Seeds = %d, want ≥ 1", name, g.Seeds)
	}
	if g.Basis == 0 {
		g.Basis = features.SinCos
	}
	if len(g.Projections) == 0 {
		g.Projections = []features.ProjectionKind{features.Gaussian}
	}
	for i, k := range g.Projections {
		if slices.Contains(g.Projections[:i], k) {
			return fmt.Errorf("%s: projection %v listed twice", name, k)
		}
	}
	// The largest configuration must fit the memory budget: its patterns
	// and query sets (about 6·K·D values), MrDAM and the largest DrDAM.
	d, k, y := slices.Max(g.Ds), slices.Max(g.Ks), slices.Max(g.Ys)
	if d <= 0 || k <= 0 || y <= 0 {
		return fmt.Errorf("%s: D, K and Y must be positive, found D = %d, K = %d, Y = %d", name, slices.Min(g.Ds), slices.Min(g.Ks), slices.Min(g.Ys))
	}
	parts := []dam.Footprint{
		dam.DataFootprint(fmt.Sprintf("the patterns and queries (6·K·D values, K = %d, D = %d)", k, d), 6*float64(k)*float64(d), "K"),
		dam.EstimateFootprint(dam.Config{Rep: dam.RepMrDAM, D: d, Beta: 1}, k),
	}
	for _, kind := range g.Projections {
		parts = append(parts, dam.EstimateFootprint(drdamConfig(kind, g.Basis, g.Seed, y, d, g.Precision), 0))
	}
	if err := dam.CheckFits(0, parts...); err != nil {
		return fmt.Errorf("%s: the largest configuration %w", name, err)
	}
	return nil
}

// binaryData is the patterns and queries of one (D, K), with MrDAM's
// energies and gradients (or fixed points) at them per β.
type binaryData struct {
	d, k    int
	stored  []float64 // K×D
	queries []float64 // at, near, far, guess: 4K×D
	refE    map[float64][]float64
	refG    map[float64][]float64
	fixed   map[float64][]float64 // retrieval: MrDAM's fixed points from the at, near and far queries
}

// binaryQuerySets are the sets of binaryData.queries, in order.
var binaryQuerySets = []QuerySet{At, Near, Far, Guess}

func newBinaryData(g *BinaryGrid, d, k int) (*binaryData, error) {
	at, near, far, err := binarySets(g.Seed, k, d, g.Flip)
	if err != nil {
		return nil, err
	}
	// The random guess of §4.1: fresh random queries, independent of the
	// stored ones (they may coincide with one).
	guess, err := synth.Binary(g.Seed+2, k, d)
	if err != nil {
		return nil, err
	}
	q := slices.Concat(at, near, far, guess)
	return &binaryData{d: d, k: k, stored: at, queries: q, refE: map[float64][]float64{}, refG: map[float64][]float64{},
		fixed: map[float64][]float64{}}, nil
}

// binarySets returns the query sets of §4.1 for seed: K unique binary
// patterns ("at", the stored ones), the same with a fraction flip of their
// bits flipped ("near"), and K fresh patterns distinct from them ("far"),
// each K×D.
func binarySets(seed uint64, k, d int, flip float64) (at, near, far []float64, err error) {
	both, err := synth.Binary(seed, 2*k, d)
	if err != nil {
		return nil, nil, nil, err
	}
	at, far = both[:k*d], both[k*d:]
	near, err = synth.Flip(seed+1, at, d, flip)
	if err != nil {
		return nil, nil, nil, err
	}
	return at, near, far, nil
}

// mrdam returns a float64 MrDAM of inverse temperature beta storing the
// patterns (K×D): the reference the experiments measure DrDAM against.
func mrdam(patterns []float64, d int, beta float64) (*dam.MrDAM, error) {
	mr, err := dam.NewMrDAM(dam.Config{D: d, Beta: beta, Precision: dam.Float64})
	if err != nil {
		return nil, err
	}
	if err := mr.Add(patterns); err != nil {
		return nil, err
	}
	return mr, nil
}

// mrdamEnergyGrad returns the energies and gradients of mrdam(patterns, d,
// beta) at the queries (B×D).
func mrdamEnergyGrad(patterns, queries []float64, d int, beta float64) (e, g []float64, err error) {
	mr, err := mrdam(patterns, d, beta)
	if err != nil {
		return nil, nil, err
	}
	e, g = make([]float64, len(queries)/d), make([]float64, len(queries))
	if err := mr.EnergyGrad(e, g, queries); err != nil {
		return nil, nil, fmt.Errorf("MrDAM D=%d β=%g: %w", d, beta, err)
	}
	return e, g, nil
}

// ref returns MrDAM's energies and gradients at the 4K queries.
func (bd *binaryData) ref(beta float64) ([]float64, []float64, error) {
	if e, ok := bd.refE[beta]; ok {
		return e, bd.refG[beta], nil
	}
	e, g, err := mrdamEnergyGrad(bd.stored, bd.queries, bd.d, beta)
	if err != nil {
		return nil, nil, err
	}
	bd.refE[beta], bd.refG[beta] = e, g
	return e, g, nil
}

// dataCache holds the data of the last (D, K) used, so that the tasks of
// one (D, K), which run in a row, share it.
type dataCache struct {
	g  *BinaryGrid
	bd *binaryData
}

func (c *dataCache) get(d, k int) (*binaryData, error) {
	if c.bd == nil || c.bd.d != d || c.bd.k != k {
		c.bd = nil
		bd, err := newBinaryData(c.g, d, k)
		if err != nil {
			return nil, err
		}
		c.bd = bd
	}
	return c.bd, nil
}

// pendingBetas returns the β values of the grid whose key for (d, k, y)
// and the projection sample a is not done.
func (g *BinaryGrid) pendingBetas(d, k, y int, a arm, done func(Key) bool) []Key {
	var keys []Key
	for _, b := range g.Betas {
		key := Key{D: d, K: k, Y: y, Beta: b, Basis: g.Basis.String(), Projection: a.label}
		if done == nil || !done(key) {
			keys = append(keys, key)
		}
	}
	return keys
}

// EnergyPlan returns the plan of the energy-error experiment (Fig. 3;
// with one Y and several K, Fig. 5): for every (D, K, Y, β) and projection
// sample, the errors |E − Ê| and ‖∇E − ∇Ê‖₂ of DrDAM against MrDAM at the
// at, near and far queries, and at the random guess (MrDAM at the stored
// patterns against DrDAM at fresh random queries, §4.1); with Bound and
// SinCos features, also the bound of Corollary 1 with C₁ measured
// (MetricBound, MetricC1). Configurations for which done returns true are left out; done
// may be nil. Each task generates its projection once per seed and shares
// it across β (dam.DrDAM.WithBeta).
func EnergyPlan(g BinaryGrid, rates Rates, done func(Key) bool) (*Plan, error) {
	if err := g.check("energy-error"); err != nil {
		return nil, err
	}
	ns := max(1, g.Seeds)
	return g.plan("energy-error", done, func(t binaryTask) float64 {
		return rates.evalCost(t.a.kind, t.y, t.d, 4*t.k, 2*len(t.keys)*ns, ns) + rates.mrCost(t.k, t.d, 4*t.k, len(t.keys))
	}, func(t binaryTask, bd *binaryData, part partFunc) ([]Row, error) {
		return energyTask(&g, t.a, bd, t.keys, ns, part)
	}), nil
}

// binaryTask is one task of a binary grid: the β left to do at one (D, K,
// projection sample, Y).
type binaryTask struct {
	d, k, y int
	a       arm
	keys    []Key
}

// plan returns the plan of the grid: a task for every (D, K, projection
// sample, Y) with β left to do, in that order, whose estimated cost and
// work are cost and run (with the data of its (D, K)).
func (g *BinaryGrid) plan(name string, done func(Key) bool, cost func(binaryTask) float64,
	run func(t binaryTask, bd *binaryData, part partFunc) ([]Row, error)) *Plan {
	cache := &dataCache{g: g}
	p := &Plan{Name: name}
	for _, d := range g.Ds {
		for _, k := range g.Ks {
			for _, a := range g.arms() {
				for _, y := range g.Ys {
					t := binaryTask{d: d, k: k, y: y, a: a, keys: g.pendingBetas(d, k, y, a, done)}
					p.Skipped += len(g.Betas) - len(t.keys)
					if len(t.keys) == 0 {
						continue
					}
					p.Tasks = append(p.Tasks, Task{Label: taskLabel(d, k, y, a, len(g.arms())), Keys: t.keys, Cost: cost(t),
						run: func(part partFunc) ([]Row, error) {
							bd, err := cache.get(d, k)
							if err != nil {
								return nil, err
							}
							return run(t, bd, part)
						}})
				}
			}
		}
	}
	return p
}

// taskLabel names a task of the binary grids; the projection sample is
// named only when there are several.
func taskLabel(d, k, y int, a arm, arms int) string {
	l := fmt.Sprintf("D=%d K=%d Y=%d", d, k, y)
	if arms > 1 {
		l += " " + a.label
	}
	return l
}

// sharedProjection makes DrDAMs at several β that share one projection:
// base, made by dam.NewDrDAM at the first β, holds the projection and is
// never evaluated, so that it holds no workspace either; every DrDAM
// handed out is made by its WithBeta.
type sharedProjection struct {
	cfg  dam.Config
	base *dam.DrDAM
}

// at returns an empty DrDAM at beta on the shared projection.
func (s *sharedProjection) at(beta float64) (*dam.DrDAM, error) {
	if s.base == nil {
		c := s.cfg
		c.Beta = beta
		base, err := dam.NewDrDAM(c)
		if err != nil {
			return nil, err
		}
		s.base = base
	}
	return s.base.WithBeta(beta)
}

// storing returns a DrDAM at beta on the shared projection storing
// patterns.
func (s *sharedProjection) storing(beta float64, patterns []float64) (*dam.DrDAM, error) {
	dr, err := s.at(beta)
	if err != nil {
		return nil, err
	}
	if err := dr.Add(patterns); err != nil {
		return nil, err
	}
	return dr, nil
}

// drdamConfig returns the configuration of the DrDAMs of a grid (β is set
// per key).
func drdamConfig(kind features.ProjectionKind, basis features.Basis, seed uint64, y, d int, prec dam.Precision) dam.Config {
	return dam.Config{Rep: dam.RepDrDAM, D: d, Y: y, Basis: basis, Projection: kind, Generator: features.DefaultGenerator, Seed: seed, Precision: prec}
}

// errAcc accumulates the errors of one query set, seed after seed.
type errAcc struct{ ee, ge []float64 }

// add appends the energy and gradient errors of the k queries of a set:
// e and g are DrDAM's energies and gradients (k and k×D), re and rg
// MrDAM's.
func (a *errAcc) add(e, g, re, rg []float64, d int) {
	k := len(e)
	for q := range k {
		a.ee = append(a.ee, math.Abs(e[q]-re[q]))
	}
	n0 := len(a.ge)
	a.ge = slices.Grow(a.ge, k)[:n0+k]
	metrics.GradErrors(a.ge[n0:], g, rg, d)
}

func energyTask(g *BinaryGrid, a arm, bd *binaryData, keys []Key, ns int, part partFunc) ([]Row, error) {
	d, k := bd.d, bd.k
	n := len(bd.queries) / d
	e, gr := make([]float64, n), make([]float64, n*d)
	// C₁ of the bound of Corollary 1, measured on the first seed's
	// projection (SinCos only: its kernel estimate is a sum of cosines).
	var c1 []float64
	if g.Bound && g.Basis == features.SinCos {
		proj, err := features.NewProjection(a.kind, drdamConfig(a.kind, g.Basis, a.seed, keys[0].Y, d, g.Precision).Generator, a.seed, keys[0].Y, d)
		if err != nil {
			return nil, err
		}
		betas := make([]float64, len(keys))
		for i, key := range keys {
			betas[i] = key.Beta
		}
		c1 = kernelSup(proj, bd.pairDiffs(), d, betas)
		for i := range c1 {
			c1[i] *= math.Sqrt(float64(keys[0].Y) / float64(d))
		}
	}
	errs := make([][]errAcc, len(keys)) // errs[key][set]
	for i := range errs {
		errs[i] = make([]errAcc, len(binaryQuerySets))
	}
	for r := range ns {
		seed := a.seed + uint64(r)
		sp := &sharedProjection{cfg: drdamConfig(a.kind, g.Basis, seed, keys[0].Y, d, g.Precision)}
		for ki, key := range keys {
			refE, refG, err := bd.ref(key.Beta)
			if err != nil {
				return nil, err
			}
			dr, err := sp.storing(key.Beta, bd.stored)
			if err != nil {
				return nil, err
			}
			if err := dr.EnergyGrad(e, gr, bd.queries); err != nil {
				return nil, fmt.Errorf("DrDAM %v seed %d: %w", key, seed, err)
			}
			for s, set := range binaryQuerySets {
				// The guess compares MrDAM at the stored patterns (set 0)
				// with DrDAM at the random queries.
				rs := s
				if set == Guess {
					rs = 0
				}
				errs[ki][s].add(e[s*k:(s+1)*k], gr[s*k*d:(s+1)*k*d], refE[rs*k:(rs+1)*k], refG[rs*k*d:(rs+1)*k*d], d)
			}
			if err := part.report(float64(r*len(keys)+ki+1) / float64(ns*len(keys))); err != nil {
				return nil, err
			}
		}
	}
	var rows []Row
	for ki, key := range keys {
		for s, set := range binaryQuerySets {
			a := errs[ki][s]
			rows = append(rows, summarize(key, set, MetricEnergy, a.ee, ns), summarize(key, set, MetricGradient, a.ge, ns))
		}
		if c1 != nil {
			refE, _, err := bd.ref(key.Beta)
			if err != nil {
				return nil, err
			}
			rows = append(rows, boundRows(key, c1[ki], refE, k)...)
		}
	}
	return rows, nil
}

// RetrievalPlan returns the plan of the retrieval-error experiment
// (Fig. 4A, §4.2): for every (D, K, Y, β) and projection, MrDAM and DrDAM
// descend from the same at, near and far queries; the row is the mean
// normalized Hamming error Δ_H between their binarized fixed points, and
// a MetricMrRecall row says whether MrDAM keeps the stored patterns.
// MrDAM's fixed points are computed once per (D, K, β).
func RetrievalPlan(g BinaryGrid, r Retrieval, rates Rates, done func(Key) bool) (*Plan, error) {
	if err := g.check("retrieval-error"); err != nil {
		return nil, err
	}
	if !(r.Step > 0) || r.MaxSteps < 1 || r.Tol < 0 || r.Queries < 0 {
		return nil, fmt.Errorf("retrieval-error: step %v, %d steps, tolerance %v, %d queries: want a positive step and steps, a tolerance ≥ 0 and queries ≥ 0",
			r.Step, r.MaxSteps, r.Tol, r.Queries)
	}
	if g.Control {
		return nil, fmt.Errorf("retrieval-error: no control sample (it belongs to energy-error)")
	}
	ns := max(1, g.Seeds)
	queries := func(k int) int {
		if r.Queries > 0 {
			return min(k, r.Queries)
		}
		return k
	}
	type mrKey struct {
		d, k int
		beta float64
	}
	mrDone := map[mrKey]bool{} // MrDAM's descents are costed with the first task that needs them
	return g.plan("retrieval-error", done, func(t binaryTask) float64 {
		nq := queries(t.k)
		cost := rates.evalCost(t.a.kind, t.y, t.d, 3*nq, len(t.keys)*ns*(r.MaxSteps+1), ns)
		for _, key := range t.keys {
			if mk := (mrKey{t.d, t.k, key.Beta}); !mrDone[mk] {
				mrDone[mk] = true
				cost += rates.mrCost(t.k, t.d, 3*nq, r.MaxSteps+1)
			}
		}
		return cost
	}, func(t binaryTask, bd *binaryData, part partFunc) ([]Row, error) {
		return retrievalTask(&g, r, t.a, bd, t.keys, queries(t.k), ns, part)
	}), nil
}

// retrievalQueries returns the first nq queries of the at, near and far
// sets, 3nq×D.
func (bd *binaryData) retrievalQueries(nq int) []float64 {
	d, k := bd.d, bd.k
	var x []float64
	for s := range 3 {
		x = append(x, bd.queries[s*k*d:(s*k+nq)*d]...)
	}
	return x
}

// mrFixed returns MrDAM's fixed points from the queries x0 at beta,
// computed once per β.
func (bd *binaryData) mrFixed(beta float64, x0 []float64, opt dam.RecallOptions) ([]float64, error) {
	if ref, ok := bd.fixed[beta]; ok {
		return ref, nil
	}
	mr, err := mrdam(bd.stored, bd.d, beta)
	if err != nil {
		return nil, err
	}
	res, err := dam.Recall(mr, x0, opt)
	if err != nil {
		return nil, fmt.Errorf("MrDAM D=%d β=%g: %w", bd.d, beta, err)
	}
	bd.fixed[beta] = res.X
	return res.X, nil
}

func retrievalTask(g *BinaryGrid, r Retrieval, a arm, bd *binaryData, keys []Key, nq, ns int, part partFunc) ([]Row, error) {
	d := bd.d
	x0 := bd.retrievalQueries(nq)
	opt := dam.RecallOptions{Step: r.Step, MaxSteps: r.MaxSteps, Tol: r.Tol}
	h := make([][3][]float64, len(keys))  // h[key][set]: Δ_H of each query, seed after seed
	st := make([][3][]float64, len(keys)) // 1 where DrDAM's descent stalled at the clip floor
	mv := make([][3][]float64, len(keys)) // Δ_H of the queries whose descent did not stall
	for rr := range ns {
		seed := a.seed + uint64(rr)
		sp := &sharedProjection{cfg: drdamConfig(a.kind, g.Basis, seed, keys[0].Y, d, g.Precision)}
		for ki, key := range keys {
			ref, err := bd.mrFixed(key.Beta, x0, opt)
			if err != nil {
				return nil, err
			}
			dr, err := sp.storing(key.Beta, bd.stored)
			if err != nil {
				return nil, err
			}
			var stop error // the first error of part: the task stops after the descent
			res, err := descend(dr, x0, opt, func(t int) {
				if err := part.report((float64(rr*len(keys)+ki) + float64(t)/float64(r.MaxSteps)) / float64(len(keys)*ns)); err != nil && stop == nil {
					stop = err
				}
			})
			if err != nil {
				return nil, fmt.Errorf("DrDAM %v seed %d: %w", key, seed, err)
			}
			if stop != nil {
				return nil, stop
			}
			for s := range 3 {
				for q := range nq {
					i := (s*nq + q) * d
					dh := metrics.Hamming(ref[i:i+d], res.X[i:i+d])
					h[ki][s] = append(h[ki][s], dh)
					stalled := 0.0
					if res.Outcome[s*nq+q] == dam.Stalled {
						stalled = 1
					} else {
						mv[ki][s] = append(mv[ki][s], dh)
					}
					st[ki][s] = append(st[ki][s], stalled)
				}
			}
		}
	}
	var rows []Row
	for ki, key := range keys {
		for s, set := range QuerySets() {
			// The moved queries are fewer than nq·ns and not in equal
			// groups per projection seed: their s.e. is across queries.
			rows = append(rows, summarize(key, set, MetricHamming, h[ki][s], ns), summarize(key, set, MetricStalled, st[ki][s], ns),
				summarize(key, set, MetricHammingMoved, mv[ki][s], 1))
		}
		ref := bd.fixed[key.Beta]
		mr := make([]float64, nq)
		for q := range nq {
			mr[q] = metrics.Hamming(ref[q*d:(q+1)*d], bd.stored[q*d:(q+1)*d])
		}
		rows = append(rows, summarize(key, At, MetricMrRecall, mr, 1))
	}
	return rows, nil
}

// descend runs the descent of m from x0, calling step (every 10 steps)
// with the number of steps taken.
func descend(m dam.Model, x0 []float64, opt dam.RecallOptions, step func(t int)) (*dam.Result, error) {
	ds, err := dam.NewDescent(m, opt)
	if err != nil {
		return nil, err
	}
	if err := ds.Start(x0); err != nil {
		return nil, err
	}
	for {
		done, err := ds.Step()
		if err != nil {
			return nil, err
		}
		if done {
			return ds.Result(), nil
		}
		if t := ds.Iteration(); t%10 == 0 {
			step(t)
		}
	}
}
