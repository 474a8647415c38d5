package plots

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
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

// TestAligned checks that the data areas of each row and column line up,
// and the canvas tops of each row (where the titles are drawn), when the
// panels' markers and tick labels overhang their data areas differently:
// plot.Align alone leaves such panels a few points apart.
func TestAligned(t *testing.T) {
	ser := func(ys ...float64) []Series {
		return []Series{{X: []float64{1, 2, 3}, Y: ys, Err: []float64{0, 0, ys[2] / 2}, Points: true}}
	}
	f := &Figure{Rows: 2, Cols: 3, ShareX: true, Panels: []Panel{
		{Title: "top marker", LogY: true, Series: ser(1e-3, 1e-2, 1)},
		{Title: "tick at the top", LogY: true, Series: ser(1e-3, 1e-2, 9.9e-2)},
		{Title: "linear", Series: ser(0, 1, 2)},
		{Title: "", LogY: true, Series: ser(1, 2, 3)},
		{Title: "wide labels", Series: ser(-12345, 1, 67890)},
		{},
	}}
	l, err := f.layout()
	if err != nil {
		t.Fatal(err)
	}
	c := draw.New(vgimg.New(l.width, l.height))
	plots, cs := l.grid(c)
	const tol = 0.05 // points; alignData stops within 0.01
	near := func(a, b vg.Length) bool { return math.Abs(float64(a-b)) <= tol }
	for r := range plots {
		for col, p := range plots[r] {
			if p == nil {
				continue
			}
			dc := p.DataCanvas(cs[r][col])
			for r2 := range plots {
				for col2, q := range plots[r2] {
					if q == nil || r2 != r && col2 != col {
						continue
					}
					dq := q.DataCanvas(cs[r2][col2])
					if r2 == r && (!near(dc.Max.Y, dq.Max.Y) || !near(dc.Min.Y, dq.Min.Y)) {
						t.Errorf("row %d: data areas of columns %d and %d span [%v, %v] and [%v, %v]", r, col, col2, dc.Min.Y, dc.Max.Y, dq.Min.Y, dq.Max.Y)
					}
					if r2 == r && p.Title.Text != "" && q.Title.Text != "" && !near(cs[r][col].Max.Y, cs[r2][col2].Max.Y) {
						t.Errorf("row %d: titles of columns %d and %d at %v and %v", r, col, col2, cs[r][col].Max.Y, cs[r2][col2].Max.Y)
					}
					if col2 == col && (!near(dc.Min.X, dq.Min.X) || !near(dc.Max.X, dq.Max.X)) {
						t.Errorf("column %d: data areas of rows %d and %d span [%v, %v] and [%v, %v]", col, r, r2, dc.Min.X, dc.Max.X, dq.Min.X, dq.Max.X)
					}
				}
			}
		}
	}
}

func TestValueTicks(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{5000, "5k"}, {40000, "40k"}, {120000, "120k"}, {2500, "2.5k"}, {2e6, "2M"}, {1.5e6, "1.5M"},
		{650, "650"}, {1000, "1k"}, {0.25, "0.25"}, {12345, "12345"}, {1.234567, "1.235"}, {-3000, "-3k"},
	} {
		if got := compactLabel(tc.v); got != tc.want {
			t.Errorf("compactLabel(%g) = %q, want %q", tc.v, got, tc.want)
		}
	}

	// The paper's nine Y on a 170-point axis: 40k apart is 13.7 points,
	// less than a label and the gap, so every other one of the close
	// values is labelled, counting down from the largest; all get ticks.
	ys := []float64{5000, 40000, 80000, 120000, 160000, 200000, 300000, 400000, 500000}
	tk := valueTicker{values: ys, style: textStyle(tickLabelSize, false), length: 170}
	var labels []string
	ticks := tk.Ticks(5000, 500000)
	for _, x := range ticks {
		if x.Label != "" {
			labels = append(labels, x.Label)
		}
	}
	if len(ticks) != len(ys) || strings.Join(labels, " ") != "40k 120k 200k 300k 400k 500k" {
		t.Errorf("%d ticks labelled %q, want 9 labelled 40k 120k 200k 300k 400k 500k", len(ticks), labels)
	}
	// A long axis labels them all; values outside the range are left out.
	tk.length = 2000
	if ticks := tk.Ticks(30000, 500000); len(ticks) != 8 || ticks[0].Label != "40k" {
		t.Errorf("long axis: %v, want 8 labelled ticks from 40k", ticks)
	}
	// No value in range: gonum's default ticks.
	if ticks := tk.Ticks(1, 2); len(ticks) == 0 {
		t.Error("no ticks without values in the range")
	}
	// On a log axis of 170 points, the compression curve's ratios 25–400%
	// are spaced by their logarithms: 25 and 50 are 42 points apart and
	// both labelled, while 163 and 200 (8.6 points apart) are too close,
	// so only 200 of the pair is.
	lt := valueTicker{values: []float64{25, 50, 100, 163, 200, 400}, style: textStyle(tickLabelSize, false), length: 170, log: true}
	labels = labels[:0]
	for _, x := range lt.Ticks(25, 400) {
		if x.Label != "" {
			labels = append(labels, x.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "25 50 100 200 400" {
		t.Errorf("log axis labelled %q, want 25 50 100 200 400", got)
	}
}
