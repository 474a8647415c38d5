// Package metrics measures how closely DrDAM follows MrDAM, as in §4 of
// the paper: mean approximation errors of energies and gradients (eq. MAE),
// binarization and the normalized Hamming error of retrieved fixed points
// (eq. binarize-op-hamming-err), the RMSE of completed images in 0–255
// pixel units (RMSE255, ClipUnit), the rate at which errors fall (LogSlope,
// FitInvSqrt: the b/√Y of random features), summary statistics, and the
// theoretical divergence bounds of Theorem 1 and Corollary 1.
package metrics
