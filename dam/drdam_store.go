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
	d := m.cfg.D
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
	// lw[μ]: log of the weight w_μ, and what the family folds into it
	// (prepare).
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
	if err := m.fam.prepare(m, lw, sq, sign); err != nil {
		return err
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
// family's empty value (the −Inf of an empty entry of a positive basis,
// log 0).
func checkFiniteT(c Config, t []float64) error {
	empty := familyOf(c.Basis).emptyValue()
	for i, v := range t {
		if (math.IsNaN(v) || math.IsInf(v, 0)) && v != empty {
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
	fam := familyOf(c.Basis)
	if count == 0 {
		empty := fam.emptyValue()
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
	if err := fam.checkScale(c, logScale); err != nil {
		return err
	}
	return fam.checkBound(c, t, count)
}

// zeroScale checks that the log-scale of T is 0, as every configuration
// but the dot energy of a trigonometric basis keeps it.
func zeroScale(c Config, logScale float64) error {
	if logScale != 0 {
		return fmt.Errorf("the log-scale of T is %v, want 0 (the %v energy with the %v basis keeps no scale)", logScale, c.Similarity, c.Basis)
	}
	return nil
}

// boundErr is the error of a value v at index i of T beyond what count
// patterns can produce (how says why).
func boundErr(v float64, i int, count uint64, how string) error {
	return fmt.Errorf("T would hold %v at index %d, more than %d stored patterns can produce: %s", v, i, count, how)
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
// of T in configuration c (validated, DrDAM), and says how it is found:
// the family's (trigFamily.tBound, positiveFamily.tBound).
func tBound(c Config, count uint64) (float64, string) {
	return familyOf(c.Basis).tBound(c, count)
}

// clear resets T to the empty memory.
func (m *DrDAM) clear() {
	fill := m.fam.emptyValue()
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
		m.logScale = mergeT(m.cfg, m.t, m.logScale, m.count == 0, o.t, o.logScale)
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
	pass updPass[T]
	task par.Task
}

// updBuffers are one worker's buffers of an update.
type updBuffers[T kern.Float] struct {
	sc        scratch[T]
	h, sn, cs []T
	acc       []float64
}

// updPass is what every block job of an update reads: the block source
// and the family, the stored t it writes, the patterns' lane weights, the
// shift, and the task (for Poll).
type updPass[T kern.Float] struct {
	src  blocks[T]
	fam  familyT[T]
	t    []float64
	y    int
	two  bool    // two halves of features
	sign float64 // +1 add, −1 remove
	np   int     // query panels of patterns
	wl   []float64
	bias []T
	task *par.Task
}

// updateChunk adds one chunk of patterns: its lane weights, then each
// block's forward product and the family's update of its rows
// (familyT.updateBlock).
func (c *drCompute[T]) updateChunk(m *DrDAM, patterns, lw []float64, sign float64) {
	cfg := m.cfg
	l := kern.Lanes[T]()
	uw := c.upd.get()
	defer c.upd.put(uw)
	xp := &uw.xp
	xp.Resize(len(lw), cfg.D)
	xp.SetRows(0, patterns, math.Sqrt(cfg.Beta))
	uw.wl = grow(uw.wl, xp.NP*l)
	c.fam.laneWeights(uw.wl, lw, cfg, m.logScale)
	// Each block is a job: it writes its own rows of t, so T is the same
	// whichever worker runs it, in whatever order. A job takes a set of
	// buffers from a pool of one per worker, so that the workers end an
	// update within a block of each other (with a job per group of blocks,
	// as the products have, the last group kept one worker alone for part
	// of the update: BENCHMARKS.md, "The memory service under load"). In
	// waves (SetWave) the helpers leave and come back between blocks, and
	// ask each other back between query panels (par.Task.Poll). The sets
	// sit in the pool between updates: made when the number of workers
	// changes, grown in place.
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
		bf.acc = grow(bf.acc, 2*mr)
	}
	uw.pass = updPass[T]{src: c.src, fam: c.fam, t: m.t, y: cfg.Y, two: cfg.Basis.Halves() == 2, sign: sign,
		np: xp.NP, wl: uw.wl, bias: c.bias, task: &uw.task}
	if uw.task.F == nil {
		uw.task.F = uw.job
	}
	nb, _ := c.src.count()
	uw.task.RunWaves(nb, m.wave)
	uw.pass = updPass[T]{} // holds nothing of the model between updates
}

// job is the job of block blk of an update: its forward product, then
// the family's update of its rows.
func (uw *updWork[T]) job(blk int) {
	u := &uw.pass
	bf := <-uw.pool
	defer func() { uw.pool <- bf }()
	lo, n := u.src.span(blk)
	hb := bf.h[:u.np*n*kern.Lanes[T]()]
	u.src.forward(hb, &uw.xp, blk, &bf.sc)
	u.fam.updateBlock(u, bf, hb, lo, n, max(0, min(n, u.y-lo)))
}
