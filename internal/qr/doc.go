// Package qr orthonormalizes the rows of a square matrix by a blocked
// Householder QR, fast and deterministically: the same bits on every
// machine, kernel level and number of cores. Package features uses it for
// the D×D blocks of orthogonal random features.
//
// # Algorithm
//
// Orthonormalize(g, d, scale, w, progress) replaces row i of the d×d
// row-major matrix g by scale[i]·q_i, where q_0, …, q_{d−1} is the
// Gram–Schmidt orthonormalization of the rows of g in order, i.e. the Q
// factor of gᵀ = Q·R with R's diagonal positive. Read column-major, g's
// memory is A = gᵀ, and the code is LAPACK's dgeqrf + dorgqr on A, with
// A's columns as rows of g (so every vector is contiguous):
//
//   - Factorization, by panels of nb = 32 rows: the panel is factored in
//     sub-panels of 8 rows with dlarfg's reflectors (level 2: dot, axpy),
//     each sub-panel applied to the panel's later rows as a block
//     reflector; then the panel's block reflector I − V·T·Vᵀ (compact WY,
//     T from the Gram matrix VᵀV as in dlarft) updates the rows after the
//     panel, four at a time: W = X·V, U = W·(−T), X += U·Vᵀ. 4/3·d³ flops.
//   - Q, backwards from the last panel, in place: the rows of a panel
//     become rows of the identity, and the rows from there on are
//     multiplied by the panel's block reflector (with −Tᵀ). 4/3·d³ flops.
//   - The signs of R's diagonal (the β's) and the scales, row by row.
//
// The working matrix is g itself when d is a multiple of 8 and a
// zero-padded copy otherwise (row stride and row count rounded up to 8,
// so that the products work on whole tiles; padding stays zero).
//
// # Determinism
//
// Every floating-point result is defined as a fixed sequence of exactly
// rounded operations, independent of the machine:
//
//   - a product entry (mulAdd, mulSet) is one FMA chain over the inner
//     index in increasing order, starting from C or from 0;
//   - a dot product (dot) is 32 FMA chains, element i to chain i mod 32,
//     added in the fixed tree of combine;
//   - axpy and scal are one FMA or one product per element;
//   - everything else is scalar Go with explicit math.FMA and conversions
//     that forbid the compiler's fusing (GOAMD64=v3 compiles a*b + c to an
//     FMA unless told otherwise).
//
// The AVX-512 and AVX2 kernels (mul_amd64.s, written by go run ./_gen)
// vectorize across independent chains only, never along one, so they
// compute exactly the portable Go code's operations: tests compare the
// levels bit for bit (DRDAM_SIMD or cpuid.Set selects them), and package
// features pins a hash of the result. Orthonormalize is single-threaded;
// callers generate blocks in parallel.
//
// # Speed
//
// At d = 1000, 8/3·d³ ≈ 2.7 GFLOP per block: the AVX-512 product runs at
// about 57 GFLOP/s on one Zen 5 core (the core's measured FMA peak is
// 58), and a block takes about 52 ms, 92% of it in the products
// (BenchmarkOrthonormalize, BenchmarkMulAdd).
package qr
