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

// NarrowWidth returns the width W of a Narrow matrix of b rows: b rounded
// up to a power of two.
func NarrowWidth(b int) int {
	w := 1
	for w < b {
		w *= 2
	}
	return w
}

// Narrow is an R×C matrix of a few rows (1 ≤ R ≤ MaxNarrow) stored column
// by column, the R values of a column adjacent:
//
//	data[d·W + r] = M[r][d],   W = NarrowWidth(R),
//
// with C padded to Cp, a multiple of 16, and the missing rows and columns
// zero. It holds a small batch of queries X, or the gradient accumulator Z,
// of the small-batch products, without the L − R padding lanes of a query
// panel: the forward kernels broadcast the values of a column of X, and a
// vector of Z holds L/W whole columns. The zero value is an empty matrix;
// use Resize or NewNarrow.
type Narrow[T Float] struct {
	R, C int // logical rows and columns
	Cp   int // padded columns, a multiple of 16
	W    int // row stride of a column: NarrowWidth(R)
	Data []T // Cp·W values

	pack []T // BackwardAddNarrow's scratch: G packed for the kernels
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
	w, cp := NarrowWidth(r), PadD(c)
	if cap(n.Data) < cp*w {
		n.Data = make([]T, cp*w)
	} else {
		n.Data = n.Data[:cp*w]
		clear(n.Data)
	}
	n.R, n.C, n.Cp, n.W = r, c, cp, w
}

// SetRows copies the rows [r0, r0+k) from the row-major k×C matrix src,
// scaled by s, converting to T.
func (n *Narrow[T]) SetRows(r0 int, src []float64, s float64) {
	if n.C == 0 || len(src)%n.C != 0 || r0 < 0 || r0+len(src)/n.C > n.R {
		if n.C == 0 && len(src) == 0 {
			return
		}
		panic(fmt.Sprintf("kern: SetRows(%d, %d values) into Narrow %d×%d", r0, len(src), n.R, n.C))
	}
	for k := range len(src) / n.C {
		row := src[k*n.C : (k+1)*n.C]
		for c, v := range row {
			n.Data[c*n.W+r0+k] = T(s * v)
		}
	}
}

// Row writes row r, converted to float64 and scaled by s, into dst
// (length C).
func (n *Narrow[T]) Row(dst []float64, r int, s float64) {
	for c := range dst[:n.C] {
		dst[c] = s * float64(n.Data[c*n.W+r])
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
// padding queries).
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
// Each vector holds z.W queries × L/z.W partial sums over the rows of a
// panel (a few rows of W[·][d] broadcast to every query's lanes); the
// partial sums of L/z.W adjacent columns are added in a tree of shuffles
// into one vector of Z.
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
// ForwardNarrow(h, wf, x, pf0, pf1) together: the backward product of one
// block and the forward product of the next, with the same results. The
// assembly kernels take them in turns over chunks of columns, and the
// backward product, whose rows of W are in cache, prefetches the rows of
// the forward product's next chunk: the forward product's reads from
// memory overlap the backward product's arithmetic. wb and wf (the same
// Panels, or not) have the padded width of z and x.
func StepNarrow[T Float](z *Narrow[T], wb *Panels[T], g []T, pb0, pb1 int, h []T, wf *Panels[T], x *Narrow[T], pf0, pf1 int) {
	switch {
	case wb.Cp != wf.Cp || pb0 == pb1 || pf0 == pf1 || wb.Cp == 0 || cpuid.Current() < cpuid.AVX2 || !hasAsm:
		BackwardAddNarrow(z, wb, g, pb0, pb1)
		ForwardNarrow(h, wf, x, pf0, pf1)
	default:
		checkNarrow("StepNarrow", wb, z.R, z.C, z.Cp, g, pb0, pb1)
		checkNarrow("StepNarrow", wf, x.R, x.C, x.Cp, h, pf0, pf1)
		stepNarrowAsm(z, wb, g, pb0, pb1, h, wf, x, pf0, pf1, cpuid.Current())
	}
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
// column of L sums over d, then transposed into the panel's L×L tile.
func forwardNarrowGo[T Float](h []T, w *Panels[T], x *Narrow[T], p0, p1 int) {
	l, cp := Lanes[T](), w.Cp
	var acc [8 * 16]T // acc[q·L + r]
	for p := p0; p < p1; p++ {
		ws := w.Data[p*cp*l : (p+1)*cp*l]
		a := acc[:x.R*l]
		clear(a)
		for d := range cp {
			wd := ws[d*l : (d+1)*l]
			for q, xv := range x.Data[d*x.W : d*x.W+x.R] {
				aq := a[q*l : (q+1)*l]
				for r, wv := range wd {
					aq[r] += wv * xv
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

// backwardNarrowGo is the portable BackwardAddNarrow: per panel and column,
// one dot product over the panel's rows per query.
func backwardNarrowGo[T Float](z *Narrow[T], w *Panels[T], g []T, p0, p1 int) {
	l, cp := Lanes[T](), w.Cp
	for p := p0; p < p1; p++ {
		ws := w.Data[p*cp*l : (p+1)*cp*l]
		gp := g[(p-p0)*l*l : (p-p0+1)*l*l]
		for d := range cp {
			wd := ws[d*l : (d+1)*l]
			zd := z.Data[d*z.W : d*z.W+z.R]
			for q := range zd {
				var s T
				for r, wv := range wd {
					s += wv * gp[r*l+q]
				}
				zd[q] += s
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

// packG writes the gradient weights of np panels of the block g (layout of
// ForwardNarrow's h) for the backward kernels with v lanes per vector, qv
// queries per vector and nh vectors per chunk of rr = v/qv rows: per
// panel, for each chunk c and h < nh, lane k·rr + j of the vector holding
// G[c·rr + j][h·qv + k] for the queries h·qv + k < b, zero beyond.
func packG[T Float](dst, g []T, np, b, qv, nh, v int) {
	l := Lanes[T]()
	rr := v / qv
	per := l / rr * nh * v
	for p := range np {
		gp := g[p*l*l : (p+1)*l*l]
		out := dst[p*per : (p+1)*per]
		for c := range l / rr {
			for h := range nh {
				vec := out[(c*nh+h)*v : (c*nh+h+1)*v]
				for k := range qv {
					q := h*qv + k
					for j := range rr {
						if q < b {
							vec[k*rr+j] = gp[(c*rr+j)*l+q]
						} else {
							vec[k*rr+j] = 0
						}
					}
				}
			}
		}
	}
}
