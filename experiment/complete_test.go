package experiment

import (
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
	res, err := Complete(c)
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
	if _, err := Complete(Completion{D: d, Stored: x, Queries: x, Visible: vis[:5]}); err == nil {
		t.Error("a mask of the wrong length was accepted")
	}
}
