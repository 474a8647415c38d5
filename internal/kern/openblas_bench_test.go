//go:build openblas

package kern

// OpenBLAS, through gonum's cgo binding (gonum.org/v1/netlib), for the
// comparison in BenchmarkGEMM. Build with
//
//	CGO_LDFLAGS=-lopenblas go test -tags openblas -bench GEMM ./internal/kern
//
// (needs gcc and Debian's libopenblas-dev). OpenBLAS uses its own threads
// (OPENBLAS_NUM_THREADS, all cores by default).

import (
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
)

func init() {
	blas64.Use(netlib.Implementation{})
	blas32.Use(netlib.Implementation{})
}

// benchOpenBLAS times H = X·Wᵀ (sgemm/dgemm NT with W row-major Y×D) and
// Z = G·W (NN), the same products as the drdam rows.
func benchOpenBLAS[T Float](b *testing.B, name string, nb, d, y int, flops float64) {
	w, x, h, z := make([]T, y*d), make([]T, nb*d), make([]T, nb*y), make([]T, nb*d)
	fill(w, 1)
	fill(x, 2)
	fill(h, 3)
	var fwd, bwd func()
	switch any(w).(type) {
	case []float32:
		g := func(r, c int, v []T) blas32.General {
			return blas32.General{Rows: r, Cols: c, Stride: c, Data: any(v).([]float32)}
		}
		W, X, H, Z := g(y, d, w), g(nb, d, x), g(nb, y, h), g(nb, d, z)
		fwd = func() { blas32.Gemm(blas.NoTrans, blas.Trans, 1, X, W, 0, H) }
		bwd = func() { blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, H, W, 0, Z) }
	default:
		g := func(r, c int, v []T) blas64.General {
			return blas64.General{Rows: r, Cols: c, Stride: c, Data: any(v).([]float64)}
		}
		W, X, H, Z := g(y, d, w), g(nb, d, x), g(nb, y, h), g(nb, d, z)
		fwd = func() { blas64.Gemm(blas.NoTrans, blas.Trans, 1, X, W, 0, H) }
		bwd = func() { blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, H, W, 0, Z) }
	}
	for _, r := range []struct {
		dir string
		f   func()
	}{{"fwd", fwd}, {"bwd", bwd}} {
		b.Run(name+"/"+r.dir+"/openblas", func(b *testing.B) {
			for b.Loop() {
				r.f()
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
