package kern

import (
	"fmt"
	"testing"

	"github.com/drdam/drdam/internal/cpuid"
)

// gemmShapes are the sizes of the speed study and of the issue: B queries,
// dimension D, Y projections.
var gemmShapes = []struct{ b, d, y int }{{256, 1024, 8192}, {500, 1000, 200000}}

// BenchmarkGEMM times the model's two products on every core: "fwd" is
// H = W·Xᵀ ((B×D)·(D×Y)), "bwd" is Z = G·W ((B×Y)·(Y×D)) with the
// per-block partial sums added at the end. It reports GFLOP/s (2·B·D·Y per
// product). Under the openblas build tag, openblas_bench_test.go adds the
// same products through OpenBLAS, so that one `go test -tags openblas
// -bench GEMM` run measures both.
func BenchmarkGEMM(b *testing.B) {
	for _, sh := range gemmShapes {
		for _, dt := range []string{"float32", "float64"} {
			name := fmt.Sprintf("%dx%dx%d/%s", sh.b, sh.d, sh.y, dt)
			if dt == "float32" {
				benchProduct[float32](b, name, sh.b, sh.d, sh.y)
			} else {
				benchProduct[float64](b, name, sh.b, sh.d, sh.y)
			}
		}
	}
}

func benchProduct[T Float](b *testing.B, name string, nb, d, y int) {
	flops := 2 * float64(nb) * float64(d) * float64(y)
	var p *Product[T]
	var z *Panels[T]
	setup := func() {
		if p != nil {
			return
		}
		w, x := NewPanels[T](y, d), NewPanels[T](nb, d)
		fill(w.Data, 1)
		fill(x.Data, 2)
		p = NewProduct(w, x)
		z = NewPanels[T](nb, d)
	}
	for _, lv := range cpuid.Supported()[1:] {
		b.Run(name+"/fwd/drdam-"+lv.String(), func(b *testing.B) {
			setup()
			defer cpuid.Set(cpuid.Set(lv))
			for b.Loop() {
				p.Forward()
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(name+"/bwd/drdam-"+lv.String(), func(b *testing.B) {
			setup()
			defer cpuid.Set(cpuid.Set(lv))
			for b.Loop() {
				p.Backward()
				p.Sum(z)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
	benchOpenBLAS[T](b, name, nb, d, y, flops)
}

// fill sets s to pseudo-random values in [-1, 1).
func fill[T Float](s []T, seed uint32) {
	x := seed*2654435761 + 1
	for i := range s {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		s[i] = T(float64(x)/(1<<31) - 1)
	}
}
