package experiment

import (
	"fmt"
	"math"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/metrics"
	"github.com/drdam/drdam/synth"
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

// EnergyErrorConfig is the grid of an energy-error experiment.
type EnergyErrorConfig struct {
	K           int                       // stored patterns (the paper: 500)
	Ds          []int                     // pattern dimensions
	Betas       []float64                 // inverse temperatures
	Ys          []int                     // numbers of random projections
	Projections []features.ProjectionKind // Gaussian, Orthogonal, Structured
	Basis       features.Basis            // default SinCos
	Flip        float64                   // fraction of bits flipped for near queries (the paper: 0.1)
	Seed        uint64
	Precision   dam.Precision
}

// Point is one measurement: the mean and standard error, over the Count
// queries of one set, of |E − Ê| and ‖∇E − ∇Ê‖.
type Point struct {
	D          int
	Beta       float64
	Y          int
	Projection features.ProjectionKind
	Queries    QuerySet
	EnergyMAE  float64
	EnergySE   float64
	GradMAE    float64
	GradSE     float64
	Count      int
}

// Points returns the number of points the grid produces.
func (c EnergyErrorConfig) Points() int {
	return len(c.Ds) * len(c.Betas) * len(c.Ys) * len(c.Projections) * 3
}

// EnergyError runs the experiment. progress, if not nil, is called after
// each point with the points done so far and the total.
func EnergyError(c EnergyErrorConfig, progress func(done, total int, p Point)) ([]Point, error) {
	if c.K <= 0 || len(c.Ds) == 0 || len(c.Betas) == 0 || len(c.Ys) == 0 || len(c.Projections) == 0 {
		return nil, fmt.Errorf("energy-error: empty grid (K = %d, %d D, %d β, %d Y, %d projections)",
			c.K, len(c.Ds), len(c.Betas), len(c.Ys), len(c.Projections))
	}
	if c.Basis == 0 {
		c.Basis = features.SinCos
	}
	var out []Point
	total := c.Points()
	for _, d := range c.Ds {
		sets, err := querySets(c, d)
		if err != nil {
			return nil, err
		}
		xi := sets[At]
		all := append(append(append([]float64(nil), sets[At]...), sets[Near]...), sets[Far]...)
		nq := c.K
		// MrDAM at every β.
		type ref struct{ e, g []float64 }
		refs := map[float64]ref{}
		for _, beta := range c.Betas {
			mr, err := dam.NewMrDAM(dam.Config{D: d, Beta: beta, Precision: dam.Float64})
			if err != nil {
				return nil, err
			}
			if err := mr.Add(xi); err != nil {
				return nil, err
			}
			e, g := make([]float64, 3*nq), make([]float64, 3*nq*d)
			if err := mr.EnergyGrad(e, g, all); err != nil {
				return nil, fmt.Errorf("MrDAM D=%d β=%g: %w", d, beta, err)
			}
			refs[beta] = ref{e, g}
		}
		for _, kind := range c.Projections {
			for _, y := range c.Ys {
				// One projection per (D, Y, kind), shared by every β: the
				// orthogonal ones are expensive to generate.
				proj, err := features.New(kind, c.Seed, y, d)
				if err != nil {
					return nil, err
				}
				bias := features.NewBias(c.Seed, y)
				for _, beta := range c.Betas {
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
					e, g := make([]float64, 3*nq), make([]float64, 3*nq*d)
					if err := dr.EnergyGrad(e, g, all); err != nil {
						return nil, fmt.Errorf("DrDAM D=%d β=%g Y=%d %v: %w", d, beta, y, kind, err)
					}
					r := refs[beta]
					for si, set := range []QuerySet{At, Near, Far} {
						p := Point{D: d, Beta: beta, Y: y, Projection: kind, Queries: set, Count: nq}
						ee, ge := make([]float64, nq), make([]float64, nq)
						for q := range nq {
							i := si*nq + q
							ee[q] = math.Abs(e[i] - r.e[i])
						}
						metrics.GradErrors(ge, g[si*nq*d:(si+1)*nq*d], r.g[si*nq*d:(si+1)*nq*d], d)
						p.EnergyMAE, p.EnergySE = metrics.MeanStdErr(ee)
						p.GradMAE, p.GradSE = metrics.MeanStdErr(ge)
						out = append(out, p)
						if progress != nil {
							progress(len(out), total, p)
						}
					}
				}
			}
		}
	}
	return out, nil
}

// querySets returns the K stored patterns ("at"), the same with a fraction
// Flip of their bits flipped ("near"), and K fresh patterns distinct from
// the stored ones ("far"), each K×D.
func querySets(c EnergyErrorConfig, d int) (map[QuerySet][]float64, error) {
	both, err := synth.Binary(c.Seed, 2*c.K, d)
	if err != nil {
		return nil, err
	}
	at, far := both[:c.K*d], both[c.K*d:]
	near, err := synth.Flip(c.Seed+1, at, d, c.Flip)
	if err != nil {
		return nil, err
	}
	return map[QuerySet][]float64{At: at, Near: near, Far: far}, nil
}
