package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/internal/atomicfile"
)

// reproduceOrder lists the experiments drdam reproduce runs, in order.
var reproduceOrder = []string{"energy-error", "error-vs-k", "basis-ablation", "retrieval-error"}

func runReproduce(e *env, args []string) error {
	fs := newFlags("reproduce", "", `
Runs every quantitative experiment of the paper (energy-error, error-vs-k,
basis-ablation, retrieval-error) at one scale, each into OUT/NAME, then the
image experiments (fig1, fig2, fig4b) when the shared photos are present,
and writes OUT/REPORT.md: the figures, and each of the paper's
observations beside what was measured, with the numbers and a verdict
(holds, holds in part, does not hold), saying where the measurements
differ from the paper.

At --scale quick the whole run takes a few minutes on two cores; --scale
paper runs the paper's grids (days, because of retrieval-error; see
'drdam experiment NAME --scale paper --estimate'). Like the experiments, a
rerun skips what is done; --fresh starts over.`)
	scale := fs.String("scale", "quick", "quick or paper")
	out := fs.String("out", filepath.Join("out", "reproduce"), "output directory")
	fresh := fs.Bool("fresh", false, "discard earlier results in --out")
	only := fs.String("only", "", "comma-separated subset of the experiments to run (default: all)")
	if err := fs.parse(e, args); err != nil {
		return err
	}
	if *scale != "quick" && *scale != "paper" {
		return usagef("--scale %q: want quick or paper", *scale)
	}
	names := reproduceOrder
	if *only != "" {
		names = nil
		for _, n := range splitList(*only) {
			if _, ok := paperHelp[n]; ok {
				names = append(names, n)
			} else if n != "fig1" && n != "fig2" && n != "fig4b" {
				return usagef("--only: unknown experiment %q (want some of %s, fig1, fig2, fig4b)", n, strings.Join(reproduceOrder, ", "))
			}
		}
	}
	start := time.Now()
	var results []*paperResult
	for _, n := range names {
		fmt.Fprintf(e.stderr, "== %s\n", n)
		s := defaultSpec(n, *scale)
		s.Version = versionString()
		res, err := runPaperSpec(e, s, filepath.Join(*out, n), *fresh, false)
		if err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
		results = append(results, res)
	}
	var imgs []*imageResult
	if *only == "" || slices.ContainsFunc(splitList(*only), func(n string) bool { return n == "fig1" || n == "fig2" || n == "fig4b" }) {
		for _, n := range []string{"fig1", "fig2", "fig4b"} {
			if *only != "" && !slices.Contains(splitList(*only), n) {
				continue
			}
			if photosOr("tiny64") == "" && n != "fig4b" || n == "fig4b" && photosOr("cifar32_batch.bin") == "" {
				fmt.Fprintf(e.stderr, "== %s: skipped, no photos in %s (run 'drdam experiment %s --images DIR' with your own)\n", n, sharedPhotos, n)
				continue
			}
			fmt.Fprintf(e.stderr, "== %s\n", n)
			dir := filepath.Join(*out, n)
			var r *imageResult
			var err error
			if n == "fig4b" {
				r, err = runFig4B(e, []string{"--out", dir})
			} else {
				r, err = runImageExperiment(e, n, []string{"--out", dir})
			}
			if err != nil {
				return fmt.Errorf("%s: %w", n, err)
			}
			imgs = append(imgs, r)
		}
	}
	total := time.Since(start)
	report := reproduceReport(results, imgs, *scale, total)
	path := filepath.Join(*out, "REPORT.md")
	if err := atomicfile.Write(path, func(w io.Writer) error {
		_, err := io.WriteString(w, report)
		return err
	}); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "reproduce: %d experiments in %s; report %s\n", len(results), fmtDuration(total), path)
	return nil
}

// paperContext says, for each experiment, what the paper reports and what
// the quick grid leaves out.
var paperContext = map[string]string{
	"energy-error": "The paper (Fig. 3) measures D ∈ {30, 100, 1000}, β ∈ {10, 30, 40, 50} and nine Y from 5·10³ to 5·10⁵ " +
		"(the reference code's QUANT1b configuration); the quick grid keeps every D and β and three Y up to 8·10⁴.",
	"error-vs-k": "The paper (Fig. 5) fixes Y = 2·10⁵ and varies K ∈ {50, 100, 200, 400, 650, 1000} at D ∈ {30, 100, 1000}; " +
		"the quick grid leaves out D = 1000.",
	"basis-ablation": "The paper (Fig. 6) stores 500 unique Letter points, tests 400 others, and varies β from 1 to 600 and Y from 4·10⁴ to 8·10⁵ " +
		"with iid features; drdam adds orthogonal and structured projections. The quick grid has β ≤ 100 and two Y.",
	"retrieval-error": "The paper (Fig. 4A) descends from all 500 queries per set to convergence at D ∈ {30, 100, 1000} and the nine Y of Fig. 3; " +
		"the quick grid uses 100 queries per set, D ∈ {30, 100} and Y ≤ 2·10⁴, because each point needs up to 1000 DrDAM evaluations.",
}

// reproduceReport formats the report of a reproduce run.
func reproduceReport(results []*paperResult, imgs []*imageResult, scale string, total time.Duration) string {
	var b strings.Builder
	host, _ := os.Hostname()
	fmt.Fprintf(&b, "# drdam reproduce: the paper's quantitative results\n\n")
	fmt.Fprintf(&b, "Hoover et al., *Dense Associative Memory Through the Lens of Random Features*, NeurIPS 2024.\n\n")
	fmt.Fprintf(&b, "`drdam reproduce --scale %s` (drdam %s) on %s, %s/%s, %d cores (%s): **%s** in total.\n\n",
		scale, versionString(), host, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cmp.Or(cpuModel(), "unknown CPU"), fmtDuration(total))
	b.WriteString("## Summary\n\n| experiment | observation | paper's claim | measured | run time |\n|---|---|---|---|---|\n")
	for _, r := range results {
		for _, f := range r.findings {
			fmt.Fprintf(&b, "| %s | %s | %s | **%s** | %s |\n", r.spec.Experiment, f.Name, f.Claim, f.Verdict, fmtDuration(r.elapsed))
		}
	}
	for _, r := range imgs {
		for _, f := range r.findings {
			fmt.Fprintf(&b, "| %s | %s | %s | **%s** | %s |\n", r.name, f.Name, f.Claim, f.Verdict, fmtDuration(r.elapsed))
		}
	}
	b.WriteString("\n\"Holds in part\" and \"does not hold\" mark where the measurements differ from the paper; the sections below say where, with the numbers.\n")
	if len(imgs) == 0 {
		b.WriteString("The image experiments (Fig. 1, 2 and 4B) were not run (no photos, or --only).\n")
	}
	b.WriteString("\n")
	for _, r := range results {
		name := r.spec.Experiment
		fmt.Fprintf(&b, "## %s (%s)\n\n", name, paperFigure[name])
		fmt.Fprintf(&b, "%s\n\n", paperContext[name])
		fmt.Fprintf(&b, "Rerun: `drdam experiment %s --scale %s --out %s` (%s; %d points; grid D %v, K %v, β %v, Y %v).\n\n",
			name, scale, r.dir, fmtDuration(r.elapsed), len(r.rows), r.spec.D, r.spec.K, r.spec.Beta, r.spec.Y)
		writeFindings(&b, r.findings)
		for _, f := range r.findings {
			if f.Verdict != experiment.Holds {
				fmt.Fprintf(&b, "**Differs from the paper (%s):** the claim %s here; see the numbers above.\n\n", f.Name, f.Verdict)
			}
		}
		for _, fig := range r.figures {
			fmt.Fprintf(&b, "![%s](%s/%s.png)\n\n", fig, name, fig)
		}
	}
	for _, r := range imgs {
		fmt.Fprintf(&b, "## %s\n\n%s\n\nRerun: `drdam experiment %s --out %s` (%s).\n\n", r.name, r.summary, r.name, r.dir, fmtDuration(r.elapsed))
		writeFindings(&b, r.findings)
		for _, f := range r.findings {
			if f.Verdict != experiment.Holds {
				fmt.Fprintf(&b, "**Differs from the paper (%s):** the claim %s here; see the numbers above.\n\n", f.Name, f.Verdict)
			}
		}
		for _, fig := range r.figures {
			fmt.Fprintf(&b, "![%s %s](%s/%s)\n\n", r.name, fig, r.name, fig)
		}
	}
	return b.String()
}
