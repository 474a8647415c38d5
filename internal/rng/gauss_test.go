package rng

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/drdam/drdam/internal/cpuid"
	"github.com/drdam/drdam/internal/simdtest"
)

// TestMoremur checks the mixer against its definition written
// differently (as Evensen states it, with rotations of nothing), and that
// it is a bijection on a sample (no collisions among 2¹⁶ consecutive
// inputs, which a mixer of a Weyl sequence must not have).
func TestMoremur(t *testing.T) {
	ref := func(x uint64) uint64 {
		x = (x ^ x>>27) * 0x3C79AC492BA7B653
		x = (x ^ x>>33) * 0x1C69B3F74AC4AE35
		return x ^ x>>27
	}
	seen := map[uint64]bool{}
	for i := range uint64(1 << 16) {
		x := i * golden
		m := moremur(x)
		if m != ref(x) {
			t.Fatalf("moremur(%#x) = %#x, want %#x", x, m, ref(x))
		}
		if seen[m] {
			t.Fatalf("moremur collision at %#x", x)
		}
		seen[m] = true
	}
	if moremur(0) != 0 {
		t.Errorf("moremur(0) = %#x, want 0", moremur(0))
	}
}

// normalV2 is value n of the stream (seed, stream), straight from the
// definition in doc.go: a reference for the block code and the kernels.
func normalV2(seed, stream, n uint64) float64 {
	j := 8*(n/16) + n%8
	c, s := boxMuller(newKey2(seed, stream).bits(j))
	if n%16 < 8 {
		return c
	}
	return s
}

// TestLevelsBitEqual checks, at every kernel level of this machine, that
// NormalsV2At gives bit for bit the values of the definition, for rows of
// every length up to 70 and some longer ones, from any first value.
func TestLevelsBitEqual(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	type row struct{ seed, stream, first uint64 }
	var rows []row
	for range 300 {
		rows = append(rows, row{r.Uint64(), r.Uint64(), r.Uint64N(1 << 40)})
	}
	rows = append(rows, row{0, 0, 0}, row{math.MaxUint64, math.MaxUint64, 1<<36 - 5}, row{1, StreamGaussianRow | 7, 0})
	simdtest.ForLevels(t, func(t *testing.T) {
		var buf [1100]float64
		for i, rw := range rows {
			for _, n := range []int{i % 71, 16 * (i % 9), 1000 + i%33} {
				first := rw.first
				if i%3 == 0 {
					first = 0
				}
				dst := buf[:n+1]
				dst[n] = 42 // must stay
				NormalsV2At(dst[:n], rw.seed, rw.stream, first)
				for k, v := range dst[:n] {
					if want := normalV2(rw.seed, rw.stream, first+uint64(k)); math.Float64bits(v) != math.Float64bits(want) {
						t.Fatalf("seed %#x stream %#x value %d: %v (%#x), want %v (%#x)", rw.seed, rw.stream, first+uint64(k), v, math.Float64bits(v), want, math.Float64bits(want))
					}
				}
				if dst[n] != 42 {
					t.Fatalf("NormalsV2At wrote past %d values", n)
				}
			}
		}
	})
}

// TestInterleavedBitEqual checks the interleaved kernels at every level
// against the definition: float64 bit for bit, float32 the conversion of
// the float64 value, for every number of blocks up to 9, and that nothing
// beyond the n values is written.
func TestInterleavedBitEqual(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	simdtest.ForLevels(t, func(t *testing.T) {
		for trial := range 12 {
			seed := r.Uint64()
			var s8 [8]uint64
			var s16 [16]uint64
			for i := range s16 {
				s16[i] = StreamGaussianRow | r.Uint64N(1<<40)
				if i < 8 {
					s8[i] = s16[i] + 1
				}
			}
			n := 16 * (trial % 10)
			d64 := make([]float64, 8*n+1)
			d32 := make([]float32, 16*n+1)
			d64[8*n], d32[16*n] = 42, 42
			NormalsV2Interleaved64(d64, seed, &s8, n)
			NormalsV2Interleaved32(d32, seed, &s16, n)
			for c := range n {
				for i := range 16 {
					want := normalV2(seed, s16[i], uint64(c))
					if got := d32[16*c+i]; math.Float32bits(got) != math.Float32bits(float32(want)) {
						t.Fatalf("float32 stream %d value %d: %v, want %v", i, c, got, float32(want))
					}
					if i >= 8 {
						continue
					}
					want = normalV2(seed, s8[i], uint64(c))
					if got := d64[8*c+i]; math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("float64 stream %d value %d: %v, want %v", i, c, got, want)
					}
				}
			}
			if d64[8*n] != 42 || d32[16*n] != 42 {
				t.Fatalf("n = %d: wrote past the values", n)
			}
		}
	})
}

// TestGoldenV2 pins generator version 2: these bits were produced by this
// package when version 2 was written. If this test fails, every version-2
// model's random features have changed; that must never happen.
func TestGoldenV2(t *testing.T) {
	k := newKey2(1, 0)
	if got := [3]uint64{uint64(k), k.word(0), k.word(12345)}; got != [3]uint64{0xdbae7029ef3b678c, 0xe03e98dde85f4d3f, 0xbff7057c842aa34d} {
		t.Errorf("key and words 0, 12345 of stream (1, 0) = %#x", got)
	}
	for _, c := range []struct {
		seed, stream, first uint64
		want                []uint64
	}{
		{1, StreamGaussianRow, 0, []uint64{0xbfe37f120c311d8d, 0xbfcf787be2dc8d01, 0x3fdb381e2ab52ca4, 0xbffc3c05e568872b}},
		{1, StreamGaussianRow | 1, 6, []uint64{0xc0029aabf1079095, 0xbfe51173caf43a70, 0x3ff362d788191b95, 0xbfe3ec869c82f1f6}},
		{42, StreamOrthoBlock | 3, 1<<20 + 13, []uint64{0x3fbf24c0d077dd91, 0xbfe94c9468226c8e, 0xbfd57221f20b6d74, 0x3fe72669ca88f9a8}},
	} {
		simdtest.ForLevels(t, func(t *testing.T) {
			got := make([]float64, len(c.want))
			NormalsV2At(got, c.seed, c.stream, c.first)
			for i, w := range c.want {
				if b := math.Float64bits(got[i]); b != w {
					t.Errorf("seed %d stream %#x value %d: bits %#x (%v), want %#x (%v)", c.seed, c.stream, c.first+uint64(i), b, got[i], w, math.Float64frombits(w))
				}
			}
		})
	}
}

// TestLogUnit compares logUnit with math.Log over its whole domain,
// u = (k + 1)·2⁻⁵² for the 52-bit k = ⌊a/2¹²⌋: k uniform, and k + 1
// spread over every binade. Both are within 1 ulp of log u, so they may
// differ by 2; in practice they are at most 1 ulp apart.
func TestLogUnit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ks := []uint64{0, 1, 2, 1<<52 - 1, 1<<51 - 1, 1 << 51, 1<<51 + 1, sqrt2Mant - 2, sqrt2Mant - 1, sqrt2Mant, sqrt2Mant>>1 - 1, sqrt2Mant >> 1}
	for range 400000 {
		ks = append(ks, r.Uint64N(1<<52), r.Uint64N(1<<52)>>r.UintN(52))
	}
	var worst uint64
	for _, k := range ks {
		u := float64(k+1) * 0x1p-52
		got, want := logUnit(k<<12|r.Uint64N(1<<12)), math.Log(u)
		d := ulps(got, want)
		if d > 1 {
			t.Fatalf("logUnit at u = %v: %v, math.Log = %v: %d ulp apart", u, got, want, d)
		}
		worst = max(worst, d)
	}
	t.Logf("logUnit: at most %d ulp from math.Log", worst)
}

// TestQuarterSinCos compares quarterSinCos with math.Sincos of πx/2 over
// |x| ≤ 1/2. The argument πx/2 is rounded: the reference corrects for the
// rounding error δ (sin(h + δ) ≈ sin h + δ·cos h), so it is within about
// 1 ulp of the truth; the polynomials must be within 2 ulp of it.
func TestQuarterSinCos(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	xs := []float64{0, 0.5, -0.5, 0x1p-51, -0x1p-51, 0.25, 1.0 / 3}
	for range 400000 {
		xs = append(xs, float64(int64(r.Uint64N(1<<51))-1<<50)*0x1p-51)
	}
	const pio2Hi, pio2Lo = 1.5707963267948966, 6.123233995736766e-17
	var ws, wc uint64
	for _, x := range xs {
		h := x * pio2Hi
		d := math.FMA(x, pio2Hi, -h) + x*pio2Lo
		sh, ch := math.Sincos(h)
		rs, rc := sh+d*ch, ch-d*sh
		s, c := quarterSinCos(x)
		us, uc := ulps(s, rs), ulps(c, rc)
		if us > 2 || uc > 2 {
			t.Fatalf("quarterSinCos(%v) = %v, %v; reference %v, %v: %d and %d ulp apart", x, s, c, rs, rc, us, uc)
		}
		ws, wc = max(ws, us), max(wc, uc)
	}
	t.Logf("quarterSinCos: at most %d ulp (sin) and %d ulp (cos) from the reference", ws, wc)
}

// draws returns n values of version 2 laid out as a projection uses them:
// rows of 1000 values of the streams StreamGaussianRow|α.
func draws(seed uint64, n int) []float64 {
	x := make([]float64, n)
	for a := 0; a*1000 < n; a++ {
		NormalsV2(x[a*1000:min(n, (a+1)*1000)], seed, StreamGaussianRow|uint64(a))
	}
	return x
}

// TestNormalV2Moments checks the first four moments of 4·10⁶ draws
// against those of N(0, 1). With n = 4·10⁶ the standard errors of the raw
// moments are √(Var x^k / n): 5·10⁻⁴ (mean), 7·10⁻⁴ (second), 1.9·10⁻³
// (third), 5·10⁻³ (fourth); the tolerances are five of them.
func TestNormalV2Moments(t *testing.T) {
	const n = 4000000
	x := draws(7, n)
	var m [5]float64
	for _, v := range x {
		p := 1.0
		for k := 1; k <= 4; k++ {
			p *= v
			m[k] += p
		}
	}
	want := [5]float64{0, 0, 1, 0, 3}
	sd := [5]float64{0, 1, math.Sqrt2, math.Sqrt(15), math.Sqrt(96)} // √Var xᵏ
	for k := 1; k <= 4; k++ {
		got := m[k] / n
		if tol := 5 * sd[k] / math.Sqrt(n); math.Abs(got-want[k]) > tol {
			t.Errorf("moment %d = %v, want %v ± %v", k, got, want[k], tol)
		}
	}
}

// chiSquareLimit returns the upper 10⁻⁶ quantile of the χ² distribution
// with k degrees of freedom (Wilson–Hilferty: within 1% for k ≥ 30), the
// threshold of the tests below: a generator with the right distribution
// exceeds it with probability 10⁻⁶, and the tests are deterministic.
func chiSquareLimit(k float64) float64 {
	const z = 4.753424 // upper 10⁻⁶ quantile of N(0, 1)
	a := 2 / (9 * k)
	return k * math.Pow(1-a+z*math.Sqrt(a), 3)
}

func phi(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// TestNormalV2Distribution tests 4·10⁶ draws against N(0, 1): a χ² test
// on 200 equiprobable cells, a Kolmogorov–Smirnov test (√n·D below 2.6,
// the 3·10⁻⁶ tail of the Kolmogorov distribution), and serial χ² tests on
// a 40×40 grid of (Φ(x), Φ(x')) for successive values of a row and for the
// same value of successive rows (streams), which would see the lattices
// of a poor generator, a dependence inside a pair, or related streams.
func TestNormalV2Distribution(t *testing.T) {
	const n = 4000000
	x := draws(11, n)
	const cells = 200
	var count [cells]float64
	for _, v := range x {
		count[min(int(phi(v)*cells), cells-1)]++
	}
	chi := 0.0
	for _, c := range count {
		chi += (c - n/cells) * (c - n/cells) / (n / cells)
	}
	if lim := chiSquareLimit(cells - 1); chi > lim {
		t.Errorf("χ² on %d cells = %.1f, above %.1f", cells, chi, lim)
	}
	t.Logf("χ² = %.1f on %d degrees of freedom", chi, cells-1)

	s := slices.Clone(x)
	sort.Float64s(s)
	d := 0.0
	for i, v := range s {
		f := phi(v)
		d = max(d, math.Abs(f-float64(i)/n), math.Abs(f-float64(i+1)/n))
	}
	if k := d * math.Sqrt(n); k > 2.6 {
		t.Errorf("Kolmogorov–Smirnov √n·D = %.3f, above 2.6", k)
	} else {
		t.Logf("Kolmogorov–Smirnov √n·D = %.3f", k)
	}

	const g = 40
	for _, c := range []struct {
		name      string
		step, lag int // pairs (x[i], x[i+lag]) for i = 0, step, 2·step, …
	}{{"successive values", 2, 1}, {"successive rows", 1, 1000}} {
		var grid [g * g]float64
		m := 0
		for i := 0; i+c.lag < n; i += c.step {
			if c.lag == 1000 && i/1000%2 == 1 {
				continue // rows 0–1, 2–3, …: disjoint pairs of rows
			}
			a, b := min(int(phi(x[i])*g), g-1), min(int(phi(x[i+c.lag])*g), g-1)
			grid[a*g+b]++
			m++
		}
		e := float64(m) / (g * g)
		chi := 0.0
		for _, v := range grid {
			chi += (v - e) * (v - e) / e
		}
		if lim := chiSquareLimit(g*g - 1); chi > lim {
			t.Errorf("serial χ² of %s on %d×%d cells = %.1f, above %.1f", c.name, g, g, chi, lim)
		}
		t.Logf("serial χ² of %s = %.1f on %d degrees of freedom", c.name, chi, g*g-1)
	}
}

// TestPairsIndependent checks the cosine and sine of each pair, which
// share a radius: uncorrelated, and so are their squares (both have
// correlation 0 under Box–Muller), within five standard errors.
func TestPairsIndependent(t *testing.T) {
	const rows = 2000
	x := make([]float64, 16)
	var sxy, sx2y2 float64
	n := 0.0
	for a := range rows {
		for b := uint64(0); b < 64; b++ {
			NormalsV2At(x, 3, StreamGaussianRow|uint64(a), 16*b)
			for l := range 8 {
				c, s := x[l], x[8+l]
				sxy += c * s
				sx2y2 += (c*c - 1) * (s*s - 1)
				n++
			}
		}
	}
	// Var(cs) = 1, Var((c²−1)(s²−1)) = 4.
	if m := sxy / n; math.Abs(m) > 5/math.Sqrt(n) {
		t.Errorf("mean of cos·sin = %v, want 0 ± %v", m, 5/math.Sqrt(n))
	}
	if m := sx2y2 / n; math.Abs(m) > 10/math.Sqrt(n) {
		t.Errorf("mean of (cos²−1)(sin²−1) = %v, want 0 ± %v", m, 10/math.Sqrt(n))
	}
}

// TestUniformBits checks the words behind the values: each of the 128
// bits of the words (a, b) of 2¹⁸ pairs is set with frequency 1/2 within
// five standard errors, and the top byte of each word passes a χ² test on
// 256 cells.
func TestUniformBits(t *testing.T) {
	const n = 1 << 18
	k := newKey2(5, StreamGaussianRow|9)
	var ones [128]float64
	var top [2][256]float64
	for j := range uint64(n) {
		a, b := k.bits(j)
		for i := range 64 {
			ones[i] += float64(a >> i & 1)
			ones[64+i] += float64(b >> i & 1)
		}
		top[0][a>>56]++
		top[1][b>>56]++
	}
	for i, c := range ones {
		if f := c / n; math.Abs(f-0.5) > 5*0.5/math.Sqrt(n) {
			t.Errorf("bit %d set with frequency %v", i, f)
		}
	}
	for w := range 2 {
		chi := 0.0
		for _, c := range top[w] {
			chi += (c - n/256) * (c - n/256) / (n / 256)
		}
		if lim := chiSquareLimit(255); chi > lim {
			t.Errorf("word %d: χ² of the top byte = %.1f, above %.1f", w, chi, lim)
		}
	}
}

// TestNormalsV2Range: no value is NaN or infinite, and none exceeds the
// largest radius, √(−2 log 2⁻⁵²) ≈ 8.49.
func TestNormalsV2Range(t *testing.T) {
	x := draws(13, 1<<20)
	lim := math.Sqrt(-2 * math.Log(0x1p-52))
	for i, v := range x {
		if math.IsNaN(v) || math.Abs(v) > lim {
			t.Fatalf("value %d = %v", i, v)
		}
	}
	// The extreme words: u = 2⁻⁵² (a < 2¹²) gives the largest radius, at
	// θ = 0 for b < 2¹⁰; u = 1 a zero one.
	if c, s := boxMuller(0, 0); math.Abs(c-lim) > 1e-14 || s != 0 {
		t.Errorf("boxMuller(0, 0) = %v, %v, want %v, 0", c, s, lim)
	}
	if c, s := boxMuller(math.MaxUint64, 12345); c != 0 || s != 0 {
		t.Errorf("boxMuller at u = 1 = %v, %v, want zeros", c, s)
	}
	// θ at the quadrant boundaries: b = 2⁶² is a quarter turn, and so on.
	for q, want := range [][2]float64{{1, 0}, {0, 1}, {-1, 0}, {0, -1}} {
		c, s := boxMuller(0, uint64(q)<<62)
		if math.Abs(c-lim*want[0]) > 1e-14 || math.Abs(s-lim*want[1]) > 1e-14 {
			t.Errorf("quarter turn %d: %v, %v, want %v, %v", q, c, s, lim*want[0], lim*want[1])
		}
	}
}

// BenchmarkNormalsV2 fills a row of D = 12288 values (the paper's largest
// D) per iteration, once per level, and reports ns per value.
func BenchmarkNormalsV2(b *testing.B) {
	for _, lv := range cpuid.Supported() {
		b.Run(lv.String(), func(b *testing.B) {
			prev := cpuid.Set(lv)
			defer cpuid.Set(prev)
			x := make([]float64, 12288)
			a := uint64(0)
			for b.Loop() {
				NormalsV2(x, 1, StreamGaussianRow|a)
				a++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/value")
		})
	}
}

// BenchmarkNormalsV2Interleaved fills 16 float32 rows (or 8 float64 ones)
// of D = 12288 values interleaved per iteration, once per level, and
// reports ns per value.
func BenchmarkNormalsV2Interleaved(b *testing.B) {
	d := 12288
	if testing.Short() {
		d = 1024 // in the L1 and L2 caches
	}
	for _, lv := range cpuid.Supported() {
		prev := cpuid.Set(lv)
		b.Run("float32/"+lv.String(), func(b *testing.B) {
			x := make([]float32, 16*d)
			var s [16]uint64
			for b.Loop() {
				NormalsV2Interleaved32(x, 1, &s, d)
				s[0]++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/value")
		})
		b.Run("float64/"+lv.String(), func(b *testing.B) {
			x := make([]float64, 8*d)
			var s [8]uint64
			for b.Loop() {
				NormalsV2Interleaved64(x, 1, &s, d)
				s[0]++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/value")
		})
		cpuid.Set(prev)
	}
}
