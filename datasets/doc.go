// Package datasets holds data sets that the paper's experiments need,
// embedded in the binary so that they work on a fresh machine without a
// download, and the preprocessing the paper applies to them.
//
// Letter returns the UCI Letter Recognition data (20000 16-dimensional
// integer feature vectors and their letters A–Z; see LETTER.md for its
// provenance and licence), used in the paper's appendix "Ablation study:
// Comparing choices for basis function" (Fig. 6). NormalizeUnitBox scales
// data into [0, 1/√D]^D as that experiment does, and Unique picks the
// distinct rows, since the paper draws unique points and the Letter data
// has duplicate rows.
package datasets
