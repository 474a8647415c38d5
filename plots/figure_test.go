package plots

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// demoPanel returns a log-log panel with nb β lines with error bars, their
// fits, a bound, a band and a random-guess line.
func demoPanel(title string, nb int) Panel {
	p := Panel{Title: title, XLabel: "random features Y", YLabel: "energy MAE", LogX: true, LogY: true}
	xs := []float64{1e1, 1e2, 1e3, 1e4, 1e5}
	for b := range nb {
		var y, e, fit []float64
		for _, x := range xs {
			v := float64(b+1) / math.Sqrt(x)
			y = append(y, v)
			e = append(e, v/4)
			fit = append(fit, v*1.1)
		}
		label := "β = " + string(rune('1'+b))
		p.Series = append(p.Series,
			Series{Label: label, X: xs, Y: y, Err: e, Style: b},
			Series{Label: "fit " + label, X: xs, Y: fit, Style: b, Dashed: true})
	}
	bound := []float64{3, 1, 0.3, 0.1, 0.03}
	p.Series = append(p.Series, Series{Label: "bound", X: xs, Y: bound, Style: 7, Dark: true})
	p.Bands = []Band{{Label: "gap", X: xs, Lo: []float64{1, 0.3, 0.1, 0.03, 0.01}, Hi: bound, Style: 3}}
	p.HLines = []HLine{{Label: "random guess", Y: 2}}
	return p
}

func demoFigure(rows, cols int) *Figure {
	f := &Figure{Title: "Demo figure title", Rows: rows, Cols: cols}
	for i := range rows * cols {
		f.Panels = append(f.Panels, demoPanel("panel "+string(rune('A'+i)), 4))
	}
	return f
}

func TestSaveFormats(t *testing.T) {
	dir := t.TempDir()
	f := demoFigure(1, 2)
	tests := []struct {
		ext   string
		check func(t *testing.T, data []byte)
	}{
		{".png", func(t *testing.T, data []byte) {
			if _, err := png.Decode(bytes.NewReader(data)); err != nil {
				t.Errorf("PNG does not decode: %v", err)
			}
		}},
		{".svg", func(t *testing.T, data []byte) {
			s := string(data)
			if !strings.HasPrefix(s, "<?xml") && !strings.HasPrefix(s, "<svg") {
				t.Errorf("SVG starts with %q", s[:min(len(s), 20)])
			}
			for _, want := range []string{"Demo figure title", "panel A", "random guess", "energy MAE"} {
				if !strings.Contains(s, want) {
					t.Errorf("SVG lacks %q", want)
				}
			}
		}},
		{".pdf", func(t *testing.T, data []byte) {
			if !bytes.HasPrefix(data, []byte("%PDF")) {
				t.Errorf("PDF starts with %q", data[:min(len(data), 8)])
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.ext, func(t *testing.T) {
			path := filepath.Join(dir, "fig"+tt.ext)
			if err := f.Save(path); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, data)
		})
	}
}

func TestSaveAll(t *testing.T) {
	base := filepath.Join(t.TempDir(), "fig")
	if err := demoFigure(1, 1).SaveAll(base); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".png", ".svg"} {
		if fi, err := os.Stat(base + ext); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", base+ext, err)
		}
	}
}

func TestPNGSize(t *testing.T) {
	tests := []struct {
		name       string
		rows, cols int
		pw, ph     vg.Length
		dpi        int
	}{
		{"3x3 defaults", 3, 3, 0, 0, 0},
		{"1x2 small", 1, 2, 2 * vg.Inch, 1.5 * vg.Inch, 100},
		{"2x1 large", 2, 1, 5 * vg.Inch, 4 * vg.Inch, 72},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := demoFigure(tt.rows, tt.cols)
			f.PanelWidth, f.PanelHeight, f.DPI = tt.pw, tt.ph, tt.dpi
			var buf bytes.Buffer
			if err := f.Encode(&buf, "png"); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			pw, ph, dpi := tt.pw, tt.ph, float64(tt.dpi)
			if pw == 0 {
				pw, ph = DefaultPanelWidth, DefaultPanelHeight
			}
			if dpi == 0 {
				dpi = DefaultDPI
			}
			px := func(l vg.Length) int { return int(l.Dots(dpi) + 0.5) }
			// The width is the grid plus a margin on each side, exactly.
			if got, want := img.Bounds().Dx(), px(vg.Length(tt.cols)*pw+2*figMargin); got != want {
				t.Errorf("width = %d px, want %d", got, want)
			}
			// The height adds to the grid and margins the title, one 14 pt
			// line (about 0.25 in with its gap), and the legend strip: at
			// least one row of 10 pt text, at most one row per entry
			// (12 pt each, with the gaps) when the figure is too narrow
			// for two entries side by side.
			grid := vg.Length(tt.rows)*ph + 2*figMargin
			entries := vg.Length(len(collectLegend(f.Panels)))
			lo, hi := px(grid+0.2*vg.Inch+12), px(grid+0.3*vg.Inch+14*entries)
			if got := img.Bounds().Dy(); got < lo || got > hi {
				t.Errorf("height = %d px, want %d…%d", got, lo, hi)
			}
		})
	}
	// The brief's reference point: 3×3 default panels ≈ 1500×1300 px.
	var buf bytes.Buffer
	if err := demoFigure(3, 3).Encode(&buf, "png"); err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Width < 1400 || cfg.Width > 1600 || cfg.Height < 1200 || cfg.Height > 1450 {
		t.Errorf("3×3 figure is %d×%d px, want about 1500×1300", cfg.Width, cfg.Height)
	}
}

func TestLogAxesOmitNonPositive(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name      string
		panel     Panel
		nonPos    int
		nonFinite int
		note      string
	}{
		{
			name: "zeros and negatives on log Y",
			panel: Panel{LogX: true, LogY: true, Series: []Series{
				{Label: "a", X: []float64{1, 10, 100, 1000}, Y: []float64{0, -1, 0.5, 0.1}},
			}},
			nonPos: 2, note: "2 points ≤ 0 not shown",
		},
		{
			name: "zero on log X, one point",
			panel: Panel{LogX: true, LogY: true, Series: []Series{
				{Label: "a", X: []float64{0, 10}, Y: []float64{1, 2}},
			}},
			nonPos: 1, note: "1 point ≤ 0 not shown",
		},
		{
			name: "NaN and Inf anywhere",
			panel: Panel{Series: []Series{
				{Label: "a", X: []float64{1, nan, 3, 4}, Y: []float64{1, 2, inf, -inf}},
			}},
			nonFinite: 3, note: "3 points NaN/Inf not shown",
		},
		{
			name: "both, with bands and hlines",
			panel: Panel{LogY: true,
				Series: []Series{{Label: "a", X: []float64{1, 2, 3}, Y: []float64{nan, -2, 3}}},
				Bands:  []Band{{X: []float64{1, 2}, Lo: []float64{0, 1}, Hi: []float64{2, 3}}},
				HLines: []HLine{{Y: -1}, {Y: 0.5}},
			},
			nonPos: 3, nonFinite: 1, note: "3 points ≤ 0 and 1 NaN/Inf not shown",
		},
		{
			name: "own note wins",
			panel: Panel{LogY: true, Note: "mine",
				Series: []Series{{Label: "a", X: []float64{1, 2}, Y: []float64{0, 1}}}},
			nonPos: 1, note: "mine",
		},
		{
			name:  "linear axes keep non-positive values",
			panel: Panel{Series: []Series{{Label: "a", X: []float64{-1, 0, 1}, Y: []float64{0, -5, 1}}}},
			note:  "",
		},
		{
			name:  "nothing at all",
			panel: Panel{Title: "empty", LogX: true, LogY: true},
			note:  "no data",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := cleanPanel(&tt.panel)
			if err != nil {
				t.Fatal(err)
			}
			if d.nonPos != tt.nonPos || d.nonFinite != tt.nonFinite {
				t.Errorf("left out %d ≤ 0 and %d non-finite, want %d and %d", d.nonPos, d.nonFinite, tt.nonPos, tt.nonFinite)
			}
			if got := d.note(); got != tt.note {
				t.Errorf("note = %q, want %q", got, tt.note)
			}
			// The whole figure renders, and the note is in it.
			f := &Figure{Title: "t", Rows: 1, Cols: 1, Panels: []Panel{tt.panel}}
			var buf bytes.Buffer
			if err := f.Encode(&buf, "svg"); err != nil {
				t.Fatal(err)
			}
			if tt.note != "" && !strings.Contains(buf.String(), tt.note) {
				t.Errorf("SVG lacks the note %q", tt.note)
			}
		})
	}
}

func TestErrorBarClipping(t *testing.T) {
	tests := []struct {
		y, e   float64
		log    bool
		lo, hi float64 // distances below and above y
	}{
		{1, 0.5, true, 0.5, 0.5},
		{1, 2, true, 0.9, 2}, // lower end 1-2 ≤ 0: cut at y/10
		{1, 1, true, 0.9, 1}, // lower end exactly 0
		{1, 2, false, 2, 2},  // linear axes draw it as is
		{1, -0.5, true, 0.5, 0.5},
		{1, math.NaN(), true, 0, 0},
		{1, math.Inf(1), false, 0, 0},
		{math.MaxFloat64, math.MaxFloat64, false, math.MaxFloat64, 0}, // upper end overflows
		{5e-324, 1, true, 0, 1}, // y/10 underflows
	}
	for _, tt := range tests {
		lo, hi := errorBar(tt.y, tt.e, tt.log)
		if math.Abs(lo-tt.lo) > 1e-12 || hi != tt.hi {
			t.Errorf("errorBar(%g, %g, %v) = %g, %g, want %g, %g", tt.y, tt.e, tt.log, lo, hi, tt.lo, tt.hi)
		}
		if tt.log && !(tt.y-lo > 0) {
			t.Errorf("errorBar(%g, %g, log): lower end %g ≤ 0", tt.y, tt.e, tt.y-lo)
		}
	}
}

func TestValidation(t *testing.T) {
	ok := Panel{Title: "fine", Series: []Series{{X: []float64{1}, Y: []float64{1}}}}
	tests := []struct {
		name string
		fig  Figure
		want []string // substrings of the error
	}{
		{"zero rows", Figure{Rows: 0, Cols: 1}, []string{"Rows and Cols"}},
		{"negative cols", Figure{Rows: 1, Cols: -2}, []string{"Rows and Cols"}},
		{"too few panels", Figure{Rows: 2, Cols: 2, Panels: []Panel{ok}}, []string{"needs 4 panels, have 1"}},
		{"too many panels", Figure{Rows: 1, Cols: 1, Panels: []Panel{ok, ok}}, []string{"needs 1 panels, have 2"}},
		{"X and Y lengths", Figure{Rows: 1, Cols: 2, Panels: []Panel{ok, {Title: "near, D = 64",
			Series: []Series{ok.Series[0], {Label: "β = 10", X: []float64{1, 2}, Y: []float64{1}}}}}},
			[]string{`panel 1 (row 0, col 1) "near, D = 64"`, `series 1 "β = 10"`, "len(X) = 2, len(Y) = 1"}},
		{"Err length", Figure{Rows: 2, Cols: 1, Panels: []Panel{ok, {Title: "far",
			Series: []Series{{Label: "fit", X: []float64{1, 2}, Y: []float64{1, 2}, Err: []float64{1}}}}}},
			[]string{`panel 1 (row 1, col 0) "far"`, `series 0 "fit"`, "len(Err) = 1"}},
		{"band lengths", Figure{Rows: 1, Cols: 1, Panels: []Panel{{Title: "p",
			Bands: []Band{{Label: "gap", X: []float64{1, 2}, Lo: []float64{1, 2}, Hi: []float64{1}}}}}},
			[]string{`panel 0 (row 0, col 0) "p"`, `band 0 "gap"`, "len(Hi) = 1"}},
		{"negative size", Figure{Rows: 1, Cols: 1, Panels: []Panel{ok}, PanelWidth: -1}, []string{"negative panel size"}},
		{"negative DPI", Figure{Rows: 1, Cols: 1, Panels: []Panel{ok}, DPI: -1}, []string{"negative DPI"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "fig.png")
			err := tt.fig.Save(path)
			if err == nil {
				t.Fatal("Save succeeded")
			}
			for _, w := range append(tt.want, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("failed Save left %d files", len(entries))
			}
		})
	}
}

func TestSaveAtomic(t *testing.T) {
	f := demoFigure(1, 1)

	t.Run("missing directory", func(t *testing.T) {
		parent := t.TempDir()
		path := filepath.Join(parent, "no", "such", "dir", "fig.png")
		err := f.Save(path)
		if err == nil {
			t.Fatal("Save into a missing directory succeeded")
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("error %q does not name %s", err, path)
		}
		if entries, _ := os.ReadDir(parent); len(entries) != 0 {
			t.Errorf("parent holds %d entries after the failed save", len(entries))
		}
	})

	t.Run("unsupported extension", func(t *testing.T) {
		dir := t.TempDir()
		for _, name := range []string{"fig.gif", "fig"} {
			path := filepath.Join(dir, name)
			if err := f.Save(path); err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("Save(%s) = %v, want an error naming the path", name, err)
			}
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("dir holds %d entries after failed saves", len(entries))
		}
	})

	t.Run("replace existing file", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "fig.svg")
		if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := f.Save(path); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		if !strings.Contains(string(data), "<svg") {
			t.Error("file was not replaced by the figure")
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Errorf("dir holds %v, want only fig.svg", names)
		}
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm() != 0o644 {
			t.Errorf("mode %v, want 0644", fi.Mode().Perm())
		}
	})

	t.Run("failed save keeps the old file", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "fig.png")
		if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		bad := &Figure{Rows: 1, Cols: 1} // no panels
		if err := bad.Save(path); err == nil {
			t.Fatal("Save of an invalid figure succeeded")
		}
		if data, _ := os.ReadFile(path); string(data) != "old" {
			t.Errorf("old file changed to %d bytes", len(data))
		}
	})
}

func TestPaletteDistinct(t *testing.T) {
	seen := map[[3]uint8]int{}
	for s := range PaletteSize {
		c := Color(s)
		if c.A != 0xFF {
			t.Errorf("Style %d is not opaque", s)
		}
		k := [3]uint8{c.R, c.G, c.B}
		if prev, dup := seen[k]; dup {
			t.Errorf("Styles %d and %d have the same colour %v", prev, s, c)
		}
		seen[k] = s
		if c == baselineColor {
			t.Errorf("Style %d has the baseline's red", s)
		}
	}
	if PaletteSize < 8 {
		t.Errorf("palette has %d colours, want at least 8", PaletteSize)
	}
	if Color(PaletteSize) != Color(0) || Color(-1) != Color(PaletteSize-1) {
		t.Error("Style indices do not wrap around")
	}
	// Marker shapes differ too, so that lines stay apart in greyscale.
	for i := range glyphs {
		for j := range i {
			if glyphs[i] == glyphs[j] {
				t.Errorf("Styles %d and %d share a marker", i, j)
			}
		}
	}
}

func TestLegend(t *testing.T) {
	panels := []Panel{
		{Series: []Series{
			{Label: "β = 1", Style: 0}, {Label: "β = 10", Style: 1},
			{Label: "β = 1", Style: 0, Dashed: true}, // a fit: its own entry
			{Label: "", Style: 2},                    // no entry
			{Label: "bound", Style: 7, Dark: true},
		}, HLines: []HLine{{Label: "random guess", Y: 1}}},
		{Series: []Series{
			{Label: "β = 10", Style: 1}, {Label: "β = 1", Style: 0}, // repeated: no new entries
			{Label: "β = 100", Style: 2},
		}, HLines: []HLine{{Label: "random guess", Y: 2}},
			Bands: []Band{{Label: "gap", Style: 3}, {Label: "gap", Style: 3}}},
	}
	got := collectLegend(panels)
	want := []legendEntry{
		{kind: kindSeries, label: "β = 1", style: 0},
		{kind: kindSeries, label: "β = 10", style: 1},
		{kind: kindSeries, label: "β = 100", style: 2},
		{kind: kindFit, label: "β = 1", style: 0},
		{kind: kindBound, label: "bound", style: 7},
		{kind: kindBand, label: "gap", style: 3},
		{kind: kindHLine, label: "random guess"},
	}
	if len(got) != len(want) {
		t.Fatalf("legend has %d entries %v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, got[i], want[i])
		}
	}

	// Groups start new rows: series, fits, then the references together.
	l := layoutLegend(got, 10*vg.Inch)
	if len(l.rows) != 3 || len(l.rows[0]) != 3 || len(l.rows[1]) != 1 || len(l.rows[2]) != 3 {
		t.Errorf("legend rows %v, want 3 rows of 3, 1 and 3 entries", l.rows)
	}
	// A narrow strip wraps rows.
	if l := layoutLegend(got, 1*vg.Inch); len(l.rows) != len(got) {
		t.Errorf("1-inch legend has %d rows, want one entry a row (%d)", len(l.rows), len(got))
	}
	if l := layoutLegend(nil, 10*vg.Inch); l.height != 0 {
		t.Errorf("empty legend takes %v", l.height)
	}
}

func TestShareRanges(t *testing.T) {
	f := &Figure{Rows: 1, Cols: 3, ShareY: true, Panels: []Panel{
		{LogY: true, Series: []Series{{X: []float64{1, 2}, Y: []float64{1e-3, 1e-2}}}},
		{LogY: true, Series: []Series{{X: []float64{5, 6}, Y: []float64{1, 10}}}},
		{Series: []Series{{X: []float64{1, 2}, Y: []float64{-5, 5}}}}, // linear: pooled apart
	}}
	l, err := f.layout()
	if err != nil {
		t.Fatal(err)
	}
	p0, p1, p2 := l.panels[0].plot, l.panels[1].plot, l.panels[2].plot
	if p0.Y.Min != p1.Y.Min || p0.Y.Max != p1.Y.Max || p0.Y.Min != -3 || p0.Y.Max != 1 {
		t.Errorf("log panels' Y ranges [%g, %g] and [%g, %g], want both [-3, 1] (log10)", p0.Y.Min, p0.Y.Max, p1.Y.Min, p1.Y.Max)
	}
	if p2.Y.Min != -5 || p2.Y.Max != 5 {
		t.Errorf("linear panel's Y range [%g, %g], want [-5, 5]", p2.Y.Min, p2.Y.Max)
	}
	if p0.X.Min == p1.X.Min {
		t.Error("X ranges shared without ShareX")
	}
	f.ShareX = true
	if l, err = f.layout(); err != nil {
		t.Fatal(err)
	}
	for i, pp := range l.panels {
		if pp.plot.X.Min != 1 || pp.plot.X.Max != 6 {
			t.Errorf("panel %d X range [%g, %g], want [1, 6]", i, pp.plot.X.Min, pp.plot.X.Max)
		}
	}
}

// TestNoPanic renders awkward inputs; none may panic or fail.
func TestNoPanic(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	big, tiny := math.MaxFloat64, math.SmallestNonzeroFloat64
	panels := []Panel{
		{},                 // empty cell
		{Title: "no data"}, // linear, nothing
		{Title: "log, no data", LogX: true, LogY: true, HLines: []HLine{{Y: -1}}},
		{Title: "all NaN", LogY: true, Series: []Series{{X: []float64{nan, nan}, Y: []float64{nan, 1}, Err: []float64{nan, nan}}}},
		{Title: "one point", LogX: true, LogY: true, Series: []Series{{Label: "p", X: []float64{3}, Y: []float64{3}, Err: []float64{10}}}},
		{Title: "one dashed point", Series: []Series{{Label: "f", X: []float64{0}, Y: []float64{0}, Dashed: true, Dark: true}}},
		{Title: "extremes log", LogX: true, LogY: true, Series: []Series{{X: []float64{tiny, 1, big}, Y: []float64{tiny, big, 1}, Err: []float64{big, big, big}}}},
		{Title: "extremes linear", Series: []Series{{X: []float64{-big, big}, Y: []float64{-big, big}, Err: []float64{big, big}}}},
		{Title: "infinite everything", LogY: true, Series: []Series{{X: []float64{inf, -inf}, Y: []float64{-inf, inf}}}, HLines: []HLine{{Y: inf}}},
		{Title: "tiny log span", LogY: true, Series: []Series{{X: []float64{1, 2}, Y: []float64{1, 1 + 1e-15}}}},
		{Title: "constant", Series: []Series{{X: []float64{2, 2}, Y: []float64{-7, -7}}}},
		{Title: "band only", LogY: true, Bands: []Band{{X: []float64{1, 2, 3}, Lo: []float64{-1, 1, 2}, Hi: []float64{2, nan, 4}, Style: -3}}},
		{Title: "huge style", Series: []Series{{Label: "s", X: []float64{1, 2}, Y: []float64{1, 2}, Style: math.MaxInt}, {Label: "s", X: []float64{1, 2}, Y: []float64{2, 1}, Style: math.MinInt}}},
		{Title: "empty series", Series: []Series{{Label: "e"}, {}}, Bands: []Band{{}}},
		{Title: "", Note: "note only"},
		{Title: "unsorted", LogX: true, Series: []Series{{X: []float64{100, 1, 10}, Y: []float64{1, 3, 2}}}},
	}
	for _, share := range []bool{false, true} {
		f := &Figure{Title: "awkward", Rows: 4, Cols: 4, Panels: panels, ShareX: share, ShareY: share, DPI: 30,
			PanelWidth: 1.2 * vg.Inch, PanelHeight: 0.8 * vg.Inch}
		for _, format := range []string{"png", "svg"} {
			var buf bytes.Buffer
			if err := f.Encode(&buf, format); err != nil {
				t.Errorf("share=%v %s: %v", share, format, err)
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	for _, format := range []string{"png", "svg"} {
		var a, b bytes.Buffer
		if err := demoFigure(2, 2).Encode(&a, format); err != nil {
			t.Fatal(err)
		}
		if err := demoFigure(2, 2).Encode(&b, format); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s output differs between two renderings of the same figure", format)
		}
	}
}
