package features

import (
	"testing"

	"github.com/drdam/drdam/internal/qr"
	"github.com/drdam/drdam/internal/rng"
)

func BenchmarkTmpParallelQR(b *testing.B) {
	const d = 1000
	b.RunParallel(func(pb *testing.PB) {
		var s rng.Stream
		s.Reset(1, rng.StreamOrthoBlock)
		g0 := make([]float64, d*d)
		s.Normals(g0)
		g, norms := make([]float64, d*d), make([]float64, d)
		w := qr.NewWork(d)
		for pb.Next() {
			copy(g, g0)
			orthoFromGaussian(g, norms, d, w, nil)
		}
	})
}
