package features

import (
	"context"
	"math"
	"sync"
	"testing"
)

// TestGenerationProgress: with a progress function (Seeded.Progress), Seeded.Rows
// draws bit for bit the rows it draws without, and its reports add up to
// the rows drawn (Y for a whole projection), several per call for long
// ones, whether the rows are drawn at once or in ranges that cut blocks.
func TestGenerationProgress(t *testing.T) {
	for _, gen := range generators {
		testGenerationProgress(t, gen)
	}
	// The context carries the function to the projections made with it,
	// and only to those.
	called := false
	ctx := WithGenerationProgress(context.Background(), func(GenerationReport) { called = true })
	p, err := NewProjectionContext(context.Background(), Gaussian, DefaultGenerator, 1, 10, 4)
	if err != nil {
		t.Fatal(err)
	}
	p.(*Seeded).Rows(make([]float64, 40), 0, 10)
	if called {
		t.Error("a projection made without the progress function reported to it")
	}
	p, err = NewProjectionContext(ctx, Gaussian, DefaultGenerator, 1, 10, 4)
	if err != nil {
		t.Fatal(err)
	}
	p.(*Seeded).Rows(make([]float64, 40), 0, 10)
	if !called {
		t.Error("a projection made with the context's progress function did not report to it")
	}
}

func testGenerationProgress(t *testing.T, gen Generator) {
	for _, c := range []struct {
		kind       ProjectionKind
		y, d       int
		ranges     [][2]int
		minReports int
	}{
		{Gaussian, 5000, 256, [][2]int{{0, 5000}}, 2},
		{Gaussian, 300, 8, [][2]int{{0, 100}, {100, 300}}, 2},
		// Gram–Schmidt (version 1) reports 64 times per block of 256 rows
		// or more, the Householder QR (version 2) once per panel of 32
		// rows in each of its two phases: 16 per block of 256.
		{Orthogonal, 600, 256, [][2]int{{0, 600}}, 3 * 16},
		{Orthogonal, 600, 256, [][2]int{{0, 100}, {100, 512}, {512, 600}}, 3 * 16},
		{Orthogonal, 40, 16, [][2]int{{0, 40}}, 3},
	} {
		s, err := NewSeeded(c.kind, gen, 7, c.y, c.d)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, c.y*c.d)
		s.Rows(want, 0, c.y)
		var mu sync.Mutex
		var sum float64
		n := 0
		s.Progress = func(r GenerationReport) {
			mu.Lock()
			defer mu.Unlock()
			if r.Kind != c.kind || r.Gen != gen || r.Seed != 7 || r.Y != c.y || r.D != c.d || r.Rows < 0 {
				t.Errorf("report %+v", r)
			}
			sum += r.Rows
			n++
		}
		got := make([]float64, c.y*c.d)
		for _, r := range c.ranges {
			s.Rows(got[r[0]*c.d:r[1]*c.d], r[0], r[1])
		}
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%v %d×%d: entry %d is %v with the hook, %v without", c.kind, c.y, c.d, i, got[i], want[i])
			}
		}
		if math.Abs(sum-float64(c.y)) > 1e-6 || n < c.minReports {
			t.Errorf("%v %d×%d in %v: %d reports adding up to %v rows, want ≥ %d adding up to %d", c.kind, c.y, c.d, c.ranges, n, sum, c.minReports, c.y)
		}
	}
}
