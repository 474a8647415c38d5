package features

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/drdam/drdam/internal/fwht"
	"github.com/drdam/drdam/internal/rng"
)

// SORF is a structured orthogonal random projection (after SORF, Yu et
// al. 2016, "Orthogonal Random Features"): each block of N rows is
//
//	W_b = S·H D₁ H D₂ H D₃ = S·(1/N^(3/2))·H_u D₁ H_u D₂ H_u D₃,
//
// restricted to the first D columns, where H = H_u/√N is the normalized
// Walsh–Hadamard matrix of size N (D zero-padded to N, the next power of
// two, at least 64), D₁, D₂, D₃ are diagonal matrices of random signs, and
// S is diagonal with independent χ(N) entries. Blocks are drawn
// independently (block b from the streams (seed, b)), stacked, and the last
// one truncated to Y rows. A product with W costs O(Y·log N) per query
// instead of O(Y·D), and the projection stores 4·N numbers per block.
//
// Yu et al. scale every row by √N; the rows of H D₁ H D₂ H D₃ then all have
// norm √N, whereas Gaussian rows (and ORF's) have χ(N)-distributed norms.
// With a fixed norm the features estimate, instead of the Gaussian kernel
// e^{−z²/2} (z = √β‖x − y‖), the kernel of a uniform direction on the
// sphere of radius √N, Γ(N/2)(2/t)^{N/2−1}J_{N/2−1}(t) with t = √N·z, which
// is low by a relative O(z⁴/N): 6% at N = 64, z = 2, and 2% at N = 256
// (TestSORFKernelUnbiased measures both). That bias does not shrink with Y:
// on the setup of Fig. 3 at D = 256, β = 10 it made the energy error 4×
// that of iid features at Y = 10⁵. Drawing the row norms from χ(N), as ORF
// does, removes it: were the directions of H D₁ H D₂ H D₃ exactly uniform,
// the rows would be exactly Gaussian. They are only nearly uniform (Yu et
// al., Theorem 3), but measured on the setup of Fig. 3 (docs/projections)
// the energy and gradient errors of these features match those of iid
// features, within the spread of two iid samples, from D = 16 to 1024 and
// for SinCos, Exp and ExpExp alike; at small β they are lower, as ORF's.
type SORF struct {
	Seed    uint64
	Y, D, N int
	// Signs holds the ±1 diagonals: block b's D₁, D₂, D₃ are
	// Signs[(3b+i)·N : (3b+i+1)·N] for i = 0, 1, 2.
	Signs []float64
	// Scale holds, for every row of every block (Blocks()·N of them), the
	// factor S_ii/N^(3/2) that turns a row of H_u D₁ H_u D₂ H_u D₃ into a
	// row of W: its norm is then χ(N)-distributed.
	Scale []float64
}

// NewSORF returns the structured projection of y rows for inputs of
// dimension d, drawn from seed.
func NewSORF(seed uint64, y, d int) (*SORF, error) {
	if y <= 0 || d <= 0 {
		return nil, fmt.Errorf("projection dimensions must be positive, found Y=%d, D=%d", y, d)
	}
	n := SORFBlockSize(d)
	nb := (y + n - 1) / n
	s := &SORF{Seed: seed, Y: y, D: d, N: n, Signs: make([]float64, 3*nb*n), Scale: make([]float64, nb*n)}
	var st rng.Stream
	// 1/N^(3/2) as 1/(N·√N): N is a power of two, so the product is exact
	// and the value the same on every machine (math.Pow need not be).
	norm := 1 / (float64(n) * math.Sqrt(float64(n)))
	for b := range nb {
		st.Reset(seed, rng.StreamSORFNorms|uint64(b))
		for i := range n {
			s.Scale[b*n+i] = math.Sqrt(st.ChiSquare(n)) * norm
		}
		st.Reset(seed, rng.StreamSORFSigns|uint64(b))
		blk := s.Signs[3*b*n : 3*(b+1)*n]
		var u uint64
		for i := range blk {
			if i%64 == 0 {
				u = st.Uint64()
			}
			blk[i] = 1
			if u&1 == 1 {
				blk[i] = -1
			}
			u >>= 1
		}
	}
	return s, nil
}

// SORFBlockSize returns N, the size of a SORF block for inputs of
// dimension d: the next power of two, at least 64. With N = 16 the
// directions of H D₁ H D₂ H D₃ are far enough from uniform to bias the
// kernel at large β (at D = 16, β = 40 to 50, energy errors 1.3–2.3× those
// of iid features, growing with Y); padded to 64 they match iid ones
// (docs/projections). The extra cost is log₂ 64 instead of log₂ 16 per row.
func SORFBlockSize(d int) int { return max(64, 1<<bits.Len(uint(d-1))) }

// Blocks returns the number of blocks of N rows.
func (s *SORF) Blocks() int { return (s.Y + s.N - 1) / s.N }

// BlockSigns returns the three sign vectors of block b.
func (s *SORF) BlockSigns(b int) (d1, d2, d3 []float64) {
	n := s.N
	blk := s.Signs[3*b*n : 3*(b+1)*n]
	return blk[:n], blk[n : 2*n], blk[2*n:]
}

// Dims returns Y and D.
func (s *SORF) Dims() (y, d int) { return s.Y, s.D }

// applyBlock writes W_b·x (N values) into v, for x of length D.
func (s *SORF) applyBlock(v, x []float64, b int) {
	d1, d2, d3 := s.BlockSigns(b)
	copy(v, x)
	clear(v[len(x):])
	fwht.SignTransform64(v, d3)
	fwht.SignTransform64(v, d2)
	fwht.SignTransform64(v, d1)
	sc := s.Scale[b*s.N : (b+1)*s.N]
	for i := range v {
		v[i] *= sc[i]
	}
}

// applyBlockT writes W_bᵀ·g (the first D of N values) into v, for g of
// length N (v may be g).
func (s *SORF) applyBlockT(v, g []float64, b int) {
	d1, d2, d3 := s.BlockSigns(b)
	sc := s.Scale[b*s.N : (b+1)*s.N]
	for i := range v {
		v[i] = g[i] * sc[i]
	}
	fwht.TransformSign64(v, d1)
	fwht.TransformSign64(v, d2)
	fwht.TransformSign64(v, d3)
}

// Rows writes the rows [lo, hi) of W into dst, row-major ((hi−lo)×D): row
// i of block b is W_bᵀ e_i restricted to D columns.
func (s *SORF) Rows(dst []float64, lo, hi int) {
	d, n := s.D, s.N
	if lo < 0 || hi > s.Y || lo > hi || len(dst) != (hi-lo)*d {
		panic(fmt.Sprintf("features: Rows(%d values, [%d, %d)) of a %d×%d projection", len(dst), lo, hi, s.Y, d))
	}
	v := make([]float64, n)
	for a := lo; a < hi; a++ {
		clear(v)
		v[a%n] = 1
		s.applyBlockT(v, v, a/n)
		copy(dst[(a-lo)*d:(a-lo+1)*d], v[:d])
	}
}

// Project writes X·W[lo:hi]ᵀ into dst (B×(hi−lo)); x is B×D.
func (s *SORF) Project(dst, x []float64, lo, hi int) {
	d, n := s.D, s.N
	b, m := len(x)/d, hi-lo
	if len(x)%d != 0 || len(dst) != b*m || lo < 0 || hi > s.Y || lo > hi {
		panic(fmt.Sprintf("features: Project(%d, %d values, [%d, %d)) of a %d×%d projection", len(dst), len(x), lo, hi, s.Y, d))
	}
	v := make([]float64, n)
	for q := range b {
		for blk := lo / n; blk*n < hi; blk++ {
			s.applyBlock(v, x[q*d:(q+1)*d], blk)
			for a := max(lo, blk*n); a < min(hi, (blk+1)*n); a++ {
				dst[q*m+a-lo] = v[a-blk*n]
			}
		}
	}
}

// ProjectTAdd adds G·W[lo:hi] to dst (B×D); g is B×(hi−lo).
func (s *SORF) ProjectTAdd(dst, g []float64, lo, hi int) {
	d, n := s.D, s.N
	b, m := len(dst)/d, hi-lo
	if len(dst)%d != 0 || len(g) != b*m || lo < 0 || hi > s.Y || lo > hi {
		panic(fmt.Sprintf("features: ProjectTAdd(%d, %d values, [%d, %d)) of a %d×%d projection", len(dst), len(g), lo, hi, s.Y, d))
	}
	v := make([]float64, n)
	for q := range b {
		for blk := lo / n; blk*n < hi; blk++ {
			clear(v)
			for a := max(lo, blk*n); a < min(hi, (blk+1)*n); a++ {
				v[a-blk*n] = g[q*m+a-lo]
			}
			s.applyBlockT(v, v, blk)
			for i := range d {
				dst[q*d+i] += v[i]
			}
		}
	}
}
