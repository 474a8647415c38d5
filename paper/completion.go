package paper

import (
	"context"
	"encoding/csv"
	"fmt"
	"image"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/imageio"
	"github.com/drdam/drdam/internal/atomicfile"
	"github.com/drdam/drdam/plots"
)

// SharedPhotos is where the project's shared photos are, relative to the
// repository root, when they are present.
const SharedPhotos = "../shared/data/photos"

// Photos returns the path of sub under the shared photos if it exists, or
// "".
func Photos(sub string) string {
	p := filepath.Join(SharedPhotos, sub)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// ImageSpec is what an image completion is asked: which images, how they
// are occluded, the models and the descent. Its parameters (ImageParams),
// shared by drdam complete and the image experiments, set its fields.
type ImageSpec struct {
	Images        []string // PNG/JPEG files or folders of them
	CIFAR         string   // a CIFAR-10 binary batch file (instead of Images)
	Tiny          string   // a Tiny ImageNet root folder (instead of Images)
	IDX           string   // an IDX file of images, such as MNIST's (instead of Images)
	FallbackCIFAR string   // the CIFAR batch to read when none of the three is given
	N             int      // images stored: the first N (0: all)
	Queries       int      // stored images occluded and completed: the first N (0: all stored)
	Size          string   // "HxW": images are scaled to cover it and centre-cropped
	Occlude       string   // bottom:FRAC, random:FRAC or box:TOP,LEFT,H,W
	Beta          float64
	Y             int
	Basis         features.Basis          // DrDAM's feature basis
	Projection    features.ProjectionKind // DrDAM's projection
	Precision     dam.Precision           // DrDAM's compute precision
	Seed          uint64                  // of the projection (and of random occlusions)
	Step          float64
	Steps         int
	Tol           float64 // stop a query when its energy changes by less (0: every step)
	// Box clips free pixels to [0, 1/√D] after each step: drdam's
	// improvement; the paper descends plainly (Box false).
	Box bool
	// CompareBox also runs every seed with Box toggled, reported beside
	// (fig1: the box against the paper's plain descent).
	CompareBox bool
	// Seeds is the number of replicates: DrDAM's projection seeds are
	// experiment.ReplicateSeed(Seed, i) for i < Seeds (0: one). MrDAM is
	// deterministic and descends once.
	Seeds int
	// Fill is what the hidden pixels start at: zero (the paper; "" too),
	// mean (the mean of the query's visible pixels, per channel) or
	// stored-mean (the mean stored image); see experiment.Fill.
	Fill string
}

// DefaultImageSpec returns the settings every image command shares: the
// paper's Fig. 1 (64×64 photos, bottom two thirds occluded, β = 60, Y =
// 1.8·10⁵ SinCos features, 300 steps of 0.1), with structured projections
// in float32 (the fastest, with the errors of iid ones: docs/projections),
// the paper's plain descent (no box) and 3 seeds.
func DefaultImageSpec() ImageSpec {
	return ImageSpec{Size: "64x64", Occlude: "bottom:0.67", Beta: 60, Y: 180000, Basis: features.SinCos, Projection: features.Structured,
		Precision: dam.Float32, Step: 0.1, Steps: 300, Fill: "zero", Seeds: 3}
}

// Completion is a loaded image completion, ready to run.
type Completion struct {
	H, W    int
	Images  []*imageio.Image // the stored images
	Queries int              // the first Queries are completed
	Occlude string
	// Seeds are DrDAM's projection seeds, one per replicate; CompareBox
	// also runs each with Run.Box toggled.
	Seeds      []uint64
	CompareBox bool
	Run        experiment.Completion
}

// Load checks s and loads its images.
func (s ImageSpec) Load() (*Completion, error) {
	h, w, err := imageio.ParseSize(s.Size)
	if err != nil {
		return nil, valueErr("size", s.Size, err)
	}
	if s.cifar() != "" {
		h, w = 32, 32
	}
	if err := firstFailing(
		check{s.N < 0, "n", s.N, "want ≥ 0"},
		check{s.Queries < 0, "queries", s.Queries, "want ≥ 0"},
		check{!(s.Beta > 0) || math.IsInf(s.Beta, 0), "beta", s.Beta, "want a number > 0"},
		check{s.Y < 1, "y", s.Y, "want at least 1"},
		check{!(s.Step > 0) || math.IsInf(s.Step, 0), "step", s.Step, "want a number > 0"},
		check{s.Steps < 1, "steps", s.Steps, "want at least 1"},
		check{!(s.Tol >= 0), "tol", s.Tol, "want a number ≥ 0"},
		check{s.Seeds < 0, "seeds", s.Seeds, "want ≥ 0"},
	); err != nil {
		return nil, err
	}
	cfg, err := s.drdam()
	if err != nil {
		return nil, err
	}
	vis, err := s.mask(h, w) // usage errors before reading anything
	if err != nil {
		return nil, err
	}
	fill := experiment.FillZero
	if s.Fill != "" {
		if fill, err = experiment.ParseFill(s.Fill); err != nil {
			return nil, &ParamError{Name: "fill", Msg: err.Error()}
		}
	}
	ims, err := s.loadImages(h, w)
	if err != nil {
		return nil, err
	}
	if len(ims) > 0 && (ims[0].H != h || ims[0].W != w) {
		h, w = ims[0].H, ims[0].W
		if vis, err = s.mask(h, w); err != nil {
			return nil, err
		}
	}
	ch := imageio.Channels
	if len(ims) > 0 {
		ch = ims[0].C()
		vis = imageio.ForChannels(vis, ch)
	}
	x, d, err := imageio.Patterns(ims)
	if err != nil {
		return nil, err
	}
	nq := len(ims)
	if s.Queries > 0 {
		nq = min(nq, s.Queries)
	}
	seeds := make([]uint64, max(1, s.Seeds))
	for i := range seeds {
		seeds[i] = experiment.ReplicateSeed(s.Seed, i)
	}
	return &Completion{H: h, W: w, Images: ims, Queries: nq, Occlude: s.Occlude, Seeds: seeds, CompareBox: s.CompareBox, Run: experiment.Completion{
		D: d, Stored: x, Queries: x[:nq*d], Visible: vis, Fill: fill, Channels: ch, DrDAM: cfg, Beta: s.Beta,
		Step: s.Step, MaxSteps: s.Steps, Tol: s.Tol, Box: s.Box,
	}}, nil
}

// drdam returns the configuration of the DrDAM (D and β are set by
// experiment.Complete).
func (s ImageSpec) drdam() (dam.Config, error) {
	return dam.Config{Y: s.Y, Seed: s.Seed, Basis: s.Basis, Projection: s.Projection, Precision: s.Precision}, nil
}

// mask returns the visibility mask of s.Occlude for h×w images.
func (s ImageSpec) mask(h, w int) ([]bool, error) {
	vis, err := imageio.ParseOcclusion(s.Occlude, h, w, s.Seed)
	if err != nil {
		return nil, valueErr("occlude", s.Occlude, err)
	}
	return vis, nil
}

// cifar returns the CIFAR-10 batch to read: CIFAR, or FallbackCIFAR when
// no images are named at all.
func (s ImageSpec) cifar() string {
	if s.CIFAR == "" && len(s.Images) == 0 && s.Tiny == "" && s.IDX == "" {
		return s.FallbackCIFAR
	}
	return s.CIFAR
}

// loadImages reads the images s names.
func (s ImageSpec) loadImages(h, w int) ([]*imageio.Image, error) {
	var ims []*imageio.Image
	var err error
	switch cifar := s.cifar(); {
	case cifar != "":
		ims, _, err = imageio.LoadCIFAR(cifar, s.N)
	case s.Tiny != "":
		ims, err = imageio.LoadTinyImageNet(s.Tiny, "", s.N, h, w)
	case s.IDX != "":
		ims, err = imageio.LoadIDX(s.IDX, s.N)
	case len(s.Images) > 0:
		ims, err = imageio.Load(s.Images, h, w)
	default:
		return nil, &ParamError{Name: "images", Msg: `no images given (nor parameter "cifar", parameter "tiny-imagenet" or parameter "idx")`}
	}
	if err != nil {
		return nil, err
	}
	if s.N > 0 && len(ims) > s.N {
		ims = ims[:s.N]
	}
	return ims, nil
}

// RunCompletion runs a completion over its seeds (saying what it does on
// log), with Run.Box and, when CompareBox is set, with it toggled too,
// and writes into dir: grid.png (per image: occluded query | DrDAM | MrDAM
// | original, the first seed of the first run), energy.png and .svg (its
// energy traces, Fig. 1B) and rmse.csv (every seed, image and run); with
// CompareBox, grid-box.png or grid-plain.png for the other run. title
// heads the grid. The first Runs is that of Run.Box.
func RunCompletion(ctx context.Context, c *Completion, dir, title string, log io.Writer) ([]*Runs, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r, dr := &c.Run, c.Run.DrDAM
	boxes := []bool{r.Box}
	if c.CompareBox {
		boxes = append(boxes, !r.Box)
	}
	var all []*Runs
	for bi, box := range boxes {
		fmt.Fprintf(log, "completing %d of %d stored %dx%d images (D = %d, β = %g, Y = %d %v %v, %d steps, %s, %d seeds)…\n",
			c.Queries, len(c.Images), c.H, c.W, r.D, r.Beta, dr.Y, dr.Basis, dr.Projection, r.MaxSteps, descentName(box), len(c.Seeds))
		runs, err := c.RunSeeds(ctx, box)
		if err != nil {
			return nil, err
		}
		if w := c.StallWarning(runs.Res[0]); w != "" {
			fmt.Fprintln(log, w)
		}
		name := "grid.png"
		if bi > 0 {
			name = "grid-" + map[bool]string{true: "box", false: "plain"}[box] + ".png"
		}
		if err := c.writeGrid(runs, filepath.Join(dir, name), title); err != nil {
			return nil, err
		}
		all = append(all, runs)
	}
	if err := c.energyFigure(all[0].Res[0]).SaveAll(filepath.Join(dir, "energy")); err != nil {
		return nil, err
	}
	if err := c.writeCSV(filepath.Join(dir, "rmse.csv"), all); err != nil {
		return nil, err
	}
	return all, nil
}

// descentName names the descent: the paper's plain one, or drdam's with
// the box.
func descentName(box bool) string {
	if box {
		return "box [0, 1/√D], drdam's"
	}
	return "plain descent, the paper's"
}

// RunSeeds completes the queries of c once per seed of c.Seeds with the
// box on or off; MrDAM, deterministic, descends once and is shared. It
// checks ctx before each seed.
func (c *Completion) RunSeeds(ctx context.Context, box bool) (*Runs, error) {
	runs := &Runs{Box: box, Seeds: c.Seeds}
	var mr *dam.Result
	for _, s := range c.Seeds {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("before seed %d: %w", s, err)
		}
		run := c.Run
		run.Box = box
		run.DrDAM.Seed = s
		run.Mr = mr
		res, err := experiment.Complete(ctx, run)
		if err != nil {
			return nil, fmt.Errorf("seed %d: %w", s, err)
		}
		mr = res.Mr
		runs.Res = append(runs.Res, res)
	}
	return runs, nil
}

// StallWarning returns "" if no DrDAM query of res stalled at the clip
// floor, else a warning that names them and the remedies (measured in
// docs/reliability.md).
func (c *Completion) StallWarning(res *experiment.CompletionResult) string {
	st := res.Stalled()
	if len(st) == 0 {
		return ""
	}
	names := make([]string, len(st))
	for i, q := range st {
		names[i] = c.Images[q].Name
	}
	return fmt.Sprintf("warning: %d of %d DrDAM queries stalled at the clip floor (%s): started from --fill %v, φ(x)·T was under ε = %g, "+
		"where the gradient is 0, so their completion is the occluded query itself. Start the occluded pixels nearer the images (--fill mean: the mean of the visible pixels) or lower --beta (now %g).",
		len(st), c.Queries, strings.Join(names, ", "), c.Run.Fill, c.Run.DrDAM.Basis.DefaultEpsilon(), c.Run.Beta)
}

// image returns the pattern x as an image of the completion's size.
func (c *Completion) image(x []float64) image.Image {
	im, err := imageio.FromPattern("", c.H, c.W, x)
	if err != nil {
		panic(err) // sizes come from the same images
	}
	return im.RGBA()
}

// writeGrid draws the completions of the first seed of runs into path.
func (c *Completion) writeGrid(runs *Runs, path, title string) error {
	d, r, res := c.Run.D, &c.Run, runs.Res[0]
	g := &plots.ImageGrid{Title: fmt.Sprintf("%s: β = %g, Y = %d (%v, %v), occlusion %s, %s, seed %d", title, r.Beta, r.DrDAM.Y,
		r.DrDAM.Basis, r.DrDAM.Projection, c.Occlude, descentName(runs.Box), runs.Seeds[0]),
		ColTitles: []string{"occluded query", "DrDAM", "MrDAM", "original"}}
	for q := range c.Queries {
		label := fmt.Sprintf("%s\nDrDAM–MrDAM %.1f\nDrDAM–orig. %.1f\n(occluded part)", c.Images[q].Name, res.DrToMrFree[q], res.DrToOriginalFree[q])
		if res.Dr.Outcome[q] == dam.Stalled {
			label += "\nDrDAM stalled"
		}
		g.RowLabels = append(g.RowLabels, label)
		g.Cells = append(g.Cells, []image.Image{
			c.image(res.Occluded[q*d : (q+1)*d]), c.image(res.Dr.X[q*d : (q+1)*d]),
			c.image(res.Mr.X[q*d : (q+1)*d]), c.Images[q].RGBA(),
		})
	}
	return g.Save(path)
}

// writeCSV writes rmse.csv: one row per run, seed and image, with the
// RMSEs (0–255 units) over the occluded part and over the whole image,
// the retrieval margins, the final energies, steps and outcomes.
func (c *Completion) writeCSV(path string, all []*Runs) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"box", "seed", "image", "rmse_drdam_mrdam_occluded", "rmse_drdam_original_occluded", "rmse_mrdam_original_occluded",
			"rmse_drdam_mrdam", "rmse_drdam_original", "rmse_mrdam_original", "margin_drdam", "margin_mrdam",
			"energy_drdam_final", "energy_mrdam_final", "mrdam_energy_at_drdam", "energy_mrdam_start", "steps_drdam", "steps_mrdam", "outcome_drdam", "outcome_mrdam"})
		g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
		for _, runs := range all {
			for i, res := range runs.Res {
				for q := range c.Queries {
					cw.Write([]string{strconv.FormatBool(runs.Box), strconv.FormatUint(runs.Seeds[i], 10), c.Images[q].Name,
						g(res.DrToMrFree[q]), g(res.DrToOriginalFree[q]), g(res.MrToOriginalFree[q]),
						g(res.DrToMr[q]), g(res.DrToOriginal[q]), g(res.MrToOriginal[q]), g(res.DrMargin[q]), g(res.MrMargin[q]),
						g(res.FinalDr[q]), g(res.FinalMr[q]), g(res.TrueAtDr[q]), g(res.Mr.Energy[q][0]), strconv.Itoa(res.Dr.Steps[q]), strconv.Itoa(res.Mr.Steps[q]),
						res.Dr.Outcome[q].String(), res.Mr.Outcome[q].String()})
				}
			}
		}
		cw.Flush()
		return cw.Error()
	})
}

// energyFigure draws the energy traces (Fig. 1B): MrDAM, DrDAM, and both
// overlaid (DrDAM dashed), one line per image.
func (c *Completion) energyFigure(res *experiment.CompletionResult) *plots.Figure {
	steps := func(tr []float64) []float64 {
		x := make([]float64, len(tr))
		for i := range x {
			x[i] = float64(i)
		}
		return x
	}
	mk := func(title string, mr, dr bool) plots.Panel {
		p := plots.Panel{Title: title, XLabel: "descent step", YLabel: "energy"}
		for q := range c.Queries {
			if mr {
				tr := res.Mr.Energy[q]
				p.Series = append(p.Series, plots.Series{Label: c.Images[q].Name, X: steps(tr), Y: tr, Style: q})
			}
			if dr {
				tr := res.Dr.Energy[q]
				s := plots.Series{Label: c.Images[q].Name, X: steps(tr), Y: tr, Style: q}
				if mr {
					s.Label, s.Dashed = "", true
				}
				p.Series = append(p.Series, s)
			}
		}
		if mr && dr {
			p.Note = "solid MrDAM, dashed DrDAM"
		}
		return p
	}
	return &plots.Figure{Title: fmt.Sprintf("Energy descent of the occluded queries (β = %g, Y = %d)", c.Run.Beta, c.Run.DrDAM.Y),
		Rows: 1, Cols: 3, ShareY: true, ShareX: true,
		Panels: []plots.Panel{mk("MrDAM", true, false), mk("DrDAM", false, true), mk("both", true, true)}}
}
