package imageio

import (
	"math"
	"slices"
	"testing"
)

// hiddenPixels returns the hidden pixels of a mask as r·w + c, checking
// that the three channels of every pixel agree.
func hiddenPixels(t *testing.T, m []bool, h, w int) []int {
	t.Helper()
	if len(m) != h*w*3 {
		t.Fatalf("mask has %d entries, want %d", len(m), h*w*3)
	}
	var px []int
	for p := range h * w {
		if m[3*p] != m[3*p+1] || m[3*p] != m[3*p+2] {
			t.Fatalf("pixel %d: channels disagree: %v", p, m[3*p:3*p+3])
		}
		if !m[3*p] {
			px = append(px, p)
		}
	}
	return px
}

func TestOccludeBottom(t *testing.T) {
	for _, tc := range []struct {
		h, w int
		frac float64
		rows int
	}{
		{64, 64, 2.0 / 3, 43}, // Fig. 1: 42.67 rows
		{32, 32, 2.0 / 3, 21},
		{64, 64, 0.4, 26}, // Fig. 2: 25.6
		{64, 64, 0.6, 38}, // 38.4
		{64, 64, 0.5, 32}, // Fig. 4B
		{5, 3, 0.5, 3},    // 2.5 rounds away from zero
		{8, 4, 0, 0},
		{8, 4, 1, 8},
	} {
		m := OccludeBottom(tc.h, tc.w, tc.frac)
		px := hiddenPixels(t, m, tc.h, tc.w)
		if len(px) != tc.rows*tc.w || Hidden(m) != 3*tc.rows*tc.w {
			t.Errorf("%d×%d, frac %v: %d hidden pixels, want %d rows = %d", tc.h, tc.w, tc.frac, len(px), tc.rows, tc.rows*tc.w)
			continue
		}
		for _, p := range px {
			if p/tc.w < tc.h-tc.rows {
				t.Errorf("%d×%d, frac %v: pixel (row %d, col %d) hidden above the bottom %d rows", tc.h, tc.w, tc.frac, p/tc.w, p%tc.w, tc.rows)
				break
			}
		}
	}
}

func TestOccludeRandom(t *testing.T) {
	for _, tc := range []struct {
		h, w int
		frac float64
		want int
	}{
		{64, 64, 0.5, 2048}, {32, 32, 0.25, 256}, {3, 5, 0.1, 2}, {4, 4, 0, 0}, {4, 4, 1, 16}, {7, 3, 2.0 / 3, 14},
	} {
		a := OccludeRandom(7, tc.h, tc.w, tc.frac)
		if got := len(hiddenPixels(t, a, tc.h, tc.w)); got != tc.want {
			t.Errorf("%d×%d, frac %v: %d hidden pixels, want %d", tc.h, tc.w, tc.frac, got, tc.want)
		}
		if b := OccludeRandom(7, tc.h, tc.w, tc.frac); !slices.Equal(a, b) {
			t.Errorf("%d×%d, frac %v: two masks from seed 7 differ", tc.h, tc.w, tc.frac)
		}
	}
	a, b := OccludeRandom(1, 32, 32, 0.5), OccludeRandom(2, 32, 32, 0.5)
	if slices.Equal(a, b) {
		t.Error("seeds 1 and 2 give the same mask")
	}
	// Spread: each quarter of the image (256 pixels) gets about a quarter
	// of the 512 hidden pixels (128 ± 30; the standard deviation is 7).
	var quarter [4]int
	for _, p := range hiddenPixels(t, a, 32, 32) {
		quarter[2*(p/32/16)+(p%32)/16]++
	}
	for q, n := range quarter {
		if n < 98 || n > 158 {
			t.Errorf("quarter %d has %d of the 512 hidden pixels, want about 128", q, n)
		}
	}
}

func TestOccludeBox(t *testing.T) {
	const h, w = 6, 8
	for _, tc := range []struct {
		name                 string
		top, left, bh, bw    int
		rows0, rows1, c0, c1 int // hidden rows [rows0, rows1) × cols [c0, c1)
	}{
		{"inside", 1, 2, 3, 4, 1, 4, 2, 6},
		{"whole image", 0, 0, h, w, 0, h, 0, w},
		{"past bottom right", 4, 6, 10, 10, 4, h, 6, w},
		{"past top left", -2, -3, 4, 5, 0, 2, 0, 2},
		{"outside", 6, 0, 2, 2, 0, 0, 0, 0},
		{"outside left", 0, -5, 3, 5, 0, 0, 0, 0},
		{"empty", 1, 1, 0, 3, 0, 0, 0, 0},
		{"negative", 1, 1, -2, 3, 0, 0, 0, 0},
		{"huge", 2, 3, math.MaxInt, math.MaxInt, 2, h, 3, w},
	} {
		m := OccludeBox(h, w, tc.top, tc.left, tc.bh, tc.bw)
		px := hiddenPixels(t, m, h, w)
		var want []int
		for r := tc.rows0; r < tc.rows1; r++ {
			for c := tc.c0; c < tc.c1; c++ {
				want = append(want, r*w+c)
			}
		}
		if !slices.Equal(px, want) {
			t.Errorf("%s: hidden pixels %v, want %v", tc.name, px, want)
		}
	}
}

func TestMaskPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"frac > 1":    func() { OccludeBottom(4, 4, 1.5) },
		"frac < 0":    func() { OccludeRandom(1, 4, 4, -0.1) },
		"frac NaN":    func() { OccludeBottom(4, 4, math.NaN()) },
		"zero height": func() { OccludeBox(0, 4, 0, 0, 1, 1) },
		"Apply sizes": func() { Apply(make([]float64, 6), make([]float64, 7), make([]bool, 3), 0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestApply(t *testing.T) {
	visible := []bool{true, false, true}
	x := []float64{1, 2, 3, 4, 5, 6} // two rows
	dst := make([]float64, 6)
	Apply(dst, x, visible, 0)
	if want := []float64{1, 0, 3, 4, 0, 6}; !slices.Equal(dst, want) {
		t.Errorf("Apply = %v, want %v", dst, want)
	}
	Apply(x, x, visible, -1) // in place
	if want := []float64{1, -1, 3, 4, -1, 6}; !slices.Equal(x, want) {
		t.Errorf("Apply in place = %v, want %v", x, want)
	}
}
