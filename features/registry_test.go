package features

import (
	"math"
	"strings"
	"testing"
)

// TestBasisRegistry walks the table of bases: every basis parses from its
// name, is listed in BasisNames, has a family and one or two halves, a
// width of Halves·Y, and a normalisation whose logarithm LogNorm gives
// (to a few ulps: the two are written as separate expressions). That φ
// estimates the kernel with these facts is TestAllBasesUnbiased; that
// DrDAM computes with them is tested in package dam, which walks the same
// table.
func TestBasisRegistry(t *testing.T) {
	if len(Bases()) < 4 {
		t.Fatalf("Bases() = %v: the paper's four are missing", Bases())
	}
	for _, b := range Bases() {
		if p, err := ParseBasis(strings.ToUpper(b.String())); err != nil || p != b {
			t.Errorf("%v: ParseBasis(%q) = %v, %v", b, strings.ToUpper(b.String()), p, err)
		}
		if !strings.Contains(BasisNames(), b.String()) {
			t.Errorf("%v is not in BasisNames() = %q", b, BasisNames())
		}
		if f := b.Family(); f != Trigonometric && f != Positive {
			t.Errorf("%v: family %d", b, f)
		}
		if h := b.Halves(); (h != 1 && h != 2) || b.Width(7) != 7*h {
			t.Errorf("%v: %d halves, width %d for Y = 7", b, h, b.Width(7))
		}
		for _, y := range []int{1, 3, 1000, 123457} {
			n, ln := b.Norm(y), b.LogNorm(y)
			if !(n > 0) || math.Abs(math.Log(n)-ln) > 4e-16*math.Max(1, math.Abs(ln)) {
				t.Errorf("%v, Y = %d: Norm %v, LogNorm %v, log Norm %v", b, y, n, ln, math.Log(n))
			}
		}
		if b.UsesBias() != (b.Family() == Trigonometric) || (b.DefaultEpsilon() > 0) != (b.Family() == Trigonometric) {
			t.Errorf("%v: bias %v and ε %v do not follow its family", b, b.UsesBias(), b.DefaultEpsilon())
		}
	}
	if Basis(0).Valid() || Basis(len(bases)).Valid() || Basis(0).Family() != 0 || Basis(99).Width(3) != 3 {
		t.Error("an invalid basis looks valid")
	}
	if _, err := ParseBasis("relu"); err == nil || !strings.Contains(err.Error(), BasisNames()) {
		t.Errorf("ParseBasis(relu): %v", err)
	}
}

// TestProjectionRegistry walks the table of projection kinds: every
// seeded kind parses from its name and aliases, is listed in
// ProjectionNames, and NewProjection makes a Y×D projection that writes
// out its rows, the same for the same seed.
func TestProjectionRegistry(t *testing.T) {
	if len(ProjectionKinds()) < 3 {
		t.Fatalf("ProjectionKinds() = %v", ProjectionKinds())
	}
	for _, k := range ProjectionKinds() {
		for _, name := range append([]string{k.String()}, kinds[k].aliases...) {
			if p, err := ParseProjectionKind(name); err != nil || p != k {
				t.Errorf("%v: ParseProjectionKind(%q) = %v, %v", k, name, p, err)
			}
		}
		if !strings.Contains(ProjectionNames(), k.String()) {
			t.Errorf("%v is not in ProjectionNames() = %q", k, ProjectionNames())
		}
		p, err := NewProjection(k, 0, 3, 70, 5)
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		rs, ok := p.(RowSource)
		if y, d := p.Dims(); !ok || y != 70 || d != 5 {
			t.Fatalf("%v: %T is %d×%d, row source %v", k, p, y, d, ok)
		}
		q, _ := NewProjection(k, 0, 3, 70, 5)
		a, b := make([]float64, 70*5), make([]float64, 70*5)
		rs.Rows(a, 0, 70)
		q.(RowSource).Rows(b, 0, 70)
		var sq float64
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				t.Fatalf("%v: two projections from seed 3 differ at %d", k, i)
			}
			sq += a[i] * a[i]
		}
		// Every kind's rows have E‖ω‖² = D: 350 entries of variance ~1.
		if sq < 70*5/2 || sq > 70*5*2 {
			t.Errorf("%v: Σω² = %v over 70 rows of D = 5, want about 350", k, sq)
		}
	}
	if _, err := ParseProjectionKind("external"); err == nil {
		t.Error("ParseProjectionKind accepted external, which cannot be generated")
	}
}
