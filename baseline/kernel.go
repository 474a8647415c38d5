package baseline

import (
	"fmt"
	"math"
)

// Kernel completes queries by one step of Nadaraya–Watson kernel
// regression on the visible coordinates, MrDAM's softmax readout at β
// (see the package documentation). It is safe for concurrent use.
type Kernel struct {
	x    []float64
	n, d int
	beta float64
	ws   *pool[kernelWork]
}

// kernelWork is a goroutine's workspace: a block of queries, their
// squared distances to the K stored rows, the least of each and the sums
// of their weights.
type kernelWork struct {
	sl      []slot
	dist    [][]float64
	lo, sum []float64
}

// NewKernel returns the kernel regression at β > 0 over the stored rows x
// (K×d, row-major, finite), referenced and not copied.
func NewKernel(x []float64, d int, beta float64) (*Kernel, error) {
	if !(beta > 0) || math.IsInf(beta, 1) {
		return nil, fmt.Errorf("baseline: β = %v, want a finite β > 0", beta)
	}
	n, err := stored(x, d, false)
	if err != nil {
		return nil, err
	}
	m := &Kernel{x: x, n: n, d: d, beta: beta}
	m.ws = newPool(func() *kernelWork {
		w := &kernelWork{sl: slots(d), dist: make([][]float64, block), lo: make([]float64, block), sum: make([]float64, block)}
		for s := range w.dist {
			w.dist[s] = make([]float64, n)
		}
		return w
	})
	return m, nil
}

// Complete writes into dst the queries q with their hidden coordinates
// filled by the kernel regression (see Completer).
func (m *Kernel) Complete(dst, q []float64, visible []bool) error {
	b, err := queries(dst, q, visible, m.d)
	if err != nil {
		return fmt.Errorf("baseline: Kernel.Complete: %w", err)
	}
	m.search(dst, q, visible, b, false)
	return nil
}

// Denoise writes into dst the queries q (B×D, finite) replaced, every
// coordinate, by the kernel regression over all D coordinates: for noise
// of unknown location, the softmax readout Σ_μ softmax_μ(−β/2‖q − ξ^μ‖²) ξ^μ,
// one step of MrDAM's update from q with nothing clamped. dst must not be
// q.
func (m *Kernel) Denoise(dst, q []float64) error {
	b, err := denoiseArgs(dst, q, m.d)
	if err != nil {
		return fmt.Errorf("baseline: Kernel.Denoise: %w", err)
	}
	m.search(dst, q, nil, b, true)
	return nil
}

// search fills the b queries of q into dst (all their coordinates with
// all, Denoise; else Complete's hidden ones).
func (m *Kernel) search(dst, q []float64, visible []bool, b int, all bool) {
	d := m.d
	run(m.ws, b, func(w *kernelWork, lo, hi int) {
		sl := w.sl[:hi-lo]
		for s := range sl {
			sl[s].setFor(dst, q, visible, d, lo+s, all)
			w.lo[s] = math.Inf(1)
		}
		for r := range m.n {
			row := m.x[r*d : (r+1)*d]
			for s := range sl {
				if len(sl[s].h) > 0 {
					e := sqdist(sl[s].x, row, sl[s].v)
					w.dist[s][r] = e
					w.lo[s] = min(w.lo[s], e)
				}
			}
		}
		m.fill(w, sl)
	})
}

// fill fills the hidden coordinates of the block's queries sl from the
// softmax over the stored rows of −β/2 times their squared distances
// w.dist, less the least w.lo: each stored row is read once for the block.
func (m *Kernel) fill(w *kernelWork, sl []slot) {
	d := m.d
	for s := range sl {
		for _, j := range sl[s].h {
			sl[s].out[j] = 0
		}
		w.sum[s] = 0
	}
	c := -m.beta / 2
	for r := range m.n {
		row := m.x[r*d : (r+1)*d]
		for s := range sl {
			if len(sl[s].h) == 0 {
				continue
			}
			wt := math.Exp(c * (w.dist[s][r] - w.lo[s]))
			if wt == 0 {
				continue
			}
			w.sum[s] += wt
			out := sl[s].out
			for _, j := range sl[s].h {
				out[j] += wt * row[j]
			}
		}
	}
	for s := range sl {
		for _, j := range sl[s].h {
			sl[s].out[j] /= w.sum[s]
		}
		sl[s].drop()
	}
}
