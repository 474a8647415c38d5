// Package experiment runs the paper's quantitative experiments on drdam's
// models and returns their measurements as plain rows (configuration, mean,
// standard error, count), ready to be written as CSV or drawn.
//
// EnergyError is the experiment of §4.1 (Fig. 3): K unique random binary
// patterns in {0, 1/√D}^D are stored in an MrDAM and in DrDAMs with Y
// random features; the mean approximation errors (eq. MAE) of DrDAM's
// energies and gradients against MrDAM's are measured at the stored
// patterns, near them (10% of the bits flipped) and far from them (fresh
// random patterns), for each combination of D, β, Y and projection.
package experiment
