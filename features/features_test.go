package features

import (
	"github.com/drdam/drdam/metrics"
	"math"
	"testing"

	"github.com/drdam/drdam/internal/rng"
	"github.com/drdam/drdam/internal/simdtest"
)

// TestGolden pins the seeded projections and biases bit for bit. The values
// were produced by this package when it was written; they must not change,
// since model files store only the seed.
func TestGolden(t *testing.T) {
	cases := []struct {
		name   string
		w      []float64
		probes []goldenProbe
	}{
		{"gaussian v1 seed 1, 50×7", NewGaussian(GeneratorV1, 1, 50, 7).Matrix(), goldenGaussian},
		{"orthogonal v1 seed 1, 50×7", NewOrthogonal(GeneratorV1, 1, 50, 7).Matrix(), goldenOrthogonal},
		{"gaussian v2 seed 1, 50×7", NewGaussian(GeneratorV2, 1, 50, 7).Matrix(), goldenGaussianV2},
		{"orthogonal v2 seed 1, 50×7", NewOrthogonal(GeneratorV2, 1, 50, 7).Matrix(), goldenOrthogonalV2},
		{"bias seed 1, 50", NewBias(1, 50), goldenBias},
	}
	for _, c := range cases {
		for _, p := range c.probes {
			if got := math.Float64bits(c.w[p.i]); got != p.bits {
				t.Errorf("%s: entry %d = %v (bits %#x), want %v (bits %#x)", c.name, p.i,
					c.w[p.i], got, math.Float64frombits(p.bits), p.bits)
			}
		}
	}
}

// generators are the generator versions, for the tests that run each.
var generators = []Generator{GeneratorV1, GeneratorV2}

// TestSeedDeterminism: the same seed gives the same projection, another
// seed or generator a different one, and fewer rows give a prefix of more
// rows.
func TestSeedDeterminism(t *testing.T) {
	for _, gen := range generators {
		for _, kind := range []ProjectionKind{Gaussian, Orthogonal} {
			testSeedDeterminism(t, kind, gen)
		}
	}
	b1, b2 := NewBias(5, 30), NewBias(5, 10)
	for i := range b2 {
		if b1[i] != b2[i] {
			t.Fatalf("bias of 10 is not a prefix of bias of 30 at %d", i)
		}
	}
	for _, v := range b1 {
		if v < 0 || v >= 2*math.Pi {
			t.Fatalf("bias %v outside [0, 2π)", v)
		}
	}
}

func testSeedDeterminism(t *testing.T, kind ProjectionKind, gen Generator) {
	{
		wa, wb := materialize(kind, gen, 3, 40, 6).w, materialize(kind, gen, 3, 40, 6).w
		wc, wp := materialize(kind, gen, 4, 40, 6).w, materialize(kind, gen, 3, 13, 6).w
		wo := materialize(kind, 3-gen, 3, 40, 6).w
		same, diff, diffGen := true, 0, 0
		for i := range wa {
			if math.Float64bits(wa[i]) != math.Float64bits(wb[i]) {
				same = false
			}
			if wa[i] != wc[i] {
				diff++
			}
			if wa[i] != wo[i] {
				diffGen++
			}
		}
		if !same {
			t.Errorf("%v %v: two projections from seed 3 differ", kind, gen)
		}
		if diff < len(wa)*9/10 || diffGen < len(wa)*9/10 {
			t.Errorf("%v %v: seeds 3 and 4 share %d of %d entries, generators v1 and v2 %d", kind, gen, len(wa)-diff, len(wa), len(wa)-diffGen)
		}
		for i := range wp {
			if wp[i] != wa[i] {
				t.Fatalf("%v %v: the 13-row projection is not a prefix of the 40-row one (entry %d)", kind, gen, i)
			}
		}
	}
}

// TestOrthogonalBlocks checks that within each D×D block the rows are
// mutually orthogonal to rounding (|cos angle| < 1e-12: modified
// Gram–Schmidt loses orthogonality like ε·κ, and κ of a 64×64 Gaussian
// matrix is a few hundred at most), that rows of different blocks are not,
// and that a truncated last block keeps the first rows of a full one.
func TestOrthogonalBlocks(t *testing.T) {
	for _, gen := range generators {
		testOrthogonalBlocks(t, gen)
	}
}

func testOrthogonalBlocks(t *testing.T, gen Generator) {
	const d, y = 64, 150
	w := NewOrthogonal(gen, 7, y, d).w
	row := func(i int) []float64 { return w[i*d : (i+1)*d] }
	cos := func(a, b []float64) float64 {
		return dotFMA(a, b) / math.Sqrt(dotFMA(a, a)*dotFMA(b, b))
	}
	for blk := 0; blk*d < y; blk++ {
		for i := blk * d; i < min(y, (blk+1)*d); i++ {
			for j := blk * d; j < i; j++ {
				if c := math.Abs(cos(row(i), row(j))); c > 1e-12 {
					t.Fatalf("block %d rows %d and %d: |cos| = %g", blk, i, j, c)
				}
			}
		}
	}
	// Rows of different blocks are independent: |cos| is about 1/√d = 0.125.
	var maxc float64
	for i := range d {
		maxc = max(maxc, math.Abs(cos(row(i), row(d+i))))
	}
	if maxc < 1e-3 {
		t.Errorf("rows of blocks 0 and 1 look orthogonal (max |cos| = %g)", maxc)
	}
}

// TestOrthogonalDistribution checks two properties that distinguish ORF
// from its common mistakes, by Monte Carlo over 4000 seeds at D = 4:
//   - Haar directions: E[u₁₁] = 0 for the first unit row u = ω/‖ω‖ (QR
//     without the sign fix gives a biased first column), and E[u₁₁²] = 1/D;
//   - χ(D) norms: E‖ω‖² = D (the reference code's rows have norm √(D/Y)).
//
// Standard errors: u₁₁ has variance 1/4, so its mean has s.e. 0.0079;
// u₁₁² has variance ≤ 1/12 (s.e. 0.0046); ‖ω‖² = χ²(4) has variance 8
// (s.e. 0.045). Tolerances are 5 s.e.
func TestOrthogonalDistribution(t *testing.T) {
	const d, n = 4, 4000
	var m1, m2, nrm float64
	for seed := range uint64(n) {
		w := NewOrthogonal(DefaultGenerator, seed, d, d).w
		r := w[:d]
		l2 := dotFMA(r, r)
		u := r[0] / math.Sqrt(l2)
		m1 += u
		m2 += u * u
		nrm += l2
	}
	m1, m2, nrm = m1/n, m2/n, nrm/n
	if math.Abs(m1) > 5*0.0079 {
		t.Errorf("E[u11] = %v, want 0", m1)
	}
	if math.Abs(m2-1.0/d) > 5*0.0046 {
		t.Errorf("E[u11²] = %v, want %v", m2, 1.0/d)
	}
	if math.Abs(nrm-d) > 5*0.045 {
		t.Errorf("E‖ω‖² = %v, want %v", nrm, float64(d))
	}
}

// TestFeaturesDefinition compares Map.Features with the formulas of the
// package documentation evaluated entry by entry (an independent, naive
// computation: explicit dot products, no matrix product).
func TestFeaturesDefinition(t *testing.T) {
	const y, d, b = 37, 5, 3
	s := rng.New(1, 1)
	x := make([]float64, b*d)
	for i := range x {
		x[i] = s.Float64() / math.Sqrt(d)
	}
	proj := NewGaussian(DefaultGenerator, 2, y, d)
	bias := NewBias(2, y)
	for _, basis := range []Basis{Cos, SinCos, Exp, ExpExp} {
		for _, withBias := range []bool{true, false} {
			var bb []float64
			if withBias {
				bb = bias
			}
			const beta = 7.5
			m, err := NewMap(basis, beta, proj, bb)
			if err != nil {
				t.Fatal(err)
			}
			f := basis.Width(y)
			got := make([]float64, b*f)
			m.Features(got, x)
			for r := range b {
				xr := x[r*d : (r+1)*d]
				var sq float64
				for _, v := range xr {
					sq += v * v
				}
				for a := range y {
					var h float64
					for i := range d {
						h += proj.w[a*d+i] * xr[i]
					}
					h *= math.Sqrt(beta)
					if withBias && basis.UsesBias() {
						h += bias[a]
					}
					var want []float64 // (index, value) pairs
					switch basis {
					case Cos:
						want = []float64{float64(a), math.Sqrt(2.0/y) * math.Cos(h)}
					case SinCos:
						want = []float64{float64(a), math.Cos(h) / math.Sqrt(y), float64(y + a), math.Sin(h) / math.Sqrt(y)}
					case Exp:
						want = []float64{float64(a), math.Exp(h-beta*sq) / math.Sqrt(y)}
					case ExpExp:
						want = []float64{float64(a), math.Exp(h-beta*sq) / math.Sqrt(2*y), float64(y + a), math.Exp(-h-beta*sq) / math.Sqrt(2*y)}
					}
					for k := 0; k < len(want); k += 2 {
						g := got[r*f+int(want[k])]
						// Only the summation order of h differs: a few ulp of
						// h, times |∂φ/∂h| ≤ |φ|+1.
						if math.Abs(g-want[k+1]) > 1e-13*(1+math.Abs(want[k+1])) {
							t.Fatalf("%v bias=%v query %d feature %d: got %v, want %v", basis, withBias, r, int(want[k]), g, want[k+1])
						}
					}
				}
			}
		}
	}
}

// kernelMAE returns the mean over the pairs (x_p, y_p) of
// |φ(x_p)·φ(y_p) − exp(−β/2 ‖x_p − y_p‖²)|.
func kernelMAE(m *Map, xs, ys []float64, d int) float64 {
	y, _ := m.Dims()
	f := m.Basis.Width(y)
	const chunk = 8
	n := len(xs) / d
	var sum float64
	fx := make([]float64, chunk*f)
	fy := make([]float64, chunk*f)
	for p0 := 0; p0 < n; p0 += chunk {
		c := min(chunk, n-p0)
		m.Features(fx[:c*f], xs[p0*d:(p0+c)*d])
		m.Features(fy[:c*f], ys[p0*d:(p0+c)*d])
		for p := range c {
			var dot, dist float64
			for j := range f {
				dot += fx[p*f+j] * fy[p*f+j]
			}
			for i := range d {
				u := xs[(p0+p)*d+i] - ys[(p0+p)*d+i]
				dist += u * u
			}
			sum += math.Abs(dot - math.Exp(-m.Beta/2*dist))
		}
	}
	return sum / float64(n)
}

func randomPairs(seed uint64, n, d int) (xs, ys []float64) {
	s := rng.New(seed, 99)
	xs, ys = make([]float64, n*d), make([]float64, n*d)
	for i := range xs {
		xs[i] = s.Float64() / math.Sqrt(float64(d))
		ys[i] = s.Float64() / math.Sqrt(float64(d))
	}
	return xs, ys
}

// TestKernelErrorRate checks the O(Y^(−1/2)) convergence of SinCos features
// with iid projections to the Gaussian kernel: the least-squares slope of
// log(mean |φ(x)·φ(y) − k(x, y)|) against log Y over Y = 10³…10⁵ must lie in
// [−0.6, −0.4]. Each point averages 64 random pairs in [0, 1/√D]^D (D = 16,
// β = 10, kernel values around 0.4) and 4 seeds; the relative noise of a
// point is then about 10%, which moves the fitted slope over two decades
// by about ±0.03, well inside the band.
func TestKernelErrorRate(t *testing.T) {
	if testing.Short() {
		t.Skip("about 4 s")
	}
	const d, pairs, beta = 16, 64, 10.0
	xs, ys := randomPairs(1, pairs, d)
	ysz := []int{1000, 3000, 10000, 30000, 100000}
	var lx, ly []float64
	for _, y := range ysz {
		var mae float64
		for seed := range uint64(4) {
			m, _ := NewMap(SinCos, beta, NewGaussian(DefaultGenerator, seed, y, d), NewBias(seed, y))
			mae += kernelMAE(m, xs, ys, d) / 4
		}
		t.Logf("Y = %6d: mean |error| = %.3g", y, mae)
		lx = append(lx, float64(y))
		ly = append(ly, mae)
	}
	slope, _ := metrics.LogSlope(lx, ly)
	t.Logf("fitted slope %.3f", slope)
	if slope < -0.6 || slope > -0.4 {
		t.Errorf("log-log slope of the kernel error = %.3f, want in [−0.6, −0.4]", slope)
	}
}

// TestAllBasesUnbiased checks that every basis, with iid and orthogonal
// projections, estimates the kernel: at Y = 2·10⁴, D = 8, β = 1 the mean
// absolute error over 32 pairs is below 0.03. The largest per-feature
// relative variance is the Exp basis's exp(β‖x+y‖²) − 1 ≤ e⁴ − 1 (derived in
// ../shared/notes/anchors.md §3), typically ≈ 2.2 here, giving a standard
// deviation of about 0.01 of the kernel value at this Y.
func TestAllBasesUnbiased(t *testing.T) {
	const d, pairs, beta, y = 8, 32, 1.0, 20000
	xs, ys := randomPairs(2, pairs, d)
	for _, kind := range []ProjectionKind{Gaussian, Orthogonal} {
		proj := materialize(kind, DefaultGenerator, 11, y, d)
		for _, basis := range Bases() {
			m, _ := NewMap(basis, beta, proj, NewBias(11, y))
			if mae := kernelMAE(m, xs, ys, d); mae > 0.03 {
				t.Errorf("%v, %v: mean |kernel error| = %.3g at Y = %d", basis, kind, mae, y)
			}
		}
	}
}

func TestProjectMatchesNaive(t *testing.T) {
	const y, d, b = 23, 9, 4
	p := NewGaussian(DefaultGenerator, 5, y, d)
	s := rng.New(2, 2)
	x := make([]float64, b*d)
	g := make([]float64, b*(15-3))
	s.Normals(x)
	s.Normals(g)
	h := make([]float64, b*12)
	p.Project(h, x, 3, 15)
	out := make([]float64, b*d)
	for i := range out {
		out[i] = 1
	}
	p.ProjectTAdd(out, g, 3, 15)
	for r := range b {
		for j := range 12 {
			var want float64
			for i := range d {
				want += x[r*d+i] * p.w[(3+j)*d+i]
			}
			if math.Abs(h[r*12+j]-want) > 1e-13 {
				t.Fatalf("Project[%d,%d] = %v, want %v", r, j, h[r*12+j], want)
			}
		}
		for i := range d {
			want := 1.0
			for j := range 12 {
				want += g[r*12+j] * p.w[(3+j)*d+i]
			}
			if math.Abs(out[r*d+i]-want) > 1e-13 {
				t.Fatalf("ProjectTAdd[%d,%d] = %v, want %v", r, i, out[r*d+i], want)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	if _, err := NewDense(make([]float64, 5), 2, 3); err == nil {
		t.Error("NewDense accepted 5 values for 2×3")
	}
	if _, err := NewDense([]float64{1, math.NaN()}, 1, 2); err == nil {
		t.Error("NewDense accepted NaN")
	}
	if _, err := NewMap(SinCos, 0, NewGaussian(DefaultGenerator, 1, 2, 2), nil); err == nil {
		t.Error("NewMap accepted β = 0")
	}
	if _, err := NewMap(SinCos, 1, NewGaussian(DefaultGenerator, 1, 2, 2), []float64{1}); err == nil {
		t.Error("NewMap accepted a bias of the wrong length")
	}
	if _, err := ParseBasis("sine"); err == nil {
		t.Error("ParseBasis accepted sine")
	}
	if b, err := ParseBasis("SinCos"); err != nil || b != SinCos {
		t.Errorf("ParseBasis(SinCos) = %v, %v", b, err)
	}
	if _, err := NewProjection(Gaussian, 0, 1, 0, 3); err == nil {
		t.Error("NewProjection accepted Y = 0")
	}
	if _, err := NewProjection(External, 0, 1, 2, 3); err == nil {
		t.Error("NewProjection accepted the external kind")
	}
	for _, gen := range []Generator{3, -1} {
		if _, err := NewProjection(Gaussian, gen, 1, 2, 3); err == nil {
			t.Errorf("NewProjection accepted generator %d", int(gen))
		}
	}
}

func BenchmarkNewGaussian(b *testing.B) {
	for _, gen := range generators {
		b.Run(gen.String(), func(b *testing.B) {
			for b.Loop() {
				NewGaussian(gen, 1, 10000, 100)
			}
		})
	}
}

func BenchmarkNewOrthogonal(b *testing.B) {
	for _, gen := range generators {
		b.Run(gen.String(), func(b *testing.B) {
			for b.Loop() {
				NewOrthogonal(gen, 1, 1024, 256)
			}
		})
	}
}

// TestSeededRows: the rows a Seeded projection regenerates are bit for bit
// those of the stored projections, for any row range, and its products
// match.
func TestSeededRows(t *testing.T) {
	for _, gen := range generators {
		testSeededRows(t, gen)
	}
}

func testSeededRows(t *testing.T, gen Generator) {
	const y, d = 45, 8
	for _, kind := range []ProjectionKind{Gaussian, Orthogonal} {
		full := materialize(kind, gen, 9, y, d)
		s, err := NewSeeded(kind, gen, 9, y, d)
		if err != nil {
			t.Fatal(err)
		}
		w := full.w
		for _, r := range [][2]int{{0, y}, {3, 4}, {7, 20}, {40, 45}, {5, 5}} {
			got := make([]float64, (r[1]-r[0])*d)
			s.Rows(got, r[0], r[1])
			for i, v := range got {
				if math.Float64bits(v) != math.Float64bits(w[r[0]*d+i]) {
					t.Fatalf("%v rows [%d, %d): entry %d = %v, want %v", kind, r[0], r[1], i, v, w[r[0]*d+i])
				}
			}
		}
		x := make([]float64, 2*d)
		rng.New(1, 1).Normals(x)
		h1, h2 := make([]float64, 2*10), make([]float64, 2*10)
		full.Project(h1, x, 30, 40)
		s.Project(h2, x, 30, 40)
		for i := range h1 {
			if h1[i] != h2[i] {
				t.Fatalf("%v: Project differs at %d", kind, i)
			}
		}
	}
}

// TestRowGroups: RowGroup32 and RowGroup64 write the rows of Rows,
// interleaved (float32: converted), with zero padding columns, at every
// kernel level.
func TestRowGroups(t *testing.T) {
	simdtest.ForLevels(t, func(t *testing.T) {
		for _, d := range []int{1, 7, 16, 33, 100} {
			const y = 40
			s, _ := NewSeeded(Gaussian, GeneratorV2, 4, y, d)
			rows := make([]float64, y*d)
			s.Rows(rows, 0, y)
			d16 := (d + 15) &^ 15
			g32 := make([]float32, 16*d16)
			g64 := make([]float64, 8*d16)
			for _, lo := range []int{0, 5, y - 16} {
				for i := range g32 {
					g32[i] = 7
				}
				s.RowGroup32(g32, lo)
				s.RowGroup64(g64, lo)
				for c := range d16 {
					for i := range 16 {
						want := 0.0
						if c < d {
							want = rows[(lo+i)*d+c]
						}
						if got := g32[16*c+i]; got != float32(want) {
							t.Fatalf("D = %d, rows from %d: float32 row %d column %d = %v, want %v", d, lo, i, c, got, float32(want))
						}
						if got := g64[8*c+i%8]; i < 8 && math.Float64bits(got) != math.Float64bits(want) {
							t.Fatalf("D = %d, rows from %d: float64 row %d column %d = %v, want %v", d, lo, i, c, got, want)
						}
					}
				}
			}
		}
	})
	for _, s := range []*Seeded{{Kind: Gaussian, Gen: GeneratorV1, Y: 16, D: 4}, {Kind: Orthogonal, Gen: GeneratorV2, Y: 16, D: 4}} {
		if s.Interleaves() {
			t.Errorf("%v %v interleaves", s.Kind, s.Gen)
		}
	}
}
