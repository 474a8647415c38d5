// Package features implements the random feature maps of DrDAM.
//
// A feature map φ: R^D → R^F approximates the Gaussian (RBF) kernel at
// inverse temperature β,
//
//	⟨φ(x), φ(x')⟩ ≈ exp(−β/2 ‖x − x'‖²),
//
// by applying a basis function to the phases h = √β·Wx (+ b), where W is a
// Y×D random projection whose rows ω^α are standard normal vectors
// (eq. rf-trig of the paper, applied to √β·x as §2.1 says) and b ~ U(0, 2π)
// is an optional random shift. The four bases of the appendix "Ablation
// study" are
//
//	Cos     φ = √(2/Y) [cos(h_α + b_α)]                          F = Y
//	SinCos  φ = Y^(−1/2) [cos(h_α + b_α), sin(h_α + b_α)]        F = 2Y
//	Exp     φ = Y^(−1/2) [exp(h_α − β‖x‖²)]                      F = Y
//	ExpExp  φ = (2Y)^(−1/2) [exp(h_α − β‖x‖²), exp(−h_α − β‖x‖²)] F = 2Y
//
// with the blocks laid out one after the other (all cosines, then all sines).
// The shift b only affects the trigonometric bases (for SinCos it cancels in
// the kernel but changes rounding); the positive bases never use it, because
// exp(h + b) would scale the kernel by a random factor (the reference code
// does the same). Here Y always counts projections (rows of W), as in the
// paper's code and the peers: SinCos and ExpExp have 2Y features.
//
// # Projections
//
// A Projection is the linear map W, behind a small interface of two batched
// products over a range of rows (the forward product X·Wᵀ and the transposed
// product G·W that the gradient needs), so that faster or structured
// implementations can replace the dense one. This package provides three
// kinds, all generated from a seed:
//
//   - Gaussian: iid N(0, 1) entries; row α is drawn from its own stream
//     (seed, row α), so any block of rows can be regenerated alone and a
//     projection with fewer rows is a prefix of one with more.
//   - Orthogonal (ORF, Yu et al. 2016): W = S·Q per D×D block, with Q
//     Haar-distributed orthogonal (Gram–Schmidt of the rows of a Gaussian
//     matrix, which equals QR with the sign fix Q·diag(sign(diag R))) and S
//     diagonal with χ(D) entries (the norms of the Gaussian rows, which are
//     independent of their directions and hence of Q). Blocks are drawn from
//     streams (seed, block k), stacked, and the last one truncated to Y rows.
//     The paper's reference code divides the rows to norm √(D/Y) instead; that
//     changes the kernel's bandwidth, and is not done here.
//   - Structured (SORF, after Yu et al. 2016): W = S·H D₁ H D₂ H D₃ per N×N
//     block, with H the normalized Walsh–Hadamard matrix of size N (D
//     zero-padded to a power of two), D_i random sign diagonals and S
//     diagonal with χ(N) entries; a product costs O(Y·log N) per query
//     through three fast Walsh–Hadamard transforms (package internal/fwht)
//     and the projection keeps 4·N numbers per block, so O(Y) in all. The
//     χ(N) scales depart from Yu et al.'s fixed √N, which biases the kernel
//     (see SORF).
//
// All are reproducible bit for bit from (kind, generator, seed, Y, D) on
// any machine: see package internal/rng for the pinned generators, and the
// golden values in this package's tests. The generator (Generator) draws
// the Gaussian entries of the dense kinds: version 1 one value after
// another (the projections of model files of format 1), version 2, the
// default, counter-based and vectorized, about twenty times faster; its
// Gaussian projections also write groups of rows directly in the layout
// of package dam's kernels (Seeded.RowGroup32, RowGroup64). Structured
// projections draw the same under both. Generating an orthogonal projection costs O(Y·D²)
// time (one Gram–Schmidt per block); a Gaussian one costs O(Y·D) (and as
// much memory, unless a model regenerates its rows on demand, see
// dam.Config.OnDemand); a structured one O(Y). docs/projections/README.md
// compares their quality, speed and memory.
package features
