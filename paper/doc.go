// Package paper is the paper — Hoover et al., "Dense Associative Memory
// Through the Lens of Random Features" (NeurIPS 2024) — as data and as a
// report: a registry of its experiments (and drdam's own), each with its
// grid, its figures and the observations that judge it.
//
// # The registry
//
// All lists every Experiment; Lookup finds one by name. An Experiment is
// an interface: Info says what it is (name, figure, help, what the paper
// reports, its deviations), Params(scale) lists its parameters (name,
// help, type and default; values read and written as text, so that a
// command binds them as flags in one loop) with the defaults of a scale,
// and Run(ctx, params, dir, observer) runs it, reporting progress and log
// lines to one Observer and stopping soon after ctx is cancelled. A
// parameter refused is a *ParamError naming it. Five kinds implement it,
// each in the file that defines it:
//
//   - grids (grid.go: energy-error, error-vs-k, basis-ablation,
//     retrieval-error: Fig. 3, 5, 6 and 4A; theorem1: Theorem 1 and
//     Corollary 1; break-even): a Spec (the grid at a scale, "quick" or
//     "paper", with the parameters given applied) becomes a plan of package
//     experiment; Run resumes what an earlier run into the same directory
//     measured, measures the rest and writes points.csv, config.json, the
//     figures (PNG and SVG) and findings.md.
//   - completions (images.go: fig1, fig2), a sweep over β × Y (sweep.go:
//     fig4b) and completions over the size of T (compression.go): an
//     ImageSpec is loaded into a Completion of occluded images, completed
//     with MrDAM and with DrDAMs over several projection seeds; Run writes
//     the image grid, the energy traces or the curve, the RMSEs on the
//     occluded pixels (every seed in a CSV) and findings.md.
//   - the comparison of projection kinds on the set-up of §4.1
//     (projections.go: projections): points.csv and a table of ratios.
//   - completion against what users use instead (missing.go: completion):
//     real data sets split per seed, damaged five ways, completed by the
//     baselines of package baseline and by MrDAM and DrDAM with their
//     parameters chosen on a validation split; results.csv, table.md,
//     figures of RMSE against bytes of state and against K, and
//     findings.md with claims stated before the run (missing_judge.go).
//
// drdam reproduce runs the experiments marked Reproduce, in the registry's
// order, and Report turns their Results into one REPORT.md.
//
// # Judging the claims
//
// The observe functions (Obs. 1–3 of §4.1, Corollary 1, Fig. 4A, 5 and 6,
// Theorem 1, break-even) and the judges of the image experiments check
// the paper's claims against measured rows and return Findings: a verdict
// (Holds, DoesNotHold, Inconclusive, NotMeasured), the rule and the
// numbers behind it. Every verdict follows StatRule (verdict.go): one
// statistic per independent replicate (a seed, or an image), its 95%
// Student-t interval against a reference value stated in advance, groups
// combined so that a claim holds only where every group holds. The figures functions draw rows in the paper's layout (package
// plots).
//
// # Adding an experiment
//
// Write a file that defines it (a value of an existing kind, with its
// defaults, plan, figures and observations), add it to the registry's
// list in registry.go, and test it in a file of its own: the command's
// flags, drdam reproduce and the report follow from the registry. See
// docs/ARCHITECTURE.md.
package paper
