package experiment

import (
	"fmt"
	"math"
	"slices"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/metrics"
)

// QuerySet names where queries start: at the stored patterns, near them,
// or far from them.
type QuerySet string

// The query sets of §4.1.
const (
	At   QuerySet = "at"
	Near QuerySet = "near"
	Far  QuerySet = "far"
)

// QuerySets lists the query sets in the order the experiments use.
var QuerySets = []QuerySet{At, Near, Far}

// EnergyErrorConfig is the grid of an energy-error experiment.
type EnergyErrorConfig struct {
	K           int                       // stored patterns (the paper: 500)
	Ds          []int                     // pattern dimensions
	Betas       []float64                 // inverse temperatures
	Ys          []int                     // numbers of random projections
	Projections []features.ProjectionKind // Gaussian, Orthogonal, Structured
	Basis       features.Basis            // default SinCos
	Flip        float64                   // fraction of bits flipped for near queries (the paper: 0.1)
	Seed        uint64                    // seed of the patterns and of the first projection
	// Seeds is the number of independent projections (seeds Seed,
	// Seed+1, …) drawn for each (D, Y, projection kind); default 1. The
	// patterns and queries are the same for all of them.
	Seeds int
	// Control adds a second sample of iid Gaussian projections, drawn from
	// the seeds Seed+Seeds … Seed+2·Seeds−1 (points with Control set): the
	// ratio of its errors to the first iid sample's shows how far two
	// samples of the same kind of projection differ by chance alone.
	Control   bool
	Precision dam.Precision
}

// Point is one measurement: the errors |E − Ê| and ‖∇E − ∇Ê‖₂ of DrDAM
// against MrDAM over the Count = Seeds·K queries of one set.
//
// EnergyMAE and GradMAE are their means. EnergySE and GradSE are standard
// errors of those means: across the Seeds projections (the standard
// deviation of the per-projection means over √Seeds) when Seeds ≥ 2,
// which accounts for the queries sharing a projection; across the K
// queries when Seeds = 1. EnergyMedian and GradMedian are the medians of
// the same errors, which are robust to the rare queries whose φ(x)·T
// falls near the clip floor and whose gradient error is then huge.
type Point struct {
	D            int
	Beta         float64
	Y            int
	Projection   features.ProjectionKind
	Queries      QuerySet
	EnergyMAE    float64
	EnergySE     float64
	GradMAE      float64
	GradSE       float64
	EnergyMedian float64
	GradMedian   float64
	Seeds        int
	Count        int
	Control      bool // the control sample of iid projections (EnergyErrorConfig.Control)
}

func (c EnergyErrorConfig) seeds() int { return max(1, c.Seeds) }

// arm is one sample of projections: a kind and its first seed.
type arm struct {
	kind    features.ProjectionKind
	seed    uint64
	control bool
}

func (c EnergyErrorConfig) arms() []arm {
	var a []arm
	for _, k := range c.Projections {
		a = append(a, arm{kind: k, seed: c.Seed})
	}
	if c.Control {
		a = append(a, arm{kind: features.Gaussian, seed: c.Seed + uint64(c.seeds()), control: true})
	}
	return a
}

// Points returns the number of points the grid produces.
func (c EnergyErrorConfig) Points() int {
	return len(c.Ds) * len(c.Betas) * len(c.Ys) * len(c.arms()) * len(QuerySets)
}

// Evaluations returns the number of DrDAM evaluations (one per D, β, Y,
// projection sample and seed), the unit of EnergyError's progress.
func (c EnergyErrorConfig) Evaluations() int {
	return len(c.Ds) * len(c.Betas) * len(c.Ys) * len(c.arms()) * c.seeds()
}

// Progress reports that done of total units of work are finished; what
// names the last one.
type Progress func(done, total int, what string)

// EnergyError runs the experiment and returns its points, ordered by D,
// projection (the control sample last), Y, β and query set. progress, if not nil, is called after
// each DrDAM evaluation (Evaluations of them).
func EnergyError(c EnergyErrorConfig, progress Progress) ([]Point, error) {
	if c.K <= 0 || len(c.Ds) == 0 || len(c.Betas) == 0 || len(c.Ys) == 0 || len(c.Projections) == 0 {
		return nil, fmt.Errorf("energy-error: empty grid (K = %d, %d D, %d β, %d Y, %d projections)",
			c.K, len(c.Ds), len(c.Betas), len(c.Ys), len(c.Projections))
	}
	if c.Seeds < 0 {
		return nil, fmt.Errorf("energy-error: Seeds = %d, want ≥ 1", c.Seeds)
	}
	if c.Basis == 0 {
		c.Basis = features.SinCos
	}
	ns := c.seeds()
	var out []Point
	done, total := 0, c.Evaluations()
	for _, d := range c.Ds {
		sets, err := querySets(c, d)
		if err != nil {
			return nil, err
		}
		xi := sets[At]
		var all []float64
		for _, s := range QuerySets {
			all = append(all, sets[s]...)
		}
		nq := c.K
		nall := len(QuerySets) * nq
		// MrDAM at every β.
		type ref struct{ e, g []float64 }
		refs := map[float64]ref{}
		for _, beta := range c.Betas {
			e, g, err := mrdamEnergyGrad(xi, all, d, beta)
			if err != nil {
				return nil, err
			}
			refs[beta] = ref{e, g}
		}
		e, g := make([]float64, nall), make([]float64, nall*d)
		for _, am := range c.arms() {
			kind := am.kind
			for _, y := range c.Ys {
				// errs[β][set] holds the energy and gradient errors of all
				// seeds' queries, seed after seed.
				type acc struct{ ee, ge []float64 }
				errs := make([][]acc, len(c.Betas))
				for bi := range errs {
					errs[bi] = make([]acc, len(QuerySets))
				}
				for r := range ns {
					// One projection per (D, Y, kind, seed), shared by every
					// β: the orthogonal ones are expensive to generate.
					seed := am.seed + uint64(r)
					proj, err := features.NewProjection(kind, seed, y, d)
					if err != nil {
						return nil, err
					}
					bias := features.NewBias(seed, y)
					for bi, beta := range c.Betas {
						fm, err := features.NewMap(c.Basis, beta, proj, bias)
						if err != nil {
							return nil, err
						}
						dr, err := dam.NewDrDAMWithMap(dam.Config{Precision: c.Precision}, fm)
						if err != nil {
							return nil, err
						}
						if err := dr.Add(xi); err != nil {
							return nil, err
						}
						if err := dr.EnergyGrad(e, g, all); err != nil {
							return nil, fmt.Errorf("DrDAM D=%d β=%g Y=%d %v seed %d: %w", d, beta, y, kind, seed, err)
						}
						rf := refs[beta]
						for si := range QuerySets {
							a := &errs[bi][si]
							for q := range nq {
								i := si*nq + q
								a.ee = append(a.ee, math.Abs(e[i]-rf.e[i]))
							}
							n0 := len(a.ge)
							a.ge = slices.Grow(a.ge, nq)[:n0+nq]
							metrics.GradErrors(a.ge[n0:], g[si*nq*d:(si+1)*nq*d], rf.g[si*nq*d:(si+1)*nq*d], d)
						}
						done++
						if progress != nil {
							progress(done, total, fmt.Sprintf("D=%d %v Y=%d seed %d β=%g", d, kind, y, seed, beta))
						}
					}
				}
				for bi, beta := range c.Betas {
					for si, set := range QuerySets {
						a := errs[bi][si]
						p := Point{D: d, Beta: beta, Y: y, Projection: kind, Queries: set, Seeds: ns, Count: len(a.ee), Control: am.control}
						p.EnergyMAE, p.EnergySE = meanSE(a.ee, ns)
						p.GradMAE, p.GradSE = meanSE(a.ge, ns)
						p.EnergyMedian, p.GradMedian = metrics.Median(a.ee), metrics.Median(a.ge)
						out = append(out, p)
					}
				}
			}
		}
	}
	return out, nil
}

// meanSE returns the mean of v, the values of ns equal groups in order,
// and its standard error: across the groups' means if ns ≥ 2, else across
// the values.
func meanSE(v []float64, ns int) (mean, se float64) {
	if ns < 2 {
		return metrics.MeanStdErr(v)
	}
	n := len(v) / ns
	means := make([]float64, ns)
	for r := range ns {
		means[r], _ = metrics.MeanStdErr(v[r*n : (r+1)*n])
	}
	return metrics.MeanStdErr(means)
}

// querySets returns the K stored patterns ("at"), the same with a fraction
// Flip of their bits flipped ("near"), and K fresh patterns distinct from
// the stored ones ("far"), each K×D.
func querySets(c EnergyErrorConfig, d int) (map[QuerySet][]float64, error) {
	at, near, far, err := binarySets(c.Seed, c.K, d, c.Flip)
	if err != nil {
		return nil, err
	}
	return map[QuerySet][]float64{At: at, Near: near, Far: far}, nil
}
