package dam

import (
	"math"
	"strings"
	"testing"
)

// TestConditionBeta checks the bisection against the closed form for two
// patterns at distance r: at ξ¹ the gradient is (ξ¹ − ξ²)·σ(−βr²/2), of
// norm r/(1 + e^{βr²/2}), which equals tol at β* = 2·ln(r/tol − 1)/r². The
// bisection stops within a relative 10⁻⁶ of it; the gradient itself is
// exact to about 10⁻¹³ relative at this size, so 2·10⁻⁶ bounds the error.
func TestConditionBeta(t *testing.T) {
	for _, tc := range []struct{ r, tol float64 }{{0.5, 1e-3}, {1, 1e-6}, {0.1, 1e-4}} {
		x := []float64{0, 0, 0, tc.r, 0, 0} // two patterns of D = 3
		got, err := ConditionBeta(x, 3, 1e-3, 1e6, tc.tol)
		if err != nil {
			t.Fatal(err)
		}
		want := 2 * math.Log(tc.r/tc.tol-1) / (tc.r * tc.r)
		if math.Abs(got-want)/want > 2e-6 {
			t.Errorf("r = %g, tol = %g: β = %.9g, want %.9g", tc.r, tc.tol, got, want)
		}
	}
}

// TestConditionBetaRange covers the ends of the range and bad arguments.
func TestConditionBetaRange(t *testing.T) {
	x := []float64{0, 0, 0, 0.5, 0, 0}
	// β* ≈ 49.7 (see TestConditionBeta): lo = 100 is already enough.
	if b, err := ConditionBeta(x, 3, 100, 1000, 1e-3); err != nil || b != 100 {
		t.Errorf("lo above β*: %v, %v; want lo", b, err)
	}
	if _, err := ConditionBeta(x, 3, 1, 10, 1e-3); err == nil || !strings.Contains(err.Error(), "not fixed points") {
		t.Errorf("hi below β*: err = %v", err)
	}
	for _, bad := range [][3]float64{{0, 1, 1e-3}, {2, 1, 1e-3}, {1, math.Inf(1), 1e-3}, {1, 10, 0}} {
		if _, err := ConditionBeta(x, 3, bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("ConditionBeta(lo %v, hi %v, tol %v) accepted", bad[0], bad[1], bad[2])
		}
	}
	// Equal patterns are fixed points at any β.
	if b, err := ConditionBeta([]float64{1, 2, 1, 2}, 2, 0.5, 10, 1e-9); err != nil || b != 0.5 {
		t.Errorf("equal patterns: %v, %v", b, err)
	}
}
