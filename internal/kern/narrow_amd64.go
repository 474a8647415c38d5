//go:build !purego

package kern

import (
	"unsafe"

	"github.com/drdam/drdam/internal/cpuid"
)

type fwdnKernel func(a, x, c unsafe.Pointer, k, npanels, xs, pskip int)
type bwdnKernel func(a, gw, z unsafe.Pointer, npanels, pstride, ntiles, pfd int)

// narrowSet lists the small-batch kernels of one precision and level: the
// forward kernels by number of queries (index q−1), the backward kernels
// by width (index log₂ w), and the shape of the backward kernels (see
// _gen): v lanes per vector; halves: whether the queries are split over
// two vectors per chunk of rows (the AVX-512 kernels, on ymm); the tile of
// columns, by width.
type narrowSet struct {
	fwd    []fwdnKernel
	bwd    []bwdnKernel
	v      int
	halves bool
	tile   []int
}

// bwdShape returns how the backward kernel of width w takes G: qv queries
// per vector, nh vectors per chunk of rows.
func (ks *narrowSet) bwdShape(w int) (qv, nh int) {
	if ks.halves {
		return max(1, w/2), min(2, w)
	}
	return w, 1
}

var (
	narrow32x512 = narrowSet{
		fwd: []fwdnKernel{fwdn32x512q1, fwdn32x512q2, fwdn32x512q3, fwdn32x512q4, fwdn32x512q5, fwdn32x512q6, fwdn32x512q7, fwdn32x512q8},
		bwd: []bwdnKernel{bwdn32x512w1, bwdn32x512w2, bwdn32x512w4, bwdn32x512w8},
		v:   8, halves: true, tile: []int{8, 8, 8, 4},
	}
	narrow64x512 = narrowSet{
		fwd: []fwdnKernel{fwdn64x512q1, fwdn64x512q2, fwdn64x512q3, fwdn64x512q4},
		bwd: []bwdnKernel{bwdn64x512w1, bwdn64x512w2, bwdn64x512w4},
		v:   4, halves: true, tile: []int{8, 8, 8},
	}
	narrow32x256 = narrowSet{
		fwd: []fwdnKernel{fwdn32x256q1, fwdn32x256q2, fwdn32x256q3, fwdn32x256q4},
		bwd: []bwdnKernel{bwdn32x256w1, bwdn32x256w2, bwdn32x256w4, bwdn32x256w8},
		v:   8, tile: []int{8, 8, 8, 8},
	}
	narrow64x256 = narrowSet{
		fwd: []fwdnKernel{fwdn64x256q1, fwdn64x256q2, fwdn64x256q3, fwdn64x256q4},
		bwd: []bwdnKernel{bwdn64x256w1, bwdn64x256w2, bwdn64x256w4},
		v:   4, tile: []int{8, 8, 8},
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

// forwardNarrowAsm runs ForwardNarrow, in chunks of columns as StepNarrow
// does, so that the two give the same bits.
func forwardNarrowAsm[T Float](h []T, w *Panels[T], x *Narrow[T], p0, p1 int, lv cpuid.Level) {
	ks := narrowKernels[T](lv)
	clear(h)
	for d0 := 0; d0 < w.Cp; d0 += stepColumns { // as StepNarrow
		forwardNarrowCols(ks, h, w, x, p0, p1, d0, min(w.Cp, d0+stepColumns))
	}
	transposeTiles(h, x.R)
}

// forwardNarrowCols adds the sums over the columns [d0, d1) (multiples of
// 16) to the tiles of h, query by query (at most len(fwd) queries per
// call), as the kernels write them before transposeTiles.
func forwardNarrowCols[T Float](ks *narrowSet, h []T, w *Panels[T], x *Narrow[T], p0, p1, d0, d1 int) {
	l, cp := Lanes[T](), w.Cp
	esz := int(unsafe.Sizeof(T(0)))
	for q0 := 0; q0 < x.R; q0 += len(ks.fwd) {
		nq := min(len(ks.fwd), x.R-q0)
		ks.fwd[nq-1](unsafe.Pointer(&w.Data[p0*cp*l+d0*l]), unsafe.Pointer(&x.Data[d0*x.W+q0]),
			unsafe.Pointer(&h[q0*l]), d1-d0, p1-p0, x.W*esz, (cp-(d1-d0))*l*esz)
	}
}

// backwardNarrowAsm runs BackwardAddNarrow.
func backwardNarrowAsm[T Float](z *Narrow[T], w *Panels[T], g []T, p0, p1 int, lv cpuid.Level) {
	ks := narrowKernels[T](lv)
	pack := packBlock(ks, z, g, p1-p0)
	backwardNarrowCols(ks, z, w, pack, p0, p1, 0, w.Cp, 0)
}

// packBlock packs the np panels of the block g for the backward kernel of
// z's width, into z's scratch (grown at the first call), and returns it.
func packBlock[T Float](ks *narrowSet, z *Narrow[T], g []T, np int) []T {
	n := np * Lanes[T]() * z.W
	if cap(z.pack) < n {
		z.pack = make([]T, n)
	}
	qv, nh := ks.bwdShape(z.W)
	packG(z.pack[:n], g, np, z.R, qv, nh, ks.v)
	return z.pack[:n]
}

// backwardNarrowCols adds the backward product of the columns [d0, d1)
// (multiples of the kernels' tile) of the panels [p0, p1) to z, with G
// packed; the kernels prefetch the lines at distance pfd bytes from those
// of W they read.
func backwardNarrowCols[T Float](ks *narrowSet, z *Narrow[T], w *Panels[T], pack []T, p0, p1, d0, d1, pfd int) {
	l, cp := Lanes[T](), w.Cp
	esz := int(unsafe.Sizeof(T(0)))
	lw := 0
	for 1<<lw < z.W {
		lw++
	}
	ks.bwd[lw](unsafe.Pointer(&w.Data[p0*cp*l+d0*l]), unsafe.Pointer(&pack[0]), unsafe.Pointer(&z.Data[d0*z.W]),
		p1-p0, cp*l*esz, (d1-d0)/ks.tile[lw], pfd)
}

// stepColumns is how many columns StepNarrow takes at a time: 64 KiB of a
// float32 panel.
const stepColumns = 1024

// stepNarrowAsm runs StepNarrow: for each chunk of stepColumns columns,
// the backward kernels on the block wb[pb0, pb1), prefetching the next
// chunk of the block wf[pf0, pf1), then the forward kernels on this chunk
// of wf, which the previous backward call prefetched.
func stepNarrowAsm[T Float](z *Narrow[T], wb *Panels[T], g []T, pb0, pb1 int, h []T, wf *Panels[T], x *Narrow[T], pf0, pf1 int, lv cpuid.Level) {
	ks := narrowKernels[T](lv)
	l, cp := Lanes[T](), wb.Cp
	pack := packBlock(ks, z, g, pb1-pb0)
	clear(h)
	for d0 := 0; d0 < cp; d0 += stepColumns {
		d1 := min(cp, d0+stepColumns)
		pfd := 0
		if d1 < cp {
			pfd = int(uintptr(unsafe.Pointer(&wf.Data[pf0*cp*l+d1*l])) - uintptr(unsafe.Pointer(&wb.Data[pb0*cp*l+d0*l])))
		}
		backwardNarrowCols(ks, z, wb, pack, pb0, pb1, d0, d1, pfd)
		forwardNarrowCols(ks, h, wf, x, pf0, pf1, d0, d1)
	}
	transposeTiles(h, x.R)
}
