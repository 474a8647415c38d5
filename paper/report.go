package paper

import (
	"fmt"
	"strings"
	"time"

	"github.com/drdam/drdam/experiment"
)

// Result is what a run of an experiment leaves for the command and the
// report.
type Result struct {
	Info     Info  // the experiment run
	Spec     *Spec // grid experiments: the configuration run
	Dir      string
	Rows     []experiment.Row // grid experiments: every point
	Figures  []string         // PNG files written, relative to Dir
	Findings []Finding
	Elapsed  time.Duration
	// Summary describes an image experiment's run in Markdown (sizes,
	// settings and times).
	Summary string
	// Text is what the command prints of the run: a grid's points and
	// verdicts, an image experiment's RMSE table, a comparison's table,
	// and the files written.
	Text string
}

// writeFindings formats findings as Markdown sections.
func writeFindings(b *strings.Builder, fs []Finding) {
	for _, f := range fs {
		fmt.Fprintf(b, "## %s: %s — **%s**\n\n", f.Name, f.Claim, f.Verdict)
		fmt.Fprintf(b, "*Rule:* %s.\n\n", f.Rule)
		for _, d := range f.Details {
			fmt.Fprintf(b, "- %s\n", d)
		}
		b.WriteString("\n")
	}
}

// writeDeviations lists where x differs from the paper, if anywhere.
func writeDeviations(b *strings.Builder, x Info) {
	if len(x.Deviations) == 0 {
		return
	}
	b.WriteString("### Deviations from the paper and its code\n\n")
	for _, d := range x.Deviations {
		fmt.Fprintf(b, "- %s\n", d)
	}
	b.WriteString("\n")
}

// Machine describes where a report was made.
type Machine struct {
	Host, OS, Arch, CPU string
	Cores               int
}

// Report formats the report of a reproduce run: a summary table of every
// finding, then a section per experiment with what the paper reports, the
// command that reruns it, the findings, where they differ from the paper,
// and the figures (paths relative to the report's directory, whose
// subdirectories are named after the experiments).
func Report(results []*Result, scale, version string, m Machine, total time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# drdam reproduce: the paper's quantitative results\n\n")
	fmt.Fprintf(&b, "Hoover et al., *Dense Associative Memory Through the Lens of Random Features*, NeurIPS 2024.\n\n")
	var sum time.Duration
	for _, r := range results {
		sum += r.Elapsed
	}
	fmt.Fprintf(&b, "`drdam reproduce --scale %s` (drdam %s) on %s, %s/%s, %d cores (%s): **%s** in total.",
		scale, version, m.Host, m.OS, m.Arch, m.Cores, m.CPU, FormatDuration(max(sum, total)))
	if sum > total+time.Minute {
		// Grid experiments resumed from earlier runs into the same
		// directory: their run times are those of the runs that measured.
		fmt.Fprintf(&b, " This run took %s; the rest is the run time of earlier runs into the same directories, whose points it resumed and redrew.", FormatDuration(total))
	}
	b.WriteString("\n\n")
	b.WriteString("## Summary\n\n| experiment | observation | paper's claim | measured | run time |\n|---|---|---|---|---|\n")
	images := 0
	for _, r := range results {
		for _, f := range r.Findings {
			claim := f.Claim
			if f.Ours {
				claim = "*drdam's, not the paper's:* " + claim
			}
			fmt.Fprintf(&b, "| %s | %s | %s | **%s** | %s |\n", r.Info.Name, f.Name, claim, f.Verdict, FormatDuration(r.Elapsed))
		}
		if r.Spec == nil {
			images++
		}
	}
	b.WriteString("\n## How the verdicts are decided\n\n" + StatRule + " The rule of each claim below names its groups, its statistic and its reference value, each fixed before the data were measured. " +
		"\"Does not hold\" and \"inconclusive\" mark where the measurements do not confirm the paper; the sections below give the numbers, and list where each experiment departs from the paper and its code.\n")
	if images == 0 {
		b.WriteString("The image experiments (Fig. 1, 2, 4B and the compression curve) were not run (no photos, or --only).\n")
	}
	b.WriteString("\n")
	for _, r := range results {
		name := r.Info.Name
		if r.Spec != nil {
			s := r.Spec
			fmt.Fprintf(&b, "## %s (%s)\n\n%s\n\n", name, r.Info.Figure, r.Info.Context)
			fmt.Fprintf(&b, "Rerun: `drdam experiment %s --scale %s --out %s` (%s; %d points; grid D %v, K %v, β %v, Y %v; %d seeds from %d).\n\n",
				name, scale, r.Dir, FormatDuration(r.Elapsed), len(r.Rows), s.D, s.K, s.Beta, s.Y, s.Seeds, s.Seed)
		} else {
			fmt.Fprintf(&b, "## %s\n\n%s\n\nRerun: `drdam experiment %s --out %s` (%s).\n\n", name, r.Summary, name, r.Dir, FormatDuration(r.Elapsed))
		}
		writeFindings(&b, r.Findings)
		for _, f := range r.Findings {
			if f.Ours {
				continue // not the paper's claim: nothing to differ from
			}
			switch f.Verdict {
			case DoesNotHold:
				fmt.Fprintf(&b, "**Differs from the paper (%s):** the measurements contradict the claim; see the numbers above.\n\n", f.Name)
			case Inconclusive:
				fmt.Fprintf(&b, "**Not confirmed (%s):** the measurements neither confirm nor contradict the claim at 95%%; see the numbers above.\n\n", f.Name)
			}
		}
		writeDeviations(&b, r.Info)
		for _, fig := range r.Figures {
			if r.Spec != nil {
				base := strings.TrimSuffix(fig, ".png")
				fmt.Fprintf(&b, "![%s](%s/%s)\n\n", base, name, fig)
			} else {
				fmt.Fprintf(&b, "![%s %s](%s/%s)\n\n", name, fig, name, fig)
			}
		}
	}
	return b.String()
}
