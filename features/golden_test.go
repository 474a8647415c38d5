package features

// goldenProbe is one pinned entry of a seeded projection or bias.
type goldenProbe struct {
	i    int    // flat index into the row-major matrix
	bits uint64 // math.Float64bits of the value
}

// Produced by this package when it was written (Go 1.26.8, amd64), and
// checked to be the same under GOAMD64=v3 and on arm64 (qemu). The
// version-2 values were produced when generator version 2 was written
// (Go 1.26.8, amd64, at every kernel level, with purego and with
// GOAMD64=v3; not yet on arm64).
var (
	goldenGaussian   = []goldenProbe{{0, 0x3fd673d1135a5332}, {1, 0x3fe73a3dce1318cb}, {6, 0xbfe6b4d9e05b93da}, {7, 0x3fe82ccd9fd1d0a1}, {48, 0x3fdde6c5065459cd}, {49, 0xbfe80e1e72ad4374}, {349, 0x3feb3258e03593d8}}
	goldenOrthogonal = []goldenProbe{{0, 0xbfe537bf57580b32}, {1, 0xbff474ca86eccbb6}, {6, 0xbfff5eac07ed9ca9}, {7, 0xbfe5c828107165c4}, {48, 0x3fd4c488d96df210}, {49, 0xc000837da44daf35}, {349, 0xbfb892f23b6f0815}}
	// Generator version 2 (entries 0, 1, 6, 7, 48, 49, 349 as above).
	goldenGaussianV2 = []goldenProbe{{0, 0xbfe37f120c311d8d}, {1, 0xbfcf787be2dc8d01}, {6, 0xbfeb8f8c21b9b6bb}, {7, 0x3fc4941ebf77301b}, {48, 0x3fc867773e6fa5fd}, {49, 0xbf84f7a7cff69b91}, {349, 0xbfeb5ab023b3e483}}
	// Orthogonal blocks of version 2 are the Householder QR of its
	// Gaussians (internal/qr), pinned when it was wired in (issue 14), the
	// same at every kernel level.
	goldenOrthogonalV2 = []goldenProbe{{0, 0xbfdf7509b949f6ac}, {1, 0x3ff349f5a75d7ef3}, {6, 0x3ff33c0f757625eb}, {7, 0x3fe72fa07466aa33}, {48, 0xbfd3d2883e423d51}, {49, 0xbfe4da99fccf2a38}, {349, 0x3f8174c7c55ca346}}
	goldenBias         = []goldenProbe{{0, 0x4013a9825436b3b5}, {1, 0x401694ba5f2a5a62}, {6, 0x3fe532c276d26847}, {7, 0x3fa0d64ea36b4a33}, {48, 0x3fc7a2745ed90deb}, {49, 0x40118f6d6fa71eff}}
)

// goldenSORF pins the first 32 signs of each diagonal of SORF block 0 for
// seed 1, as bits (1 = −1).
var goldenSORF = [3]uint64{0xc34e09e0, 0xd55c1b7f, 0xf27014b}

// goldenSORFScale pins row scales S_ii/N^(3/2) of SORF seed 1 (Y = 100,
// D = 30, N = 64: blocks 0 and 1).
var goldenSORFScale = []goldenProbe{{0, 0x3f8d94fffa8f5fa3}, {1, 0x3f925ec72f6a5327}, {31, 0x3f8bb64839686734}, {32, 0x3f8f5251cd3cf95d}, {127, 0x3f8ae7f7ce2dfa80}}
