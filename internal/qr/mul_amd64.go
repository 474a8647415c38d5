//go:build amd64 && !purego

package qr

const hasAsm = true

// The kernels of mul_amd64.s, written by go run ./_gen (see there).

//go:noescape
func mul4x512(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, n, k, zero int)

//go:noescape
func mul4x256(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, n, k, zero int)

//go:noescape
func dot512(a, b *float64, n int, acc *[32]float64)

//go:noescape
func dot256(a, b *float64, n int, acc *[32]float64)

//go:noescape
func axpy512(f float64, x, y *float64, n int)

//go:noescape
func axpy256(f float64, x, y *float64, n int)

//go:noescape
func scal512(s float64, x, y *float64, n int)

//go:noescape
func scal256(s float64, x, y *float64, n int)

//go:noescape
func transpose512(a *float64, lda int, b *float64, ldb int, nblocks int)
