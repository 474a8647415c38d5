package paper

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/plots"
)

// Progress reports a long run: done of total units of work (estimated
// seconds), with the label of the task under way.
type Progress func(done, total float64, label string)

// GridRun is a prepared run (or resumption) of a grid experiment into a
// directory: its plan, and what earlier runs there measured.
type GridRun struct {
	Exp  *Experiment
	Spec Spec
	Dir  string
	Plan *experiment.Plan

	rows    []experiment.Row
	before  time.Duration // run time of the earlier runs resumed
	started string        // when the first of them began
	fresh   bool
}

// PrepareGrid checks s, reads what an earlier run of the same fixed
// configuration left in dir (unless fresh, or estimateOnly), measures the
// machine's speed (about two seconds) and makes the plan of what is left. A
// directory holding a run of a different configuration is refused, with
// both configurations shown.
func PrepareGrid(x *Experiment, s Spec, dir string, fresh, estimateOnly bool) (*GridRun, error) {
	if x.Kind != KindGrid {
		return nil, fmt.Errorf("%s is not a grid experiment", x.Name)
	}
	prec, err := s.precision()
	if err != nil {
		return nil, err
	}
	r := &GridRun{Exp: x, Spec: s, Dir: dir, fresh: fresh}
	if !fresh && !estimateOnly {
		if err := r.resume(); err != nil {
			return nil, err
		}
	}
	done := map[experiment.Key]bool{}
	for _, row := range r.rows {
		done[row.Key()] = true
	}
	if s.Seeds < 0 {
		return nil, specErrorf("--seeds %d: want at least 1", s.Seeds)
	}
	// Seeds may grow between runs into a directory, never shrink: the
	// points of every replicate measured there are drawn and judged, so
	// config.json counts them all.
	r.Spec.Seeds = max(len(s.seedList()), len(experiment.Seeds(r.rows)))
	// A plan made with the default rates checks s before the calibration's
	// second is spent.
	if _, err := r.replicates(prec, experiment.DefaultRates(), done); err != nil {
		return nil, err
	}
	rates, err := experiment.Calibrate(context.Background(), prec)
	if err != nil {
		return nil, err
	}
	if r.Plan, err = r.replicates(prec, rates, done); err != nil {
		return nil, err
	}
	return r, nil
}

// replicates returns the plan of every replicate of r.Spec, one after the
// other: the experiment's plan made with each seed of the spec, its keys
// and rows marked with that seed, leaving out what done holds.
func (r *GridRun) replicates(prec dam.Precision, rates experiment.Rates, done map[experiment.Key]bool) (*experiment.Plan, error) {
	var plans []*experiment.Plan
	for _, seed := range r.Spec.seedList() {
		s := r.Spec
		s.Seed = seed
		p, err := r.Exp.Plan(s, prec, rates, func(k experiment.Key) bool {
			k.Seed = seed
			return done[k]
		})
		if err != nil {
			return nil, err
		}
		plans = append(plans, p.WithSeed(seed))
	}
	return experiment.Concat(r.Exp.Name, plans...), nil
}

// resume reads the configuration and points of an earlier run in r.Dir.
func (r *GridRun) resume() error {
	cfgPath := filepath.Join(r.Dir, "config.json")
	b, err := os.ReadFile(cfgPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var old Spec
	if err := json.Unmarshal(b, &old); err != nil {
		return fmt.Errorf("%s: %w (pass --fresh to start over)", cfgPath, err)
	}
	if a, b := mustJSON(old.fixed()), mustJSON(r.Spec.fixed()); !bytes.Equal(a, b) {
		return fmt.Errorf("%s holds results of a different configuration:\n  there: %s\n  here:  %s\nuse another --out, or --fresh to discard them", r.Dir, a, b)
	}
	r.rows, err = experiment.ReadRows(filepath.Join(r.Dir, "points.csv"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w (pass --fresh to start over)", err)
	}
	if d, err := time.ParseDuration(old.Elapsed); err == nil && len(r.rows) > 0 {
		r.before, r.started = d, old.Started
	}
	return nil
}

// Skipped returns the number of configurations measured already.
func (r *GridRun) Skipped() int { return r.Plan.Skipped }

// Estimate returns the estimated run time of what is left.
func (r *GridRun) Estimate() time.Duration { return r.Plan.Cost() }

// Run runs the plan, saving points.csv after every task (a stopped run
// keeps them) and config.json before and after, then draws the figures and
// checks the findings (findings.md).
func (r *GridRun) Run(progress Progress) (*Result, error) {
	cfgPath, ptsPath := filepath.Join(r.Dir, "config.json"), filepath.Join(r.Dir, "points.csv")
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return nil, err
	}
	start := time.Now()
	s := r.Spec
	s.Started = cmp.Or(r.started, start.UTC().Format(time.RFC3339))
	if err := writeJSON(cfgPath, s); err != nil {
		return nil, err
	}
	if r.fresh {
		if err := os.Remove(ptsPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	rows := r.rows
	err := r.Plan.Run(context.Background(), func(new []experiment.Row) error {
		rows = append(rows, new...)
		return experiment.WriteRows(ptsPath, rows)
	}, func(d, total float64, label string) {
		if progress != nil {
			progress(d, total, label)
		}
	})
	if err != nil {
		return nil, err
	}
	elapsed := time.Since(start)
	// Elapsed is the run time of all the runs that made the points.
	s.Elapsed = (r.before + elapsed).Round(time.Second).String()
	if err := writeJSON(cfgPath, s); err != nil {
		return nil, err
	}
	// The run time reported is that of all the runs that made the points,
	// as config.json's Elapsed.
	res := &Result{Exp: r.Exp, Spec: &s, Dir: r.Dir, Rows: rows, Elapsed: r.before + elapsed}
	if err := finishGrid(res); err != nil {
		return nil, err
	}
	return res, nil
}

// finishGrid draws the figures and checks the findings of a finished run.
func finishGrid(res *Result) error {
	x := res.Exp
	figs := x.Figures(res.Rows)
	names := make([]string, 0, len(figs))
	for n := range figs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := figs[n].SaveAll(filepath.Join(res.Dir, n)); err != nil {
			return err
		}
		res.Figures = append(res.Figures, n+".png")
	}
	res.Findings = x.Observe(res.Rows)
	var b strings.Builder
	fmt.Fprintf(&b, "# %s (%s): findings\n\n", x.Name, x.Figure)
	fmt.Fprintf(&b, "drdam %s, %s scale, %d points; configuration in `config.json`, points in `points.csv`.\n\n", res.Spec.Version, res.Spec.Scale, len(res.Rows))
	fmt.Fprintf(&b, "%s\n\n", StatRule)
	writeFindings(&b, res.Findings)
	writeDeviations(&b, x)
	for _, n := range names {
		fmt.Fprintf(&b, "![%s](%s.png)\n\n", n, n)
	}
	return writeFile(filepath.Join(res.Dir, "findings.md"), b.String())
}

// figureSet prefixes the base names of figures.
func figureSet(prefix string, figs map[string]*plots.Figure) map[string]*plots.Figure {
	out := map[string]*plots.Figure{}
	for k, f := range figs {
		out[prefix+k] = f
	}
	return out
}
