package baseline

import (
	"fmt"
	"math"
)

// Imputer completes queries as scikit-learn's KNNImputer does (version
// 1.2, metric "nan_euclidean"): the package documentation gives the
// distance, the donors, the weights, the fallbacks and what differs. The
// stored rows may have NaN values (missing). It is safe for concurrent
// use.
type Imputer struct {
	x    []float64
	n, d int
	k    int
	w    Weighting
	// full[r]: stored row r has no NaN; complete[j]: column j has none;
	// present[j]: its number of present values; mean[j]: their mean.
	full     []bool
	complete []bool
	present  []int
	mean     []float64
	ws       *pool[imputerWork]
}

// imputerWork is a goroutine's workspace: a block of queries, their
// distances to the K stored rows (+Inf for NaN) and a heap of donors.
type imputerWork struct {
	sl   []slot
	dist [][]float64
	near nearest
}

// NewImputer returns the KNNImputer equivalent with k neighbours over the
// stored rows x (K×d, row-major; NaN = missing, infinities are errors),
// referenced and not copied.
func NewImputer(x []float64, d, k int, w Weighting) (*Imputer, error) {
	if err := checkK(k, w); err != nil {
		return nil, err
	}
	n, err := stored(x, d, true)
	if err != nil {
		return nil, err
	}
	m := &Imputer{x: x, n: n, d: d, k: k, w: w,
		full: make([]bool, n), complete: make([]bool, d), present: make([]int, d), mean: make([]float64, d)}
	for r := range n {
		m.full[r] = true
		for j, v := range x[r*d : (r+1)*d] {
			if math.IsNaN(v) {
				m.full[r] = false
				continue
			}
			m.present[j]++
			m.mean[j] += v
		}
	}
	for j := range d {
		m.complete[j] = m.present[j] == n
		if m.present[j] > 0 {
			m.mean[j] /= float64(m.present[j])
		}
	}
	m.ws = newPool(func() *imputerWork {
		w := &imputerWork{sl: slots(d), dist: make([][]float64, block), near: newNearest(k)}
		for s := range w.dist {
			w.dist[s] = make([]float64, n)
		}
		return w
	})
	return m, nil
}

// Complete writes into dst the queries q with their hidden coordinates
// imputed (see Completer).
func (m *Imputer) Complete(dst, q []float64, visible []bool) error {
	b, err := queries(dst, q, visible, m.d)
	if err != nil {
		return fmt.Errorf("baseline: Imputer.Complete: %w", err)
	}
	d := m.d
	run(m.ws, b, func(w *imputerWork, lo, hi int) {
		sl := w.sl[:hi-lo]
		for s := range sl {
			sl[s].set(dst, q, visible, d, lo+s)
		}
		for r := range m.n {
			for s := range sl {
				if len(sl[s].h) > 0 {
					w.dist[s][r] = m.dist(&sl[s], r)
				}
			}
		}
		for s := range sl {
			m.impute(w, &sl[s], w.dist[s])
			sl[s].drop()
		}
	})
	return nil
}

// dist is scikit-learn's nan-Euclidean distance of the query in s to
// stored row r, +Inf for its NaN (no coordinate present in both).
func (m *Imputer) dist(s *slot, r int) float64 {
	d := m.d
	row := m.x[r*d : (r+1)*d]
	if m.full[r] {
		if len(s.v) == 0 {
			return math.Inf(1)
		}
		return math.Sqrt(sqdist(s.x, row, s.v) / float64(len(s.v)) * float64(d))
	}
	var sum float64
	c := 0
	for _, j := range s.v {
		if y := row[j]; y == y {
			e := s.x[j] - y
			sum += e * e
			c++
		}
	}
	if c == 0 {
		return math.Inf(1) // NaN in scikit-learn: after every number, weight 0
	}
	return math.Sqrt(sum / float64(c) * float64(d))
}

// impute fills the hidden coordinates of the query in s from the donors
// of each, at distances dist.
func (m *Imputer) impute(w *imputerWork, s *slot, dist []float64) {
	// The donors of a column without NaN are every row: chosen once.
	shared := false
	for _, j := range s.h {
		switch {
		case m.present[j] == 0:
			s.out[j] = 0
			continue
		case m.complete[j]:
			if !shared {
				m.donors(&w.near, dist, -1)
				shared = true
			}
		default:
			m.donors(&w.near, dist, j)
			shared = false
		}
		s.out[j] = m.fill(&w.near, j)
	}
}

// donors puts into near the min(k, donors) nearest rows with coordinate
// j present (every row for j < 0).
func (m *Imputer) donors(near *nearest, dist []float64, j int) {
	if j < 0 {
		near.reset(min(m.k, m.n))
		for r, s := range dist {
			near.offer(s, r)
		}
	} else {
		near.reset(min(m.k, m.present[j]))
		for r, s := range dist {
			if y := m.x[r*m.d+j]; y == y {
				near.offer(s, r)
			}
		}
	}
	near.sorted()
}

// fill is coordinate j's mean over the donors in near, weighted as
// scikit-learn weighs them, or the column mean when every potential donor
// is at NaN distance (+Inf here).
func (m *Imputer) fill(near *nearest, j int) float64 {
	if math.IsInf(near.d[0], 1) {
		return m.mean[j]
	}
	d := m.d
	var s, sw float64
	if m.w == Uniform || near.d[0] == 0 {
		for t, r := range near.idx {
			if m.w == Distance && near.d[t] != 0 {
				break // the exact matches alone, the nearest first
			}
			s += m.x[r*d+j]
			sw++
		}
		return s / sw
	}
	for t, r := range near.idx {
		wt := 1 / near.d[t] // 0 at +Inf, as scikit-learn's NaN weight
		s += wt * m.x[r*d+j]
		sw += wt
	}
	return s / sw
}
