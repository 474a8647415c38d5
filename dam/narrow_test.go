package dam

import (
	"fmt"
	"testing"

	"github.com/drdam/drdam/internal/cpuid"
	"github.com/drdam/drdam/internal/kern"
)

// withSmallBatch runs f with the small-batch products on or off.
func withSmallBatch(on bool, f func()) {
	prev := smallBatch
	smallBatch = on
	defer func() { smallBatch = prev }()
	f()
}

// TestSmallBatch: batches of at most kern.MaxNarrow queries, which run the
// small-batch products (pipelined over the blocks of a stored projection,
// one block at a time on demand), give bit for bit the energies and
// gradients of the panel products (kern.ForwardNarrow computes the same
// chains of multiply-adds), at every kernel level, for every basis,
// MrDAM, and the energy alone: a query's results do not depend on the size
// of its batch (Descent shrinks its batch as queries stop). D = 2100 spans
// three chunks of StepNarrow's columns and 21 blocks of 3 panels, so that
// every group pipelines two or three blocks; D is not a multiple of 16
// and Y not of the panel height.
func TestSmallBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("many models at D = 2100")
	}
	const d, k, y = 2100, 12, 1003
	xi, xs := grayQueries(501, k, k, d, 0.3)
	defer cpuid.Set(cpuid.Current())
	for _, prec := range []Precision{Float64, Float32} {
		var models []Model
		models = append(models, mustMrDAM(t, Config{D: d, Beta: 20, Precision: prec}, xi))
		for _, basis := range allBases {
			models = append(models, mustDrDAM(t, Config{D: d, Beta: 20, Y: y, Basis: basis, Seed: 5, Precision: prec}, xi))
		}
		models = append(models, mustDrDAM(t, Config{D: d, Beta: 20, Y: y, Seed: 5, Precision: prec, OnDemand: true}, xi))
		maxB := kern.MaxNarrow[float64]()
		if prec == Float32 {
			maxB = kern.MaxNarrow[float32]()
		}
		for _, lv := range cpuid.Supported() {
			cpuid.Set(lv)
			for _, m := range models {
				for b := 1; b <= maxB; b++ {
					x := xs[:b*d]
					name := fmt.Sprintf("%v %v B=%d", lv, m.(Memory).Config(), b)
					var e0, g0, e1, g1, en []float64
					withSmallBatch(false, func() { e0, g0 = energies(t, m, x) })
					withSmallBatch(true, func() {
						e1, g1 = energies(t, m, x)
						en = make([]float64, b)
						if err := m.EnergyGrad(en, nil, x); err != nil {
							t.Fatal(err)
						}
					})
					for q := range b {
						if e1[q] != e0[q] || en[q] != e0[q] {
							t.Errorf("%s query %d: energy %v (alone %v), panel products %v", name, q, e1[q], en[q], e0[q])
						}
					}
					for i := range g0 {
						if g1[i] != g0[i] {
							t.Errorf("%s: gradient [%d] %v, panel products %v", name, i, g1[i], g0[i])
							break
						}
					}
				}
			}
		}
	}
}

// TestSmallBatchAllocs: descent steps on small batches allocate nothing,
// for a stored projection (pipelined) and one on demand, in both
// precisions, trigonometric and positive.
func TestSmallBatchAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	const d, k = 1100, 10
	xi, x := grayQueries(511, k, 3, d, 0.2)
	for _, prec := range []Precision{Float32, Float64} {
		for _, c := range []Config{
			{D: d, Beta: 10, Y: 2000, Seed: 1, Precision: prec},
			{D: d, Beta: 10, Y: 2000, Seed: 1, Precision: prec, Basis: allBases[len(allBases)-1]},
			{D: d, Beta: 10, Y: 2000, Seed: 1, Precision: prec, OnDemand: true},
		} {
			m := mustDrDAM(t, c, xi)
			ds, _ := NewDescent(m, RecallOptions{Step: 1e-3, MaxSteps: 1 << 20})
			ds.Start(x)
			ds.Step()
			if a := testing.AllocsPerRun(10, func() { ds.Step() }); a != 0 {
				t.Errorf("%v: %v allocations per step", m.cfg, a)
			}
		}
	}
}
