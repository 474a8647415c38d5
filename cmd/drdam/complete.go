package main

import (
	"fmt"
	"path/filepath"

	"github.com/drdam/drdam/paper"
)

// runComplete is drdam complete: with --model among the arguments, the
// completion of the rows of a file (runCompleteRows); otherwise the image
// demo. Its help shows both forms, the data form first.
func runComplete(e *env, args []string) error {
	if hasFlag(args, "model") {
		return runCompleteRows(e, args)
	}
	if hasFlag(args, "help") || hasFlag(args, "h") {
		newCompleteData().fs.printUsage(e.stdout)
		fmt.Fprint(e.stdout, "\n\n")
	}
	return runCompleteImages(e, args)
}

// runCompleteImages is drdam complete's image form.
func runCompleteImages(e *env, args []string) error {
	fs := newFlags("complete", "", `
The image form (without --model): stores images in an MrDAM and in a DrDAM, occludes them (by default the
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
	ps := &paper.Params{}
	paper.ImageParams(ps, &def, &def.Images)
	bindParams(fs, ps)
	out := fs.String("out", filepath.Join("out", "complete"), "output directory")
	if err := fs.parse(e, args); err != nil {
		return withNote(err, imageFormNote)
	}
	c, err := def.Load()
	if err != nil {
		return paramUsage(err)
	}
	res, err := paper.RunCompletion(e.context(), c, *out, "Image completion", e.stderr)
	if err != nil {
		return err
	}
	fmt.Fprint(e.stdout, c.Text(res, *out))
	return nil
}
