// Package experiment runs the paper's quantitative experiments on drdam's
// models and returns their measurements as plain rows (configuration, mean,
// standard error, median, count), ready to be written as CSV, drawn, and
// checked against the paper's observations.
//
// The experiments, each a Plan of Tasks built from a grid:
//
//   - EnergyPlan: energy-error (Fig. 3, §4.1). K unique random binary
//     patterns in {0, 1/√D}^D are stored in an MrDAM and in DrDAMs with Y
//     random features; the mean approximation errors (eq. MAE) of DrDAM's
//     energies and gradients against MrDAM's are measured at the stored
//     patterns, near them (10% of the bits flipped) and far from them
//     (fresh random patterns), with the paper's random-guess baseline and,
//     for SinCos features, the bound of Corollary 1 with C₁ measured. With
//     one Y and several K it is error-vs-k (Fig. 5).
//   - RetrievalPlan: retrieval-error (Fig. 4A, §4.2): the normalized
//     Hamming error between the binarized fixed points of DrDAM and MrDAM.
//   - BasisPlan: basis-ablation (Fig. 6): the four bases (and the three
//     projections) on a data set scaled into [0, 1/√D]^D, such as the UCI
//     Letter data of package datasets.
//
// A Plan is made with the configurations already measured left out, so a
// run resumes where an earlier one stopped, and its Cost estimates the run
// time from Rates measured by Calibrate. EnergyFigures, RetrievalFigure,
// ErrorVsKFigures and BasisFigures draw rows in the paper's layout (package
// plots). ObserveNearFar, ObserveBeta, ObserveSaturation (Obs. 1–3),
// ObserveBound, ObserveK, ObserveBases and ObserveRetrieval check the
// paper's claims against rows by stated rules and return Findings with the
// numbers.
//
// EnergyError is the older interface of §4.1's set-up with the projection
// as an axis (drdam experiment projections).
package experiment
