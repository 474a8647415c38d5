package features

import (
	"github.com/drdam/drdam/internal/qr"
	"github.com/drdam/drdam/internal/rng"
)

// Orthogonal blocks by a blocked Householder QR (issue 14).
//
// orthoBlock orthonormalizes a D×D Gaussian block by modified Gram–Schmidt
// in scalar Go: 2·D³ flops at a few GFLOP/s, about 0.6 s per block at
// D = 1000. orthoFromGaussian computes the same matrix (row i is ‖g_i‖·q_i,
// q the Gram–Schmidt orthonormalization of the Gaussian rows g in order,
// that is the Q factor of gᵀ = Q·R with R's diagonal positive) by a
// blocked Householder QR of gᵀ, in package internal/qr:
//
//   - an LQ factorization of g by panels of 32 rows (each factored in
//     sub-panels of 8 with dlarfg's reflectors, level 2), the rest of the
//     matrix updated by the panel's block reflector I − V·T·Vᵀ (compact WY)
//     as matrix products, four rows at a time: 4/3·D³ flops;
//   - Q formed from the reflectors, backwards, in place, by the same block
//     products: 4/3·D³ flops; then the signs that make R's diagonal
//     positive, and the row scales.
//
// The products run on AVX-512, AVX2 or portable Go kernels that compute
// each result as one chain of FMAs in a fixed order (vectorized across
// results only), and the level-2 steps use dots of 32 fixed chains, so the
// result is the same bits on every machine, kernel level and number of
// cores (the function is single-threaded; projections generate their
// blocks in parallel). It agrees with orthoBlock to rounding, not bit for
// bit, so it draws different projections from the same seed: models pin
// their rows, and switching them to it needs a new format version.
//
// Measured on the 2-core AMD EPYC (Zen 5) development machine, shared
// with other jobs (minimum of repeated runs; see docs/projections):
//
//	go test ./features -run '^$' -bench 'OrthoQR$' -count 5 -cpu 1
//
// at D = 1000: 51 ms per block for the QR (AVX-512, Gaussians excluded),
// against 595 ms for orthoBlock (Gaussians included, ~19 ms of it).

// orthoBlockQR writes block k of seed's orthogonal projection of generator
// version 2 into g (d×d): the Gaussians of the block's stream
// (rng.NormalsV2, stream StreamOrthoBlock|k), orthonormalized by
// orthoFromGaussian. w is qr.NewWork(d), reused from block to block.
func orthoBlockQR(g, norms []float64, d int, seed uint64, k int, w *qr.Work, part func(frac float64)) {
	rng.NormalsV2(g, seed, rng.StreamOrthoBlock|uint64(k))
	orthoFromGaussian(g, norms, d, w, part)
}

// orthoFromGaussian replaces the rows g_i of the d×d row-major Gaussian
// matrix g by ‖g_i‖·q_i, q_0, …, q_{d−1} the Gram–Schmidt
// orthonormalization of g_0, …, g_{d−1}: orthoBlock's matrix, to rounding,
// by a blocked Householder QR. norms (length d) receives the ‖g_i‖; w is
// the workspace, qr.NewWork(d) (about 3·32·D values, plus a padded copy of
// g when d is not a multiple of 8), so that a call allocates nothing. part,
// if not nil, receives the fraction done, as orthoBlock's: during the QR
// for blocks of 256 rows or more, and 1 at the end.
func orthoFromGaussian(g, norms []float64, d int, w *qr.Work, part func(frac float64)) {
	qr.RowNorms(norms, g, d)
	var progress func(float64)
	if d >= 256 {
		progress = part
	}
	qr.Orthonormalize(g, d, norms, w, progress)
	if part != nil && progress == nil {
		part(1)
	}
}
