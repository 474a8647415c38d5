package experiment

import (
	"math"

	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/metrics"
)

// The metrics of the bound of Corollary 1 (eq. lrate-div-ub).
const (
	// MetricBound is the right side of eq. lrate-div-ub, averaged over
	// the queries of a set, with C₂ = ½ and C₁ from MetricC1.
	MetricBound = "bound"
	// MetricC1 is the constant C₁ of assumption (A2) measured on the
	// projection: the largest |k(x, x′) − φ(x)·φ(x′)|·√(Y/D) over pairs of
	// a stored pattern and a query (Queries is Pairs).
	MetricC1 = "c1"
)

// Pairs is the query set of MetricC1 rows.
const Pairs QuerySet = "pairs"

// boundC2 is the C₂ of Corollary 1: the step η = C₂/(L(1 + 2Kβe^{β/2}))
// of which the bound holds. The paper does not give its value; with ½,
// C₂/(1 − C₂) = 1.
const boundC2 = 0.5

// kernelSup returns, for each β, the largest |k(x, x′) − φ(x)·φ(x′)| over
// the P pairs whose differences x − x′ are the rows of diffs (P×D), for
// SinCos features on proj: φ(x)·φ(x′) = (1/Y) Σ_j cos(√β·w_j·(x − x′))
// (the random shift cancels) and k = exp(−β/2·‖x − x′‖²).
func kernelSup(proj features.Projection, diffs []float64, d int, betas []float64) []float64 {
	y, _ := proj.Dims()
	p := len(diffs) / d
	const block = 1024
	h := make([]float64, p*block)
	sums := make([]float64, len(betas)*p)
	for lo := 0; lo < y; lo += block {
		hi := min(y, lo+block)
		n := hi - lo
		hb := h[:p*n]
		proj.Project(hb, diffs, lo, hi)
		for bi, beta := range betas {
			rb := math.Sqrt(beta)
			for i := range p {
				var s float64
				for _, v := range hb[i*n : (i+1)*n] {
					s += math.Cos(rb * v)
				}
				sums[bi*p+i] += s
			}
		}
	}
	out := make([]float64, len(betas))
	for bi, beta := range betas {
		for i := range p {
			var sq float64
			for _, v := range diffs[i*d : (i+1)*d] {
				sq += v * v
			}
			e := math.Abs(math.Exp(-beta/2*sq) - sums[bi*p+i]/float64(y))
			out[bi] = max(out[bi], e)
		}
	}
	return out
}

// boundPairs is the number of stored patterns and of queries of each set
// whose pairs measure C₁.
const boundPairs = 8

// pairDiffs returns the differences between the first boundPairs stored
// patterns and the first boundPairs queries of the at, near and far sets.
func (bd *binaryData) pairDiffs() []float64 {
	d, k := bd.d, bd.k
	n := min(boundPairs, k)
	var diffs []float64
	for s := range 3 {
		for q := range n {
			x := bd.queries[(s*k+q)*d : (s*k+q+1)*d]
			for m := range n {
				xi := bd.stored[m*d : (m+1)*d]
				for i := range d {
					diffs = append(diffs, x[i]-xi[i])
				}
			}
		}
	}
	return diffs
}

// boundRows returns the MetricC1 row and the MetricBound rows of the at,
// near and far sets of one configuration: the bound of each query, with
// E₀ its MrDAM energy, averaged over the set.
func boundRows(key Key, c1 float64, refE []float64, k int) []Row {
	rows := []Row{{Seed: key.Seed, D: key.D, K: key.K, Y: key.Y, Beta: key.Beta, Basis: key.Basis, Projection: key.Projection,
		Queries: Pairs, Metric: MetricC1, Mean: c1, Median: c1, Count: 1}}
	for s, set := range QuerySets() {
		b := make([]float64, k)
		for q := range k {
			v, err := metrics.Corollary1Bound(metrics.BoundParams{C1: c1, K: k, D: key.D, Y: key.Y, Beta: key.Beta, E0: refE[s*k+q]}, boundC2)
			if err != nil {
				v = math.NaN()
			}
			b[q] = v
		}
		rows = append(rows, summarize(key, set, MetricBound, b, 1))
	}
	return rows
}
