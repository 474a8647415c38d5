package baseline

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/drdam/drdam/npy"
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

// TestTimeFiles times NewImputer and Complete (KNNImputer's fit and
// transform) on the .npy files named by $BASELINE_FIT and $BASELINE_QUERY
// (NaN = missing), with k = $BASELINE_K (default 5), uniform weights, for
// BENCHMARKS.md's comparison with scikit-learn; with $BASELINE_OUT it
// writes the result there. Skipped without the variables.
func TestTimeFiles(t *testing.T) {
	fitPath, qPath := os.Getenv("BASELINE_FIT"), os.Getenv("BASELINE_QUERY")
	if fitPath == "" || qPath == "" {
		t.Skip("set BASELINE_FIT and BASELINE_QUERY to time KNNImputer's equivalent on them")
	}
	fit, err := npy.ReadFile(fitPath)
	if err != nil {
		t.Fatal(err)
	}
	q, err := npy.ReadFile(qPath)
	if err != nil {
		t.Fatal(err)
	}
	k := 5
	if s := os.Getenv("BASELINE_K"); s != "" {
		if _, err := fmt.Sscan(s, &k); err != nil {
			t.Fatal(err)
		}
	}
	d := fit.Shape[1]
	t0 := time.Now()
	m, err := NewImputer(fit.Data, d, k, Uniform)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]float64, len(q.Data))
	if err := m.Complete(dst, q.Data, nil); err != nil {
		t.Fatal(err)
	}
	el := time.Since(t0)
	hidden := 0
	for _, v := range q.Data {
		if math.IsNaN(v) {
			hidden++
		}
	}
	t.Logf("K=%d D=%d B=%d k=%d uniform: %d values imputed in %.6f s", fit.Shape[0], d, q.Shape[0], k, hidden, el.Seconds())
	if out := os.Getenv("BASELINE_OUT"); out != "" {
		if err := npy.WriteFile(out, q.Shape, dst); err != nil {
			t.Fatal(err)
		}
	}
}
