package qr

import (
	"fmt"
	"math"
	"testing"

	"github.com/drdam/drdam/internal/rng"
)

// mgs is the reference: modified Gram–Schmidt of the rows of g, each row
// scaled by its original norm (features.orthoBlock's arithmetic).
func mgs(g []float64, d int) {
	norms := make([]float64, d)
	for i := range d {
		v := g[i*d : (i+1)*d]
		norms[i] = math.Sqrt(dotFMA(v, v))
		for j := range i {
			q := g[j*d : (j+1)*d]
			r := -dotFMA(v, q)
			for t := range v {
				v[t] = math.FMA(r, q[t], v[t])
			}
		}
		n := math.Sqrt(dotFMA(v, v))
		for t := range v {
			v[t] /= n
		}
	}
	for i := range d {
		for t := range d {
			g[i*d+t] *= norms[i]
		}
	}
}

// dotFMA is features.dotFMA: four FMA chains.
func dotFMA(a, b []float64) float64 {
	var s0, s1, s2, s3 float64
	n := len(a) &^ 3
	for i := 0; i < n; i += 4 {
		s0 = math.FMA(a[i], b[i], s0)
		s1 = math.FMA(a[i+1], b[i+1], s1)
		s2 = math.FMA(a[i+2], b[i+2], s2)
		s3 = math.FMA(a[i+3], b[i+3], s3)
	}
	for i := n; i < len(a); i++ {
		s0 = math.FMA(a[i], b[i], s0)
	}
	return (s0 + s1) + (s2 + s3)
}

func gaussian(seed uint64, d int) []float64 {
	g := make([]float64, d*d)
	rng.New(seed, rng.StreamOrthoBlock).Normals(g)
	return g
}

func rowNorms(g []float64, d int) []float64 {
	n := make([]float64, d)
	for i := range d {
		n[i] = math.Sqrt(dotFMA(g[i*d:(i+1)*d], g[i*d:(i+1)*d]))
	}
	return n
}

var dims = []int{1, 2, 3, 8, 17, 31, 32, 33, 64, 100, 200, 1000}

func TestOrthonormalize(t *testing.T) {
	for _, d := range dims {
		if testing.Short() && d > 200 {
			continue
		}
		t.Run(fmt.Sprint(d), func(t *testing.T) {
			g := gaussian(uint64(d), d)
			ref := append([]float64(nil), g...)
			mgs(ref, d)
			norms := rowNorms(g, d)
			w := NewWork(d)
			Orthonormalize(g, d, norms, w, nil)
			var maxDiff, maxOrth float64
			for i := range g {
				maxDiff = max(maxDiff, math.Abs(g[i]-ref[i]))
			}
			for i := range d {
				for j := range d {
					s := dotFMA(g[i*d:(i+1)*d], g[j*d:(j+1)*d]) / (norms[i] * norms[j])
					if i == j {
						s--
					}
					maxOrth = max(maxOrth, math.Abs(s))
				}
			}
			t.Logf("d=%d: max |QR − MGS| = %.3g, max |QQᵀ − I| = %.3g", d, maxDiff, maxOrth)
			if maxDiff > 1e-10 {
				t.Errorf("d=%d: max |QR − MGS| = %g", d, maxDiff)
			}
			if maxOrth > 1e-13*float64(d) {
				t.Errorf("d=%d: max |QQᵀ − I| = %g", d, maxOrth)
			}
		})
	}
}

func BenchmarkOrthonormalize(b *testing.B) {
	for _, d := range []int{256, 1000} {
		b.Run(fmt.Sprint(d), func(b *testing.B) {
			g0 := gaussian(1, d)
			norms := rowNorms(g0, d)
			g := make([]float64, d*d)
			w := NewWork(d)
			b.ReportAllocs()
			for b.Loop() {
				copy(g, g0)
				Orthonormalize(g, d, norms, w, nil)
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/block")
		})
	}
}

// TestOrthonormalizeScale checks that the scales only multiply the rows:
// without them the rows are the unit q_i, and with them exactly
// q_i·scale[i].
func TestOrthonormalizeScale(t *testing.T) {
	for _, d := range []int{5, 40, 129} {
		g := gaussian(3, d)
		norms := rowNorms(g, d)
		unit := append([]float64(nil), g...)
		w := NewWork(d)
		Orthonormalize(unit, d, nil, w, nil)
		Orthonormalize(g, d, norms, w, nil)
		for i := range d {
			for j := range d {
				if want := unit[i*d+j] * norms[i]; math.Float64bits(g[i*d+j]) != math.Float64bits(want) {
					t.Fatalf("d=%d: row %d column %d is %v, want q·norm = %v", d, i, j, g[i*d+j], want)
				}
			}
			if n := math.Sqrt(dotFMA(unit[i*d:(i+1)*d], unit[i*d:(i+1)*d])); math.Abs(n-1) > 1e-14 {
				t.Fatalf("d=%d: unit row %d has norm %v", d, i, n)
			}
		}
	}
}
