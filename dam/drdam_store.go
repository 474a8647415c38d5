package dam

import (
	"fmt"
	"math"
	"slices"

	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/kern"
	"github.com/drdam/drdam/internal/par"
)

// This file stores patterns in a DrDAM: Add, Remove and Merge, the scale
// of T, and the update of T in the compute precision.

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
	k, err := checkRows("patterns", patterns, d, m.cfg)
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
		if err := checkDotWeights(sq, beta); err != nil {
			return err
		}
		for i := range lw {
			lw[i] = beta * sq[i] / 2
		}
	}
	// Keep T as it was, to restore it if the update cannot be represented.
	saved, savedScale := slices.Clone(m.t), m.logScale
	if m.cfg.Basis.Positive() {
		ln := m.cfg.Basis.LogNorm(y)
		for i := range lw {
			lw[i] -= beta*sq[i] - ln
		}
	} else if m.cfg.Similarity == Dot {
		if sign > 0 {
			m.raiseScale(lw)
		} else {
			// Every stored pattern had a log-weight ≤ logScale (raiseScale
			// saw to that), so a larger one was never stored.
			for i, v := range lw {
				if v > m.logScale {
					return fmt.Errorf("patterns: row %d is not stored in the memory (its weight exceeds every stored one)", i+1)
				}
			}
		}
	}
	m.eng.update(m, patterns, lw, sign)
	if err := checkT(m.cfg, m.t); err != nil {
		copy(m.t, saved)
		m.logScale = savedScale
		m.eng.invalidate()
		return fmt.Errorf("patterns: %w; the memory is unchanged", err)
	}
	m.count += int(sign) * k
	if m.count == 0 {
		m.clear() // removing everything restores the empty memory exactly
	}
	m.eng.invalidate()
	return nil
}

// MaxDotLogWeight is the largest β‖ξ‖²/2 of a pattern that a DrDAM of the
// dot-product energy stores: its weight exp(β‖ξ‖²/2) stays within float64
// (e^700 ≈ 10³⁰⁴), and so does the ratio of any two weights.
const MaxDotLogWeight = 700

// checkT checks the stored form t of T as Load does: finite, but for the
// −Inf of an empty entry of a positive basis (log 0).
func checkT(c Config, t []float64) error {
	for i, v := range t {
		if math.IsNaN(v) || math.IsInf(v, 1) || (math.IsInf(v, -1) && !c.Basis.Positive()) {
			return fmt.Errorf("T would hold %v at index %d", v, i)
		}
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
	m.eng.invalidate()
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
// the same feature map: T ← T₁ + T₂, with the arithmetic of Sum.Merge.
func (m *DrDAM) Merge(other Memory) error {
	o, ok := other.(*DrDAM)
	if !ok {
		return fmt.Errorf("cannot merge an %v into a drdam", other.Config().Rep)
	}
	if err := compatible(m.cfg, o.cfg); err != nil {
		return err
	}
	if m.cfg.Projection == features.External && o.fm != m.fm {
		return fmt.Errorf("cannot merge memories built on different external projections")
	}
	if o.count > 0 {
		m.logScale = mergeT(m.cfg.Basis.Positive(), m.t, m.logScale, m.count == 0, o.t, o.logScale)
	}
	m.count += o.count
	m.eng.invalidate()
	return nil
}

// update adds (sign > 0) or subtracts Σ_μ exp(lw_μ)·φ(ξ^μ) to T, in
// chunks of patterns; each group of blocks of projections writes its own
// rows of t, in parallel.
func (c *drCompute[T]) update(m *DrDAM, patterns, lw []float64, sign float64) {
	d := m.cfg.D
	k := len(patterns) / d
	const chunk = 256
	for c0 := 0; c0 < k; c0 += chunk {
		c1 := min(c0+chunk, k)
		c.updateChunk(m, patterns[c0*d:c1*d], lw[c0:c1], sign)
	}
}

// updWork is the working memory of an update (updateChunk): the patterns
// in panels, their weights per lane, and a set of buffers per worker,
// kept between updates (drCompute.upd) so that an Add allocates nothing
// per chunk once they are large enough.
type updWork[T kern.Float] struct {
	xp   kern.Panels[T]
	wl   []float64
	bufs []updBuffers[T]
	pool chan *updBuffers[T]
}

// updBuffers are one worker's buffers of an update.
type updBuffers[T kern.Float] struct {
	sc        scratch[T]
	h, sn, cs []T
	acc       []float64
}

func (c *drCompute[T]) updateChunk(m *DrDAM, patterns, lw []float64, sign float64) {
	cfg := m.cfg
	l, y := kern.Lanes[T](), cfg.Y
	uw := c.upd.get()
	defer c.upd.put(uw)
	xp := &uw.xp
	xp.Resize(len(lw), cfg.D)
	xp.SetRows(0, patterns, math.Sqrt(cfg.Beta))
	nl := xp.NP * l
	positive := cfg.Basis.Positive()
	// Per memory lane: its weight (trigonometric) or log-weight (positive);
	// padding lanes get 0 and −Inf.
	uw.wl = grow(uw.wl, nl)
	wl := uw.wl
	kn := cfg.Basis.Norm(y)
	for j := range wl {
		switch {
		case j >= len(lw) && positive:
			wl[j] = math.Inf(-1)
		case j >= len(lw):
			wl[j] = 0
		case positive:
			wl[j] = lw[j]
		default:
			wl[j] = kn
			if cfg.Similarity == Dot {
				wl[j] *= math.Exp(lw[j] - m.logScale)
			}
		}
	}
	nb, _ := c.src.count()
	two := cfg.Basis.Halves() == 2
	// Each block is a job: it writes its own rows of t, so T is the same
	// whichever worker runs it, in whatever order. A job takes a set of
	// buffers from a pool of one per worker, so that the workers end an
	// update within a block of each other (with a job per group of blocks,
	// as the products have, the last group kept one worker alone for up to
	// an eighth of the update: BENCHMARKS.md, "The memory service under
	// load"). In waves (SetWave) the helpers leave and come back between
	// blocks, and ask each other back between query panels
	// (par.Task.Poll). The sets sit in the pool between updates: made when
	// the number of workers changes, grown in place.
	if nw := par.Workers(); len(uw.bufs) != nw {
		uw.bufs, uw.pool = make([]updBuffers[T], nw), make(chan *updBuffers[T], nw)
		for i := range uw.bufs {
			uw.pool <- &uw.bufs[i]
		}
	}
	mr := c.src.maxRows()
	for i := range uw.bufs {
		bf := &uw.bufs[i]
		bf.h, bf.sn, bf.cs = growT(bf.h, xp.NP*mr*l), growT(bf.sn, mr*l), growT(bf.cs, mr*l)
		if !positive {
			bf.acc = grow(bf.acc, 2*mr)
		}
	}
	pool := uw.pool
	var task par.Task
	task.F = func(blk int) {
		bf := <-pool
		defer func() { pool <- bf }()
		sc, h, sn, cs, accBuf := &bf.sc, bf.h, bf.sn, bf.cs, bf.acc
		lo, n := c.src.span(blk)
		hb := h[:xp.NP*n*l]
		c.src.forward(hb, xp, blk, sc)
		rows := max(0, min(n, y-lo))
		if !positive {
			acc := accBuf[:2*n]
			clear(acc)
			for qp := range xp.NP {
				task.Poll() // a helper that left its wave (SetWave) comes back
				hq := hb[qp*n*l : (qp+1)*n*l]
				if c.bias != nil {
					for r := range n {
						bv := c.bias[lo+r]
						for j := range l {
							hq[r*l+j] += bv
						}
					}
				}
				sinCos(sn[:n*l], cs[:n*l], hq)
				wq := wl[qp*l : (qp+1)*l]
				for r := range rows {
					var sc, ss float64
					for j, wv := range wq {
						sc += wv * float64(cs[r*l+j])
						ss += wv * float64(sn[r*l+j])
					}
					acc[r] += sc
					acc[n+r] += ss
				}
			}
			for r := range rows {
				m.t[lo+r] += sign * acc[r]
				if two {
					m.t[y+lo+r] += sign * acc[n+r]
				}
			}
			return
		}
		halves := 1
		if two {
			halves = 2
		}
		for half := range halves {
			neg := half == 1
			for r := range rows {
				mx := math.Inf(-1)
				for qp := range xp.NP {
					for j := range l {
						v := float64(hb[qp*n*l+r*l+j])
						if neg {
							v = -v
						}
						mx = max(mx, v+wl[qp*l+j])
					}
				}
				if math.IsInf(mx, -1) {
					continue
				}
				var sum float64
				for qp := range xp.NP {
					for j := range l {
						v := float64(hb[qp*n*l+r*l+j])
						if neg {
							v = -v
						}
						sum += math.Exp(v + wl[qp*l+j] - mx)
					}
				}
				idx := half*y + lo + r
				if sign > 0 {
					m.t[idx] = logAddExp(m.t[idx], mx+math.Log(sum))
				} else {
					m.t[idx] = logSubExp(m.t[idx], mx+math.Log(sum))
				}
			}
		}
	}
	task.RunWaves(nb, m.wave)
}
