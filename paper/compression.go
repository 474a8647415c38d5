package paper

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/internal/atomicfile"
	"github.com/drdam/drdam/metrics"
	"github.com/drdam/drdam/plots"
	"gonum.org/v1/gonum/stat"
)

// compression is drdam's compression curve: how well DrDAM retrieves
// occluded photos as T shrinks from 4× to ¼ of the memory matrix.
var compression = &compressionExperiment{
	info: Info{
		Name:    "compression",
		Figure:  "Fig. 2 over the size of T (drdam's)",
		Summary: "drdam's: retrieval of 12 occluded 64×64 photos against the size of T, 25% to 400% of the memory matrix",
		Help: `
The compression curve (beyond the paper, which claims compression in Fig. 2
at one size): all the photos (the twelve shared 64×64 ones by default) are
stored (K·D = 12 × 12288 values in MrDAM's memory matrix) in DrDAMs whose T
has --ratios times as many values (Y = ratio·K·D/2 SinCos projections:
25%, 50%, 100%, 163% — the paper's code for Fig. 2 —, 200% and 400%); the
bottom 40% of each photo is occluded and both models descend as in Fig. 2
(β = 60, step 0.1, plain descent, the paper's, at most Fig. 2's 1000
steps), each query until it converges (|ΔE| < --tol 1e-8, §4.2's
criterion), which takes the time of 300 fixed steps.
Each of --seeds projection seeds is a replicate (MrDAM runs once). Writes
curve.png and .svg (occluded RMSE to the original and to MrDAM, and the
fraction of photos retrieved, against the ratio), table.md, rmse.csv
(every ratio, seed and photo) and findings.md, which says the smallest
ratio from which DrDAM retrieves every photo.`,
		Reproduce: true,
		Deviations: []string{
			"Beyond the paper, which claims compression at one size (Fig. 2). Retrieval is the paper's sense (the completion is nearer its own stored photo than any other, on the occluded pixels); " +
				"a match to MrDAM is fig1's reference of 10 gray levels.",
			photosDeviation, sorfDeviation, seedsDeviation,
		},
		Photos: "tiny64",
	},
	images: imageDefaults(func(s *ImageSpec) {
		s.Occlude, s.Steps, s.Tol = "bottom:0.4", 1000, 1e-8
	}),
	compression: compressionSpec{Ratios: []float64{0.25, 0.5, 1, 1.63, 2, 4}},
}

// compressionExperiment is an experiment that completes occluded images
// with DrDAMs whose T ranges over sizes relative to the memory matrix (an
// ImageSpec and a compressionSpec): curve.png and .svg, table.md,
// rmse.csv, findings.md.
type compressionExperiment struct {
	info        Info
	images      ImageSpec       // the defaults of its ImageSpec
	compression compressionSpec // the default sizes of T
}

// Info returns what x is.
func (x *compressionExperiment) Info() Info { return imageInfo(x.info, "") }

// Params returns the parameters of an image completion, and the ratios
// (y is not used: the ratios set Y).
func (x *compressionExperiment) Params(scale string) *Params {
	ps, c := imageParams(x.info, x.images, scale)
	c.ratios = x.compression.Ratios
	ps.add("ratios", positives(&c.ratios), "string", "comma-separated sizes of T as fractions of the memory matrix K·D (Y = ratio·K·D/2 with sincos)")
	ps.Lookup("y").Help = "not used: " + x.info.Name + " sets Y from --ratios"
	return ps
}

// Run completes the images at every ratio (see runCompression).
func (x *compressionExperiment) Run(ctx context.Context, p *Params, dir string, obs Observer) (*Result, error) {
	ic, err := imageConfigOf(x.info.Name, p)
	if err != nil {
		return nil, err
	}
	if p.isSet("y") {
		return nil, &ParamError{Name: "y", Msg: x.info.Name + ` sets Y from parameter "ratios"`}
	}
	c, err := ic.spec.Load()
	if err != nil {
		return nil, err
	}
	return x.runCompression(ctx, c, compressionSpec{Ratios: ic.ratios}, dir, obs)
}

// compressionSpec is the grid of a Compression experiment: the sizes of T
// as ratios to the memory matrix K·D.
type compressionSpec struct {
	Ratios []float64
}

// compressionCell is one ratio and seed of a compression run.
type compressionCell struct {
	Y   int
	Res *experiment.CompletionResult
}

// runCompression runs the Compression experiment x on c: for each ratio
// of cs, a DrDAM whose T has that many times K·D values completes every
// occluded query of c, once per seed; MrDAM once. It writes curve.png and
// .svg, table.md, rmse.csv and findings.md into dir; Text is the table.
func (x *compressionExperiment) runCompression(ctx context.Context, c *Completion, cs compressionSpec, dir string, obs Observer) (*Result, error) {
	if len(cs.Ratios) == 0 {
		return nil, &ParamError{Name: "ratios", Msg: "want at least one ratio"}
	}
	for _, r := range cs.Ratios {
		if !(r > 0) || math.IsInf(r, 0) {
			return nil, paramErrorf("ratios", r, "want numbers > 0")
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	start := time.Now()
	d, k := c.Run.D, len(c.Images)
	cfg := c.Run.DrDAM
	cfg.Rep = dam.RepDrDAM
	cfg.Y = 1
	perY := cfg.FeatureDim() // values of T per projection: 2 for SinCos
	cells := make([][]compressionCell, len(cs.Ratios))
	var mr *dam.Result
	total, done := len(cs.Ratios)*len(c.Seeds), 0
	for ri, ratio := range cs.Ratios {
		y := max(1, int(math.Round(ratio*float64(k*d)/float64(perY))))
		for _, seed := range c.Seeds {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("%s: stopped before T at %.0f%%, seed %d: %w", x.info.Name, 100*ratio, seed, err)
			}
			obs.progress(float64(done), float64(total), fmt.Sprintf("compression: T at %.0f%% (Y = %d), seed %d", 100*ratio, y, seed))
			done++
			run := c.Run
			run.DrDAM.Y, run.DrDAM.Seed, run.Mr = y, seed, mr
			res, err := experiment.Complete(ctx, run)
			if err != nil {
				return nil, err
			}
			mr = res.Mr
			cells[ri] = append(cells[ri], compressionCell{Y: y, Res: res})
		}
	}
	obs.progress(float64(total), float64(total), "compression: writing")
	if err := c.writeCompressionCSV(filepath.Join(dir, "rmse.csv"), cs, cells); err != nil {
		return nil, err
	}
	table := c.compressionTable(cs, cells)
	if err := writeFile(filepath.Join(dir, "table.md"), table); err != nil {
		return nil, err
	}
	if err := c.compressionFigure(cs, cells).SaveAll(filepath.Join(dir, "curve")); err != nil {
		return nil, err
	}
	r := &Result{Info: x.Info(), Dir: dir, Figures: []string{"curve.png"}, Findings: c.judgeCompressionCurve(cs, cells), Elapsed: time.Since(start)}
	r.Summary = fmt.Sprintf("%d photos of %dx%d stored (D = %d, K·D = %d); all completed with occlusion %s; β = %g; DrDAM with %v features (%v projection, %v), "+
		"T at %s of the memory matrix; steps of %g until |ΔE| < %g, at most %d, %s; seeds %s; %v in total. RMSEs in 0–255 units on the occluded pixels, mean over photos, "+
		"then mean over seeds [95%% interval].\n\n%s", k, c.H, c.W, d, k*d, c.Occlude, c.Run.Beta, cfg.Basis, cfg.Projection, cfg.Precision,
		ratioList(cs.Ratios), c.Run.Step, c.Run.Tol, c.Run.MaxSteps, descentName(c.Run.Box), seedList(c.Seeds), time.Since(start).Round(time.Second), table)
	if err := writeImageFindings(r); err != nil {
		return nil, err
	}
	r.Text = table + fmt.Sprintf("wrote %s, %s, %s and %s\n", filepath.Join(dir, "curve.png"), filepath.Join(dir, "table.md"),
		filepath.Join(dir, "rmse.csv"), filepath.Join(dir, "findings.md"))
	return r, nil
}

// ratioList formats ratios as percentages, "25%, 50%, …".
func ratioList(rs []float64) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%.0f%%", 100*r)
	}
	return strings.Join(parts, ", ")
}

// photoMean returns, per seed, the mean over photos of the statistic of.
func photoMean(cells []compressionCell, of func(*experiment.CompletionResult) []float64) []float64 {
	out := make([]float64, len(cells))
	for i, cl := range cells {
		out[i] = stat.Mean(of(cl.Res), nil)
	}
	return out
}

// retrievedShare returns, per seed, the fraction of photos retrieved
// (margin > 0).
func retrievedShare(cells []compressionCell) []float64 {
	out := make([]float64, len(cells))
	for i, cl := range cells {
		n := 0
		for _, m := range cl.Res.DrMargin {
			if m > 0 {
				n++
			}
		}
		out[i] = float64(n) / float64(len(cl.Res.DrMargin))
	}
	return out
}

// compressionTable formats the curve as a Markdown table.
func (c *Completion) compressionTable(cs compressionSpec, cells [][]compressionCell) string {
	var b strings.Builder
	b.WriteString("| T / (K·D) | Y | values of T | DrDAM–original | DrDAM–MrDAM | DrDAM–MrDAM (whole image) | photos retrieved | stalled |\n|---|---|---|---|---|---|---|---|\n")
	for ri, ratio := range cs.Ratios {
		cl := cells[ri]
		st := 0
		for _, x := range cl {
			st += len(x.Res.Stalled())
		}
		fmt.Fprintf(&b, "| %.0f%% | %d | %d | %s | %s | %s | %s | %d of %d |\n", 100*ratio, cl[0].Y, cl[0].Res.TSize,
			meanIv(photoMean(cl, drToOrigFree)), meanIv(photoMean(cl, drToMrFree)), meanIv(photoMean(cl, drToMr)),
			meanIv(retrievedShare(cl)), st, len(cl)*c.Queries)
	}
	res := cells[0][0].Res
	fmt.Fprintf(&b, "\nMrDAM: RMSE to the original %.2f (occluded pixels, mean over photos), %d of %d photos retrieved. "+
		"\"Photos retrieved\": the fraction whose completion is nearer its own photo than any other stored one on the occluded pixels.\n",
		stat.Mean(res.MrToOriginalFree, nil), countAbove(res.MrMargin, 0), len(res.MrMargin))
	return b.String()
}

// countAbove counts the xs above v.
func countAbove(xs []float64, v float64) int {
	n := 0
	for _, x := range xs {
		if x > v {
			n++
		}
	}
	return n
}

// compressionFigure draws the curve: occluded RMSEs and the fraction
// retrieved against the ratio, means over seeds with their 95% intervals
// as bands.
func (c *Completion) compressionFigure(cs compressionSpec, cells [][]compressionCell) *plots.Figure {
	xs := make([]float64, len(cs.Ratios))
	for i, r := range cs.Ratios {
		xs[i] = 100 * r
	}
	curve := func(label string, style int, per func([]compressionCell) []float64) (plots.Series, plots.Band) {
		s := plots.Series{Label: label, X: xs, Style: style}
		b := plots.Band{X: xs, Style: style}
		for ri := range cs.Ratios {
			iv := metrics.MeanInterval(per(cells[ri]), experiment.Level)
			s.Y = append(s.Y, iv.Mean)
			b.Lo, b.Hi = append(b.Lo, finiteOr(iv.Lo, iv.Mean)), append(b.Hi, finiteOr(iv.Hi, iv.Mean))
		}
		return s, b
	}
	res := cells[0][0].Res
	rmse := plots.Panel{Title: "RMSE on the occluded pixels", XLabel: "size of T, % of the memory matrix K·D", YLabel: "RMSE (0–255)", LogX: true, XTicks: xs,
		HLines: []plots.HLine{{Label: fmt.Sprintf("MrDAM–original (%.1f)", stat.Mean(res.MrToOriginalFree, nil)), Y: stat.Mean(res.MrToOriginalFree, nil)}}}
	for i, p := range []struct {
		label string
		stat  func(*experiment.CompletionResult) []float64
	}{{"DrDAM–original", drToOrigFree}, {"DrDAM–MrDAM", drToMrFree}} {
		s, b := curve(p.label, i, func(cl []compressionCell) []float64 { return photoMean(cl, p.stat) })
		rmse.Series, rmse.Bands = append(rmse.Series, s), append(rmse.Bands, b)
	}
	ret := plots.Panel{Title: "photos retrieved", XLabel: "size of T, % of the memory matrix K·D", YLabel: "fraction retrieved", LogX: true, XTicks: xs,
		HLines: []plots.HLine{{Label: "every photo", Y: 1}}}
	s, b := curve("DrDAM", 2, retrievedShare)
	ret.Series, ret.Bands = []plots.Series{s}, []plots.Band{b}
	return &plots.Figure{Title: fmt.Sprintf("Retrieval against the size of T: %d photos, β = %g, %d seeds (95%% interval)",
		len(c.Images), c.Run.Beta, len(c.Seeds)), Rows: 1, Cols: 2, Panels: []plots.Panel{rmse, ret}}
}

// finiteOr returns v, or alt where v is not finite.
func finiteOr(v, alt float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return alt
	}
	return v
}

// writeCompressionCSV writes every ratio, seed and photo.
func (c *Completion) writeCompressionCSV(path string, cs compressionSpec, cells [][]compressionCell) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"ratio", "y", "t_values", "seed", "image", "rmse_drdam_original_occluded", "rmse_drdam_mrdam_occluded", "rmse_mrdam_original_occluded",
			"rmse_drdam_mrdam", "margin_drdam", "retrieved", "outcome_drdam"})
		f := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
		for ri, ratio := range cs.Ratios {
			for si, cl := range cells[ri] {
				r := cl.Res
				for q := range c.Queries {
					cw.Write([]string{f(ratio), strconv.Itoa(cl.Y), strconv.Itoa(r.TSize), strconv.FormatUint(c.Seeds[si], 10), c.Images[q].Name,
						f(r.DrToOriginalFree[q]), f(r.DrToMrFree[q]), f(r.MrToOriginalFree[q]), f(r.DrToMr[q]), f(r.DrMargin[q]),
						strconv.FormatBool(r.DrMargin[q] > 0), r.Dr.Outcome[q].String()})
				}
			}
		}
		cw.Flush()
		return cw.Error()
	})
}

// ratioRuns returns the cells of one ratio as Runs, for the image judges.
func (c *Completion) ratioRuns(cells []compressionCell) *Runs {
	r := &Runs{Box: c.Run.Box, Seeds: c.Seeds}
	for _, cl := range cells {
		r.Res = append(r.Res, cl.Res)
	}
	return r
}

// judgeCompressionCurve says where DrDAM stops working for images: at each
// ratio, retrieval of every photo (fig2's rule) and the match to MrDAM
// (fig1's), and the smallest ratio from which each holds at every larger
// ratio of the grid.
func (c *Completion) judgeCompressionCurve(cs compressionSpec, cells [][]compressionCell) []Finding {
	ret := make([]string, len(cs.Ratios))
	match := make([]string, len(cs.Ratios))
	var details []string
	for ri, ratio := range cs.Ratios {
		runs := c.ratioRuns(cells[ri])
		fr := retrievalFinding(c, runs, "", "")
		fm := matchFinding(c, runs, "", "")
		ret[ri], match[ri] = fr.Verdict, fm.Verdict
		details = append(details, fmt.Sprintf("T at %.0f%% (Y = %d): retrieval **%s** (%s; %s); match to MrDAM within %d gray levels **%s**",
			100*ratio, cells[ri][0].Y, fr.Verdict, fr.Details[0], failing(c, runs), matchRMSE, fm.Verdict))
	}
	at := -1 // the largest ratio below 1
	for ri, r := range cs.Ratios {
		if r < 1 && (at < 0 || r > cs.Ratios[at]) {
			at = ri
		}
	}
	f := Finding{Name: "compression (retrieval)", Claim: "DrDAM retrieves every stored photo with T smaller than the memory matrix (Fig. 2's claim of compression)",
		Rule: "at each ratio, fig2's retrieval rule: per photo (a group), the retrieval margin log(RMSE to the nearest other stored photo / RMSE to its own), " +
			"on the occluded pixels, is above 0 across seeds; the claim is judged at the largest ratio of the grid below 100% (one ratio, chosen before the run, so no correction over ratios); " +
			"where DrDAM stops working is the smallest ratio from which retrieval holds at every larger ratio of the grid. " + imageUnits,
		Verdict: NotMeasured}
	if at >= 0 {
		f.Verdict = ret[at]
	}
	f.Details = append([]string{thresholdLine("retrieval of every photo", cs.Ratios, ret), thresholdLine(fmt.Sprintf("a match to MrDAM within %d gray levels", matchRMSE), cs.Ratios, match)}, details...)
	f.Details = append(f.Details,
		fmt.Sprintf("steps of %g until |ΔE| < %g, at most %d (Fig. 2: 1000 fixed steps, after which the paper says every image has converged); %s; "+
			"queries that did not converge: %s", c.Run.Step, c.Run.Tol, c.Run.MaxSteps, descentName(c.Run.Box), unconverged(cs, cells)))
	return []Finding{f}
}

// unconverged says, per ratio, how many DrDAM descents ran to the step
// limit without converging.
func unconverged(cs compressionSpec, cells [][]compressionCell) string {
	var parts []string
	for ri, r := range cs.Ratios {
		n, all := 0, 0
		for _, cl := range cells[ri] {
			_, atMax, _ := cl.Res.Dr.Count()
			n += atMax
			all += len(cl.Res.Dr.Outcome)
		}
		parts = append(parts, fmt.Sprintf("%d of %d at %.0f%%", n, all, 100*r))
	}
	return strings.Join(parts, ", ")
}

// failing names the photos whose retrieval does not hold on runs.
func failing(c *Completion, runs *Runs) string {
	var bad []string
	for q, x := range perImage(c, runs, drMargin) {
		if t := decide(x, above, 0, 0, c.Queries); t.verdict != Holds {
			bad = append(bad, fmt.Sprintf("%s (%s)", c.Images[q].Name, t.verdict))
		}
	}
	if len(bad) == 0 {
		return "every photo holds"
	}
	return "not holding: " + strings.Join(bad, ", ")
}

// thresholdLine says the smallest ratio from which verdicts hold at every
// larger ratio (the ratios need not be sorted).
func thresholdLine(what string, ratios []float64, verdicts []string) string {
	best := math.Inf(1)
	for _, r := range ratios {
		ok := true
		for j, s := range ratios {
			if s >= r && verdicts[j] != Holds {
				ok = false
			}
		}
		if ok {
			best = min(best, r)
		}
	}
	if math.IsInf(best, 1) {
		return fmt.Sprintf("**%s** does not hold at the largest ratio of the grid (%.0f%% of the memory matrix)", what, 100*slices.Max(ratios))
	}
	return fmt.Sprintf("**%s** holds from T at %.0f%% of the memory matrix up (at every larger ratio of the grid); below it, it does not hold by this rule", what, 100*best)
}
