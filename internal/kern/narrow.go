package kern

import (
	"fmt"

	"github.com/drdam/drdam/internal/cpuid"
)

// MaxNarrow returns the largest batch that the small-batch products
// (ForwardNarrow, BackwardAddNarrow) take: L/2, that is 8 queries in
// float32 and 4 in float64. Beyond it the query lanes of Forward and
// BackwardAdd are at least half full and those products are as fast.
func MaxNarrow[T Float]() int { return Lanes[T]() / 2 }

// Narrow is an R×C matrix of a few rows (1 ≤ R ≤ MaxNarrow) stored in
// tiles of L columns, each holding its R rows one after the other:
//
//	data[(d/L)·L·R + r·L + d mod L] = M[r][d],
//
// with C padded to Cp, a multiple of 16, and the missing columns zero. It
// holds a small batch of queries X, or the gradient accumulator Z, of the
// small-batch products, without the L − R padding lanes of a query panel:
// the forward kernels broadcast single values of X, and a vector of Z holds
// L consecutive columns of one row. The zero value is an empty matrix; use
// Resize or NewNarrow.
type Narrow[T Float] struct {
	R, C int // logical rows and columns
	Cp   int // padded columns, a multiple of 16
	Data []T // Cp·R values
}

// NewNarrow returns a zero R×C Narrow matrix.
func NewNarrow[T Float](r, c int) *Narrow[T] {
	n := new(Narrow[T])
	n.Resize(r, c)
	return n
}

// Resize makes n an R×C matrix, reusing its storage when it is large
// enough, and zeroes it. It panics unless 1 ≤ R ≤ MaxNarrow.
func (n *Narrow[T]) Resize(r, c int) {
	if r < 1 || r > MaxNarrow[T]() || c < 0 {
		panic(fmt.Sprintf("kern: Narrow of %d×%d (at most %d rows)", r, c, MaxNarrow[T]()))
	}
	cp := PadD(c)
	if cap(n.Data) < cp*r {
		n.Data = make([]T, cp*r)
	} else {
		n.Data = n.Data[:cp*r]
		clear(n.Data)
	}
	n.R, n.C, n.Cp = r, c, cp
}

// index returns the position of M[r][d] in Data.
func (n *Narrow[T]) index(r, d int) int {
	l := Lanes[T]()
	return (d/l)*l*n.R + r*l + d%l
}

// SetRows copies the rows [r0, r0+k) from the row-major k×C matrix src,
// scaled by s, converting to T.
func (n *Narrow[T]) SetRows(r0 int, src []float64, s float64) {
	if n.C == 0 && len(src) == 0 {
		return
	}
	if n.C == 0 || len(src)%n.C != 0 || r0 < 0 || r0+len(src)/n.C > n.R {
		panic(fmt.Sprintf("kern: SetRows(%d, %d values) into Narrow %d×%d", r0, len(src), n.R, n.C))
	}
	for k := range len(src) / n.C {
		for d, v := range src[k*n.C : (k+1)*n.C] {
			n.Data[n.index(r0+k, d)] = T(s * v)
		}
	}
}

// Row writes row r, converted to float64 and scaled by s, into dst
// (length C).
func (n *Narrow[T]) Row(dst []float64, r int, s float64) {
	for d := range dst[:n.C] {
		dst[d] = s * float64(n.Data[n.index(r, d)])
	}
}

// AddRow adds row r, converted to float64 and scaled by s, to dst (length
// C).
func (n *Narrow[T]) AddRow(dst []float64, r int, s float64) {
	for d := range dst[:n.C] {
		dst[d] += s * float64(n.Data[n.index(r, d)])
	}
}

// ScaleRow multiplies row r by s.
func (n *Narrow[T]) ScaleRow(r int, s T) {
	for d := range n.Cp {
		n.Data[n.index(r, d)] *= s
	}
}

// ForwardNarrow is Forward for a small batch x: it writes
// H[r][l] = Σ_d W[p0·L + r][d]·X[l][d] for the panels [p0, p1) of w into h,
// in the layout of Forward with one query panel (length BlockLen(1, p0,
// p1)), the lanes l ≥ x.R zero. w and x have the same padded width.
//
// The projections are in the lanes: for each column d, one vector holds
// the L rows of a panel and each query's X[l][d] is broadcast, so that
// every multiply-add is useful (Forward spends L − x.R of every L lanes on
// padding queries). Each H[r][l] is the chain of multiply-adds, in the
// order of d, that Forward computes in its lane, so the results are bit for
// bit those of Forward at the same kernel level.
func ForwardNarrow[T Float](h []T, w *Panels[T], x *Narrow[T], p0, p1 int) {
	checkNarrow("ForwardNarrow", w, x.R, x.C, x.Cp, h, p0, p1)
	switch {
	case p0 == p1:
	case w.Cp == 0:
		clear(h)
	case cpuid.Current() >= cpuid.AVX2 && hasAsm:
		forwardNarrowAsm(h, w, x, p0, p1, cpuid.Current())
	default:
		forwardNarrowGo(h, w, x, p0, p1)
	}
}

// BackwardAddNarrow is BackwardAdd for a small batch: it adds
// Σ_r W[p0·L + r][d]·G[r][l] to Z[l][d] for l < z.R, the panels [p0, p1)
// of w and the block g in the layout of ForwardNarrow's h. z and w have the
// same padded width.
//
// The columns of W are in the lanes: the kernels transpose tiles of W in
// registers into vectors of one row over several columns and add each
// row's vector times the broadcast G[r][l] to query l's accumulator, so
// that each Z[l][d] receives the chain of multiply-adds, in the order of
// the rows, that BackwardAdd computes in its lane: the results are bit for
// bit those of BackwardAdd at the same kernel level.
func BackwardAddNarrow[T Float](z *Narrow[T], w *Panels[T], g []T, p0, p1 int) {
	checkNarrow("BackwardAddNarrow", w, z.R, z.C, z.Cp, g, p0, p1)
	switch {
	case p0 == p1 || w.Cp == 0:
	case cpuid.Current() >= cpuid.AVX2 && hasAsm:
		backwardNarrowAsm(z, w, g, p0, p1, cpuid.Current())
	default:
		backwardNarrowGo(z, w, g, p0, p1)
	}
}

// StepNarrow runs BackwardAddNarrow(z, wb, g, pb0, pb1) and
// ForwardNarrow(h, wf, x, pf0, pf1) together, with their results: the
// backward product of one block and the forward product of the next, for
// the same batch (z.R == x.R). With AVX-512 one kernel takes a panel of
// each, tile by tile (16 columns), so that the forward product's panel
// streams from memory while the backward product, whose panel is in cache,
// computes; else the two run one after the other. wb and wf (the same
// Panels, or not) have the padded width of z and x.
func StepNarrow[T Float](z *Narrow[T], wb *Panels[T], g []T, pb0, pb1 int, h []T, wf *Panels[T], x *Narrow[T], pf0, pf1 int) {
	checkNarrow("StepNarrow", wb, z.R, z.C, z.Cp, g, pb0, pb1)
	checkNarrow("StepNarrow", wf, x.R, x.C, x.Cp, h, pf0, pf1)
	if z.R != x.R || wb.Cp == 0 || pb0 == pb1 || pf0 == pf1 || cpuid.Current() < cpuid.AVX512 || !hasAsm {
		BackwardAddNarrow(z, wb, g, pb0, pb1)
		ForwardNarrow(h, wf, x, pf0, pf1)
		return
	}
	stepNarrowAsm(z, wb, g, pb0, pb1, h, wf, x, pf0, pf1, cpuid.Current())
}

// checkNarrow checks the arguments of a small-batch product op: the panels
// [p0, p1) of w, a Narrow r×c matrix of padded width cp, and a block buf.
func checkNarrow[T Float](op string, w *Panels[T], r, c, cp int, buf []T, p0, p1 int) {
	if w.Cp != cp || p0 < 0 || p1 > w.NP || p0 > p1 || len(buf) != BlockLen[T](1, p0, p1) {
		panic(fmt.Sprintf("kern: %s: W %d×%d (panels [%d, %d)), batch %d×%d, block of %d values",
			op, w.R, w.C, p0, p1, r, c, len(buf)))
	}
}

// forwardNarrowGo is the portable ForwardNarrow: per panel, each query's
// column of L sums over d, then transposed into the panel's L×L tile. The
// sums are those of forwardGo, term by term in the same order.
func forwardNarrowGo[T Float](h []T, w *Panels[T], x *Narrow[T], p0, p1 int) {
	l, cp := Lanes[T](), w.Cp
	var acc [8 * 16]T // acc[q·L + r]
	for p := p0; p < p1; p++ {
		ws := w.Data[p*cp*l : (p+1)*cp*l]
		a := acc[:x.R*l]
		clear(a)
		for d := range cp {
			wd := ws[d*l : (d+1)*l]
			for q := range x.R {
				xv := x.Data[x.index(q, d)]
				aq := a[q*l : (q+1)*l]
				for r, wv := range wd {
					aq[r] += T(wv * xv)
				}
			}
		}
		tile := h[(p-p0)*l*l : (p-p0+1)*l*l]
		clear(tile)
		for q := range x.R {
			for r := range l {
				tile[r*l+q] = a[q*l+r]
			}
		}
	}
}

// backwardNarrowGo is the portable BackwardAddNarrow, term by term in the
// order of backwardGo (which skips the zeros of W).
func backwardNarrowGo[T Float](z *Narrow[T], w *Panels[T], g []T, p0, p1 int) {
	l, cp := Lanes[T](), w.Cp
	for p := p0; p < p1; p++ {
		ws := w.Data[p*cp*l : (p+1)*cp*l]
		gp := g[(p-p0)*l*l : (p-p0+1)*l*l]
		for d := range cp {
			for r, wv := range ws[d*l : (d+1)*l] {
				if wv == 0 {
					continue
				}
				for q := range z.R {
					z.Data[z.index(q, d)] += T(wv * gp[r*l+q])
				}
			}
		}
	}
}

// transposeTiles turns the first b rows of each L×L tile of h (query q's
// sums over the panel's rows, as the assembly forward kernels write them)
// into the layout of Forward: h[r·L + q], the lanes q ≥ b zero.
func transposeTiles[T Float](h []T, b int) {
	l := Lanes[T]()
	var t [8 * 16]T
	for off := 0; off < len(h); off += l * l {
		tile := h[off : off+l*l]
		copy(t[:b*l], tile)
		for r := range l {
			row := tile[r*l : (r+1)*l]
			for q := range b {
				row[q] = t[q*l+r]
			}
			clear(row[b:])
		}
	}
}
