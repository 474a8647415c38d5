package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/imageio"
	"github.com/drdam/drdam/internal/atomicfile"
	"github.com/drdam/drdam/plots"
)

// sharedPhotos is where the project's shared photos are, relative to the
// repository root, when they are present.
const sharedPhotos = "../shared/data/photos"

// imageFlags are the flags that choose the images and how they are
// completed, shared by drdam complete and the image experiments.
type imageFlags struct {
	images, cifar, tiny *string
	n, queries          *int
	size, occlude       *string
	beta                *float64
	y                   *int
	basis, projection   *string
	precision           *string
	seed                *uint64
	step, tol           *float64
	steps               *int
	box                 *bool
}

// completeDefaults are an image command's default settings.
type completeDefaults struct {
	images  string
	n       int
	queries int
	size    string
	occlude string
	beta    float64
	y       int
	steps   int
}

func addImageFlags(fs *flags, d completeDefaults) *imageFlags {
	return &imageFlags{
		images:     fs.String("images", d.images, "comma-separated PNG/JPEG files or folders of them"),
		cifar:      fs.String("cifar", "", "a CIFAR-10 binary batch file (instead of --images)"),
		tiny:       fs.String("tiny-imagenet", "", "a Tiny ImageNet root folder (train/<wnid>/images, val/images; instead of --images)"),
		n:          fs.Int("n", d.n, "number of images stored (the first N; 0 = all)"),
		queries:    fs.Int("queries", d.queries, "number of stored images to occlude and complete (the first N; 0 = all stored)"),
		size:       fs.String("size", d.size, "image size HxW: images are scaled to cover it and centre-cropped"),
		occlude:    fs.String("occlude", d.occlude, "occlusion: bottom:FRAC (the bottom rows), random:FRAC (random pixels), box:TOP,LEFT,H,W"),
		beta:       fs.Float64("beta", d.beta, "inverse temperature β"),
		y:          fs.Int("y", d.y, "number of random projections Y (T has 2Y values with sincos)"),
		basis:      fs.String("basis", "sincos", "feature basis: sincos, cos, exp or expexp"),
		projection: fs.String("projection", "structured", "random projection: structured (SORF, fastest), gaussian or orthogonal"),
		precision:  fs.String("precision", "float32", "compute precision of DrDAM"),
		seed:       fs.Uint64("seed", 0, "seed of the projection (and of random occlusions)"),
		step:       fs.Float64("step", 0.1, "descent step η"),
		steps:      fs.Int("steps", d.steps, "descent steps L (the paper runs a fixed number)"),
		tol:        fs.Float64("tol", 0, "stop a query when its energy changes by less than this (0: run every step)"),
		box:        fs.Bool("box", true, "clip free pixels to the image range [0, 1/√D] after each step (without it, DrDAM's noisy gradient can carry a far query out of range for good)"),
	}
}

// parseSize parses "HxW" (or one number for a square).
func parseSize(s string) (h, w int, err error) {
	a, b, ok := strings.Cut(strings.ToLower(s), "x")
	if !ok {
		b = a
	}
	h, err1 := strconv.Atoi(strings.TrimSpace(a))
	w, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || h < 1 || w < 1 || h > 4096 || w > 4096 {
		return 0, 0, usagef("--size %q: want HxW with 1 ≤ H, W ≤ 4096, e.g. 64x64", s)
	}
	return h, w, nil
}

// parseOcclusion returns the visibility mask of an --occlude value.
func parseOcclusion(s string, h, w int, seed uint64) ([]bool, error) {
	kind, arg, _ := strings.Cut(strings.ToLower(strings.TrimSpace(s)), ":")
	frac := func() (float64, error) {
		v, err := strconv.ParseFloat(arg, 64)
		if err != nil || !(v >= 0 && v <= 1) {
			return 0, usagef("--occlude %q: want a fraction in [0, 1] after %s:", s, kind)
		}
		return v, nil
	}
	switch kind {
	case "bottom":
		f, err := frac()
		if err != nil {
			return nil, err
		}
		return imageio.OccludeBottom(h, w, f), nil
	case "random":
		f, err := frac()
		if err != nil {
			return nil, err
		}
		return imageio.OccludeRandom(seed, h, w, f), nil
	case "box":
		var v []int
		for _, f := range strings.Split(arg, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 0 {
				return nil, usagef("--occlude %q: want box:TOP,LEFT,H,W with non-negative integers", s)
			}
			v = append(v, n)
		}
		if len(v) != 4 || v[0] >= h || v[1] >= w || v[2] < 1 || v[3] < 1 {
			return nil, usagef("--occlude %q: want box:TOP,LEFT,H,W inside the %dx%d image", s, h, w)
		}
		return imageio.OccludeBox(h, w, v[0], v[1], v[2], v[3]), nil
	}
	return nil, usagef("--occlude %q: want bottom:FRAC, random:FRAC or box:TOP,LEFT,H,W", s)
}

// loadImages reads the images the flags name.
func (f *imageFlags) loadImages(h, w int) ([]*imageio.Image, error) {
	var ims []*imageio.Image
	var err error
	switch {
	case *f.cifar != "":
		ims, _, err = imageio.LoadCIFAR(*f.cifar, *f.n)
	case *f.tiny != "":
		ims, err = imageio.LoadTinyImageNet(*f.tiny, "", *f.n, h, w)
	case *f.images != "":
		ims, err = imageio.Load(splitList(*f.images), h, w)
	default:
		return nil, usagef("no images: pass --images DIR (or --cifar FILE, --tiny-imagenet DIR)")
	}
	if err != nil {
		return nil, err
	}
	if *f.n > 0 && len(ims) > *f.n {
		ims = ims[:*f.n]
	}
	return ims, nil
}

// completion is a loaded image completion, ready to run.
type completion struct {
	h, w    int
	ims     []*imageio.Image
	queries int
	c       experiment.Completion
	occlude string
}

// prepare checks the flags and loads the images.
func (f *imageFlags) prepare() (*completion, error) {
	h, w, err := parseSize(*f.size)
	if err != nil {
		return nil, err
	}
	if *f.cifar != "" {
		h, w = 32, 32
	}
	if *f.n < 0 || *f.queries < 0 {
		return nil, usagef("--n %d, --queries %d: want ≥ 0", *f.n, *f.queries)
	}
	if !(*f.beta > 0) || math.IsInf(*f.beta, 0) || *f.y < 1 || !(*f.step > 0) || *f.steps < 1 || !(*f.tol >= 0) {
		return nil, usagef("--beta %v, --y %d, --step %v, --steps %d, --tol %v: want β, Y, step and steps positive and tol ≥ 0",
			*f.beta, *f.y, *f.step, *f.steps, *f.tol)
	}
	cfg := dam.Config{Y: *f.y, Seed: *f.seed}
	if cfg.Basis, err = features.ParseBasis(*f.basis); err != nil {
		return nil, usageError{"--basis: " + err.Error()}
	}
	if cfg.Projection, err = features.ParseProjectionKind(*f.projection); err != nil {
		return nil, usageError{"--projection: " + err.Error()}
	}
	if cfg.Precision, err = dam.ParsePrecision(*f.precision); err != nil {
		return nil, usageError{"--precision: " + err.Error()}
	}
	vis, err := parseOcclusion(*f.occlude, h, w, *f.seed) // usage errors before reading anything
	if err != nil {
		return nil, err
	}
	ims, err := f.loadImages(h, w)
	if err != nil {
		return nil, err
	}
	if len(ims) > 0 && (ims[0].H != h || ims[0].W != w) {
		h, w = ims[0].H, ims[0].W
		if vis, err = parseOcclusion(*f.occlude, h, w, *f.seed); err != nil {
			return nil, err
		}
	}
	x, d, err := imageio.Patterns(ims)
	if err != nil {
		return nil, err
	}
	nq := len(ims)
	if *f.queries > 0 {
		nq = min(nq, *f.queries)
	}
	return &completion{h: h, w: w, ims: ims, queries: nq, occlude: *f.occlude, c: experiment.Completion{
		D: d, Stored: x, Queries: x[:nq*d], Visible: vis, DrDAM: cfg, Beta: *f.beta,
		Step: *f.step, MaxSteps: *f.steps, Tol: *f.tol, Box: *f.box,
	}}, nil
}

func runComplete(e *env, args []string) error {
	fs := newFlags("complete", "", `
Stores images in an MrDAM and in a DrDAM, occludes them (by default the
bottom two thirds, as the paper's Fig. 1), completes them by energy descent
with the visible pixels clamped, and writes to --out:
  grid.png     one row per image: occluded query | DrDAM | MrDAM | original
  energy.png   the energy traces of both representations (and .svg)
  rmse.csv     per image, the RMSE in 0–255 pixel units of DrDAM to the
               original and to MrDAM's fixed point, of MrDAM to the
               original, and the final energies
Images are scaled to cover --size and centre-cropped; a pattern is the
H×W×3 pixels, each v/255/√D, so that it lies in [0, 1/√D]^D.

Example:
  drdam complete --images ~/Pictures/holiday --n 8 --occlude bottom:0.5`)
	def := completeDefaults{size: "64x64", occlude: "bottom:0.67", beta: 60, y: 180000, steps: 300, queries: 8}
	def.images = photosOr("tiny64")
	f := addImageFlags(fs, def)
	out := fs.String("out", filepath.Join("out", "complete"), "output directory")
	if err := fs.parse(e, args); err != nil {
		return err
	}
	cp, err := f.prepare()
	if err != nil {
		return err
	}
	res, err := runCompletion(e, cp, *out, "Image completion")
	if err != nil {
		return err
	}
	printCompletion(e.stdout, cp, res, *out)
	return nil
}

// runCompletion runs a completion with progress and writes its grid,
// energy plot and RMSE table into out.
func runCompletion(e *env, cp *completion, out, title string) (*experiment.CompletionResult, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	fmt.Fprintf(e.stderr, "completing %d of %d stored %dx%d images (D = %d, β = %g, Y = %d %v %v, %d steps)…\n",
		cp.queries, len(cp.ims), cp.h, cp.w, cp.c.D, cp.c.Beta, cp.c.DrDAM.Y, cp.c.DrDAM.Basis, cp.c.DrDAM.Projection, cp.c.MaxSteps)
	res, err := experiment.Complete(cp.c)
	if err != nil {
		return nil, err
	}
	if err := writeCompletion(cp, res, out, title); err != nil {
		return nil, err
	}
	return res, nil
}

func imageOf(name string, cp *completion, x []float64) *imageio.Image {
	im, err := imageio.FromPattern(name, cp.h, cp.w, x)
	if err != nil {
		panic(err) // sizes come from the same images
	}
	return im
}

func writeCompletion(cp *completion, res *experiment.CompletionResult, out, title string) error {
	d := cp.c.D
	g := &imageio.Grid{Title: fmt.Sprintf("%s: β = %g, Y = %d (%v, %v), occlusion %s", title, cp.c.Beta, cp.c.DrDAM.Y,
		cp.c.DrDAM.Basis, cp.c.DrDAM.Projection, cp.occlude),
		ColTitles: []string{"occluded query", "DrDAM", "MrDAM", "original"}}
	for q := range cp.queries {
		name := cp.ims[q].Name
		g.RowLabels = append(g.RowLabels, fmt.Sprintf("%s\nDrDAM–MrDAM %.1f\nDrDAM–orig. %.1f", name, res.DrToMr[q], res.DrToOriginal[q]))
		g.Cells = append(g.Cells, []*imageio.Image{
			imageOf(name, cp, res.Occluded[q*d:(q+1)*d]), imageOf(name, cp, res.Dr.X[q*d:(q+1)*d]),
			imageOf(name, cp, res.Mr.X[q*d:(q+1)*d]), cp.ims[q],
		})
	}
	if err := g.Save(filepath.Join(out, "grid.png")); err != nil {
		return err
	}
	fig := energyFigure(cp, res)
	if err := fig.SaveAll(filepath.Join(out, "energy")); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(out, "rmse.csv"), func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"image", "rmse_drdam_original", "rmse_drdam_mrdam", "rmse_mrdam_original", "energy_drdam_final", "energy_mrdam_final", "mrdam_energy_at_drdam", "steps_drdam", "steps_mrdam"})
		g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
		for q := range cp.queries {
			cw.Write([]string{cp.ims[q].Name, g(res.DrToOriginal[q]), g(res.DrToMr[q]), g(res.MrToOriginal[q]),
				g(res.FinalDr[q]), g(res.FinalMr[q]), g(res.TrueAtDr[q]), strconv.Itoa(res.Dr.Steps[q]), strconv.Itoa(res.Mr.Steps[q])})
		}
		cw.Flush()
		return cw.Error()
	})
}

// energyFigure draws the energy traces (Fig. 1B): MrDAM, DrDAM, and both
// overlaid (DrDAM dashed), one line per image.
func energyFigure(cp *completion, res *experiment.CompletionResult) *plots.Figure {
	mk := func(title string, mr, dr bool) plots.Panel {
		p := plots.Panel{Title: title, XLabel: "descent step", YLabel: "energy"}
		for q := range cp.queries {
			steps := func(tr []float64) []float64 {
				x := make([]float64, len(tr))
				for i := range x {
					x[i] = float64(i)
				}
				return x
			}
			if mr {
				tr := res.Mr.Energy[q]
				p.Series = append(p.Series, plots.Series{Label: cp.ims[q].Name, X: steps(tr), Y: tr, Style: q})
			}
			if dr {
				tr := res.Dr.Energy[q]
				s := plots.Series{Label: cp.ims[q].Name, X: steps(tr), Y: tr, Style: q}
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
	return &plots.Figure{Title: fmt.Sprintf("Energy descent of the occluded queries (β = %g, Y = %d)", cp.c.Beta, cp.c.DrDAM.Y),
		Rows: 1, Cols: 3, ShareY: true, ShareX: true,
		Panels: []plots.Panel{mk("MrDAM", true, false), mk("DrDAM", false, true), mk("both", true, true)}}
}

// printCompletion prints the RMSE table and the sizes and times.
func printCompletion(w io.Writer, cp *completion, res *experiment.CompletionResult, out string) {
	fmt.Fprintf(w, "%-24s %12s %12s %12s %12s %12s\n", "image", "DrDAM–orig.", "DrDAM–MrDAM", "MrDAM–orig.", "E DrDAM", "E MrDAM")
	for q := range cp.queries {
		fmt.Fprintf(w, "%-24s %12.2f %12.2f %12.2f %12.5g %12.5g\n", cp.ims[q].Name, res.DrToOriginal[q], res.DrToMr[q], res.MrToOriginal[q], res.FinalDr[q], res.FinalMr[q])
	}
	fmt.Fprintf(w, "RMSE in 0–255 pixel units over the whole image. T has %d values, the memory matrix %d (%.0f%%). "+
		"DrDAM: encode %v, descent %v; MrDAM descent %v.\n", res.TSize, res.MemorySize, 100*float64(res.TSize)/float64(res.MemorySize),
		res.EncodeTime.Round(time.Millisecond), res.DrTime.Round(time.Millisecond), res.MrTime.Round(time.Millisecond))
	fmt.Fprintf(w, "wrote %s, %s and %s\n", filepath.Join(out, "grid.png"), filepath.Join(out, "energy.png"), filepath.Join(out, "rmse.csv"))
}

// photosOr returns dir under the shared photos if it exists, for the
// default of an image experiment, or "".
func photosOr(sub string) string {
	p := filepath.Join(sharedPhotos, sub)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}
