package metrics

import (
	"math"
	"testing"
)

func TestMAE(t *testing.T) {
	if got := EnergyMAE([]float64{1, 2, 3}, []float64{1.5, 2, 1}); got != (0.5+0+2)/3 {
		t.Errorf("EnergyMAE = %v, want %v", got, 2.5/3)
	}
	// Rows (3, 4) apart and (0, 0) apart: norms 5 and 0.
	g := []float64{1, 1, 2, 2}
	gh := []float64{4, 5, 2, 2}
	if got := GradMAE(g, gh, 2); got != 2.5 {
		t.Errorf("GradMAE = %v, want 2.5", got)
	}
	dst := make([]float64, 2)
	GradErrors(dst, g, gh, 2)
	if dst[0] != 5 || dst[1] != 0 {
		t.Errorf("GradErrors = %v, want [5 0]", dst)
	}
}

func TestBinarizeHamming(t *testing.T) {
	const d = 4 // 1/√D = 0.5, threshold 0.25
	x := []float64{0.25, 0.2499999, -1, 3}
	b := make([]float64, d)
	Binarize(b, x, d)
	if want := []float64{0.5, 0, 0, 0.5}; !equal(b, want) {
		t.Errorf("Binarize = %v, want %v", b, want)
	}
	y := []float64{0.3, 0.3, 0.3, 0.3} // binarizes to all 0.5: differs in 2 of 4
	if got := Hamming(x, y); got != 0.5 {
		t.Errorf("Hamming = %v, want 0.5", got)
	}
	// The paper's form (1/√D)·Σ|⌈x⌋ − ⌈y⌋| computed from Binarize agrees.
	by := make([]float64, d)
	Binarize(by, y, d)
	var paper float64
	for i := range b {
		paper += math.Abs(b[i]-by[i]) / math.Sqrt(d)
	}
	if math.Abs(paper-Hamming(x, y)) > 1e-15 {
		t.Errorf("paper's Δ_H = %v, Hamming = %v", paper, Hamming(x, y))
	}
	if got := MeanHamming(append(x, x...), append(y, x...), d); got != 0.25 {
		t.Errorf("MeanHamming = %v, want 0.25", got)
	}
}

func equal(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

func TestMeanStdErr(t *testing.T) {
	m, se := MeanStdErr([]float64{1, 2, 3, 4})
	// sample sd of 1..4 is √(5/3); s.e. = √(5/3)/2.
	if m != 2.5 || math.Abs(se-math.Sqrt(5.0/3)/2) > 1e-15 {
		t.Errorf("MeanStdErr = %v, %v", m, se)
	}
}

// TestBounds checks the bounds against hand-evaluated closed forms and
// against each other: with η from Corollary1Step, Theorem 1's bound is
// Corollary 1's times (1 − C2^L)·2Kβe^{β/2}/B, which tends to Corollary 1's
// from below as L and K grow.
func TestBounds(t *testing.T) {
	p := BoundParams{C1: 1, K: 2, D: 4, Y: 100, Beta: 2, E0: 0.25}
	b := 1 + 2*2*2*math.E // 1 + 2Kβe^{β/2}
	eta, l := 0.01, 3
	r := eta * 3 * b
	want := 2 * eta * 3 * 1 * 2 * math.Exp(0.5) * math.Sqrt(4.0/100) * (1 - r*r*r) / (1 - r)
	got, err := Theorem1Bound(p, eta, l)
	if err != nil || math.Abs(got-want) > 1e-14*want {
		t.Errorf("Theorem1Bound = %v, %v; want %v", got, err, want)
	}
	// ηLB = 1: the geometric factor is L.
	got, _ = Theorem1Bound(p, 1/(3*b), 3)
	if want := 2 * (1 / b) * 2 * math.Exp(0.5) * 0.2 * 3; math.Abs(got-want) > 1e-14*want {
		t.Errorf("Theorem1Bound at ηLB = 1 = %v, want %v", got, want)
	}
	cb, _ := Corollary1Bound(p, 0.5)
	if want := 0.5 * math.Exp(2*(0.25-0.5)) / (2 * 0.5) * 0.2; math.Abs(cb-want) > 1e-15 {
		t.Errorf("Corollary1Bound = %v, want %v", cb, want)
	}
	for _, l := range []int{1, 10, 100} {
		eta, _ := Corollary1Step(p, 0.5, l)
		tb, _ := Theorem1Bound(p, eta, l)
		ratio := (1 - math.Pow(0.5, float64(l))) * (b - 1) / b
		if math.Abs(tb-cb*ratio) > 1e-12*cb {
			t.Errorf("L = %d: Theorem 1 with Corollary 1's step = %v, want %v", l, tb, cb*ratio)
		}
		if tb > cb {
			t.Errorf("L = %d: Theorem 1's bound %v exceeds Corollary 1's %v", l, tb, cb)
		}
	}
	// Y^(−1/2) scaling.
	p4 := p
	p4.Y = 400
	c4, _ := Corollary1Bound(p4, 0.5)
	if math.Abs(c4-cb/2) > 1e-15 {
		t.Errorf("quadrupling Y changes the bound from %v to %v, want half", cb, c4)
	}
	if _, err := Corollary1Bound(p, 1); err == nil {
		t.Error("C2 = 1 accepted")
	}
	if _, err := Theorem1Bound(BoundParams{C1: 1, K: 0, D: 1, Y: 1, Beta: 1}, 0.1, 1); err == nil {
		t.Error("K = 0 accepted")
	}
}

// TestMedian: the middle value, the mean of the two middle ones for an even
// count (Python's statistics.median gives 2 and 2.5 here), NaN for none,
// and the input left as it was.
func TestMedian(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{7}, 7},
	} {
		in := append([]float64(nil), c.v...)
		if got := Median(c.v); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", in, got, c.want)
		}
		for i := range in {
			if in[i] != c.v[i] {
				t.Errorf("Median modified its input: %v, was %v", c.v, in)
			}
		}
	}
	if got := Median(nil); !math.IsNaN(got) {
		t.Errorf("Median(nil) = %v, want NaN", got)
	}
}

// TestLogTheorem1Bound checks the log-domain bound against the log of
// Theorem1Bound where that is finite (r = ηLB below, at and above 1), and
// that it stays finite where Theorem1Bound overflows. The tolerance is a
// few ulps of the logarithm (|log| ≤ ~700 here).
func TestLogTheorem1Bound(t *testing.T) {
	p := BoundParams{C1: 0.4, K: 500, D: 30, Y: 5000, Beta: 30, E0: 0.1}
	b := p.lipschitz()
	for _, c := range []struct {
		eta float64
		l   int
	}{{0.5 / (10 * b), 10}, {1 / (10 * b), 10}, {2 / (10 * b), 10}, {0.03, 10}, {1e-3, 1}, {0.03, 3}} {
		lin, err := Theorem1Bound(p, c.eta, c.l)
		if err != nil {
			t.Fatal(err)
		}
		lg, err := LogTheorem1Bound(p, c.eta, c.l)
		if err != nil || math.Abs(lg-math.Log(lin)) > 1e-12*math.Max(1, math.Abs(lg)) {
			t.Errorf("η = %g, L = %d: LogTheorem1Bound = %v, %v; log Theorem1Bound = %v", c.eta, c.l, lg, err, math.Log(lin))
		}
	}
	// η = 0.03, L = 100: (ηLB)^L overflows; the log does not.
	lin, _ := Theorem1Bound(p, 0.03, 100)
	lg, err := LogTheorem1Bound(p, 0.03, 100)
	if !math.IsInf(lin, 1) || err != nil || math.IsInf(lg, 0) || math.IsNaN(lg) || lg < 709 {
		t.Errorf("L = 100: Theorem1Bound = %v, LogTheorem1Bound = %v, %v; want +Inf and a finite log above 709", lin, lg, err)
	}
	if _, err := LogTheorem1Bound(p, 0, 10); err == nil {
		t.Error("η = 0 accepted")
	}
}
