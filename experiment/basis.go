package experiment

import (
	"fmt"
	"math"
	"slices"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/rng"
	"github.com/drdam/drdam/metrics"
)

// BasisGrid is the grid of the basis ablation (Fig. 6, appendix): Stored
// data points are stored and New others serve as new patterns; for every
// basis, projection, Y and β, the errors of DrDAM's energies and
// gradients against MrDAM's are measured at both sets.
type BasisGrid struct {
	// Data is the N×D data set, already scaled into [0, 1/√D]^D
	// (datasets.NormalizeUnitBox); its rows must be distinct.
	Data        []float64
	D           int
	Stored, New int // the paper: 500 and 400
	Bases       []features.Basis
	Projections []features.ProjectionKind
	Betas       []float64
	Ys          []int
	Seed        uint64 // seed of the choice of points and of the projections
	Precision   dam.Precision
}

// BasisPlan returns the plan of the basis ablation. Stored+New rows of the
// data are drawn without replacement (seeded by Seed); the first Stored
// are stored. Rows have K = Stored and the query sets "stored" and "new".
func BasisPlan(g BasisGrid, rates Rates, done func(Key) bool) (*Plan, error) {
	if g.D <= 0 || len(g.Data) == 0 || len(g.Data)%g.D != 0 {
		return nil, fmt.Errorf("basis-ablation: %d values are not rows of dimension %d", len(g.Data), g.D)
	}
	n := len(g.Data) / g.D
	if g.Stored < 1 || g.New < 1 || g.Stored+g.New > n {
		return nil, fmt.Errorf("basis-ablation: %d stored + %d new points, but the data has %d rows", g.Stored, g.New, n)
	}
	if len(g.Bases) == 0 || len(g.Projections) == 0 || len(g.Betas) == 0 || len(g.Ys) == 0 {
		return nil, fmt.Errorf("basis-ablation: empty grid (%d bases, %d projections, %d β, %d Y)",
			len(g.Bases), len(g.Projections), len(g.Betas), len(g.Ys))
	}
	for i, v := range g.Data {
		if !(v >= 0 && v <= 1/math.Sqrt(float64(g.D))*(1+1e-12)) {
			return nil, fmt.Errorf("basis-ablation: data row %d, column %d is %v, outside [0, 1/√D] (normalize the data first)", i/g.D+1, i%g.D+1, v)
		}
	}
	pick := choose(g.Seed, n, g.Stored+g.New)
	d := g.D
	stored := make([]float64, 0, g.Stored*d)
	queries := make([]float64, 0, (g.Stored+g.New)*d)
	for i, r := range pick {
		row := g.Data[r*d : (r+1)*d]
		if i < g.Stored {
			stored = append(stored, row...)
		}
		queries = append(queries, row...)
	}
	refs := map[float64][2][]float64{}
	ref := func(beta float64) ([]float64, []float64, error) {
		if r, ok := refs[beta]; ok {
			return r[0], r[1], nil
		}
		e, gr, err := mrdamEnergyGrad(stored, queries, d, beta)
		if err != nil {
			return nil, nil, err
		}
		refs[beta] = [2][]float64{e, gr}
		return e, gr, nil
	}
	p := &Plan{Name: "basis-ablation"}
	nq := g.Stored + g.New
	for _, basis := range g.Bases {
		for _, kind := range g.Projections {
			for _, y := range g.Ys {
				var keys []Key
				for _, b := range g.Betas {
					key := Key{D: d, K: g.Stored, Y: y, Beta: b, Basis: basis.String(), Projection: kind.String()}
					if done == nil || !done(key) {
						keys = append(keys, key)
					}
				}
				p.Skipped += len(g.Betas) - len(keys)
				if len(keys) == 0 {
					continue
				}
				p.Tasks = append(p.Tasks, Task{
					Label: fmt.Sprintf("%v %v Y=%d", basis, kind, y),
					Keys:  keys,
					Cost:  rates.evalCost(kind, y, d, nq, 2*len(keys), 1) + rates.mrCost(g.Stored, d, nq, 1),
					run: func(part partFunc) ([]Row, error) {
						e, gr := make([]float64, nq), make([]float64, nq*d)
						var rows []Row
						sp := &sharedProjection{cfg: drdamConfig(kind, basis, g.Seed, y, d, g.Precision)}
						for ki, key := range keys {
							if err := part.report(float64(ki) / float64(len(keys))); err != nil {
								return nil, err
							}
							re, rg, err := ref(key.Beta)
							if err != nil {
								return nil, err
							}
							dr, err := sp.storing(key.Beta, stored)
							if err != nil {
								return nil, err
							}
							if err := dr.EnergyGrad(e, gr, queries); err != nil {
								return nil, fmt.Errorf("DrDAM %v: %w", key, err)
							}
							for _, s := range []struct {
								set    QuerySet
								lo, hi int
							}{{Stored, 0, g.Stored}, {New, g.Stored, nq}} {
								ee := make([]float64, s.hi-s.lo)
								for q := range ee {
									ee[q] = math.Abs(e[s.lo+q] - re[s.lo+q])
								}
								ge := make([]float64, s.hi-s.lo)
								metrics.GradErrors(ge, gr[s.lo*d:s.hi*d], rg[s.lo*d:s.hi*d], d)
								rows = append(rows, summarize(key, s.set, MetricEnergy, ee, 1), summarize(key, s.set, MetricGradient, ge, 1))
							}
						}
						return rows, nil
					},
				})
			}
		}
	}
	return p, nil
}

// choose returns k distinct indices of [0, n) in random order, drawn with
// a partial Fisher–Yates shuffle seeded by seed.
func choose(seed uint64, n, k int) []int {
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	var s rng.Stream
	s.Reset(seed, rng.StreamChoose)
	for i := range k {
		j := i + int(s.Uint64()%uint64(n-i))
		perm[i], perm[j] = perm[j], perm[i]
	}
	return slices.Clip(perm[:k])
}
