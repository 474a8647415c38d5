package qr

import (
	"fmt"
	"math"

	"github.com/drdam/drdam/internal/cpuid"
)

// The kernels below define their results as chains of FMAs in a fixed
// order, and every kernel level (AVX-512, AVX2, portable Go) computes
// exactly those operations: the vector code only runs independent chains
// side by side. So the results are the same bits on every machine and
// level. lv is the level to use (cpuid.Current(), looked up once by the
// caller).

// mulAdd computes, for the m×n block of C at c (row stride ldc), with A
// the m×k block at a (stride lda) and B the k×n block at b (stride ldb),
//
//	C[i][j] = fma(A[i][k−1], B[k−1][j], … fma(A[i][0], B[0][j], C[i][j])),
//
// one FMA chain per element in the order of p. m must be a multiple of 4
// and n of 8.
func mulAdd(lv cpuid.Level, c []float64, ldc int, a []float64, lda int, b []float64, ldb int, m, n, k int) {
	mul(lv, false, c, ldc, a, lda, b, ldb, m, n, k)
}

// mulSet is mulAdd with the chains starting at 0 instead of at C: C = A·B.
func mulSet(lv cpuid.Level, c []float64, ldc int, a []float64, lda int, b []float64, ldb int, m, n, k int) {
	mul(lv, true, c, ldc, a, lda, b, ldb, m, n, k)
}

func mul(lv cpuid.Level, set bool, c []float64, ldc int, a []float64, lda int, b []float64, ldb int, m, n, k int) {
	if m%4 != 0 || n%8 != 0 || m < 0 || n < 0 || k < 0 ||
		(m > 0 && n > 0 && (len(c) < (m-1)*ldc+n || ldc < n)) ||
		(m > 0 && k > 0 && (len(a) < (m-1)*lda+k || lda < k)) ||
		(n > 0 && k > 0 && (len(b) < (k-1)*ldb+n || ldb < n)) {
		panic(fmt.Sprintf("qr: mul %d×%d×%d with C of %d (ld %d), A of %d (ld %d), B of %d (ld %d)",
			m, n, k, len(c), ldc, len(a), lda, len(b), ldb))
	}
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		if set {
			for i := 0; i < m; i++ {
				clear(c[i*ldc : i*ldc+n])
			}
		}
		return
	}
	zero := 0
	if set {
		zero = 1
	}
	switch {
	case hasAsm && lv >= cpuid.AVX512:
		for i := 0; i < m; i += 4 {
			mul4x512(&c[i*ldc], ldc, &a[i*lda], lda, &b[0], ldb, n, k, zero)
		}
	case hasAsm && lv >= cpuid.AVX2:
		for i := 0; i < m; i += 4 {
			mul4x256(&c[i*ldc], ldc, &a[i*lda], lda, &b[0], ldb, n, k, zero)
		}
	default:
		if set {
			for i := 0; i < m; i++ {
				clear(c[i*ldc : i*ldc+n])
			}
		}
		mulAddGo(c, ldc, a, lda, b, ldb, m, n, k)
	}
}

// mulAddGo is the portable mulAdd (m a multiple of 4, n of 8): tiles of
// 2×4 results held in variables, each still one chain in the order of p.
func mulAddGo(c []float64, ldc int, a []float64, lda int, b []float64, ldb int, m, n, k int) {
	for i := 0; i < m; i += 2 {
		a0, a1 := a[i*lda:i*lda+k], a[(i+1)*lda:(i+1)*lda+k]
		for j := 0; j < n; j += 4 {
			c0 := (*[4]float64)(c[i*ldc+j:])
			c1 := (*[4]float64)(c[(i+1)*ldc+j:])
			s00, s01, s02, s03 := c0[0], c0[1], c0[2], c0[3]
			s10, s11, s12, s13 := c1[0], c1[1], c1[2], c1[3]
			for p := range k {
				bp := (*[4]float64)(b[p*ldb+j:])
				b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
				x, y := a0[p], a1[p]
				s00, s01, s02, s03 = math.FMA(x, b0, s00), math.FMA(x, b1, s01), math.FMA(x, b2, s02), math.FMA(x, b3, s03)
				s10, s11, s12, s13 = math.FMA(y, b0, s10), math.FMA(y, b1, s11), math.FMA(y, b2, s12), math.FMA(y, b3, s13)
			}
			*c0 = [4]float64{s00, s01, s02, s03}
			*c1 = [4]float64{s10, s11, s12, s13}
		}
	}
}

// dot returns ⟨a, b⟩ (b at least as long as a) summed in 32 chains: the
// product a[i]·b[i] goes to chain i mod 32 by an FMA, in the order of i,
// and the chains, all starting at 0, are added in the fixed tree of
// combine.
func dot(lv cpuid.Level, a, b []float64) float64 {
	b = b[:len(a)]
	var acc [32]float64
	n := len(a) &^ 31
	if n > 0 {
		switch {
		case hasAsm && lv >= cpuid.AVX512:
			dot512(&a[0], &b[0], n, &acc)
		case hasAsm && lv >= cpuid.AVX2:
			dot256(&a[0], &b[0], n, &acc)
		default:
			for i := 0; i < n; i += 32 {
				ai, bi := a[i:i+32], b[i:i+32]
				for l := range acc {
					acc[l] = math.FMA(ai[l], bi[l], acc[l])
				}
			}
		}
	}
	for i := n; i < len(a); i++ {
		acc[i&31] = math.FMA(a[i], b[i], acc[i&31])
	}
	return combine(&acc)
}

// combine adds the 32 chains of dot: chains l, l+8, l+16, l+24 as
// ((l + l+8) + (l+16 + l+24)) (the four zmm accumulators), then lanes l
// and l+4, then l and l+2, then 0 and 1 (the halvings of a register).
func combine(acc *[32]float64) float64 {
	var c [8]float64
	for l := range c {
		c[l] = (acc[l] + acc[l+8]) + (acc[l+16] + acc[l+24])
	}
	e0, e1, e2, e3 := c[0]+c[4], c[1]+c[5], c[2]+c[6], c[3]+c[7]
	return (e0 + e2) + (e1 + e3)
}

// axpy sets y[i] = fma(f, x[i], y[i]) (y at least as long as x).
func axpy(lv cpuid.Level, f float64, x, y []float64) {
	y = y[:len(x)]
	n := len(x) &^ 31
	if n > 0 && hasAsm && lv >= cpuid.AVX2 {
		if lv >= cpuid.AVX512 {
			axpy512(f, &x[0], &y[0], n)
		} else {
			axpy256(f, &x[0], &y[0], n)
		}
		x, y = x[n:], y[n:]
	}
	for i, v := range x {
		y[i] = math.FMA(f, v, y[i])
	}
}

// scal sets y[i] = s·x[i] (y at least as long as x; y may be x).
func scal(lv cpuid.Level, s float64, x, y []float64) {
	y = y[:len(x)]
	n := len(x) &^ 31
	if n > 0 && hasAsm && lv >= cpuid.AVX2 {
		if lv >= cpuid.AVX512 {
			scal512(s, &x[0], &y[0], n)
		} else {
			scal256(s, &x[0], &y[0], n)
		}
		x, y = x[n:], y[n:]
	}
	for i, v := range x {
		y[i] = s * v
	}
}

// transpose sets B[c][i] = A[i][c] for the r×c matrix A at a (stride
// lda) and B at b (stride ldb); r and c must be multiples of 8.
func transpose(lv cpuid.Level, a []float64, lda int, b []float64, ldb int, r, c int) {
	if r%8 != 0 || c%8 != 0 || (r > 0 && c > 0 && (len(a) < (r-1)*lda+c || len(b) < (c-1)*ldb+r)) {
		panic(fmt.Sprintf("qr: transpose %d×%d with A of %d (ld %d), B of %d (ld %d)", r, c, len(a), lda, len(b), ldb))
	}
	if r == 0 || c == 0 {
		return
	}
	if hasAsm && lv >= cpuid.AVX512 {
		for i := 0; i < r; i += 8 {
			transpose512(&a[i*lda], lda, &b[i], ldb, c/8)
		}
		return
	}
	for c0 := 0; c0 < c; c0 += 8 {
		for i := range r {
			src := a[i*lda+c0 : i*lda+c0+8]
			for t, v := range src {
				b[(c0+t)*ldb+i] = v
			}
		}
	}
}
