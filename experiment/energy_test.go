package experiment

import (
	"testing"

	"github.com/drdam/drdam/features"
)

// TestEnergyError runs a tiny grid and checks its shape and the two
// trends that hold robustly even at this size: errors shrink as Y grows
// (at Y = 64 and 4096 the kernel error differs by 8× in expectation,
// far outside the sampling noise of 40 queries), and the errors at the
// stored patterns are below those far from them (Obs. 1 of the paper; at
// β = 10, D = 16 the far queries' kernel values are ~20× smaller, so the
// relative error is much larger).
func TestEnergyError(t *testing.T) {
	c := EnergyErrorConfig{K: 40, Ds: []int{16}, Betas: []float64{10}, Ys: []int{64, 4096},
		Projections: []features.ProjectionKind{features.Gaussian, features.Structured}, Flip: 0.1, Seed: 3}
	calls := 0
	pts, err := EnergyError(c, func(done, total int, p Point) {
		calls++
		if done != calls || total != c.Points() {
			t.Fatalf("progress(%d, %d) at call %d", done, total, calls)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != c.Points() || len(pts) != 12 {
		t.Fatalf("%d points, want 12", len(pts))
	}
	get := func(y int, kind features.ProjectionKind, q QuerySet) Point {
		for _, p := range pts {
			if p.Y == y && p.Projection == kind && p.Queries == q {
				return p
			}
		}
		t.Fatalf("no point for Y=%d %v %s", y, kind, q)
		return Point{}
	}
	for _, kind := range c.Projections {
		for _, q := range []QuerySet{At, Near, Far} {
			lo, hi := get(64, kind, q), get(4096, kind, q)
			if hi.EnergyMAE >= lo.EnergyMAE || hi.GradMAE >= lo.GradMAE {
				t.Errorf("%v %s: errors did not shrink from Y=64 (%.3g, %.3g) to 4096 (%.3g, %.3g)",
					kind, q, lo.EnergyMAE, lo.GradMAE, hi.EnergyMAE, hi.GradMAE)
			}
			if hi.Count != c.K || hi.EnergySE <= 0 {
				t.Errorf("%v %s: count %d, s.e. %v", kind, q, hi.Count, hi.EnergySE)
			}
		}
		if at, far := get(4096, kind, At), get(4096, kind, Far); at.EnergyMAE >= far.EnergyMAE {
			t.Errorf("%v: energy error at the stored patterns %.3g ≥ far %.3g", kind, at.EnergyMAE, far.EnergyMAE)
		}
	}
	if _, err := EnergyError(EnergyErrorConfig{}, nil); err == nil {
		t.Error("an empty grid was accepted")
	}
}
