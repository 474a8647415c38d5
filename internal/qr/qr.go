package qr

import (
	"fmt"
	"math"

	"github.com/drdam/drdam/internal/cpuid"
)

// nb is the panel width: the number of reflectors in one block reflector
// I − V·T·Vᵀ.
const nb = 32

// nbi is the width of the sub-panels of a panel.
const nbi = 8

// Work is the workspace of Orthonormalize for one dimension d. It is
// reused from call to call (no allocation once it exists); one Work must
// not be used by several goroutines at once.
type Work struct {
	d    int
	ld   int       // row stride of the working matrix: d rounded up to 8
	rows int       // rows of the working matrix: d rounded up to 8
	x    []float64 // the working matrix (rows×ld, zero padded) when d is not a multiple of 8
	vr   []float64 // nb×m: the panel's reflectors, row j = v_j on columns [k, ld)
	vp   []float64 // m×nb: vr transposed
	gram []float64 // nb×nb: the Gram matrix of the panel's reflectors
	tn   []float64 // ⌈d/nb⌉ blocks of nb×nb: −T of each panel
	tq   []float64 // nb×nb: −Tᵀ of the panel being applied
	w, u []float64 // 4×nb: V-coordinates of four rows, before and after T
	tau  [nb]float64
	beta []float64   // d: the diagonal of R (the Householder β's)
	lv   cpuid.Level // the kernel level of the call in progress
}

// NewWork returns the workspace for d×d matrices (d ≥ 1).
func NewWork(d int) *Work {
	if d <= 0 {
		panic(fmt.Sprintf("qr: NewWork(%d)", d))
	}
	ld := (d + 7) &^ 7
	w := &Work{d: d, ld: ld, rows: ld}
	if ld != d {
		w.x = make([]float64, w.rows*ld)
	}
	np := (d + nb - 1) / nb
	w.vr = make([]float64, nb*ld)
	w.vp = make([]float64, ld*nb)
	w.gram = make([]float64, nb*nb)
	w.tn = make([]float64, np*nb*nb)
	w.tq = make([]float64, nb*nb)
	w.w = make([]float64, 4*nb)
	w.u = make([]float64, 4*nb)
	w.beta = make([]float64, d)
	return w
}

// Orthonormalize replaces the rows g_0, …, g_{d−1} of the d×d row-major
// matrix g by scale[i]·q_i (q_i alone if scale is nil), where q_0, …, q_{d−1}
// is the Gram–Schmidt orthonormalization of g_0, …, g_{d−1} in order: the
// Q factor of gᵀ = Q·R with R's diagonal positive. It computes it by a
// blocked Householder QR of gᵀ (an LQ factorization of g) and forms Q
// from the reflectors, in O(d³) (8/3·d³ flops). The result is the same
// bits on every machine, kernel level and number of cores (see the
// package documentation). progress, if not nil, is called with the
// fraction of the work done after each panel (ending with 1).
func Orthonormalize(g []float64, d int, scale []float64, w *Work, progress func(frac float64)) {
	if w == nil {
		panic("qr: Orthonormalize without a workspace")
	}
	if w.d != d || len(g) != d*d || (scale != nil && len(scale) != d) {
		panic(fmt.Sprintf("qr: Orthonormalize(%d values, d = %d, %d scales) with a workspace for d = %d", len(g), d, len(scale), w.d))
	}
	w.lv = cpuid.Current()
	ld, x := w.ld, g
	if w.x != nil {
		x = w.x
		clear(x)
		for i := range d {
			copy(x[i*ld:i*ld+d], g[i*d:(i+1)*d])
		}
	}
	// Progress: panel k costs about (d−k)² in each phase.
	var total, done float64
	report := func(k int) {
		if progress != nil {
			done += float64(d-k) * float64(d-k)
			progress(min(done/total, 1))
		}
	}
	if progress != nil {
		for k := 0; k < d; k += nb {
			total += 2 * float64(d-k) * float64(d-k)
		}
	}

	// The LQ factorization g = L·H_{d−1}⋯H_0 (in the column view,
	// A = gᵀ = H_0⋯H_{d−1}·R with R = Lᵀ). Row r of x keeps v_r (without
	// its leading 1) after its diagonal and β_r = R[r][r] on it.
	for k := 0; k < d; k += nb {
		np := min(nb, d-k)
		w.panel(x, k, np)
		w.pack(x, k, np, nb)
		tn := w.tn[(k/nb)*nb*nb : (k/nb+1)*nb*nb]
		w.triangle(tn, w.tau[:np], k, nb)
		// Rows after the panel: in the column view (row c of x is
		// column c of A = gᵀ), A_c ← (I − V·Tᵀ·Vᵀ)·A_c.
		w.apply(x, k, k+nb, w.rows, tn, nb, 0, nb)
		report(k)
	}

	// Q = H_0⋯H_{d−1}, accumulated backwards in place: row c of x becomes
	// column c of Q. Before panel k is applied, rows c ≥ k hold Q's
	// columns on [k, ld) and zeros before (the parts of L are cleared
	// first, the panel's rows become rows of the identity).
	for r := range d {
		w.beta[r] = x[r*ld+r]
		clear(x[r*ld : r*ld+r+1])
	}
	last := (d - 1) / nb * nb
	for k := last; k >= 0; k -= nb {
		np := min(nb, d-k)
		w.pack(x, k, np, nb)
		for r := k; r < k+np; r++ {
			clear(x[r*ld+k : (r+1)*ld])
			x[r*ld+r] = 1
		}
		tn := w.tn[(k/nb)*nb*nb : (k/nb+1)*nb*nb]
		for i := range nb {
			for j := range nb {
				w.tq[i*nb+j] = tn[j*nb+i]
			}
		}
		// Rows after the panel's are still zero on its columns.
		mid := min(k+nb, w.rows)
		w.applyIdentity(x, k, np, mid, w.tq)
		w.apply(x, k, mid, w.rows, w.tq, nb, nb, 0)
		report(k)
	}

	// Signs (R's diagonal positive) and scales, into g.
	for r := range d {
		s := 1.0
		if scale != nil {
			s = scale[r]
		}
		if w.beta[r] < 0 {
			s = -s
		}
		scal(w.lv, s, x[r*ld:r*ld+d], g[r*d:(r+1)*d])
	}
}

// RowNorms writes the Euclidean norms of the rows of the d×d row-major
// matrix g into dst (length d), each the square root of a dot (32 FMA
// chains in a fixed order): the same bits at every kernel level.
func RowNorms(dst, g []float64, d int) {
	if len(dst) != d || len(g) != d*d {
		panic(fmt.Sprintf("qr: RowNorms(%d norms, %d values, d = %d)", len(dst), len(g), d))
	}
	lv := cpuid.Current()
	for i := range d {
		v := g[i*d : (i+1)*d]
		dst[i] = math.Sqrt(dot(lv, v, v))
	}
}

// panel factors the rows [k, k+np) of x on the columns [k, ld) by
// Householder reflections from the right (LAPACK's dgeqr2 on the
// transposed panel, with dlarfg's reflectors): row r becomes β_r followed
// by v_r, and τ_r is kept in w.tau. It works in sub-panels of nbi rows:
// each is factored row by row (level 2), then applied to the panel's
// later rows as a block reflector (mulAdd).
func (w *Work) panel(x []float64, k, np int) {
	ld := w.ld
	for i0 := 0; i0 < np; i0 += nbi {
		ni := min(nbi, np-i0)
		for j := i0; j < i0+ni; j++ {
			r := k + j
			v := x[r*ld+r : (r+1)*ld]
			alpha := v[0]
			s := dot(w.lv, v[1:], v[1:])
			tau, beta := 0.0, alpha
			if s != 0 {
				beta = -math.Copysign(math.Sqrt(math.FMA(alpha, alpha, s)), alpha)
				tau = (beta - alpha) / beta
				scal(w.lv, 1/(alpha-beta), v[1:], v[1:])
			}
			v[0] = beta
			w.tau[j] = tau
			if tau == 0 {
				continue
			}
			for i := r + 1; i < k+i0+ni; i++ {
				y := x[i*ld+r : (i+1)*ld]
				f := -float64(tau * (y[0] + dot(w.lv, v[1:], y[1:])))
				y[0] += f
				axpy(w.lv, f, v[1:], y[1:])
			}
		}
		if i0+ni < np {
			k0 := k + i0
			w.pack(x, k0, ni, nbi)
			tn := w.tq[:nbi*nbi]
			w.triangle(tn, w.tau[i0:i0+ni], k0, nbi)
			w.apply(x, k0, k0+nbi, (k+np+3)&^3, tn, nbi, 0, nbi)
		}
	}
}

// pack copies the np reflectors of the rows [k, k+np) into vr (nw×m, row
// j: zeros before column k+j, 1 there, then v_{k+j}) and vp (m×nw, vr
// transposed), on the m = ld − k columns [k, ld); rows j ≥ np are zero.
func (w *Work) pack(x []float64, k, np, nw int) {
	ld := w.ld
	m := ld - k
	vr, vp := w.vr[:nw*m], w.vp[:m*nw]
	for j := range np {
		r := k + j
		row := vr[j*m : (j+1)*m]
		clear(row[:j])
		row[j] = 1
		copy(row[j+1:], x[r*ld+r+1:(r+1)*ld])
	}
	clear(vr[np*m:])
	transpose(w.lv, vr, m, vp, nw, nw, m)
}

// triangle writes −T (nw×nw) into tn, where I − V·T·Vᵀ = H_k⋯H_{k+np−1}
// is the block reflector of the packed reflectors whose τ's are tau
// (LAPACK's dlarft, forward and columnwise, from the Gram matrix VᵀV): T
// is upper triangular with T[j][j] = τ_j and
// T[0:j][j] = −τ_j·T[0:j][0:j]·(VᵀV)[0:j][j].
func (w *Work) triangle(tn, tau []float64, k, nw int) {
	m := w.ld - k
	g := w.gram[:nw*nw]
	mulSet(w.lv, g, nw, w.vr, m, w.vp, nw, nw, nw, m)
	clear(tn)
	var z [nb]float64
	for j := range tau {
		tn[j*nw+j] = -tau[j]
		for i := range j {
			z[i] = -float64(tau[j] * g[i*nw+j])
		}
		// −T[i][j] = Σ_{l=i}^{j−1} (−T[i][l])·z_l.
		for i := range j {
			s := 0.0
			for l := i; l < j; l++ {
				s = math.FMA(tn[i*nw+l], z[l], s)
			}
			tn[i*nw+j] = s
		}
	}
}

// apply multiplies the rows [r0, r1) of x, on the columns [k, ld), by the
// packed block reflector of nw rows from the right:
// x_c ← x_c − (x_c·V)·T'·Vᵀ, with tn = −T' (−T for the factorization,
// −Tᵀ to form Q), four rows at a time so that each row is read from
// memory once. x_c·V skips the columns [k, k+in), where the rows must be
// zero; the update skips the columns [k, k+out), whose values are not
// needed (the parts of L that the factorization leaves behind).
func (w *Work) apply(x []float64, k, r0, r1 int, tn []float64, nw, in, out int) {
	ld := w.ld
	m := ld - k
	wc, uc := w.w[:4*nw], w.u[:4*nw]
	for c := r0; c < r1; c += 4 {
		xc := x[c*ld+k:]
		mulSet(w.lv, wc, nw, xc[in:], ld, w.vp[in*nw:], nw, 4, nw, m-in)
		mulSet(w.lv, uc, nw, wc, nw, tn, nw, 4, nw, nw)
		mulAdd(w.lv, xc[out:], ld, uc, nw, w.vr[out:], m, 4, m-out, nw)
	}
}

// applyIdentity is apply (with nw = nb) on the rows [k, r1) when they are
// rows of the identity on the columns [k, ld) (rows [k, k+np)) or zero
// (the padding rows after them): then x_c·V is row c − k of V (or zero),
// which it copies instead of multiplying.
func (w *Work) applyIdentity(x []float64, k, np, r1 int, tn []float64) {
	ld := w.ld
	m := ld - k
	wc, uc := w.w, w.u
	for c := k; c < r1; c += 4 {
		for i := range 4 {
			if r := c + i - k; r < np {
				copy(wc[i*nb:(i+1)*nb], w.vp[r*nb:(r+1)*nb])
			} else {
				clear(wc[i*nb : (i+1)*nb])
			}
		}
		xc := x[c*ld+k:]
		mulSet(w.lv, uc, nb, wc, nb, tn, nb, 4, nb, nb)
		mulAdd(w.lv, xc, ld, uc, nb, w.vr, m, 4, m, nb)
	}
}
