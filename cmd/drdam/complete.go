package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/paper"
)

// imageFlags are the flags that choose the images and how they are
// completed, shared by drdam complete and the image experiments; they
// fill a paper.ImageSpec.
type imageFlags struct {
	spec   paper.ImageSpec
	images *string
}

func addImageFlags(fs *flags, d paper.ImageSpec) *imageFlags {
	f := &imageFlags{spec: d}
	s := &f.spec
	f.images = fs.String("images", strings.Join(d.Images, ","), "comma-separated PNG/JPEG files or folders of them")
	fs.StringVar(&s.CIFAR, "cifar", d.CIFAR, "a CIFAR-10 binary batch file (instead of --images)")
	fs.StringVar(&s.Tiny, "tiny-imagenet", d.Tiny, "a Tiny ImageNet root folder (train/<wnid>/images, val/images; instead of --images)")
	fs.StringVar(&s.IDX, "idx", d.IDX, "an IDX file of images, such as MNIST's train-images-idx3-ubyte(.gz): N×H×W gray or N×H×W×3 RGB bytes, at their own size (instead of --images)")
	fs.CountVar(&s.N, "n", d.N, 0, maxCount, "number of images stored (the first N; 0 = all)")
	fs.CountVar(&s.Queries, "queries", d.Queries, 0, maxCount, "number of stored images to occlude and complete (the first N; 0 = all stored)")
	fs.StringVar(&s.Size, "size", d.Size, "image size HxW: images are scaled to cover it and centre-cropped")
	fs.StringVar(&s.Occlude, "occlude", d.Occlude, "occlusion: bottom:FRAC (the bottom rows), random:FRAC (random pixels), box:TOP,LEFT,H,W")
	fs.NumberVar(&s.Beta, "beta", d.Beta, positive, "> 0", "inverse temperature β (the paper's figures use 60)")
	fs.CountVar(&s.Y, "y", d.Y, 1, maxCount, "number of random projections Y (T has 2Y values with sincos; the paper's Fig. 1 uses 1.8·10⁵)")
	fs.StringVar(&s.Basis, "basis", d.Basis, "feature basis: "+features.BasisNames())
	fs.StringVar(&s.Projection, "projection", d.Projection, "random projection: structured (SORF, fastest, with the errors of iid ones: docs/projections), gaussian (iid, as the paper) or orthogonal")
	fs.StringVar(&s.Precision, "precision", d.Precision, "compute precision of DrDAM (float32 here, unlike encode's float64: about twice as fast at image sizes; MrDAM is float64)")
	fs.Uint64Var(&s.Seed, "seed", d.Seed, "seed of the projection (and of random occlusions); 0 as in encode")
	fs.NumberVar(&s.Step, "step", d.Step, positive, "> 0", "descent step η (the paper's 0.1)")
	fs.CountVar(&s.Steps, "steps", d.Steps, 1, maxCount, "descent steps L (the paper runs a fixed number: 300 for Fig. 1)")
	fs.NumberVar(&s.Tol, "tol", d.Tol, nonNegative, "≥ 0", "stop a query when its energy changes by less than this (0: run every step)")
	fs.StringVar(&s.Fill, "fill", d.Fill, "what the occluded pixels start at: zero (black, the paper's), mean (the mean of the query's visible pixels, per colour channel) or stored-mean (the mean stored image, which a DrDAM alone would not know); "+
		"zero at a high β can leave a DrDAM query under its clip floor, where it stalls (see drdam complete --help)")
	fs.BoolVar(&s.Box, "box", d.Box, "clip free pixels to the image range [0, 1/√D] after each step: drdam's improvement (without it, DrDAM's noisy gradient can carry a far query out of range for good); --box=false is the paper's plain gradient descent")
	fs.CountVar(&s.Seeds, "seeds", d.Seeds, 1, maxCount, "number of replicates: DrDAM's projection seeds are --seed + 100·i for i < N (MrDAM, deterministic, descends once); tables show the mean over seeds with its 95% interval, the CSV every seed")
	if d.FallbackCIFAR != "" {
		fs.Lookup("cifar").Usage += " (default: " + d.FallbackCIFAR + " when no --images or --tiny-imagenet is given)"
	}
	return f
}

// load loads the completion the parsed flags ask for.
func (f *imageFlags) load() (*paper.Completion, error) {
	f.spec.Images = splitList(*f.images)
	c, err := f.spec.Load()
	return c, specError(err)
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
H×W×3 pixels, each v/255/√D, so that it lies in [0, 1/√D]^D. RMSEs are
given on the occluded pixels (where the models differ) and over the whole
image; with --seeds N, as the mean over N projection seeds with its 95%
interval (rmse.csv has every seed).

The descent clips the free pixels to [0, 1/√D] after every step (--box,
on here by default): drdam's improvement. The paper descends plainly
(--box=false, the default of drdam experiment fig1), which can carry a
DrDAM query whose start is far from every stored image out of range for
good (one of fig1's photos ends as noise, ~86 gray levels from MrDAM).

The occluded pixels start black (--fill zero, the paper's). For a bright
image at a high β that start can be so far from every stored image that
DrDAM's φ(x)·T falls under its clip floor ε: there the gradient is 0 and
the query stalls, its completion the occluded query itself. The table's
"DrDAM end" column and a warning on stderr say so; --fill mean (start at
the mean of the query's visible pixels, per channel) avoids it, as does a
lower --beta, which blurs MrDAM's completions too (docs/reliability.md
has the measurements).

Example:
  drdam complete --images ~/Pictures/holiday --n 8 --occlude bottom:0.5`)
	def := paper.DefaultImageSpec()
	def.Queries, def.Box, def.Seeds = 8, true, 1
	if p := paper.Photos("tiny64"); p != "" {
		def.Images = []string{p}
	}
	f := addImageFlags(fs, def)
	out := fs.String("out", filepath.Join("out", "complete"), "output directory")
	if err := fs.parse(e, args); err != nil {
		return err
	}
	c, err := f.load()
	if err != nil {
		return err
	}
	res, err := paper.RunCompletion(c, *out, "Image completion", e.stderr)
	if err != nil {
		return err
	}
	fmt.Fprint(e.stdout, c.Text(res, *out))
	return nil
}

// runImageExperiment parses the flags of a Completion or Sweep experiment
// and runs it.
func runImageExperiment(e *env, x *paper.Experiment, args []string) (*paper.Result, error) {
	help := strings.TrimSpace(x.Help)
	if x.Kind == paper.KindCompletion || x.Kind == paper.KindCompression {
		help += "\n\nBy default it uses the photos in " + paper.SharedPhotos + "/" + x.Photos + " when they are\npresent; --images names others."
	}
	if x.Kind == paper.KindSweep {
		help += "\n\nThe grid is --betas × --ys; --beta β and --y Y are a grid of one row or one\ncolumn (--betas β, --ys Y), and may not be given with their list."
	}
	fs := newFlags("experiment "+x.Name, "", help)
	f := addImageFlags(fs, x.ImageDefaults())
	var betas, ys, ratios *string
	var query *int
	if x.Kind == paper.KindCompression {
		ratios = fs.String("ratios", joinList(x.Compression.Ratios), "comma-separated sizes of T as fractions of the memory matrix K·D (Y = ratio·K·D/2 with sincos)")
		fs.Lookup("y").Usage = "not used: " + x.Name + " sets Y from --ratios"
	}
	if x.Kind == paper.KindSweep {
		betas = fs.String("betas", joinList(x.Sweep.Betas), "comma-separated inverse temperatures β (rows)")
		ys = fs.String("ys", joinList(x.Sweep.Ys), "comma-separated numbers of random projections Y (columns)")
		query = fs.Count("query", x.Sweep.Query, 0, maxCount, "which stored image to occlude and complete (counted from 0)")
		fs.Lookup("beta").Usage = "one inverse temperature β: a grid of one row, the same as --betas β (not with --betas)"
		fs.Lookup("y").Usage = "one number of random projections Y: a grid of one column, the same as --ys Y (not with --ys)"
		fs.Lookup("queries").Usage = "not used: " + x.Name + " completes one image, chosen by --query"
		fs.Lookup("beta").DefValue, fs.Lookup("y").DefValue = "", ""
	}
	out := outFlag(fs, x.Name)
	if err := fs.parse(e, args); err != nil {
		return nil, err
	}
	var sw paper.SweepSpec
	var cs paper.CompressionSpec
	if x.Kind == paper.KindCompression {
		if flagsSet(fs)["y"] {
			return nil, usagef("--y: %s sets Y from --ratios", x.Name)
		}
		var err error
		if cs.Ratios, err = parsePositives("--ratios", *ratios); err != nil {
			return nil, err
		}
	}
	if x.Kind == paper.KindSweep {
		var err error
		if sw, err = sweepFlags(fs, f, *betas, *ys); err != nil {
			return nil, err
		}
		sw.Query = *query
	}
	c, err := f.load()
	if err != nil {
		return nil, err
	}
	var r *paper.Result
	switch x.Kind {
	case paper.KindSweep:
		pr := newProgress(e)
		r, err = paper.RunSweep(x, c, sw, *out, func(done, total int, label string) { pr.update(label, done, total) })
		pr.done()
	case paper.KindCompression:
		pr := newProgress(e)
		r, err = paper.RunCompression(x, c, cs, *out, func(done, total int, label string) { pr.update(label, done, total) })
		pr.done()
	default:
		r, err = paper.RunImageExperiment(x, c, *out, e.stderr)
	}
	if err != nil {
		return nil, specError(err)
	}
	fmt.Fprint(e.stdout, r.Text)
	return r, nil
}

// sweepFlags returns the grid of a Sweep experiment from its flags: --betas
// and --ys, or --beta and --y as grids of one row or one column (given
// with their list flag, or with --queries, which a sweep does not use, they
// are refused rather than silently ignored).
func sweepFlags(fs *flags, f *imageFlags, betas, ys string) (paper.SweepSpec, error) {
	set := flagsSet(fs)
	var sw paper.SweepSpec
	for _, p := range [][2]string{{"beta", "betas"}, {"y", "ys"}} {
		if set[p[0]] && set[p[1]] {
			return sw, usagef("--%s and --%s are exclusive: --%s V is the grid --%s V", p[0], p[1], p[0], p[1])
		}
	}
	if set["queries"] {
		return sw, usagef("--queries: %s completes one image; choose it with --query", strings.TrimPrefix(fs.name, "experiment "))
	}
	var err error
	if set["beta"] {
		sw.Betas = []float64{f.spec.Beta}
	} else if sw.Betas, err = parsePositives("--betas", betas); err != nil {
		return sw, err
	}
	if set["y"] {
		sw.Ys = []int{f.spec.Y}
	} else if sw.Ys, err = parseCounts("--ys", ys); err != nil {
		return sw, err
	}
	return sw, nil
}

// joinList joins values with commas, as a list flag's default.
func joinList[T any](v []T) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}
