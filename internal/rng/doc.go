// Package rng is drdam's pinned source of randomness.
//
// Every random quantity of a model (projection rows, biases, orthogonal
// blocks) is drawn from a stream identified by a (seed, stream) pair, so that
// a model can be regenerated bit for bit from its seed on any machine and any
// Go version. For that reason the package does not use math/rand/v2's
// NormFloat64 or math.Log, whose results are not pinned across releases or
// architectures; it fixes every step itself. The standard normal values of
// dense projections come from one of two generators, whose version a
// model records (features.Generator); the biases, SORF's signs and norms
// and the generated data sets always come from version 1's Stream.
//
// # Version 1: Stream
//
//   - The uniform bits come from PCG-DXSM with 128 bits of state (the
//     generator of NumPy's PCG64DXSM and of Go's math/rand/v2.PCG, written out
//     here so that its definition cannot change under us; a test checks it
//     against math/rand/v2.PCG). The state is (hi, lo) =
//     (SplitMix64(seed), SplitMix64(stream ^ 0x6a09e667f3bcc909)).
//   - Float64 returns the top 53 bits of a draw times 2⁻⁵³, a value in [0, 1).
//   - Normal uses Marsaglia's polar method on two Float64 draws mapped to
//     (-1, 1), with a logarithm written out in this package (the FreeBSD
//     algorithm that Go's math package also uses) and every product rounded
//     explicitly, so that no compiler may fuse a multiply-add (Go may fuse
//     x*y+z into an FMA on arm64, ppc64, s390x, and on amd64 with GOAMD64=v3).
//     math.Sqrt is correctly rounded by IEEE 754 and is used as is.
//
// It draws one value after another (15–28 ns each on the machine of
// README.md), and a value depends on every draw before it in its stream.
//
// # Version 2: NormalsV2
//
// Value n of the stream (seed, stream) depends on (seed, stream, n) alone
// and the definition vectorizes: the portable Go code (gauss.go) and the
// AVX-512 and AVX2 kernels (gauss_amd64.s, written by _gen/main.go) give
// the same bits, which TestLevelsBitEqual and TestInterleavedBitEqual
// check at every level of the machine (DRDAM_SIMD=portable forces the Go
// code, see package internal/cpuid). About 1 ns per value with AVX-512
// on one core of that machine (README.md has the measurements).
//
//   - Words. moremur is Pelle Evensen's 64-bit mixer: x ^= x>>27;
//     x *= 0x3c79ac492ba7b653; x ^= x>>33; x *= 0x1c69b3f74ac4ae35;
//     x ^= x>>27 (all mod 2⁶⁴). With
//     γ = 0x9e3779b97f4a7c15, the stream's key is
//     K = moremur(moremur(seed + γ) XOR stream) and its word w is
//     moremur(K + w·γ): SplitMix64's construction (a Weyl sequence through
//     a mixer) with a stronger mixer, started at a hashed key.
//   - Pairs. Pair j takes the words a = word 2j and b = word 2j + 1 and
//     gives (ρ cos θ, ρ sin θ) with ρ = √(−2 log u), u = (⌊a/2¹²⌋ + 1)·2⁻⁵²
//     in [2⁻⁵², 1] (so |value| ≤ √(104 ln 2) ≈ 8.49), and θ =
//     2π·⌊b/2¹⁰⌋·2⁻⁵⁴.
//   - Order. Values come in blocks of 16: value n is ρ cos θ of pair
//     j = 8⌊n/16⌋ + n mod 8 if n mod 16 < 8, else its ρ sin θ.
//   - log u, exactly as logUnit: u is formed exactly as (1 + k·2⁻⁵²) −
//     (1 − 2⁻⁵²); t = bits(u) + 2⁵² − 0x6a09e667f3bcd carries into the
//     exponent exactly when the mantissa of u is at least that of √2, e is
//     the exponent of t and m = u·2⁻ᵉ in [√2/2, √2) (bit operations); then
//     FreeBSD's e_log.c: f = m − 1, s = f/(2 + f), z = s², w = z²,
//     t1 = w·FMA(FMA(Lg6, w, Lg4), w, Lg2),
//     t2 = z·FMA(FMA(FMA(Lg7, w, Lg5), w, Lg3), w, Lg1), r = t2 + t1,
//     hfsq = (0.5f)·f, q = hfsq − FMA(s, hfsq + r, e·ln2Lo), and
//     log u = FMA(e, ln2Hi, −(q − f)), each operation rounded to float64 in
//     that order. It is within 1 ulp of math.Log (TestLogUnit).
//   - θ, exactly as boxMuller: t = b + 2⁶¹ (mod 2⁶⁴); n = t >> 62 is the
//     quadrant and x = y − 3/2, y the float64 in [1, 2) whose mantissa is
//     (t >> 10) mod 2⁵², is in [−1/2, 1/2), so that θ = (π/2)(n + x)
//     exactly. With z = x², sin(πx/2) = x·P(z) and cos(πx/2) = FMA(Q(z), z,
//     1), P and Q of degree 6 evaluated by Horner's rule with FMAs (the
//     coefficients sinQ and cosQ of gauss.go, Chebyshev fits whose errors,
//     5·10⁻¹⁸ and 10⁻¹⁹, are far below an ulp); each within 2 ulp of
//     math.Sincos (TestQuarterSinCos). The pair (sin, cos) is swapped
//     where n is odd; the sine is negated where n ≥ 2, the cosine where
//     n is 1 or 2 (sign-bit flips). The values are ρ·cos θ and ρ·sin θ,
//     rounded.
//
// Why these: the uniform bits must vectorize and must not show structure
// (random features fed by a generator with a lattice, such as a bare
// LCG, inherit it). A counter through a strong mixer does both: 64-bit
// lanes, two multiplications (VPMULLQ on AVX-512, three VPMULUDQ on
// AVX2) and three shift–xors per word. SplitMix64, the same construction
// with Stafford's finalizer, passes TestU01's BigCrush (Steele, Lea and
// Flood, 2014); moremur is Evensen's replacement for that finalizer, with
// better avalanche in his tests. Philox4x32-10, the other classic
// counter-based generator, was written first and measured: its 20 32-bit
// multiplications and 20 shifts per 8 pairs made the whole generator
// 1.35–1.7 times slower on this machine, whose 512-bit shifts and
// multiplications issue at half the rate of additions. Two rows of a
// projection are two keys, hence two windows of one SplitMix sequence of
// period 2⁶⁴; they share words only if the windows overlap, with
// probability below Y²·D/2⁶⁴ for Y rows of D values (2·10⁻⁵ at Y =
// 1.8·10⁵, D = 12288, and then only a shifted part of one row). The tests
// check moments, a χ² and a Kolmogorov–Smirnov test on 4·10⁶ values, a
// serial χ² test on successive pairs, the independence of the two values
// of a pair and the bits of the words (gauss_test.go). Box–Muller is
// exact (no rejection, so any value can be computed alone); log, sin and
// cos are polynomials in exactly reduced arguments, every rounding
// explicit, and math.Sqrt and division are correctly rounded, so every
// implementation that follows the same order gets the same bits.
//
// Golden values in the tests pin both generators: a change to any of these
// steps would change every model's random features, so it must fail a test.
package rng
