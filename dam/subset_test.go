package dam

import (
	"math"
	"strings"
	"testing"

	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/metrics"
)

// TestSubsetEnergy: with every projection in the subset the estimate is
// EnergyGrad's energy (the compute kernels' sin/cos and exp differ from
// the math package's by a few ulps and sum in another order: 1e-9
// relative covers it); with a quarter of them the rescaled sum is
// unbiased: its mean over 400 seeds is within 4 standard errors of the
// full sum, for each basis.
func TestSubsetEnergy(t *testing.T) {
	const d, y = 6, 400
	xi := grayPatterns(3, 5, d)
	q := flip(4, xi[:2*d], d, 0.25)
	for _, basis := range allBases {
		m := mustDrDAM(t, Config{D: d, Beta: 2, Y: y, Seed: 5, Basis: basis}, xi)
		want := make([]float64, 2)
		if err := m.EnergyGrad(want, nil, q); err != nil {
			t.Fatal(err)
		}
		got := make([]float64, 2)
		if err := SubsetEnergy(m, got, q, y, 1); err != nil {
			t.Fatal(err)
		}
		for r := range got {
			if math.Abs(got[r]-want[r]) > 1e-9*math.Abs(want[r]) {
				t.Errorf("%v: all projections: energy %v, want %v", basis, got[r], want[r])
			}
		}
		full := subsetSums(m, q, y, 1)
		var v0 []float64
		for s := range 400 {
			part := subsetSums(m, q, y/4, uint64(s))
			if !basis.Trig() { // T stored as log T
				part[0] = math.Exp(part[0])
			}
			v0 = append(v0, part[0])
		}
		f0 := full[0]
		if !basis.Trig() { // T stored as log T
			f0 = math.Exp(f0)
		}
		mean, se := metrics.MeanStdErr(v0)
		if math.Abs(mean-f0) > 4*se {
			t.Errorf("%v: mean of the subset sums %v ± %v, full sum %v", basis, mean, se, f0)
		}
	}
}

// TestSubsetEnergyErrors: the dot energy, a subset size out of range and
// an empty model are refused.
func TestSubsetEnergyErrors(t *testing.T) {
	xi := grayPatterns(3, 5, 4)
	dot := mustDrDAM(t, Config{D: 4, Beta: 2, Y: 50, Similarity: Dot}, xi)
	if err := SubsetEnergy(dot, make([]float64, 1), xi[:4], 10, 1); err == nil || !strings.Contains(err.Error(), "l2") {
		t.Errorf("dot: %v", err)
	}
	m := mustDrDAM(t, Config{D: 4, Beta: 2, Y: 50, Projection: features.Structured}, xi)
	for _, n := range []int{0, 51} {
		if err := SubsetEnergy(m, make([]float64, 1), xi[:4], n, 1); err == nil {
			t.Errorf("subset of %d accepted", n)
		}
	}
	m.Reset()
	if err := SubsetEnergy(m, make([]float64, 1), xi[:4], 10, 1); err != ErrEmpty {
		t.Errorf("empty model: %v", err)
	}
}
