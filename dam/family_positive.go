package dam

import (
	"fmt"
	"math"

	"github.com/drdam/drdam/internal/kern"
	"github.com/drdam/drdam/internal/vmath"
)

// positiveFamily is the positive family (Exp, ExpExp): features
// Norm(Y)·exp(±h − β‖x‖²), positive and spanning many orders of
// magnitude, so that T is stored in the log domain, t = log T (−Inf where
// T_α = 0), with no log-scale. Its evaluation pass is a log-sum-exp with
// running maxima, which MrDAM's energy over the patterns also uses.
type positiveFamily[T kern.Float] struct{}

func (positiveFamily[T]) emptyValue() float64 { return math.Inf(-1) }

func (positiveFamily[T]) checkScale(c Config, logScale float64) error { return zeroScale(c, logScale) }

// tBound: log T_i ≤ log count + max log(w·φ_i), and with y = √β·ξ,
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
func (positiveFamily[T]) tBound(c Config, count uint64) (float64, string) {
	w2 := 256 * float64(max(c.D, 64)) // ≥ ‖ω_i‖²
	f, what := w2/4, "‖ω‖²/4"
	if c.Similarity == Dot {
		f, what = min(w2/2, math.Sqrt(w2*2*MaxDotLogWeight)), "min(‖ω‖²/2, ‖ω‖·√1400)"
	}
	ln := c.Basis.LogNorm(c.Y)
	b := math.Log(float64(count)) + ln + f + 1
	return b, fmt.Sprintf("log T_i ≤ log %d + log Norm(Y) + %s + 1 = %.6g + %.6g + %.6g + 1 = %.6g, with ‖ω‖² ≤ 256·max(D, 64) for D = %d (the %v basis, %v energy)",
		count, what, math.Log(float64(count)), ln, f, b, c.D, c.Basis, c.Similarity)
}

func (f positiveFamily[T]) checkBound(c Config, t []float64, count uint64) error {
	bound, how := f.tBound(c, count)
	for i, v := range t {
		if v > bound {
			return boundErr(v, i, count, how)
		}
	}
	return nil
}

func (positiveFamily[T]) exportT(dst, t []float64, _ float64) {
	for i, v := range t {
		dst[i] = math.Exp(v)
	}
}

// merge adds log T by logAddExp.
func (positiveFamily[T]) merge(t []float64, ls float64, _ bool, o []float64, _ float64) float64 {
	for i, v := range o {
		t[i] = logAddExp(t[i], v)
	}
	return ls
}

// prepare folds φ's factor exp(−β‖ξ‖²)·Norm(Y) into the log-weights.
func (positiveFamily[T]) prepare(m *DrDAM, lw, sq []float64, _ float64) error {
	ln := m.cfg.Basis.LogNorm(m.cfg.Y)
	for i := range lw {
		lw[i] -= m.cfg.Beta*sq[i] - ln
	}
	return nil
}

// laneWeights: the log-weights, −Inf for padding.
func (positiveFamily[T]) laneWeights(wl, lw []float64, _ Config, _ float64) {
	for j := range wl {
		if j < len(lw) {
			wl[j] = lw[j]
		} else {
			wl[j] = math.Inf(-1)
		}
	}
}

// subsetAdd: log φ_a(x) = log Norm + h − β‖x‖² (and −h for the second
// half), added to the log-sums.
func (positiveFamily[T]) subsetAdd(out, h, xsq, t []float64, a int, c Config) {
	y := c.Y
	two := c.Basis.Halves() == 2
	for r, v := range h {
		l := c.Basis.LogNorm(y) - c.Beta*xsq[r]
		out[r] = logAddExp(out[r], l+v+t[a])
		if two {
			out[r] = logAddExp(out[r], l-v+t[y+a])
		}
	}
}

func (positiveFamily[T]) subsetFinish(out []float64, scale, _ float64) {
	for r := range out {
		out[r] += math.Log(scale)
	}
}

func (positiveFamily[T]) subsetEnergy(e, sums []float64, c Config) error {
	for r, v := range sums {
		// v is log of the sum; the floor applies as in EnergyGrad.
		if c.Epsilon > 0 && v < math.Log(c.Epsilon) || math.IsInf(v, -1) {
			if c.Epsilon == 0 {
				return fmt.Errorf("SubsetEnergy: query in row %d: φ(x)·T = 0 on the subset, the energy is +Inf", r+1)
			}
			v = math.Log(c.Epsilon)
		}
		e[r] = -v / c.Beta
	}
	return nil
}

// params: log T⁺ and log T⁻ per row, less their maximum so that float32
// keeps their precision (added back to the log-sum as shift).
func (positiveFamily[T]) params(t []float64, y, n int) *rowParams[T] {
	shift := math.Inf(-1)
	for _, v := range t {
		shift = max(shift, v)
	}
	if math.IsInf(shift, -1) {
		shift = 0
	}
	p := &rowParams[T]{shift: shift, r1: padTo[T](t[:y], n, shift, math.Inf(-1))}
	if len(t) > y {
		p.r2 = padTo[T](t[y:], n, shift, math.Inf(-1))
	}
	return p
}

// finishEnergy: log φ(x)·T from the log-sum-exp; the gradient is 2x less
// the softmax-weighted Wᵀ·(√β·…) over the normalizer.
func (positiveFamily[T]) finishEnergy(m *DrDAM, ev *eval[T], e, grad, x, xsq []float64, floor []bool) error {
	cfg := m.cfg
	d, beta, eps := cfg.D, cfg.Beta, cfg.Epsilon
	rb := math.Sqrt(beta)
	logNorm := cfg.Basis.LogNorm(cfg.Y)
	for r := range e {
		l := ev.s[r]
		logS := math.Inf(-1)
		if l > 0 {
			logS = ev.m[r] + math.Log(l) + ev.p.shift - beta*xsq[r] + logNorm
		}
		if math.IsInf(logS, -1) && eps == 0 {
			return fmt.Errorf("query in row %d: φ(x)·T = 0, the energy is +Inf; use a clip floor ε > 0", r+1)
		}
		arg := logS
		if cfg.Similarity == Dot {
			arg += beta * xsq[r] / 2
		}
		clipped := math.IsInf(logS, -1) || (eps > 0 && arg < math.Log(eps))
		if m.finish(e, grad, x, floor, r, clipped, logS, xsq[r]) {
			continue
		}
		g, xr := grad[r*d:(r+1)*d], x[r*d:(r+1)*d]
		inv := 1 / (rb * l)
		for i := range g {
			g[i] = 2*xr[i] - g[i]*inv
		}
	}
	return nil
}

// updateBlock: per row and half, the log-sum-exp of ±h + log-weight over
// the patterns, added to (or removed from) log T.
func (positiveFamily[T]) updateBlock(u *updPass[T], _ *updBuffers[T], hb []T, lo, n, rows int) {
	l := kern.Lanes[T]()
	halves := 1
	if u.two {
		halves = 2
	}
	for half := range halves {
		neg := half == 1
		for r := range rows {
			mx := math.Inf(-1)
			for qp := range u.np {
				for j := range l {
					v := float64(hb[qp*n*l+r*l+j])
					if neg {
						v = -v
					}
					mx = max(mx, v+u.wl[qp*l+j])
				}
			}
			if math.IsInf(mx, -1) {
				continue
			}
			var sum float64
			for qp := range u.np {
				for j := range l {
					v := float64(hb[qp*n*l+r*l+j])
					if neg {
						v = -v
					}
					sum += math.Exp(v + u.wl[qp*l+j] - mx)
				}
			}
			idx := half*u.y + lo + r
			if u.sign > 0 {
				u.t[idx] = logAddExp(u.t[idx], mx+math.Log(sum))
			} else {
				u.t[idx] = logSubExp(u.t[idx], mx+math.Log(sum))
			}
		}
	}
}

// The evaluation's pass: the log-sum-exp of the scores h + r1 (and
// −h + r2) per query lane, with running maxima; the softmax weights are
// the gradient weights.

func (positiveFamily[T]) initGroup(ev *eval[T], g *group[T]) {
	n := ev.nqp * kern.Lanes[T]()
	g.mt = growT(g.mt, n)
	g.m = grow(g.m, n)
	g.touched = growBool(g.touched, n)
	for j := range g.mt {
		g.mt[j] = T(math.Inf(-1))
		g.touched[j] = false
	}
}

// elementwisePanel also rescales the group's sums and Z where a lane's
// maximum grows.
func (positiveFamily[T]) elementwisePanel(ev *eval[T], g *group[T], hq []T, qp, lo, n int) {
	l := kern.Lanes[T]()
	p := ev.p
	acc := g.acc[:l]
	clear(acc)
	s := g.s[qp*l : (qp+1)*l]
	mt := g.mt[qp*l : (qp+1)*l]
	copy(g.mOld, mt)
	expBlockMax(mt, hq, rowsOf(p.r1, lo, n), rowsOf(p.r2, lo, n), l)
	for j := range mt {
		if mt[j] > g.mOld[j] && g.touched[qp*l+j] {
			sc := math.Exp(float64(g.mOld[j]) - float64(mt[j]))
			s[j] *= sc
			switch {
			case !ev.withGrad:
			case ev.nsrc != nil:
				if j < ev.b {
					g.zn.ScaleRow(j, T(sc))
				}
			default:
				rescaleLane(&g.z, qp, j, T(sc))
			}
		}
	}
	expBlockWeights(acc, hq, rowsOf(p.r1, lo, n), rowsOf(p.r2, lo, n), mt, l)
	for j, v := range acc {
		s[j] += float64(v)
		if !math.IsInf(float64(mt[j]), -1) {
			g.touched[qp*l+j] = true
		}
	}
}

// finishGroup keeps the group's running maxima in float64.
func (positiveFamily[T]) finishGroup(g *group[T]) {
	for j, v := range g.mt {
		g.m[j] = float64(v)
	}
}

// combine rescales each group to the common maximum.
func (positiveFamily[T]) combine(ev *eval[T]) {
	for q := range ev.b {
		m := math.Inf(-1)
		for gi := range ev.ng {
			m = max(m, ev.groups[gi].m[q])
		}
		ev.m[q] = m
		for gi := range ev.ng {
			if gm := ev.groups[gi].m[q]; !math.IsInf(gm, -1) {
				ev.s[q] += ev.groups[gi].s[q] * math.Exp(gm-m)
			}
		}
	}
}

func (positiveFamily[T]) groupScale(ev *eval[T], g *group[T], q int) (float64, bool) {
	if math.IsInf(g.m[q], -1) {
		return 0, false
	}
	return math.Exp(g.m[q] - ev.m[q]), true
}

// rescaleLane multiplies lane j of query panel qp of z by s.
func rescaleLane[T kern.Float](z *kern.Panels[T], qp, j int, s T) {
	l := kern.Lanes[T]()
	base := qp*z.Cp*l + j
	for d := range z.Cp {
		z.Data[base+d*l] *= s
	}
}

func expBlockMax[T kern.Float](m, h, lt, ltm []T, q int) {
	if is32[T]() {
		vmath.ExpBlockMax32(f32(m), f32(h), f32(lt), f32(ltm), q)
	} else {
		vmath.ExpBlockMax64(f64(m), f64(h), f64(lt), f64(ltm), q)
	}
}

func expBlockWeights[T kern.Float](sum, h, lt, ltm, m []T, q int) {
	if is32[T]() {
		vmath.ExpBlockWeights32(f32(sum), f32(h), f32(lt), f32(ltm), f32(m), q)
	} else {
		vmath.ExpBlockWeights64(f64(sum), f64(h), f64(lt), f64(ltm), f64(m), q)
	}
}
