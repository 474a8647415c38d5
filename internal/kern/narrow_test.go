package kern

import (
	"fmt"
	"math"
	"testing"
)

// narrowShapes cover one and several tiles of columns (D up to 130, the
// AVX-512 backward tile is 16 columns), D not a multiple of 16, ragged
// panels, and blocks of many panels (Y = 600).
var narrowShapes = []struct{ y, d int }{{1, 1}, {17, 5}, {40, 33}, {100, 130}, {600, 20}, {40, 2100}}

// testNarrow checks ForwardNarrow and BackwardAddNarrow for every batch
// size 1…MaxNarrow against float64 references, with the error bound of
// testProducts (2·m·u·Σ|terms| for sums of m products of values exact in
// T, whatever the order of the additions), and that they write exactly
// what they should: every entry of h (lanes ≥ B zero), never the padding
// of Z.
func testNarrow[T Float](t *testing.T) {
	l := Lanes[T]()
	u := unitRoundoff[T]()
	for _, sh := range narrowShapes {
		for b := 1; b <= MaxNarrow[T](); b++ {
			name := fmt.Sprintf("Y%d_D%d_B%d", sh.y, sh.d, b)
			wr, xr := randRows(1, sh.y, sh.d), randRows(2, b, sh.d)
			w, x := NewPanels[T](sh.y, sh.d), NewNarrow[T](b, sh.d)
			w.SetRows(0, wr, 1)
			x.SetRows(0, xr, 1)
			wv, xv := make([]float64, len(wr)), make([]float64, len(xr))
			for r := range sh.y {
				w.Row(wv[r*sh.d:(r+1)*sh.d], r, 1)
			}
			for r := range b {
				x.Row(xv[r*sh.d:(r+1)*sh.d], r, 1)
			}
			for _, rng := range [][2]int{{0, w.NP}, {w.NP / 2, w.NP}} {
				p0, p1 := rng[0], rng[1]
				h := make([]T, BlockLen[T](1, p0, p1))
				for i := range h {
					h[i] = T(math.NaN())
				}
				ForwardNarrow(h, w, x, p0, p1)
				for a := p0 * l; a < p1*l; a++ {
					for q := range l {
						got := float64(h[(a-p0*l)*l+q])
						var ref, abs float64
						if q < b && a < sh.y {
							for d := range sh.d {
								ref += wv[a*sh.d+d] * xv[q*sh.d+d]
								abs += math.Abs(wv[a*sh.d+d] * xv[q*sh.d+d])
							}
						}
						if math.Abs(got-ref) > 2*float64(sh.d)*u*abs || math.IsNaN(got) {
							t.Fatalf("%s: ForwardNarrow panels [%d,%d) row %d lane %d: %v, want %v", name, p0, p1, a, q, got, ref)
						}
					}
				}
			}
			// BackwardAddNarrow of random G (nonzero in the padding
			// lanes, which must be ignored) over two blocks onto a
			// nonzero Z.
			g := randRows(3, w.NP*l, l) // g[α][lane]
			gv := make([]float64, len(g))
			z := NewNarrow[T](b, sh.d)
			z0 := randRows(4, b, sh.d)
			z.SetRows(0, z0, 1)
			zv := make([]float64, len(z0))
			for r := range b {
				z.Row(zv[r*sh.d:(r+1)*sh.d], r, 1)
			}
			mid := w.NP / 2
			for _, rng := range [][2]int{{0, mid}, {mid, w.NP}} {
				p0, p1 := rng[0], rng[1]
				gb := make([]T, BlockLen[T](1, p0, p1))
				for i := range gb {
					gb[i] = T(g[p0*l*l+i])
					gv[p0*l*l+i] = float64(gb[i])
				}
				BackwardAddNarrow(z, w, gb, p0, p1)
			}
			got := make([]float64, sh.d)
			for q := range b {
				z.Row(got, q, 1)
				for d := range sh.d {
					ref, abs := zv[q*sh.d+d], math.Abs(zv[q*sh.d+d])
					for a := range sh.y {
						ref += wv[a*sh.d+d] * gv[a*l+q]
						abs += math.Abs(wv[a*sh.d+d] * gv[a*l+q])
					}
					if math.Abs(got[d]-ref) > 2*float64(sh.y+1)*u*abs {
						t.Fatalf("%s: BackwardAddNarrow query %d column %d: %v, want %v", name, q, d, got[d], ref)
					}
				}
			}
			for d := sh.d; d < z.Cp; d++ {
				for q := range b {
					if v := z.Data[z.index(q, d)]; v != 0 {
						t.Fatalf("%s: padding column %d of Z row %d is %v", name, d, q, v)
					}
				}
			}
		}
	}
}

func TestNarrow32(t *testing.T) { eachLevel(t, testNarrow[float32]) }
func TestNarrow64(t *testing.T) { eachLevel(t, testNarrow[float64]) }

// TestNarrowMatchesPanels: at every kernel level, the small-batch products
// give bit for bit the results of Forward and BackwardAdd on the same
// batch (the same chains of multiply-adds, see ForwardNarrow), for every
// batch size, over blocks of several panels, D over several chunks of
// columns, Z accumulated over two blocks, with zeros in W (which the
// portable BackwardAdd skips).
func TestNarrowMatchesPanels(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		testMatchesPanels[float32](t)
		testMatchesPanels[float64](t)
	})
}

func testMatchesPanels[T Float](t *testing.T) {
	const y, d = 70, 2100
	wr := randRows(5, y, d)
	for i := 0; i < len(wr); i += 7 {
		wr[i] = 0
	}
	w := NewPanels[T](y, d)
	w.SetRows(0, wr, 1)
	mid := w.NP / 2
	for b := 1; b <= MaxNarrow[T](); b++ {
		xr := randRows(6, b, d)
		xp, xn := NewPanels[T](b, d), NewNarrow[T](b, d)
		xp.SetRows(0, xr, 1)
		xn.SetRows(0, xr, 1)
		zp, zn := NewPanels[T](b, d), NewNarrow[T](b, d)
		for _, rng := range [][2]int{{0, mid}, {mid, w.NP}} {
			p0, p1 := rng[0], rng[1]
			h1, h2 := make([]T, BlockLen[T](1, p0, p1)), make([]T, BlockLen[T](1, p0, p1))
			Forward(h1, w, xp, p0, p1)
			ForwardNarrow(h2, w, xn, p0, p1)
			for i := range h1 {
				if h1[i] != h2[i] {
					t.Fatalf("B%d panels [%d,%d) h[%d]: Forward %v, ForwardNarrow %v", b, p0, p1, i, h1[i], h2[i])
				}
			}
			BackwardAdd(zp, w, h1, p0, p1)
			BackwardAddNarrow(zn, w, h1, p0, p1)
		}
		r1, r2 := make([]float64, d), make([]float64, d)
		for q := range b {
			zp.Row(r1, q, 1)
			zn.Row(r2, q, 1)
			for i := range r1 {
				if r1[i] != r2[i] {
					t.Fatalf("B%d Z[%d][%d]: BackwardAdd %v, BackwardAddNarrow %v", b, q, i, r1[i], r2[i])
				}
			}
		}
	}
}

// TestStepNarrow: StepNarrow gives the bits of BackwardAddNarrow and
// ForwardNarrow, at every level, for every batch size (float32 B > 6 takes
// two calls of the fused kernels), blocks of the same projection (the
// engine's case) and of two, and blocks of different lengths.
func TestStepNarrow(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		testStepNarrow[float32](t)
		testStepNarrow[float64](t)
	})
}

func testStepNarrow[T Float](t *testing.T) {
	l := Lanes[T]()
	for _, d := range []int{40, 1100} {
		w := NewPanels[T](100, d)
		w.SetRows(0, randRows(7, 100, d), 1)
		w2 := NewPanels[T](3*l, d)
		w2.SetRows(0, randRows(8, 3*l, d), 1)
		for b := 1; b <= MaxNarrow[T](); b++ {
			x := NewNarrow[T](b, d)
			x.SetRows(0, randRows(9, b, d), 1)
			for _, c := range []struct {
				wf             *Panels[T]
				pb, pf, nb, nf int // first panels and panel counts of the two blocks
			}{{w, 0, 3, 3, 3}, {w, 1, 4, 2, 3}, {w, 2, 3, 3, 1}, {w2, 3, 0, 2, 2}} {
				g := make([]T, BlockLen[T](1, 0, c.nb))
				fill(g, 3)
				z1, z2 := NewNarrow[T](b, d), NewNarrow[T](b, d)
				fill(z1.Data, 4)
				copy(z2.Data, z1.Data)
				h1, h2 := make([]T, BlockLen[T](1, 0, c.nf)), make([]T, BlockLen[T](1, 0, c.nf))
				BackwardAddNarrow(z1, w, g, c.pb, c.pb+c.nb)
				ForwardNarrow(h1, c.wf, x, c.pf, c.pf+c.nf)
				StepNarrow(z2, w, g, c.pb, c.pb+c.nb, h2, c.wf, x, c.pf, c.pf+c.nf)
				for i := range z1.Data {
					if z1.Data[i] != z2.Data[i] {
						t.Fatalf("D%d B%d %+v: Z[%d] = %v, want %v", d, b, c, i, z2.Data[i], z1.Data[i])
					}
				}
				for i := range h1 {
					if h1[i] != h2[i] {
						t.Fatalf("D%d B%d %+v: h[%d] = %v, want %v", d, b, c, i, h2[i], h1[i])
					}
				}
			}
		}
	}
}
