package vmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRefExp checks the test's double-double reference for exp against
// math.Exp (within its own error) and exact values.
func TestRefExp(t *testing.T) {
	if h, l := refExp(0); h != 1 || l != 0 {
		t.Errorf("refExp(0) = %g + %g", h, l)
	}
	if h, _ := refExp(1); h != math.E {
		t.Errorf("refExp(1) = %g, want %g", h, math.E)
	}
	if h, _ := refExp(-1000); h != 0 {
		t.Errorf("refExp(-1000) = %g", h)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	var worst float64
	for range 50000 {
		x := rng.Float64()*1400 - 700
		h, l := refExp(x)
		e := math.Abs(math.Exp(x)-h-l) / ulp64(h)
		if e > 2 {
			t.Fatalf("refExp(%g) = %g, math.Exp %g", x, h, math.Exp(x))
		}
		worst = max(worst, e)
	}
	t.Logf("math.Exp is within %.3g ulp of refExp on [-700, 700]", worst)
}
