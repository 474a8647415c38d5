package metrics

import (
	"math"
	"slices"
	"testing"
)

func TestRMSE255(t *testing.T) {
	const h, w = 4, 4
	d := h * w * 3
	s := 1 / math.Sqrt(float64(d))
	a, b := make([]float64, d), make([]float64, d)
	for i := range a {
		a[i] = float64(100+i) / 255 * s
		b[i] = float64(110+i) / 255 * s // 10 gray levels brighter everywhere
	}
	if got := RMSE255(a, b, d, nil); math.Abs(got-10) > 1e-9 {
		t.Errorf("RMSE255 of a 10-level difference = %v, want 10", got)
	}
	// A 20-level difference in the bottom half only.
	mask := make([]bool, d) // the top half visible
	for i := range d / 2 {
		mask[i] = true
	}
	c := slices.Clone(a)
	for i := range c {
		if !mask[i] {
			c[i] += 20.0 / 255 * s
		}
	}
	if got := RMSE255(a, c, d, mask); math.Abs(got-20) > 1e-9 {
		t.Errorf("RMSE255 over the occluded half = %v, want 20", got)
	}
	if got, want := RMSE255(a, c, d, nil), 20/math.Sqrt2; math.Abs(got-want) > 1e-9 {
		t.Errorf("RMSE255 over the whole image = %v, want %v", got, want)
	}
	// Batches: rows of errors 10 and 20 on the occluded half.
	ab, cb := append(slices.Clone(a), a...), append(slices.Clone(b), c...)
	if got, want := RMSE255(ab, cb, d, mask), math.Sqrt((100+400)/2.0); math.Abs(got-want) > 1e-9 {
		t.Errorf("RMSE255 of a batch = %v, want %v", got, want)
	}
	if got := RMSE255(a, b, d, slices.Repeat([]bool{true}, d)); !math.IsNaN(got) {
		t.Errorf("RMSE255 with nothing occluded = %v, want NaN", got)
	}
	if got := RMSE255(a, a, d, nil); got != 0 {
		t.Errorf("RMSE255(a, a) = %v", got)
	}
}

func TestClipUnit(t *testing.T) {
	d := 4 // 1/√d = 0.5
	got := ClipUnit([]float64{-1, 0.25, 0.7, math.NaN()}, d)
	if want := []float64{0, 0.25, 0.5, 0}; !slices.Equal(got, want) {
		t.Errorf("ClipUnit = %v, want %v", got, want)
	}
}

func TestRMSE255Panics(t *testing.T) {
	for name, f := range map[string]func(){
		"sizes": func() { RMSE255(make([]float64, 6), make([]float64, 3), 3, nil) },
		"mask":  func() { RMSE255(make([]float64, 6), make([]float64, 6), 3, make([]bool, 6)) },
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
