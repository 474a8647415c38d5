package baseline

import (
	"fmt"
	"math"
)

// KNN completes queries from their k nearest stored rows on the visible
// coordinates (the package documentation gives the distance, the ties and
// the weights). It is safe for concurrent use.
type KNN struct {
	x    []float64
	n, d int
	k    int
	w    Weighting
	ws   *pool[knnWork]
}

// knnWork is a goroutine's workspace: the query's visible and hidden
// coordinates and the heap of neighbours.
type knnWork struct {
	v, h []int
	near nearest
}

// NewKNN returns the masked k-NN over the stored rows x (K×d, row-major,
// finite), referenced and not copied. k larger than K uses all K rows.
func NewKNN(x []float64, d, k int, w Weighting) (*KNN, error) {
	if err := checkK(k, w); err != nil {
		return nil, err
	}
	n, err := stored(x, d, false)
	if err != nil {
		return nil, err
	}
	k = min(k, n)
	m := &KNN{x: x, n: n, d: d, k: k, w: w}
	m.ws = newPool(func() *knnWork {
		return &knnWork{v: make([]int, 0, d), h: make([]int, 0, d), near: newNearest(k)}
	})
	return m, nil
}

// Complete writes into dst the queries q with their hidden coordinates
// filled from their neighbours (see Completer).
func (m *KNN) Complete(dst, q []float64, visible []bool) error {
	b, err := queries(dst, q, visible, m.d)
	if err != nil {
		return fmt.Errorf("baseline: KNN.Complete: %w", err)
	}
	d := m.d
	run(m.ws, b, func(w *knnWork, i int) {
		var vis []bool
		if visible != nil {
			vis = visible[i*d : (i+1)*d]
		}
		out, x := dst[i*d:(i+1)*d], q[i*d:(i+1)*d]
		w.v, w.h = split(out, x, vis, w.v, w.h)
		m.query(w, out, x)
	})
	return nil
}

// query fills the hidden coordinates w.h of out from the neighbours of x
// on its visible coordinates w.v.
func (m *KNN) query(w *knnWork, out, x []float64) {
	d := m.d
	near := &w.near
	near.reset(m.k)
	for r := range m.n {
		near.offer(sqdist(x, m.x[r*d:(r+1)*d], w.v), r)
	}
	near.sorted()
	if len(w.h) == 0 {
		return
	}
	if m.k == 1 {
		row := m.x[near.idx[0]*d:]
		for _, j := range w.h {
			out[j] = row[j]
		}
		return
	}
	// The weights: uniform, 1/d, or the exact matches alone (the nearest
	// first, so they are the first z).
	uniform, z := m.w == Uniform, len(near.d)
	if !uniform && near.d[0] == 0 {
		z = 0
		for z < len(near.d) && near.d[z] == 0 {
			z++
		}
		uniform = true
	}
	for _, j := range w.h {
		var s, sw float64
		for t, r := range near.idx[:z] {
			wt := 1.0
			if !uniform {
				wt = 1 / math.Sqrt(near.d[t])
			}
			s += wt * m.x[r*d+j]
			sw += wt
		}
		out[j] = s / sw
	}
}
