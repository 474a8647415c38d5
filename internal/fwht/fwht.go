package fwht

import "math/bits"

// Sign modes of the internal transforms.
const (
	modeNone = iota // H·x
	modePre         // H·(s ⊙ x)
	modePost        // s ⊙ (H·x)
)

// checkLen panics unless n is a power of two.
func checkLen(op string, n int) {
	if n <= 0 || n&(n-1) != 0 {
		panic("fwht: " + op + ": length is not a power of two")
	}
}

func checkSigns(op string, n, ns int) {
	if ns != n {
		panic("fwht: " + op + ": len(s) != len(x)")
	}
}

// log2 returns log2(n) for a power of two n.
func log2(n int) int { return bits.TrailingZeros(uint(n)) }

// Transform32 replaces x with its unnormalized Walsh–Hadamard transform
// H_n·x, (H_n)_{ij} = (−1)^{popcount(i AND j)}, in place; len(x) must be a
// power of two (panic otherwise; length 1 is the identity).
//
// H_n·H_n = n·I, so H_n/√n is orthogonal and symmetric. Each output is a
// sum of the n inputs with signs ±1, computed by log2(n) butterfly stages;
// its error is at most about log2(n)·2^-24·Σ|x_j| (see the package
// documentation).
func Transform32(x []float32) {
	checkLen("Transform32", len(x))
	transform32(x, nil, modeNone)
}

// Transform64 replaces x with its unnormalized Walsh–Hadamard transform
// H_n·x in place, as Transform32 does for float32; len(x) must be a power
// of two (panic otherwise; length 1 is the identity). The error of each
// output is at most about log2(n)·2^-53·Σ|x_j|.
func Transform64(x []float64) {
	checkLen("Transform64", len(x))
	transform64(x, nil, modeNone)
}

// SignTransform32 computes x ← H_n·(s ⊙ x): multiplies x elementwise by
// the signs s (entries ±1, len(s) == len(x)) and transforms it, in one
// pass over memory where possible.
//
// The result is that of multiplying by s and calling Transform32, bit for
// bit (multiplying by ±1 is exact). s is only read; other values than ±1
// are allowed (x ← H_n·diag(s)·x, with one more rounding per element).
func SignTransform32(x, s []float32) {
	checkLen("SignTransform32", len(x))
	checkSigns("SignTransform32", len(x), len(s))
	transform32(x, s, modePre)
}

// SignTransform64 computes x ← H_n·(s ⊙ x): multiplies x elementwise by
// the signs s (entries ±1, len(s) == len(x)) and transforms it, in one
// pass over memory where possible. It is the float64 version of
// SignTransform32, with the same guarantees.
func SignTransform64(x, s []float64) {
	checkLen("SignTransform64", len(x))
	checkSigns("SignTransform64", len(x), len(s))
	transform64(x, s, modePre)
}

// TransformSign32 computes x ← s ⊙ (H_n·x) (the transposed order, for the
// backward pass): transform, then multiply by the signs (entries ±1,
// len(s) == len(x)), the multiply fused into the transform's last pass
// over memory.
//
// The stages run in another order than Transform32's, so the result may
// differ from s ⊙ Transform32(x) by rounding (within the same error
// bound), not otherwise. s is only read.
func TransformSign32(x, s []float32) {
	checkLen("TransformSign32", len(x))
	checkSigns("TransformSign32", len(x), len(s))
	transform32(x, s, modePost)
}

// TransformSign64 computes x ← s ⊙ (H_n·x) (the transposed order, for the
// backward pass): transform, then multiply by the signs (entries ±1,
// len(s) == len(x)). It is the float64 version of TransformSign32, with
// the same guarantees.
func TransformSign64(x, s []float64) {
	checkLen("TransformSign64", len(x))
	checkSigns("TransformSign64", len(x), len(s))
	transform64(x, s, modePost)
}
