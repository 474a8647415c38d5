// Package vmath evaluates sin, cos and exp over slices, and the fused
// elementwise passes of DrDAM's random-feature bases over a block of
// phases, with AVX-512 and AVX2+FMA kernels and a portable Go fallback.
//
// # Kernel selection
//
// Every function asks cpuid.Current at each call and runs the AVX-512
// kernels (16 float32 or 8 float64 lanes), the AVX2+FMA ones (8 or 4
// lanes) or the portable Go code. The portable code is also what other
// architectures and the purego build tag get. Ragged tails of the
// elementwise functions are done with masked loads and stores, so nothing
// is read or written outside the slices. Nothing allocates, and there is
// no package state.
//
// # Block layout
//
// The block functions take a block of phases h of n rows (projections) of
// q lanes (queries), h[r*q+l], with per-row coefficients (len n) and
// per-lane accumulators (len q). The vector kernels need q to be a
// multiple of the vector width: 16 for float32 and 8 for float64 cover
// both levels; any other q takes the portable path. Rows are accumulated
// in order, in the precision of the slices (the caller sums blocks into
// float64).
//
// # Algorithms and accuracy
//
// The errors below are bounds where stated so, and otherwise the maxima
// measured by the tests (see vmath_test.go; each is logged there) over
// random arguments in the ranges DrDAM produces plus special values
// (zeros, infinities, NaN, huge values, multiples of π/4 and the
// reduction boundaries).
//
// SinCos32. The quadrant j = round(|x|·2/π) comes from one FMA with the
// constant 2^23 (its low mantissa bits then hold j), and the reduced
// argument r = |x| − j·π/2 ∈ [−π/4, π/4] from three FMAs with π/2 split
// into three float32 parts C1+C2+C3. The first step |x| − j·C1 is exact
// (the result is a multiple of 2^-24 below 1), and the other two round
// once each, so the reduction error stays below 2^-24 for every |x| up to
// 2^20; Cephes' sinf and cosf polynomials (degree 7 and 8) follow, and j
// selects and negates. Unlike Cephes' float32 reduction (exact only for
// j < 2^13, so good to a few thousand), this one keeps its accuracy over
// the whole fast range. A vector with a lane beyond 2^20 (or ±Inf) is
// done by the portable code, which uses math.Sincos for such lanes. The
// absolute error is below 2e-7 for all |x| ≤ 2^20 (tested; measured
// 6.3e-8 for |x| ≤ 1e4 and beyond); results beyond 2^20 are math.Sincos
// rounded to float32. The portable code reduces in float64 (fdlibm's
// 33+53-bit π/2) and uses FreeBSD's __kernel_sindf/__kernel_cosdf (error
// below 6e-11 before the final rounding): measured 3.0e-8.
//
// SinCos64. The reduction is Go's math.sin one, so that both agree: the
// octant j = floor(fl(|x|·2/π) + 1/2) is math.sin's, and r = ((|x| −
// j·P1) − j·P2) − fl(j·P3) with P1+P2+P3 = π/2 (math.sin's PI4A/B/C
// doubled) is bit for bit math.sin's z, the two FMAs computing the same
// exact products and single roundings. math.sin's degree-13 and degree-14
// polynomials are then evaluated by Horner's rule with FMAs. The results
// are within 2 ulp of math.Sincos for |x| ≤ 2^29 (tested; measured 1 ulp)
// and are math.Sincos itself beyond, and for ±Inf and NaN. The portable
// code is math.Sincos.
//
// Exp32 and Exp64. j = round(x/ln2) comes from one FMA with 1.5·2^23
// (1.5·2^52), r = x − j·ln2 from two FMAs with ln2 in two parts (the
// first exact), and e^r from 1 + r + r²·g(r), g a Chebyshev fit of
// (e^r−1−r)/r² on [−ln2/2, ln2/2] (total degree 6, relative error 1.1e-8,
// for float32; degree 11, 1.8e-17, for float64), evaluated by Horner's
// rule with FMAs. The result is scaled by 2^j with VSCALEF (AVX-512) or,
// with AVX2, by two normal powers of two so that only the last product
// rounds; either way overflow gives +Inf and small results underflow
// gradually with a single rounding. x is first clamped to [−104, 89]
// ([−746, 710]), keeping NaN. The error is below 2 ulp where the result
// is normal (tested against a double-double reference; measured 0.90 ulp
// for both) and below one unit of the smallest
// subnormal under it; exp(−Inf) = 0, exp(+Inf) = +Inf, NaN stays NaN.
// The portable Exp32 computes in float64 (measured 0.50 ulp); the
// portable Exp64 is the same algorithm in Go (measured 1.1 ulp): Go's
// math.Exp is not used, because on amd64 it is off by up to 1.7 ulp and
// returns +Inf from x ≈ 709.5 on, below the true overflow at 709.78.
//
// TrigBlock32 and TrigBlock64 fuse v = h + bias, the sine and cosine of
// SinCos32 (SinCos64), and the FMAs acc += tc·c + ts·s, h = ts·c − tc·s.
// Against a float64 evaluation of the same formula the float32 results are
// within the effect of rounding v to float32, (|tc|+|ts|)·|fl(v)−v|, plus
// that of the sine and cosine, (|tc|+|ts|)·2e-7, plus the roundings of the
// products and sums (2 ulp for h; 4 roundings per row for acc); measured
// against the reference at the rounded phases: 1.3e-7 for h, 5e-6 for acc
// (|acc| up to 25, where an ulp is 1.9e-6). The float64 results are
// within 1e-14 of |result|+1 (measured 1.1e-15).
//
// TrigLane32 and TrigLane64 are TrigBlock32 and TrigBlock64 for one lane
// of the block (a block with one live query): the same results for that
// lane, bit for bit, at a cost that does not grow with q. Their row-by-row
// sum is a chain of dependent FMAs (about 8 cycles a row), the floor of a
// pass that adds the rows in TrigBlock's order; with the query panels of
// package kern (q = 8 in float64, 16 in float32) they take 0.31 of
// TrigBlock's time (README.md).
//
// ExpBlockMax32 and ExpBlockMax64 are exact for scores rounded to the
// precision of the slices (a float32 score is within half an ulp of the
// float64 one).
//
// ExpBlockWeights32 and ExpBlockWeights64 compute d = (h + lt) − m in the
// precision of the slices and w = e^d with Exp32 (Exp64), 0 where the
// score is −Inf (also when m is −Inf). A float32 weight is within
// relative |fl(d)−d| + 2 ulp of the float64 one (measured 0.77 ulp
// against e^fl(d)); sum gets one rounding per row and term. The float64
// results are within 1e-14 of |result|+1 (measured 1.2e-16).
//
// # Speed
//
// On an AMD EPYC (Zen 5) core with AVX-512, in cache: SinCos32 0.21 ns per
// element, Exp32 0.12 ns, TrigBlock32 0.3 ns, about three times numpy's
// sin+cos and exp; see README.md for all the numbers.
package vmath
