package experiment

import (
	"math"
	"testing"

	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/metrics"
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
	pts, err := EnergyError(c, func(done, total int, what string) {
		calls++
		if done != calls || total != c.Evaluations() || what == "" {
			t.Fatalf("progress(%d, %d, %q) at call %d", done, total, what, calls)
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
	if calls != c.Evaluations() {
		t.Errorf("%d progress calls, want %d", calls, c.Evaluations())
	}
	if _, err := EnergyError(EnergyErrorConfig{}, nil); err == nil {
		t.Error("an empty grid was accepted")
	}
}

// TestEnergyErrorSeeds: with Seeds = 3 each point pools 3·K queries, has
// a positive standard error across the projections and a median of the
// same order as the mean; a one-seed run (same patterns, only the first
// projection) pools K queries and gives another mean.
func TestEnergyErrorSeeds(t *testing.T) {
	c := EnergyErrorConfig{K: 20, Ds: []int{16}, Betas: []float64{5}, Ys: []int{256},
		Projections: []features.ProjectionKind{features.Structured}, Flip: 0.1, Seed: 7, Seeds: 3}
	pts, err := EnergyError(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pts {
		if p.Count != 3*c.K || p.Seeds != 3 {
			t.Errorf("%s: count %d, seeds %d", p.Queries, p.Count, p.Seeds)
		}
		if !(p.EnergySE > 0) || !(p.GradSE > 0) || !(p.EnergyMedian > 0) || p.EnergyMedian > 10*p.EnergyMAE {
			t.Errorf("%s: s.e. %v %v, median %v (mean %v)", p.Queries, p.EnergySE, p.GradSE, p.EnergyMedian, p.EnergyMAE)
		}
	}
	one := c
	one.Seeds = 1
	pts1, err := EnergyError(one, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pts1 {
		if p.Count != c.K || p.EnergyMAE == pts[i].EnergyMAE {
			t.Errorf("%s: one seed: count %d, mean %v (three seeds: %v)", p.Queries, p.Count, p.EnergyMAE, pts[i].EnergyMAE)
		}
	}
}

// TestMeanSE checks the pooled statistics on a worked example: groups
// {1, 3} and {5, 7} have means 2 and 6, so the mean is 4 and the standard
// error across groups is s/√2 with s = √8, i.e. 2; across values it is
// s/√4 with s = √(20/3).
func TestMeanSE(t *testing.T) {
	v := []float64{1, 3, 5, 7}
	if m, se := meanSE(v, 2); m != 4 || math.Abs(se-2) > 1e-15 {
		t.Errorf("meanSE(groups) = %v, %v; want 4, 2", m, se)
	}
	if m, se := meanSE(v, 1); m != 4 || math.Abs(se-math.Sqrt(20.0/3)/2) > 1e-15 {
		t.Errorf("meanSE(values) = %v, %v; want 4, %v", m, se, math.Sqrt(20.0/3)/2)
	}
	if m := metrics.Median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median = %v, want 2", m)
	}
	if m := metrics.Median(v); m != 4 {
		t.Errorf("median = %v, want 4", m)
	}
}
