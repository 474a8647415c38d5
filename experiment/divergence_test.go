package experiment

import (
	"math"
	"strings"
	"testing"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
)

// handEnergyGrad returns MrDAM's energy (eq. div-en) and gradient at x,
// written out from the formula: E = −(1/β) log Σ_μ exp(−β/2‖x − ξ^μ‖²),
// ∇E = Σ_μ softmax_μ · (x − ξ^μ).
func handEnergyGrad(stored, x []float64, d int, beta float64) (float64, []float64) {
	k := len(stored) / d
	s := make([]float64, k)
	top := math.Inf(-1)
	for m := range k {
		var sq float64
		for i := range d {
			sq += (x[i] - stored[m*d+i]) * (x[i] - stored[m*d+i])
		}
		s[m] = -beta / 2 * sq
		top = max(top, s[m])
	}
	var z float64
	for m := range k {
		s[m] = math.Exp(s[m] - top)
		z += s[m]
	}
	g := make([]float64, d)
	for m := range k {
		for i := range d {
			g[i] += s[m] / z * (x[i] - stored[m*d+i])
		}
	}
	return -(top + math.Log(z)) / beta, g
}

// TestDivergencePlanIndependent checks the rows of a tiny theorem1 grid
// against an independent computation: MrDAM descended by hand from the
// formula of its gradient, DrDAM by a hand loop over dam's gradients
// (storing x, as eq. gen-up reads), C₁ from DrDAMs that each store one
// pattern (φ(x)·φ(ξ) = exp(−βÊ(x))), and the bounds written out here in
// float64. At this size (β ≤ 5, B ≤ 1 + 2·6·5·e^{2.5} ≈ 732, L = 4)
// every step moves x by far more than its rounding, so the descents that
// hold the displacement apart agree with those that store x to rounding:
// the tolerance 1e-9 is relative, against divergences of 10⁻⁵–10⁻².
func TestDivergencePlanIndependent(t *testing.T) {
	const d, k, y, nq, l, seed = 8, 6, 300, 2, 4, 4
	g := BinaryGrid{Ds: []int{d}, Ks: []int{k}, Betas: []float64{2, 5}, Ys: []int{y}, Flip: 0.25, Seed: seed}
	v := Divergence{Queries: nq, Step: 0.05, Steps: l}
	p, err := DivergencePlan(g, v, DefaultRates(), nil)
	rows := runPlan(t, p, err)
	// Per β: C₁, two step rows, and 12 metrics × 3 sets.
	if len(rows) != 2*(3+12*3) {
		t.Fatalf("%d rows, want %d", len(rows), 2*(3+12*3))
	}
	at, near, far, err := binarySets(seed, k, d, 0.25)
	if err != nil {
		t.Fatal(err)
	}
	var x0 []float64
	for _, s := range [][]float64{at, near, far} {
		x0 = append(x0, s[:nq*d]...)
	}
	const tol = 1e-9
	close := func(got, want float64) bool { return math.Abs(got-want) <= tol*math.Abs(want) }
	for _, beta := range g.Betas {
		key := Key{D: d, K: k, Y: y, Beta: beta, Basis: "sincos", Projection: "gaussian"}
		get := func(q QuerySet, m string) Row {
			r, ok := Find(rows, key, q, m)
			if !ok {
				t.Fatalf("β = %g: no %s %s row", beta, q, m)
			}
			return r
		}
		cfg := drdamConfig(features.Gaussian, features.SinCos, seed, y, d, dam.Float64)
		cfg.Beta = beta
		dr, err := dam.NewDrDAM(cfg)
		if err == nil {
			err = dr.Add(at)
		}
		if err != nil {
			t.Fatal(err)
		}
		// C₁: each query against the first min(8, K) stored patterns.
		var c1 float64
		one, err := dam.NewDrDAM(cfg)
		if err != nil {
			t.Fatal(err)
		}
		e := make([]float64, 1)
		for m := range min(8, k) {
			xi := at[m*d : (m+1)*d]
			if err := one.Add(xi); err != nil {
				t.Fatal(err)
			}
			for q := range 3 * nq {
				x := x0[q*d : (q+1)*d]
				if err := one.EnergyGrad(e, nil, x); err != nil {
					t.Fatal(err)
				}
				var sq float64
				for i := range d {
					sq += (x[i] - xi[i]) * (x[i] - xi[i])
				}
				c1 = max(c1, math.Abs(math.Exp(-beta/2*sq)-math.Exp(-beta*e[0])))
			}
			if err := one.Remove(xi); err != nil {
				t.Fatal(err)
			}
		}
		c1 *= math.Sqrt(float64(y) / d)
		if r := get(Pairs, MetricC1); math.Abs(r.Mean-c1) > 1e-9*c1 {
			t.Errorf("β = %g: C₁ = %v, want %v", beta, r.Mean, c1)
		}
		lip := 1 + 2*k*beta*math.Exp(beta/2)
		etaC := 0.5 / (l * lip)
		if r := get(Pairs, MetricStep); !close(r.Mean, etaC) || r.Count != l {
			t.Errorf("β = %g: step row %v (L = %d), want η = %v, L = %d", beta, r.Mean, r.Count, etaC, l)
		}
		for _, c := range []struct {
			eta                          float64
			div, bound, disp, logRatioMx string
		}{
			{etaC, MetricDivergence, MetricTheorem1Bound, MetricDisplacement, MetricLogRatioMax},
			{v.Step, MetricDivergenceUser, MetricTheorem1BoundUser, MetricDisplacementUser, MetricLogRatioMaxUser},
		} {
			for s, set := range QuerySets() {
				var div, disp, bound, lrMax float64
				lrMax = math.Inf(-1)
				for q := s * nq; q < (s+1)*nq; q++ {
					xm := append([]float64(nil), x0[q*d:(q+1)*d]...)
					xd := append([]float64(nil), xm...)
					e0, _ := handEnergyGrad(at, xm, d, beta)
					gd, ed := make([]float64, d), make([]float64, 1)
					for range l {
						_, gm := handEnergyGrad(at, xm, d, beta)
						if err := dr.EnergyGrad(ed, gd, xd); err != nil {
							t.Fatal(err)
						}
						for i := range d {
							xm[i] -= c.eta * gm[i]
							xd[i] -= c.eta * gd[i]
						}
					}
					var dv, dp float64
					for i := range d {
						dv += (xm[i] - xd[i]) * (xm[i] - xd[i])
						dp += (xm[i] - x0[q*d+i]) * (xm[i] - x0[q*d+i])
					}
					r := c.eta * l * lip
					b := 2 * c.eta * l * c1 * k * math.Exp(beta*e0) * math.Sqrt(float64(d)/y) * (1 - math.Pow(r, l)) / (1 - r)
					div += math.Sqrt(dv) / nq
					disp += math.Sqrt(dp) / nq
					bound += b / nq
					lrMax = max(lrMax, math.Log(math.Sqrt(dv)/b))
				}
				for _, w := range []struct {
					m    string
					want float64
				}{{c.div, div}, {c.disp, disp}, {c.bound, bound}} {
					if r := get(set, w.m); !close(r.Mean, w.want) {
						t.Errorf("β = %g %s %s: %v, want %v", beta, set, w.m, r.Mean, w.want)
					}
				}
				// The log ratio is an absolute quantity (|ln| ≲ 100 here).
				if r := get(set, c.logRatioMx); math.Abs(r.Mean-lrMax) > 1e-9 {
					t.Errorf("β = %g %s %s: %v, want %v", beta, set, c.logRatioMx, r.Mean, lrMax)
				}
				if c.eta == etaC {
					// The float64 descent is the same computation as
					// the hand loop here.
					if r := get(set, MetricDivergenceFloat64); !close(r.Mean, div) {
						t.Errorf("β = %g %s: float64 divergence %v, want %v", beta, set, r.Mean, div)
					}
				}
			}
		}
	}
}

// TestDeltaDescentResolves shows why the theorem1 descents hold the
// displacement apart: with η = 10⁻²⁰ (Corollary 1's step at β = 50 is
// ~10⁻¹⁷), a float64 descent that stores x leaves the coordinates at
// 1/√D unchanged (the step is below half their ulp, ~10⁻¹⁷), while δ
// accumulates −Lη∇E(x₀) (the gradient does not change over such steps:
// relative tolerance 1e-12).
func TestDeltaDescentResolves(t *testing.T) {
	const d, l, eta = 16, 5, 1e-20
	at, _, far, err := binarySets(9, 4, d, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	mr, err := mrdam(at, d, 10)
	if err != nil {
		t.Fatal(err)
	}
	x0 := far[:d]
	delta, g0, _, err := deltaDescent(mr, x0, d, eta, l)
	if err != nil {
		t.Fatal(err)
	}
	res, err := dam.Recall(mr, x0, dam.RecallOptions{Step: eta, MaxSteps: l})
	if err != nil {
		t.Fatal(err)
	}
	frozen := 0
	for i := range d {
		if want := -l * eta * g0[i]; math.Abs(delta[i]-want) > 1e-12*math.Abs(want) {
			t.Errorf("δ[%d] = %v, want %v", i, delta[i], want)
		}
		if x0[i] != 0 && res.X[i] == x0[i] && g0[i] != 0 {
			frozen++
		}
	}
	if frozen == 0 {
		t.Error("the float64 descent moved every nonzero coordinate: the test's step is not below their resolution")
	}
}

// TestDivergencePlanRefuses checks the configurations DivergencePlan
// refuses, each with a message naming the problem.
func TestDivergencePlanRefuses(t *testing.T) {
	base := func() BinaryGrid {
		return BinaryGrid{Ds: []int{8}, Ks: []int{6}, Betas: []float64{2}, Ys: []int{100}, Flip: 0.1, Seed: 1}
	}
	ok := Divergence{Queries: 2, Step: 0.1, Steps: 3}
	for _, c := range []struct {
		name string
		g    func(*BinaryGrid)
		v    func(*Divergence)
		want string
	}{
		{"basis", func(g *BinaryGrid) { g.Basis = features.Cos }, nil, "sincos"},
		{"control", func(g *BinaryGrid) { g.Control = true }, nil, "control"},
		{"seeds", func(g *BinaryGrid) { g.Seeds = 2 }, nil, "Seeds"},
		{"queries", nil, func(v *Divergence) { v.Queries = 7 }, "queries"},
		{"no queries", nil, func(v *Divergence) { v.Queries = 0 }, "queries"},
		{"step", nil, func(v *Divergence) { v.Step = math.Inf(1) }, "step"},
		{"steps", nil, func(v *Divergence) { v.Steps = 0 }, "L = 0"},
		{"C2", nil, func(v *Divergence) { v.C2 = 1 }, "C₂"},
	} {
		g, v := base(), ok
		if c.g != nil {
			c.g(&g)
		}
		if c.v != nil {
			c.v(&v)
		}
		if _, err := DivergencePlan(g, v, DefaultRates(), nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}
	if _, err := DivergencePlan(base(), ok, DefaultRates(), nil); err != nil {
		t.Errorf("valid grid refused: %v", err)
	}
}
