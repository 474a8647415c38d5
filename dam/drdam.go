package dam

import (
	"fmt"
	"math"

	"github.com/drdam/drdam/features"
)

// DrDAM is the distributed representation: all memories summed into one
// feature vector T of fixed length F, with energy and gradient computed from
// T alone. It is safe for concurrent EnergyGrad calls, but not for
// EnergyGrad concurrent with Add, Remove or Merge.
type DrDAM struct {
	cfg   Config
	fm    *features.Map
	count int
	// t holds T: for the trigonometric bases T = exp(logScale)·t; for the
	// positive bases t[α] = log T_α (−Inf for T_α = 0).
	t        []float64
	logScale float64
	ws       cache[drWork]
}

type drWork struct {
	h, a []float64 // B×n phases and B×2n scores (ExpExp)
	s    []float64 // per-query sums (trigonometric bases)
	xsq  []float64 // ‖x_b‖²
	lse  onlineLSE
}

// NewDrDAM returns an empty DrDAM whose projection and bias are generated
// from c.Seed. c.Rep must be RepDrDAM (or zero); c.Projection must not be
// External (use NewDrDAMWithMap).
func NewDrDAM(c Config) (*DrDAM, error) {
	c, err := c.Validate()
	if err != nil {
		return nil, err
	}
	if c.Rep != RepDrDAM {
		return nil, fmt.Errorf("NewDrDAM: configuration is for %v", c.Rep)
	}
	proj, err := features.New(c.Projection, c.Seed, c.Y, c.D)
	if err != nil {
		return nil, err
	}
	var bias []float64
	if !c.NoBias {
		bias = features.NewBias(c.Seed, c.Y)
	}
	fm, err := features.NewMap(c.Basis, c.Beta, proj, bias)
	if err != nil {
		return nil, err
	}
	return newDrDAM(c, fm), nil
}

// NewDrDAMWithMap returns an empty DrDAM that uses the given feature map,
// for example one built on a projection read from a file. Basis, β, Y, D
// and the bias are taken from fm; c supplies the similarity and ε, and its
// projection kind is set to External. Such a model cannot be saved, since
// its projection cannot be regenerated from a seed.
func NewDrDAMWithMap(c Config, fm *features.Map) (*DrDAM, error) {
	if fm == nil {
		return nil, fmt.Errorf("no feature map")
	}
	c.Rep = RepDrDAM
	c.Y, c.D = fm.Dims()
	c.Basis, c.Beta = fm.Basis, fm.Beta
	c.Projection = features.Gaussian // validated below, then marked External
	c.NoBias = fm.Bias == nil
	c, err := c.Validate()
	if err != nil {
		return nil, err
	}
	c.Projection = features.External
	return newDrDAM(c, fm), nil
}

func newDrDAM(c Config, fm *features.Map) *DrDAM {
	m := &DrDAM{cfg: c, fm: fm, t: make([]float64, c.FeatureDim())}
	m.clear()
	return m
}

// Config returns the configuration.
func (m *DrDAM) Config() Config { return m.cfg }

// Dim returns D.
func (m *DrDAM) Dim() int { return m.cfg.D }

// Len returns the number of memories stored (added minus removed).
func (m *DrDAM) Len() int { return m.count }

// Reset forgets every memory (T = 0), keeping the configuration and the
// random projection.
func (m *DrDAM) Reset() {
	m.count = 0
	m.clear()
}

// Map returns the feature map.
func (m *DrDAM) Map() *features.Map { return m.fm }

// T writes the memory vector T (length F) into dst, allocating it if dst is
// nil, and returns it. For the positive bases, entries that underflow
// float64 are 0; LogT gives them exactly.
func (m *DrDAM) T(dst []float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(m.t))
	}
	if m.cfg.Basis.Positive() {
		for i, v := range m.t {
			dst[i] = math.Exp(v)
		}
		return dst
	}
	if m.logScale == 0 {
		copy(dst, m.t)
		return dst
	}
	s := math.Exp(m.logScale)
	for i, v := range m.t {
		dst[i] = s * v
	}
	return dst
}

// Raw returns the stored representation of T: t and the log-scale c with
// T = exp(c)·t for the trigonometric bases, or t = log T (and c = 0) for the
// positive bases. The caller must not modify t.
func (m *DrDAM) Raw() (t []float64, logScale float64) { return m.t, m.logScale }

// Add stores the K patterns of the row-major K×D slice patterns:
// T ← T + Σ_μ w_μ φ(ξ^μ), with w_μ = 1 for the L2 energy and
// exp(β‖ξ^μ‖²/2) for the dot-product energy.
func (m *DrDAM) Add(patterns []float64) error { return m.update(patterns, +1) }

// Remove forgets the K patterns of patterns: T ← T − Σ_μ w_μ φ(ξ^μ). It
// cannot check that the patterns were stored: removing one that was not
// leaves T meaningless. It returns an error if more patterns are removed
// than the memory holds.
func (m *DrDAM) Remove(patterns []float64) error { return m.update(patterns, -1) }

func (m *DrDAM) update(patterns []float64, sign float64) error {
	d, y := m.cfg.D, m.cfg.Y
	k, err := checkRows("patterns", patterns, d)
	if err != nil {
		return err
	}
	if sign < 0 && k > m.count {
		return fmt.Errorf("cannot remove %d patterns from a memory that holds %d", k, m.count)
	}
	beta := m.cfg.Beta
	sq := make([]float64, k)
	rowSqNorms(sq, patterns, d)
	// lw[μ]: log of the weight w_μ and, for the positive bases, of the
	// factor exp(−β‖ξ‖²)/√(Y·mult) of φ.
	lw := make([]float64, k)
	if m.cfg.Similarity == Dot {
		for i := range lw {
			lw[i] = beta * sq[i] / 2
		}
	}
	positive := m.cfg.Basis.Positive()
	if positive {
		mult := float64(m.cfg.Basis.Width(1))
		for i := range lw {
			lw[i] -= beta*sq[i] + 0.5*math.Log(float64(y)*mult)
		}
	} else if m.cfg.Similarity == Dot {
		if sign > 0 {
			m.raiseScale(lw)
		} else {
			// Every stored pattern had a log-weight ≤ logScale (raiseScale
			// saw to that), so a larger one was never stored.
			for i, v := range lw {
				if v > m.logScale {
					return fmt.Errorf("pattern %d is not stored in the memory (its weight exceeds every stored one)", i)
				}
			}
		}
	}

	kc := blockRows(min(k, 512), k)
	n := blockRows(kc, y)
	h := make([]float64, kc*n)
	acc := make([]float64, 2*n) // per-block sums: two halves of n
	for lo := 0; lo < y; lo += n {
		hi := min(lo+n, y)
		nn := hi - lo
		for c0 := 0; c0 < k; c0 += kc {
			c1 := min(c0+kc, k)
			hb := h[:(c1-c0)*nn]
			m.fm.Phases(hb, patterns[c0*d:c1*d], lo, hi)
			if positive {
				m.addPositive(hb, nn, lw[c0:c1], lo, sign, acc)
			} else {
				m.addTrig(hb, nn, lw[c0:c1], lo, sign, acc)
			}
		}
	}
	m.count += int(sign) * k
	if m.count == 0 {
		m.clear() // removing everything restores the empty memory exactly
	}
	return nil
}

// clear resets T to the empty memory.
func (m *DrDAM) clear() {
	fill := 0.0
	if m.cfg.Basis.Positive() {
		fill = math.Inf(-1)
	}
	for i := range m.t {
		m.t[i] = fill
	}
	m.logScale = 0
}

// raiseScale makes sure logScale ≥ max(lw), rescaling t, so that every
// weight exp(lw − logScale) is at most 1.
func (m *DrDAM) raiseScale(lw []float64) {
	c := m.logScale
	if m.count == 0 {
		c = math.Inf(-1)
	}
	for _, v := range lw {
		c = max(c, v)
	}
	if m.count == 0 {
		clear(m.t)
		m.logScale = c
		return
	}
	if c > m.logScale {
		s := math.Exp(m.logScale - c)
		for i := range m.t {
			m.t[i] *= s
		}
		m.logScale = c
	}
}

// addTrig adds sign·Σ_μ w_μ φ(ξ^μ) restricted to projections [lo, lo+n)
// into t, for the phases h (rows × n) of a chunk of memories.
func (m *DrDAM) addTrig(h []float64, n int, lw []float64, lo int, sign float64, acc []float64) {
	y := m.cfg.Y
	rows := len(h) / n
	fy := float64(y)
	cos := m.cfg.Basis == features.Cos
	k := 1 / math.Sqrt(fy)
	if cos {
		k = math.Sqrt(2 / fy)
	}
	acc = acc[:m.cfg.Basis.Width(n)]
	clear(acc)
	for r := range rows {
		w := k
		if m.cfg.Similarity == Dot {
			w = k * math.Exp(lw[r]-m.logScale)
		}
		row := h[r*n : (r+1)*n]
		if cos {
			for j, v := range row {
				acc[j] += w * math.Cos(v)
			}
			continue
		}
		for j, v := range row {
			s, c := math.Sincos(v)
			acc[j] += w * c
			acc[n+j] += w * s
		}
	}
	for j := range n {
		m.t[lo+j] += sign * acc[j]
	}
	if !cos {
		for j := range n {
			m.t[y+lo+j] += sign * acc[n+j]
		}
	}
}

// addPositive adds (sign > 0) or subtracts the chunk's features to the
// log-domain t, for projections [lo, lo+n).
func (m *DrDAM) addPositive(h []float64, n int, lw []float64, lo int, sign float64, acc []float64) {
	y := m.cfg.Y
	rows := len(h) / n
	halves := 1
	if m.cfg.Basis == features.ExpExp {
		halves = 2
	}
	for half := range halves {
		neg := half == 1
		// acc[j] = log Σ_μ exp(±h_μj + lw_μ), by a max-shifted sum per column.
		mx, sum := acc[:n], acc[n:2*n]
		for j := range mx {
			mx[j] = math.Inf(-1)
			sum[j] = 0
		}
		for r := range rows {
			for j, v := range h[r*n : (r+1)*n] {
				if neg {
					v = -v
				}
				mx[j] = max(mx[j], v+lw[r])
			}
		}
		for r := range rows {
			for j, v := range h[r*n : (r+1)*n] {
				if neg {
					v = -v
				}
				sum[j] += math.Exp(v + lw[r] - mx[j])
			}
		}
		t := m.t[half*y+lo : half*y+lo+n]
		for j := range n {
			v := mx[j] + math.Log(sum[j])
			if sign > 0 {
				t[j] = logAddExp(t[j], v)
			} else {
				t[j] = logSubExp(t[j], v)
			}
		}
	}
}

// logAddExp returns log(exp(a) + exp(b)).
func logAddExp(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if math.IsInf(b, -1) {
		return a
	}
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// logSubExp returns log(exp(a) − exp(b)), or −Inf when b ≥ a (removing at
// least what is there, which only rounding can cause).
func logSubExp(a, b float64) float64 {
	if math.IsInf(b, -1) {
		return a
	}
	if b >= a {
		return math.Inf(-1)
	}
	return a + math.Log1p(-math.Exp(b-a))
}

// Merge adds the memories of other, a DrDAM of the same configuration and
// the same feature map: T ← T₁ + T₂.
func (m *DrDAM) Merge(other Memory) error {
	o, ok := other.(*DrDAM)
	if !ok {
		return fmt.Errorf("cannot merge an %v into a drdam", other.Config().Rep)
	}
	if o.cfg != m.cfg {
		return fmt.Errorf("cannot merge memories of different configurations: %v and %v", m.cfg, o.cfg)
	}
	if m.cfg.Projection == features.External && o.fm != m.fm {
		return fmt.Errorf("cannot merge memories built on different external projections")
	}
	switch {
	case o.count == 0:
	case m.cfg.Basis.Positive():
		for i, v := range o.t {
			m.t[i] = logAddExp(m.t[i], v)
		}
	case m.count == 0:
		copy(m.t, o.t)
		m.logScale = o.logScale
	default:
		c := max(m.logScale, o.logScale)
		sm, so := math.Exp(m.logScale-c), math.Exp(o.logScale-c)
		for i, v := range o.t {
			m.t[i] = sm*m.t[i] + so*v
		}
		m.logScale = c
	}
	m.count += o.count
	return nil
}

// EnergyGrad writes the energies of the B = len(e) queries x (B×D) into e
// and, unless grad is nil, their gradients into grad (B×D).
func (m *DrDAM) EnergyGrad(e, grad, x []float64) error {
	d, y := m.cfg.D, m.cfg.Y
	b, err := checkBatch(e, grad, x, d)
	if err != nil {
		return err
	}
	if m.count == 0 {
		return ErrEmpty
	}
	w, release := m.ws.get()
	defer release()

	n := blockRows(b, y)
	w.h = grow(w.h, b*n)
	w.xsq = grow(w.xsq, b)
	rowSqNorms(w.xsq, x, d)
	if grad != nil {
		clear(grad)
	}
	if m.cfg.Basis.Positive() {
		return m.energyGradPositive(w, e, grad, x, b, n)
	}
	w.s = grow(w.s, b)
	clear(w.s)
	sincos := m.cfg.Basis == features.SinCos
	for lo := 0; lo < y; lo += n {
		hi := min(lo+n, y)
		nn := hi - lo
		h := w.h[:b*nn]
		m.fm.Phases(h, x, lo, hi)
		tc := m.t[lo:hi]
		var ts []float64
		if sincos {
			ts = m.t[y+lo : y+hi]
		}
		for r := range b {
			row := h[r*nn : (r+1)*nn]
			var acc float64
			if sincos {
				for j, v := range row {
					s, c := math.Sincos(v)
					acc += tc[j]*c + ts[j]*s
					row[j] = ts[j]*c - tc[j]*s
				}
			} else {
				for j, v := range row {
					s, c := math.Sincos(v)
					acc += tc[j] * c
					row[j] = -tc[j] * s
				}
			}
			w.s[r] += acc
		}
		if grad != nil {
			m.fm.Proj.ProjectTAdd(grad, h, lo, hi)
		}
	}
	k := 1 / math.Sqrt(float64(y))
	if !sincos {
		k = math.Sqrt(2 / float64(y))
	}
	eps, beta, rb := m.cfg.Epsilon, m.cfg.Beta, math.Sqrt(m.cfg.Beta)
	for r := range b {
		s := k * w.s[r]
		extra := m.logScale
		if m.cfg.Similarity == Dot {
			extra += beta * w.xsq[r] / 2
		}
		var clipped bool
		if extra == 0 {
			clipped = !(s >= eps) // as the peers: the clip is active where s < ε
		} else {
			clipped = !(s > 0) || math.Log(s)+extra < math.Log(eps)
		}
		if m.finish(e, grad, x, r, clipped, math.Log(s)+m.logScale) {
			continue
		}
		g := grad[r*d : (r+1)*d]
		inv := -1 / (rb * w.s[r])
		for i := range g {
			g[i] *= inv
		}
	}
	if i := firstNonFinite(e); i >= 0 {
		return fmt.Errorf("query %d: energy is %v", i, e[i])
	}
	return nil
}

// finish writes the energy of query r from log(φ(x)·T) = logS, or the
// clipped energy and gradient, and reports whether the gradient row is done
// (no gradient wanted, or clipped).
func (m *DrDAM) finish(e, grad, x []float64, r int, clipped bool, logS float64) bool {
	d, beta := m.cfg.D, m.cfg.Beta
	if !clipped {
		e[r] = -logS / beta
		return grad == nil
	}
	e[r] = -math.Log(m.cfg.Epsilon) / beta
	if m.cfg.Similarity == Dot {
		var sq float64
		for _, v := range x[r*d : (r+1)*d] {
			sq += v * v
		}
		e[r] += sq / 2
	}
	if grad != nil {
		g := grad[r*d : (r+1)*d]
		if m.cfg.Similarity == Dot {
			copy(g, x[r*d:(r+1)*d])
		} else {
			clear(g)
		}
	}
	return true
}

// energyGradPositive is EnergyGrad for Exp and ExpExp, in the log domain:
// log(φ(x)·T) = LSE_α(±h_α + log T_α) − β‖x‖² − ½ log(Y·mult), and
// ∇Ê = 2x − Wᵀ(p⁺ − p⁻)/√β with p the softmax of those scores.
func (m *DrDAM) energyGradPositive(w *drWork, e, grad, x []float64, b, n int) error {
	d, y := m.cfg.D, m.cfg.Y
	expexp := m.cfg.Basis == features.ExpExp
	if expexp {
		w.a = grow(w.a, 2*b*n)
	}
	w.lse.reset(b)
	for lo := 0; lo < y; lo += n {
		hi := min(lo+n, y)
		nn := hi - lo
		h := w.h[:b*nn]
		m.fm.Phases(h, x, lo, hi)
		tp := m.t[lo:hi]
		if !expexp {
			for r := range b {
				row := h[r*nn : (r+1)*nn]
				for j := range row {
					row[j] += tp[j]
				}
			}
			w.lse.block(h, nn, grad, d)
		} else {
			tm := m.t[y+lo : y+hi]
			a := w.a[:2*b*nn]
			for r := range b {
				row, ar := h[r*nn:(r+1)*nn], a[r*2*nn:(r+1)*2*nn]
				for j, v := range row {
					ar[j] = v + tp[j]
					ar[nn+j] = -v + tm[j]
				}
			}
			w.lse.block(a, 2*nn, grad, d)
			for r := range b {
				row, ar := h[r*nn:(r+1)*nn], a[r*2*nn:(r+1)*2*nn]
				for j := range row {
					row[j] = ar[j] - ar[nn+j]
				}
			}
		}
		if grad != nil {
			m.fm.Proj.ProjectTAdd(grad, h, lo, hi)
		}
	}
	beta, eps := m.cfg.Beta, m.cfg.Epsilon
	logNorm := 0.5 * math.Log(float64(m.cfg.Basis.Width(y)))
	rb := math.Sqrt(beta)
	for r := range b {
		logS := w.lse.logSum(r) - beta*w.xsq[r] - logNorm
		if math.IsInf(logS, -1) && eps == 0 {
			return fmt.Errorf("query %d: φ(x)·T = 0, the energy is +Inf; use a clip floor ε > 0", r)
		}
		arg := logS
		if m.cfg.Similarity == Dot {
			arg += beta * w.xsq[r] / 2
		}
		clipped := math.IsInf(logS, -1) || (eps > 0 && arg < math.Log(eps))
		if m.finish(e, grad, x, r, clipped, logS) {
			continue
		}
		g, xr := grad[r*d:(r+1)*d], x[r*d:(r+1)*d]
		inv := 1 / (rb * w.lse.l[r])
		for i := range g {
			g[i] = 2*xr[i] - g[i]*inv
		}
	}
	if i := firstNonFinite(e); i >= 0 {
		return fmt.Errorf("query %d: energy is %v", i, e[i])
	}
	return nil
}

var _ Memory = (*DrDAM)(nil)
