// Package rng is drdam's pinned source of randomness.
//
// Every random quantity of a model (projection rows, biases, orthogonal
// blocks) is drawn from a Stream identified by a (seed, stream) pair, so that
// a model can be regenerated bit for bit from its seed on any machine and any
// Go version. For that reason the package does not use math/rand/v2's
// NormFloat64 or math.Log, whose results are not pinned across releases or
// architectures; it fixes every step itself:
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
// Golden values in the tests pin the streams: a change to any of these steps
// would change every model's random features, so it must fail a test.
package rng
