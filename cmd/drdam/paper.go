package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/datasets"
	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/atomicfile"
	"github.com/drdam/drdam/plots"
)

// paperSpec is the exact configuration of a run of one of the paper's
// experiments, written to OUT/config.json. The axes (D, K, β, Y, bases,
// projections) may change between runs into the same directory, which
// then adds points; every other field must match for a run to resume.
type paperSpec struct {
	Experiment string `json:"experiment"`
	Scale      string `json:"scale"`
	Version    string `json:"version"`

	D           []int     `json:"D"`
	K           []int     `json:"K"`
	Beta        []float64 `json:"beta"`
	Y           []int     `json:"Y"`
	Bases       []string  `json:"bases,omitempty"`
	Projections []string  `json:"projections,omitempty"`

	Basis      string  `json:"basis,omitempty"`
	Projection string  `json:"projection,omitempty"`
	Flip       float64 `json:"flip,omitempty"`
	Seed       uint64  `json:"seed"`
	Seeds      int     `json:"seeds,omitempty"`
	Precision  string  `json:"precision"`

	Queries  int     `json:"queries,omitempty"`
	Step     float64 `json:"step,omitempty"`
	MaxSteps int     `json:"max_steps,omitempty"`
	Tol      float64 `json:"tol,omitempty"`

	Data   string `json:"data,omitempty"`
	Stored int    `json:"stored,omitempty"`
	New    int    `json:"new,omitempty"`

	Started string `json:"started,omitempty"` // when the first of the runs that made the points began
	Elapsed string `json:"elapsed,omitempty"` // their run time, summed over resumed runs
}

// fixed returns s without its axes and run metadata: what must match for
// a run to resume another.
func (s paperSpec) fixed() paperSpec {
	s.Scale, s.Version, s.Started, s.Elapsed = "", "", "", ""
	s.D, s.K, s.Beta, s.Y, s.Bases, s.Projections = nil, nil, nil, nil, nil, nil
	return s
}

// The paper's grids (the reference code's exp_QUANT1b, exp_QUANT1c and
// exp_QUANT2 configurations) and the quick ones.
var (
	paperYs     = []int{5000, 40000, 80000, 120000, 160000, 200000, 300000, 400000, 500000}
	paperBetas  = []float64{10, 30, 40, 50}
	paperDs     = []int{30, 100, 1000}
	paperKs     = []int{50, 100, 200, 400, 650, 1000}
	basisBetas  = []float64{1, 5, 10, 20, 30, 40, 50, 60, 100, 200, 600}
	basisYs     = []int{40000, 80000, 160000, 275000, 400000, 800000}
	allBases    = []string{"cos", "sincos", "exp", "expexp"}
	allProjKind = []string{"gaussian", "orthogonal", "structured"}
)

// defaultSpec returns the grid of an experiment at a scale.
func defaultSpec(name, scale string) paperSpec {
	s := paperSpec{Experiment: name, Scale: scale, Precision: "float64", Basis: "sincos", Projection: "gaussian", Flip: 0.1, Seeds: 1,
		K: []int{500}, Beta: paperBetas, D: paperDs}
	quick := scale == "quick"
	switch name {
	case "energy-error":
		s.Y = paperYs
		if quick {
			s.Y = []int{5000, 20000, 80000}
		}
	case "retrieval-error":
		s.Y, s.Queries, s.Step, s.MaxSteps, s.Tol = paperYs, 500, 0.03, 1000, 1e-8
		if quick {
			s.D, s.Y, s.Queries = []int{30, 100}, []int{2000, 5000, 20000}, 100
		}
	case "error-vs-k":
		s.K, s.Y = paperKs, []int{200000}
		if quick {
			s.D = []int{30, 100}
		}
	case "basis-ablation":
		s.Basis, s.Projection, s.Flip, s.Seeds, s.K, s.D = "", "", 0, 0, nil, nil
		s.Data, s.Stored, s.New = "letter", 500, 400
		s.Bases, s.Projections, s.Beta, s.Y = allBases, allProjKind, basisBetas, basisYs
		if quick {
			s.Beta, s.Y = []float64{1, 5, 10, 30, 50, 100}, []int{40000, 160000}
		}
	}
	return s
}

var paperHelp = map[string]string{
	"energy-error": `
Fig. 3 (§4.1): the mean absolute errors of DrDAM's energies |E − Ê| and
gradients ‖∇E − ∇Ê‖ against MrDAM's, for K unique random binary patterns in
{0, 1/√D}^D, at queries equal to the stored patterns (at), with --flip of
their bits flipped (near), and fresh random patterns (far), over the grid
D × β × Y; plus the paper's "random guess" (MrDAM at the stored patterns
against DrDAM at independent random queries), the horizontal line of the
figure; fitted b/√Y curves; and, for SinCos, the bound of Corollary 1
with C₁ measured on the projection and C₂ = ½ (fig3-bound).`,
	"retrieval-error": `
Fig. 4A (§4.2): MrDAM and DrDAM descend the energy (x ← x − η∇E) from the
same at, near and far queries until the energy changes by less than --tol
or for --steps steps; the normalized Hamming error Δ_H between their
binarized fixed points is averaged over --queries queries per set. MrDAM's
fixed points are computed once per (D, β).`,
	"error-vs-k": `
Fig. 5 (appendix): the errors of energy-error at one Y (the paper: 2·10⁵)
as the number K of stored patterns grows; each K is averaged over K queries
per set.`,
	"basis-ablation": `
Fig. 6 (appendix): the four bases (Cos, SinCos, Exp, ExpExp) on the UCI
Letter data (embedded; or --data FILE), scaled into [0, 1/√D]^D with the
global minimum and maximum; --stored distinct rows are stored and --new
others are new patterns; energy and gradient errors at both, for every
basis, projection (iid Gaussian, orthogonal ORF, structured SORF), β and Y.`,
}

var paperFigure = map[string]string{
	"energy-error": "Fig. 3", "retrieval-error": "Fig. 4A", "error-vs-k": "Fig. 5", "basis-ablation": "Fig. 6",
}

func init() {
	for name := range paperHelp {
		experiments[name] = struct {
			summary string
			run     func(e *env, args []string) error
		}{"the paper's " + paperFigure[name] + " (drdam experiment " + name + " --help)", func(e *env, args []string) error {
			_, err := runPaper(e, name, args)
			return err
		}}
	}
}

// paperResult is what a run leaves for a report.
type paperResult struct {
	spec     paperSpec
	dir      string
	rows     []experiment.Row
	figures  []string // base names of the figures written (no extension)
	findings []experiment.Finding
	elapsed  time.Duration
}

// runPaper parses the flags of one of the paper's experiments and runs it.
func runPaper(e *env, name string, args []string) (*paperResult, error) {
	fs := newFlags("experiment "+name, "", strings.TrimSpace(paperHelp[name])+`

--scale quick runs a reduced grid in minutes; --scale paper runs the
paper's grid (its estimated run time is printed first; --estimate prints it
and stops). Any axis can be overridden. Results go to --out: points.csv
(every measured point: configuration, mean, standard error, median, count),
the figures as PNG and SVG, findings.md (the paper's observations checked
against the points) and config.json (the exact configuration and program
version). A run into a directory that has results skips the
configurations measured already (--fresh starts over), so an interrupted
run resumes, and new axis values add to the figures.`)
	scale := fs.String("scale", "quick", "grid: quick (minutes) or paper (the paper's grid)")
	cfgFile := fs.String("config", "", "read the configuration from a config.json of an earlier run (flags given explicitly override it)")
	ds := fs.String("d", "", "comma-separated dimensions D (default: the scale's)")
	ks := fs.String("k", "", "comma-separated numbers of stored patterns K (default: the scale's)")
	betas := fs.String("beta", "", "comma-separated inverse temperatures β (default: the scale's)")
	ys := fs.String("y", "", "comma-separated numbers of random features Y (default: the scale's)")
	q := defaultSpec(name, "quick") // the flags' defaults
	seed := fs.Uint64("seed", q.Seed, "seed of the patterns (or of the choice of data points) and of the projections")
	prec := fs.String("precision", q.Precision, "compute precision of DrDAM (MrDAM is always float64)")
	out := fs.String("out", filepath.Join("out", name), "output directory")
	fresh := fs.Bool("fresh", false, "discard the results in --out and start over")
	estimate := fs.Bool("estimate", false, "print the plan and its estimated run time, and stop")
	var basis, proj *string
	var flip *float64
	var seeds, queries, steps, stored, newPts *int
	var step, tol *float64
	var bases, projs, data *string
	if name == "basis-ablation" {
		bases = fs.String("bases", "", "comma-separated bases (default: cos,sincos,exp,expexp)")
		projs = fs.String("projections", "", "comma-separated projections (default: gaussian,orthogonal,structured)")
		data = fs.String("data", q.Data, "data set: letter (embedded UCI Letter) or a .arff, .csv, .tsv, .txt or .npy file of numeric rows")
		stored = fs.Int("stored", q.Stored, "data points stored")
		newPts = fs.Int("new", q.New, "data points used as new patterns")
	} else {
		basis = fs.String("basis", q.Basis, "feature basis: sincos, cos, exp or expexp")
		proj = fs.String("projection", q.Projection, "random projection: gaussian (iid, as the paper), orthogonal or structured (SORF)")
		flip = fs.Float64("flip", q.Flip, "fraction of bits flipped for the near queries")
		seeds = fs.Int("seeds", q.Seeds, "independent projections per point (standard errors across them when ≥ 2)")
	}
	if name == "retrieval-error" {
		queries = fs.Int("queries", 0, "queries per set: the first N of the K (default: the scale's; 0 = all)")
		step = fs.Float64("step", q.Step, "descent step η (the paper's code: 0.03)")
		steps = fs.Int("steps", q.MaxSteps, "maximum descent steps L (the paper's code: 1000)")
		tol = fs.Float64("tol", q.Tol, "stop a query when its energy changes by less than this (0: run every step)")
	}
	if err := fs.parse(e, args); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *scale != "quick" && *scale != "paper" {
		return nil, usagef("--scale %q: want quick or paper", *scale)
	}
	s := defaultSpec(name, *scale)
	if *cfgFile != "" {
		b, err := os.ReadFile(*cfgFile)
		if err != nil {
			return nil, err
		}
		s = paperSpec{}
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("%s: %w", *cfgFile, err)
		}
		if s.Experiment != name {
			return nil, fmt.Errorf("%s is a configuration of %q, not of %q", *cfgFile, s.Experiment, name)
		}
		if set["scale"] {
			s.Scale = *scale
		}
	}
	// A flag given explicitly overrides the configuration; the others
	// leave it as the scale (or --config) has it. (The flags' defaults are
	// the quick scale's values, so without --config this is the same.)
	var err error
	if set["d"] {
		if s.D, err = parseInts("--d", *ds); err != nil {
			return nil, err
		}
	}
	if set["k"] {
		if s.K, err = parseInts("--k", *ks); err != nil {
			return nil, err
		}
	}
	if set["beta"] {
		if s.Beta, err = parseFloats("--beta", *betas); err != nil {
			return nil, err
		}
	}
	if set["y"] {
		if s.Y, err = parseInts("--y", *ys); err != nil {
			return nil, err
		}
	}
	if set["seed"] {
		s.Seed = *seed
	}
	if set["precision"] {
		s.Precision = *prec
	}
	if basis != nil {
		if set["basis"] {
			s.Basis = *basis
		}
		if set["projection"] {
			s.Projection = *proj
		}
		if set["flip"] {
			s.Flip = *flip
		}
		if set["seeds"] {
			s.Seeds = *seeds
		}
	}
	if queries != nil {
		if set["queries"] {
			s.Queries = *queries
		}
		if set["step"] {
			s.Step = *step
		}
		if set["steps"] {
			s.MaxSteps = *steps
		}
		if set["tol"] {
			s.Tol = *tol
		}
	}
	if bases != nil {
		if set["bases"] {
			s.Bases = splitList(*bases)
		}
		if set["projections"] {
			s.Projections = splitList(*projs)
		}
		if set["data"] {
			s.Data = *data
		}
		if set["stored"] {
			s.Stored = *stored
		}
		if set["new"] {
			s.New = *newPts
		}
	}
	s.Version = versionString()
	return runPaperSpec(e, s, *out, *fresh, *estimate)
}

// runPaperSpec runs (or resumes) the experiment s into out.
func runPaperSpec(e *env, s paperSpec, out string, fresh, estimateOnly bool) (*paperResult, error) {
	name := s.Experiment
	precision, err := dam.ParsePrecision(s.Precision)
	if err != nil {
		return nil, usageError{"--precision: " + err.Error()}
	}
	cfgPath, ptsPath := filepath.Join(out, "config.json"), filepath.Join(out, "points.csv")
	var rows []experiment.Row
	var before time.Duration // run time of the earlier runs resumed
	var started string
	if !fresh && !estimateOnly {
		if b, err := os.ReadFile(cfgPath); err == nil {
			var old paperSpec
			if err := json.Unmarshal(b, &old); err != nil {
				return nil, fmt.Errorf("%s: %w (pass --fresh to start over)", cfgPath, err)
			}
			if a, b := mustJSON(old.fixed()), mustJSON(s.fixed()); !bytes.Equal(a, b) {
				return nil, fmt.Errorf("%s holds results of a different configuration:\n  there: %s\n  here:  %s\nuse another --out, or --fresh to discard them", out, a, b)
			}
			rows, err = experiment.ReadRows(ptsPath)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%w (pass --fresh to start over)", err)
			}
			if d, err := time.ParseDuration(old.Elapsed); err == nil && len(rows) > 0 {
				before, started = d, old.Started
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	done := map[experiment.Key]bool{}
	for _, r := range rows {
		done[r.Key()] = true
	}
	rates, err := experiment.Calibrate(precision)
	if err != nil {
		return nil, err
	}
	plan, err := makePlan(s, precision, rates, func(k experiment.Key) bool { return done[k] })
	if err != nil {
		return nil, err
	}
	est := plan.Cost()
	fmt.Fprintf(e.stderr, "%s (%s scale): %d tasks to run, %d configurations done already; estimated run time %s%s\n",
		name, s.Scale, len(plan.Tasks), plan.Skipped, fmtDuration(est), estimateNote(name))
	if estimateOnly {
		fmt.Fprintf(e.stdout, "%s\t%s\t%d tasks\t%s\n", name, s.Scale, len(plan.Tasks), fmtDuration(est))
		return nil, nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	start := time.Now()
	s.Started = cmp.Or(started, start.UTC().Format(time.RFC3339))
	if err := writeJSON(cfgPath, s); err != nil {
		return nil, err
	}
	if fresh {
		if err := os.Remove(ptsPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	pr := newProgress(e)
	err = plan.Run(func(new []experiment.Row) error {
		rows = append(rows, new...)
		return experiment.WriteRows(ptsPath, rows)
	}, func(d, total float64, label string) {
		pr.bar(name+": "+label, d, total)
	})
	pr.done()
	if err != nil {
		return nil, err
	}
	elapsed := time.Since(start)
	// Elapsed is the run time of all the runs that made the points.
	s.Elapsed = (before + elapsed).Round(time.Second).String()
	if err := writeJSON(cfgPath, s); err != nil {
		return nil, err
	}
	res := &paperResult{spec: s, dir: out, rows: rows, elapsed: elapsed}
	if err := finishPaper(res); err != nil {
		return nil, err
	}
	fmt.Fprintf(e.stdout, "%s: %d points in %s (%s)\n", name, len(rows), out, fmtDuration(elapsed))
	for _, f := range res.findings {
		fmt.Fprintf(e.stdout, "  %s: %s — %s\n", f.Name, f.Verdict, f.Claim)
	}
	fmt.Fprintf(e.stdout, "figures: %s; findings: %s\n", strings.Join(res.figures, ", "), filepath.Join(out, "findings.md"))
	return res, nil
}

func estimateNote(name string) string {
	if name == "retrieval-error" {
		return " (at most: descents that converge stop early)"
	}
	return ""
}

func fmtDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	case d < 48*time.Hour:
		return d.Round(time.Second).String()
	}
	return fmt.Sprintf("%.1f days", d.Hours()/24)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// makePlan turns a spec into the experiment's plan.
func makePlan(s paperSpec, prec dam.Precision, rates experiment.Rates, done func(experiment.Key) bool) (*experiment.Plan, error) {
	if s.Experiment == "basis-ablation" {
		g := experiment.BasisGrid{Stored: s.Stored, New: s.New, Betas: s.Beta, Ys: s.Y, Seed: s.Seed, Precision: prec}
		for _, b := range s.Bases {
			basis, err := features.ParseBasis(b)
			if err != nil {
				return nil, usageError{"--bases: " + err.Error()}
			}
			g.Bases = append(g.Bases, basis)
		}
		for _, p := range s.Projections {
			kind, err := features.ParseProjectionKind(p)
			if err != nil {
				return nil, usageError{"--projections: " + err.Error()}
			}
			g.Projections = append(g.Projections, kind)
		}
		if s.Stored < 1 || s.New < 1 {
			return nil, usagef("--stored %d, --new %d: want at least 1 each", s.Stored, s.New)
		}
		x, d, err := loadBasisData(s.Data)
		if err != nil {
			return nil, err
		}
		g.Data, g.D = x, d
		return experiment.BasisPlan(g, rates, done)
	}
	g := experiment.BinaryGrid{Ds: s.D, Ks: s.K, Betas: s.Beta, Ys: s.Y, Flip: s.Flip, Seed: s.Seed, Seeds: s.Seeds, Precision: prec}
	var err error
	if g.Basis, err = features.ParseBasis(s.Basis); err != nil {
		return nil, usageError{"--basis: " + err.Error()}
	}
	if g.Projection, err = features.ParseProjectionKind(s.Projection); err != nil {
		return nil, usageError{"--projection: " + err.Error()}
	}
	if !(s.Flip >= 0 && s.Flip <= 1) {
		return nil, usagef("--flip %v: want a fraction in [0, 1]", s.Flip)
	}
	if s.Seeds < 1 {
		return nil, usagef("--seeds %d: want at least 1", s.Seeds)
	}
	switch s.Experiment {
	case "retrieval-error":
		if !(s.Step > 0) || math.IsInf(s.Step, 0) || s.MaxSteps < 1 || !(s.Tol >= 0) || s.Queries < 0 {
			return nil, usagef("--step %v, --steps %d, --tol %v, --queries %d: want a positive step, at least one step, a tolerance ≥ 0 and queries ≥ 0",
				s.Step, s.MaxSteps, s.Tol, s.Queries)
		}
		return experiment.RetrievalPlan(g, experiment.Retrieval{Queries: s.Queries, Step: s.Step, MaxSteps: s.MaxSteps, Tol: s.Tol}, rates, done)
	default:
		return experiment.EnergyPlan(g, rates, done)
	}
}

// loadBasisData returns the distinct rows of the data set named by src
// ("letter" for the embedded UCI Letter data, else a file), scaled into
// [0, 1/√D]^D as the paper's appendix does.
func loadBasisData(src string) ([]float64, int, error) {
	var m *dataio.Matrix
	var err error
	if src == "letter" {
		m, _, err = datasets.Letter()
	} else {
		m, err = dataio.ReadMatrix(src)
		if err == nil {
			err = dataio.CheckFinite(src, m)
		} else if strings.Contains(err.Error(), "not a number") {
			err = fmt.Errorf("%w (the data must be numeric rows: drop a label column, or give an ARFF file, whose nominal attributes are skipped)", err)
		}
	}
	if err != nil {
		return nil, 0, err
	}
	d := m.Cols
	idx := datasets.Unique(m.Data, d)
	x := make([]float64, 0, len(idx)*d)
	for _, i := range idx {
		x = append(x, m.Data[i*d:(i+1)*d]...)
	}
	if _, _, err := datasets.NormalizeUnitBox(x, x, d); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", src, err)
	}
	return x, d, nil
}

// finishPaper draws the figures and checks the findings of a finished run.
func finishPaper(res *paperResult) error {
	rows := res.rows
	figs := map[string]*plots.Figure{}
	switch res.spec.Experiment {
	case "energy-error":
		for k, f := range experiment.EnergyFigures(rows) {
			figs["fig3-"+k] = f
		}
		res.findings = []experiment.Finding{experiment.ObserveNearFar(rows), experiment.ObserveBeta(rows), experiment.ObserveSaturation(rows),
			experiment.ObserveBound(rows)}
	case "retrieval-error":
		figs["fig4a-hamming"] = experiment.RetrievalFigure(rows)
		res.findings = []experiment.Finding{experiment.ObserveRetrieval(rows)}
	case "error-vs-k":
		for k, f := range experiment.ErrorVsKFigures(rows) {
			figs["fig5-"+k] = f
		}
		res.findings = []experiment.Finding{experiment.ObserveK(rows)}
	case "basis-ablation":
		for k, f := range experiment.BasisFigures(rows) {
			figs["fig6-"+k] = f
		}
		res.findings = []experiment.Finding{experiment.ObserveBases(rows)}
	}
	names := make([]string, 0, len(figs))
	for n := range figs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := figs[n].SaveAll(filepath.Join(res.dir, n)); err != nil {
			return err
		}
	}
	res.figures = names
	var b strings.Builder
	fmt.Fprintf(&b, "# %s (%s): findings\n\n", res.spec.Experiment, paperFigure[res.spec.Experiment])
	fmt.Fprintf(&b, "drdam %s, %s scale, %d points; configuration in `config.json`, points in `points.csv`.\n\n", res.spec.Version, res.spec.Scale, len(rows))
	writeFindings(&b, res.findings)
	for _, n := range names {
		fmt.Fprintf(&b, "![%s](%s.png)\n\n", n, n)
	}
	md := b.String()
	return atomicfile.Write(filepath.Join(res.dir, "findings.md"), func(w io.Writer) error {
		_, err := io.WriteString(w, md)
		return err
	})
}

// writeFindings formats findings as Markdown sections.
func writeFindings(b *strings.Builder, fs []experiment.Finding) {
	for _, f := range fs {
		fmt.Fprintf(b, "## %s: %s — **%s**\n\n", f.Name, f.Claim, f.Verdict)
		fmt.Fprintf(b, "*Rule:* %s.\n\n", f.Rule)
		for _, d := range f.Details {
			fmt.Fprintf(b, "- %s\n", d)
		}
		b.WriteString("\n")
	}
}
