package paper

import (
	"github.com/drdam/drdam/experiment"
	"slices"
	"strings"
	"testing"

	"github.com/drdam/drdam/datasets"
	"github.com/drdam/drdam/features"
)

// runPlan runs a plan and returns its rows.
func runPlan(t *testing.T, p *experiment.Plan, err error) []experiment.Row {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var rows []experiment.Row
	if err := p.Run(func(r []experiment.Row) error { rows = append(rows, r...); return nil }, nil); err != nil {
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
// 32000}; about a second), with the same rules as the report. The sizes
// are chosen where the effects are large against the sampling noise, and
// the assertions held for each of 30 seeds tried (1–30), not only this one:
//   - Obs. 1 at β = 50: a far query's kernel sum is ~K·e^{−β/4} ≈ 4·10⁻⁴
//     against ≥ 1 at a stored pattern, while the noise of φ·T is the same
//     (~√(K/Y)): far errors were 12–26× the at/near ones.
//   - Obs. 2 for near and far queries: the kernel sum shrinks by orders of
//     magnitude from β = 10 to 50; the errors grew 16–73× (median). experiment.At the
//     stored patterns the claim is not asserted: the kernel sum stays ≥ 1
//     there, so the energy error (~noise/β) grows far less (the report
//     gives the numbers).
//   - Obs. 3 (energy) at β = 50, D = 256: the far kernel sum (~10⁻⁹) is
//     below the noise at any affordable Y, so the median energy error does
//     not fall with Y (exponent −0.00 to −0.10 over the 30 seeds), while at
//     the stored patterns the error falls as Y^−½ (−0.37 to −0.69). The far
//     gradient is not asserted: its mean is ruled by rare queries near the
//     clip floor (exponent −0.9 to +2.4 across seeds) and its median did
//     fall (−0.3 to −0.9) at this D; the report shows what it does at the
//     paper's D.
func TestObservationsEnergy(t *testing.T) { observationsEnergy(t, 7) }

func observationsEnergy(t *testing.T, seed uint64) {
	g := experiment.BinaryGrid{Ds: []int{32, 256}, Ks: []int{100}, Betas: []float64{10, 50}, Ys: []int{8000, 32000}, Flip: 0.1, Seed: seed, Bound: true}
	p, err := experiment.EnergyPlan(g, experiment.DefaultRates, nil)
	rows := runPlan(t, p, err)
	// Per configuration: 4 sets × 2 metrics, C₁, and 3 bounds.
	if want := 2 * 1 * 2 * 2 * (4*2 + 1 + 3); len(rows) != want {
		t.Fatalf("%d rows, want %d (D × K × β × Y × rows per configuration)", len(rows), want)
	}
	beta50 := experiment.Select(rows, func(r experiment.Row) bool { return r.Beta == 50 })
	requireVerdict(t, ObserveNearFar(beta50), Holds)
	// The direction of Obs. 2 (the paper's factors are checked by the
	// report, not here: they depend on D and Y).
	if f := ObserveBeta(onlySets(rows, experiment.Near, experiment.Far)); !strings.Contains(f.Details[0], "in 8 of 8 comparisons") || !strings.Contains(f.Details[1], "in 8 of 8 comparisons") {
		t.Errorf("Obs. 2: errors did not grow with β in every comparison:\n  %s", strings.Join(f.Details, "\n  "))
	}
	requireVerdict(t, ObserveSaturation(experiment.Select(rows, func(r experiment.Row) bool { return r.Metric == experiment.MetricEnergy })), Holds)
	k := experiment.Key{D: 256, K: 100, Beta: 50, Basis: "sincos", Projection: "gaussian"}
	for _, m := range []string{experiment.MetricEnergy, experiment.MetricGradient} {
		if p, _, _, ok := slopeOverY(rows, k, experiment.At, m); !ok || p > -0.3 {
			t.Errorf("D=256 β=50 at %s: error ∝ Y^%.2f, want the random-feature rate (≤ −0.3)", m, p)
		}
	}
	// DrDAM at the stored patterns is far better than the random guess.
	for _, m := range []string{experiment.MetricEnergy, experiment.MetricGradient} {
		gb, ok := GuessBaseline(rows, 256, m)
		at, _ := experiment.Find(rows, experiment.Key{D: 256, K: 100, Y: 32000, Beta: 50, Basis: "sincos", Projection: "gaussian"}, experiment.At, m)
		if !ok || !(at.Mean < gb/10) {
			t.Errorf("%s: error at the stored patterns %.3g not below a tenth of the random guess %.3g", m, at.Mean, gb)
		}
	}
}

// TestObservationK checks the trend of Fig. 5 on a tiny grid: at fixed Y
// = 2000 and β = 40, the errors at and near the stored patterns grow with
// K ∈ {10, 40, 160} (D = 32). experiment.At β = 40 the kernel sum at a stored pattern
// stays ≈ 1 while the noise of φ·T grows as √K, so the error grows ~4×
// over the grid, far above the noise of 10–160 queries. (experiment.At small β the
// kernel sum itself grows with K and the trend can reverse; the report
// shows it.) The assertion held for each of the seeds 1–20.
func TestObservationK(t *testing.T) {
	g := experiment.BinaryGrid{Ds: []int{32}, Ks: []int{10, 40, 160}, Betas: []float64{40}, Ys: []int{2000}, Flip: 0.1, Seed: 3}
	p, err := experiment.EnergyPlan(g, experiment.DefaultRates, nil)
	rows := runPlan(t, p, err)
	requireVerdict(t, ObserveK(rows), Holds)
}

// TestObservationBases checks Fig. 6 on the embedded Letter data (100
// stored, 50 new points, Y = 2000, β ∈ {10, 30}): the trigonometric bases
// beat Exp and ExpExp. Their errors differ by 80× and more at these β on
// the quick grid (the variance of the positive features grows as
// e^{β‖x+y‖²}), so the comparison cannot flip by chance (it held for
// each of the seeds 1–20).
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
	g := experiment.BasisGrid{Data: x, D: d, Stored: 100, New: 50, Betas: []float64{10, 30}, Ys: []int{2000},
		Bases:       []features.Basis{features.Cos, features.SinCos, features.Exp, features.ExpExp},
		Projections: []features.ProjectionKind{features.Gaussian}, Seed: 1}
	p, err := experiment.BasisPlan(g, experiment.DefaultRates, nil)
	rows := runPlan(t, p, err)
	if want := 4 * 2 * 2 * 2; len(rows) != want {
		t.Fatalf("%d rows, want %d", len(rows), want)
	}
	requireVerdict(t, ObserveBases(rows), Holds)
}

// TestObservationRetrieval checks Fig. 4A's claim on the tiny grid of
// experiment's TestRetrievalPlan (D = 32, K = 20, β = 40, Y = 20000), where
// DrDAM ends at MrDAM's fixed points from the stored patterns (Δ_H = 0)
// and elsewhere from far queries (Δ_H > 0.1), for each of the seeds 1–20.
func TestObservationRetrieval(t *testing.T) {
	g := experiment.BinaryGrid{Ds: []int{32}, Ks: []int{20}, Betas: []float64{40}, Ys: []int{20000}, Flip: 0.1, Seed: 5}
	p, err := experiment.RetrievalPlan(g, experiment.Retrieval{Step: 0.03, MaxSteps: 300, Tol: 1e-8}, experiment.DefaultRates, nil)
	requireVerdict(t, ObserveRetrieval(runPlan(t, p, err)), Holds)
}
