//go:build amd64 && !purego

package qr

const hasAsm = true

// The kernels of mul_amd64.s (written by go run ./_gen): four rows of C,
// n columns (a multiple of 8), k ≥ 1 steps; strides in elements.

//go:noescape
func mul4x512(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, n, k int)

//go:noescape
func mul4x256(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, n, k int)
