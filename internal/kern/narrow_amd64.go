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
	for q0 := 0; q0 < x.R; q0 += len(ks.fwd) {
		nq := min(len(ks.fwd), x.R-q0)
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
	for q0 := 0; q0 < z.R; q0 += len(ks.bwd) {
		nq := min(len(ks.bwd), z.R-q0)
		ks.bwd[nq-1](unsafe.Pointer(&w.Data[p0*cp*l+d0*l]), unsafe.Pointer(&g[q0]), unsafe.Pointer(&z.Data[z.index(q0, d0)]),
			p1-p0, cp*l*esz, (d1-d0)/l, l*z.R*esz)
	}
}
