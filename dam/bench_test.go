package dam

import (
	"fmt"
	"testing"

	"github.com/drdam/drdam/features"
)

// Size tiers of the benchmarks: small fits in cache, medium is a typical
// laptop experiment, large is the paper's §4.1 size (config a of the peers'
// bench.py has D = 1000, K = 500, Y = 10⁵, B = 500; large here uses B = 50 to
// keep a run short).
var benchSizes = []struct {
	name       string
	d, k, y, b int
}{
	{"Small", 32, 50, 2000, 16},
	{"Medium", 256, 500, 20000, 64},
	{"Large", 1000, 500, 100000, 50},
}

func BenchmarkEnergyGrad(b *testing.B) {
	for _, sz := range benchSizes {
		xi := binaryPatterns(1, sz.k, sz.d)
		x := flip(2, xi[:sz.b*sz.d], sz.d, 0.1)
		e, g := make([]float64, sz.b), make([]float64, sz.b*sz.d)
		models := []struct {
			name string
			m    Model
		}{{"MrDAM", mustMrDAM(b, Config{D: sz.d, Beta: 10}, xi)}}
		for _, basis := range []features.Basis{features.SinCos, features.Exp} {
			models = append(models, struct {
				name string
				m    Model
			}{fmt.Sprintf("DrDAM-%v", basis), mustDrDAM(b, Config{D: sz.d, Beta: 10, Y: sz.y, Basis: basis, Seed: 1}, xi)})
		}
		for _, mm := range models {
			b.Run(sz.name+"/"+mm.name, func(b *testing.B) {
				for b.Loop() {
					if err := mm.m.EnergyGrad(e, g, x); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	for _, sz := range benchSizes {
		xi := binaryPatterns(1, sz.k, sz.d)
		m := mustDrDAM(b, Config{D: sz.d, Beta: 10, Y: sz.y, Seed: 1}, nil)
		b.Run(sz.name, func(b *testing.B) {
			for b.Loop() {
				if err := m.Add(xi); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDescentStep times one descent step (which should cost one
// energy+gradient evaluation) and reports its allocations.
func BenchmarkDescentStep(b *testing.B) {
	for _, sz := range benchSizes[:2] {
		xi := binaryPatterns(1, sz.k, sz.d)
		x := flip(2, xi[:sz.b*sz.d], sz.d, 0.1)
		m := mustDrDAM(b, Config{D: sz.d, Beta: 10, Y: sz.y, Seed: 1}, xi)
		b.Run(sz.name, func(b *testing.B) {
			ds, _ := NewDescent(m, RecallOptions{Step: 1e-3, MaxSteps: 1 << 30})
			ds.Start(x)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ds.Step(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
