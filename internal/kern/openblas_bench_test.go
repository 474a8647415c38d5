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
	var t T
	if _, ok := any(t).(float32); ok {
		w, x, h, z := make([]float32, y*d), make([]float32, nb*d), make([]float32, nb*y), make([]float32, nb*d)
		fill(w, 1)
		fill(x, 2)
		fill(h, 3)
		W := blas32.General{Rows: y, Cols: d, Stride: d, Data: w}
		X := blas32.General{Rows: nb, Cols: d, Stride: d, Data: x}
		H := blas32.General{Rows: nb, Cols: y, Stride: y, Data: h}
		Z := blas32.General{Rows: nb, Cols: d, Stride: d, Data: z}
		b.Run(name+"/fwd/openblas", func(b *testing.B) {
			for b.Loop() {
				blas32.Gemm(blas.NoTrans, blas.Trans, 1, X, W, 0, H)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(name+"/bwd/openblas", func(b *testing.B) {
			for b.Loop() {
				blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, H, W, 0, Z)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		return
	}
	w, x, h, z := make([]float64, y*d), make([]float64, nb*d), make([]float64, nb*y), make([]float64, nb*d)
	fill(w, 1)
	fill(x, 2)
	fill(h, 3)
	W := blas64.General{Rows: y, Cols: d, Stride: d, Data: w}
	X := blas64.General{Rows: nb, Cols: d, Stride: d, Data: x}
	H := blas64.General{Rows: nb, Cols: y, Stride: y, Data: h}
	Z := blas64.General{Rows: nb, Cols: d, Stride: d, Data: z}
	b.Run(name+"/fwd/openblas", func(b *testing.B) {
		for b.Loop() {
			blas64.Gemm(blas.NoTrans, blas.Trans, 1, X, W, 0, H)
		}
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
	b.Run(name+"/bwd/openblas", func(b *testing.B) {
		for b.Loop() {
			blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, H, W, 0, Z)
		}
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}
