package experiment

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/drdam/drdam/baseline"
	"github.com/drdam/drdam/features"
)

// TestCorrupt checks each corruption's damage: how many coordinates are
// scored per row, that masks are NaN exactly there, that noise stays in
// the range and changes only what it scores, and that the seed alone
// decides it.
func TestCorrupt(t *testing.T) {
	const top = 0.125
	rng := rand.New(rand.NewPCG(1, 2))
	for _, shape := range []struct{ h, w, bottom, box int }{{8, 8, 32, 16}, {1, 16, 8, 8}, {5, 3, 9, 6}} {
		d, b := shape.h*shape.w, 6
		x := make([]float64, b*d)
		for i := range x {
			x[i] = top * rng.Float64()
		}
		for _, c := range Corruptions() {
			q, sc, err := Corrupt(c, x, shape.h, shape.w, top, 7)
			if err != nil {
				t.Fatal(err)
			}
			q2, _, _ := Corrupt(c, x, shape.h, shape.w, top, 7)
			q3, _, _ := Corrupt(c, x, shape.h, shape.w, top, 8)
			if !slices.EqualFunc(q, q2, func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }) {
				t.Errorf("%v: not the same from the same seed", c)
			}
			if c != Bottom && slices.EqualFunc(q, q3, func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }) {
				t.Errorf("%v: the same from another seed", c)
			}
			want := map[Corruption]int{Bottom: shape.bottom, Random: d / 2, BoxMask: shape.box, SaltPepper: int(math.Round(0.2 * float64(d))), Gaussian: d}[c]
			for r := range b {
				n := 0
				for i := r * d; i < (r+1)*d; i++ {
					if sc[i] {
						n++
					}
					switch {
					case c.Masked() && sc[i] != math.IsNaN(q[i]):
						t.Fatalf("%v %dx%d: row %d coordinate %d: scored %v, value %v", c, shape.h, shape.w, r, i%d, sc[i], q[i])
					case !c.Masked() && (q[i] < 0 || q[i] > top):
						t.Fatalf("%v: %v out of [0, %v]", c, q[i], top)
					case !sc[i] && q[i] != x[i]:
						t.Fatalf("%v: an unscored coordinate changed", c)
					case c == SaltPepper && sc[i] && q[i] != 0 && q[i] != top:
						t.Fatalf("salt-and-pepper: %v", q[i])
					}
				}
				if n != want {
					t.Errorf("%v %dx%d: row %d has %d scored, want %d", c, shape.h, shape.w, r, n, want)
				}
			}
		}
	}
	if _, _, err := Corrupt(Bottom, make([]float64, 10), 3, 3, 1, 1); err == nil {
		t.Error("10 values as rows of 9: no error")
	}
}

// imputeFixture returns k well separated random patterns of d in [0, top]
// and a cell of their first b as stored queries with the bottom half
// hidden.
func imputeFixture(t *testing.T, k, d, b int, corr Corruption) ImputeCell {
	t.Helper()
	const top = 0.25
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, k*d)
	for i := range x {
		x[i] = top * float64(rng.IntN(2))
	}
	truth := slices.Clone(x[:b*d])
	q, sc, err := Corrupt(corr, truth, 1, d, top, 5)
	if err != nil {
		t.Fatal(err)
	}
	return ImputeCell{D: d, Top: top, Stored: x, Truth: truth, Queries: q, Scored: sc, Corruption: corr, Beta: 2000,
		Descent: Descent{Step: 1, MaxSteps: 50, Tol: 1e-12}}
}

// TestImputeCell checks the scores of a cell against values computed
// apart: the means' RMSE by hand, exact retrieval by 1-NN and by MrDAM
// from the kernel readout at a β where the stored binary patterns are
// separate minima, the state counted, the methods that apply, and the
// fixed steps of an early stop.
func TestImputeCell(t *testing.T) {
	const k, d, b = 40, 32, 8
	c := imputeFixture(t, k, d, b, Bottom)
	ms := []Method{
		{Name: "as is", Kind: MethodAsIs},
		{Name: "mean", Kind: MethodMean},
		{Name: "1-NN", Kind: MethodKNN, K: 1, Weighting: baseline.Uniform},
		{Name: "MrDAM kernel", Kind: MethodMrDAM, Start: StartKernel},
		{Name: "MrDAM knn", Kind: MethodMrDAM, Start: StartKNN},
		{Name: "MrDAM annealed", Kind: MethodMrDAM, Start: StartKernel, Anneal: true},
		{Name: "MrDAM early", Kind: MethodMrDAM, Start: StartMean, Early: true, Step: 0.5, Steps: 3},
		{Name: "DrDAM", Kind: MethodDrDAM, Start: StartMean, Y: 64, Projection: features.Structured, Beta: 4},
	}
	got, err := c.Run(context.Background(), ms)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]ImputeScore{}
	for _, s := range got {
		by[s.Method] = s
	}
	if _, ok := by["as is"]; ok {
		t.Error("the query as is measured under a mask")
	}
	// The means, by hand: RMSE over the hidden half of each query.
	mean := make([]float64, d)
	for r := range k {
		for j := range d {
			mean[j] += c.Stored[r*d+j] / k
		}
	}
	want := 0.0
	for q := range b {
		s := 0.0
		for j := d / 2; j < d; j++ {
			e := (mean[j] - c.Truth[q*d+j]) / c.Top
			s += e * e
		}
		want += math.Sqrt(s/(d/2)) / b
	}
	if m := by["mean"]; math.Abs(m.RMSE-want) > 1e-12 || m.Values != d {
		t.Errorf("mean: RMSE %v, %d values; want %v, %d", m.RMSE, m.Values, want, d)
	}
	for _, name := range []string{"1-NN", "MrDAM kernel", "MrDAM knn"} {
		if s := by[name]; s.Retrieved != 1 || s.RMSE > 1e-3 || s.Values != k*d {
			t.Errorf("%s: RMSE %v, retrieved %v, %d values; want exact retrieval of the stored queries with K·D values", name, s.RMSE, s.Retrieved, s.Values)
		}
	}
	if s := by["MrDAM early"]; s.Steps != 3 {
		t.Errorf("early stop: %v steps on average, want exactly 3", s.Steps)
	}
	if s := by["MrDAM annealed"]; s.Steps < 3 {
		t.Errorf("annealed: %v steps, want at least one per level", s.Steps)
	}
	if s := by["DrDAM"]; s.Values != 2*64+d || s.Build <= 0 {
		t.Errorf("DrDAM: %d values, build %v s; want 2Y + D = %d and a build time", s.Values, s.Build, 2*64+d)
	}
	// Noise: the query as is applies, the means and the starts do not.
	n := imputeFixture(t, k, d, b, Gaussian)
	got, err = n.Run(context.Background(), ms)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got {
		names = append(names, s.Method)
	}
	if wantNames := []string{"as is", "1-NN", "MrDAM annealed", "MrDAM early", "DrDAM"}; !slices.Equal(names, wantNames) {
		t.Errorf("noise measures %v, want %v", names, wantNames)
	}
}
