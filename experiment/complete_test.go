package experiment

import (
	"context"
	"math"
	"testing"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/rng"
)

// TestComplete stores 3 random "images" of D = 8×8×3, occludes the bottom
// quarter of each, and checks that MrDAM restores them (RMSE to the
// original below 2 gray levels: at β = 60 with patterns ‖ξ − ξ′‖² ≈ 1/6
// apart, the other memories' softmax weights are ~e^{−5}) and that DrDAM
// with Y = 2·10⁴ SORF features ends within 5 gray levels of MrDAM (its
// kernel noise √(K/2Y) ≈ 0.009 against a kernel value at the start of
// e^{−β/2·‖hidden part‖²} ≈ e^{−2.5} ≈ 0.08, and ≈ 1 at the end), with the
// visible part untouched. (With half the image hidden the kernel value at
// the start, e^{−5}, is below the noise: the far-query regime of Obs. 3.)
// It held for each of 20 pairs of data and projection seeds.
func TestComplete(t *testing.T) { testComplete(t, 4, 1) }

func testComplete(t *testing.T, dataSeed, seed uint64) {
	const h, w, k = 8, 8, 3
	d := h * w * 3
	var s rng.Stream
	s.Reset(dataSeed, 1)
	x := make([]float64, k*d)
	for i := range x {
		x[i] = float64(s.Uint64()%256) / 255 / math.Sqrt(float64(d))
	}
	vis := make([]bool, d)
	for i := range 3 * d / 4 {
		vis[i] = true
	}
	c := Completion{D: d, Stored: x, Queries: x, Visible: vis, Beta: 60, Step: 0.1, MaxSteps: 2000, Tol: 1e-12, Box: true,
		DrDAM: dam.Config{Y: 20000, Projection: features.Structured, Seed: seed}}
	res, err := Complete(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	for q := range k {
		if res.MrToOriginal[q] > 2 || res.DrToMr[q] > 5 {
			t.Errorf("query %d: RMSE MrDAM→original %.2f, DrDAM→MrDAM %.2f (want ≤ 2 and ≤ 5)", q, res.MrToOriginal[q], res.DrToMr[q])
		}
		for i := range 3 * d / 4 {
			if res.Dr.X[q*d+i] != x[q*d+i] || res.Mr.X[q*d+i] != x[q*d+i] {
				t.Fatalf("query %d: visible coordinate %d moved", q, i)
			}
		}
		if res.Occluded[q*d+d-1] != 0 {
			t.Fatalf("query %d: hidden coordinate not zeroed", q)
		}
	}
	if res.TSize != 40000 || res.MemorySize != k*d {
		t.Errorf("sizes T %d, memory %d; want 40000 and %d", res.TSize, res.MemorySize, k*d)
	}
	if _, err := Complete(context.Background(), Completion{D: d, Stored: x, Queries: x, Visible: vis[:5]}); err == nil {
		t.Error("a mask of the wrong length was accepted")
	}
	// The visible quarter is clamped, equal in all three, so it adds 0 to
	// the squared errors: the whole-image RMSE is the occluded one times
	// √(hidden/D) = ½ (to rounding, 1e-9 relative). MrDAM retrieves each
	// query's own pattern (margin > 0), and so does DrDAM here.
	for q := range k {
		for _, p := range [][2]float64{{res.DrToMr[q], res.DrToMrFree[q]}, {res.DrToOriginal[q], res.DrToOriginalFree[q]}, {res.MrToOriginal[q], res.MrToOriginalFree[q]}} {
			if math.Abs(p[0]-p[1]/2) > 1e-9*p[1] {
				t.Errorf("query %d: whole-image RMSE %v, occluded %v: want half", q, p[0], p[1])
			}
		}
		if res.Own[q] != q || !(res.MrMargin[q] > 0) || !(res.DrMargin[q] > 0) {
			t.Errorf("query %d: own pattern %d, margins MrDAM %v, DrDAM %v", q, res.Own[q], res.MrMargin[q], res.DrMargin[q])
		}
	}
	// A second seed reusing MrDAM's descent gives the same MrDAM numbers
	// (MrDAM is deterministic) without descending again.
	c2 := c
	c2.DrDAM.Seed, c2.Mr = seed+100, res.Mr
	res2, err := Complete(context.Background(), c2)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Mr != res.Mr || res2.MrTime != 0 || res2.MrToOriginalFree[0] != res.MrToOriginalFree[0] || res2.DrToMrFree[0] == res.DrToMrFree[0] {
		t.Errorf("reusing MrDAM: MrDAM–original %v vs %v, DrDAM–MrDAM %v vs %v (want equal, then different), MrDAM time %v",
			res2.MrToOriginalFree[0], res.MrToOriginalFree[0], res2.DrToMrFree[0], res.DrToMrFree[0], res2.MrTime)
	}
	c2.Mr = &dam.Result{X: x[:d]}
	if _, err := Complete(context.Background(), c2); err == nil {
		t.Error("a reused MrDAM descent of the wrong size was accepted")
	}
}

// TestFill: the starting points of each fill, on two queries of two
// pixels of two channels (D = 4, coordinate i of channel i mod 2) with
// the second pixel hidden. The values are sums of two or three numbers
// of the form k/8, exact in binary, so they are compared exactly.
func TestFill(t *testing.T) {
	stored := []float64{
		0.5, 0.25, 0.125, 0.375, // pixel 0 (channels 0, 1), pixel 1
		0.25, 0.75, 0.625, 0.125,
	}
	vis := []bool{true, true, false, false}
	for _, c := range []struct {
		fill Fill
		want []float64
	}{
		{FillZero, []float64{0.5, 0.25, 0, 0, 0.25, 0.75, 0, 0}},
		// Per channel, the mean of the query's one visible pixel.
		{FillMean, []float64{0.5, 0.25, 0.5, 0.25, 0.25, 0.75, 0.25, 0.75}},
		// The mean stored pattern's hidden pixel: (0.125+0.625)/2, (0.375+0.125)/2.
		{FillStoredMean, []float64{0.5, 0.25, 0.375, 0.25, 0.25, 0.75, 0.375, 0.25}},
	} {
		cp := Completion{D: 4, Stored: stored, Queries: stored, Visible: vis, Fill: c.fill, Channels: 2}
		got := make([]float64, 8)
		if err := cp.occlude(got); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%v: start %v, want %v", c.fill, got, c.want)
				break
			}
		}
		if f, err := ParseFill(c.fill.String()); err != nil || f != c.fill {
			t.Errorf("ParseFill(%q) = %v, %v", c.fill.String(), f, err)
		}
	}
	if _, err := ParseFill("grey"); err == nil {
		t.Error("ParseFill(grey): no error")
	}
	cp := Completion{D: 4, Stored: stored, Queries: stored, Visible: vis, Channels: 3}
	if err := cp.occlude(make([]float64, 8)); err == nil {
		t.Error("D = 4 in 3 channels: no error")
	}
}
