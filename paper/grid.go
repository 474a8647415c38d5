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
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/plots"
)

// gridExperiment is an experiment that measures a grid of configurations
// (a Spec) as a resumable plan of package experiment: points.csv, the
// figures, findings.md and config.json.
type gridExperiment struct {
	info Info
	// spec returns the grid at a scale ("quick" or "paper").
	spec func(scale string) Spec
	// flagNotes replaces the generic help of a parameter (by name) where
	// the experiment reads it its own way.
	flagNotes map[string]string
	// plan turns a Spec into the plan of what is not done.
	plan func(s Spec, prec dam.Precision, rates experiment.Rates, done func(experiment.Key) bool) (*experiment.Plan, error)
	// figures draws the rows, by file base name; observe checks the
	// paper's claims against them.
	figures func(rows []experiment.Row) map[string]*plots.Figure
	observe func(rows []experiment.Row) []Finding
	// estimateNote qualifies the estimated run time.
	estimateNote string
}

// gridHelp ends the help of every grid experiment.
const gridHelp = `

--scale quick runs a reduced grid in minutes; --scale paper runs the
paper's grid (its estimated run time is printed first; --estimate prints it
and stops). Any axis can be overridden. Results go to --out: points.csv
(every measured point: configuration, mean, standard error, median, count),
the figures as PNG and SVG, findings.md (the paper's observations checked
against the points) and config.json (the exact configuration and program
version). A run into a directory that has results skips the
configurations measured already (--fresh starts over), so an interrupted
run resumes, and new axis values add to the figures.`

// Info returns what x is; its help ends with what every grid experiment
// does.
func (x *gridExperiment) Info() Info {
	i := x.info
	i.Help = strings.TrimSpace(i.Help) + gridHelp
	return i
}

// gridConfig is what the parameters of a grid experiment fill: the scale,
// --config, the run's switches, and the values given, which override the
// fields of the scale's (or --config's) Spec.
type gridConfig struct {
	scale, config   string
	fresh, estimate bool
	spec            Spec // the Spec the parameters given are applied to
}

// Params returns the parameters of x: its axes, and one for every other
// field of Spec that its default sets (shown with their defaults at
// scale). Each sets its field only when given, so that the scale and
// --config keep the rest.
func (x *gridExperiment) Params(scale string) *Params {
	q := x.spec(scale) // the defaults shown
	c := &gridConfig{scale: scale, spec: q}
	ps := &Params{cfg: c}
	note := func(name, usage string) string { return cmp.Or(x.flagNotes[name], usage) }
	ps.add("scale", stringValue{&c.scale}, "string", "grid: quick (minutes) or paper (the paper's grid)")
	ps.add("config", stringValue{&c.config}, "string", "read the configuration from a config.json of an earlier run (flags given explicitly override it)")
	for _, a := range []struct {
		name, what string
		p          *[]int
	}{{"d", "dimensions D", &c.spec.D}, {"k", "numbers of stored patterns K", &c.spec.K}, {"y", "numbers of random features Y", &c.spec.Y}} {
		ps.add(a.name, counts(a.p), "string", "comma-separated "+a.what+" (default: the scale's)").Default = ""
	}
	ps.add("beta", positives(&c.spec.Beta), "string", "comma-separated inverse temperatures β (default: the scale's)").Default = ""
	ps.add("seed", seedValue{&c.spec.Seed}, "uint", "seed of the patterns (or of the choice of data points) and of the projections (0, as encode; the reproduced figures were made with it)")
	ps.add("seeds", countValue{&c.spec.Seeds, 1, dam.MaxCount}, "int", fmt.Sprintf("independent replicates (seeds --seed, --seed+%d, …: new patterns, queries and projections each); figures show means over them with 95%% intervals and verdicts test across them (default: %d at --scale quick, %d at paper)",
		experiment.SeedStride, DefaultSeeds("quick"), DefaultSeeds("paper"))).Default = ""
	ps.add("precision", &c.spec.Precision, "string", note("precision", "compute precision of DrDAM (MrDAM is always float64); float64 by default so that the errors measured are DrDAM's, not float32 rounding"))
	ps.add("fresh", switchValue{&c.fresh}, "", "discard the results in --out and start over")
	ps.add("estimate", switchValue{&c.estimate}, "", "print the plan and its estimated run time (on a machine whose cores the run has to itself; the calibration takes about two seconds), and stop")
	if q.uses(usesData) {
		ps.add("bases", basesValue(&c.spec.Bases), "string", "comma-separated bases (default: "+joinList(q.Bases)+")").Default = ""
		ps.add("projections", projectionsValue(&c.spec.Projections), "string", "comma-separated projections (default: "+joinList(q.Projections)+")").Default = ""
		ps.add("data", stringValue{&c.spec.Data}, "string", "data set: letter (embedded UCI Letter) or a .arff, .csv, .tsv, .txt or .npy file of numeric rows")
		ps.add("stored", countValue{&c.spec.Stored, 1, dam.MaxCount}, "int", "data points stored")
		ps.add("new", countValue{&c.spec.New, 1, dam.MaxCount}, "int", "data points used as new patterns")
	}
	if q.uses(usesBinary) {
		ps.add("basis", &c.spec.Basis, "string", note("basis", "feature basis: "+features.BasisNames()))
		// One kind, or a list where the experiment reads one (break-even).
		ps.add("projection", &c.spec.Projection, "string", note("projection", "random projection: gaussian (iid, as the paper), orthogonal or structured (SORF)"))
		ps.add("flip", numberValue{&c.spec.Flip, isFraction, "from 0 to 1"}, "float", "fraction of bits flipped for the near queries")
	}
	if q.uses(usesRetrieval) {
		ps.add("queries", countValue{&c.spec.Queries, 0, dam.MaxCount}, "int", note("queries", "queries per set: the first N of the K (default: the scale's; 0 = all)")).Default = ""
		ps.add("step", numberValue{&c.spec.Step, isPositive, "> 0"}, "float", "descent step η (the paper's code: 0.03)")
		ps.add("steps", countValue{&c.spec.MaxSteps, 1, dam.MaxCount}, "int", "maximum descent steps L (the paper's code: 1000)")
		ps.add("tol", numberValue{&c.spec.Tol, isNonNegative, "≥ 0"}, "float", "stop a query when its energy changes by less than this (0: run every step)")
	}
	return ps
}

// gridSpecFields maps each parameter of a grid experiment that sets a
// field of Spec to that field.
var gridSpecFields = map[string]func(dst, src *Spec){
	"d": func(d, s *Spec) { d.D = s.D }, "k": func(d, s *Spec) { d.K = s.K }, "y": func(d, s *Spec) { d.Y = s.Y },
	"beta": func(d, s *Spec) { d.Beta = s.Beta }, "seed": func(d, s *Spec) { d.Seed = s.Seed }, "seeds": func(d, s *Spec) { d.Seeds = s.Seeds },
	"bases": func(d, s *Spec) { d.Bases = s.Bases }, "projections": func(d, s *Spec) { d.Projections = s.Projections },
	"data": func(d, s *Spec) { d.Data = s.Data }, "stored": func(d, s *Spec) { d.Stored = s.Stored }, "new": func(d, s *Spec) { d.New = s.New },
	"projection": func(d, s *Spec) { d.Projection = s.Projection }, "flip": func(d, s *Spec) { d.Flip = s.Flip },
	"queries": func(d, s *Spec) { d.Queries = s.Queries }, "step": func(d, s *Spec) { d.Step = s.Step },
	"steps": func(d, s *Spec) { d.MaxSteps = s.MaxSteps }, "tol": func(d, s *Spec) { d.Tol = s.Tol },
	"basis": func(d, s *Spec) { d.Basis = s.Basis }, "precision": func(d, s *Spec) { d.Precision = s.Precision },
}

// Spec returns the configuration p asks for: the scale's grid (or that of
// the config.json --config names), with every parameter given applied.
func (x *gridExperiment) specOf(p *Params) (Spec, *gridConfig, error) {
	c, ok := p.cfg.(*gridConfig)
	if !ok {
		return Spec{}, nil, fmt.Errorf("%s: parameters of another experiment", x.info.Name)
	}
	if !slices.Contains(Scales(), c.scale) {
		return Spec{}, nil, paramErrorf("scale", strconv.Quote(c.scale), "want quick or paper")
	}
	s := x.spec(c.scale)
	if c.config != "" {
		b, err := os.ReadFile(c.config)
		if err != nil {
			return s, nil, err
		}
		s = Spec{}
		if err := json.Unmarshal(b, &s); err != nil {
			return s, nil, fmt.Errorf("%s: %w", c.config, err)
		}
		if s.Experiment != x.info.Name {
			return s, nil, fmt.Errorf("%s is a configuration of %q, not of %q", c.config, s.Experiment, x.info.Name)
		}
		if p.isSet("scale") {
			s.Scale = c.scale
		}
	}
	for _, q := range p.list {
		if f := gridSpecFields[q.Name]; q.set && f != nil {
			f(&s, &c.spec)
		}
	}
	s.Version = p.Version
	return s, c, nil
}

// Run runs (or resumes) the grid into dir: it logs the plan, reports its
// progress, and returns the points, figures and findings. With the
// parameter estimate, it returns the plan's estimated run time as Text
// and runs nothing.
func (x *gridExperiment) Run(ctx context.Context, p *Params, dir string, obs Observer) (*Result, error) {
	s, c, err := x.specOf(p)
	if err != nil {
		return nil, err
	}
	r, err := x.prepare(ctx, s, dir, c.fresh, c.estimate)
	if err != nil {
		return nil, err
	}
	est := FormatDuration(r.plan.Cost())
	if c.estimate { // one line: the plan and nothing else
		return &Result{Info: x.Info(), Dir: dir, Text: fmt.Sprintf("%s\t%s\t%d tasks\t%s%s\n", x.info.Name, s.Scale, len(r.plan.Tasks), est, x.estimateNote)}, nil
	}
	fmt.Fprintf(obs.log(), "%s (%s scale): %d tasks to run, %d configurations done already; estimated run time %s%s\n",
		x.info.Name, s.Scale, len(r.plan.Tasks), r.plan.Skipped, est, x.estimateNote)
	res, err := r.run(ctx, func(d, total float64, label string) { obs.progress(d, total, x.info.Name+": "+label) })
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d points in %s (%s)\n", x.info.Name, len(res.Rows), dir, FormatDuration(res.Elapsed))
	for _, f := range res.Findings {
		fmt.Fprintf(&b, "  %s: %s — %s\n", f.Name, f.Verdict, f.Claim)
	}
	figs := make([]string, len(res.Figures))
	for i, f := range res.Figures {
		figs[i] = strings.TrimSuffix(f, ".png")
	}
	fmt.Fprintf(&b, "figures: %s; findings: %s\n", strings.Join(figs, ", "), filepath.Join(dir, "findings.md"))
	res.Text = b.String()
	return res, nil
}

// gridRun is a prepared run (or resumption) of a grid experiment into a
// directory: its plan, and what earlier runs there measured.
type gridRun struct {
	x    *gridExperiment
	spec Spec
	dir  string
	plan *experiment.Plan

	rows    []experiment.Row
	before  time.Duration // run time of the earlier runs resumed
	started string        // when the first of them began
	fresh   bool
}

// prepare checks s, reads what an earlier run of the same fixed
// configuration left in dir (unless fresh, or estimateOnly), measures the
// machine's speed (about two seconds) and makes the plan of what is left. A
// directory holding a run of a different configuration is refused, with
// both configurations shown.
func (x *gridExperiment) prepare(ctx context.Context, s Spec, dir string, fresh, estimateOnly bool) (*gridRun, error) {
	prec, err := s.precision()
	if err != nil {
		return nil, err
	}
	r := &gridRun{x: x, spec: s, dir: dir, fresh: fresh}
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
		return nil, paramErrorf("seeds", s.Seeds, "want at least 1")
	}
	// Seeds may grow between runs into a directory, never shrink: the
	// points of every replicate measured there are drawn and judged, so
	// config.json counts them all.
	r.spec.Seeds = max(len(s.seedList()), len(experiment.Seeds(r.rows)))
	// A plan made with the default rates checks s before the calibration's
	// second is spent.
	if _, err := r.replicates(prec, experiment.DefaultRates(), done); err != nil {
		return nil, err
	}
	rates, err := experiment.Calibrate(ctx, prec)
	if err != nil {
		return nil, err
	}
	if r.plan, err = r.replicates(prec, rates, done); err != nil {
		return nil, err
	}
	return r, nil
}

// replicates returns the plan of every replicate of r.spec, one after the
// other: the experiment's plan made with each seed of the spec, its keys
// and rows marked with that seed, leaving out what done holds.
func (r *gridRun) replicates(prec dam.Precision, rates experiment.Rates, done map[experiment.Key]bool) (*experiment.Plan, error) {
	var plans []*experiment.Plan
	for _, seed := range r.spec.seedList() {
		s := r.spec
		s.Seed = seed
		p, err := r.x.plan(s, prec, rates, func(k experiment.Key) bool {
			k.Seed = seed
			return done[k]
		})
		if err != nil {
			return nil, err
		}
		plans = append(plans, p.WithSeed(seed))
	}
	return experiment.Concat(r.x.info.Name, plans...), nil
}

// resume reads the configuration and points of an earlier run in r.dir.
func (r *gridRun) resume() error {
	cfgPath := filepath.Join(r.dir, "config.json")
	b, err := os.ReadFile(cfgPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var old Spec
	if err := json.Unmarshal(b, &old); err != nil {
		return fmt.Errorf("%s: %w (parameter \"fresh\" starts over)", cfgPath, err)
	}
	a, err := json.Marshal(old.fixed())
	if err != nil {
		return fmt.Errorf("%s: %w (parameter \"fresh\" starts over)", cfgPath, err)
	}
	b, err = json.Marshal(r.spec.fixed())
	if err != nil {
		return err
	}
	if !bytes.Equal(a, b) {
		return fmt.Errorf("%s holds results of a different configuration:\n  there: %s\n  here:  %s\nuse another directory, or parameter \"fresh\" to discard them", r.dir, a, b)
	}
	r.rows, err = experiment.ReadRows(filepath.Join(r.dir, "points.csv"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w (parameter \"fresh\" starts over)", err)
	}
	if d, err := time.ParseDuration(old.Elapsed); err == nil && len(r.rows) > 0 {
		r.before, r.started = d, old.Started
	}
	return nil
}

// run runs the plan, saving points.csv after every task (a stopped run
// keeps them) and config.json before and after, then draws the figures and
// checks the findings (findings.md).
func (r *gridRun) run(ctx context.Context, progress func(done, total float64, label string)) (*Result, error) {
	cfgPath, ptsPath := filepath.Join(r.dir, "config.json"), filepath.Join(r.dir, "points.csv")
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return nil, err
	}
	start := time.Now()
	s := r.spec
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
	err := r.plan.Run(ctx, func(new []experiment.Row) error {
		rows = append(rows, new...)
		return experiment.WriteRows(ptsPath, rows)
	}, progress)
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
	res := &Result{Info: r.x.Info(), Spec: &s, Dir: r.dir, Rows: rows, Elapsed: r.before + elapsed}
	if err := r.x.finish(res); err != nil {
		return nil, err
	}
	return res, nil
}

// finish draws the figures and checks the findings of a finished run.
func (x *gridExperiment) finish(res *Result) error {
	figs := x.figures(res.Rows)
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
	res.Findings = x.observe(res.Rows)
	var b strings.Builder
	fmt.Fprintf(&b, "# %s (%s): findings\n\n", x.info.Name, x.info.Figure)
	fmt.Fprintf(&b, "drdam %s, %s scale, %d points; configuration in `config.json`, points in `points.csv`.\n\n", res.Spec.Version, res.Spec.Scale, len(res.Rows))
	fmt.Fprintf(&b, "%s\n\n", StatRule)
	writeFindings(&b, res.Findings)
	writeDeviations(&b, x.info)
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
