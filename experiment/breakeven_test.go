package experiment

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
)

func TestBreakEvenK(t *testing.T) {
	for _, c := range []struct {
		name      string
		ks, sec   []float64
		dr        float64
		wantK     float64
		wantC     float64
		wantError bool
	}{
		// An exact line c·K: the intersection is drSec/c.
		{name: "line", ks: []float64{1e4, 1e5}, sec: []float64{1e-3, 1e-2}, dr: 5e-3, wantK: 5e4, wantC: 1e-7},
		// Timings off the line by ×2 and ×½: the fit in log time is the
		// geometric mean of sec/K, here 1e-7 again.
		{name: "noisy", ks: []float64{1e4, 1e5}, sec: []float64{2e-3, 5e-3}, dr: 1e-3, wantK: 1e4, wantC: 1e-7},
		// DrDAM slower than MrDAM at every K timed: the break-even lies
		// beyond them (an extrapolation, still a number).
		{name: "beyond", ks: []float64{100, 1000}, sec: []float64{1e-5, 1e-4}, dr: 1, wantK: 1e7, wantC: 1e-7},
		// Non-positive timings are left out.
		{name: "skip", ks: []float64{0, 1e3, 1e4}, sec: []float64{1, -1, 1e-3}, dr: 1e-3, wantK: 1e4, wantC: 1e-7},
		{name: "none", ks: []float64{1e3}, sec: []float64{0}, dr: 1, wantError: true},
		{name: "bad dr", ks: []float64{1e3}, sec: []float64{1}, dr: math.Inf(1), wantError: true},
		{name: "lengths", ks: []float64{1e3, 1e4}, sec: []float64{1}, dr: 1, wantError: true},
	} {
		k, cc, err := BreakEvenK(c.ks, c.sec, c.dr)
		if c.wantError {
			if err == nil {
				t.Errorf("%s: no error", c.name)
			}
			continue
		}
		// Tolerance: a few rounding errors of exp and log.
		if err != nil || math.Abs(k/c.wantK-1) > 1e-12 || math.Abs(cc/c.wantC-1) > 1e-12 {
			t.Errorf("%s: K* = %v, c = %v, %v; want %v, %v", c.name, k, cc, err, c.wantK, c.wantC)
		}
	}
}

// TestBreakEvenPatterns checks that the first K patterns are the same for
// every K (across a chunk boundary) and binary in {0, 1/√D}.
func TestBreakEvenPatterns(t *testing.T) {
	const d = 16
	big, err := breakEvenPatterns(3, patternChunk+5, d)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{1, 7, patternChunk, patternChunk + 2} {
		x, err := breakEvenPatterns(3, k, d)
		if err != nil || !slices.Equal(x, big[:k*d]) {
			t.Errorf("K = %d: not the first rows of K = %d (%v)", k, patternChunk+5, err)
		}
	}
	v := 1 / math.Sqrt(d)
	for i, x := range big {
		if x != 0 && x != v {
			t.Fatalf("value %d = %v, want 0 or %v", i, x, v)
		}
	}
	// The second chunk is not a copy of the first.
	if slices.Equal(big[:5*d], big[patternChunk*d:(patternChunk+5)*d]) {
		t.Error("chunk 1 repeats chunk 0")
	}
}

// smallBreakEven is a grid small enough for a test: every K timed up to
// 64, retrieval up to K = 16, K = 256 extrapolated.
func smallBreakEven() BreakEvenGrid {
	return BreakEvenGrid{Ds: []int{32}, Ks: []int{256, 4, 16, 64}, Ys: []int{256}, Beta: 20,
		Projections: []features.ProjectionKind{features.Gaussian, features.Structured}, Seed: 7, Precision: dam.Float64,
		MaxMeasuredK: 64, QualityWork: 16 * 256 * 32, Queries: 2, Flip: 0.1, Retrieval: Retrieval{Step: 0.1, MaxSteps: 20}}
}

func TestBreakEvenPlan(t *testing.T) {
	g := smallBreakEven()
	p, err := BreakEvenPlan(g, DefaultRates(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, task := range p.Tasks {
		labels = append(labels, task.Label)
	}
	if want := "D=32 Y=256 DrDAM|D=32 K=4|D=32 K=16|D=32 K=64"; strings.Join(labels, "|") != want {
		t.Fatalf("tasks %q, want %q", labels, want)
	}
	var rows []Row
	if err := p.Run(context.Background(), func(r []Row) error { rows = append(rows, r...); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range rows {
		count[r.Projection+" "+string(r.Queries)+" "+r.Metric]++
		if r.Metric == MetricSeconds && !(r.Mean > 0) {
			t.Errorf("%v: time %v", r.Key(), r.Mean)
		}
	}
	want := map[string]int{
		"gaussian measured seconds_per_step": 1, "structured measured seconds_per_step": 1,
		"gaussian footprint bytes": 1, "structured footprint bytes": 1,
		"mrdam measured seconds_per_step": 3, "mrdam extrapolated seconds_per_step": 1, "mrdam footprint bytes": 4,
		"mrdam near recall": 2, "gaussian near recall": 2, "structured near recall": 2,
		"gaussian near hamming": 2, "structured near hamming": 2, "gaussian near stalled": 2, "structured near stalled": 2,
	}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%d rows of %q, want %d", count[k], k, n)
		}
	}
	if len(count) != len(want) {
		t.Errorf("row kinds %v, want %v", count, want)
	}
	// The extrapolation is the time at K = 64 scaled by 256/64.
	var t64, t256 float64
	for _, r := range rows {
		if r.Projection == MrDAMProjection && r.Metric == MetricSeconds {
			switch r.K {
			case 64:
				t64 = r.Mean
			case 256:
				t256 = r.Mean
			}
		}
		if r.Metric == MetricBytes && r.Projection == MrDAMProjection {
			if want := dam.EstimateFootprint(dam.Config{Rep: dam.RepMrDAM, D: 32, Beta: 1, Precision: dam.Float64}, r.K).Bytes; r.Mean != want {
				t.Errorf("K = %d: %v bytes, want %v", r.K, r.Mean, want)
			}
		}
		// At K = 4 and β = 20 the near queries (3 bits of 32 flipped) are
		// retrieved by MrDAM: the patterns are far apart.
		if r.Metric == MetricRecall && r.Projection == MrDAMProjection && r.K == 4 && r.Mean != 0 {
			t.Errorf("MrDAM's recall error at K = 4: %v, want 0", r.Mean)
		}
	}
	if math.Abs(t256/t64-4) > 1e-12 {
		t.Errorf("extrapolated %v at K = 256 from %v at K = 64, want ×4", t256, t64)
	}

	// Resuming: with every key of K = 16 done, its task is left out;
	// with only its MrDAM key done, it still runs for the rest.
	doneAll := func(k Key) bool { return k.K == 16 }
	if p, err = BreakEvenPlan(g, DefaultRates(), doneAll); err != nil || len(p.Tasks) != 3 || p.Skipped != 3 {
		t.Errorf("resumed plan: %d tasks, %d skipped, %v; want 3, 3", len(p.Tasks), p.Skipped, err)
	}
	doneMr := func(k Key) bool { return k.K == 16 && k.Projection == MrDAMProjection }
	if p, err = BreakEvenPlan(g, DefaultRates(), doneMr); err != nil || len(p.Tasks) != 4 || p.Skipped != 1 {
		t.Errorf("resumed plan: %d tasks, %d skipped, %v; want 4, 1", len(p.Tasks), p.Skipped, err)
	}
}

func TestBreakEvenGridErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(g *BreakEvenGrid)
		want string
	}{
		{"one Y per D", func(g *BreakEvenGrid) { g.Ys = []int{1, 2} }, "one Y per D"},
		{"no kind", func(g *BreakEvenGrid) { g.Projections = nil }, "projection kind"},
		{"beta", func(g *BreakEvenGrid) { g.Beta = 0 }, "β"},
		{"smallest K not timed", func(g *BreakEvenGrid) { g.MaxMeasuredK = 2 }, "smallest K"},
		{"budget", func(g *BreakEvenGrid) { g.MaxMemory = 1000 }, "smallest K"},
		{"step", func(g *BreakEvenGrid) { g.Retrieval.Step = 0 }, "step"},
	} {
		g := smallBreakEven()
		c.edit(&g)
		if _, err := BreakEvenPlan(g, DefaultRates(), nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// TestMeasuredK checks the budget: K is timed only where MrDAM's
// footprint and the generated patterns fit.
func TestMeasuredK(t *testing.T) {
	g := smallBreakEven()
	g.MaxMeasuredK = math.MaxInt
	need := dam.EstimateFootprint(dam.Config{Rep: dam.RepMrDAM, D: 32, Beta: 1, Precision: dam.Float64}, 1000).Bytes + 8*1000*32
	g.MaxMemory = int64(need)
	if !g.MeasuredK(32, 1000) || g.MeasuredK(32, 1100) {
		t.Errorf("budget %d: K = 1000 timed %v, K = 1100 timed %v; want true, false", g.MaxMemory, g.MeasuredK(32, 1000), g.MeasuredK(32, 1100))
	}
}
