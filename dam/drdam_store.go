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
	after := m.count + int(sign)*k
	if after == 0 {
		err = checkFiniteT(m.cfg, m.t) // then cleared exactly, below
	} else {
		err = checkT(m.cfg, m.t, m.logScale, uint64(after))
	}
	if err != nil {
		copy(m.t, saved)
		m.logScale = savedScale
		m.eng.invalidate()
		return &RefusedError{Err: err}
	}
	m.count += int(sign) * k
	if m.count == 0 {
		m.clear() // removing everything restores the empty memory exactly
	}
	m.eng.invalidate()
	return nil
}

// RefusedError is the error of an Add or Remove that would leave T
// non-finite or beyond what the patterns then stored can produce (a
// removal of patterns that were never added can): the update was undone,
// and the memory is unchanged.
type RefusedError struct{ Err error }

func (e *RefusedError) Error() string {
	return fmt.Sprintf("patterns: %v; the memory is unchanged", e.Err)
}

func (e *RefusedError) Unwrap() error { return e.Err }

// MaxDotLogWeight is the largest β‖ξ‖²/2 of a pattern that a DrDAM of the
// dot-product energy stores: its weight exp(β‖ξ‖²/2) stays within float64
// (e^700 ≈ 10³⁰⁴), and so does the ratio of any two weights.
const MaxDotLogWeight = 700

// checkFiniteT checks that the stored form t of T is finite, but for the
// −Inf of an empty entry of a positive basis (log 0).
func checkFiniteT(c Config, t []float64) error {
	for i, v := range t {
		if math.IsNaN(v) || math.IsInf(v, 1) || (math.IsInf(v, -1) && !c.Basis.Positive()) {
			return fmt.Errorf("T would hold %v at index %d", v, i)
		}
	}
	return nil
}

// checkT checks the stored form t of T, with its log-scale, of a DrDAM of
// the validated configuration c that stores count patterns, as Load does
// (and Write, so that nothing is written that Load refuses): finite (see
// checkFiniteT), exactly the empty T (0, or −Inf for a positive basis)
// with a log-scale of 0 when count is 0, and otherwise within what count
// patterns can produce (tBound), with a log-scale that an Add can give: 0
// but for the dot energy of a trigonometric basis, whose log-scale is the
// largest β‖ξ‖²/2 stored, in [0, MaxDotLogWeight].
func checkT(c Config, t []float64, logScale float64, count uint64) error {
	if err := checkFiniteT(c, t); err != nil {
		return err
	}
	positive := c.Basis.Positive()
	if count == 0 {
		empty := 0.0
		if positive {
			empty = math.Inf(-1)
		}
		for i, v := range t {
			if v != empty {
				return fmt.Errorf("T holds %v at index %d, and no pattern is stored (want %v)", v, i, empty)
			}
		}
		if logScale != 0 {
			return fmt.Errorf("the log-scale of T is %v, and no pattern is stored (want 0)", logScale)
		}
		return nil
	}
	if c.Similarity == Dot && !positive {
		if !(logScale >= 0 && logScale <= MaxDotLogWeight) {
			return fmt.Errorf("the log-scale of T is %v, want the largest β‖ξ‖²/2 of a stored pattern, in [0, %d]", logScale, MaxDotLogWeight)
		}
	} else if logScale != 0 {
		return fmt.Errorf("the log-scale of T is %v, want 0 (the %v energy with the %v basis keeps no scale)", logScale, c.Similarity, c.Basis)
	}
	bound, how := tBound(c, count)
	for i, v := range t {
		if positive && v > bound || !positive && math.Abs(v) > bound {
			return fmt.Errorf("T would hold %v at index %d, more than %d stored patterns can produce: %s", v, i, count, how)
		}
	}
	return nil
}

// tSlack is the relative rounding slack of the trigonometric bound: the
// features' cos and sin are computed in the compute precision (float32
// approximations may pass 1 by a few ulps, 2⁻²²) and summed in float64,
// where each of the H additions of a model's history (every Add and
// Remove chunk, every Merge) may round by 2⁻⁵³ of the sum at that time:
// after adding 10⁶ patterns and removing all but one, about 10⁻⁶ of one
// pattern's bound. 2⁻¹⁰ leaves a factor of a thousand over both; a T that
// passes it is far beyond rounding (a crafted one, or patterns removed
// that were not stored).
const tSlack = 0x1p-10

// tBound returns the bound that count > 0 patterns put on the stored form
// of T in configuration c (validated, DrDAM), and says how it is found.
//
// Trigonometric bases: every feature is Norm(Y) times a cosine or a sine,
// √(2/Y) for Cos and 1/√Y for SinCos, and every weight of t is at most 1
// (1 for the L2 energy; exp(lw − logScale) ≤ 1 for the dot energy, as
// raiseScale and Merge keep logScale at the largest log-weight), so
// |t_i| ≤ count·Norm(Y), with tSlack.
//
// Positive bases: log T_i ≤ log count + max log(w·φ_i), and with y = √β·ξ,
// log(w·φ_i) = ω_i·y − ‖y‖² + log Norm(Y) for the L2 energy, at most
// ‖ω_i‖²/4 + log Norm(Y) whatever ξ (the maximum of the quadratic, at y =
// ω_i/2); for the dot energy the weight adds ‖y‖²/2, which Add keeps
// within MaxDotLogWeight, so ω_i·y − ‖y‖²/2 ≤ min(‖ω_i‖²/2,
// ‖ω_i‖·√(2·MaxDotLogWeight)). The rows' norms are bounded by how the
// projections are drawn: a normal value of generator v1 (Marsaglia's
// polar method on 53-bit uniforms) is at most √(2·104·ln 2) ≈ 12.0 in
// absolute value, one of v2 (Box–Muller on u ≥ 2⁻⁵²) at most 8.5, so a
// Gaussian row or an orthogonal one (scaled to the norm of a Gaussian row)
// has ‖ω‖² ≤ 145·D; a SORF row's norm² is a χ²(N) draw by Marsaglia and
// Tsang's method from such a normal, at most 5·N with N = max(64, the
// power of two ≥ D) ≤ max(64, 2D). The bound takes ‖ω‖² ≤ 256·max(D, 64):
// a factor 1.7 over them for the rounding of ω and of ω·y in the compute
// precision (in float32 the worst case of that rounding stays within it
// up to D of about 2·10⁶, and typical rounding, of order √D·2⁻²⁴, far
// beyond), and 1 more in the log domain for its additions. This is a loose
// bound (about 64·D for the L2 energy, where real models hold a few
// units): it refuses what no pattern can produce, not what is unlikely.
func tBound(c Config, count uint64) (float64, string) {
	n := float64(count)
	if c.Basis.Trig() {
		kn := c.Basis.Norm(c.Y)
		b := n * kn * (1 + tSlack)
		return b, fmt.Sprintf("|t_i| ≤ %d·%.6g·(1 + 2⁻¹⁰) = %.6g (a feature of the %v basis with Y = %d is at most %.6g in absolute value)", count, kn, b, c.Basis, c.Y, kn)
	}
	w2 := 256 * float64(max(c.D, 64)) // ≥ ‖ω_i‖²
	f, what := w2/4, "‖ω‖²/4"
	if c.Similarity == Dot {
		f, what = min(w2/2, math.Sqrt(w2*2*MaxDotLogWeight)), "min(‖ω‖²/2, ‖ω‖·√1400)"
	}
	ln := c.Basis.LogNorm(c.Y)
	b := math.Log(n) + ln + f + 1
	return b, fmt.Sprintf("log T_i ≤ log %d + log Norm(Y) + %s + 1 = %.6g + %.6g + %.6g + 1 = %.6g, with ‖ω‖² ≤ 256·max(D, 64) for D = %d (the %v basis, %v energy)",
		count, what, math.Log(n), ln, f, b, c.D, c.Basis, c.Similarity)
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
