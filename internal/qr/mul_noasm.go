//go:build !amd64 || purego

package qr

const hasAsm = false

func mul4x512(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, n, k, zero int) {
	panic("qr: no assembly kernels in this build")
}

func mul4x256(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, n, k, zero int) {
	panic("qr: no assembly kernels in this build")
}

func dot512(a, b *float64, n int, acc *[32]float64) { panic("qr: no assembly kernels in this build") }

func dot256(a, b *float64, n int, acc *[32]float64) { panic("qr: no assembly kernels in this build") }

func axpy512(f float64, x, y *float64, n int) { panic("qr: no assembly kernels in this build") }

func axpy256(f float64, x, y *float64, n int) { panic("qr: no assembly kernels in this build") }

func scal512(s float64, x, y *float64, n int) { panic("qr: no assembly kernels in this build") }

func scal256(s float64, x, y *float64, n int) { panic("qr: no assembly kernels in this build") }

func transpose512(a *float64, lda int, b *float64, ldb int, nblocks int) {
	panic("qr: no assembly kernels in this build")
}
