package dam

import (
	"fmt"
	"math"
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
// one block at a time on demand), give the energies and gradients of the
// panel products, at every kernel level, for every basis, MrDAM, and the
// energy alone. D = 2100 spans three chunks of StepNarrow's columns and 21
// blocks of 3 panels, so that every group pipelines two or three blocks;
// D is not a multiple of 16 and Y not of the panel height.
//
// The two paths sum in different orders. In float64 they agree to 1e-11
// (energies) and 1e-10 (gradients) relative, TestLevelsAgree's bounds for
// the same reason. In float32 each is within TestFloat32's bounds of the
// float64 value (1e-5 on E, 3e-4 relative on the gradient; see there), so
// their difference is within twice that.
func TestSmallBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("many models at D = 2100")
	}
	const d, k, y = 2100, 12, 1003
	xi, xs := grayQueries(501, k, k, d, 0.3)
	defer cpuid.Set(cpuid.Current())
	for _, prec := range []Precision{Float64, Float32} {
		eTol, gTol := 1e-11, 1e-10
		if prec == Float32 {
			eTol, gTol = 2e-5, 6e-4
		}
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
						if de := math.Abs(e1[q] - e0[q]); de > eTol*math.Max(1, math.Abs(e0[q])) {
							t.Errorf("%s query %d: energy %v, panel products %v", name, q, e1[q], e0[q])
						}
						if en[q] != e1[q] {
							t.Errorf("%s query %d: energy alone %v, with the gradient %v", name, q, en[q], e1[q])
						}
					}
					if r := relDiff(g1, g0); r > gTol {
						t.Errorf("%s: gradients differ from the panel products' by %.2g", name, r)
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
