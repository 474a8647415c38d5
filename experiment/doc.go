// Package experiment measures: it runs the paper's quantitative experiments
// on drdam's models and returns their measurements as plain rows
// (configuration, mean, standard error, median, count), ready to be
// written as CSV and then drawn and judged by package paper.
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
//     one Y and several K it is error-vs-k (Fig. 5); with several
//     projection kinds (and a control sample of iid ones) it compares the
//     projections (drdam experiment projections).
//   - RetrievalPlan: retrieval-error (Fig. 4A, §4.2): the normalized
//     Hamming error between the binarized fixed points of DrDAM and MrDAM.
//   - DivergencePlan: theorem1: Theorem 1 (eq. div-ub) measured as
//     stated, the divergence of L steps of plain descent of MrDAM and
//     DrDAM from the same queries, at Corollary 1's step and at a given
//     one, against the bound per query.
//   - BasisPlan: basis-ablation (Fig. 6): the bases (and the projections)
//     on a data set scaled into [0, 1/√D]^D, such as the UCI Letter data of
//     package datasets.
//
// A Plan is made with the configurations already measured left out, so a
// run resumes where an earlier one stopped, and its Cost estimates the run
// time from Rates measured by Calibrate. Within a task, one projection per
// seed serves every β (dam.DrDAM.WithBeta). Rows are written and read by
// WriteRows and ReadRows.
//
// Complete runs an image completion (Fig. 1, 2 and 4B): occluded images
// descended by MrDAM and DrDAM, with the RMSEs and energies that the image
// experiments of package paper judge.
package experiment
