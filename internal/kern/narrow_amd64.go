//go:build !purego

package kern

import (
	"unsafe"

	"github.com/drdam/drdam/internal/cpuid"
)

type fwdnKernel func(a, x, c unsafe.Pointer, k, npanels, xs int)
type bwdnKernel func(a, gw, z unsafe.Pointer, npanels, pstride, ntiles int)

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

// forwardNarrowAsm runs ForwardNarrow: the kernels write each panel's
// tile query by query (at most len(fwd) queries per call), then the tiles
// are transposed.
func forwardNarrowAsm[T Float](h []T, w *Panels[T], x *Narrow[T], p0, p1 int, lv cpuid.Level) {
	l, cp := Lanes[T](), w.Cp
	esz := int(unsafe.Sizeof(T(0)))
	ks := narrowKernels[T](lv)
	for q0 := 0; q0 < x.R; q0 += len(ks.fwd) {
		nq := min(len(ks.fwd), x.R-q0)
		ks.fwd[nq-1](unsafe.Pointer(&w.Data[p0*cp*l]), unsafe.Pointer(&x.Data[q0]),
			unsafe.Pointer(&h[q0*l]), cp, p1-p0, x.W*esz)
	}
	transposeTiles(h, x.R)
}

// packPanels is the number of panels whose packed G a backward call takes.
const packPanels = 16

// backwardNarrowAsm runs BackwardAddNarrow: G is packed for the kernel
// (into z's scratch, made at the first call) in groups of up to packPanels
// panels, each group one call over every tile of columns.
func backwardNarrowAsm[T Float](z *Narrow[T], w *Panels[T], g []T, p0, p1 int, lv cpuid.Level) {
	l, cp := Lanes[T](), w.Cp
	esz := int(unsafe.Sizeof(T(0)))
	ks := narrowKernels[T](lv)
	lw := 0
	for 1<<lw < z.W {
		lw++
	}
	k, tile := ks.bwd[lw], ks.tile[lw]
	qv, nh := ks.bwdShape(z.W)
	per := l * z.W
	if cap(z.pack) < packPanels*per {
		z.pack = make([]T, packPanels*per)
	}
	buf := z.pack[:packPanels*per]
	for pa := p0; pa < p1; pa += packPanels {
		np := min(packPanels, p1-pa)
		packG(buf[:np*per], g[(pa-p0)*l*l:], np, z.R, qv, nh, ks.v)
		k(unsafe.Pointer(&w.Data[pa*cp*l]), unsafe.Pointer(&buf[0]), unsafe.Pointer(&z.Data[0]),
			np, cp*l*esz, cp/tile)
	}
}
