//go:build !amd64 || purego

package qr

const hasAsm = false

func mul4x512(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, n, k int) {
	panic("qr: no assembly kernels in this build")
}

func mul4x256(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, n, k int) {
	panic("qr: no assembly kernels in this build")
}
