package plots

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

func labelled(ticks []plot.Tick) []plot.Tick {
	var out []plot.Tick
	for _, tk := range ticks {
		if tk.Label != "" {
			out = append(out, tk)
		}
	}
	return out
}

func TestLogTicks(t *testing.T) {
	lg := math.Log10
	tests := []struct {
		name   string
		lo, hi float64 // data values, not logs
		length vg.Length
		want   []string // exact labels, or nil to check only the invariants
	}{
		{"six decades", 1e-4, 1e1, 150, []string{"10^{−4}", "10^{−3}", "10^{−2}", "10^{−1}", "10^{0}", "10^{1}"}},
		{"features", 10, 1e5, 200, []string{"10^{1}", "10^{2}", "10^{3}", "10^{4}", "10^{5}"}},
		{"short axis thins", 1e-6, 1e6, 60, nil},
		{"huge range", 1e-300, 1e300, 300, []string{"10^{−300}", "10^{−200}", "10^{−100}", "10^{0}", "10^{100}", "10^{200}", "10^{300}"}},
		{"huge range, short axis", 1e-300, 1e300, 150, []string{"10^{−200}", "10^{0}", "10^{200}"}},
		{"two powers gain 2 and 5", 0.05, 1.1, 150, []string{"0.05", "0.1", "0.2", "0.5", "1"}},
		{"sub-decade", 0.3, 0.9, 150, nil},
		{"no power inside", 2e-5, 8e-5, 150, []string{"2×10^{−5}", "5×10^{−5}"}},
		{"factor 1.04", 1.01, 1.05, 150, []string{"1.01", "1.02", "1.03", "1.04", "1.05"}},
		{"factor 1.04, tiny axis", 1.01, 1.05, 20, nil},
		{"almost nothing", 1, 1 + 1e-13, 150, nil},
		{"near overflow", 1e307, math.MaxFloat64, 150, nil},
	}
	for _, tt := range tests {
		for _, vertical := range []bool{false, true} {
			tk := logTicker{style: textStyle(tickLabelSize, false), length: tt.length, vertical: vertical}
			tk.style.Handler = supHandler
			lo, hi := lg(tt.lo), lg(tt.hi)
			ticks := tk.Ticks(lo, hi)
			lab := labelled(ticks)
			var labels []string
			for _, l := range lab {
				labels = append(labels, l.Label)
			}
			if len(lab) < 2 {
				t.Errorf("%s: %d labels %q, want at least 2", tt.name, len(lab), labels)
			}
			if tt.want != nil && !vertical && !slices.Equal(labels, tt.want) {
				t.Errorf("%s: labels %q, want %q", tt.name, labels, tt.want)
			}
			for i, l := range lab {
				if l.Value < lo-1e-6 || l.Value > hi+1e-6 {
					t.Errorf("%s: tick %q at %g outside [%g, %g]", tt.name, l.Label, l.Value, lo, hi)
				}
				if i > 0 && (l.Value <= lab[i-1].Value || l.Label == lab[i-1].Label) {
					t.Errorf("%s: labels %q not increasing and distinct", tt.name, labels)
				}
			}
			// Labels never overlap, except on axes too short for two
			// labels at all, which keep the two end labels.
			if len(lab) > 2 && !tk.fits(ticks, lo, hi) {
				t.Errorf("%s (vertical %v): labels %q overlap on a %v axis", tt.name, vertical, labels, tt.length)
			}
		}
	}
}

func TestLogTicksMinor(t *testing.T) {
	tk := logTicker{style: textStyle(tickLabelSize, false), length: 300}
	ticks := tk.Ticks(0, 2) // 1 to 100
	var minor int
	for _, x := range ticks {
		if x.Label == "" {
			minor++
		}
	}
	if minor != 16 { // 2…9 in each of two decades
		t.Errorf("%d minor ticks on 1…100, want 16", minor)
	}
}

func TestLabels(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{powerLabel(-3), "10^{−3}"},
		{powerLabel(0), "10^{0}"},
		{powerLabel(12), "10^{12}"},
		{mantissaLabel(2, -2), "0.02"},
		{mantissaLabel(1, -2), "0.01"},
		{mantissaLabel(5, 3), "5000"},
		{mantissaLabel(1, 5), "10^{5}"},
		{mantissaLabel(2, -5), "2×10^{−5}"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("label %q, want %q", tt.got, tt.want)
		}
	}
}

func TestSupText(t *testing.T) {
	tests := []struct {
		in   string
		want []segment
	}{
		{"10^{−3}", []segment{{"10", false}, {"−3", true}}},
		{"2×10^{5}", []segment{{"2×10", false}, {"5", true}}},
		{"plain", []segment{{"plain", false}}},
		{"a^{b}c^{d}", []segment{{"a", false}, {"b", true}, {"c", false}, {"d", true}}},
		{"open ^{ brace", []segment{{"open ^{ brace", false}}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := segments(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("segments(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	// A superscript label is narrower than the same text set plainly, and
	// at least as tall.
	plain := textStyle(tickLabelSize, false)
	sup := plain
	sup.Handler = supHandler
	if sup.Width("10^{−3}") >= plain.Width("10−3") {
		t.Error("superscript is not set smaller")
	}
	if sup.Height("10^{−3}") < plain.Height("10") {
		t.Error("superscript label is shorter than plain text")
	}
	if sup.Width("abc") != plain.Width("abc") {
		t.Error("text without superscripts is measured differently")
	}
}
