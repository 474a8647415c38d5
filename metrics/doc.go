// Package metrics measures how closely DrDAM follows MrDAM, as in §4 of
// the paper: mean approximation errors of energies and gradients (eq. MAE),
// binarization and the normalized Hamming error of retrieved fixed points
// (eq. binarize-op-hamming-err), and the theoretical divergence bounds of
// Theorem 1 and Corollary 1.
package metrics
