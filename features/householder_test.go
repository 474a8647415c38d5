package features

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"testing"

	"github.com/drdam/drdam/internal/cpuid"
	"github.com/drdam/drdam/internal/qr"
	"github.com/drdam/drdam/internal/rng"
	"github.com/drdam/drdam/internal/simdtest"
)

// qrDims are the block sizes of the Householder tests: tiny blocks, sizes
// around the panel width (32) and the sub-panel width (8), sizes that are
// not multiples of 8 (a padded working copy), and D = 1000.
var qrDims = []int{1, 2, 3, 7, 17, 31, 32, 33, 64, 100, 257, 1000}

// qrBlock returns block k of seed's orthogonal projection by both
// algorithms from the same Gaussians: orthoBlock's and orthoBlockQR's.
func qrBlock(seed uint64, k, d int) (mgs, hh, norms []float64) {
	mgs, hh = make([]float64, d*d), make([]float64, d*d)
	norms = make([]float64, d)
	rng.NormalsV2(mgs, seed, rng.StreamOrthoBlock|uint64(k))
	copy(hh, mgs)
	orthoBlock(mgs, norms, d, nil)
	orthoFromGaussian(hh, norms, d, qr.NewWork(d), nil)
	return mgs, hh, norms
}

// TestOrthoQRMatchesGramSchmidt checks that the Householder blocks are
// orthoBlock's to rounding, that their rows are orthogonal, and that row i
// has the norm of Gaussian row i.
//
// Tolerances. Both algorithms compute q_i = the i-th column of the Q factor
// of gᵀ. The Householder Q is orthogonal to working precision whatever g:
// ‖QᵀQ − I‖ ≤ c·D·u (Higham, Accuracy and Stability, Thm 19.4 and §19.3;
// u = 2⁻⁵³ ≈ 1.1e-16), so 1e-13·D leaves a factor of about 10 over that
// worst-case bound (observed: ~1e-15). Gram–Schmidt's q_i differ from the
// exact ones by about κ(g_0..g_i)·u, where κ of a square Gaussian matrix
// is about D (heavy-tailed; ~1e3–1e4 at D = 1000), and the rows are scaled
// by norms of about √D: so the two agree to ~√D·D·u ≈ 3e-12 at D = 1000
// for a typical κ, and the heavy tail of κ makes a fixed bound fragile
// (the block of generator 1 gave 1.9e-12, that of generator 2 1.7e-10).
// The bound is therefore MGS's own error, measured by its loss of
// orthogonality ε = max |Q_MGS·Q_MGSᵀ − I| (which is of the order of κ·u,
// as its distance to the exact Q): the blocks must agree to
// 10·(ε + D·u)·max‖g_i‖. A wrong sign, order or missing reflector is off
// by O(1).
func TestOrthoQRMatchesGramSchmidt(t *testing.T) {
	for _, d := range qrDims {
		if testing.Short() && d > 300 {
			continue
		}
		t.Run(fmt.Sprint(d), func(t *testing.T) {
			mgs, hh, norms := qrBlock(7, 3, d)
			var diff, orth, normErr float64
			for i := range hh {
				diff = max(diff, math.Abs(hh[i]-mgs[i]))
			}
			for i := range d {
				ri := hh[i*d : (i+1)*d]
				normErr = max(normErr, math.Abs(math.Sqrt(dotFMA(ri, ri))/norms[i]-1))
				for j := range i + 1 {
					s := dotFMA(ri, hh[j*d:(j+1)*d]) / (norms[i] * norms[j])
					if i == j {
						s--
					}
					orth = max(orth, math.Abs(s))
				}
			}
			var orthMGS, maxNorm float64
			for i := range d {
				maxNorm = max(maxNorm, norms[i])
				ri := mgs[i*d : (i+1)*d]
				for j := range i + 1 {
					s := dotFMA(ri, mgs[j*d:(j+1)*d]) / (norms[i] * norms[j])
					if i == j {
						s--
					}
					orthMGS = max(orthMGS, math.Abs(s))
				}
			}
			tol := 10 * (orthMGS + float64(d)*0x1p-53) * maxNorm
			t.Logf("D = %d: max |QR − MGS| = %.2g (tolerance %.2g: MGS's |QQᵀ − I| = %.2g), max |QQᵀ − I| = %.2g, max row-norm error %.2g", d, diff, tol, orthMGS, orth, normErr)
			if diff > tol {
				t.Errorf("D = %d: Householder and Gram–Schmidt blocks differ by %g", d, diff)
			}
			if orth > 1e-13*float64(d) {
				t.Errorf("D = %d: max |QQᵀ − I| = %g", d, orth)
			}
			if normErr > 1e-13*float64(d) {
				t.Errorf("D = %d: row norms off by a relative %g", d, normErr)
			}
		})
	}
}

// qrOnly returns block k of seed's orthogonal projection by orthoBlockQR.
func qrOnly(seed uint64, k, d int) []float64 {
	g := make([]float64, d*d)
	orthoBlockQR(g, make([]float64, d), d, seed, k, qr.NewWork(d), nil)
	return g
}

// goldenQR pins the Householder blocks: FNV-1a of the bits of block 0 of
// seed 1 (generator version 2's Gaussians), row-major, at D = 33 and 100. Produced on amd64 (AVX-512) and
// checked to be the same with DRDAM_SIMD=avx2 and =portable, with the
// purego build tag and under GOAMD64=v3 (where the compiler may fuse
// a*b + c in Go code: the package writes every FMA explicitly).
var goldenQR = map[int]uint64{33: 0x55fb20e7e01e3b6, 100: 0x7dfa530931be7d41}

func hashBits(x []float64) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range x {
		b := math.Float64bits(v)
		for range 8 {
			h ^= b & 0xff
			h *= 1099511628211
			b >>= 8
		}
	}
	return h
}

// TestOrthoQRDeterministic checks that the Householder blocks are the
// same bits from run to run, at every kernel level the machine has (the
// portable Go code, AVX2, AVX-512), with blocks drawn concurrently under
// GOMAXPROCS 1 and 2, and as pinned by goldenQR.
func TestOrthoQRDeterministic(t *testing.T) {
	dims := []int{3, 17, 33, 100, 257, 1000}
	if testing.Short() {
		dims = dims[:5]
	}
	want := make(map[int][]float64)
	for _, d := range dims {
		want[d] = qrOnly(1, 0, d)
		sameBits(t, fmt.Sprintf("D = %d, second run", d), qrOnly(1, 0, d), want[d])
		if h, ok := goldenQR[d]; ok && hashBits(want[d]) != h {
			t.Errorf("D = %d: block hash %#x, pinned %#x", d, hashBits(want[d]), h)
		}
	}
	simdtest.ForLevels(t, func(t *testing.T) {
		for _, d := range dims {
			sameBits(t, fmt.Sprintf("D = %d at %v", d, cpuid.Current()), qrOnly(1, 0, d), want[d])
		}
	})
	for _, procs := range []int{1, 2} {
		prev := runtime.GOMAXPROCS(procs)
		got := make([][]float64, len(dims))
		var wg sync.WaitGroup
		for i, d := range dims {
			wg.Go(func() { got[i] = qrOnly(1, 0, d) })
		}
		wg.Wait()
		runtime.GOMAXPROCS(prev)
		for i, d := range dims {
			sameBits(t, fmt.Sprintf("D = %d, concurrent, GOMAXPROCS %d", d, procs), got[i], want[d])
		}
	}
}

func sameBits(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: element %d is %v, want %v (bits %#x, %#x)", what, i, got[i], want[i], math.Float64bits(got[i]), math.Float64bits(want[i]))
		}
	}
}

// TestOrthoQRProgress checks that the progress of a large block rises to 1.
func TestOrthoQRProgress(t *testing.T) {
	const d = 300
	var fracs []float64
	orthoBlockQR(make([]float64, d*d), make([]float64, d), d, 1, 0, qr.NewWork(d), func(f float64) { fracs = append(fracs, f) })
	if len(fracs) < 2 || fracs[len(fracs)-1] != 1 {
		t.Fatalf("progress %v, want several reports ending at 1", fracs)
	}
	for i := 1; i < len(fracs); i++ {
		if fracs[i] <= fracs[i-1] {
			t.Fatalf("progress %v is not increasing", fracs)
		}
	}
}

// BenchmarkOrthoQR times one orthogonal block by the Householder QR (the
// Gaussians drawn once, outside the timing: the QR alone) and by
// orthoBlock's Gram–Schmidt (which draws them), with allocations: none per
// block once the workspace exists.
func BenchmarkOrthoQR(b *testing.B) {
	for _, d := range []int{256, 1000} {
		var s rng.Stream
		s.Reset(1, rng.StreamOrthoBlock)
		g0 := make([]float64, d*d)
		s.Normals(g0)
		g, norms := make([]float64, d*d), make([]float64, d)
		b.Run(fmt.Sprintf("householder/D=%d", d), func(b *testing.B) {
			w := qr.NewWork(d)
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				copy(g, g0)
				b.StartTimer()
				orthoFromGaussian(g, norms, d, w, nil)
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/block")
		})
		b.Run(fmt.Sprintf("gramschmidt/D=%d", d), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rng.NormalsV2(g, 1, rng.StreamOrthoBlock)
				orthoBlock(g, norms, d, nil)
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/block")
		})
	}
}

// BenchmarkOrthogonalProjectionQR times a whole Y×D orthogonal projection by
// the Householder QR, generated as materialize does (whole blocks split
// over GOMAXPROCS goroutines, one workspace each): Y = 10⁵, D = 1000,
// 100 blocks. "gaussians" times the same loop drawing only the Gaussians,
// "NewOrthogonal" the model's generation (generator 2) and "gramschmidt"
// generator 1's (orthoBlock's modified Gram–Schmidt).
func BenchmarkOrthogonalProjectionQR(b *testing.B) {
	const y, d = 100000, 1000
	out := make([]float64, y*d)
	run := func(qrToo bool) {
		parallelRange((y+d-1)/d, func(lo, hi int) {
			g, norms := make([]float64, d*d), make([]float64, d)
			w := qr.NewWork(d)
			for k := lo; k < hi; k++ {
				if qrToo {
					orthoBlockQR(g, norms, d, 1, k, w, nil)
				} else {
					rng.NormalsV2(g, 1, rng.StreamOrthoBlock|uint64(k))
				}
				r0, r1 := k*d, min(y, (k+1)*d)
				copy(out[r0*d:r1*d], g[:(r1-r0)*d])
			}
		})
	}
	b.Run("householder", func(b *testing.B) {
		for b.Loop() {
			run(true)
		}
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/projection")
	})
	b.Run("NewOrthogonal", func(b *testing.B) { // generator 2: the same, with its own allocation
		for b.Loop() {
			NewOrthogonal(GeneratorV2, 1, y, d)
		}
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/projection")
	})
	b.Run("gaussians", func(b *testing.B) {
		for b.Loop() {
			run(false)
		}
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/projection")
	})
	b.Run("gramschmidt", func(b *testing.B) {
		for b.Loop() {
			NewOrthogonal(GeneratorV1, 1, y, d)
		}
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/projection")
	})
}
