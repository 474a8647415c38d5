package paper

import (
	"fmt"
	"github.com/drdam/drdam/metrics"
	"image"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/imageio"
	"github.com/drdam/drdam/plots"
)

// fig4b is the paper's Fig. 4B: one CIFAR-size completion over β × Y.
var fig4b = &Experiment{
	Name:    "fig4b",
	Figure:  "Fig. 4B",
	Kind:    KindSweep,
	Summary: "the paper's Fig. 4B: one CIFAR-size completion over a grid of β × Y",
	Help: `
Fig. 4B (§4.2): 10 images of 32×32 pixels (D = 3072) are stored; one query
with its bottom half occluded (the top half clamped) is completed by DrDAMs
for every β and Y of the grid, and by MrDAM at each β. Writes a grid: one
row per β, columns occluded query | DrDAM at each Y | MrDAM | original, and
the RMSE of each completion to MrDAM's. By default it reads the shared
photos in CIFAR-10 binary layout (` + SharedPhotos + `/cifar32_batch.bin).`,
	Reproduce: true,
	Photos:    "cifar32_batch.bin",
	Images: imageDefaults(func(s *ImageSpec) {
		s.N, s.Size, s.Occlude, s.Y, s.Steps = 10, "32x32", "bottom:0.5", 10000, 1000
	}),
	Sweep: SweepSpec{Betas: []float64{40, 60, 70, 75, 80}, Ys: []int{10000, 40000, 90000, 160000, 360000}},
}

// SweepSpec is the grid of a Sweep experiment: DrDAMs at every β and Y
// complete the stored image Query (counted from 0).
type SweepSpec struct {
	Betas []float64 // rows of the grid
	Ys    []int     // its columns
	Query int
}

// RunSweep runs the Sweep experiment x: for each β, MrDAM and a DrDAM at
// each Y complete the occluded image sw.Query of c, and the RMSEs of
// DrDAM's completions to MrDAM's are checked against the paper's claim.
// It writes grid.png, rmse.txt and findings.md into dir; Text is the RMSE
// table and the files written.
func RunSweep(x *Experiment, c *Completion, sw SweepSpec, dir string, progress func(done, total int, label string)) (*Result, error) {
	if sw.Query < 0 || sw.Query >= len(c.Images) {
		return nil, specErrorf("--query %d: want 0 to %d", sw.Query, len(c.Images)-1)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	start := time.Now()
	d := c.Run.D
	c.Run.Queries = c.Run.Stored[sw.Query*d : (sw.Query+1)*d]
	orig := c.Images[sw.Query]
	g := &plots.ImageGrid{Title: fmt.Sprintf("Fig. 4B: %s, bottom half occluded; DrDAM (%v, %v) by Y, and MrDAM", orig.Name, c.Run.DrDAM.Basis, c.Run.DrDAM.Projection)}
	g.ColTitles = append(g.ColTitles, "query")
	for _, y := range sw.Ys {
		g.ColTitles = append(g.ColTitles, fmt.Sprintf("Y = %s", fmt.Sprint(y)))
	}
	g.ColTitles = append(g.ColTitles, "MrDAM", "original")
	fnd := Finding{Name: "fig4b", Claim: "DrDAM's completions approach MrDAM's as Y grows, and larger β needs larger Y",
		Rule: "for each β, the RMSE (0–255 units) of DrDAM's completion to MrDAM's falls from the smallest to the largest Y"}
	var tbl strings.Builder
	fmt.Fprintf(&tbl, "%-8s", "β \\ Y")
	for _, y := range sw.Ys {
		fmt.Fprintf(&tbl, " %10s", fmt.Sprint(y))
	}
	tbl.WriteString("   (RMSE of DrDAM's completion to MrDAM's, 0–255 units)\n")
	falls := 0
	var stalled []string // the cells whose DrDAM query stalled at the clip floor
	for bi, beta := range sw.Betas {
		row, rm, st, err := c.sweepRow(beta, sw.Ys, orig, func(yi int) {
			if progress != nil {
				progress(bi*len(sw.Ys)+yi, len(sw.Betas)*len(sw.Ys), fmt.Sprintf("fig4b: β = %g, Y = %d", beta, sw.Ys[yi]))
			}
		})
		if err != nil {
			return nil, err
		}
		g.Cells = append(g.Cells, row)
		g.RowLabels = append(g.RowLabels, fmt.Sprintf("β = %g", beta))
		fmt.Fprintf(&tbl, "%-8g", beta)
		for _, v := range rm {
			fmt.Fprintf(&tbl, " %10.2f", v)
		}
		tbl.WriteString("\n")
		if rm[len(rm)-1] < rm[0] {
			falls++
		}
		for yi, ok := range st {
			if ok {
				stalled = append(stalled, fmt.Sprintf("β = %g, Y = %d", beta, sw.Ys[yi]))
			}
		}
		fnd.Details = append(fnd.Details, fmt.Sprintf("β = %g: RMSE to MrDAM from %.1f (Y = %s) to %.1f (Y = %s)", beta, rm[0], fmt.Sprint(sw.Ys[0]), rm[len(rm)-1], fmt.Sprint(sw.Ys[len(sw.Ys)-1])))
	}
	fnd.Verdict = share(falls, len(sw.Betas))
	if len(stalled) > 0 {
		note := fmt.Sprintf("DrDAM stalled at the clip floor (φ(x)·T < ε, gradient 0: the completion is the occluded query) at %s; start the hidden pixels nearer (--fill mean) or lower β\n",
			strings.Join(stalled, "; "))
		tbl.WriteString(note)
		fnd.Details = append(fnd.Details, note)
	}
	if err := g.Save(filepath.Join(dir, "grid.png")); err != nil {
		return nil, err
	}
	table := tbl.String()
	if err := writeFile(filepath.Join(dir, "rmse.txt"), table); err != nil {
		return nil, err
	}
	r := &Result{Exp: x, Dir: dir, Figures: []string{"grid.png"}, Findings: []Finding{fnd}, Elapsed: time.Since(start),
		Summary: fmt.Sprintf("%d images of 32×32 stored (D = %d); image %s completed with its bottom half occluded, %d steps of %g; DrDAM with %v features (%v projection); %v in total.\n\n```\n%s```",
			len(c.Images), d, orig.Name, c.Run.MaxSteps, c.Run.Step, c.Run.DrDAM.Basis, c.Run.DrDAM.Projection, time.Since(start).Round(time.Second), table)}
	if err := writeImageFindings(r); err != nil {
		return nil, err
	}
	r.Text = table + fmt.Sprintf("wrote %s, %s and %s\n", filepath.Join(dir, "grid.png"), filepath.Join(dir, "rmse.txt"), filepath.Join(dir, "findings.md"))
	return r, nil
}

// sweepRow completes the query of c at beta with MrDAM and with a DrDAM at
// each Y, and returns the row of the grid (occluded query, DrDAM at each
// Y, MrDAM, original), the RMSEs of DrDAM's completions to MrDAM's and
// whether each DrDAM's query stalled at the clip floor.
func (c *Completion) sweepRow(beta float64, ys []int, orig *imageio.Image, step func(yi int)) ([]image.Image, []float64, []bool, error) {
	d := c.Run.D
	var row []image.Image
	var mrX, rm []float64
	var stalled []bool
	for yi, y := range ys {
		step(yi)
		run := c.Run
		run.Beta = beta
		run.DrDAM.Y = y
		run.SkipMrDAM = yi > 0
		res, err := experiment.Complete(run)
		if err != nil {
			return nil, nil, nil, err
		}
		stalled = append(stalled, len(res.Stalled()) > 0)
		if yi == 0 {
			mrX = slices.Clone(res.Mr.X)
			row = append(row, c.image(res.Occluded))
		}
		row = append(row, c.image(res.Dr.X))
		rm = append(rm, metrics.RMSE255(metrics.ClipUnit(res.Dr.X, d), metrics.ClipUnit(mrX, d), d, nil))
	}
	return append(row, c.image(mrX), orig.RGBA()), rm, stalled, nil
}
