package dam

import (
	"fmt"
	"math"

	"github.com/drdam/drdam/internal/kern"
	"github.com/drdam/drdam/internal/vmath"
)

// trigFamily is the trigonometric family (Cos, SinCos): features
// Norm(Y)·cos(h + b) (and sin), whose kernel estimate can be negative, so
// that the energy clips φ(x)·T at ε > 0. T is stored as t with a shared
// log-scale c, T = exp(c)·t: c is 0 for the L2 energy and the largest
// log-weight β‖ξ‖²/2 stored for the dot energy, so that every weight
// exp(lw − c) of t is at most 1.
type trigFamily[T kern.Float] struct{}

func (trigFamily[T]) emptyValue() float64 { return 0 }

func (trigFamily[T]) checkScale(c Config, logScale float64) error {
	if c.Similarity == Dot {
		if !(logScale >= 0 && logScale <= MaxDotLogWeight) {
			return fmt.Errorf("the log-scale of T is %v, want the largest β‖ξ‖²/2 of a stored pattern, in [0, %d]", logScale, MaxDotLogWeight)
		}
		return nil
	}
	return zeroScale(c, logScale)
}

// tBound: every feature is Norm(Y) times a cosine or a sine, √(2/Y) for
// Cos and 1/√Y for SinCos, and every weight of t is at most 1 (1 for the
// L2 energy; exp(lw − logScale) ≤ 1 for the dot energy, as raiseScale and
// Merge keep logScale at the largest log-weight), so |t_i| ≤
// count·Norm(Y), with tSlack.
func (trigFamily[T]) tBound(c Config, count uint64) (float64, string) {
	kn := c.Basis.Norm(c.Y)
	b := float64(count) * kn * (1 + tSlack)
	return b, fmt.Sprintf("|t_i| ≤ %d·%.6g·(1 + 2⁻¹⁰) = %.6g (a feature of the %v basis with Y = %d is at most %.6g in absolute value)", count, kn, b, c.Basis, c.Y, kn)
}

func (f trigFamily[T]) checkBound(c Config, t []float64, count uint64) error {
	bound, how := f.tBound(c, count)
	for i, v := range t {
		if math.Abs(v) > bound {
			return boundErr(v, i, count, how)
		}
	}
	return nil
}

func (trigFamily[T]) exportT(dst, t []float64, logScale float64) {
	if logScale == 0 {
		copy(dst, t)
		return
	}
	s := math.Exp(logScale)
	for i, v := range t {
		dst[i] = s * v
	}
}

// merge brings both to the larger log-scale.
func (trigFamily[T]) merge(t []float64, ls float64, empty bool, o []float64, ol float64) float64 {
	if empty {
		copy(t, o)
		return ol
	}
	c := max(ls, ol)
	sm, so := math.Exp(ls-c), math.Exp(ol-c)
	for i, v := range o {
		t[i] = sm*t[i] + so*v
	}
	return c
}

// prepare raises the log-scale of the dot energy to the largest
// log-weight added; a removal of a pattern heavier than every stored one
// is refused.
func (trigFamily[T]) prepare(m *DrDAM, lw, _ []float64, sign float64) error {
	if m.cfg.Similarity != Dot {
		return nil
	}
	if sign > 0 {
		m.raiseScale(lw)
		return nil
	}
	// Every stored pattern had a log-weight ≤ logScale (raiseScale saw to
	// that), so a larger one was never stored.
	for i, v := range lw {
		if v > m.logScale {
			return fmt.Errorf("patterns: row %d is not stored in the memory (its weight exceeds every stored one)", i+1)
		}
	}
	return nil
}

// laneWeights: Norm(Y)·exp(lw − logScale), 0 for padding.
func (trigFamily[T]) laneWeights(wl, lw []float64, c Config, logScale float64) {
	kn := c.Basis.Norm(c.Y)
	for j := range wl {
		switch {
		case j >= len(lw):
			wl[j] = 0
		case c.Similarity == Dot:
			wl[j] = kn * math.Exp(lw[j]-logScale)
		default:
			wl[j] = kn
		}
	}
}

func (trigFamily[T]) subsetAdd(out, h, _, t []float64, a int, c Config) {
	y := c.Y
	norm := c.Basis.Norm(y)
	two := c.Basis.Halves() == 2
	for r, v := range h {
		var sum float64
		if two {
			sn, cs := math.Sincos(v)
			sum = cs*t[a] + sn*t[y+a]
		} else {
			sum = math.Cos(v) * t[a]
		}
		out[r] += norm * sum
	}
}

func (trigFamily[T]) subsetFinish(out []float64, scale, logScale float64) {
	for r := range out {
		out[r] *= scale * math.Exp(logScale)
	}
}

func (trigFamily[T]) subsetEnergy(e, sums []float64, c Config) error {
	for r, v := range sums {
		e[r] = -math.Log(max(v, c.Epsilon)) / c.Beta
	}
	return nil
}

// params: T_c and T_s per row (r2 nil for Cos).
func (trigFamily[T]) params(t []float64, y, n int) *rowParams[T] {
	p := &rowParams[T]{r1: padTo[T](t[:y], n, 0, 0)}
	if len(t) > y {
		p.r2 = padTo[T](t[y:], n, 0, 0)
	}
	return p
}

// finishEnergy: E = −log(Norm·s·exp(c))/β, clipped where the estimate is
// under ε; the gradient weights are scaled by −1/(√β·s).
func (trigFamily[T]) finishEnergy(m *DrDAM, ev *eval[T], e, grad, x, xsq []float64, floor []bool) error {
	cfg := m.cfg
	d, beta, eps := cfg.D, cfg.Beta, cfg.Epsilon
	rb := math.Sqrt(beta)
	k := cfg.Basis.Norm(cfg.Y)
	for r := range e {
		sum := ev.s[r]
		s := k * sum
		extra := m.logScale
		if cfg.Similarity == Dot {
			extra += beta * xsq[r] / 2
		}
		var clipped bool
		if extra == 0 {
			clipped = !(s >= eps) // as the peers: the clip is active where s < ε
		} else {
			clipped = !(s > 0) || math.Log(s)+extra < math.Log(eps)
		}
		if m.finish(e, grad, x, floor, r, clipped, math.Log(s)+m.logScale, xsq[r]) {
			continue
		}
		g := grad[r*d : (r+1)*d]
		inv := -1 / (rb * sum)
		for i := range g {
			g[i] *= inv
		}
	}
	return nil
}

// updateBlock: the weighted sums of cos and sin over the patterns, query
// panel by query panel, added to the block's rows of t.
func (trigFamily[T]) updateBlock(u *updPass[T], bf *updBuffers[T], hb []T, lo, n, rows int) {
	l := kern.Lanes[T]()
	sn, cs, acc := bf.sn[:n*l], bf.cs[:n*l], bf.acc[:2*n]
	clear(acc)
	for qp := range u.np {
		u.task.Poll() // a helper that left its wave (SetWave) comes back
		hq := hb[qp*n*l : (qp+1)*n*l]
		if u.bias != nil {
			for r := range n {
				bv := u.bias[lo+r]
				for j := range l {
					hq[r*l+j] += bv
				}
			}
		}
		sinCos(sn, cs, hq)
		wq := u.wl[qp*l : (qp+1)*l]
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
		u.t[lo+r] += u.sign * acc[r]
		if u.two {
			u.t[u.y+lo+r] += u.sign * acc[n+r]
		}
	}
}

// The evaluation's pass: Σ_α (T_c cos + T_s sin) per query lane.

func (trigFamily[T]) initGroup(ev *eval[T], g *group[T]) {
	if oneLane(ev, ev.nqp-1) {
		g.lane = growT(g.lane, 4*ev.src.maxRows())
	}
}

func (trigFamily[T]) elementwisePanel(ev *eval[T], g *group[T], hq []T, qp, lo, n int) {
	l := kern.Lanes[T]()
	p := ev.p
	acc := g.acc[:l]
	clear(acc)
	if oneLane(ev, qp) {
		// One query in the panel: its lane alone, bit for bit what the
		// whole panel's pass gives it, for less work (BENCHMARKS.md, "One
		// query: the lane pass").
		trigLane(hq, rowsOf(p.bias, lo, n), rowsOf(p.r1, lo, n), rowsOf(p.r2, lo, n), acc, l, g.lane)
	} else {
		trigBlock(hq, rowsOf(p.bias, lo, n), rowsOf(p.r1, lo, n), rowsOf(p.r2, lo, n), acc, l)
	}
	s := g.s[qp*l : (qp+1)*l]
	for j, v := range acc {
		s[j] += float64(v)
	}
}

func (trigFamily[T]) finishGroup(*group[T]) {}

func (trigFamily[T]) combine(ev *eval[T]) {
	for q := range ev.b {
		for gi := range ev.ng {
			ev.s[q] += ev.groups[gi].s[q]
		}
	}
}

func (trigFamily[T]) groupScale(*eval[T], *group[T], int) (float64, bool) { return 1, true }

// oneLane reports whether the trigonometric pass of query panel qp takes
// its one query's lane alone (vmath.TrigLane32, TrigLane64): the panel
// holds one query (the batch's last panel, B = 1 mod L).
func oneLane[T kern.Float](ev *eval[T], qp int) bool {
	return ev.b-qp*kern.Lanes[T]() == 1
}

func trigBlock[T kern.Float](h, bias, tc, ts, acc []T, q int) {
	if is32[T]() {
		vmath.TrigBlock32(f32(h), f32(bias), f32(tc), f32(ts), f32(acc), q)
	} else {
		vmath.TrigBlock64(f64(h), f64(bias), f64(tc), f64(ts), f64(acc), q)
	}
}

func trigLane[T kern.Float](h, bias, tc, ts, acc []T, q int, buf []T) {
	if is32[T]() {
		vmath.TrigLane32(f32(h), f32(bias), f32(tc), f32(ts), f32(acc), q, 0, f32(buf))
	} else {
		vmath.TrigLane64(f64(h), f64(bias), f64(tc), f64(ts), f64(acc), q, 0, f64(buf))
	}
}

func sinCos[T kern.Float](sin, cos, x []T) {
	if is32[T]() {
		vmath.SinCos32(f32(sin), f32(cos), f32(x))
	} else {
		vmath.SinCos64(f64(sin), f64(cos), f64(x))
	}
}
