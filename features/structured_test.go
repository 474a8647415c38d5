package features

import (
	"math"
	"testing"

	"github.com/drdam/drdam/internal/rng"
)

// TestSORFStructure: with D = N (a power of two) each block W_b = S·H D₁ H
// D₂ H D₃ has orthogonal rows whose squared norms are the χ²(N) draws S_ii²:
// W_b·W_bᵀ = S² (to rounding: 1e-12 relative); over the 150 rows the mean
// squared norm is N within 5 standard errors (√(2N/150)).
func TestSORFStructure(t *testing.T) {
	const d, y = 64, 150 // N = 64, three blocks, the last truncated
	s, err := NewSORF(3, y, d)
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 64 || s.Blocks() != 3 {
		t.Fatalf("N = %d, %d blocks; want 64, 3", s.N, s.Blocks())
	}
	w := make([]float64, y*d)
	s.Rows(w, 0, y)
	for b := range s.Blocks() {
		for i := b * d; i < min(y, (b+1)*d); i++ {
			for j := b * d; j <= i; j++ {
				got := dotFMA(w[i*d:(i+1)*d], w[j*d:(j+1)*d])
				want := 0.0
				if i == j {
					sii := s.Scale[i] * math.Pow(float64(s.N), 1.5)
					want = sii * sii
				}
				if math.Abs(got-want) > 1e-12*d {
					t.Fatalf("block %d rows %d, %d: dot %v, want %v", b, i, j, got, want)
				}
			}
		}
	}
	var msq float64
	for i := range y {
		msq += dotFMA(w[i*d:(i+1)*d], w[i*d:(i+1)*d]) / y
	}
	if math.Abs(msq-d) > 5*math.Sqrt(2.0*d/y) {
		t.Errorf("mean squared row norm %v, want %v (χ²(N) mean)", msq, d)
	}
	// Blocks differ.
	same := 0
	for i := range d * d {
		if w[i] == w[d*d+i] {
			same++
		}
	}
	if same > d*d/4 {
		t.Errorf("blocks 0 and 1 share %d of %d entries", same, d*d)
	}
}

// TestSORFProducts checks Project and ProjectTAdd against the explicit
// rows (written out by Rows, an independent path through the transposed
// chain) and against each other (⟨W x, g⟩ = ⟨x, Wᵀ g⟩), with D not a power
// of two, ranges that cut blocks, and several queries. The only difference
// is float64 rounding in a different order: 1e-12 relative.
func TestSORFProducts(t *testing.T) {
	const d, y, b = 37, 200, 3 // N = 64
	s, _ := NewSORF(5, y, d)
	w := make([]float64, y*d)
	s.Rows(w, 0, y)
	st := rng.New(1, 1)
	x := make([]float64, b*d)
	st.Normals(x)
	for _, r := range [][2]int{{0, y}, {10, 70}, {64, 128}, {199, 200}} {
		lo, hi := r[0], r[1]
		m := hi - lo
		h := make([]float64, b*m)
		s.Project(h, x, lo, hi)
		for q := range b {
			for a := lo; a < hi; a++ {
				want := dotFMA(w[a*d:(a+1)*d], x[q*d:(q+1)*d])
				if got := h[q*m+a-lo]; math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("Project rows [%d, %d) query %d row %d: %v, want %v", lo, hi, q, a, got, want)
				}
			}
		}
		g := make([]float64, b*m)
		st.Normals(g)
		z := make([]float64, b*d)
		s.ProjectTAdd(z, g, lo, hi)
		for q := range b {
			var lhs, rhs float64
			for a := range m {
				lhs += h[q*m+a] * g[q*m+a]
			}
			for i := range d {
				rhs += x[q*d+i] * z[q*d+i]
			}
			if math.Abs(lhs-rhs) > 1e-10*(1+math.Abs(lhs)) {
				t.Fatalf("rows [%d, %d) query %d: ⟨Wx, g⟩ = %v, ⟨x, Wᵀg⟩ = %v", lo, hi, q, lhs, rhs)
			}
		}
	}
}

// TestSORFKernel: SinCos features on a SORF projection approximate the
// Gaussian kernel as well as on iid features at D = 256 (the bias bound
// 6z/√N of Yu et al. is small there): mean |error| below 0.02 at
// Y = 2·10⁴ over 32 pairs, the same bound the iid features meet in
// TestAllBasesUnbiased.
func TestSORFKernel(t *testing.T) {
	const d, pairs, beta, y = 256, 32, 1.0, 20000
	xs, ys := randomPairs(3, pairs, d)
	s, _ := NewSORF(11, y, d)
	m, _ := NewMap(SinCos, beta, s, NewBias(11, y))
	if mae := kernelMAE(m, xs, ys, d); mae > 0.02 {
		t.Errorf("SORF SinCos: mean |kernel error| = %.3g", mae)
	}
}

// TestSORFGolden pins the signs of seed 1 (as bits of the first 64 signs
// of each of the three diagonals of block 0).
func TestSORFGolden(t *testing.T) {
	s, _ := NewSORF(1, 100, 30)
	d1, d2, d3 := s.BlockSigns(0)
	var got [3]uint64
	for k, v := range [][]float64{d1, d2, d3} {
		for i := range 32 {
			if v[i] < 0 {
				got[k] |= 1 << i
			}
		}
	}
	want := goldenSORF
	if got != want {
		t.Errorf("SORF sign bits = %#x, want %#x", got, want)
	}
	for _, p := range goldenSORFScale {
		if g := math.Float64bits(s.Scale[p.i]); g != p.bits {
			t.Errorf("SORF Scale[%d] = %#x (%v), want %#x (%v)", p.i, g, s.Scale[p.i], p.bits, math.Float64frombits(p.bits))
		}
	}
}

// TestSORFRowNorms: the squared row norms N³·Scale² are χ²(N) draws, as
// those of Gaussian rows: over 4096 rows (N = 64) their mean is N and
// their variance 2N, within 5 standard errors (√(2N/n) for the mean;
// 2N·√(2/n)·(1 + 6/N) for the variance, χ²(N) having excess kurtosis
// 12/N). Fixed norms √N (Yu et al.'s scaling) would give variance 0.
func TestSORFRowNorms(t *testing.T) {
	const d, y = 64, 4096
	s, err := NewSORF(5, y, d)
	if err != nil {
		t.Fatal(err)
	}
	n := float64(s.N)
	var m1, m2 float64
	for _, v := range s.Scale {
		q := v * v * n * n * n
		m1 += q
		m2 += q * q
	}
	cnt := float64(len(s.Scale))
	m1 /= cnt
	variance := m2/cnt - m1*m1
	if se := math.Sqrt(2 * n / cnt); math.Abs(m1-n) > 5*se {
		t.Errorf("mean squared row norm %v, want %v ± %v", m1, n, 5*se)
	}
	if se := 2 * n * math.Sqrt(2/cnt) * (1 + 6/n); math.Abs(variance-2*n) > 5*se {
		t.Errorf("variance of squared row norms %v, want %v ± %v", variance, 2*n, 5*se)
	}
}

// TestSORFKernelUnbiased measures the mean of cos(w·δ) over the 2²⁰ rows
// w of a SORF projection (N = D = 64) for ‖δ‖ = 2, where the Gaussian
// kernel is e^{−2} = 0.1353. Rows of the fixed norm √N of Yu et al. give
// instead the kernel of a uniform direction on the sphere of radius √N,
// Γ(N/2)(2/t)^{N/2−1}J_{N/2−1}(t) with t = √N‖δ‖: 0.1267, 6% low. With
// χ(N) norms (NewSORF) the estimate must be within 4 standard errors of
// e^{−2}; with the norms fixed to √N (the scales overwritten) within 4 of
// the Bessel value, which is 13 standard errors from e^{−2}. The standard
// error is that of iid rows, √(Var cos(w·δ)/Y) = 0.00068 with
// Var = (1 + e^{−2z²})/2 − e^{−z²}; orthogonal rows only lower it.
func TestSORFKernelUnbiased(t *testing.T) {
	if testing.Short() {
		t.Skip("2²⁰ rows")
	}
	const d, y, z = 64, 1 << 20, 2.0
	s, err := NewSORF(21, y, d)
	if err != nil {
		t.Fatal(err)
	}
	delta := make([]float64, d)
	st := rng.New(22, 0)
	var nn float64
	for i := range delta {
		delta[i] = st.Normal()
		nn += delta[i] * delta[i]
	}
	for i := range delta {
		delta[i] *= z / math.Sqrt(nn)
	}
	mean := func() float64 {
		h := make([]float64, y)
		s.Project(h, delta, 0, y)
		var m float64
		for _, v := range h {
			m += math.Cos(v)
		}
		return m / y
	}
	gauss := math.Exp(-z * z / 2)
	se := math.Sqrt(((1+math.Exp(-2*z*z))/2 - math.Exp(-z*z)) / y)
	tt := math.Sqrt(float64(d)) * z
	nu := d/2 - 1
	lg, _ := math.Lgamma(float64(d) / 2)
	bessel := math.Exp(lg+float64(nu)*math.Log(2/tt)) * math.Jn(nu, tt)
	if math.Abs(bessel-gauss) < 8*se {
		t.Fatalf("test too weak: Bessel %v and Gaussian %v kernels within 8 s.e. (%v)", bessel, gauss, se)
	}
	got := mean()
	t.Logf("χ(N) norms: %.5f (e^-2 = %.5f, s.e. %.5f)", got, gauss, se)
	if math.Abs(got-gauss) > 4*se {
		t.Errorf("χ(N) norms: mean cos = %.5f, want e^-2 = %.5f ± %.5f", got, gauss, 4*se)
	}
	for i := range s.Scale {
		s.Scale[i] = 1 / float64(s.N) // √N/N^(3/2): every row of norm √N
	}
	got = mean()
	t.Logf("fixed norms: %.5f (Bessel kernel %.5f)", got, bessel)
	if math.Abs(got-bessel) > 4*se {
		t.Errorf("fixed norms: mean cos = %.5f, want the Bessel kernel %.5f ± %.5f", got, bessel, 4*se)
	}
}
