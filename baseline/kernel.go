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

// kernelWork is a goroutine's workspace: the query's visible and hidden
// coordinates and its squared distances to the K stored rows.
type kernelWork struct {
	v, h []int
	dist []float64
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
		return &kernelWork{v: make([]int, 0, d), h: make([]int, 0, d), dist: make([]float64, n)}
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
	d := m.d
	run(m.ws, b, func(w *kernelWork, i int) {
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

// query fills the hidden coordinates w.h of out from the softmax over the
// stored rows of −β/2 times their squared distances to x on w.v.
func (m *Kernel) query(w *kernelWork, out, x []float64) {
	if len(w.h) == 0 {
		return
	}
	d := m.d
	lo := math.Inf(1)
	for r := range m.n {
		s := sqdist(x, m.x[r*d:(r+1)*d], w.v)
		w.dist[r] = s
		lo = min(lo, s)
	}
	for _, j := range w.h {
		out[j] = 0
	}
	var sw float64
	c := -m.beta / 2
	for r, s := range w.dist {
		wt := math.Exp(c * (s - lo))
		if wt == 0 {
			continue
		}
		sw += wt
		row := m.x[r*d : (r+1)*d]
		for _, j := range w.h {
			out[j] += wt * row[j]
		}
	}
	for _, j := range w.h {
		out[j] /= sw
	}
}
