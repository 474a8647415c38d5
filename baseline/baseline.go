package baseline

import (
	"fmt"
	"math"

	"github.com/drdam/drdam/internal/par"
)

// A Completer fills the hidden coordinates of a batch of queries (see the
// package documentation): dst and q are B×D, row-major, and visible is
// either B×D (true = visible) or nil (NaN in q = hidden). dst may be q.
type Completer interface {
	Complete(dst, q []float64, visible []bool) error
}

// Weighting is how the neighbours of a k-mean are weighted.
type Weighting int

const (
	// Uniform weighs every neighbour 1.
	Uniform Weighting = iota
	// Distance weighs a neighbour by the inverse of its distance, with
	// the exact-match rule of the package documentation.
	Distance
)

// String returns "uniform" or "distance", scikit-learn's names.
func (w Weighting) String() string {
	switch w {
	case Uniform:
		return "uniform"
	case Distance:
		return "distance"
	}
	return fmt.Sprintf("Weighting(%d)", int(w))
}

// stored checks a stored row set x of d columns and returns K. With nanOK,
// NaN values are allowed (missing), infinities never.
func stored(x []float64, d int, nanOK bool) (int, error) {
	if d < 1 {
		return 0, fmt.Errorf("baseline: stored rows: d = %d, want d ≥ 1", d)
	}
	if len(x) == 0 {
		return 0, fmt.Errorf("baseline: stored rows: none (len(x) = 0), want K ≥ 1 rows of d = %d", d)
	}
	if len(x)%d != 0 {
		return 0, fmt.Errorf("baseline: stored rows: len(x) = %d is not a multiple of d = %d", len(x), d)
	}
	for i, v := range x {
		if math.IsInf(v, 0) || (!nanOK && math.IsNaN(v)) {
			return 0, fmt.Errorf("baseline: stored row %d, coordinate %d: %v, want a finite value", i/d, i%d, v)
		}
	}
	return len(x) / d, nil
}

// checkK checks a number of neighbours.
func checkK(k int, w Weighting) error {
	if k < 1 {
		return fmt.Errorf("baseline: k = %d, want k ≥ 1", k)
	}
	if w != Uniform && w != Distance {
		return fmt.Errorf("baseline: weighting %v, want Uniform or Distance", w)
	}
	return nil
}

// queries checks a batch against d columns and returns B. A visible
// coordinate (by the mask, or any non-NaN one without it) must be finite.
func queries(dst, q []float64, visible []bool, d int) (int, error) {
	if len(q)%d != 0 {
		return 0, fmt.Errorf("queries: len(q) = %d is not a multiple of D = %d", len(q), d)
	}
	if len(dst) != len(q) {
		return 0, fmt.Errorf("len(dst) = %d, want len(q) = %d", len(dst), len(q))
	}
	if visible != nil && len(visible) != len(q) {
		return 0, fmt.Errorf("len(visible) = %d, want len(q) = %d (or a nil mask: NaN = hidden)", len(visible), len(q))
	}
	for i, v := range q {
		if visible != nil && !visible[i] {
			continue
		}
		if math.IsInf(v, 0) || (visible != nil && math.IsNaN(v)) {
			return 0, fmt.Errorf("query %d, coordinate %d: %v at a visible coordinate, want a finite value", i/d, i%d, v)
		}
	}
	return len(q) / d, nil
}

// split lists the visible and the hidden coordinates of query row x (mask
// row vis, or nil) into the workspace's buffers and copies the visible
// values into dst.
func split(dst, x []float64, vis []bool, v, h []int) (vv, hh []int) {
	v, h = v[:0], h[:0]
	for i, xi := range x {
		if (vis == nil && !math.IsNaN(xi)) || (vis != nil && vis[i]) {
			v = append(v, i)
			dst[i] = xi
		} else {
			h = append(h, i)
		}
	}
	return v, h
}

// pool holds the workspaces of a Completer, one per goroutine at work,
// reused from call to call.
type pool[W any] struct {
	ch   chan *W
	newW func() *W
}

func newPool[W any](newW func() *W) *pool[W] {
	return &pool[W]{ch: make(chan *W, par.Workers()), newW: newW}
}

func (p *pool[W]) get() *W {
	select {
	case w := <-p.ch:
		return w
	default:
		return p.newW()
	}
}

func (p *pool[W]) put(w *W) {
	select {
	case p.ch <- w:
	default:
	}
}

// block is the number of queries of a job of run: each stored row is
// read once for the block's queries (while it is in the cache), not once
// per query.
const block = 8

// run calls f(w, lo, hi) for the blocks [lo, hi) of at most block queries
// of [0, b) on all cores, with a workspace w that no other call uses at
// the same time.
func run[W any](p *pool[W], b int, f func(w *W, lo, hi int)) {
	n := (b + block - 1) / block
	t := par.Task{F: func(j int) {
		w := p.get()
		f(w, j*block, min(b, (j+1)*block))
		p.put(w)
	}}
	t.Run(n)
}

// slot is a query of a block: its rows of dst and q, and its visible and
// hidden coordinates.
type slot struct {
	out, x []float64
	v, h   []int
}

// slots returns block slots with room for d coordinates.
func slots(d int) []slot {
	s := make([]slot, block)
	for i := range s {
		s[i].v, s[i].h = make([]int, 0, d), make([]int, 0, d)
	}
	return s
}

// set makes s query i of the batch and copies its visible coordinates.
func (s *slot) set(dst, q []float64, visible []bool, d, i int) {
	var vis []bool
	if visible != nil {
		vis = visible[i*d : (i+1)*d]
	}
	s.out, s.x = dst[i*d:(i+1)*d], q[i*d:(i+1)*d]
	s.v, s.h = split(s.out, s.x, vis, s.v, s.h)
}

// setFor makes s query i of the batch as a search sets it: with all
// (Denoise) every coordinate is both used for the distance and replaced,
// v = h = 0 … d−1; otherwise as set (Complete).
func (s *slot) setFor(dst, q []float64, visible []bool, d, i int, all bool) {
	if !all {
		s.set(dst, q, visible, d, i)
		return
	}
	s.out, s.x = dst[i*d:(i+1)*d], q[i*d:(i+1)*d]
	s.v, s.h = s.v[:0], s.h[:0]
	for j := range d {
		s.v, s.h = append(s.v, j), append(s.h, j)
	}
}

// denoiseArgs checks a batch of Denoise against d columns and returns B:
// q finite, dst as long and not overlapping q (every coordinate of q is
// read after the first is written).
func denoiseArgs(dst, q []float64, d int) (int, error) {
	if len(q)%d != 0 {
		return 0, fmt.Errorf("queries: len(q) = %d is not a multiple of D = %d", len(q), d)
	}
	if len(dst) != len(q) {
		return 0, fmt.Errorf("len(dst) = %d, want len(q) = %d", len(dst), len(q))
	}
	if len(q) > 0 && &dst[0] == &q[0] {
		return 0, fmt.Errorf("dst is q: Denoise needs a separate dst")
	}
	for i, v := range q {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("query %d, coordinate %d: %v, want a finite value (Denoise uses every coordinate)", i/d, i%d, v)
		}
	}
	return len(q) / d, nil
}

// drop forgets the caller's slices.
func (s *slot) drop() { s.out, s.x = nil, nil }

// sqdist is Σ_{i∈v} (x_i − y_i)², summed in four lanes.
func sqdist(x, y []float64, v []int) float64 {
	var s0, s1, s2, s3 float64
	n := len(v) &^ 3
	for k := 0; k < n; k += 4 {
		a := x[v[k]] - y[v[k]]
		b := x[v[k+1]] - y[v[k+1]]
		c := x[v[k+2]] - y[v[k+2]]
		d := x[v[k+3]] - y[v[k+3]]
		s0 += a * a
		s1 += b * b
		s2 += c * c
		s3 += d * d
	}
	for _, i := range v[n:] {
		a := x[i] - y[i]
		s0 += a * a
	}
	return (s0 + s1) + (s2 + s3)
}
