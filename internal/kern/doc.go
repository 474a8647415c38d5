// Package kern holds drdam's fast kernels for the two matrix products of
// the model: the forward product H = W·Xᵀ (phases of B queries for a block
// of projections) and the transposed product Zᵀ += Wᵀ·Gᵀ (the gradient
// pulled back through W), in float32 and float64.
//
// # Layout
//
// Every matrix whose rows are vectors of dimension D (the projection W,
// Y×D; the stored patterns Ξ, K×D; a batch of queries X, B×D; the gradient
// accumulator Z, B×D) is stored as Panels: groups of L rows (L = 16 for
// float32, 8 for float64, one 64-byte vector) interleaved column by column,
//
//	data[p·Dp·L + d·L + r] = M[p·L + r][d],
//
// with D padded to Dp, a multiple of 16, and missing rows and columns zero.
// One column of a panel, the L values M[pL..pL+L)[d], is one vector register.
// The per-block intermediates (phases H and gradient weights G for the W
// panels [p0, p1)) are stored per query panel:
//
//	h[qp·n·L + r·L + l] = H[p0·L + r][query qp·L + l],   n = (p1 − p0)·L.
//
// With these layouts both products are outer-product micro-kernels that
// read W in place, without packing: the forward kernel broadcasts W[row][d]
// across query lanes, the transposed one broadcasts W[α][d] across the lanes
// of G; both keep an MR × (NV·L) tile of results in registers. The AVX-512
// kernels use embedded-broadcast FMAs (MR = 8 or 16, NV = 1…3 query
// panels); the AVX2 kernels use MR = 4 and one query panel. They are written
// by the generator in _gen (go run ./_gen); the portable Go code computes
// the same products and is used on other architectures, with the purego
// build tag, or when cpuid.Current() is Portable (DRDAM_SIMD=portable).
// It rounds each product before adding it (T(w·x)), so that the compiler
// never fuses the multiply-adds, which it may do with GOAMD64=v3 in one
// loop and not in another: the portable products give the same bits with
// every GOAMD64.
//
// For batches of at most L/2 queries, ForwardNarrow and BackwardAddNarrow
// (narrow.go) compute the same products with the projections in the lanes
// instead of the queries, from a batch in the layout Narrow; each result
// is the same chain of multiply-adds, in the same order, as in the panel
// products, so the two give the same bits at each kernel level. StepNarrow
// runs one block's backward product with the next block's forward one, so
// that reading the second from memory overlaps the arithmetic of the
// first.
//
// The kernels run on the calling goroutine; callers split the projection
// into blocks of panels (sized to stay in L2) and spread them over cores.
package kern
