package dam

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// MrDAM is the memory representation: it stores the K×D patterns and
// evaluates the energy exactly. It is safe for concurrent EnergyGrad calls,
// but not for EnergyGrad concurrent with Add, Remove or Merge.
type MrDAM struct {
	cfg   Config
	xi    []float64 // K×D, row-major
	norms []float64 // ‖ξ^μ‖², length K
	ws    cache[mrWork]
}

type mrWork struct {
	a   []float64 // B×kc block of scores
	xsq []float64 // ‖x_b‖²
	lse onlineLSE
}

// NewMrDAM returns an empty MrDAM; c.Rep must be RepMrDAM (or zero).
func NewMrDAM(c Config) (*MrDAM, error) {
	if c.Rep == 0 {
		c.Rep = RepMrDAM
	}
	if c.Rep != RepMrDAM {
		return nil, fmt.Errorf("NewMrDAM: configuration is for %v", c.Rep)
	}
	c, err := c.Validate()
	if err != nil {
		return nil, err
	}
	return &MrDAM{cfg: c}, nil
}

// Config returns the configuration.
func (m *MrDAM) Config() Config { return m.cfg }

// Dim returns D.
func (m *MrDAM) Dim() int { return m.cfg.D }

// Len returns K, the number of stored patterns.
func (m *MrDAM) Len() int { return len(m.norms) }

// Reset forgets every pattern, keeping the configuration.
func (m *MrDAM) Reset() { m.xi, m.norms = m.xi[:0], m.norms[:0] }

// Patterns returns the stored K×D patterns, row-major. The caller must not
// modify them.
func (m *MrDAM) Patterns() []float64 { return m.xi }

// Add appends the patterns (K×D, row-major) to the memory.
func (m *MrDAM) Add(patterns []float64) error {
	k, err := checkRows("patterns", patterns, m.cfg.D)
	if err != nil {
		return err
	}
	d := m.cfg.D
	m.xi = append(m.xi, patterns...)
	m.norms = append(m.norms, make([]float64, k)...)
	rowSqNorms(m.norms[len(m.norms)-k:], patterns, d)
	return nil
}

// Remove deletes, for each of the given patterns, one stored pattern that
// equals it exactly. If any pattern is not stored, it returns an error and
// removes nothing.
func (m *MrDAM) Remove(patterns []float64) error {
	k, err := checkRows("patterns", patterns, m.cfg.D)
	if err != nil {
		return err
	}
	d := m.cfg.D
	gone := make(map[int]bool, k)
	for r := range k {
		p := patterns[r*d : (r+1)*d]
		found := -1
		for mu := range m.Len() {
			if !gone[mu] && equal(m.xi[mu*d:(mu+1)*d], p) {
				found = mu
				break
			}
		}
		if found < 0 {
			return fmt.Errorf("pattern %d is not stored in the memory (nothing removed)", r)
		}
		gone[found] = true
	}
	w := 0
	for mu := range m.Len() {
		if gone[mu] {
			continue
		}
		copy(m.xi[w*d:(w+1)*d], m.xi[mu*d:(mu+1)*d])
		m.norms[w] = m.norms[mu]
		w++
	}
	m.xi, m.norms = m.xi[:w*d], m.norms[:w]
	return nil
}

func equal(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Merge appends the patterns of other, an MrDAM of the same configuration.
func (m *MrDAM) Merge(other Memory) error {
	o, ok := other.(*MrDAM)
	if !ok {
		return fmt.Errorf("cannot merge a %v into an mrdam", other.Config().Rep)
	}
	if o.cfg != m.cfg {
		return fmt.Errorf("cannot merge memories of different configurations: %v and %v", m.cfg, o.cfg)
	}
	if o.Len() == 0 {
		return nil
	}
	return m.Add(o.xi)
}

// EnergyGrad writes the energies of the B = len(e) queries x (B×D) into e
// and, unless grad is nil, their gradients into grad (B×D).
func (m *MrDAM) EnergyGrad(e, grad, x []float64) error {
	d := m.cfg.D
	b, err := checkBatch(e, grad, x, d)
	if err != nil {
		return err
	}
	k := m.Len()
	if k == 0 {
		return ErrEmpty
	}
	w, release := m.ws.get()
	defer release()

	kc := blockRows(b, k)
	w.a = grow(w.a, b*kc)
	w.xsq = grow(w.xsq, b)
	rowSqNorms(w.xsq, x, d)
	w.lse.reset(b)
	if grad != nil {
		clear(grad)
	}
	beta := m.cfg.Beta
	for lo := 0; lo < k; lo += kc {
		hi := min(lo+kc, k)
		n := hi - lo
		a := w.a[:b*n]
		xiBlk := blas64.General{Rows: n, Cols: d, Stride: d, Data: m.xi[lo*d : hi*d]}
		// a = X·Ξᵀ (B×n)
		blas64.Gemm(blas.NoTrans, blas.Trans, 1,
			blas64.General{Rows: b, Cols: d, Stride: d, Data: x}, xiBlk,
			0, blas64.General{Rows: b, Cols: n, Stride: n, Data: a})
		for r := range b {
			row := a[r*n : (r+1)*n]
			if m.cfg.Similarity == Dot {
				for j, v := range row {
					row[j] = beta * v
				}
				continue
			}
			for j, v := range row {
				d2 := max(w.xsq[r]-2*v+m.norms[lo+j], 0) // ‖x − ξ‖², rounding can make it < 0
				row[j] = -0.5 * beta * d2
			}
		}
		w.lse.block(a, n, grad, d)
		if grad != nil {
			// grad += P·Ξ (B×D), P the unnormalized softmax weights
			blas64.Gemm(blas.NoTrans, blas.NoTrans, 1,
				blas64.General{Rows: b, Cols: n, Stride: n, Data: a}, xiBlk,
				1, blas64.General{Rows: b, Cols: d, Stride: d, Data: grad})
		}
	}
	for r := range b {
		e[r] = -w.lse.logSum(r) / beta
		if m.cfg.Similarity == Dot {
			e[r] += 0.5 * w.xsq[r]
		}
		if grad != nil {
			inv := 1 / w.lse.l[r]
			g, xr := grad[r*d:(r+1)*d], x[r*d:(r+1)*d]
			for i := range g {
				g[i] = xr[i] - g[i]*inv
			}
		}
	}
	if i := firstNonFinite(e); i >= 0 {
		return fmt.Errorf("query %d: energy is %v", i, e[i])
	}
	return nil
}

var _ Memory = (*MrDAM)(nil)
