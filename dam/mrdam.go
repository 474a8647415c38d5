package dam

import (
	"fmt"
	"sync"

	"github.com/drdam/drdam/internal/kern"
)

// MrDAM is the memory representation: it stores the K×D patterns and
// evaluates the energy exactly. It is safe for concurrent EnergyGrad calls,
// but not for EnergyGrad concurrent with Add, Remove, Merge or Reset.
//
// The energy is computed with the kernels of DrDAM's positive bases: the
// patterns play the role of the projection, the scores are
// β⟨ξ, x⟩ − β/2‖ξ‖² (L2; the −β/2‖x‖² of each query is added back at the
// end) or β⟨ξ, x⟩ (dot), and ∇E = x − Σ_μ softmax_μ ξ^μ.
type MrDAM struct {
	cfg   Config
	xi    []float64 // K×D, row-major
	norms []float64 // ‖ξ^μ‖², length K
	eng   mrEngine
}

type mrEngine interface {
	energyGrad(m *MrDAM, e, grad, x []float64)
	invalidate()
	dropWorkspaces()
}

// DropWorkspaces frees the evaluation workspaces the model keeps for
// reuse (see DrDAM.DropWorkspaces).
func (m *MrDAM) DropWorkspaces() { m.eng.dropWorkspaces() }

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
	m := &MrDAM{cfg: c}
	if c.Precision == Float32 {
		m.eng = &mrCompute[float32]{}
	} else {
		m.eng = &mrCompute[float64]{}
	}
	return m, nil
}

// Config returns the configuration.
func (m *MrDAM) Config() Config { return m.cfg }

// Dim returns D.
func (m *MrDAM) Dim() int { return m.cfg.D }

// Len returns K, the number of stored patterns.
func (m *MrDAM) Len() int { return len(m.norms) }

// Reset forgets every pattern, keeping the configuration.
func (m *MrDAM) Reset() {
	m.xi, m.norms = m.xi[:0], m.norms[:0]
	m.eng.invalidate()
}

// Patterns returns the stored K×D patterns, row-major. The caller must not
// modify them.
func (m *MrDAM) Patterns() []float64 { return m.xi }

// Add appends the patterns (K×D, row-major) to the memory.
func (m *MrDAM) Add(patterns []float64) error {
	k, err := checkRows("patterns", patterns, m.cfg.D, m.cfg)
	if err != nil {
		return err
	}
	d := m.cfg.D
	if err := checkBudget(m.cfg, len(m.norms)+k); err != nil {
		return err
	}
	m.xi = append(m.xi, patterns...)
	m.norms = append(m.norms, make([]float64, k)...)
	rowSqNorms(m.norms[len(m.norms)-k:], patterns, d)
	m.eng.invalidate()
	return nil
}

// Remove deletes, for each of the given patterns, one stored pattern that
// equals it exactly. If any pattern is not stored, it returns an error and
// removes nothing.
func (m *MrDAM) Remove(patterns []float64) error {
	k, err := checkRows("patterns", patterns, m.cfg.D, m.cfg)
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
			return &NotStoredError{Row: r + 1}
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
	m.eng.invalidate()
	return nil
}

// NotStoredError is MrDAM.Remove's error when a row to remove equals no
// stored pattern: its row, counted from 1. Nothing was removed.
type NotStoredError struct{ Row int }

func (e *NotStoredError) Error() string {
	return fmt.Sprintf("patterns: row %d is not stored in the memory (nothing removed)", e.Row)
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
	if err := compatible(m.cfg, o.cfg); err != nil {
		return err
	}
	if o.Len() == 0 {
		return nil
	}
	return m.Add(o.xi)
}

// EnergyGrad writes the energies of the B = len(e) queries x (B×D) into e
// and, unless grad is nil, their gradients into grad (B×D).
func (m *MrDAM) EnergyGrad(e, grad, x []float64) error {
	if _, err := checkBatch(e, grad, x, m.cfg); err != nil {
		return err
	}
	if m.Len() == 0 {
		return ErrEmpty
	}
	m.eng.energyGrad(m, e, grad, x)
	if i := firstNonFinite(e); i >= 0 {
		return fmt.Errorf("query in row %d: energy is %v", i+1, e[i])
	}
	return nil
}

// mrCompute is the compute state of an MrDAM in precision T: the patterns
// in panels and their score offsets, rebuilt when the patterns change.
type mrCompute[T kern.Float] struct {
	mu  sync.Mutex
	xi  *kern.Panels[T]
	src *stored[T]
	p   *rowParams[T]
	ws  cache[mrWork[T]]
}

type mrWork[T kern.Float] struct {
	ev  eval[T]
	xsq []float64
}

func (c *mrCompute[T]) dropWorkspaces() { c.ws.drop() }

func (c *mrCompute[T]) invalidate() {
	c.mu.Lock()
	c.xi, c.src, c.p = nil, nil, nil
	c.mu.Unlock()
}

func (c *mrCompute[T]) state(m *MrDAM) (*stored[T], *rowParams[T]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.xi != nil {
		return c.src, c.p
	}
	k, d := m.Len(), m.cfg.D
	xi := kern.NewPanels[T](k, d)
	xi.SetRows(0, m.xi, 1)
	lt := make([]float64, k)
	shift := 0.0
	if m.cfg.Similarity == L2 {
		for i, v := range m.norms {
			lt[i] = -m.cfg.Beta / 2 * v
		}
		shift = lt[0]
		for _, v := range lt {
			shift = max(shift, v)
		}
	}
	c.xi, c.src = xi, newStored(xi)
	// The energy is a log-sum-exp over the patterns: the positive family's pass.
	c.p = &rowParams[T]{pass: positiveFamily[T]{}, r1: padTo[T](lt, xi.NP*kern.Lanes[T](), shift, inf(-1)), shift: shift}
	return c.src, c.p
}

func (c *mrCompute[T]) energyGrad(m *MrDAM, e, grad, x []float64) {
	src, p := c.state(m)
	w := c.ws.get()
	defer c.ws.put(w)
	d, beta := m.cfg.D, m.cfg.Beta
	b := len(e)
	w.ev.run(src, p, x, beta, grad)
	w.xsq = grow(w.xsq, b)
	rowSqNorms(w.xsq, x, d)
	for r := range b {
		l := w.ev.s[r]
		e[r] = -(w.ev.m[r]+log(l)+p.shift)/beta + 0.5*w.xsq[r]
		if grad != nil {
			inv := 1 / l
			g, xr := grad[r*d:(r+1)*d], x[r*d:(r+1)*d]
			for i := range g {
				g[i] = xr[i] - g[i]*inv
			}
		}
	}
}

var _ Memory = (*MrDAM)(nil)
