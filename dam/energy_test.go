package dam

import (
	"fmt"
	"math"
	"testing"

	"github.com/drdam/drdam/features"
	"gonum.org/v1/gonum/diff/fd"
)

// naiveMrEnergy evaluates the MrDAM energy of one query by its definition,
// with the distance in difference form and a max-shifted log-sum-exp: an
// independent computation of what MrDAM.EnergyGrad does with matrix
// products and a streaming softmax.
func naiveMrEnergy(xi, x []float64, d int, beta float64, sim Similarity) float64 {
	k := len(xi) / d
	a := make([]float64, k)
	amax := math.Inf(-1)
	for mu := range k {
		p := xi[mu*d : (mu+1)*d]
		var v float64
		for i := range d {
			if sim == Dot {
				v += beta * p[i] * x[i]
			} else {
				v -= beta / 2 * (x[i] - p[i]) * (x[i] - p[i])
			}
		}
		a[mu] = v
		amax = max(amax, v)
	}
	var s float64
	for _, v := range a {
		s += math.Exp(v - amax)
	}
	e := -(amax + math.Log(s)) / beta
	if sim == Dot {
		for _, v := range x {
			e += v * v / 2
		}
	}
	return e
}

// naiveDrEnergy evaluates the DrDAM energy of one query by its definition
// −(1/β) log max(φ(x)·T, ε), with T = Σ_μ w_μ φ(ξ^μ) summed from the
// materialized features of features.Map (no log domain, no streaming).
func naiveDrEnergy(m *DrDAM, xi, x []float64) float64 {
	c := m.cfg
	f := c.FeatureDim()
	phi := make([]float64, f)
	tvec := make([]float64, f)
	for mu := range len(xi) / c.D {
		p := xi[mu*c.D : (mu+1)*c.D]
		m.fm.Features(phi, p)
		w := 1.0
		if c.Similarity == Dot {
			var sq float64
			for _, v := range p {
				sq += v * v
			}
			w = math.Exp(c.Beta * sq / 2)
		}
		for j := range tvec {
			tvec[j] += w * phi[j]
		}
	}
	m.fm.Features(phi, x)
	var s, sq float64
	for j := range phi {
		s += phi[j] * tvec[j]
	}
	for _, v := range x {
		sq += v * v
	}
	if c.Similarity == Dot {
		arg := s * math.Exp(c.Beta*sq/2)
		return -math.Log(max(arg, c.Epsilon))/c.Beta + sq/2
	}
	return -math.Log(max(s, c.Epsilon)) / c.Beta
}

// TestEnergyMatchesNaive compares EnergyGrad's energies with the naive
// definitions above, for both energies, every basis and every seeded
// projection kind of package features' registry, with and without bias. Both are float64 computations of the
// same quantity in different orders; with D = 12 and Y = 300 the rounding
// differences are a few 1e-16 relative, so 1e-11 leaves ample room while
// catching any error in a formula.
func TestEnergyMatchesNaive(t *testing.T) {
	const d, k, b = 12, 7, 5
	xi := grayPatterns(1, k, d)
	x := append(flip(2, xi[:3*d], d, 0.3), grayPatterns(3, b-3, d)...)
	for _, sim := range []Similarity{L2, Dot} {
		for _, beta := range []float64{3, 25} {
			mr := mustMrDAM(t, Config{D: d, Beta: beta, Similarity: sim}, xi)
			e, _ := energies(t, mr, x)
			for q := range b {
				want := naiveMrEnergy(xi, x[q*d:(q+1)*d], d, beta, sim)
				if math.Abs(e[q]-want) > 1e-11*math.Max(1, math.Abs(want)) {
					t.Errorf("MrDAM %v β=%g query %d: E = %.17g, naive %.17g", sim, beta, q, e[q], want)
				}
			}
			for _, basis := range allBases {
				for _, proj := range features.ProjectionKinds() {
					for _, nobias := range []bool{false, true} {
						c := Config{D: d, Beta: beta, Similarity: sim, Y: 300, Basis: basis, Projection: proj, Seed: 5, NoBias: nobias}
						dr := mustDrDAM(t, c, xi)
						e, _ := energies(t, dr, x)
						for q := range b {
							want := naiveDrEnergy(dr, xi, x[q*d:(q+1)*d])
							if math.Abs(e[q]-want) > 1e-11*math.Max(1, math.Abs(want)) {
								t.Errorf("%v: query %d: E = %.17g, naive %.17g", dr.cfg, q, e[q], want)
							}
						}
					}
				}
			}
		}
	}
}

// TestGradientFiniteDifferences checks every analytic gradient against
// central finite differences (gonum's fd.Gradient, step 1e-6) of the same
// model's energy, on fresh random inputs: relative error ‖g − g_fd‖/‖g_fd‖
// < 1e-6. The truncation error of the central formula is O(h²·E”') ≈ 1e-12·β³
// ≲ 1e-8 here and the rounding error O(ε_mach·|E|/h) ≈ 1e-10, so 1e-6 is
// met with a wide margin by a correct gradient, while a wrong factor or sign
// fails by orders of magnitude. Queries are near the memories so that no
// clip is active (asserted).
func TestGradientFiniteDifferences(t *testing.T) {
	const d, k, b = 8, 6, 4
	xi, x := grayQueries(11, k, b, d, 0.25)
	var worst float64
	defer func() { t.Logf("largest relative gradient error: %.3g", worst) }()
	check := func(name string, m Model) {
		e := make([]float64, 1)
		g := make([]float64, d)
		for q := range b {
			xq := x[q*d : (q+1)*d]
			if err := m.EnergyGrad(e, g, xq); err != nil {
				t.Fatal(err)
			}
			f := func(p []float64) float64 {
				if err := m.EnergyGrad(e, nil, p); err != nil {
					t.Fatal(err)
				}
				return e[0]
			}
			gfd := fd.Gradient(nil, f, xq, &fd.Settings{Formula: fd.Central, Step: 1e-6})
			r := relDiff(g, gfd)
			worst = max(worst, r)
			if r > 1e-6 || math.IsNaN(r) {
				t.Errorf("%s query %d: relative gradient error %.3g\n analytic %v\n finite   %v", name, q, r, g, gfd)
			}
		}
	}
	for _, sim := range []Similarity{L2, Dot} {
		for _, beta := range []float64{5, 40} {
			check(fmt.Sprintf("MrDAM %v β=%g", sim, beta), mustMrDAM(t, Config{D: d, Beta: beta, Similarity: sim}, xi))
			for _, basis := range allBases {
				for _, nobias := range []bool{false, true} {
					if nobias && !basis.UsesBias() {
						continue
					}
					c := Config{D: d, Beta: beta, Similarity: sim, Y: 2000, Basis: basis, Seed: 3, NoBias: nobias}
					m := mustDrDAM(t, c, xi)
					assertNotClipped(t, m, x)
					check(m.cfg.String(), m)
				}
			}
		}
	}
}

// assertNotClipped fails if the clip of any query is active, which would
// make a gradient check vacuous.
func assertNotClipped(t *testing.T, m *DrDAM, x []float64) {
	t.Helper()
	e, _ := energies(t, m, x)
	for q, v := range e {
		if m.cfg.Epsilon > 0 && v >= -math.Log(m.cfg.Epsilon)/m.cfg.Beta-1e-9 && m.cfg.Similarity == L2 {
			t.Fatalf("%v: query %d is clipped; the test inputs must avoid that", m.cfg, q)
		}
	}
}

// TestClip checks the paper's clip: where φ(x)·T < ε the energy is
// −(1/β) log ε and the gradient exactly zero (L2), or x (dot energy, from
// its ½‖x‖² term). Random far queries at β = 80 and D = 200 are clipped
// for the trigonometric bases (as in the peers' gradcheck, section 4).
func TestClip(t *testing.T) {
	const d, k, b = 200, 10, 6
	xi := binaryPatterns(21, k, d)
	x := binaryPatterns(22, b, d)
	for _, basis := range []features.Basis{features.Cos, features.SinCos} {
		for _, sim := range []Similarity{L2, Dot} {
			m := mustDrDAM(t, Config{D: d, Beta: 80, Y: 3000, Basis: basis, Seed: 1, Similarity: sim}, xi)
			e, g := energies(t, m, x)
			clipped := 0
			for q := range b {
				floor := -math.Log(1e-5) / 80
				var sq float64
				for _, v := range x[q*d : (q+1)*d] {
					sq += v * v
				}
				if sim == Dot {
					floor += sq / 2
				}
				if e[q] != floor {
					continue
				}
				clipped++
				for i, v := range g[q*d : (q+1)*d] {
					want := 0.0
					if sim == Dot {
						want = x[q*d+i]
					}
					if v != want {
						t.Fatalf("%v: query %d clipped but gradient[%d] = %v, want %v", m.cfg, q, i, v, want)
					}
				}
			}
			if clipped == 0 {
				t.Errorf("%v: no query clipped; the test does not exercise the clip", m.cfg)
			}
		}
	}
}

// TestLargeBeta checks that energies and gradients stay finite up to
// β = 1000 (MrDAM, both energies; DrDAM, every basis), where exp(−β/2 d²)
// underflows for every memory and the positive features under- or overflow.
func TestLargeBeta(t *testing.T) {
	const d, k, b = 64, 20, 6
	xi := binaryPatterns(31, k, d)
	x := append(flip(32, xi[:3*d], d, 0.2), binaryPatterns(33, b-3, d)...)
	for _, beta := range []float64{60, 300, 1000} {
		for _, sim := range []Similarity{L2, Dot} {
			models := []Model{mustMrDAM(t, Config{D: d, Beta: beta, Similarity: sim}, xi)}
			for _, basis := range allBases {
				models = append(models, mustDrDAM(t, Config{D: d, Beta: beta, Y: 1000, Basis: basis, Seed: 2, Similarity: sim}, xi))
			}
			for _, m := range models {
				e, g := energies(t, m, x)
				if i := firstNonFinite(e); i >= 0 {
					t.Errorf("%T β=%g %v: energy %d = %v", m, beta, sim, i, e[i])
				}
				if i := firstNonFinite(g); i >= 0 {
					t.Errorf("%T β=%g %v: gradient entry %d = %v", m, beta, sim, i, g[i])
				}
			}
		}
	}
}

// TestMrDAMClosedForms checks MrDAM against values known in closed form:
// with one memory ξ, E(x) = ½‖x − ξ‖² and ∇E = x − ξ for the L2 energy, and
// E(x) = −⟨ξ, x⟩ + ½‖x‖² for the dot energy; with K equal memories the L2
// energy drops by (log K)/β.
func TestMrDAMClosedForms(t *testing.T) {
	xi := []float64{0.1, -0.2, 0.3}
	x := []float64{0.5, 0.4, -0.1}
	m := mustMrDAM(t, Config{D: 3, Beta: 7}, xi)
	e, g := energies(t, m, x)
	if want := 0.5 * (0.16 + 0.36 + 0.16); math.Abs(e[0]-want) > 1e-15 {
		t.Errorf("one memory: E = %v, want %v", e[0], want)
	}
	for i := range g {
		if math.Abs(g[i]-(x[i]-xi[i])) > 1e-15 {
			t.Errorf("one memory: grad = %v, want x − ξ", g)
		}
	}
	md := mustMrDAM(t, Config{D: 3, Beta: 7, Similarity: Dot}, xi)
	e, _ = energies(t, md, x)
	if want := -(0.05 - 0.08 - 0.03) + 0.5*(0.25+0.16+0.01); math.Abs(e[0]-want) > 1e-15 {
		t.Errorf("dot, one memory: E = %v, want %v", e[0], want)
	}
	m4 := mustMrDAM(t, Config{D: 3, Beta: 7}, append(append(append(append([]float64{}, xi...), xi...), xi...), xi...))
	e4, _ := energies(t, m4, x)
	if want := 0.5*(0.16+0.36+0.16) - math.Log(4)/7; math.Abs(e4[0]-want) > 1e-15 {
		t.Errorf("four equal memories: E = %v, want %v", e4[0], want)
	}
}

// TestBlocking runs a model whose sizes exceed one block (so the streaming
// softmax rescales and the Y loop has several ragged blocks) against the
// same model evaluated one query at a time (different block sizes).
func TestBlocking(t *testing.T) {
	const d, k, b = 3, 3000, 700
	xi := grayPatterns(41, k, d)
	x := grayPatterns(42, b, d)
	models := []Model{mustMrDAM(t, Config{D: d, Beta: 30}, xi)}
	for _, basis := range allBases {
		models = append(models, mustDrDAM(t, Config{D: d, Beta: 30, Y: 1500 + 37, Basis: basis, Seed: 4}, xi))
	}
	for _, m := range models {
		e, g := energies(t, m, x)
		for _, q := range []int{0, 1, 350, b - 1} {
			e1, g1 := energies(t, m, x[q*d:(q+1)*d])
			if math.Abs(e1[0]-e[q]) > 1e-12*math.Max(1, math.Abs(e[q])) || relDiff(g[q*d:(q+1)*d], g1) > 1e-10 {
				t.Errorf("%T: query %d alone gives E %v, grad %v; in a batch E %v, grad %v", m, q, e1[0], g1, e[q], g[q*d:(q+1)*d])
			}
		}
	}
}

// TestDrDAMApproachesMrDAM: with K = 50 binary patterns, D = 32, β = 10,
// the mean absolute energy error of DrDAM (SinCos, iid) at the stored
// patterns is below 1e-3 at Y = 10⁵ (the target), and smaller than
// at Y = 10³.
func TestDrDAMApproachesMrDAM(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s")
	}
	const d, k, beta = 32, 50, 10
	xi := binaryPatterns(51, k, d)
	mr := mustMrDAM(t, Config{D: d, Beta: beta}, xi)
	em, _ := energies(t, mr, xi)
	var maes []float64
	for _, y := range []int{1000, 100000} {
		dr := mustDrDAM(t, Config{D: d, Beta: beta, Y: y, Seed: 1}, xi)
		ed, _ := energies(t, dr, xi)
		var mae float64
		for i := range ed {
			mae += math.Abs(ed[i]-em[i]) / k
		}
		t.Logf("Y = %d: energy MAE at the stored patterns = %.3g", y, mae)
		maes = append(maes, mae)
	}
	if maes[1] >= 1e-3 {
		t.Errorf("energy MAE at Y = 10⁵ is %.3g, want < 1e-3", maes[1])
	}
	if maes[1] >= maes[0] {
		t.Errorf("energy MAE did not shrink from Y = 10³ (%.3g) to 10⁵ (%.3g)", maes[0], maes[1])
	}
}

// TestWithBeta: a DrDAM made by WithBeta from another one's projection is
// bit for bit the DrDAM that NewDrDAM makes at that β, for every basis and
// every seeded projection kind of the registry, in both precisions.
func TestWithBeta(t *testing.T) {
	const d, k = 10, 5
	xi := grayPatterns(4, k, d)
	x := flip(5, xi, d, 0.3)
	for _, basis := range features.Bases() {
		for _, proj := range features.ProjectionKinds() {
			for _, prec := range []Precision{Float64, Float32} {
				c := Config{D: d, Beta: 3, Y: 200, Basis: basis, Projection: proj, Seed: 7, Precision: prec}
				base := mustDrDAM(t, c, xi)
				c.Beta = 20
				want := mustDrDAM(t, c, xi)
				got, err := base.WithBeta(20)
				if err != nil {
					t.Fatal(err)
				}
				if got.Len() != 0 || got.Config() != want.Config() {
					t.Fatalf("%v: WithBeta gives %d patterns, %v", want.cfg, got.Len(), got.Config())
				}
				if err := got.Add(xi); err != nil {
					t.Fatal(err)
				}
				e1, g1 := energies(t, want, x)
				e2, g2 := energies(t, got, x)
				for i := range g1 {
					if math.Float64bits(g1[i]) != math.Float64bits(g2[i]) || (i < len(e1) && math.Float64bits(e1[i]) != math.Float64bits(e2[i])) {
						t.Fatalf("%v: WithBeta differs from NewDrDAM at value %d", want.cfg, i)
					}
				}
			}
		}
	}
	if _, err := mustDrDAM(t, Config{D: d, Beta: 3, Y: 20}, xi).WithBeta(-1); err == nil {
		t.Error("WithBeta accepted β = −1")
	}
}
