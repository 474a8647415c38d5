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

// knnWork is a goroutine's workspace: a block of queries and their heaps
// of neighbours.
type knnWork struct {
	sl   []slot
	near []nearest
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
		w := &knnWork{sl: slots(d), near: make([]nearest, block)}
		for s := range w.near {
			w.near[s] = newNearest(k)
		}
		return w
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
	m.search(dst, q, visible, b, false)
	return nil
}

// search fills the b queries of q into dst (all their coordinates with
// all, Denoise; else Complete's hidden ones).
func (m *KNN) search(dst, q []float64, visible []bool, b int, all bool) {
	d := m.d
	run(m.ws, b, func(w *knnWork, lo, hi int) {
		sl, near := w.sl[:hi-lo], w.near[:hi-lo]
		for s := range sl {
			sl[s].setFor(dst, q, visible, d, lo+s, all)
			near[s].reset(m.k)
		}
		for r := range m.n {
			row := m.x[r*d : (r+1)*d]
			for s := range sl {
				if len(sl[s].h) > 0 {
					near[s].offer(sqdist(sl[s].x, row, sl[s].v), r)
				}
			}
		}
		for s := range sl {
			m.fill(&sl[s], &near[s])
			sl[s].drop()
		}
	})
}

// Denoise writes into dst the queries q (B×D, finite) replaced, every
// coordinate, by their neighbours' values: for noise of unknown location,
// where no coordinate is known to be hidden or to be right, the distance
// is taken over all D coordinates and every one is replaced (k = 1: the
// nearest stored row itself; k > 1: the weighted mean of the k nearest,
// with Complete's weights and ties). dst must not be q.
func (m *KNN) Denoise(dst, q []float64) error {
	b, err := denoiseArgs(dst, q, m.d)
	if err != nil {
		return fmt.Errorf("baseline: KNN.Denoise: %w", err)
	}
	m.search(dst, q, nil, b, true)
	return nil
}

// fill fills the hidden coordinates of the query in s from its neighbours.
func (m *KNN) fill(s *slot, near *nearest) {
	if len(s.h) == 0 {
		return
	}
	d := m.d
	near.sorted()
	if m.k == 1 {
		row := m.x[near.idx[0]*d:]
		for _, j := range s.h {
			s.out[j] = row[j]
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
	for _, j := range s.h {
		var sum, sw float64
		for t, r := range near.idx[:z] {
			wt := 1.0
			if !uniform {
				wt = 1 / math.Sqrt(near.d[t])
			}
			sum += wt * m.x[r*d+j]
			sw += wt
		}
		s.out[j] = sum / sw
	}
}
