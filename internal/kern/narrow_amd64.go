//go:build !purego

package kern

import (
	"unsafe"

	"github.com/drdam/drdam/internal/cpuid"
)

type fwdnKernel func(a, x, c unsafe.Pointer, k, npanels, xs, pskip int)
type bwdnKernel func(a, gw, z unsafe.Pointer, npanels, pstride, ntiles, zs int)

// narrowSet lists the small-batch kernels of one precision and level, by
// number of queries (index q−1; AVX2: at most 4 per call).
type narrowSet struct {
	fwd []fwdnKernel
	bwd []bwdnKernel
}

var (
	narrow32x512 = narrowSet{
		fwd: []fwdnKernel{fwdn32x512q1, fwdn32x512q2, fwdn32x512q3, fwdn32x512q4, fwdn32x512q5, fwdn32x512q6, fwdn32x512q7, fwdn32x512q8},
		bwd: []bwdnKernel{bwdn32x512q1, bwdn32x512q2, bwdn32x512q3, bwdn32x512q4, bwdn32x512q5, bwdn32x512q6, bwdn32x512q7, bwdn32x512q8},
	}
	narrow64x512 = narrowSet{
		fwd: []fwdnKernel{fwdn64x512q1, fwdn64x512q2, fwdn64x512q3, fwdn64x512q4},
		bwd: []bwdnKernel{bwdn64x512q1, bwdn64x512q2, bwdn64x512q3, bwdn64x512q4},
	}
	narrow32x256 = narrowSet{
		fwd: []fwdnKernel{fwdn32x256q1, fwdn32x256q2, fwdn32x256q3, fwdn32x256q4},
		bwd: []bwdnKernel{bwdn32x256q1, bwdn32x256q2, bwdn32x256q3, bwdn32x256q4},
	}
	narrow64x256 = narrowSet{
		fwd: []fwdnKernel{fwdn64x256q1, fwdn64x256q2, fwdn64x256q3, fwdn64x256q4},
		bwd: []bwdnKernel{bwdn64x256q1, bwdn64x256q2, bwdn64x256q3, bwdn64x256q4},
	}
)

type stepnKernel func(ab, gw, z, af, x, c unsafe.Pointer, ntiles, zs, xs int)

// The fused kernels of StepNarrow (AVX-512), by number of queries.
var (
	step32x512 = []stepnKernel{stepn32x512q1, stepn32x512q2, stepn32x512q3, stepn32x512q4, stepn32x512q5, stepn32x512q6}
	step64x512 = []stepnKernel{stepn64x512q1, stepn64x512q2, stepn64x512q3, stepn64x512q4}
)

func narrowKernels[T Float](lv cpuid.Level) *narrowSet {
	is32 := Lanes[T]() == 16
	switch {
	case lv >= cpuid.AVX512 && is32:
		return &narrow32x512
	case lv >= cpuid.AVX512:
		return &narrow64x512
	case is32:
		return &narrow32x256
	default:
		return &narrow64x256
	}
}

// forwardNarrowAsm runs ForwardNarrow.
func forwardNarrowAsm[T Float](h []T, w *Panels[T], x *Narrow[T], p0, p1 int, lv cpuid.Level) {
	clear(h)
	forwardNarrowCols(narrowKernels[T](lv), h, w, x, p0, p1, 0, w.Cp)
	transposeTiles(h, x.R)
}

// forwardNarrowCols continues the sums of the tiles of h with the columns
// [d0, d1) (multiples of 16), query by query (at most len(fwd) queries per
// call), the tiles as the kernels write them before transposeTiles.
func forwardNarrowCols[T Float](ks *narrowSet, h []T, w *Panels[T], x *Narrow[T], p0, p1, d0, d1 int) {
	l, cp := Lanes[T](), w.Cp
	esz := int(unsafe.Sizeof(T(0)))
	for q0, nq := 0, 0; q0 < x.R; q0 += nq {
		nq = chunk(x.R, q0, len(ks.fwd))
		ks.fwd[nq-1](unsafe.Pointer(&w.Data[p0*cp*l+d0*l]), unsafe.Pointer(&x.Data[x.index(q0, d0)]),
			unsafe.Pointer(&h[q0*l]), d1-d0, p1-p0, l*x.R*esz, (cp-(d1-d0))*l*esz)
	}
}

// backwardNarrowAsm runs BackwardAddNarrow.
func backwardNarrowAsm[T Float](z *Narrow[T], w *Panels[T], g []T, p0, p1 int, lv cpuid.Level) {
	backwardNarrowCols(narrowKernels[T](lv), z, w, g, p0, p1, 0, w.Cp)
}

// backwardNarrowCols adds the backward product of the columns [d0, d1)
// (multiples of 16) of the panels [p0, p1) to z, query by query (at most
// len(bwd) per call).
func backwardNarrowCols[T Float](ks *narrowSet, z *Narrow[T], w *Panels[T], g []T, p0, p1, d0, d1 int) {
	l, cp := Lanes[T](), w.Cp
	esz := int(unsafe.Sizeof(T(0)))
	for q0, nq := 0, 0; q0 < z.R; q0 += nq {
		nq = chunk(z.R, q0, len(ks.bwd))
		ks.bwd[nq-1](unsafe.Pointer(&w.Data[p0*cp*l+d0*l]), unsafe.Pointer(&g[q0]), unsafe.Pointer(&z.Data[z.index(q0, d0)]),
			p1-p0, cp*l*esz, (d1-d0)/l, l*z.R*esz)
	}
}

// stepNarrowAsm runs StepNarrow at AVX-512: the fused kernels on the
// pairs of panels (pb0+i, pf0+i), panel after panel (the backward product
// in the order of its rows, as BackwardAddNarrow), then the products of
// the panels of the longer block alone.
func stepNarrowAsm[T Float](z *Narrow[T], wb *Panels[T], g []T, pb0, pb1 int, h []T, wf *Panels[T], x *Narrow[T], pf0, pf1 int, lv cpuid.Level) {
	ks := narrowKernels[T](lv)
	st := step32x512
	if Lanes[T]() == 8 {
		st = step64x512
	}
	l, cp := Lanes[T](), wb.Cp
	esz := int(unsafe.Sizeof(T(0)))
	clear(h)
	n := min(pb1-pb0, pf1-pf0)
	for i := range n {
		for q0, nq := 0, 0; q0 < x.R; q0 += nq {
			nq = chunk(x.R, q0, len(st))
			st[nq-1](unsafe.Pointer(&wb.Data[(pb0+i)*cp*l]), unsafe.Pointer(&g[i*l*l+q0]), unsafe.Pointer(&z.Data[z.index(q0, 0)]),
				unsafe.Pointer(&wf.Data[(pf0+i)*cp*l]), unsafe.Pointer(&x.Data[x.index(q0, 0)]), unsafe.Pointer(&h[i*l*l+q0*l]),
				cp/l, l*z.R*esz, l*x.R*esz)
		}
	}
	if pb0+n < pb1 {
		backwardNarrowCols(ks, z, wb, g[n*l*l:], pb0+n, pb1, 0, cp)
	}
	if pf0+n < pf1 {
		forwardNarrowCols(ks, h[n*l*l:], wf, x, pf0+n, pf1, 0, cp)
	}
	transposeTiles(h, x.R)
}

// chunk returns how many of the queries [q0, b) the next call of kernels
// of at most max queries takes: the batch is cut into ⌈b/max⌉ calls of
// nearly equal size (8 queries by at most 6: 4 and 4), since a call of
// few queries has few independent chains of multiply-adds.
func chunk(b, q0, max int) int {
	n := (b + max - 1) / max // calls
	size, extra := b/n, b%n
	if q0 < extra*(size+1) {
		return size + 1
	}
	return size
}
