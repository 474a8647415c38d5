package paper

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/drdam/drdam/experiment"
)

// fig1 is the paper's Fig. 1: four occluded 64×64 photos completed.
var fig1 = &Experiment{
	Name:    "fig1",
	Figure:  "Fig. 1",
	Kind:    KindCompletion,
	Summary: "the paper's Fig. 1: 4 occluded 64×64 photos completed by DrDAM and MrDAM",
	Help: `
Fig. 1 (appendix "TinyImagenet Experimental Details"): 4 photos of 64×64
pixels are stored (D = 12288) in an MrDAM and in a DrDAM (β = 60, Y = 1.8·10⁵
SinCos features); queries with the bottom two thirds set to 0 descend the
energy for 300 steps of 0.1 with the top third clamped, by plain gradient
descent (the paper's; --box clips free pixels to [0, 1/√D] instead, and the
other of the two is always run beside it, as drdam's improvement). Each of
--seeds projection seeds is a replicate (MrDAM, deterministic, runs once).
Writes the image grids, the energy traces (Fig. 1B) and the RMSEs, and
checks the paper's claims: DrDAM reaches MrDAM's fixed points (RMSE on the
occluded pixels < 10 in 0–255 units) and both end at the same energy.`,
	Reproduce:  true,
	Deviations: []string{photosDeviation, sorfDeviation, seedsDeviation},
	Photos:     "tiny64",
	Images:     imageDefaults(func(s *ImageSpec) { s.N, s.CompareBox = 4, true }),
	Judge:      judgeFixedPoints,
}

// fig2 is the paper's Fig. 2: more photos than T has room for.
var fig2 = &Experiment{
	Name:    "fig2",
	Figure:  "Fig. 2",
	Kind:    KindCompletion,
	Summary: "the paper's Fig. 2: more photos than T has room for, 40% occluded",
	Help: `
Fig. 2 (appendix): DrDAM compresses: all the photos (the twelve shared
64×64 ones by default; the paper stores 20) are stored in a T with fewer
values than the memory matrix K×D (Y = 6·10⁴ SinCos projections give
1.2·10⁵ values against 12 × 12288 = 147456, 81%, as the paper's stated
~80%), the bottom 40% of each is occluded, and both models descend for
1000 steps, plainly (the paper's) and with --box toggled beside it. The
paper's own code stores Y = 2·10⁵ SinCos projections, 4·10⁵ values, 163%
of its memory matrix: see drdam experiment compression for the curve.`,
	Reproduce: true,
	Deviations: []string{
		"The paper's own code for Fig. 2 stores Y = 2·10⁵ SinCos projections, i.e. 2Y = 4·10⁵ values in T, 163% of its 20 × 12288 memory matrix (the paper counts Y, not 2Y): " +
			"its Fig. 2 did not compress. Here Y = 6·10⁴ makes T 81% of K·D, the paper's stated ratio. At 163% (`drdam experiment compression`) DrDAM retrieves every photo; at 100% and below it does not.",
		"12 photos are stored where the paper stores 20: only twelve are shared here. With K·D fixed by the ratio, a larger K changes the kernel noise √(K/2Y) = √(1/(ratio·D)) not at all; the effect is not measured.",
		photosDeviation, sorfDeviation, seedsDeviation,
	},
	Photos: "tiny64",
	Images: imageDefaults(func(s *ImageSpec) { s.Occlude, s.Y, s.Steps, s.CompareBox = "bottom:0.4", 60000, 1000, true }),
	Judge:  judgeCompression,
}

// imageDefaults returns DefaultImageSpec changed by set.
func imageDefaults(set func(*ImageSpec)) ImageSpec {
	s := DefaultImageSpec()
	set(&s)
	return s
}

// Available reports whether x can run with its defaults here: a grid
// experiment always; an image experiment when the shared photos it reads
// by default are present.
func (x *Experiment) Available() bool { return x.Photos == "" || Photos(x.Photos) != "" }

// ImageDefaults returns the defaults of an image experiment's ImageSpec,
// with the shared photos it reads by default when they are present.
func (x *Experiment) ImageDefaults() ImageSpec {
	s := x.Images
	switch p := Photos(x.Photos); {
	case p == "":
	case strings.HasSuffix(p, ".bin"):
		s.FallbackCIFAR = p
	default:
		s.Images = []string{p}
	}
	return s
}

// RunImageExperiment runs the Completion experiment x on c into dir and
// checks its findings (findings.md). Text is the RMSE table that drdam
// complete prints too.
func RunImageExperiment(x *Experiment, c *Completion, dir string, log io.Writer) (*Result, error) {
	start := time.Now()
	all, err := RunCompletion(c, dir, strings.ToUpper(x.Name[:1])+x.Name[1:], log)
	if err != nil {
		return nil, err
	}
	r := &Result{Exp: x, Dir: dir, Figures: []string{"grid.png", "energy.png"}, Elapsed: time.Since(start), Text: c.Text(all, dir)}
	if len(all) > 1 {
		r.Figures = append(r.Figures, "grid-"+map[bool]string{true: "box", false: "plain"}[all[1].Box]+".png")
	}
	r.Findings = x.Judge(c, all)
	run, dr, res := &c.Run, c.Run.DrDAM, all[0].Res[0]
	r.Summary = fmt.Sprintf("%d photos of %dx%d stored (D = %d); %d completed with occlusion %s; β = %g; DrDAM with Y = %d %v features (%v projection, %v), seeds %s: "+
		"T has %d values against %d in the memory matrix (%.0f%%). %s. First seed: DrDAM encoded in %v and descended %d steps in %v; MrDAM in %v. "+
		"RMSEs are in 0–255 units on the occluded pixels (the whole image beside them), mean over seeds [95%% interval].\n\n```\n%s```",
		len(c.Images), c.H, c.W, run.D, c.Queries, c.Occlude, run.Beta, dr.Y, dr.Basis, dr.Projection, dr.Precision, seedList(c.Seeds),
		res.TSize, res.MemorySize, 100*float64(res.TSize)/float64(res.MemorySize), runsNote(all), res.EncodeTime.Round(time.Millisecond), run.MaxSteps,
		res.DrTime.Round(time.Millisecond), res.MrTime.Round(time.Millisecond), c.Table(all))
	if err := writeImageFindings(r); err != nil {
		return nil, err
	}
	return r, nil
}

// runsNote says which descents were run.
func runsNote(all []*Runs) string {
	s := "Descent: " + descentName(all[0].Box)
	if len(all) > 1 {
		s += ", and " + descentName(all[1].Box) + " beside it"
	}
	return s
}

// seedList formats seeds as "0, 100, 200".
func seedList(seeds []uint64) string {
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = fmt.Sprint(s)
	}
	return strings.Join(parts, ", ")
}

// writeImageFindings writes r's findings.md.
func writeImageFindings(r *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: findings\n\n%s\n\n", r.Exp.Name, r.Summary)
	writeFindings(&b, r.Findings)
	writeDeviations(&b, r.Exp)
	for _, f := range r.Figures {
		fmt.Fprintf(&b, "![%s](%s)\n\n", f, f)
	}
	return writeFile(filepath.Join(r.Dir, "findings.md"), b.String())
}

// perImage returns the values of stat for each query of c across the seeds
// of runs, for the judges: xs[q] holds query q's values.
func perImage(c *Completion, runs *Runs, stat func(*experiment.CompletionResult) []float64) [][]float64 {
	xs := make([][]float64, c.Queries)
	for q := range xs {
		xs[q] = runs.across(q, stat)
	}
	return xs
}
