package qr

import (
	"fmt"
	"math"
	"testing"

	"github.com/drdam/drdam/internal/cpuid"
	"github.com/drdam/drdam/internal/rng"
	"github.com/drdam/drdam/internal/simdtest"
)

func normals(seed uint64, n int) []float64 {
	x := make([]float64, n)
	rng.New(seed, 99).Normals(x)
	return x
}

// TestMulAddLevels checks that every kernel level computes the bits of
// the portable chain of FMAs, on shapes that exercise the 4×32 and 4×8
// tiles, strides larger than the blocks, and k = 1.
func TestMulAddLevels(t *testing.T) {
	for _, sh := range []struct{ m, n, k, extra int }{
		{4, 8, 1, 0}, {4, 32, 5, 3}, {8, 40, 17, 0}, {12, 64, 32, 9}, {4, 1000, 32, 0}, {16, 32, 1000, 5}, {4, 56, 3, 1},
	} {
		ldc, lda, ldb := sh.n+sh.extra, sh.k+sh.extra, sh.n+2*sh.extra
		a := normals(1, sh.m*lda)
		b := normals(2, sh.k*ldb)
		c0 := normals(3, sh.m*ldc)
		want := append([]float64(nil), c0...)
		mulAddGo(want, ldc, a, lda, b, ldb, sh.m, sh.n, sh.k)
		// The chain itself, element by element.
		for i := range sh.m {
			for j := range sh.n {
				s := c0[i*ldc+j]
				for p := range sh.k {
					s = math.FMA(a[i*lda+p], b[p*ldb+j], s)
				}
				if s != want[i*ldc+j] {
					t.Fatalf("%v: mulAddGo[%d][%d] = %v, want %v", sh, i, j, want[i*ldc+j], s)
				}
			}
		}
		// mulSet: the same chains from 0.
		wantSet := make([]float64, len(c0))
		mulAddGo(wantSet, ldc, a, lda, b, ldb, sh.m, sh.n, sh.k)
		simdtest.ForLevels(t, func(t *testing.T) {
			got := append([]float64(nil), c0...)
			mulAdd(cpuid.Current(), got, ldc, a, lda, b, ldb, sh.m, sh.n, sh.k)
			sameBits(t, fmt.Sprintf("mulAdd %v", sh), got, want)
			got = append(got[:0], c0...)
			for i := range sh.m { // the padding between rows is left alone
				clear(got[i*ldc : i*ldc+sh.n])
				copy(got[i*ldc:i*ldc+sh.n], normals(4, sh.n))
			}
			for i := range got {
				if i%ldc >= sh.n {
					wantSet[i] = got[i]
				}
			}
			mulSet(cpuid.Current(), got, ldc, a, lda, b, ldb, sh.m, sh.n, sh.k)
			sameBits(t, fmt.Sprintf("mulSet %v", sh), got, wantSet)
		})
	}
}

func sameBits(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range got {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s at %v: element %d = %v, want %v", what, cpuid.Current(), i, got[i], want[i])
		}
	}
}

// TestDotAxpyLevels checks that dot and axpy compute the bits of their
// definitions (32 FMA chains combined in a fixed tree; an FMA per
// element) at every level, for lengths around multiples of 32.
func TestDotAxpyLevels(t *testing.T) {
	for _, n := range []int{0, 1, 7, 31, 32, 33, 63, 64, 100, 999, 1000} {
		a, b := normals(5, n), normals(6, n+3)
		var acc [32]float64
		for i := range n {
			acc[i%32] = math.FMA(a[i], b[i], acc[i%32])
		}
		var c [8]float64
		for l := range c {
			c[l] = (acc[l] + acc[l+8]) + (acc[l+16] + acc[l+24])
		}
		want := ((c[0] + c[4]) + (c[2] + c[6])) + ((c[1] + c[5]) + (c[3] + c[7]))
		wantY := append([]float64(nil), b...)
		for i := range n {
			wantY[i] = math.FMA(-0.3, a[i], wantY[i])
		}
		simdtest.ForLevels(t, func(t *testing.T) {
			if got := dot(cpuid.Current(), a, b); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("n=%d: dot = %v, want %v", n, got, want)
			}
			y := append([]float64(nil), b...)
			axpy(cpuid.Current(), -0.3, a, y)
			sameBits(t, fmt.Sprintf("axpy n=%d", n), y, wantY)
		})
	}
}

// TestScalTransposeLevels checks scal and transpose at every level.
func TestScalTransposeLevels(t *testing.T) {
	for _, n := range []int{0, 5, 32, 77, 1000} {
		x := normals(7, n)
		want := make([]float64, n)
		for i, v := range x {
			want[i] = 1.7 * v
		}
		simdtest.ForLevels(t, func(t *testing.T) {
			y := make([]float64, n)
			scal(cpuid.Current(), 1.7, x, y)
			sameBits(t, fmt.Sprintf("scal n=%d", n), y, want)
			y = append(y[:0], x...)
			scal(cpuid.Current(), 1.7, y, y)
			sameBits(t, fmt.Sprintf("scal in place n=%d", n), y, want)
		})
	}
	for _, sh := range []struct{ r, c, lda, ldb int }{{8, 8, 8, 8}, {8, 24, 30, 9}, {32, 1000, 1000, 32}, {16, 40, 41, 19}} {
		a := normals(8, sh.r*sh.lda)
		simdtest.ForLevels(t, func(t *testing.T) {
			b := normals(9, sh.c*sh.ldb)
			want := append([]float64(nil), b...)
			for i := range sh.r {
				for c := range sh.c {
					want[c*sh.ldb+i] = a[i*sh.lda+c]
				}
			}
			transpose(cpuid.Current(), a, sh.lda, b, sh.ldb, sh.r, sh.c)
			sameBits(t, fmt.Sprintf("transpose %v", sh), b, want)
		})
	}
}

// BenchmarkMulAdd times the kernel on the two shapes of the block
// reflector's application at D = 1000: W = X·Vp (4×32, k = 1000) and
// X += U·Vr (4×1000, k = 32), on 64 rows.
func BenchmarkMulAdd(b *testing.B) {
	const d, nb, rows = 1000, 32, 64
	x := normals(1, rows*d)
	vp := normals(2, d*nb)
	vr := normals(3, nb*d)
	w := make([]float64, rows*nb)
	for _, lv := range cpuid.Supported() {
		b.Run(fmt.Sprintf("XVp/%v", lv), func(b *testing.B) {
			defer cpuid.Set(cpuid.Set(lv))
			for b.Loop() {
				mulAdd(lv, w, nb, x, d, vp, nb, rows, nb, d)
			}
			b.ReportMetric(2*rows*nb*d*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("UVr/%v", lv), func(b *testing.B) {
			defer cpuid.Set(cpuid.Set(lv))
			for b.Loop() {
				mulAdd(lv, x, d, w, nb, vr, d, rows, d, nb)
			}
			b.ReportMetric(2*rows*nb*d*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
