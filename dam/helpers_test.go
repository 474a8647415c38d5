package dam

import (
	"math"
	"testing"

	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/rng"
)

// binaryPatterns returns n random patterns in {0, 1/√D}^D (the paper's §4.1
// data; uniqueness is not needed here).
func binaryPatterns(seed uint64, n, d int) []float64 {
	s := rng.New(seed, 1000)
	x := make([]float64, n*d)
	for i := range x {
		if s.Uint64()&1 == 1 {
			x[i] = 1 / math.Sqrt(float64(d))
		}
	}
	return x
}

// grayPatterns returns n patterns uniform in [0, 1/√D]^D.
func grayPatterns(seed uint64, n, d int) []float64 {
	s := rng.New(seed, 2000)
	x := make([]float64, n*d)
	for i := range x {
		x[i] = s.Float64() / math.Sqrt(float64(d))
	}
	return x
}

// flip returns a copy of x (n×d) with a fraction of the coordinates of each
// row flipped between 0 and 1/√D.
// grayQueries returns k gray patterns of dimension d drawn from seed, and
// n queries: the first n of them with a fraction frac of their coordinates
// redrawn (from seed+1).
func grayQueries(seed uint64, k, n, d int, frac float64) (xi, x []float64) {
	xi = grayPatterns(seed, k, d)
	return xi, flip(seed+1, xi[:n*d], d, frac)
}

func flip(seed uint64, x []float64, d int, frac float64) []float64 {
	s := rng.New(seed, 3000)
	y := append([]float64(nil), x...)
	v := 1 / math.Sqrt(float64(d))
	for i := range y {
		if s.Float64() < frac {
			y[i] = v - y[i]
		}
	}
	return y
}

// allBases walks the registry of package features: a basis added there is
// tested here against its naive definition and by finite differences.
var allBases = features.Bases()

func mustDrDAM(t testing.TB, c Config, patterns []float64) *DrDAM {
	t.Helper()
	c.Rep = RepDrDAM
	m, err := NewDrDAM(c)
	if err != nil {
		t.Fatal(err)
	}
	if patterns != nil {
		if err := m.Add(patterns); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func mustMrDAM(t testing.TB, c Config, patterns []float64) *MrDAM {
	t.Helper()
	c.Rep = RepMrDAM
	m, err := NewMrDAM(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Add(patterns); err != nil {
		t.Fatal(err)
	}
	return m
}

func energies(t testing.TB, m Model, x []float64) (e, g []float64) {
	t.Helper()
	b := len(x) / m.Dim()
	e, g = make([]float64, b), make([]float64, len(x))
	if err := m.EnergyGrad(e, g, x); err != nil {
		t.Fatal(err)
	}
	return e, g
}

// relDiff returns ‖a − b‖ / ‖b‖ (or ‖a − b‖ when b = 0).
func relDiff(a, b []float64) float64 {
	var num, den float64
	for i := range a {
		num += (a[i] - b[i]) * (a[i] - b[i])
		den += b[i] * b[i]
	}
	if den == 0 {
		return math.Sqrt(num)
	}
	return math.Sqrt(num / den)
}
