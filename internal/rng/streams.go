package rng

// The stream identifiers of every random draw in drdam, in one place. The
// high byte of a stream says what it is for; the low bytes, where used, say
// which row or block (e.g. StreamGaussianRow|α for row α of a Gaussian
// projection). They are part of the pinned definition of a model's random
// features and of every generated data set: changing one changes every
// model file's projection or every experiment's data, so the golden tests
// of the packages that use them fail.
const (
	// Random features (package features).
	StreamGaussianRow = 1 << 56 // | α: row α of an iid Gaussian projection
	StreamOrthoBlock  = 2 << 56 // | k: the D×D Gaussian block k of an orthogonal projection
	StreamBias        = 3 << 56 // the random shifts b ~ U(0, 2π)
	StreamSORFSigns   = 4 << 56 // | b: the three sign diagonals of SORF block b
	StreamSORFNorms   = 5 << 56 // | b: the χ(N) row norms of SORF block b
	StreamSubset      = 6 << 56 // the projections of dam.SubsetEnergy's random subset

	// Synthetic data (package synth).
	StreamBinary = 10 << 56 // | r: random binary pattern r
	StreamFlip   = 11 << 56 // | r: the bits flipped in row r
	// StreamGray draws the uniform gray patterns of the peers' benchmark
	// configurations b, c and cfull. It shares its value with StreamChoose:
	// the two never meet in one computation (benchmark data against the
	// basis ablation's choice of data points), and changing either would
	// change data that earlier runs measured.
	StreamGray = 20 << 56

	// Experiments (package experiment) and images (package imageio).
	StreamChoose    = 20 << 56 // the basis ablation's choice of data points
	StreamOcclusion = 30 << 56 // the pixels hidden by a random occlusion
	StreamCorrupt   = 31 << 56 // experiment.Corrupt: the coordinates hidden or noised
	StreamSplit     = 32 << 56 // the completion experiment's split of a data set into stored, queries, validation
)
