package dam

import (
	"bytes"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drdam/drdam/features"
)

// sumConfigs are the configurations of the Sum tests: every basis with
// both energies on a dense projection, and the structured one.
func sumConfigs() []Config {
	var cs []Config
	for _, sim := range []Similarity{L2, Dot} {
		for _, basis := range allBases {
			cs = append(cs, Config{D: 10, Beta: 12, Y: 300, Basis: basis, Seed: 5, Similarity: sim})
		}
		cs = append(cs, Config{D: 10, Beta: 12, Y: 300, Seed: 5, Similarity: sim, Projection: features.Structured, Precision: Float32})
	}
	return cs
}

// TestSumMerge: the Sums of DrDAMs that each stored a share of the patterns,
// merged, are the Sum of one DrDAM that stored them all, up to the order of
// the additions: relative 1e-12 on T (as TestAdditive; every term of T is
// of the order of its norm, and 4 shares reorder sums of 9 terms, about
// 10 ulp). For the positive bases T is compared as exp(log T), and for the
// dot energy the log-scale is folded in (DrDAM.T). Sum.Merge and
// DrDAM.Merge are one arithmetic: their T and log-scale are the same bits.
func TestSumMerge(t *testing.T) {
	const d, k = 10, 9
	xi := grayPatterns(71, k, d)
	shares := [][2]int{{0, 2}, {2, 3}, {3, 7}, {7, 9}} // rows [a, b)
	for _, c := range sumConfigs() {
		name := c.Basis.String() + "/" + c.Similarity.String() + "/" + c.Projection.String()
		t.Run(name, func(t *testing.T) {
			whole := mustDrDAM(t, c, xi)
			var s Sum // the zero Sum: empty
			viaDrDAM := mustDrDAM(t, c, nil)
			for _, sh := range shares {
				part := mustDrDAM(t, c, xi[sh[0]*d:sh[1]*d])
				if err := s.Merge(whole.Config(), part.Sum()); err != nil {
					t.Fatal(err)
				}
				if err := viaDrDAM.Merge(part); err != nil {
					t.Fatal(err)
				}
			}
			if s.Count != k {
				t.Errorf("Count = %d, want %d", s.Count, k)
			}
			ref := viaDrDAM.Sum()
			if !slices.Equal(bitsOf(s.T), bitsOf(ref.T)) || s.LogScale != ref.LogScale {
				t.Errorf("Sum.Merge and DrDAM.Merge differ (log-scales %v and %v)", s.LogScale, ref.LogScale)
			}
			m := mustDrDAM(t, c, nil)
			if err := m.SetSum(s); err != nil {
				t.Fatal(err)
			}
			if r := relDiff(tOf(m), tOf(whole)); r > 1e-12 || m.Len() != k {
				t.Errorf("merged shares vs all at once: relative difference %.3g, Len %d", r, m.Len())
			}
		})
	}
}

// bitsOf returns the bits of x, so that slices compare bit for bit (−Inf
// and signed zeros included).
func bitsOf(x []float64) []uint64 {
	b := make([]uint64, len(x))
	for i, v := range x {
		b[i] = math.Float64bits(v)
	}
	return b
}

// TestSumRoundTrip: SetSum(Sum()) gives the same energies and gradients
// bit for bit, a Sum is a copy, and SaveSum writes the bytes that Save
// writes for the DrDAM the Sum came from, without building its projection.
func TestSumRoundTrip(t *testing.T) {
	const d = 10
	xi, x := grayQueries(81, 6, 3, d, 0.2)
	dir := t.TempDir()
	for _, c := range sumConfigs() {
		m := mustDrDAM(t, c, xi)
		s := m.Sum()
		s.T[0] += 1 // a copy: m is unchanged
		s = m.Sum()
		n := mustDrDAM(t, c, nil)
		if err := n.SetSum(s); err != nil {
			t.Fatal(err)
		}
		e1, g1 := energies(t, m, x)
		e2, g2 := energies(t, n, x)
		if !slices.Equal(e1, e2) || !slices.Equal(g1, g2) {
			t.Errorf("%v: energies after SetSum(Sum()) differ", c)
		}
		var buf bytes.Buffer
		if err := WriteSum(&buf, c, s); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), encode(t, m)) {
			t.Errorf("%v: WriteSum and Write differ", c)
		}
		path := filepath.Join(dir, "m.drdam")
		if err := SaveSum(path, c, s); err != nil {
			t.Fatal(err)
		}
		l, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		e3, g3 := energies(t, l, x)
		if !slices.Equal(e1, e3) || !slices.Equal(g1, g3) || l.Len() != m.Len() {
			t.Errorf("%v: the model saved from a Sum evaluates differently", c)
		}
		// The empty Sum is the empty memory, and its file is an empty model's.
		buf.Reset()
		if err := WriteSum(&buf, c, Sum{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), encode(t, mustDrDAM(t, c, nil))) {
			t.Errorf("%v: WriteSum of the zero Sum is not the empty model's file", c)
		}
		if err := n.SetSum(Sum{}); err != nil || n.Len() != 0 || !slices.Equal(bitsOf(n.Sum().T), bitsOf(mustDrDAM(t, c, nil).Sum().T)) {
			t.Errorf("%v: SetSum(Sum{}): err %v, Len %d, not the empty memory", c, err, n.Len())
		}
	}
}

// TestSumMergeSelf: a Sum merged with itself holds every memory twice.
func TestSumMergeSelf(t *testing.T) {
	const d = 10
	xi := grayPatterns(3, 4, d)
	for _, c := range sumConfigs() {
		s := mustDrDAM(t, c, xi).Sum()
		if err := s.Merge(c, s); err != nil {
			t.Fatal(err)
		}
		twice := mustDrDAM(t, c, slices.Concat(xi, xi))
		m := mustDrDAM(t, c, nil)
		if err := m.SetSum(s); err != nil {
			t.Fatal(err)
		}
		if r := relDiff(tOf(m), tOf(twice)); r > 1e-12 || s.Count != 8 {
			t.Errorf("%v: s + s: relative difference %.3g from storing the patterns twice, Count %d", c, r, s.Count)
		}
	}
}

// TestSumErrors: invalid Sums and configurations are errors that say
// what is wrong, and a failed Merge or SetSum changes nothing.
func TestSumErrors(t *testing.T) {
	const d = 4
	c := Config{D: d, Beta: 3, Y: 10, Seed: 1} // sincos: F = 20
	pos := Config{D: d, Beta: 3, Y: 10, Seed: 1, Basis: features.Exp}
	good := mustDrDAM(t, c, grayPatterns(5, 3, d)).Sum()
	withT := func(i int, v float64) Sum {
		s := Sum{T: slices.Clone(good.T), LogScale: good.LogScale, Count: good.Count}
		s.T[i] = v
		return s
	}
	for _, tc := range []struct {
		name string
		c    Config
		s    Sum
		want string
	}{
		{"short T", c, Sum{T: make([]float64, 19), Count: 1}, "T has 19 values, want F = 20"},
		{"nil T", c, Sum{Count: 2}, "T has 0 values"},
		{"NaN", c, withT(3, math.NaN()), "NaN at index 3"},
		{"+Inf", c, withT(4, math.Inf(1)), "+Inf at index 4"},
		{"-Inf trigonometric", c, withT(5, math.Inf(-1)), "-Inf at index 5"},
		{"negative count", c, Sum{T: good.T, Count: -1}, "count -1 < 0"},
		{"NaN log-scale", c, Sum{T: good.T, Count: 1, LogScale: math.NaN()}, "log-scale of T is NaN"},
		{"positive basis, +Inf", pos, Sum{T: slices.Repeat([]float64{math.Inf(1)}, 10), Count: 1}, "+Inf at index 0"},
		{"mrdam", Config{D: d, Beta: 3, Rep: RepMrDAM}, good, "mrdam"},
		{"bad config", Config{D: d, Beta: -1, Y: 10}, good, "β must be positive"},
	} {
		if err := tc.s.Check(tc.c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Check: err = %v, want it to say %q", tc.name, err, tc.want)
		}
		// Merged into a valid Sum of the configuration (the zero Sum, for
		// the configurations good is not of).
		s, want := Sum{}, Sum{}
		if tc.c == c {
			s = Sum{T: slices.Clone(good.T), LogScale: good.LogScale, Count: good.Count}
			want = good
		}
		if err := s.Merge(tc.c, tc.s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Merge: err = %v, want it to say %q", tc.name, err, tc.want)
		}
		if !slices.Equal(s.T, want.T) || s.Count != want.Count {
			t.Errorf("%s: a failed Merge changed the Sum", tc.name)
		}
		if err := WriteSum(&bytes.Buffer{}, tc.c, tc.s); err == nil {
			t.Errorf("%s: WriteSum succeeded", tc.name)
		}
	}
	s := Sum{T: slices.Clone(good.T), Count: math.MaxInt64}
	if err := s.Merge(c, good); err == nil || !strings.Contains(err.Error(), "overflow") || s.Count != math.MaxInt64 {
		t.Errorf("overflowing count: err = %v, Count %d", err, s.Count)
	}
	m := mustDrDAM(t, c, grayPatterns(6, 2, d))
	before := m.Sum()
	if err := m.SetSum(withT(0, math.NaN())); err == nil || m.Len() != 2 || !slices.Equal(m.Sum().T, before.T) {
		t.Errorf("SetSum of an invalid Sum: err = %v, and the memory changed", err)
	}
	ext := mustDrDAM(t, c, nil)
	ec := ext.Config()
	ec.Projection = features.External
	if err := WriteSum(&bytes.Buffer{}, ec, good); err == nil || !strings.Contains(err.Error(), "external") {
		t.Errorf("WriteSum with an external projection: err = %v", err)
	}
	if err := SaveSum(filepath.Join(t.TempDir(), "x.drdam"), c, withT(0, math.NaN())); err == nil {
		t.Error("SaveSum of an invalid Sum succeeded")
	}
}
