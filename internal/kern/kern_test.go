package kern

import (
	"fmt"
	"math"
	"testing"

	"github.com/drdam/drdam/internal/cpuid"
	"github.com/drdam/drdam/internal/rng"
)

func randRows(seed uint64, r, c int) []float64 {
	s := rng.New(seed, 7)
	x := make([]float64, r*c)
	s.Normals(x)
	return x
}

// eachLevel runs f at every kernel level this machine supports.
func eachLevel(t *testing.T, f func(t *testing.T)) {
	prev := cpuid.Current()
	defer cpuid.Set(prev)
	for _, lv := range cpuid.Supported() {
		cpuid.Set(lv)
		t.Run(lv.String(), f)
	}
}

// unitRoundoff returns 2⁻²⁴ for float32, 2⁻⁵³ for float64.
func unitRoundoff[T Float]() float64 {
	if Lanes[T]() == 16 {
		return 0x1p-24
	}
	return 0x1p-53
}

// shapes covers ragged edges: rows and queries that are not multiples of
// the panel height, D not a multiple of 16, one and several query panels
// (1, 2, 3 and 4 panels exercise every NV kernel and the groupings).
var shapes = []struct{ y, d, b int }{
	{1, 1, 1}, {16, 16, 16}, {17, 5, 3}, {40, 33, 20}, {64, 100, 48}, {37, 7, 49}, {100, 130, 64}, {33, 1, 17},
}

func testProducts[T Float](t *testing.T) {
	l := Lanes[T]()
	// Both products are sums of D (or n) products of inputs that are
	// exactly representable in T (they were converted before the
	// reference sees them); the standard bound on the rounding error of a
	// sum of m terms is γ_m·Σ|terms| with γ_m ≈ m·u, so 2·m·u·Σ|terms|
	// (plus a tiny absolute floor) holds for any correct kernel, while a
	// wrong index or a missing term is off by the size of a term.
	u := unitRoundoff[T]()
	for _, sh := range shapes {
		name := fmt.Sprintf("Y%d_D%d_B%d", sh.y, sh.d, sh.b)
		wr := randRows(1, sh.y, sh.d)
		xr := randRows(2, sh.b, sh.d)
		w, x := NewPanels[T](sh.y, sh.d), NewPanels[T](sh.b, sh.d)
		w.SetRows(0, wr, 1)
		x.SetRows(0, xr, 1)
		// The values the kernels see, in float64.
		wv, xv := make([]float64, len(wr)), make([]float64, len(xr))
		for r := range sh.y {
			w.Row(wv[r*sh.d:(r+1)*sh.d], r, 1)
		}
		for r := range sh.b {
			x.Row(xv[r*sh.d:(r+1)*sh.d], r, 1)
		}
		// Forward over every split of the panels into [0, m) and [m, NP).
		for _, split := range []int{0, w.NP / 2, w.NP} {
			for _, rng := range [][2]int{{0, split}, {split, w.NP}} {
				p0, p1 := rng[0], rng[1]
				h := make([]T, BlockLen[T](x.NP, p0, p1))
				for i := range h {
					h[i] = T(math.NaN()) // every entry must be written
				}
				Forward(h, w, x, p0, p1)
				n := (p1 - p0) * l
				for a := p0 * l; a < min(p1*l, sh.y); a++ {
					for q := range sh.b {
						var ref, abs float64
						for d := range sh.d {
							ref += wv[a*sh.d+d] * xv[q*sh.d+d]
							abs += math.Abs(wv[a*sh.d+d] * xv[q*sh.d+d])
						}
						got := float64(h[(q/l)*n*l+(a-p0*l)*l+q%l])
						if math.Abs(got-ref) > 2*float64(sh.d)*u*abs+1e-300 || math.IsNaN(got) {
							t.Fatalf("%s: Forward panels [%d,%d) row %d query %d: %v, want %v", name, p0, p1, a, q, got, ref)
						}
					}
				}
			}
		}
		// BackwardAdd of random G over two blocks, onto a non-zero Z.
		g := randRows(3, sh.b, w.NP*l) // g[q][α]
		z := NewPanels[T](sh.b, sh.d)
		z0 := randRows(4, sh.b, sh.d)
		z.SetRows(0, z0, 1)
		zv := make([]float64, len(z0))
		for r := range sh.b {
			z.Row(zv[r*sh.d:(r+1)*sh.d], r, 1)
		}
		gv := make([]float64, len(g)) // G as the kernels see it
		mid := w.NP / 2
		for _, rng := range [][2]int{{0, mid}, {mid, w.NP}} {
			p0, p1 := rng[0], rng[1]
			n := (p1 - p0) * l
			gb := make([]T, BlockLen[T](z.NP, p0, p1))
			for q := range sh.b {
				for r := range n {
					v := T(g[q*w.NP*l+p0*l+r])
					gb[(q/l)*n*l+r*l+q%l] = v
					gv[q*w.NP*l+p0*l+r] = float64(v)
				}
			}
			BackwardAdd(z, w, gb, p0, p1)
		}
		got := make([]float64, sh.d)
		for q := range sh.b {
			z.Row(got, q, 1)
			for d := range sh.d {
				ref, abs := zv[q*sh.d+d], math.Abs(zv[q*sh.d+d])
				for a := range sh.y {
					ref += wv[a*sh.d+d] * gv[q*w.NP*l+a]
					abs += math.Abs(wv[a*sh.d+d] * gv[q*w.NP*l+a])
				}
				if math.Abs(got[d]-ref) > 2*float64(sh.y+1)*u*abs+1e-300 {
					t.Fatalf("%s: BackwardAdd query %d column %d: %v, want %v", name, q, d, got[d], ref)
				}
			}
		}
		// Padding stays zero: columns ≥ D of Z are never written.
		for qp := range z.NP {
			for d := sh.d; d < z.Cp; d++ {
				for j := range l {
					if v := z.Data[qp*z.Cp*l+d*l+j]; v != 0 {
						t.Fatalf("%s: padding column %d of Z is %v", name, d, v)
					}
				}
			}
		}
	}
}

func TestProducts32(t *testing.T) { eachLevel(t, testProducts[float32]) }
func TestProducts64(t *testing.T) { eachLevel(t, testProducts[float64]) }

func TestPanelsRoundTrip(t *testing.T) {
	src := randRows(5, 19, 21)
	p := NewPanels[float64](19, 21)
	p.SetRows(0, src, 1)
	row := make([]float64, 21)
	for r := range 19 {
		p.Row(row, r, 1)
		for c := range 21 {
			if row[c] != src[r*21+c] {
				t.Fatalf("row %d column %d: %v, want %v", r, c, row[c], src[r*21+c])
			}
		}
	}
	if p.Cp != 32 || p.NP != 3 {
		t.Errorf("Cp = %d, NP = %d; want 32, 3", p.Cp, p.NP)
	}
}
