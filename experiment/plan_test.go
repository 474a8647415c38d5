package experiment

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/metrics"
)

// runPlan runs a plan and returns its rows.
func runPlan(t *testing.T, p *Plan, err error) []Row {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var rows []Row
	if err := p.Run(context.Background(), func(r []Row) error { rows = append(rows, r...); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestEnergyPlanProjections runs a tiny grid with the projection axis and
// the control sample and checks its shape and the trend that holds
// robustly even at this size: errors shrink as Y grows (at Y = 64 and 4096
// the kernel error differs by 8× in expectation, far outside the sampling
// noise of 40 queries). Obs. 1 (at below far) is not asserted here: at D =
// 16, β = 10 the far/at ratio of the energy errors was 0.81–1.6 over seeds
// 1–12 and the three samples; the observation tests of package paper check
// it where the effect is large.
func TestEnergyPlanProjections(t *testing.T) {
	g := BinaryGrid{Ds: []int{16}, Ks: []int{40}, Betas: []float64{10}, Ys: []int{64, 4096},
		Projections: []features.ProjectionKind{features.Gaussian, features.Structured}, Control: true, Flip: 0.1, Seed: 3, Bound: true}
	p, err := EnergyPlan(g, DefaultRates(), nil)
	rows := runPlan(t, p, err)
	// 3 samples × 2 Y × (4 sets × 2 metrics + C₁ + 3 bounds).
	if len(p.Tasks) != 6 || len(rows) != 3*2*12 {
		t.Fatalf("%d tasks and %d rows, want 6 and %d", len(p.Tasks), len(rows), 3*2*12)
	}
	get := func(y int, arm string, q QuerySet, m string) Row {
		r, ok := Find(rows, Key{D: 16, K: 40, Y: y, Beta: 10, Basis: "sincos", Projection: arm}, q, m)
		if !ok {
			t.Fatalf("no row for Y=%d %v %s %s", y, arm, q, m)
		}
		return r
	}
	for _, arm := range []string{"gaussian", "structured", ControlProjection} {
		for _, q := range QuerySets() {
			for _, m := range []string{MetricEnergy, MetricGradient} {
				lo, hi := get(64, arm, q, m), get(4096, arm, q, m)
				if hi.Mean >= lo.Mean {
					t.Errorf("%v %s %s: error did not shrink from Y=64 (%.3g) to 4096 (%.3g)", arm, q, m, lo.Mean, hi.Mean)
				}
				if hi.Count != 40 || !(hi.SE > 0) {
					t.Errorf("%v %s %s: count %d, s.e. %v", arm, q, m, hi.Count, hi.SE)
				}
			}
		}
	}
	// The control sample is another draw of iid projections: the same
	// patterns, other errors.
	if a, b := get(64, "gaussian", At, MetricEnergy), get(64, ControlProjection, At, MetricEnergy); a.Mean == b.Mean {
		t.Errorf("the control sample has the first sample's error %v", a.Mean)
	}
	g.Projections = []features.ProjectionKind{features.Gaussian, features.Gaussian}
	if _, err := EnergyPlan(g, DefaultRates(), nil); err == nil {
		t.Error("a projection listed twice was accepted")
	}
	if _, err := EnergyPlan(BinaryGrid{}, DefaultRates(), nil); err == nil {
		t.Error("an empty grid was accepted")
	}
}

// TestEnergyPlanSeeds: with Seeds = 3 each row pools 3·K queries, has a
// positive standard error across the projections and a median of the same
// order as the mean; a one-seed run (same patterns, only the first
// projection) pools K queries and gives another mean.
func TestEnergyPlanSeeds(t *testing.T) {
	g := BinaryGrid{Ds: []int{16}, Ks: []int{20}, Betas: []float64{5}, Ys: []int{256},
		Projections: []features.ProjectionKind{features.Structured}, Flip: 0.1, Seed: 7, Seeds: 3}
	p, err := EnergyPlan(g, DefaultRates(), nil)
	all := runPlan(t, p, err)
	if len(Select(all, func(r Row) bool { return r.Metric == MetricBound || r.Metric == MetricC1 })) != 0 {
		t.Error("bound rows without Bound")
	}
	rows := Select(all, func(r Row) bool { return r.Metric == MetricEnergy || r.Metric == MetricGradient })
	for _, r := range rows {
		if r.Count != 3*20 || !(r.SE > 0) || !(r.Median > 0) || r.Median > 10*r.Mean {
			t.Errorf("%s %s: count %d, s.e. %v, median %v (mean %v)", r.Queries, r.Metric, r.Count, r.SE, r.Median, r.Mean)
		}
	}
	g.Seeds = 1
	p1, err := EnergyPlan(g, DefaultRates(), nil)
	rows1 := Select(runPlan(t, p1, err), func(r Row) bool { return r.Metric == MetricEnergy || r.Metric == MetricGradient })
	for i, r := range rows1 {
		if r.Count != 20 || r.Mean == rows[i].Mean {
			t.Errorf("%s %s: one seed: count %d, mean %v (three seeds: %v)", r.Queries, r.Metric, r.Count, r.Mean, rows[i].Mean)
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
}

// TestRetrievalPlan checks retrieval-error on a tiny grid (D = 32, K = 20,
// β = 40): with Y = 20000 features, DrDAM's descent from the stored
// patterns ends at MrDAM's fixed points (Δ_H = 0: at β = 40 each stored
// pattern is a deep minimum, and the gradient noise at Y = 2·10⁴ is ~100×
// below the restoring force), while far queries end elsewhere (Δ_H > 0.1;
// Obs. 3: there DrDAM's gradient is noise). The assertions held for each
// of the seeds 1–20.
func TestRetrievalPlan(t *testing.T) {
	g := BinaryGrid{Ds: []int{32}, Ks: []int{20}, Betas: []float64{40}, Ys: []int{20000}, Flip: 0.1, Seed: 5}
	p, err := RetrievalPlan(g, Retrieval{Step: 0.03, MaxSteps: 300, Tol: 1e-8}, DefaultRates(), nil)
	rows := runPlan(t, p, err)
	if len(rows) != 10 {
		t.Fatalf("%d rows, want 10 (Δ_H, stalled and Δ_H of the moved for 3 sets, and MrDAM's own recall)", len(rows))
	}
	get := func(q QuerySet, m string) Row {
		r, ok := Find(rows, rows[0].Key(), q, m)
		if !ok {
			t.Fatalf("no %s %s row", q, m)
		}
		return r
	}
	if at := get(At, MetricHamming); at.Mean != 0 {
		t.Errorf("Δ_H at the stored patterns = %v, want 0", at.Mean)
	}
	if far := get(Far, MetricHamming); !(far.Mean > 0.1) {
		t.Errorf("Δ_H far = %v, want > 0.1", far.Mean)
	}
	// At a stored pattern φ(x)·T estimates a sum whose own term is 1,
	// with a noise of about √(K/2Y) ≈ 0.02: far above ε = 1e-5.
	if st := get(At, MetricStalled); st.Mean != 0 || st.Count != 20 {
		t.Errorf("stalled at the stored patterns: %v of %d, want none of 20", st.Mean, st.Count)
	}
	// No query stalled at the stored patterns, so the moved ones are all.
	if mv := get(At, MetricHammingMoved); mv.Mean != 0 || mv.Count != 20 {
		t.Errorf("Δ_H of the moved at the stored patterns: %v over %d, want 0 over 20", mv.Mean, mv.Count)
	}
	if mr := get(At, MetricMrRecall); mr.Mean != 0 {
		t.Errorf("MrDAM's fixed points from the stored patterns differ from them: %v", mr)
	}
}

func TestResume(t *testing.T) {
	g := BinaryGrid{Ds: []int{16}, Ks: []int{10}, Betas: []float64{5, 10}, Ys: []int{100, 200}, Flip: 0.1, Bound: true}
	p, err := EnergyPlan(g, DefaultRates(), nil)
	rows := runPlan(t, p, err)
	path := filepath.Join(t.TempDir(), "points.csv")
	if err := WriteRows(path, rows); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRows(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back, rows) {
		t.Fatalf("rows changed in a CSV round trip")
	}
	done := map[Key]bool{}
	for _, r := range rows {
		if r.Y == 100 || r.Beta == 5 {
			done[r.Key()] = true
		}
	}
	p2, err := EnergyPlan(g, DefaultRates(), func(k Key) bool { return done[k] })
	if err != nil {
		t.Fatal(err)
	}
	if len(p2.Tasks) != 1 || len(p2.Tasks[0].Keys) != 1 || p2.Skipped != 3 {
		t.Fatalf("resumed plan: %d tasks, skipped %d; want 1 task (Y = 200, β = 10) and 3 skipped", len(p2.Tasks), p2.Skipped)
	}
	again := runPlan(t, p2, nil)
	want := Select(rows, func(r Row) bool { return r.Y == 200 && r.Beta == 10 })
	if !slices.Equal(again, want) {
		t.Errorf("resumed rows differ from the first run's: the run is not deterministic")
	}
}

func TestReadRowsErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, text, want string }{
		{"empty.csv", "", "empty file"},
		{"header.csv", "a,b\n", "header"},
		{"number.csv", strings.Join(csvHeader, ",") + "\n1,30,500,1000,x,sincos,gaussian,at,energy,1,1,1,500\n", "number.csv:2: field beta"},
		{"fields.csv", strings.Join(csvHeader, ",") + "\n1,30,500\n", "wrong number of fields"},
		{"seed.csv", strings.Join(csvHeader, ",") + "\n-1,30,500,1000,1,sincos,gaussian,at,energy,1,1,1,500\n", "seed.csv:2: field seed"},
		{"old.csv", strings.Join(csvHeader[1:], ",") + "\n30,500,1000,1,sincos,gaussian,at,energy,1,1,1,500\n", "no seed column"},
		{"beta.csv", strings.Join(csvHeader, ",") + "\n1,30,500,1000,-1,sincos,gaussian,at,energy,1,1,1,500\n", "want a positive number"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadRows(path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestPlanProgress checks that a plan reports progress within its tasks
// (a retrieval task reports during its descents), never backwards, and
// ends at its total.
func TestPlanProgress(t *testing.T) {
	g := BinaryGrid{Ds: []int{16}, Ks: []int{8}, Betas: []float64{10, 20}, Ys: []int{100, 200}, Flip: 0.1}
	p, err := RetrievalPlan(g, Retrieval{Step: 0.03, MaxSteps: 200}, DefaultRates(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var last, total float64
	calls := 0
	err = p.Run(context.Background(), func([]Row) error { return nil }, func(done, tot float64, label string) {
		calls++
		if done < last || done > tot*(1+1e-12) || label == "" {
			t.Fatalf("progress(%v, %v, %q) after %v", done, tot, label, last)
		}
		last, total = done, tot
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls <= len(p.Tasks) || math.Abs(last-total) > 1e-9*total || total != p.Cost().Seconds() && math.Abs(total-p.Cost().Seconds()) > 1e-6 {
		t.Errorf("%d progress calls for %d tasks, last %v of %v (plan cost %v)", calls, len(p.Tasks), last, total, p.Cost())
	}
}

// TestPlanCancelled: a plan whose context is cancelled during a task stops
// before the next one, with the context's error, having passed the rows of
// the tasks done to the sink.
func TestPlanCancelled(t *testing.T) {
	g := BinaryGrid{Ds: []int{16}, Ks: []int{10}, Betas: []float64{5}, Ys: []int{100, 200, 300}, Flip: 0.1}
	p, err := EnergyPlan(g, DefaultRates(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tasks) < 2 {
		t.Fatalf("%d tasks, want several", len(p.Tasks))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sunk := 0
	err = p.Run(ctx, func([]Row) error { sunk++; cancel(); return nil }, nil)
	if !errors.Is(err, context.Canceled) || sunk != 1 {
		t.Fatalf("err = %v after %d tasks sunk, want context.Canceled after 1", err, sunk)
	}
}

// TestPlanCancelledWithinTask: a context cancelled while a task runs
// stops it at its next report of progress (after a β here), with the
// context's error; its rows are not passed to the sink.
func TestPlanCancelledWithinTask(t *testing.T) {
	g := BinaryGrid{Ds: []int{16}, Ks: []int{10}, Betas: []float64{5, 10, 20}, Ys: []int{100}, Flip: 0.1}
	p, err := EnergyPlan(g, DefaultRates(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reports := 0
	err = p.Run(ctx, func([]Row) error { t.Error("a stopped task's rows were sunk"); return nil },
		func(done, total float64, label string) { reports++; cancel() })
	if !errors.Is(err, context.Canceled) || reports != 1 {
		t.Fatalf("err = %v after %d reports, want context.Canceled after 1", err, reports)
	}
}
