package paper

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/experiment"
)

// theorem1Rows returns constructed theorem1 rows: for each seed i, at
// β = 10, the largest log ratio of every (Y, set) is cor[i] at
// Corollary 1's step and user[i] at the user step (a few below it at the
// other sets, which must not matter: the statistic is the maximum).
func theorem1Rows(cor, user []float64) []experiment.Row {
	var rows []experiment.Row
	for i := range cor {
		seed := experiment.ReplicateSeed(1, i)
		for _, y := range []int{1000, 4000} {
			for s, q := range experiment.QuerySets() {
				for _, m := range []struct {
					metric string
					v      float64
				}{{experiment.MetricLogRatioMax, cor[i]}, {experiment.MetricLogRatioMaxUser, user[i]}} {
					v := m.v
					if s > 0 {
						v -= float64(s)
					}
					rows = append(rows, experiment.Row{Seed: seed, D: 16, K: 20, Y: y, Beta: 10, Basis: "sincos", Projection: "gaussian",
						Queries: q, Metric: m.metric, Mean: v, Median: v, Count: 4})
				}
			}
		}
	}
	return rows
}

// TestObserveTheorem1Outcomes checks that observeTheorem1 returns each
// outcome on constructed rows: the bound holds (every seed's largest log
// ratio well below 0), does not hold (well above 0 at Corollary 1's step,
// though it holds at the other step), a tie (seeds on both sides of 0),
// one seed (no interval), and nothing measured.
func TestObserveTheorem1Outcomes(t *testing.T) {
	for _, c := range []struct {
		name      string
		cor, user []float64
		want      string
	}{
		{"holds", []float64{-3, -2.8, -3.1}, []float64{-120, -121, -119}, Holds},
		{"does not hold", []float64{2, 2.2, 1.9}, []float64{-120, -121, -119}, DoesNotHold},
		{"tie", []float64{-1, 1, 0.2}, []float64{-120, -121, -119}, Inconclusive},
		{"one seed", []float64{-3}, []float64{-120}, Inconclusive},
		{"nothing", nil, nil, NotMeasured},
	} {
		f := observeTheorem1(theorem1Rows(c.cor, c.user))
		if f.Verdict != c.want {
			t.Errorf("%s: verdict %q, want %q\n  %s", c.name, f.Verdict, c.want, strings.Join(f.Details, "\n  "))
		}
	}
}

// TestTheorem1Run runs theorem1's plan on a tiny grid (D = 16, K = 20,
// β = 10, Y = 2000, 4 queries per set, L = 5) for three replicate seeds,
// and checks the verdict and the figures. At Corollary 1's step the
// largest ln(divergence / bound) of a seed was −3.3 to −2.4 over the
// seeds 1–20 (the bound is about 4C₁Ke^{βE₀}√(D/Y) per unit of the
// gradient error that drives the divergence), so any three seeds give an
// interval below 0 (mean ≈ −2.8, half-width at most 4.3·0.5/√3 ≈ 1.2):
// the bound holds. At the step 0.03 the bound is ~e^{125} above.
func TestTheorem1Run(t *testing.T) {
	s := theorem1.spec("quick")
	s.D, s.K, s.Beta, s.Y, s.Queries, s.MaxSteps = []int{16}, []int{20}, []float64{10}, []int{2000}, 4, 5
	var plans []*experiment.Plan
	for i := range 3 {
		seed := experiment.ReplicateSeed(1, i)
		s.Seed = seed
		p, err := theorem1Plan(s, dam.Float64, experiment.DefaultRates(), nil)
		if err != nil {
			t.Fatal(err)
		}
		plans = append(plans, p.WithSeed(seed))
	}
	rows := runPlan(t, experiment.Concat("theorem1", plans...), nil)
	f := observeTheorem1(rows)
	requireVerdict(t, f, Holds)
	if d := f.Details[len(f.Details)-1]; !strings.Contains(d, "| 16 | 10 | 2000 | near |") {
		t.Errorf("the table has no row for D = 16, β = 10, Y = 2000, near:\n%s", d)
	}
	figs := theorem1Figures(rows)
	for _, name := range []string{"theorem1-corollary-step", "theorem1-user-step", "corollary1-envelope"} {
		fig := figs[name]
		if fig == nil || fig.Rows != 3 || fig.Cols != 1 || len(fig.Panels) != 3 {
			t.Fatalf("%s: %+v, want 3 panels (at, near, far) × 1 D", name, fig)
		}
		// A β line with its bound (and, for the envelope, the fitted curve).
		want := map[string]int{"corollary1-envelope": 3}[name]
		if want == 0 {
			want = 2
		}
		if p := fig.Panels[1]; len(p.Series) != want || p.Series[0].Err == nil {
			t.Errorf("%s: near panel has %d series (errors %v), want %d with interval bars", name, len(p.Series), p.Series[0].Err, want)
		}
	}
	labels := map[string]bool{}
	for _, fig := range figs {
		for _, p := range fig.Panels {
			for _, s := range p.Series {
				labels[s.Label] = true
			}
		}
	}
	for _, l := range []string{"Theorem 1 bound (as stated)", "fitted envelope (the paper's code: max √Y·err / √Y)", "Corollary 1 (as written)"} {
		if !labels[l] {
			t.Errorf("no series labelled %q", l)
		}
	}
	if err := figs["corollary1-envelope"].Save(filepath.Join(t.TempDir(), "f.png")); err != nil {
		t.Error(err)
	}
}

// TestTheorem1Refuses checks that theorem1 refuses a convergence stop
// and queries outside 0 (all) … K, naming the parameter.
func TestTheorem1Refuses(t *testing.T) {
	for _, c := range []struct {
		set  func(*Spec)
		flag string
	}{
		{func(s *Spec) { s.Tol = 1e-8 }, `parameter "tol"`},
		{func(s *Spec) { s.Queries = -1 }, `parameter "queries"`},
		{func(s *Spec) { s.Queries = 501 }, `parameter "queries"`},
		{func(s *Spec) { s.MaxSteps = 0 }, `parameter "steps"`},
	} {
		s := theorem1.spec("quick")
		c.set(&s)
		if _, err := theorem1Plan(s, dam.Float64, experiment.DefaultRates(), nil); err == nil || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("error %v, want one naming %s", err, c.flag)
		}
	}
}
