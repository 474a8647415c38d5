package experiment

import (
	"math"
	"testing"
)

func TestOverSeeds(t *testing.T) {
	k := Key{D: 10, K: 5, Y: 100, Beta: 1, Basis: "sincos", Projection: "gaussian"}
	row := func(seed uint64, mean, se float64) Row {
		k := k
		k.Seed = seed
		r := summarize(k, At, MetricEnergy, []float64{mean}, 1)
		r.SE, r.Count = se, 10
		return r
	}
	rows := []Row{row(1, 1, 0.1), row(101, 2, 0.1), row(201, 3, 0.1), {Seed: 1, D: 20, Queries: At, Metric: MetricEnergy, Mean: 5, SE: 0.5, Count: 7}}
	s := OverSeeds(rows)
	if len(s) != 2 {
		t.Fatalf("%d summaries, want 2 (one per configuration)", len(s))
	}
	// Three seeds with means 1, 2, 3: mean 2, s.e. across seeds 1/√3,
	// interval 2 ± t(0.975, 2)/√3 = 2 ± 2.4842.
	a := s[0]
	if a.Seeds != 3 || a.Mean != 2 || a.Count != 30 || a.Seed != 1 || math.Abs(a.SE-1/math.Sqrt(3)) > 1e-12 || math.Abs(a.Hi-a.Mean-2.48418) > 1e-4 {
		t.Errorf("three seeds: %+v", a)
	}
	// One seed: its own s.e. over queries, ±1.96.
	if b := s[1]; b.Seeds != 1 || b.Mean != 5 || math.Abs(b.Lo-(5-0.98)) > 1e-12 || math.Abs(b.Hi-(5+0.98)) > 1e-12 {
		t.Errorf("one seed: %+v", b)
	}
	if got := Seeds(rows); len(got) != 3 || got[0] != 1 || got[2] != 201 {
		t.Errorf("Seeds = %v", got)
	}
	if ReplicateSeed(7, 2) != 207 {
		t.Errorf("ReplicateSeed(7, 2) = %d", ReplicateSeed(7, 2))
	}
}
