package paper

import (
	"math"
	"strings"
	"testing"

	"github.com/drdam/drdam/experiment"
)

// breakEvenRows returns constructed rows of break-even at D = 100 for the
// given seeds: MrDAM takes mr[i]·K seconds per step in seed i, timed at
// K = 10⁴ and 10⁵ and extrapolated at 10⁶; DrDAM gaussian takes dr[i]
// seconds; the recall errors at K = 10⁵ are mrRecall and drRecall[i].
func breakEvenRows(seeds []uint64, mr, dr, drRecall []float64, mrRecall float64) []experiment.Row {
	var rows []experiment.Row
	row := func(seed uint64, k, y int, proj string, q experiment.QuerySet, metric string, v float64) {
		rows = append(rows, experiment.Row{Seed: seed, D: 100, K: k, Y: y, Beta: 40, Basis: "sincos", Projection: proj,
			Queries: q, Metric: metric, Mean: v, Median: v, Count: 1})
	}
	for i, s := range seeds {
		row(s, 0, 1000, "gaussian", experiment.Measured, experiment.MetricSeconds, dr[i])
		row(s, 0, 1000, "gaussian", experiment.Footprint, experiment.MetricBytes, 8e5)
		for _, k := range []int{10000, 100000, 1000000} {
			q := experiment.Measured
			if k == 1000000 {
				q = experiment.Extrapolated
			}
			row(s, k, 0, experiment.MrDAMProjection, q, experiment.MetricSeconds, mr[i]*float64(k))
			row(s, k, 0, experiment.MrDAMProjection, experiment.Footprint, experiment.MetricBytes, 1200*float64(k))
		}
		row(s, 100000, 0, experiment.MrDAMProjection, experiment.Near, experiment.MetricRecall, mrRecall)
		row(s, 100000, 1000, "gaussian", experiment.Near, experiment.MetricRecall, drRecall[i])
		row(s, 100000, 1000, "gaussian", experiment.Near, experiment.MetricStalled, 0)
	}
	return rows
}

func TestObserveBreakEven(t *testing.T) {
	seeds := []uint64{1, 101, 201}
	for _, c := range []struct {
		name   string
		mr, dr []float64
		want   string
	}{
		// DrDAM at 10⁻² s, MrDAM at 10⁻⁷·K: 10⁻¹ s at K = 10⁶, break-even
		// at K = 10⁵, in every seed.
		{"holds", []float64{1e-7, 1.1e-7, 0.9e-7}, []float64{1e-2, 1e-2, 1e-2}, Holds},
		// DrDAM slower than MrDAM at every K.
		{"does not hold", []float64{1e-7, 1.1e-7, 0.9e-7}, []float64{10, 12, 9}, DoesNotHold},
		// A tie at K = 10⁶: log ratios of +0.5, −0.5, 0.
		{"tie", []float64{1e-6, 1e-6, 1e-6}, []float64{math.Exp(-0.5), math.Exp(0.5), 1}, Inconclusive},
	} {
		f := observeBreakEven(breakEvenRows(seeds, c.mr, c.dr, []float64{0, 0, 0}, 0))
		if f.Verdict != c.want {
			t.Errorf("%s: verdict %q, want %q; details %q", c.name, f.Verdict, c.want, f.Details)
		}
	}
	// The table: break-even at K = 10⁵ (geometric mean over seeds of
	// 10⁻²/c), MrDAM's memory there 1200·10⁵ bytes.
	f := observeBreakEven(breakEvenRows(seeds, []float64{1e-7, 1e-7, 1e-7}, []float64{1e-2, 1e-2, 1e-2}, []float64{0, 0, 0}, 0))
	all := strings.Join(f.Details, "\n")
	for _, want := range []string{"| 100 | gaussian | 1000 |", "1e+05 [1e+05, 1e+05]", "114 MiB", "(extrapolated)"} {
		if !strings.Contains(all, want) {
			t.Errorf("details lack %q:\n%s", want, all)
		}
	}
	// One seed: no interval, inconclusive.
	if f := observeBreakEven(breakEvenRows(seeds[:1], []float64{1e-7}, []float64{1e-2}, []float64{0}, 0)); f.Verdict != Inconclusive {
		t.Errorf("one seed: verdict %q, want %q", f.Verdict, Inconclusive)
	}
}

func TestObserveBreakEvenRecall(t *testing.T) {
	seeds := []uint64{1, 101, 201}
	mr, dr := []float64{1e-7, 1e-7, 1e-7}, []float64{0.9e-2, 0.9e-2, 0.9e-2} // break-even at K = 9·10⁴
	for _, c := range []struct {
		name     string
		drRecall []float64
		want     string
	}{
		{"holds", []float64{0, 0.001, 0.002}, Holds},
		{"does not hold", []float64{0.12, 0.13, 0.14}, DoesNotHold},
		// Spread around the reference 0.01: neither side.
		{"tie", []float64{0, 0.01, 0.02}, Inconclusive},
	} {
		f := observeBreakEvenRecall(breakEvenRows(seeds, mr, dr, c.drRecall, 0))
		if f.Verdict != c.want {
			t.Errorf("%s: verdict %q, want %q; details %q", c.name, f.Verdict, c.want, f.Details)
		}
	}
	// Break-even at K = 10⁶, beyond the K where retrieval was measured.
	if f := observeBreakEvenRecall(breakEvenRows(seeds, mr, []float64{0.1, 0.1, 0.1}, []float64{0, 0, 0}, 0)); f.Verdict != NotMeasured {
		t.Errorf("beyond: verdict %q, want %q", f.Verdict, NotMeasured)
	}
}

func TestBreakEvenFigure(t *testing.T) {
	rows := breakEvenRows([]uint64{1, 101}, []float64{1e-7, 1.2e-7}, []float64{1e-2, 1e-2}, []float64{0.1, 0.2}, 0)
	f := breakEvenFigure(rows)
	if f.Rows != 3 || f.Cols != 1 || len(f.Panels) != 3 {
		t.Fatalf("figure %d×%d with %d panels, want 3×1 with 3", f.Rows, f.Cols, len(f.Panels))
	}
	labels := map[string]bool{}
	for _, s := range f.Panels[0].Series {
		labels[s.Label] = s.Dashed
	}
	for label, dashed := range map[string]bool{"MrDAM": false, "MrDAM extrapolated as c·K (not timed)": true, "DrDAM gaussian": false,
		"break-even K (gaussian)": true} {
		if d, ok := labels[label]; !ok || d != dashed {
			t.Errorf("time panel: series %q present %v dashed %v, want dashed %v", label, ok, d, dashed)
		}
	}
	if !strings.Contains(f.Panels[0].Note, "K* gaussian") {
		t.Errorf("time panel note %q", f.Panels[0].Note)
	}
	if err := f.Encode(new(strings.Builder), "svg"); err != nil {
		t.Errorf("drawing: %v", err)
	}
}
