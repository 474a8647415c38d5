// Package dam implements Dense Associative Memory in its two
// representations, after Hoover et al., "Dense Associative Memory Through the
// Lens of Random Features" (NeurIPS 2024).
//
// # Energies
//
// With K stored patterns ξ^μ ∈ R^D and inverse temperature β > 0, the L2
// energy (eq. div-en of Theorem 1) is
//
//	E(x) = −(1/β) log Σ_μ exp(−β/2 ‖x − ξ^μ‖²),   ∇E(x) = x − Σ_μ p_μ ξ^μ,
//
// with p = softmax_μ(−β/2 ‖x − ξ^μ‖²), and the dot-product energy (the EDP
// form after Corollary 1) is
//
//	E(x) = −(1/β) log Σ_μ exp(β⟨ξ^μ, x⟩) + ½‖x‖²,  ∇E(x) = x − Σ_μ p_μ ξ^μ,
//
// with p = softmax_μ(β⟨ξ^μ, x⟩).
//
// MrDAM (the memory representation) stores the K×D patterns and evaluates
// these exactly: batched over B queries through matrix products
// (‖x‖² − 2⟨x, ξ⟩ + ‖ξ‖²), streamed over blocks of patterns with an online
// log-sum-exp, so that no B×K×D (or even B×K) intermediate is formed and
// energies stay finite for any β.
//
// DrDAM (the distributed representation, eqs. kdam-en and kdam-grad,
// Algorithm 1) stores only T = Σ_μ φ(ξ^μ) ∈ R^F for a random feature map φ
// of package features, and evaluates
//
//	Ê(x) = −(1/β) log max(φ(x)·T, ε),  ∇Ê(x) = −∇(φ(x)·T) / (β φ(x)·T),
//
// with the gradient exactly zero where the clip is active (the footnote of
// §3). The gradients are analytic: with h = √β·Wx + b,
//
//	SinCos:  ∇Ê = −Wᵀ(T_s ⊙ cos h − T_c ⊙ sin h) / (√β Σ_α(T_c cos h + T_s sin h))
//	Cos:     ∇Ê = Wᵀ(T ⊙ sin h) / (√β Σ_α T_α cos h_α)
//	Exp:     ∇Ê = 2x − Wᵀ p / √β,          p = softmax_α(h_α + log T_α)
//	ExpExp:  ∇Ê = 2x − Wᵀ(p⁺ − p⁻) / √β,   p = softmax over ±h_α + log T^±_α
//
// For the positive bases T is kept in the log domain (log T_α per feature)
// and φ(x)·T is evaluated as a log-sum-exp, so the energy stays finite where
// the plain product would underflow or overflow (large β, or x far from the
// memories). For the trigonometric bases T is kept as exp(c)·t with a shared
// log-scale c, which is 0 for the L2 energy.
//
// DrDAM of the dot-product energy uses the rescaling of §2.1:
// exp(β⟨ξ, x⟩) = exp(−β/2‖x − ξ‖²)·exp(β‖x‖²/2)·exp(β‖ξ‖²/2), so each
// memory enters T weighted by exp(β‖ξ‖²/2), and the query factor
// exp(β‖x‖²/2) cancels the ½‖x‖² term: Ê(x) = −(1/β) log(φ(x)·T) again,
// clipped when φ(x)·T·exp(β‖x‖²/2) < ε, where the gradient is x.
//
// # Computation
//
// Both representations run on the same engine (engine.go): the matrix of
// rows (W for DrDAM, the patterns for MrDAM) is stored in the panel layout
// of package internal/kern, in the compute precision of Config.Precision
// (float64 by default; float32 moves half the bytes: BENCHMARKS.md); it is
// processed in blocks of about 512 KiB, each going through the forward
// product, the fused elementwise pass of internal/vmath (sin/cos with the T
// weights, or the streaming softmax) and the transposed product while it is
// in cache; blocks are gathered into a fixed number of groups that run on
// all cores and whose partial sums are added in order, so results do not
// depend on the number of cores. Batches of at most 8 queries in float32 (4
// in float64) on a stored or on-demand projection go through the small-batch
// products of internal/kern, which put the rows of W, not the queries, in
// the vector lanes; on a stored projection each block's transposed product
// runs with the next block's forward product (kern.StepNarrow). They give
// bit for bit the results of the panel products, so a query's results do not
// depend on the size of its batch. Inputs, T and results are float64 in both
// precisions. The kernels are AVX-512, AVX2+FMA or portable Go, chosen at
// run time (package internal/cpuid; DRDAM_SIMD=portable|avx2|avx512 lowers
// the choice). A descent step allocates nothing.
//
// A DrDAM's projection reaches the engine as blocks of rows in one of three
// ways (blocks.go), by Config.Projection and Config.OnDemand:
//
//   - stored (the default for Gaussian and Orthogonal): W is generated once
//     into panels, Y·D values in the compute precision, and read at every
//     evaluation: the fastest dense form, when it fits in memory;
//   - on demand (OnDemand): the rows of each block are regenerated from the
//     seed whenever the block is used, as Algorithm 1 of the paper, with
//     the first blocks kept in a cache of 64 MiB; memory is O(Y + D) and the
//     results are bit for bit those of the stored form, but every
//     evaluation pays for generating Y·D Gaussians: about 1 ns each per
//     core with generator version 2, whose rows are drawn straight into
//     the panels (features.Seeded.RowGroup32), 15–20 ns with version 1
//     (on the machine of BENCHMARKS.md);
//   - structured (Projection = features.Structured, SORF): each block of N
//     rows is applied to each query by three fast Walsh–Hadamard
//     transforms, O(Y·log N) time and O(Y) memory.
//
// docs/projections/README.md says which to choose, with measurements.
//
// # Descent
//
// Recall and Descent run the energy descent of eq. gen-up,
// x ← x − η ∇E(x), on any Model (both representations implement it), with
// clamped coordinates whose gradient is zeroed, an optional box, and a
// per-query stop when |E(t) − E(t−1)| < tol (§4.2, "retrieved").
//
// # Files
//
// Save and Load read and write one versioned binary format for both
// representations; see the documentation of Save.
//
// # Sums
//
// A DrDAM's memories are additive: Sum is its state without the
// projection (T in stored form, its log-scale, the count), which encoders
// that each store a share of the patterns exchange and add (Sum.Merge, the
// arithmetic of DrDAM.Merge). SetSum puts a Sum in a DrDAM, and SaveSum
// writes the model file of a Sum without building the projection.
package dam
