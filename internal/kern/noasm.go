//go:build !amd64 || purego

package kern

import "github.com/drdam/drdam/internal/cpuid"

const hasAsm = false

func forwardAsm[T Float](h []T, w, x *Panels[T], p0, p1, n int, lv cpuid.Level) {
	panic("kern: no assembly kernels in this build")
}

func backwardAsm[T Float](z *Panels[T], w *Panels[T], g []T, p0, p1, n int, lv cpuid.Level) {
	panic("kern: no assembly kernels in this build")
}

func forwardNarrowAsm[T Float](h []T, w *Panels[T], x *Narrow[T], p0, p1 int, lv cpuid.Level) {
	panic("kern: no assembly kernels in this build")
}

func backwardNarrowAsm[T Float](z *Narrow[T], w *Panels[T], g []T, p0, p1 int, lv cpuid.Level) {
	panic("kern: no assembly kernels in this build")
}

func stepNarrowAsm[T Float](z *Narrow[T], wb *Panels[T], g []T, pb0, pb1 int, h []T, wf *Panels[T], x *Narrow[T], pf0, pf1 int, lv cpuid.Level) {
	panic("kern: no assembly kernels in this build")
}
