package plots

import (
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// TestYGroups checks that ShareY shares the Y range within each YGroup
// only.
func TestYGroups(t *testing.T) {
	s := func(lo, hi float64) []Series { return []Series{{X: []float64{1, 2}, Y: []float64{lo, hi}}} }
	f := &Figure{Rows: 2, Cols: 2, ShareY: true, Panels: []Panel{
		{Series: s(0, 1)}, {Series: s(2, 3)},
		{Series: s(10, 20), YGroup: 1}, {Series: s(-5, 15), YGroup: 1},
	}}
	l, err := f.layout()
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]float64{{0, 3}, {0, 3}, {-5, 20}, {-5, 20}}
	for i, pp := range l.panels {
		if got := [2]float64{pp.plot.Y.Min, pp.plot.Y.Max}; got != want[i] {
			t.Errorf("panel %d: Y range %v, want %v", i, got, want[i])
		}
	}
}

// TestYInclude checks that the Y range covers YInclude and that values a
// log axis cannot draw are ignored without a note.
func TestYInclude(t *testing.T) {
	for _, tc := range []struct {
		name    string
		p       Panel
		min     float64
		max     float64
		hasNote bool
	}{
		{"linear", Panel{Series: []Series{{X: []float64{1, 2}, Y: []float64{0.1, 0.3}}}, YInclude: []float64{0, 0.5}}, 0, 0.5, false},
		{"inside", Panel{Series: []Series{{X: []float64{1, 2}, Y: []float64{-1, 1}}}, YInclude: []float64{0}}, -1, 1, false},
		{"log ignores 0", Panel{LogY: true, Series: []Series{{X: []float64{1, 2}, Y: []float64{0.01, 1}}}, YInclude: []float64{0, 100}}, -2, 2, false}, // log10 of powers of 10 are exact,
	} {
		f := &Figure{Rows: 1, Cols: 1, Panels: []Panel{tc.p}}
		l, err := f.layout()
		if err != nil {
			t.Fatal(err)
		}
		pl := l.panels[0].plot
		if pl.Y.Min != tc.min || pl.Y.Max != tc.max {
			t.Errorf("%s: Y range [%g, %g], want [%g, %g]", tc.name, pl.Y.Min, pl.Y.Max, tc.min, tc.max)
		}
		if got := l.panels[0].note != ""; got != tc.hasNote {
			t.Errorf("%s: note %q", tc.name, l.panels[0].note)
		}
	}
}

// TestPoints checks that a Points series is drawn without a line, in the
// plot and in the legend, and keeps its markers and error bars.
func TestPoints(t *testing.T) {
	for _, points := range []bool{false, true} {
		s := Series{Label: "β = 1", X: []float64{1, 2, 3}, Y: []float64{1, 2, 3}, Err: []float64{0.1, 0.1, 0.1}, Points: points}
		f := &Figure{Rows: 1, Cols: 1, Panels: []Panel{{Series: []Series{s}}}}
		d, err := cleanPanel(&f.Panels[0])
		if err != nil {
			t.Fatal(err)
		}
		var rec recorder
		addSeries(&rec, d.series[0])
		var lines, scatters, bars int
		for _, p := range rec {
			switch p.(type) {
			case *plotter.Line:
				lines++
			case *plotter.Scatter:
				scatters++
			case *plotter.YErrorBars:
				bars++
			}
		}
		wantLines := 1
		if points {
			wantLines = 0
		}
		if lines != wantLines || scatters != 1 || bars != 1 {
			t.Errorf("Points = %v: %d lines, %d scatters, %d error bars; want %d, 1, 1", points, lines, scatters, bars, wantLines)
		}
		e := collectLegend(f.Panels)
		if len(e) != 1 || e[0].points != points {
			t.Errorf("Points = %v: legend %+v", points, e)
		}
	}
}

// recorder records the plotters added to it.
type recorder []plot.Plotter

func (r *recorder) Add(ps ...plot.Plotter) { *r = append(*r, ps...) }

// TestCaption checks that a caption is wrapped to the grid's width and
// makes the figure taller by its height.
func TestCaption(t *testing.T) {
	w := func(s string) vg.Length { return vg.Length(len(s)) } // one point a byte
	for _, tc := range []struct {
		s     string
		width vg.Length
		want  []string
	}{
		{"a bb ccc", 100, []string{"a bb ccc"}},
		{"a bb ccc", 5, []string{"a bb", "ccc"}}, // 1.1·4 ≤ 5 < 1.1·8
		{"aaaaaaaa b", 3, []string{"aaaaaaaa", "b"}},
		{"", 10, []string{""}},
	} {
		if got := wrap(tc.s, tc.width, w); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("wrap(%q, %v) = %q, want %q", tc.s, tc.width, got, tc.want)
		}
	}

	f := demoFigure(1, 2)
	l0, err := f.layout()
	if err != nil {
		t.Fatal(err)
	}
	f.Caption = strings.Repeat("Error bars are 95% intervals over seeds. ", 20)
	l1, err := f.layout()
	if err != nil {
		t.Fatal(err)
	}
	if len(l1.caption.lines) < 2 {
		t.Errorf("a long caption has %d lines, want it wrapped", len(l1.caption.lines))
	}
	for _, line := range l1.caption.lines {
		if 1.1*l1.caption.style.Width(line) > l1.width {
			t.Errorf("caption line %q wider than the figure", line)
		}
	}
	if got, want := l1.height-l0.height, l1.caption.height+captionGap; got != want {
		t.Errorf("caption adds %v to the height, want %v", got, want)
	}
	if err := f.Encode(new(strings.Builder), "svg"); err != nil {
		t.Error(err)
	}
}
