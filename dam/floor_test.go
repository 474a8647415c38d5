package dam

import (
	"math"
	"slices"
	"testing"

	"github.com/drdam/drdam/features"
)

// fill returns b rows of d coordinates all equal to v.
func fill(b, d int, v float64) []float64 {
	x := make([]float64, b*d)
	for i := range x {
		x[i] = v
	}
	return x
}

// TestOutcomes: each way a descent can end is reported as such. The floor
// cases are built so that φ(x)·T < ε whatever the projection's draws: with
// one stored pattern, φ(x)·T estimates exp(−β/2‖x − ξ‖²) (≈ e^−4000 for
// the query at 10 below) with a noise of standard deviation about
// 1/√(2Y) ≈ 0.02 at Y = 1000, so ε = 0.5 lies 20 deviations above it.
// (A query of 1e308, which used to overflow the phases into NaN, is now
// refused before it is evaluated: see TestHostileValues.)
func TestOutcomes(t *testing.T) {
	const d = 8
	xi := grayPatterns(161, 1, d)
	near := flip(162, xi, d, 0.25)
	dr := func(basis features.Basis, eps float64, prec Precision) *DrDAM {
		return mustDrDAM(t, Config{D: d, Beta: 10, Y: 1000, Seed: 7, Basis: basis, Epsilon: eps, Precision: prec}, xi)
	}
	for _, c := range []struct {
		name      string
		m         Model
		x0        []float64
		opt       RecallOptions
		want      Outcome
		steps     int  // -1: any
		unchanged bool // the final state is x0 bit for bit
	}{
		{"drdam far, ε = 0.5", dr(features.SinCos, 0.5, Float64), fill(1, d, 10), RecallOptions{Step: 0.1, MaxSteps: 50, Tol: 1e-9}, Stalled, 0, true},
		{"drdam far, ε = 0.5, tol 0", dr(features.Cos, 0.5, Float32), fill(1, d, 10), RecallOptions{Step: 0.1, MaxSteps: 50}, Stalled, 0, true},
		// The box moves the query once (onto its corner, still far from ξ
		// at β = 10: ‖x − ξ‖² ≈ 4), then it sits at the floor.
		{"drdam far, box", dr(features.SinCos, 0.5, Float64), fill(1, d, 10), RecallOptions{Step: 0.1, MaxSteps: 50, Box: &Box{Lo: 0, Hi: 1}}, Stalled, 1, false},
		{"drdam at floor on the last step", dr(features.SinCos, 0.5, Float64), fill(1, d, 10), RecallOptions{Step: 0.1, MaxSteps: 0}, Stalled, 0, true},
		{"drdam near, tol", dr(features.SinCos, 0, Float64), near, RecallOptions{Step: 0.1, MaxSteps: 5000, Tol: 1e-10}, Converged, -1, false},
		{"drdam near, tol 0", dr(features.SinCos, 0, Float64), near, RecallOptions{Step: 0.1, MaxSteps: 20}, MaxSteps, 20, false},
		{"drdam near, few steps", dr(features.Cos, 0, Float32), near, RecallOptions{Step: 0.01, MaxSteps: 3, Tol: 1e-12}, MaxSteps, 3, false},
		{"mrdam near, tol", mustMrDAM(t, Config{D: d, Beta: 10}, xi), near, RecallOptions{Step: 0.1, MaxSteps: 5000, Tol: 1e-10}, Converged, -1, false},
		// MrDAM has no floor: a query far from every memory descends.
		{"mrdam far", mustMrDAM(t, Config{D: d, Beta: 10}, xi), fill(1, d, 1e3), RecallOptions{Step: 0.1, MaxSteps: 5}, MaxSteps, 5, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Recall(c.m, c.x0, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome[0] != c.want || res.Converged[0] != (c.want == Converged) {
				t.Errorf("outcome %v (converged %v), want %v", res.Outcome[0], res.Converged[0], c.want)
			}
			if c.steps >= 0 && res.Steps[0] != c.steps {
				t.Errorf("%d steps, want %d", res.Steps[0], c.steps)
			}
			if len(res.Energy[0]) != res.Steps[0]+1 {
				t.Errorf("%d energies for %d steps", len(res.Energy[0]), res.Steps[0])
			}
			if got := slices.Equal(res.X, c.x0); got != c.unchanged {
				t.Errorf("final state unchanged: %v, want %v", got, c.unchanged)
			}
			if c.want == Stalled {
				eps := c.m.(*DrDAM).Config().Epsilon
				if e, want := res.Energy[0][res.Steps[0]], -math.Log(eps)/10; e != want {
					t.Errorf("final energy %v, want the floor −log(ε)/β = %v", e, want)
				}
			}
		})
	}
}

// TestOutcomesMixed: in one batch, a stalled query leaves the others'
// descent as it was without it (bit for bit), and Count counts each
// outcome. With ε = 0.2 the far query (10, …, 10) is under the floor:
// its φ(x)·T estimates e^−4000 with a noise of deviation about
// √3/√(2Y) ≈ 0.04 (it is 0.03 with seed 3), while the two near queries
// (a quarter of their coordinates flipped) stay above it.
func TestOutcomesMixed(t *testing.T) {
	const d = 8
	xi := grayPatterns(171, 3, d)
	m := mustDrDAM(t, Config{D: d, Beta: 10, Y: 1000, Seed: 3, Epsilon: 0.2}, xi)
	x0 := append(flip(172, xi[:2*d], d, 0.25), fill(1, d, 10)...)
	opt := RecallOptions{Step: 0.1, MaxSteps: 40, Tol: 1e-6}
	res, err := Recall(m, x0, opt)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := Recall(m, x0[:2*d], opt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.X[:2*d], alone.X) || !slices.Equal(res.Steps[:2], alone.Steps) {
		t.Errorf("the stalled query changed the others' descents")
	}
	if res.Outcome[0] == Stalled || res.Outcome[1] == Stalled {
		t.Errorf("a near query stalled: %v", res.Outcome[:2])
	}
	if res.Outcome[2] != Stalled {
		t.Errorf("the far query: %v, want stalled", res.Outcome[2])
	}
	c, ms, st := res.Count()
	var want [4]int
	for _, o := range res.Outcome {
		want[o]++
	}
	if c != want[Converged] || ms != want[MaxSteps] || st != want[Stalled] || st != 1 || want[Running] != 0 {
		t.Errorf("Count = %d, %d, %d; outcomes %v", c, ms, st, res.Outcome)
	}
}

// TestEnergyGradFloor: the floor flags of one evaluation, and the errors
// of a wrong buffer.
func TestEnergyGradFloor(t *testing.T) {
	const d = 8
	xi := grayPatterns(181, 1, d)
	m := mustDrDAM(t, Config{D: d, Beta: 10, Y: 1000, Seed: 7, Epsilon: 0.5}, xi) // ε = 0.5: see TestOutcomes
	x := append(slices.Clone(xi), fill(1, d, 10)...)
	e, g, fl := make([]float64, 2), make([]float64, 2*d), []bool{true, false}
	if err := m.EnergyGradFloor(e, g, x, fl); err != nil {
		t.Fatal(err)
	}
	// At ξ itself φ(ξ)·T = ‖φ(ξ)‖² ≈ 1 > ε; the far query is under it.
	if fl[0] || !fl[1] {
		t.Errorf("floor = %v, want [false true]", fl)
	}
	if err := m.EnergyGradFloor(e, g, x, make([]bool, 3)); err == nil {
		t.Errorf("a floor buffer of 3 for 2 queries: no error")
	}
}

// TestMrDAMFarQuery: MrDAM's log-sum-exp subtracts the largest score, so a
// query far from every memory, where each exp(−β/2‖x − ξ‖²) underflows
// float64 (β/2‖x − ξ‖² ≈ 4·10⁷ here), has a finite energy
// −(1/β)·log Σ_μ exp(−β/2‖x − ξ^μ‖²) computed in the log domain, and the
// gradient x − Σ softmax_μ ξ^μ. In float64 the two sides are the same sum
// in a different order: the energy, ≈ 4·10⁶, cancels ½‖x‖² against
// ⟨ξ, x⟩ terms of the same size, so agreement to 1e-12 relative (a
// thousand roundings) is the test; float32 scores carry 6e-8 relative
// error, so 1e-6.
func TestMrDAMFarQuery(t *testing.T) {
	const d, k = 8, 3
	xi := grayPatterns(191, k, d)
	x := fill(1, d, 1e3)
	const beta = 10.0
	// Reference: log-sum-exp with the max subtracted, in float64.
	s := make([]float64, k)
	for mu := range k {
		for i := range d {
			v := x[i] - xi[mu*d+i]
			s[mu] -= beta / 2 * v * v
		}
	}
	mx := slices.Max(s)
	var sum float64
	for _, v := range s {
		sum += math.Exp(v - mx)
	}
	wantE := -(mx + math.Log(sum)) / beta
	wantG := slices.Clone(x)
	for mu := range k {
		w := math.Exp(s[mu]-mx) / sum
		for i := range d {
			wantG[i] -= w * xi[mu*d+i]
		}
	}
	for _, c := range []struct {
		prec Precision
		tol  float64
	}{{Float64, 1e-12}, {Float32, 1e-6}} {
		m := mustMrDAM(t, Config{D: d, Beta: beta, Precision: c.prec}, xi)
		e, g := energies(t, m, x)
		if math.Abs(e[0]-wantE) > c.tol*wantE {
			t.Errorf("%v: E = %.17g, want %.17g", c.prec, e[0], wantE)
		}
		if r := relDiff(g, wantG); r > c.tol {
			t.Errorf("%v: gradient differs by %.3g relative", c.prec, r)
		}
	}
}

// TestKeepStalled: with KeepStalled a query at the clip floor takes every
// step, as in the peers' fixed-step loops, and still ends Stalled at the
// state it would have been retired in.
func TestKeepStalled(t *testing.T) {
	const d = 8
	xi := grayPatterns(161, 1, d)
	m := mustDrDAM(t, Config{D: d, Beta: 10, Y: 1000, Seed: 7, Epsilon: 0.5}, xi)
	far := fill(1, d, 10) // under ε = 0.5 by 20 noise deviations (see TestOutcomes)
	opt := RecallOptions{Step: 0.1, MaxSteps: 7}
	early, err := Recall(m, far, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.KeepStalled = true
	kept, err := Recall(m, far, opt)
	if err != nil {
		t.Fatal(err)
	}
	if early.Steps[0] != 0 || kept.Steps[0] != 7 {
		t.Errorf("steps %d and %d, want 0 (retired) and 7 (kept)", early.Steps[0], kept.Steps[0])
	}
	if kept.Outcome[0] != Stalled || !slices.Equal(kept.X, early.X) {
		t.Errorf("kept: outcome %v, state %v; want stalled at %v", kept.Outcome[0], kept.X, early.X)
	}
}
