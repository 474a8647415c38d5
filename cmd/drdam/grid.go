package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"

	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/atomicfile"
	"github.com/drdam/drdam/paper"
)

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

// gridFlags are the flags of a grid experiment: its axes, and a flag for
// every other field of paper.Spec that its default sets. Each sets its
// field only when given explicitly, so that --config and --scale keep the
// rest.
type gridFlags struct {
	fs                 *flags
	scale, config, out *string
	fresh, estimate    *bool
	cpuprofile         *string
	axes               map[string]*string // d, k, beta, y
	fields             []specField
}

func newGridFlags(x *paper.Experiment) *gridFlags {
	note := func(name, usage string) string {
		if n := x.FlagNotes[name]; n != "" {
			return n
		}
		return usage
	}
	fs := newFlags("experiment "+x.Name, "", strings.TrimSpace(x.Help)+gridHelp)
	g := &gridFlags{fs: fs, axes: map[string]*string{}}
	g.scale = fs.String("scale", "quick", "grid: quick (minutes) or paper (the paper's grid)")
	g.config = fs.String("config", "", "read the configuration from a config.json of an earlier run (flags given explicitly override it)")
	for _, a := range []struct{ name, what string }{{"d", "dimensions D"}, {"k", "numbers of stored patterns K"},
		{"beta", "inverse temperatures β"}, {"y", "numbers of random features Y"}} {
		g.axes[a.name] = fs.String(a.name, "", "comma-separated "+a.what+" (default: the scale's)")
	}
	q := x.Spec("quick") // the flags' defaults
	bind(g, "seed", fs.Uint64("seed", q.Seed, "seed of the patterns (or of the choice of data points) and of the projections (0, as encode; the reproduced figures were made with it)"), func(s *paper.Spec, v uint64) { s.Seed = v })
	bind(g, "seeds", fs.Count("seeds", 0, 1, maxCount, fmt.Sprintf("independent replicates (seeds --seed, --seed+%d, …: new patterns, queries and projections each); figures show means over them with 95%% intervals and verdicts test across them (default: %d at --scale quick, %d at paper)",
		experiment.SeedStride, paper.DefaultSeeds("quick"), paper.DefaultSeeds("paper"))), func(s *paper.Spec, v int) { s.Seeds = v })
	bind(g, "precision", fs.String("precision", q.Precision, note("precision", "compute precision of DrDAM (MrDAM is always float64); float64 by default so that the errors measured are DrDAM's, not float32 rounding")), func(s *paper.Spec, v string) { s.Precision = v })
	g.out = outFlag(fs, x.Name)
	g.fresh = fs.Bool("fresh", false, "discard the results in --out and start over")
	g.cpuprofile = fs.String("cpuprofile", "", "write a CPU profile of the run to this file, for go tool pprof (written when the run ends)")
	g.estimate = fs.Bool("estimate", false, "print the plan and its estimated run time (on a machine whose cores the run has to itself; the calibration takes about two seconds), and stop")
	if q.Uses(paper.UsesData) {
		bind(g, "bases", fs.String("bases", "", "comma-separated bases (default: "+strings.Join(q.Bases, ",")+")"), func(s *paper.Spec, v string) { s.Bases = splitList(v) })
		bind(g, "projections", fs.String("projections", "", "comma-separated projections (default: "+strings.Join(q.Projections, ",")+")"), func(s *paper.Spec, v string) { s.Projections = splitList(v) })
		bind(g, "data", fs.String("data", q.Data, "data set: letter (embedded UCI Letter) or a .arff, .csv, .tsv, .txt or .npy file of numeric rows"), func(s *paper.Spec, v string) { s.Data = v })
		bind(g, "stored", fs.Count("stored", q.Stored, 1, maxCount, "data points stored"), func(s *paper.Spec, v int) { s.Stored = v })
		bind(g, "new", fs.Count("new", q.New, 1, maxCount, "data points used as new patterns"), func(s *paper.Spec, v int) { s.New = v })
	}
	if q.Uses(paper.UsesBinary) {
		bind(g, "basis", fs.String("basis", q.Basis, note("basis", "feature basis: "+features.BasisNames())), func(s *paper.Spec, v string) { s.Basis = v })
		bind(g, "projection", fs.String("projection", q.Projection, note("projection", "random projection: gaussian (iid, as the paper), orthogonal or structured (SORF)")), func(s *paper.Spec, v string) { s.Projection = v })
		bind(g, "flip", fs.Number("flip", q.Flip, fraction, "from 0 to 1", "fraction of bits flipped for the near queries"), func(s *paper.Spec, v float64) { s.Flip = v })
	}
	if q.Uses(paper.UsesRetrieval) {
		bind(g, "queries", fs.Count("queries", 0, 0, maxCount, note("queries", "queries per set: the first N of the K (default: the scale's; 0 = all)")), func(s *paper.Spec, v int) { s.Queries = v })
		bind(g, "step", fs.Number("step", q.Step, positive, "> 0", "descent step η (the paper's code: 0.03)"), func(s *paper.Spec, v float64) { s.Step = v })
		bind(g, "steps", fs.Count("steps", q.MaxSteps, 1, maxCount, "maximum descent steps L (the paper's code: 1000)"), func(s *paper.Spec, v int) { s.MaxSteps = v })
		bind(g, "tol", fs.Number("tol", q.Tol, nonNegative, "≥ 0", "stop a query when its energy changes by less than this (0: run every step)"), func(s *paper.Spec, v float64) { s.Tol = v })
	}
	return g
}

// specField is a flag bound to a field of paper.Spec: apply sets the
// field from the flag's value.
type specField struct {
	name  string
	apply func(s *paper.Spec)
}

// bind records that flag name, whose value is v, sets a field of the spec
// with fn when it is given.
func bind[T any](g *gridFlags, name string, v *T, fn func(s *paper.Spec, v T)) {
	g.fields = append(g.fields, specField{name, func(s *paper.Spec) { fn(s, *v) }})
}

// spec returns the configuration the parsed flags ask for: the scale's
// grid (or --config's), with every flag given explicitly applied.
func (g *gridFlags) spec(x *paper.Experiment) (paper.Spec, error) {
	set := flagsSet(g.fs)
	if !slices.Contains(paper.Scales, *g.scale) {
		return paper.Spec{}, usagef("--scale %q: want quick or paper", *g.scale)
	}
	s := x.Spec(*g.scale)
	if *g.config != "" {
		b, err := os.ReadFile(*g.config)
		if err != nil {
			return s, err
		}
		s = paper.Spec{}
		if err := json.Unmarshal(b, &s); err != nil {
			return s, fmt.Errorf("%s: %w", *g.config, err)
		}
		if s.Experiment != x.Name {
			return s, fmt.Errorf("%s is a configuration of %q, not of %q", *g.config, s.Experiment, x.Name)
		}
		if set["scale"] {
			s.Scale = *g.scale
		}
	}
	var err error
	if set["d"] {
		s.D, err = parseCounts("--d", *g.axes["d"])
	}
	if set["k"] && err == nil {
		s.K, err = parseCounts("--k", *g.axes["k"])
	}
	if set["beta"] && err == nil {
		s.Beta, err = parsePositives("--beta", *g.axes["beta"])
	}
	if set["y"] && err == nil {
		s.Y, err = parseCounts("--y", *g.axes["y"])
	}
	for _, f := range g.fields {
		if set[f.name] {
			f.apply(&s)
		}
	}
	s.Version = versionString()
	return s, err
}

// runGridExperiment parses the flags of a grid experiment and runs it.
func runGridExperiment(e *env, x *paper.Experiment, args []string) (res *paper.Result, err error) {
	g := newGridFlags(x)
	if err := g.fs.parse(e, args); err != nil {
		return nil, err
	}
	s, err := g.spec(x)
	if err != nil {
		return nil, err
	}
	if s.Data != "" && s.Data != "letter" {
		if err := checkInputSize(s.Data, nil); err != nil {
			return nil, err
		}
	}
	if *g.cpuprofile != "" && !*g.estimate {
		stop, err := startCPUProfile(*g.cpuprofile)
		if err != nil {
			return nil, err
		}
		defer func() {
			if perr := stop(); perr != nil && err == nil {
				err = perr
			}
		}()
	}
	return runGrid(e, x, s, *g.out, *g.fresh, *g.estimate)
}

// startCPUProfile starts a CPU profile (runtime/pprof) that the returned
// function stops and writes to path atomically.
func startCPUProfile(path string) (stop func() error, err error) {
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		return nil, fmt.Errorf("--cpuprofile %s: %w", path, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
			return fmt.Errorf("--cpuprofile %s: %w", path, err)
		}
		return nil
	}, nil
}

// runGrid runs (or resumes) the grid experiment x with configuration s
// into out, printing the plan, progress and findings.
func runGrid(e *env, x *paper.Experiment, s paper.Spec, out string, fresh, estimate bool) (*paper.Result, error) {
	r, err := paper.PrepareGrid(x, s, out, fresh, estimate)
	if err != nil {
		return nil, err
	}
	est := paper.FormatDuration(r.Estimate())
	if estimate { // one line, on stdout: the plan and nothing else
		fmt.Fprintf(e.stdout, "%s\t%s\t%d tasks\t%s%s\n", x.Name, s.Scale, len(r.Plan.Tasks), est, x.EstimateNote)
		return nil, nil
	}
	fmt.Fprintf(e.stderr, "%s (%s scale): %d tasks to run, %d configurations done already; estimated run time %s%s\n",
		x.Name, s.Scale, len(r.Plan.Tasks), r.Skipped(), est, x.EstimateNote)
	pr := newProgress(e)
	res, err := r.Run(func(d, total float64, label string) { pr.bar(x.Name+": "+label, d, total) })
	pr.done()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(e.stdout, "%s: %d points in %s (%s)\n", x.Name, len(res.Rows), out, paper.FormatDuration(res.Elapsed))
	for _, f := range res.Findings {
		fmt.Fprintf(e.stdout, "  %s: %s — %s\n", f.Name, f.Verdict, f.Claim)
	}
	figs := make([]string, len(res.Figures))
	for i, f := range res.Figures {
		figs[i] = strings.TrimSuffix(f, ".png")
	}
	fmt.Fprintf(e.stdout, "figures: %s; findings: %s\n", strings.Join(figs, ", "), filepath.Join(out, "findings.md"))
	return res, nil
}
