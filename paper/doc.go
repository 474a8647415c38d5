// Package paper is the paper — Hoover et al., "Dense Associative Memory
// Through the Lens of Random Features" (NeurIPS 2024) — as data and as a
// report: a registry of its experiments (and drdam's own), each with its
// grid, its figures and the observations that judge it.
//
// # The registry
//
// All lists every Experiment; Lookup finds one by name. An Experiment says
// what it is (name, figure, help, what the paper reports) and how it runs,
// by its Kind:
//
//   - KindGrid (energy-error, error-vs-k, basis-ablation, retrieval-error:
//     Fig. 3, 5, 6 and 4A; theorem1: Theorem 1 and Corollary 1): a Spec (the grid at a scale, "quick" or
//     "paper") becomes a plan of package experiment; PrepareGrid resumes
//     what an earlier run into the same directory measured, GridRun.Run
//     measures the rest and writes points.csv, config.json, the figures
//     (PNG and SVG) and findings.md.
//   - KindCompletion (fig1, fig2), KindSweep (fig4b) and KindCompression
//     (compression): an ImageSpec is loaded into a Completion of occluded
//     images; RunImageExperiment, RunSweep and RunCompression complete
//     them with MrDAM and with DrDAMs over --seeds projection seeds and
//     write the image grid, the energy traces or the curve, the RMSEs on
//     the occluded pixels (every seed in a CSV) and findings.md.
//   - KindComparison (projections): RunComparison compares projection
//     kinds on the set-up of §4.1 (points.csv and a table of ratios).
//
// drdam reproduce runs the experiments marked Reproduce, in the registry's
// order, and Report turns their Results into one REPORT.md.
//
// # Judging the claims
//
// The Observe functions (Obs. 1–3 of §4.1, Corollary 1, Fig. 4A, 5 and 6,
// Theorem 1, break-even) and the judges of the image experiments check
// the paper's claims against measured rows and return Findings: a verdict
// (Holds, DoesNotHold, Inconclusive, NotMeasured), the rule and the
// numbers behind it. Every verdict follows StatRule (verdict.go): one
// statistic per independent replicate (a seed, or an image), its 95%
// Student-t interval against a reference value stated in advance, groups
// combined so that a claim holds only where every group holds. The Figures functions draw rows in the paper's layout (package
// plots).
//
// # Adding an experiment
//
// Write a file that defines it (an *Experiment of an existing Kind, with
// its defaults, plan, figures and observations), add it to the registry's
// list in registry.go, and test it in a file of its own: the command's
// flags, drdam reproduce and the report follow from the registry. See
// docs/ARCHITECTURE.md.
package paper
