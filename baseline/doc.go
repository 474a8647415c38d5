// Package baseline holds what users complete missing data with instead of a
// Dense Associative Memory: the masked k nearest neighbours, scikit-learn's
// KNNImputer, the column means and one step of Nadaraya–Watson kernel
// regression (MrDAM's softmax readout). Each is a Completer over K stored
// rows ξ¹…ξᴷ of D coordinates (row-major, K×D).
//
// A batch of B queries q (B×D, row-major) is completed into dst (B×D): the
// visible coordinates of each query are copied and its hidden ones filled.
// Which coordinates are visible is given either by a mask (visible[b·D+i]
// true when coordinate i of query b is visible; the values at hidden
// coordinates are ignored and may be NaN) or, with a nil mask, by NaN
// (scikit-learn's convention: a NaN coordinate is hidden, every other
// visible). A visible coordinate must be finite. Let V be the visible
// coordinates of a query x and H its hidden ones.
//
// # Masked k nearest neighbours (KNN)
//
// The distance of x to a stored row is the Euclidean distance over V alone,
//
//	d_μ = ‖x_V − ξ^μ_V‖ = sqrt(Σ_{i∈V} (x_i − ξ^μ_i)²),
//
// and the k stored rows of least d_μ are x's neighbours, ties broken by the
// lower row index (so that the result is deterministic). With k = 1 the
// hidden coordinates are the nearest row's. With k > 1 they are the mean
// of the neighbours' values, weighted uniformly (w_μ = 1) or by the
// inverse distance (w_μ = 1/d_μ), with the exact-match rule: if some
// neighbours have d_μ = 0, only they count, with equal weights. A query
// with no visible coordinate is at distance 0 from every row: its
// neighbours are rows 0 … k−1.
//
// # scikit-learn's KNNImputer (Imputer)
//
// Imputer is sklearn.impute.KNNImputer (scikit-learn 1.2, metric
// "nan_euclidean") with its results: the stored rows may have NaN
// (missing) values too. The distance of x to a stored row y is
//
//	dist(x, y) = sqrt(D/n · Σ_{i∈P} (x_i − y_i)²),
//
// where P is the coordinates present in both and n = |P| (scikit-learn's
// nan_euclidean_distances, D counting every column), and NaN when n = 0.
// Each hidden coordinate j is filled from its potential donors, the stored
// rows whose coordinate j is present: the min(k, donors) donors of least
// distance, NaN distances after every number, ties broken by the lower row
// index (scikit-learn's np.argpartition breaks them in an unspecified
// order; on data without ties the results are the same). The fill is the
// mean of the chosen donors' values: uniform weights (which count a donor
// at NaN distance like any other, as scikit-learn does) or the weights
// 1/dist, where a donor at NaN distance weighs 0 and, if some chosen
// donors are at distance 0, they weigh 1 and all others 0 (scikit-learn's
// _get_weights). When every potential donor is at NaN distance, or there
// is none but the column has some present value, the fill is the mean of
// the column's present values (scikit-learn's fallback). A column with no
// present value at all (scikit-learn drops it, or with
// keep_empty_features=True fills the whole column with 0) is kept here:
// its hidden coordinates are filled with 0 and its visible ones copied.
//
// # Column means (Mean)
//
// Each hidden coordinate i is the stored rows' mean (1/K) Σ_μ ξ^μ_i.
//
// # Nadaraya–Watson kernel regression (Kernel)
//
// One step of MrDAM's softmax readout over the visible coordinates at
// inverse temperature β > 0: the hidden coordinates are
//
//	x_H = Σ_μ w_μ ξ^μ_H,  w_μ = exp(−β/2 d_μ²) / Σ_ν exp(−β/2 d_ν²),
//
// with d_μ as for KNN, computed stably: the least d² is subtracted before
// the exponentials (log-sum-exp), so that no weight overflows and the
// nearest row's weight is exp(0) = 1 before the division.
//
// # Computation
//
// Complete runs blocks of 8 queries on every core (internal/par), each
// query on its own: the result does not depend on the number of cores.
// A block reads each stored row once, for its 8 queries. Memory is
// bounded: no K×B distance matrix is formed; a worker holds, per query of
// its block, at most one K-length buffer of distances (Imputer, Kernel) or
// a heap of k neighbours (KNN), reused from block to block, so that the
// loops over queries allocate nothing. Distances are direct differences
// over the visible coordinates, not ‖x‖² + ‖y‖² − 2x·y, so that equal
// distances are equal and ties are exact. Stored rows are referenced, not
// copied: they must not be modified while the Completer is in use.
package baseline
