package dam

import (
	"fmt"
	"testing"
	"time"

	"github.com/drdam/drdam/features"
)

// Size tiers of the benchmarks: small fits in cache, medium is a typical
// laptop experiment, large is the peers' config a (D = 1000, K = 500,
// Y = 10⁵, B = 500: the paper's §4.1 size); few is a batch of 4 queries,
// which takes the small-batch products (kern.ForwardNarrow).
var benchSizes = []struct {
	name       string
	d, k, y, b int
}{
	{"Small", 32, 50, 2000, 16},
	{"Medium", 256, 500, 20000, 64},
	{"Large", 1000, 500, 100000, 500},
	{"Few", 1024, 50, 20000, 4},
}

var benchPrecisions = []Precision{Float32, Float64}

func BenchmarkEnergyGrad(b *testing.B) {
	for _, sz := range benchSizes {
		xi := binaryPatterns(1, sz.k, sz.d)
		x := flip(2, xi[:min(sz.b, sz.k)*sz.d], sz.d, 0.1)
		for len(x) < sz.b*sz.d {
			x = append(x, x[:min(len(x), sz.b*sz.d-len(x))]...)
		}
		e, g := make([]float64, sz.b), make([]float64, sz.b*sz.d)
		for _, prec := range benchPrecisions {
			for _, name := range []string{"MrDAM", "DrDAM-sincos", "DrDAM-sincos-sorf", "DrDAM-exp"} {
				b.Run(fmt.Sprintf("%s/%v/%s", sz.name, prec, name), func(b *testing.B) {
					var m Model
					switch name {
					case "MrDAM":
						m = mustMrDAM(b, Config{D: sz.d, Beta: 10, Precision: prec}, xi)
					case "DrDAM-sincos-sorf":
						m = mustDrDAM(b, Config{D: sz.d, Beta: 10, Y: sz.y, Projection: features.Structured, Seed: 1, Precision: prec}, xi)
					case "DrDAM-sincos":
						m = mustDrDAM(b, Config{D: sz.d, Beta: 10, Y: sz.y, Seed: 1, Precision: prec}, xi)
					default:
						m = mustDrDAM(b, Config{D: sz.d, Beta: 10, Y: sz.y, Basis: features.Exp, Seed: 1, Precision: prec}, xi)
					}
					m.EnergyGrad(e, g, x) // sizes the workspaces
					b.ReportAllocs()
					for b.Loop() {
						if err := m.EnergyGrad(e, g, x); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	for _, sz := range benchSizes {
		xi := binaryPatterns(1, sz.k, sz.d)
		for _, prec := range benchPrecisions {
			b.Run(fmt.Sprintf("%s/%v", sz.name, prec), func(b *testing.B) {
				m := mustDrDAM(b, Config{D: sz.d, Beta: 10, Y: sz.y, Seed: 1, Precision: prec}, nil)
				for b.Loop() {
					m.Reset()
					if err := m.Add(xi); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDescentStep times one descent step of a DrDAM (SinCos), which
// should cost one energy+gradient evaluation of BenchmarkEnergyGrad's
// matching row plus O(B·D), and reports its allocations (0).
func BenchmarkDescentStep(b *testing.B) {
	for _, sz := range benchSizes {
		xi := binaryPatterns(1, sz.k, sz.d)
		x := flip(2, xi[:min(sz.b, sz.k)*sz.d], sz.d, 0.1)
		for len(x) < sz.b*sz.d {
			x = append(x, x[:min(len(x), sz.b*sz.d-len(x))]...)
		}
		for _, prec := range benchPrecisions {
			b.Run(fmt.Sprintf("%s/%v/DrDAM-sincos", sz.name, prec), func(b *testing.B) {
				m := mustDrDAM(b, Config{D: sz.d, Beta: 10, Y: sz.y, Seed: 1, Precision: prec}, xi)
				ds, _ := NewDescent(m, RecallOptions{Step: 1e-3, MaxSteps: 1 << 30})
				ds.Start(x)
				ds.Step() // sizes the workspaces: not part of a step's cost
				b.ReportAllocs()
				for b.Loop() {
					if _, err := ds.Step(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkOneQuery times the energy, and the energy and gradient, of one
// query (a batch of one: what a descent of one query or drdam serve's
// /energy evaluates) in a DrDAM of D = 784, Y = 10⁵ SinCos features with
// the structured projection, in both precisions: the service's load test's
// model (BENCHMARKS.md, "The memory service under load").
func BenchmarkOneQuery(b *testing.B) {
	const d, k, y = 784, 64, 100_000
	xi := grayPatterns(7, k, d)
	for _, prec := range benchPrecisions {
		m := mustDrDAM(b, Config{D: d, Beta: 60, Y: y, Projection: features.Structured, Precision: prec}, xi)
		q := flip(8, xi[:d], d, 0.3)
		e, g := make([]float64, 1), make([]float64, d)
		for _, grad := range []bool{false, true} {
			name := "energy"
			gr := []float64(nil)
			if grad {
				name, gr = "grad", g
			}
			b.Run(fmt.Sprintf("%v/%s", prec, name), func(b *testing.B) {
				m.EnergyGrad(e, gr, q) // sizes the workspaces
				b.ReportAllocs()
				for b.Loop() {
					if err := m.EnergyGrad(e, gr, q); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkAddCallSize stores 256 patterns of D = 784 in a DrDAM of
// Y = 10⁵ SinCos features (structured) in calls of 8 to 256 rows: the
// cost of a call beyond its rows (BENCHMARKS.md, "The memory service under
// load"); and in calls of 64 and 256 rows in waves of 4 ms (SetWave), as
// drdam serve adds them.
//
//	go test -run '^$' -bench AddCallSize -benchtime 3x ./dam
func BenchmarkAddCallSize(b *testing.B) {
	const d, k = 784, 256
	x := make([]float64, k*d)
	for i := range x {
		x[i] = float64((i*7919)%1000) / 1000 / 28
	}
	for _, c := range []struct {
		rows int
		wave time.Duration
	}{{8, 0}, {16, 0}, {32, 0}, {64, 0}, {256, 0}, {64, 4 * time.Millisecond}, {256, 4 * time.Millisecond}} {
		rows, name := c.rows, fmt.Sprintf("rows=%d", c.rows)
		if c.wave > 0 {
			name += fmt.Sprintf("/wave=%v", c.wave)
		}
		b.Run(name, func(b *testing.B) {
			m, err := NewDrDAM(Config{D: d, Beta: 60, Y: 100_000, Projection: features.Structured})
			if err != nil {
				b.Fatal(err)
			}
			m.SetWave(c.wave)
			for b.Loop() {
				for i := 0; i < k; i += rows {
					if err := m.Add(x[i*d : (i+rows)*d]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(k*b.N)/b.Elapsed().Seconds(), "patterns/s")
		})
	}
}
