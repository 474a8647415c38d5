package baseline

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchData returns k stored rows and b queries of d normal values, 20–50%
// of each query hidden.
func benchData(k, d, b int) (x, q []float64, visible []bool) {
	rng := rand.New(rand.NewPCG(uint64(k), uint64(d)))
	x = make([]float64, k*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	q, _, visible = randomQueries(rng, b, d, 0.2, 0.5, rng.NormFloat64)
	return x, q, visible
}

// benchSizes are the tiers: K stored rows, D coordinates, B = 256 queries
// a call.
var benchSizes = []struct{ k, d int }{{1000, 64}, {1000, 784}, {10000, 64}, {10000, 784}}

const benchB = 256

func benchComplete(b *testing.B, build func(x []float64, d int) (Completer, error)) {
	for _, s := range benchSizes {
		b.Run(fmt.Sprintf("K=%d/D=%d/B=%d", s.k, s.d, benchB), func(b *testing.B) {
			x, q, vis := benchData(s.k, s.d, benchB)
			c, err := build(x, s.d)
			if err != nil {
				b.Fatal(err)
			}
			dst := make([]float64, len(q))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := c.Complete(dst, q, vis); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*benchB)/b.Elapsed().Seconds(), "queries/s")
		})
	}
}

func BenchmarkKNN1(b *testing.B) {
	benchComplete(b, func(x []float64, d int) (Completer, error) { return NewKNN(x, d, 1, Uniform) })
}

func BenchmarkKNN5Distance(b *testing.B) {
	benchComplete(b, func(x []float64, d int) (Completer, error) { return NewKNN(x, d, 5, Distance) })
}

func BenchmarkKNNImputer5(b *testing.B) {
	benchComplete(b, func(x []float64, d int) (Completer, error) { return NewImputer(x, d, 5, Uniform) })
}

func BenchmarkKNNKernel(b *testing.B) {
	benchComplete(b, func(x []float64, d int) (Completer, error) { return NewKernel(x, d, 1) })
}
