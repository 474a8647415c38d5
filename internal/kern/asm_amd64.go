//go:build !purego

package kern

import (
	"unsafe"

	"github.com/drdam/drdam/internal/cpuid"
)

const hasAsm = true

type fwdKernel func(a, b, c unsafe.Pointer, k, sb, sc int)
type bwdKernel func(a, b, c unsafe.Pointer, npanels, pstride, sb, sc int)

// kernelSet lists the micro-kernels of one precision and level, by the
// number of query panels NV they handle (index NV−1), with their MR.
type kernelSet struct {
	fwd   [3]fwdKernel
	fwdMR [3]int
	bwd   [3]bwdKernel
	bwdMR [3]int
}

var (
	set32x512 = kernelSet{
		fwd: [3]fwdKernel{fwd32x512m16v1, fwd32x512m8v2, fwd32x512m8v3}, fwdMR: [3]int{16, 8, 8},
		bwd: [3]bwdKernel{bwd32x512m16v1, bwd32x512m8v2, bwd32x512m8v3}, bwdMR: [3]int{16, 8, 8},
	}
	set64x512 = kernelSet{
		fwd: [3]fwdKernel{fwd64x512m8v1, fwd64x512m8v2, fwd64x512m8v3}, fwdMR: [3]int{8, 8, 8},
		bwd: [3]bwdKernel{bwd64x512m8v1, bwd64x512m8v2, bwd64x512m8v3}, bwdMR: [3]int{8, 8, 8},
	}
	set32x256 = kernelSet{fwd: [3]fwdKernel{fwd32x256m4v1}, fwdMR: [3]int{4}, bwd: [3]bwdKernel{bwd32x256m4v1}, bwdMR: [3]int{4}}
	set64x256 = kernelSet{fwd: [3]fwdKernel{fwd64x256m4v1}, fwdMR: [3]int{4}, bwd: [3]bwdKernel{bwd64x256m4v1}, bwdMR: [3]int{4}}
)

func kernels[T Float](lv cpuid.Level) (ks *kernelSet, maxNV int) {
	var t T
	_, is32 := any(t).(float32)
	switch {
	case lv >= cpuid.AVX512 && is32:
		return &set32x512, 3
	case lv >= cpuid.AVX512:
		return &set64x512, 3
	case is32:
		return &set32x256, 1
	default:
		return &set64x256, 1
	}
}

// forwardAsm runs Forward with the micro-kernels of level lv: for each
// group of NV query panels, every W panel is swept in MR-row tiles.
func forwardAsm[T Float](h []T, w, x *Panels[T], p0, p1, n int, lv cpuid.Level) {
	l, cp := Lanes[T](), w.Cp
	esz := int(unsafe.Sizeof(T(0)))
	ks, maxNV := kernels[T](lv)
	sb, sc := cp*l*esz, n*l*esz // bytes between query panels of x and of h
	for q0 := 0; q0 < x.NP; {
		nv := min(maxNV, x.NP-q0)
		k, mr := ks.fwd[nv-1], ks.fwdMR[nv-1]
		b := unsafe.Pointer(&x.Data[q0*cp*l])
		for p := p0; p < p1; p++ {
			for r := 0; r < l; r += mr {
				a := unsafe.Pointer(&w.Data[p*cp*l+r])
				c := unsafe.Pointer(&h[q0*n*l+((p-p0)*l+r)*l])
				k(a, b, c, cp, sb, sc)
			}
		}
		q0 += nv
	}
}

// backwardAsm runs BackwardAdd: for each group of NV query panels, the
// columns of W are swept in MR-column tiles, each accumulating over every
// panel of the block.
func backwardAsm[T Float](z *Panels[T], w *Panels[T], g []T, p0, p1, n int, lv cpuid.Level) {
	l, cp := Lanes[T](), w.Cp
	esz := int(unsafe.Sizeof(T(0)))
	ks, maxNV := kernels[T](lv)
	pstride, sb, sc := cp*l*esz, n*l*esz, cp*l*esz
	for q0 := 0; q0 < z.NP; {
		nv := min(maxNV, z.NP-q0)
		k, mr := ks.bwd[nv-1], ks.bwdMR[nv-1]
		b := unsafe.Pointer(&g[q0*n*l])
		for d0 := 0; d0 < cp; d0 += mr {
			a := unsafe.Pointer(&w.Data[p0*cp*l+d0*l])
			c := unsafe.Pointer(&z.Data[q0*cp*l+d0*l])
			k(a, b, c, p1-p0, pstride, sb, sc)
		}
		q0 += nv
	}
}
