package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/drdam/drdam/internal/cli"
	"github.com/drdam/drdam/internal/sysinfo"
	"github.com/drdam/drdam/paper"
)

func runReproduce(e *env, args []string) error {
	fs := newFlags("reproduce", "", `
Runs every quantitative experiment of the paper (energy-error, error-vs-k,
basis-ablation, retrieval-error) at one scale, each into OUT/NAME, then the
image experiments (fig1, fig2, compression, fig4b; 3 seeds, 5 at --scale
paper) when the shared photos are present,
and writes OUT/REPORT.md: the figures, and each of the paper's
observations beside what was measured, with the numbers and a verdict
(holds, does not hold, inconclusive: a test across 3 independent seeds,
5 at --scale paper), saying where the measurements differ from the paper
and where each experiment departs from the paper and its code.

At --scale quick the whole run takes about half an hour on two cores; --scale
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
	if !slices.Contains(paper.Scales(), *scale) {
		return usagef("--scale %q: want quick or paper", *scale)
	}
	xs, err := reproduced(cli.SplitList(*only))
	if err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	start := time.Now()
	var results []*paper.Result
	for _, x := range xs {
		name := x.Info().Name
		if !x.Info().Available() {
			fmt.Fprintf(e.stderr, "== %s: skipped, no photos in %s (run 'drdam experiment %s --images DIR' with your own)\n", name, paper.SharedPhotos, name)
			continue
		}
		fmt.Fprintf(e.stderr, "== %s\n", name)
		r, err := reproduceOne(ctx, e, x, *scale, filepath.Join(*out, name), *fresh)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		results = append(results, r)
	}
	return writeReport(e, results, *scale, *out, time.Since(start))
}

// writeReport writes OUT/REPORT.md of the results of a reproduce run and
// says so.
func writeReport(e *env, results []*paper.Result, scale, out string, total time.Duration) error {
	host, _ := os.Hostname()
	m := paper.Machine{Host: host, OS: runtime.GOOS, Arch: runtime.GOARCH, Cores: runtime.NumCPU(), CPU: cmp.Or(sysinfo.CPUModel(), "unknown CPU")}
	path := filepath.Join(out, "REPORT.md")
	if err := writeText(path, paper.Report(results, scale, versionString(), m, total)); err != nil {
		return err
	}
	grids := 0
	for _, r := range results {
		if r.Spec != nil {
			grids++
		}
	}
	fmt.Fprintf(e.stdout, "reproduce: %d experiments in %s; report %s\n", grids, paper.FormatDuration(total), path)
	return nil
}

// reproduced returns the experiments drdam reproduce runs: those of the
// registry marked for it, or the subset named.
func reproduced(only []string) ([]paper.Experiment, error) {
	var all []string
	for _, x := range paper.All() {
		if x.Info().Reproduce {
			all = append(all, x.Info().Name)
		}
	}
	for _, n := range only {
		if !slices.Contains(all, n) {
			return nil, usagef("--only: unknown experiment %q (want some of %s)", n, strings.Join(all, ", "))
		}
	}
	var xs []paper.Experiment
	for _, n := range all {
		if len(only) == 0 || slices.Contains(only, n) {
			x, _ := paper.Lookup(n)
			xs = append(xs, x)
		}
	}
	return xs, nil
}

// reproduceOne runs x with its parameters at scale into dir (from the
// start when fresh, for the experiments that resume).
func reproduceOne(ctx context.Context, e *env, x paper.Experiment, scale, dir string, fresh bool) (*paper.Result, error) {
	ps := x.Params(scale)
	ps.Version = versionString()
	if p := ps.Lookup("fresh"); p != nil && fresh {
		if err := p.Set("true"); err != nil {
			return nil, err
		}
	}
	return runOne(ctx, e, x, ps, dir)
}
