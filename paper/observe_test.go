package paper

import (
	"context"
	"github.com/drdam/drdam/experiment"
	"slices"
	"strings"
	"testing"

	"github.com/drdam/drdam/datasets"
	"github.com/drdam/drdam/features"
)

// runSeeds runs the plan that mk makes for each of n replicate seeds
// (experiment.ReplicateSeed(1, i)), as a grid experiment's Run does, and returns the
// rows of all of them.
func runSeeds(t *testing.T, n int, mk func(seed uint64) (*experiment.Plan, error)) []experiment.Row {
	t.Helper()
	var plans []*experiment.Plan
	for i := range n {
		seed := experiment.ReplicateSeed(1, i)
		p, err := mk(seed)
		if err != nil {
			t.Fatal(err)
		}
		plans = append(plans, p.WithSeed(seed))
	}
	return runPlan(t, experiment.Concat("test", plans...), nil)
}

// runPlan runs a plan and returns its rows.
func runPlan(t *testing.T, p *experiment.Plan, err error) []experiment.Row {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var rows []experiment.Row
	if err := p.Run(context.Background(), func(r []experiment.Row) error { rows = append(rows, r...); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	return rows
}

func onlySets(rows []experiment.Row, sets ...experiment.QuerySet) []experiment.Row {
	return experiment.Select(rows, func(r experiment.Row) bool { return slices.Contains(sets, r.Queries) })
}

func requireVerdict(t *testing.T, f Finding, want string) {
	t.Helper()
	if f.Verdict != want {
		t.Errorf("%s: verdict %q, want %q\n  %s", f.Name, f.Verdict, want, strings.Join(f.Details, "\n  "))
	}
}

// TestObservationsEnergy checks the direction of Obs. 1, 2 and 3 of §4.1
// on a tiny grid (K = 100, D ∈ {32, 256}, β ∈ {10, 50}, Y ∈ {8000,
// 32000}; about a second per seed), over 3 seeds with the report's rules.
// The sizes are chosen where the effects are large against the sampling
// noise; on one seed each, the effects held for each of 30 seeds tried
// (1–30):
//   - Obs. 1 at β = 50: a far query's kernel sum is ~K·e^{−β/4} ≈ 4·10⁻⁴
//     against ≥ 1 at a stored pattern, while the noise of φ·T is the same
//     (~√(K/Y)): far errors were 12–26× the at/near ones.
//   - Obs. 2 for near and far queries: the kernel sum shrinks by orders of
//     magnitude from β = 10 to 50; the errors grew 16–73× (median). At the
//     stored patterns the claim is not asserted: the kernel sum stays ≥ 1
//     there, so the energy error (~noise/β) grows far less.
//   - Obs. 3 (energy) at β = 50, D = 256: the far kernel sum (~10⁻⁹) is
//     below the noise at any affordable Y, so the median energy error does
//     not fall with Y (exponent −0.00 to −0.10 over the 30 seeds), while at
//     the stored patterns the error falls as Y^−½ (−0.37 to −0.69). The far
//     gradient is not asserted: its mean is ruled by rare queries near the
//     clip floor (exponent −0.9 to +2.4 across seeds) and its median did
//     fall (−0.3 to −0.9) at this D.
func TestObservationsEnergy(t *testing.T) {
	rows := runSeeds(t, 3, func(seed uint64) (*experiment.Plan, error) {
		g := experiment.BinaryGrid{Ds: []int{32, 256}, Ks: []int{100}, Betas: []float64{10, 50}, Ys: []int{8000, 32000}, Flip: 0.1, Seed: seed, Bound: true}
		return experiment.EnergyPlan(g, experiment.DefaultRates(), nil)
	})
	// Per seed and configuration: 4 sets × 2 metrics, C₁, and 3 bounds.
	if want := 3 * 2 * 1 * 2 * 2 * (4*2 + 1 + 3); len(rows) != want {
		t.Fatalf("%d rows, want %d (seeds × D × K × β × Y × rows per configuration)", len(rows), want)
	}
	requireVerdict(t, observeNearFar(withBeta(rows, 50)), Holds)
	requireVerdict(t, observeBeta(onlySets(rows, experiment.Near, experiment.Far)), Holds)
	requireVerdict(t, observeSaturation(experiment.Select(rows, func(r experiment.Row) bool { return r.Metric == experiment.MetricEnergy })), Holds)
	for _, seed := range experiment.Seeds(rows) {
		k := experiment.Key{Seed: seed, D: 256, K: 100, Beta: 50, Basis: "sincos", Projection: "gaussian"}
		for _, m := range errorMetrics {
			if p, _, _, ok := slopeOverY(rows, k, experiment.At, m); !ok || p > -0.3 {
				t.Errorf("seed %d, D=256 β=50 at %s: error ∝ Y^%.2f, want the random-feature rate (≤ −0.3)", seed, m, p)
			}
		}
	}
	// DrDAM at the stored patterns is far better than the random guess.
	seed0 := experiment.Select(rows, func(r experiment.Row) bool { return r.Seed == 1 })
	for _, m := range errorMetrics {
		gb, ok := guessBaseline(seed0, 256, m)
		at, _ := experiment.Find(seed0, experiment.Key{Seed: 1, D: 256, K: 100, Y: 32000, Beta: 50, Basis: "sincos", Projection: "gaussian"}, experiment.At, m)
		if !ok || !(at.Mean < gb/10) {
			t.Errorf("%s: error at the stored patterns %.3g not below a tenth of the random guess %.3g", m, at.Mean, gb)
		}
	}
}

// TestObservationK checks the trend of Fig. 5 on a tiny grid over 3
// seeds: at fixed Y = 2000 and β = 40, the errors at and near the stored
// patterns grow with K ∈ {10, 40, 160} (D = 32). At β = 40 the kernel sum
// at a stored pattern stays ≈ 1 while the noise of φ·T grows as √K, so the
// error grows ~4× over the grid, far above the noise of 10–160 queries. (At
// small β the kernel sum itself grows with K and the trend can reverse;
// the report shows it.) The trend held for each of the seeds 1–20.
func TestObservationK(t *testing.T) {
	rows := runSeeds(t, 3, func(seed uint64) (*experiment.Plan, error) {
		g := experiment.BinaryGrid{Ds: []int{32}, Ks: []int{10, 40, 160}, Betas: []float64{40}, Ys: []int{2000}, Flip: 0.1, Seed: seed}
		return experiment.EnergyPlan(g, experiment.DefaultRates(), nil)
	})
	requireVerdict(t, observeK(rows), Holds)
}

// TestObservationBases checks Fig. 6 on the embedded Letter data (100
// stored, 50 new points, Y = 2000, β ∈ {10, 30}, 3 seeds): the
// trigonometric bases beat Exp and ExpExp. Their errors differ by 80× and
// more at these β on the quick grid (the variance of the positive features
// grows as e^{β‖x+y‖²}), so the comparison cannot flip by chance (it held
// for each of the seeds 1–20).
func TestObservationBases(t *testing.T) {
	m, _, err := datasets.Letter()
	if err != nil {
		t.Fatal(err)
	}
	d := m.Cols
	idx := datasets.Unique(m.Data, d)[:2000]
	x := make([]float64, 0, len(idx)*d)
	for _, i := range idx {
		x = append(x, m.Data[i*d:(i+1)*d]...)
	}
	if _, _, err := datasets.NormalizeUnitBox(x, x, d); err != nil {
		t.Fatal(err)
	}
	rows := runSeeds(t, 3, func(seed uint64) (*experiment.Plan, error) {
		g := experiment.BasisGrid{Data: x, D: d, Stored: 100, New: 50, Betas: []float64{10, 30}, Ys: []int{2000},
			Bases:       []features.Basis{features.Cos, features.SinCos, features.Exp, features.ExpExp},
			Projections: []features.ProjectionKind{features.Gaussian}, Seed: seed}
		return experiment.BasisPlan(g, experiment.DefaultRates(), nil)
	})
	if want := 3 * 4 * 2 * 2 * 2; len(rows) != want {
		t.Fatalf("%d rows, want %d", len(rows), want)
	}
	requireVerdict(t, observeBases(rows), Holds)
}

// TestObservationRetrieval checks Fig. 4A's claim on the tiny grid of
// experiment's TestRetrievalPlan (D = 32, K = 20, β = 40, Y = 20000) over
// 3 seeds, where DrDAM ends at MrDAM's fixed points from the stored
// patterns (Δ_H = 0) and elsewhere from far queries (Δ_H > 0.1), for each
// of the seeds 1–20.
func TestObservationRetrieval(t *testing.T) {
	rows := runSeeds(t, 3, func(seed uint64) (*experiment.Plan, error) {
		g := experiment.BinaryGrid{Ds: []int{32}, Ks: []int{20}, Betas: []float64{40}, Ys: []int{20000}, Flip: 0.1, Seed: seed + 4}
		return experiment.RetrievalPlan(g, experiment.Retrieval{Step: 0.03, MaxSteps: 300, Tol: 1e-8}, experiment.DefaultRates(), nil)
	})
	requireVerdict(t, observeRetrieval(rows), Holds)
}
