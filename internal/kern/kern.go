package kern

import (
	"fmt"
	"unsafe"

	"github.com/drdam/drdam/internal/cpuid"
)

// Float is the element type of the kernels.
type Float interface{ ~float32 | ~float64 }

// Lanes returns L, the number of T in 64 bytes: 16 for float32, 8 for
// float64. It is the panel height and the width of a query panel.
func Lanes[T Float]() int { return 64 / int(unsafe.Sizeof(T(0))) }

// PadD returns d rounded up to a multiple of 16.
func PadD(d int) int { return (d + 15) &^ 15 }

// Panels is an R×C matrix stored in panels of L rows (see the package
// documentation). The zero value is not useful; use NewPanels.
type Panels[T Float] struct {
	R, C int // logical rows and columns
	Cp   int // padded columns, a multiple of 16
	NP   int // number of panels, ⌈R/L⌉
	Data []T // NP·Cp·L values
}

// NewPanels returns a zero R×C matrix in panel layout.
func NewPanels[T Float](r, c int) *Panels[T] {
	l := Lanes[T]()
	np, cp := (r+l-1)/l, PadD(c)
	return &Panels[T]{R: r, C: c, Cp: cp, NP: np, Data: make([]T, np*cp*l)}
}

// Resize makes p an R×C matrix, reusing its storage when it is large
// enough, and zeroes it.
func (p *Panels[T]) Resize(r, c int) {
	l := Lanes[T]()
	np, cp := (r+l-1)/l, PadD(c)
	n := np * cp * l
	if cap(p.Data) < n {
		p.Data = make([]T, n)
	} else {
		p.Data = p.Data[:n]
		clear(p.Data)
	}
	p.R, p.C, p.Cp, p.NP = r, c, cp, np
}

// SetRows copies the rows [r0, r0+k) from the row-major k×C matrix src,
// scaled by s, converting to T.
func (p *Panels[T]) SetRows(r0 int, src []float64, s float64) {
	l := Lanes[T]()
	if len(src)%p.C != 0 || r0 < 0 || r0+len(src)/p.C > p.R {
		panic(fmt.Sprintf("kern: SetRows(%d, %d values) into %d×%d", r0, len(src), p.R, p.C))
	}
	for k := range len(src) / p.C {
		r := r0 + k
		base := (r/l)*p.Cp*l + r%l
		row := src[k*p.C : (k+1)*p.C]
		for c, v := range row {
			p.Data[base+c*l] = T(s * v)
		}
	}
}

// Row writes row r, converted to float64 and scaled by s, into dst
// (length C).
func (p *Panels[T]) Row(dst []float64, r int, s float64) {
	l := Lanes[T]()
	base := (r/l)*p.Cp*l + r%l
	for c := range dst[:p.C] {
		dst[c] = s * float64(p.Data[base+c*l])
	}
}

// BlockLen returns the length of the block buffer (h or g) that Forward
// and BackwardAdd use for x.NP query panels and the W panels [p0, p1).
func BlockLen[T Float](queryPanels, p0, p1 int) int {
	l := Lanes[T]()
	return queryPanels * (p1 - p0) * l * l
}

// Forward writes H[qp][r][l] = Σ_d W[p0·L + r][d]·X[qp·L + l][d] for the
// panels [p0, p1) of w and every query panel of x into h, of length
// BlockLen(x.NP, p0, p1). w and x have the same padded width.
func Forward[T Float](h []T, w, x *Panels[T], p0, p1 int) {
	onBlock("Forward", "X", "h", w, x, h, p0, p1,
		func(n int, lv cpuid.Level) { forwardAsm(h, w, x, p0, p1, n, lv) },
		func(n int) { forwardGo(h, w, x, p0, p1, n) })
}

// BackwardAdd adds Σ_r W[p0·L + r][d]·G[qp][r][l] to Z[qp·L + l][d], for
// the panels [p0, p1) of w and the block g of length BlockLen(z.NP, p0, p1)
// in the layout of Forward's h. z and w have the same padded width.
func BackwardAdd[T Float](z *Panels[T], w *Panels[T], g []T, p0, p1 int) {
	onBlock("BackwardAdd", "Z", "g", w, z, g, p0, p1,
		func(n int, lv cpuid.Level) { backwardAsm(z, w, g, p0, p1, n, lv) },
		func(n int) { backwardGo(z, w, g, p0, p1, n) })
}

// onBlock checks the panels [p0, p1) of w, the queries x (named xn) and
// the block buf (named bn) of a product op, and runs it on n = (p1−p0)·L
// rows: with asm on machines with AVX2 or better, else with portable.
func onBlock[T Float](op, xn, bn string, w, x *Panels[T], buf []T, p0, p1 int, asm func(n int, lv cpuid.Level), portable func(n int)) {
	if w.Cp != x.Cp || p0 < 0 || p1 > w.NP || p0 > p1 || len(buf) != BlockLen[T](x.NP, p0, p1) {
		panic(fmt.Sprintf("kern: %s: W %d×%d (panels [%d, %d)), %s %d×%d, %s of %d values",
			op, w.R, w.C, p0, p1, xn, x.R, x.C, bn, len(buf)))
	}
	if p0 == p1 || x.NP == 0 {
		return
	}
	n := (p1 - p0) * Lanes[T]()
	if lv := cpuid.Current(); lv >= cpuid.AVX2 && hasAsm {
		asm(n, lv)
	} else {
		portable(n)
	}
}

// forwardGo is the portable Forward: for each query panel and W panel, an
// outer product over d into an L×L tile.
func forwardGo[T Float](h []T, w, x *Panels[T], p0, p1, n int) {
	l, cp := Lanes[T](), w.Cp
	var tile [16 * 16]T
	for qp := range x.NP {
		xs := x.Data[qp*cp*l : (qp+1)*cp*l]
		for p := p0; p < p1; p++ {
			ws := w.Data[p*cp*l : (p+1)*cp*l]
			t := tile[:l*l]
			clear(t)
			for d := range cp {
				wd, xd := ws[d*l:(d+1)*l], xs[d*l:(d+1)*l]
				for r, wv := range wd {
					tr := t[r*l : (r+1)*l]
					for j, xv := range xd {
						tr[j] += T(wv * xv) // rounded: never fused (see doc.go)
					}
				}
			}
			copy(h[qp*n*l+(p-p0)*l*l:], t)
		}
	}
}

// backwardGo is the portable BackwardAdd.
func backwardGo[T Float](z *Panels[T], w *Panels[T], g []T, p0, p1, n int) {
	l, cp := Lanes[T](), w.Cp
	for qp := range z.NP {
		zs := z.Data[qp*cp*l : (qp+1)*cp*l]
		gs := g[qp*n*l : (qp+1)*n*l]
		for p := p0; p < p1; p++ {
			ws := w.Data[p*cp*l : (p+1)*cp*l]
			gp := gs[(p-p0)*l*l : (p-p0+1)*l*l]
			for d := range cp {
				wd, zd := ws[d*l:(d+1)*l], zs[d*l:(d+1)*l]
				for r, wv := range wd {
					if wv == 0 {
						continue
					}
					gr := gp[r*l : (r+1)*l]
					for j, gv := range gr {
						zd[j] += T(wv * gv)
					}
				}
			}
		}
	}
}
