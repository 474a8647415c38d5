package dam

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// holes returns a copy of the rows x (B×d) with NaN where miss says.
func holes(x []float64, d int, miss func(q, i int) bool) []float64 {
	y := slices.Clone(x)
	for j := range y {
		if miss(j/d, j%d) {
			y[j] = math.NaN()
		}
	}
	return y
}

// TestComplete: on an MrDAM and two DrDAMs, for holes of several shapes
// (a row with nothing visible, one with nothing missing among them), with
// and without a fill, a box and a tolerance, Complete leaves x as it was,
// returns the visible entries bit for bit, and returns what Recall returns
// from the equivalent start (the fill, or 0, in the holes) and mask (the
// visible entries), bit for bit.
func TestComplete(t *testing.T) {
	const d, k, b = 12, 6, 4
	xi := grayPatterns(301, k, d)
	fill := make([]float64, d)
	for i := range fill {
		fill[i] = 0.5 / math.Sqrt(d)
	}
	models := []Model{
		mustMrDAM(t, Config{D: d, Beta: 20}, xi),
		mustDrDAM(t, Config{D: d, Beta: 20, Y: 2000, Seed: 1}, xi),
		mustDrDAM(t, Config{D: d, Beta: 20, Y: 2000, Seed: 1, Similarity: Dot}, xi),
	}
	for _, tc := range []struct {
		name string
		miss func(q, i int) bool
		opt  CompleteOptions
	}{
		{"second half", func(q, i int) bool { return i >= d/2 }, CompleteOptions{RecallOptions: RecallOptions{Step: 0.1, MaxSteps: 40}}},
		{"second half, filled", func(q, i int) bool { return i >= d/2 }, CompleteOptions{RecallOptions: RecallOptions{Step: 0.1, MaxSteps: 40}, Fill: fill}},
		{"scattered, box and tol", func(q, i int) bool { return (q*5+i*3)%4 == 0 }, CompleteOptions{RecallOptions: RecallOptions{Step: 0.2, MaxSteps: 300, Tol: 1e-9, Box: &Box{Lo: 0, Hi: 1 / math.Sqrt(d)}}, Fill: fill}},
		{"row 0 all missing, row 1 none", func(q, i int) bool { return q == 0 || q > 1 && i%2 == 1 }, CompleteOptions{RecallOptions: RecallOptions{Step: 0.1, MaxSteps: 25}, Fill: fill}},
	} {
		for _, m := range models {
			x := holes(xi[:b*d], d, tc.miss)
			keep := slices.Clone(x)
			res, err := Complete(m, x, tc.opt)
			if err != nil {
				t.Fatalf("%s, %T: %v", tc.name, m, err)
			}
			for j := range x {
				if math.Float64bits(x[j]) != math.Float64bits(keep[j]) {
					t.Fatalf("%s, %T: x[%d] changed from %v to %v", tc.name, m, j, keep[j], x[j])
				}
			}
			// The equivalent recall, built here from its definition.
			start, mask := make([]float64, b*d), make([]bool, b*d)
			for j, v := range x {
				switch {
				case !math.IsNaN(v):
					start[j], mask[j] = v, true
				case tc.opt.Fill != nil:
					start[j] = tc.opt.Fill[j%d]
				}
			}
			ro := tc.opt.RecallOptions
			ro.Clamp = mask
			want, err := Recall(m, start, ro)
			if err != nil {
				t.Fatal(err)
			}
			moved := 0
			for j, v := range res.X {
				if math.Float64bits(v) != math.Float64bits(want.X[j]) {
					t.Fatalf("%s, %T: X[%d] = %v, Recall's %v", tc.name, m, j, v, want.X[j])
				}
				if mask[j] && math.Float64bits(v) != math.Float64bits(x[j]) {
					t.Fatalf("%s, %T: visible entry %d changed from %v to %v", tc.name, m, j, x[j], v)
				}
				if !mask[j] && v != start[j] {
					moved++
				}
			}
			if moved == 0 {
				t.Errorf("%s, %T: no missing entry moved", tc.name, m)
			}
			if !slices.Equal(res.Steps, want.Steps) || !slices.Equal(res.Outcome, want.Outcome) {
				t.Errorf("%s, %T: steps %v, outcomes %v; Recall's %v, %v", tc.name, m, res.Steps, res.Outcome, want.Steps, want.Outcome)
			}
			for q := range res.Energy {
				if !slices.Equal(res.Energy[q], want.Energy[q]) {
					t.Errorf("%s, %T: row %d's energies differ from Recall's", tc.name, m, q+1)
				}
			}
		}
	}
}

// TestCompletePerRowFill: with a B·D fill (a different start per row),
// on an MrDAM and a DrDAM, each row's result (final state, steps,
// outcome, energies) is the one of completing that row alone with its
// own fill as a length-D Fill, bit for bit; and the fill does reach the
// start (rows with the same holes but different fills end apart).
func TestCompletePerRowFill(t *testing.T) {
	const d, k, b = 12, 6, 5
	xi := grayPatterns(321, k, d)
	models := []Model{
		mustMrDAM(t, Config{D: d, Beta: 20}, xi),
		mustDrDAM(t, Config{D: d, Beta: 20, Y: 2000, Seed: 3}, xi),
	}
	// Rows 0 and 1 are the same query with different fills; row 4 has
	// nothing missing.
	src := slices.Concat(xi[:d], xi[:d], xi[d:4*d])
	x := holes(src, d, func(q, i int) bool { return q != 4 && (i+q)%3 != 1 })
	fill := make([]float64, b*d)
	for j := range fill {
		fill[j] = float64((j*7)%11) / 11 / math.Sqrt(d)
	}
	opt := CompleteOptions{RecallOptions: RecallOptions{Step: 0.1, MaxSteps: 60, Tol: 1e-12}, Fill: fill}
	for _, m := range models {
		res, err := Complete(m, x, opt)
		if err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		for q := range b {
			one := opt
			one.Fill = fill[q*d : (q+1)*d]
			want, err := Complete(m, x[q*d:(q+1)*d], one)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range want.X {
				if math.Float64bits(res.X[q*d+i]) != math.Float64bits(v) {
					t.Fatalf("%T, row %d, column %d: %v, alone %v", m, q+1, i+1, res.X[q*d+i], v)
				}
			}
			if res.Steps[q] != want.Steps[0] || res.Outcome[q] != want.Outcome[0] || !slices.Equal(res.Energy[q], want.Energy[0]) {
				t.Errorf("%T, row %d: steps %d, outcome %v; alone %d, %v (or the energies differ)", m, q+1, res.Steps[q], res.Outcome[q], want.Steps[0], want.Outcome[0])
			}
		}
		if slices.Equal(res.X[:d], res.X[d:2*d]) {
			t.Errorf("%T: rows 1 and 2, the same query with different fills, end equal: the per-row fill was not used", m)
		}
	}
}

// TestCompleteStoredPattern: each of a few stored patterns with half its
// entries missing completes to itself on an MrDAM of large β. Near
// pattern ν the missing entries' fixed point is Σ_μ p_μ ξ_μ, and another
// pattern's weight is at most exp(−β δ²/2), δ² its squared distance to ν
// on ν's visible entries (checked below: under 1e−11 at β = 1000); η = 0.5
// halves the distance to the fixed point each step, 200 steps leave
// 2⁻²⁰⁰ of it; 1e−9 is far above both and far below the 0.01 by which a
// wrong pattern would miss.
func TestCompleteStoredPattern(t *testing.T) {
	const d, k = 16, 4
	xi := grayPatterns(311, k, d)
	m := mustMrDAM(t, Config{D: d, Beta: 1000}, xi)
	miss := func(q, i int) bool { return (i+q)%2 == 0 }
	for q := range k {
		for o := range k {
			var dd float64
			for i := range d {
				if o != q && !miss(q, i) {
					dd += (xi[q*d+i] - xi[o*d+i]) * (xi[q*d+i] - xi[o*d+i])
				}
			}
			if w := math.Exp(-1000 * dd / 2); o != q && w > 1e-11 {
				t.Fatalf("patterns %d and %d: a weight of %.3g on %d's visible entries, too close for this test", q+1, o+1, w, q+1)
			}
		}
	}
	x := holes(xi, d, miss)
	res, err := Complete(m, x, CompleteOptions{RecallOptions: RecallOptions{Step: 0.5, MaxSteps: 200}})
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range res.X {
		if math.Abs(v-xi[j]) > 1e-9 {
			t.Errorf("row %d, column %d: completed to %v, stored %v", j/d+1, j%d+1, v, xi[j])
		}
	}
}

// TestCompleteErrors: ±Inf names its row and column, and the other bad
// inputs are refused with what is wrong.
func TestCompleteErrors(t *testing.T) {
	const d = 4
	m := mustMrDAM(t, Config{D: d, Beta: 10}, grayPatterns(1, 3, d))
	ok := RecallOptions{Step: 0.1, MaxSteps: 5}
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		x    []float64
		opt  CompleteOptions
		want string
	}{
		{"+Inf", []float64{0, 0, 0, 0, 0, nan, math.Inf(1), 0}, CompleteOptions{RecallOptions: ok}, "row 2, column 3 is +Inf"},
		{"-Inf", []float64{math.Inf(-1), 0, 0, 0}, CompleteOptions{RecallOptions: ok}, "row 1, column 1 is -Inf"},
		{"no rows", nil, CompleteOptions{RecallOptions: ok}, "no rows"},
		{"ragged", []float64{0, 0, 0}, CompleteOptions{RecallOptions: ok}, "not a whole number of rows"},
		{"fill of wrong length", []float64{0, nan, 0, 0}, CompleteOptions{RecallOptions: ok, Fill: []float64{0}}, "the fill has 1 values, want D = 4 (one start for every row) or B·D = 1·4 = 4"},
		{"fill of neither D nor B·D", []float64{0, nan, 0, 0, nan, 0, 0, 0}, CompleteOptions{RecallOptions: ok, Fill: make([]float64, 12)}, "the fill has 12 values, want D = 4 (one start for every row) or B·D = 2·4 = 8 (a start per row)"},
		{"per-row fill with NaN", []float64{0, nan, 0, 0, nan, 0, 0, 0}, CompleteOptions{RecallOptions: ok, Fill: []float64{0, 0, 0, 0, 0, 0, nan, 0}}, "fill's row 2, column 3 is NaN"},
		{"fill with NaN", []float64{0, nan, 0, 0}, CompleteOptions{RecallOptions: ok, Fill: []float64{0, nan, 0, 0}}, "fill's column 2 is NaN"},
		{"a clamp", []float64{0, nan, 0, 0}, CompleteOptions{RecallOptions: RecallOptions{Step: 0.1, Clamp: make([]bool, d)}}, "Clamp must be nil"},
		{"no step", []float64{0, nan, 0, 0}, CompleteOptions{}, "step size"},
	} {
		_, err := Complete(m, tc.x, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
		if strings.Contains(tc.name, "Inf") {
			var re *RowError
			if !errors.As(err, &re) {
				t.Errorf("%s: %T, want a *RowError", tc.name, err)
			}
		}
	}
}
