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

// imputerWork is a goroutine's workspace: the query's visible and hidden
// coordinates, its distances to the K stored rows (+Inf for NaN) and the
// heap of donors.
type imputerWork struct {
	v, h []int
	dist []float64
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
		return &imputerWork{v: make([]int, 0, d), h: make([]int, 0, d), dist: make([]float64, n), near: newNearest(k)}
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
	run(m.ws, b, func(w *imputerWork, i int) {
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

// query imputes the hidden coordinates w.h of out from the donors of each.
func (m *Imputer) query(w *imputerWork, out, x []float64) {
	if len(w.h) == 0 {
		return
	}
	d := m.d
	scale := float64(d)
	for r := range m.n {
		row := m.x[r*d : (r+1)*d]
		var s float64
		c := len(w.v)
		if m.full[r] {
			s = sqdist(x, row, w.v)
		} else {
			c = 0
			for _, j := range w.v {
				if y := row[j]; y == y {
					e := x[j] - y
					s += e * e
					c++
				}
			}
		}
		if c == 0 {
			w.dist[r] = math.Inf(1) // NaN in scikit-learn: after every number, weight 0
		} else {
			w.dist[r] = math.Sqrt(s / float64(c) * scale)
		}
	}
	// The donors of a column without NaN are every row: chosen once.
	shared := false
	for _, j := range w.h {
		switch {
		case m.present[j] == 0:
			out[j] = 0
			continue
		case m.complete[j]:
			if !shared {
				m.donors(w, -1)
				shared = true
			}
		default:
			m.donors(w, j)
			shared = false
		}
		out[j] = m.fill(w, j)
	}
}

// donors puts into w.near the min(k, donors) nearest rows with coordinate
// j present (every row for j < 0).
func (m *Imputer) donors(w *imputerWork, j int) {
	near := &w.near
	if j < 0 {
		near.reset(min(m.k, m.n))
		for r, s := range w.dist {
			near.offer(s, r)
		}
	} else {
		near.reset(min(m.k, m.present[j]))
		for r, s := range w.dist {
			if y := m.x[r*m.d+j]; y == y {
				near.offer(s, r)
			}
		}
	}
	near.sorted()
}

// fill is coordinate j's mean over the donors in w.near, weighted as
// scikit-learn weighs them, or the column mean when every potential donor
// is at NaN distance (+Inf here).
func (m *Imputer) fill(w *imputerWork, j int) float64 {
	near := &w.near
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
