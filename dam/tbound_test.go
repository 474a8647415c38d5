package dam

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drdam/drdam/features"
)

// maxFeaturePattern returns, for a DrDAM of configuration c with a
// positive basis, the pattern whose log-feature is the largest that a
// pattern can produce for the row ω of largest norm of its projection
// (√β·ξ = ω/2 for the L2 energy; ω for the dot energy, shortened to the
// largest weight Add takes), and that log-feature. It is the pattern that
// tBound's argument is about.
func maxFeaturePattern(t *testing.T, c Config) (xi []float64, logFeature float64) {
	t.Helper()
	c, err := c.Validate()
	if err != nil {
		t.Fatal(err)
	}
	p, err := features.NewProjection(c.Projection, c.Generator, c.Seed, c.Y, c.D)
	if err != nil {
		t.Fatal(err)
	}
	// W's rows are the columns of I·Wᵀ.
	id := make([]float64, c.D*c.D)
	for i := range c.D {
		id[i*c.D+i] = 1
	}
	wt := make([]float64, c.D*c.Y)
	p.Project(wt, id, 0, c.Y)
	best, bestSq := 0, 0.0
	for r := range c.Y {
		var s float64
		for j := range c.D {
			s += wt[j*c.Y+r] * wt[j*c.Y+r]
		}
		if s > bestSq {
			best, bestSq = r, s
		}
	}
	scale := 0.5 // y = ω/2
	if c.Similarity == Dot {
		// y = ω, or as long as a weight may be: ‖y‖²/2 ≤ MaxDotLogWeight
		// (less a little for rounding).
		scale = min(1, math.Sqrt(2*(MaxDotLogWeight-1)/bestSq))
	}
	xi = make([]float64, c.D)
	var wy, yy float64
	for j := range c.D {
		y := scale * wt[j*c.Y+best]
		xi[j] = y / math.Sqrt(c.Beta)
		wy += wt[j*c.Y+best] * y
		yy += y * y
	}
	logFeature = wy - yy + c.Basis.LogNorm(c.Y)
	if c.Similarity == Dot {
		logFeature += yy / 2
	}
	return xi, logFeature
}

// TestLegitModelsLoad: no model that the API builds is refused by the
// checks of T (checkT, tBound): every basis × seeded projection (and a
// Gaussian one on demand) × precision × energy, after adds in chunks,
// removals, a Merge and a Sum.Merge, with the patterns that reach the
// bound's argument (for the positive bases, the pattern of the largest
// log-feature, stored 1000 times; for the trigonometric ones, one pattern
// stored 1000 times), and emptied by removing everything: each is written,
// read back, and re-encoded to the same bytes. MrDAMs too.
func TestLegitModelsLoad(t *testing.T) {
	const d = 6
	type variant struct {
		proj     features.ProjectionKind
		onDemand bool
	}
	var variants []variant
	for _, k := range features.ProjectionKinds() {
		variants = append(variants, variant{k, false})
	}
	variants = append(variants, variant{features.Gaussian, true})
	roundTrip := func(name string, m Memory) {
		t.Helper()
		var buf bytes.Buffer
		if err := Write(&buf, m); err != nil {
			t.Errorf("%s: Write: %v", name, err)
			return
		}
		back, err := Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Errorf("%s: Read: %v", name, err)
			return
		}
		if again := encode(t, back); !bytes.Equal(again, buf.Bytes()) {
			t.Errorf("%s: read back, it does not re-encode to the same bytes", name)
		}
	}
	repeat := func(x []float64, n int) []float64 {
		out := make([]float64, 0, n*len(x))
		for range n {
			out = append(out, x...)
		}
		return out
	}
	for _, basis := range allBases {
		for _, v := range variants {
			for _, prec := range []Precision{Float64, Float32} {
				for _, sim := range []Similarity{L2, Dot} {
					c := Config{D: d, Beta: 4, Y: 64, Basis: basis, Projection: v.proj, OnDemand: v.onDemand, Precision: prec, Similarity: sim, Seed: 5}
					name := fmt.Sprintf("%v %v on-demand=%v %v %v", basis, v.proj, v.onDemand, prec, sim)
					xi := grayPatterns(11, 40, d)
					m := mustDrDAM(t, c, nil)
					for i := 0; i < 40; i += 7 {
						if err := m.Add(xi[i*d : min(40, i+7)*d]); err != nil {
							t.Fatalf("%s: Add: %v", name, err)
						}
					}
					if err := m.Remove(xi[3*d : 13*d]); err != nil {
						t.Fatalf("%s: Remove: %v", name, err)
					}
					roundTrip(name+", added and removed", m)
					other := mustDrDAM(t, c, grayPatterns(12, 9, d))
					s := m.Sum()
					if err := m.Merge(other); err != nil {
						t.Fatalf("%s: Merge: %v", name, err)
					}
					roundTrip(name+", merged", m)
					if err := s.Merge(c, other.Sum()); err != nil {
						t.Fatalf("%s: Sum.Merge: %v", name, err)
					}
					var buf bytes.Buffer
					if err := WriteSum(&buf, c, s); err != nil {
						t.Errorf("%s: WriteSum: %v", name, err)
					} else if _, err := Read(bytes.NewReader(buf.Bytes()), int64(buf.Len())); err != nil {
						t.Errorf("%s: Read of WriteSum: %v", name, err)
					}
					// The extreme: one pattern, 1000 times.
					x := xi[:d]
					if !basis.Trig() { // T stored as log T
						x, _ = maxFeaturePattern(t, c)
					}
					big := mustDrDAM(t, c, repeat(x, 1000))
					roundTrip(name+", the extreme pattern 1000 times", big)
					if err := big.Remove(repeat(x, 1000)); err != nil {
						t.Fatalf("%s: removing everything: %v", name, err)
					}
					roundTrip(name+", emptied", big)
				}
			}
		}
	}
	for _, sim := range []Similarity{L2, Dot} {
		c := Config{D: d, Beta: 4, Similarity: sim}
		m := mustMrDAM(t, c, grayPatterns(11, 40, d))
		if err := m.Remove(grayPatterns(11, 40, d)[:5*d]); err != nil {
			t.Fatal(err)
		}
		if err := m.Merge(mustMrDAM(t, c, grayPatterns(12, 9, d))); err != nil {
			t.Fatal(err)
		}
		roundTrip(fmt.Sprintf("mrdam %v", sim), m)
	}
}

// TestTBoundMargin: for the positive bases, the largest log-feature that a
// pattern can produce (maxFeaturePattern, on a projection of 4096 rows) is
// below tBound's per-pattern part, by the factor that the bound's
// argument leaves for rounding (‖ω‖² ≤ 256·max(D, 64), while a Gaussian
// row of 64 or 512 values has ‖ω‖² under 3·D in practice): the bound is
// loose, and no legitimate model comes near it.
func TestTBoundMargin(t *testing.T) {
	for _, d := range []int{64, 512} {
		for _, kind := range features.ProjectionKinds() {
			for _, sim := range []Similarity{L2, Dot} {
				c := Config{D: d, Beta: 1, Y: 4096, Basis: features.Exp, Projection: kind, Similarity: sim, Seed: 3}
				_, lf := maxFeaturePattern(t, c)
				bound, how := tBound(c, 1)
				// log 1 = 0: the bound is LogNorm + f + 1. The largest
				// real log-feature uses ‖ω‖²/4 ≤ 3D/4 (L2).
				if !(lf < bound) {
					t.Errorf("D = %d %v %v: the largest log-feature %v passes the bound %s", d, kind, sim, lf, how)
				}
				ln := c.Basis.LogNorm(c.Y)
				if sim == L2 && lf-ln > float64(d) {
					t.Errorf("D = %d %v: log-feature %v − log Norm = %v, more than D = %d: ‖ω‖² > 4D, far above a χ²(D) draw's range", d, kind, lf, lf-ln, d)
				}
			}
		}
	}
}

// sealed returns a copy of the model file b with the float64 at offset off
// set to v and the checksum recomputed.
func sealed(b []byte, off int, v float64) []byte {
	b = append([]byte(nil), b...)
	binary.LittleEndian.PutUint64(b[off:], math.Float64bits(v))
	binary.LittleEndian.PutUint32(b[len(b)-4:], crcOf(b[:len(b)-4]))
	return b
}

// TestCraftedT: model files with a finite but absurd T, or a log-scale that
// no Add gives, are refused by Load with an error naming the file, the
// index, the value and the bound (Load accepted every finite T), and
// Write refuses a model whose T was set so behind the API's back.
func TestCraftedT(t *testing.T) {
	dir := t.TempDir()
	xi := grayPatterns(1, 2, 3)
	const payload = fileHeaderSize // offset of T[0]
	for _, tc := range []struct {
		name string
		c    Config
		k    int // patterns stored
		off  int // the field set
		v    float64
		want string
	}{
		{"cos 1e300", Config{D: 3, Beta: 2, Y: 8, Basis: features.Cos}, 2, payload + 8*5, 1e300,
			"payload: T would hold 1e+300 at index 5, more than 2 stored patterns can produce: |t_i| ≤ 2·0.5·(1 + 2⁻¹⁰) = 1.00098"},
		{"sincos 1.01 past the bound", Config{D: 3, Beta: 2, Y: 8}, 2, payload + 8*9, -2 / math.Sqrt(8) * 1.01,
			"T would hold -0.714177848998413 at index 9, more than 2 stored patterns can produce: |t_i| ≤ 2·0.353553·(1 + 2⁻¹⁰) = 0.707797"},
		{"sincos empty", Config{D: 3, Beta: 2, Y: 8}, 0, payload + 8*2, 1e-300,
			"T holds 1e-300 at index 2, and no pattern is stored (want 0)"},
		{"exp 1e300", Config{D: 3, Beta: 2, Y: 8, Basis: features.Exp}, 2, payload + 8*7, 1e300,
			"T would hold 1e+300 at index 7, more than 2 stored patterns can produce: log T_i ≤ log 2 + log Norm(Y) + ‖ω‖²/4 + 1 = 0.693147 + -1.03972 + 4096 + 1 = 4096.65"},
		{"expexp dot 1e5", Config{D: 3, Beta: 2, Y: 8, Basis: features.ExpExp, Similarity: Dot}, 2, payload + 8*15, 1e5,
			"more than 2 stored patterns can produce: log T_i ≤ log 2 + log Norm(Y) + min(‖ω‖²/2, ‖ω‖·√1400) + 1"},
		{"exp empty", Config{D: 3, Beta: 2, Y: 8, Basis: features.Exp}, 0, payload, -700,
			"T holds -700 at index 0, and no pattern is stored (want -Inf)"},
		{"l2 log-scale", Config{D: 3, Beta: 2, Y: 8}, 2, 72, 1e300,
			"the log-scale of T is 1e+300, want 0 (the l2 energy with the sincos basis keeps no scale)"},
		{"dot log-scale", Config{D: 3, Beta: 2, Y: 8, Similarity: Dot}, 2, 72, 701,
			"the log-scale of T is 701, want the largest β‖ξ‖²/2 of a stored pattern, in [0, 700]"},
		{"empty log-scale", Config{D: 3, Beta: 2, Y: 8, Similarity: Dot}, 0, 72, 3,
			"the log-scale of T is 3, and no pattern is stored (want 0)"},
	} {
		var stored []float64
		if tc.k > 0 {
			stored = xi[:3*tc.k]
		}
		m := mustDrDAM(t, tc.c, stored)
		b := sealed(encode(t, m), tc.off, tc.v)
		p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".drdam")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(p)
		if err == nil || !strings.HasPrefix(err.Error(), "load "+p+": payload: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Load: %v\nwant load %s: payload: …%s", tc.name, err, p, tc.want)
		}
		// The same model made in memory is not written.
		if tc.off == 72 {
			m.logScale = tc.v
		} else {
			m.t[(tc.off-payload)/8] = tc.v
		}
		if err := Write(&bytes.Buffer{}, m); err == nil {
			t.Errorf("%s: Write wrote what Load refuses", tc.name)
		}
	}
	// Removing patterns that were not stored can push T past what those
	// left can produce: refused, the memory unchanged.
	m := mustDrDAM(t, Config{D: 3, Beta: 2, Y: 8}, repeat3(xi[:3], 3))
	before := m.Sum()
	other := make([]float64, 3)
	for i := range other {
		other[i] = -xi[i] // its features are far from xi's
	}
	err := m.Remove(repeat3(other, 2))
	if err == nil {
		t.Logf("removing two patterns never stored stayed within the bound of one pattern")
	} else if !strings.Contains(err.Error(), "more than 1 stored patterns can produce") || !strings.Contains(err.Error(), "the memory is unchanged") {
		t.Errorf("Remove of patterns never stored: %v", err)
	} else if s := m.Sum(); s.Count != before.Count || !bitsEqualSlice(s.T, before.T) {
		t.Errorf("a refused Remove changed the memory")
	}
}

func repeat3(x []float64, n int) []float64 {
	var out []float64
	for range n {
		out = append(out, x...)
	}
	return out
}

func bitsEqualSlice(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
