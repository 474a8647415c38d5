package qr

import (
	"fmt"
	"math"

	"github.com/drdam/drdam/internal/cpuid"
)

// mulAdd computes, for the m×n block of C at c (row stride ldc), with A
// the m×k block at a (stride lda) and B the k×n block at b (stride ldb),
//
//	C[i][j] = fma(A[i][k−1], B[k−1][j], … fma(A[i][0], B[0][j], C[i][j])),
//
// one FMA chain per element in the order of p. m must be a multiple of 4
// and n of 8. Every kernel level (AVX-512, AVX2, portable Go) computes
// exactly these operations, so the result is the same bits on every
// machine: the kernels vectorize across j only (see _gen).
func mulAdd(c []float64, ldc int, a []float64, lda int, b []float64, ldb int, m, n, k int) {
	if m%4 != 0 || n%8 != 0 || m < 0 || n < 0 || k < 0 ||
		(m > 0 && n > 0 && (len(c) < (m-1)*ldc+n || ldc < n)) ||
		(m > 0 && k > 0 && (len(a) < (m-1)*lda+k || lda < k)) ||
		(n > 0 && k > 0 && (len(b) < (k-1)*ldb+n || ldb < n)) {
		panic(fmt.Sprintf("qr: mulAdd %d×%d×%d with C of %d (ld %d), A of %d (ld %d), B of %d (ld %d)",
			m, n, k, len(c), ldc, len(a), lda, len(b), ldb))
	}
	if m == 0 || n == 0 || k == 0 {
		return
	}
	switch lv := cpuid.Current(); {
	case hasAsm && lv >= cpuid.AVX512:
		for i := 0; i < m; i += 4 {
			mul4x512(&c[i*ldc], ldc, &a[i*lda], lda, &b[0], ldb, n, k)
		}
	case hasAsm && lv >= cpuid.AVX2:
		for i := 0; i < m; i += 4 {
			mul4x256(&c[i*ldc], ldc, &a[i*lda], lda, &b[0], ldb, n, k)
		}
	default:
		mulAddGo(c, ldc, a, lda, b, ldb, m, n, k)
	}
}

// mulAddGo is the portable mulAdd.
func mulAddGo(c []float64, ldc int, a []float64, lda int, b []float64, ldb int, m, n, k int) {
	for i := range m {
		ci := c[i*ldc : i*ldc+n]
		ai := a[i*lda : i*lda+k]
		for p, av := range ai {
			bp := b[p*ldb : p*ldb+n]
			for j, bv := range bp {
				ci[j] = math.FMA(av, bv, ci[j])
			}
		}
	}
}
