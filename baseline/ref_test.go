package baseline

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// The brute-force references: plain loops in float64, each query against
// every stored row, sorting where the code keeps a heap.

// hidden reports whether coordinate i of query row x (mask row vis or nil)
// is hidden.
func hidden(x []float64, vis []bool, i int) bool {
	if vis == nil {
		return math.IsNaN(x[i])
	}
	return !vis[i]
}

// refDist2 is the squared Euclidean distance over the visible coordinates.
func refDist2(x, y []float64, vis []bool) float64 {
	s := 0.0
	for i := range x {
		if !hidden(x, vis, i) {
			s += (x[i] - y[i]) * (x[i] - y[i])
		}
	}
	return s
}

// refKNN completes one query row by the masked k-NN.
func refKNN(stored []float64, d int, x []float64, vis []bool, k int, w Weighting) []float64 {
	n := len(stored) / d
	d2 := make([]float64, n)
	order := make([]int, n)
	for r := range n {
		d2[r] = refDist2(x, stored[r*d:(r+1)*d], vis)
		order[r] = r
	}
	sort.SliceStable(order, func(a, b int) bool { return d2[order[a]] < d2[order[b]] })
	k = min(k, n)
	nb := order[:k]
	wt := make([]float64, k)
	zero := false
	for t, r := range nb {
		zero = zero || d2[r] == 0
		wt[t] = 1
		if w == Distance {
			wt[t] = 1 / math.Sqrt(d2[r])
		}
	}
	if w == Distance && zero {
		for t, r := range nb {
			wt[t] = 0
			if d2[r] == 0 {
				wt[t] = 1
			}
		}
	}
	out := make([]float64, d)
	for i := range d {
		if !hidden(x, vis, i) {
			out[i] = x[i]
			continue
		}
		var s, sw float64
		for t, r := range nb {
			s += wt[t] * stored[r*d+i]
			sw += wt[t]
		}
		out[i] = s / sw
	}
	return out
}

// refKernel completes one query row by Nadaraya–Watson at β: a softmax of
// the logits −β/2 d² with their maximum subtracted.
func refKernel(stored []float64, d int, x []float64, vis []bool, beta float64) []float64 {
	n := len(stored) / d
	logit := make([]float64, n)
	top := math.Inf(-1)
	for r := range n {
		logit[r] = -beta / 2 * refDist2(x, stored[r*d:(r+1)*d], vis)
		top = max(top, logit[r])
	}
	out := make([]float64, d)
	var z float64
	for r := range n {
		z += math.Exp(logit[r] - top)
	}
	for i := range d {
		if !hidden(x, vis, i) {
			out[i] = x[i]
			continue
		}
		for r := range n {
			out[i] += math.Exp(logit[r]-top) / z * stored[r*d+i]
		}
	}
	return out
}

// refMean completes one query row with the column means.
func refMean(stored []float64, d int, x []float64, vis []bool) []float64 {
	n := len(stored) / d
	out := make([]float64, d)
	for i := range d {
		if !hidden(x, vis, i) {
			out[i] = x[i]
			continue
		}
		for r := range n {
			out[i] += stored[r*d+i]
		}
		out[i] /= float64(n)
	}
	return out
}

// refImputed is one hidden coordinate as scikit-learn's KNNImputer fills
// it: val with ties broken by the lower row index, and [lo, hi] the range
// of the fills over every way of breaking the tie at the k-th donor (the
// choice np.argpartition makes is unspecified).
type refImputed struct {
	val, lo, hi float64
	tied        bool
}

// refImpute completes the hidden coordinates (NaN) of query x from fit
// (NaN = missing) as KNNImputer does, written from its source
// (sklearn/impute/_knn.py, nan_euclidean_distances, _get_weights).
func refImpute(fit []float64, d int, x []float64, k int, w Weighting) map[int]refImputed {
	n := len(fit) / d
	dist := make([]float64, n)
	for r := range n {
		var s float64
		c := 0
		for i := range d {
			y := fit[r*d+i]
			if !math.IsNaN(x[i]) && !math.IsNaN(y) {
				s += (x[i] - y) * (x[i] - y)
				c++
			}
		}
		dist[r] = math.NaN()
		if c > 0 {
			dist[r] = math.Sqrt(s / float64(c) * float64(d))
		}
	}
	same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
	// Every row in the order (distance, NaN last; row index): a column's
	// donors are those of its rows with the column present, in this order.
	order := make([]int, n)
	for r := range order {
		order[r] = r
	}
	slices.SortFunc(order, func(a, b int) int {
		da, db := dist[a], dist[b]
		switch {
		case math.IsNaN(da) != math.IsNaN(db):
			if math.IsNaN(da) {
				return 1
			}
			return -1
		case da < db:
			return -1
		case da > db:
			return 1
		}
		return cmp.Compare(a, b)
	})
	res := map[int]refImputed{}
	for j := range d {
		if !math.IsNaN(x[j]) {
			continue
		}
		var donors []int
		var mean float64
		allNaN := true
		for _, r := range order {
			if y := fit[r*d+j]; !math.IsNaN(y) {
				donors = append(donors, r)
				mean += y
				allNaN = allNaN && math.IsNaN(dist[r])
			}
		}
		if len(donors) == 0 {
			res[j] = refImputed{} // an empty column: 0 (keep_empty_features)
			continue
		}
		mean /= float64(len(donors))
		if allNaN {
			res[j] = refImputed{val: mean, lo: mean, hi: mean}
			continue
		}
		m := min(k, len(donors))
		chosen := donors[:m]
		wt := make([]float64, m)
		zero := false
		for t, r := range chosen {
			wt[t] = 1
			if w == Distance {
				wt[t] = 1 / dist[r]
				if math.IsNaN(wt[t]) {
					wt[t] = 0
				}
				zero = zero || dist[r] == 0
			}
		}
		if zero {
			for t, r := range chosen {
				wt[t] = 0
				if dist[r] == 0 {
					wt[t] = 1
				}
			}
		}
		var s, sw float64
		for t, r := range chosen {
			s += wt[t] * fit[r*d+j]
			sw += wt[t]
		}
		// The tie at the boundary: the donors as far as the last chosen.
		edge := dist[chosen[m-1]]
		var sc, swc, wb float64
		in := 0
		for t, r := range chosen {
			if same(dist[r], edge) {
				in++
				wb = wt[t]
			} else {
				sc += wt[t] * fit[r*d+j]
				swc += wt[t]
			}
		}
		var tie []float64
		for _, r := range donors {
			if same(dist[r], edge) {
				tie = append(tie, fit[r*d+j])
			}
		}
		sort.Float64s(tie)
		var small, large float64
		for t := range in {
			small += tie[t]
			large += tie[len(tie)-1-t]
		}
		den := swc + float64(in)*wb
		res[j] = refImputed{val: s / sw, lo: (sc + wb*small) / den, hi: (sc + wb*large) / den, tied: len(tie) > in}
	}
	return res
}

// randomQueries returns b queries of d coordinates drawn from draw, each
// with a fraction of its coordinates hidden drawn uniformly in [lo, hi],
// as a mask and as NaN.
func randomQueries(rng *rand.Rand, b, d int, lo, hi float64, draw func() float64) (q, qnan []float64, visible []bool) {
	q, qnan, visible = make([]float64, b*d), make([]float64, b*d), make([]bool, b*d)
	for i := range b {
		h := int(math.Round((lo + (hi-lo)*rng.Float64()) * float64(d)))
		perm := rng.Perm(d)
		for t, j := range perm {
			v := draw()
			q[i*d+j], qnan[i*d+j], visible[i*d+j] = v, v, t >= h
			if t < h {
				qnan[i*d+j] = math.NaN()
			}
		}
	}
	return q, qnan, visible
}
