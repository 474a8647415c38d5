package metrics

import (
	"math"
	"testing"
)

// TestFits checks the fits on exact b/√Y data.
func TestFits(t *testing.T) {
	ys := []float64{100, 400, 1600}
	errs := []float64{0.3, 0.15, 0.075}
	if b, ok := FitInvSqrt(ys, errs); !ok || math.Abs(b-3) > 1e-12 {
		t.Errorf("FitInvSqrt = %v, %v; want 3 (exact b/√Y data)", b, ok)
	}
	if p, ok := LogSlope(ys, errs); !ok || math.Abs(p+0.5) > 1e-12 {
		t.Errorf("LogSlope = %v, %v; want −0.5", p, ok)
	}
	if _, ok := LogSlope([]float64{1, 2}, []float64{0, 1}); ok {
		t.Error("LogSlope with one positive point should fail")
	}
}

func TestEnvelopeInvSqrt(t *testing.T) {
	// err = 1/√Y except one point at twice that: the envelope is b = 2,
	// reached at that point, above every other.
	ys := []float64{100, 400, 1600}
	errs := []float64{0.1, 0.1, 0.025}
	b, ok := EnvelopeInvSqrt(ys, errs)
	if !ok || math.Abs(b-2) > 1e-12 {
		t.Errorf("EnvelopeInvSqrt = %v, %v; want 2", b, ok)
	}
	for i := range ys {
		if b/math.Sqrt(ys[i]) < errs[i]*(1-1e-12) {
			t.Errorf("envelope below point %d", i)
		}
	}
	if _, ok := EnvelopeInvSqrt([]float64{1}, []float64{math.Inf(1)}); ok {
		t.Error("no finite point: want false")
	}
}
