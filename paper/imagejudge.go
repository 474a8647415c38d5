package paper

import (
	"fmt"
	"gonum.org/v1/gonum/stat"
	"math"
	"strings"

	"github.com/drdam/drdam/experiment"
)

// matchRMSE is the a priori reference of "DrDAM's completion matches
// MrDAM's": an RMSE under 10 gray levels of 255 (4% of the range) on the
// occluded pixels, where two 64×64 completions look alike at the size of
// the paper's figures; it was fixed before these runs (issue 13 quotes it
// as the threshold), not tuned to them.
const matchRMSE = 10

// energyGap is the a priori reference of "the two energy traces end at the
// same energy": a final difference under 1% of the energy MrDAM's descent
// released, E(x⁰) − E(x^L), the height of the traces of Fig. 1B, at which
// two ends are one line width apart in the figure.
const energyGap = 0.01

// imageUnits says how the image judges count replicates, for their rules.
const imageUnits = "Replicates are DrDAM's projection seeds (MrDAM is deterministic); each image is a group, judged on its seeds' values " +
	"by the report's statistical rule (95% Student-t interval of the mean; Bonferroni over the images for \"does not hold\"), and the claim holds when every image does"

// groupTests judges the claim (s, lo, hi) on each group's replicate
// values xs[g] (m = len(xs) groups, see StatRule), names[g] naming them,
// and returns the combined verdict and a line per group.
func groupTests(names []string, xs [][]float64, s sense, lo, hi float64) (string, []string) {
	var vs, lines []string
	for g, x := range xs {
		t := decide(x, s, lo, hi, len(xs))
		vs = append(vs, t.verdict)
		lines = append(lines, fmt.Sprintf("%s: %s", names[g], t))
	}
	return combine(vs...), lines
}

// imageNames returns the names of c's queries.
func imageNames(c *Completion) []string {
	n := make([]string, c.Queries)
	for q := range n {
		n[q] = c.Images[q].Name
	}
	return n
}

// gapOfDrop returns, per query, |E_DrDAM − E_MrDAM| at the end over
// MrDAM's drop E(x⁰) − E(x^L).
func gapOfDrop(r *experiment.CompletionResult) []float64 {
	out := make([]float64, len(r.FinalDr))
	for q := range out {
		out[q] = math.Abs(r.FinalDr[q]-r.FinalMr[q]) / (r.Mr.Energy[q][0] - r.FinalMr[q])
	}
	return out
}

// matchFinding judges "DrDAM's completions match MrDAM's" on runs.
func matchFinding(c *Completion, runs *Runs, name, claim string) Finding {
	f := Finding{Name: name, Claim: claim,
		Rule: fmt.Sprintf("per image, the RMSE (0–255 units) between DrDAM's and MrDAM's completions on the occluded pixels is below %d gray levels "+
			"(the a priori reference: 4%% of the range, where two completions look alike at the figure's size); %s", matchRMSE, imageUnits)}
	f.Verdict, f.Details = groupTests(imageNames(c), perImage(c, runs, drToMrFree), below, matchRMSE, 0)
	for q := range c.Queries {
		f.Details[q] += fmt.Sprintf("; whole image %s; DrDAM–original %s (occluded); MrDAM–original %.2f (occluded)",
			meanIv(runs.across(q, drToMr)), meanIv(runs.across(q, drToOrigFree)), runs.Res[0].MrToOriginalFree[q])
	}
	return f
}

// retrievalFinding judges "DrDAM retrieves the stored photos" on runs.
func retrievalFinding(c *Completion, runs *Runs, name, claim string) Finding {
	f := Finding{Name: name, Claim: claim,
		Rule: "per photo, the retrieval margin log(RMSE to the nearest other stored photo / RMSE to its own photo), both on the occluded pixels, " +
			"is above 0 (the completion is nearer its own photo than any other: retrieval, with no tolerance to choose); " + imageUnits}
	f.Verdict, f.Details = groupTests(imageNames(c), perImage(c, runs, drMargin), above, 0, 0)
	got, n := 0, 0
	for q := range c.Queries {
		got += runs.retrieved(q)
		n += len(runs.Seeds)
		f.Details[q] += fmt.Sprintf("; retrieved by %d of %d seeds; MrDAM's margin %.2f", runs.retrieved(q), len(runs.Seeds), runs.Res[0].MrMargin[q])
	}
	f.Details = append([]string{fmt.Sprintf("%d of %d completions (photos × seeds) retrieved", got, n)}, f.Details...)
	return f
}

// stallNote says which DrDAM queries stalled at the clip floor, or "".
func stallNote(c *Completion, runs *Runs) string {
	var s []string
	for i, res := range runs.Res {
		for _, q := range res.Stalled() {
			s = append(s, fmt.Sprintf("%s (seed %d, after %d steps)", c.Images[q].Name, runs.Seeds[i], res.Dr.Steps[q]))
		}
	}
	if len(s) == 0 {
		return ""
	}
	return fmt.Sprintf("DrDAM stalled at the clip floor (φ(x)·T < ε, gradient 0: the completion is the occluded query, counted as it is): %s; %s",
		strings.Join(s, "; "), c.StallWarning(runs.Res[0]))
}

// The deviations of the image experiments from the paper, for their
// Deviations (findings.md and the report print them), each with its
// measured effect where one was measured (docs/reproduce/README.md has the
// runs).
const (
	photosDeviation = "The paper's images come from Tiny ImageNet (Fig. 1, 2) and CIFAR-10 (Fig. 4B), which are not available here; twelve freely licensed sample photos " +
		"(scikit-image, scikit-learn, SciPy, Matplotlib; " + SharedPhotos + "/provenance.tsv), cover-resized and centre-cropped to 64×64 and 32×32, stand in for them " +
		"(`--images`, `--cifar` or `--tiny-imagenet` read others). Photos are smoother than most Tiny ImageNet images, and these twelve are far apart, which helps retrieval; the effect is not measured."
	sorfDeviation = "DrDAM's projection is structured (SORF) in float32, the fastest, where the paper draws iid Gaussian projections in float64; docs/projections measures the same " +
		"energy and gradient errors for both (`--projection gaussian --precision float64` for the paper's)."
	seedsDeviation = "Every DrDAM is run with 3 projection seeds (0, 100, 200; `--seeds`), MrDAM once (it is deterministic), and the findings judge the claims across the seeds " +
		"(RMSEs on the occluded pixels, mean and 95% interval); the paper shows one run and measures over the whole image."
)

// boxNote discloses the box against the paper's plain descent, with its
// effect measured by runs, all[1] being the other descent.
func boxNote(c *Completion, all []*Runs) string {
	if len(all) < 2 {
		return ""
	}
	s := fmt.Sprintf("**The box:** the paper descends plainly; drdam's `--box` (clipping free pixels to [0, 1/√D] after each step) is its improvement, run beside it here. "+
		"Mean RMSE DrDAM–MrDAM on the occluded pixels, %s → %s:", descentName(all[0].Box), descentName(all[1].Box))
	for q := range c.Queries {
		s += fmt.Sprintf(" %s %.1f → %.1f;", c.Images[q].Name, stat.Mean(all[0].across(q, drToMrFree), nil), stat.Mean(all[1].across(q, drToMrFree), nil))
	}
	return s[:len(s)-1]
}

// judgeFixedPoints checks Fig. 1: DrDAM reaches MrDAM's fixed points (on
// the occluded pixels) with the paper's plain descent, and with the box;
// the energy traces end at the same energy. all[0] is the default run,
// all[1] (if any) the other descent.
func judgeFixedPoints(c *Completion, all []*Runs) []Finding {
	fs := []Finding{matchFinding(c, all[0], "fig1 (fixed points)", "DrDAM's completions match MrDAM's fixed points ("+descentName(all[0].Box)+")")}
	if len(all) > 1 {
		fs = append(fs, matchFinding(c, all[1], "fig1 (fixed points, "+map[bool]string{true: "box", false: "plain"}[all[1].Box]+")",
			"DrDAM's completions match MrDAM's fixed points ("+descentName(all[1].Box)+", beside the paper's)"))
		fs[len(fs)-1].Ours = true
	}
	g := Finding{Name: "fig1 (energies)", Claim: "the two energy traces end at the same energy (" + descentName(all[0].Box) + ")",
		Rule: fmt.Sprintf("per image, the final energies of DrDAM and MrDAM differ by less than %g%% of the energy MrDAM's descent released (E(x⁰) − E(x^L), the height of Fig. 1B's traces; "+
			"the a priori reference: 1%% of it is a line width in the figure); the final energies themselves are near 0, so a difference relative to them would say little; %s", 100*energyGap, imageUnits)}
	g.Verdict, g.Details = groupTests(imageNames(c), perImage(c, all[0], gapOfDrop), below, energyGap, 0)
	g.Details = append(g.Details, "the gap is close to ½‖x_DrDAM − x_MrDAM‖², the price of descending a noisy estimate: DrDAM stops where its own estimate is lowest, "+
		"below the true energy there; it shrinks as 1/Y (run with --y 360000 or 720000 to see it)")
	for _, f := range []*Finding{&fs[0], &g} {
		if n := stallNote(c, all[0]); n != "" {
			f.Details = append(f.Details, n)
		}
	}
	if n := boxNote(c, all); n != "" {
		fs[0].Details = append(fs[0].Details, n)
	}
	return append(fs, g)
}

// judgeCompression checks Fig. 2: with T smaller than the memory matrix,
// DrDAM still retrieves every stored photo (its completion is nearer, on
// the occluded part, to the photo it started from than to any other), and
// how near its completions come to MrDAM's.
func judgeCompression(c *Completion, all []*Runs) []Finding {
	res := all[0].Res[0]
	ratio := 100 * float64(res.TSize) / float64(res.MemorySize)
	ret := retrievalFinding(c, all[0], "fig2 (retrieval)", fmt.Sprintf("DrDAM retrieves the stored photos from occluded queries with T smaller than the memory matrix (here %.0f%% of it; %s)", ratio, descentName(all[0].Box)))
	match := matchFinding(c, all[0], "fig2 (match)", "DrDAM's compressed completions match MrDAM's ("+descentName(all[0].Box)+"; the paper shows them as ground truth beside DrDAM's)")
	match.Details = append(match.Details, "the completions are speckled (see the grid): at T ≤ K·D, i.e. Y ≤ K·D/2, the kernel noise √(K/2Y) is at least √(1/D), "+
		"about 3× that of Fig. 1, whatever K; the paper calls this the \"higher tolerance for retrieval error\" that compression needs")
	if n := stallNote(c, all[0]); n != "" {
		ret.Details = append(ret.Details, n)
	}
	ret.Details = append(ret.Details,
		fmt.Sprintf("T: %d values; memory matrix: %d × %d = %d; T is %.0f%% of it (the paper states ~80%%, counting Y = 2·10⁵ against 20 × 12288, but T then holds 2Y values, 163%%)",
			res.TSize, len(c.Images), c.Run.D, res.MemorySize, ratio))
	if len(all) > 1 {
		box := retrievalFinding(c, all[1], "", "")
		ret.Details = append(ret.Details, boxNote(c, all)+fmt.Sprintf("; retrieval by the same rule with %s: %s (%s)", descentName(all[1].Box), box.Verdict, box.Details[0]))
	}
	return []Finding{ret, match}
}
