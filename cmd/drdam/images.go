package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/imageio"
	"github.com/drdam/drdam/internal/cli"
	"github.com/drdam/drdam/serve/api"
)

func runImages(e *env, args []string) error {
	fs := newFlags("images", "", `
Turn images into patterns and back, for the files and the API: PNG/JPEG
files (or folders of them) scaled to cover --size and centre-cropped, one
image per row of H×W×3 values v/255/√D, as drdam complete reads them
(with --gray, H×W luminances: a gray memory, D three times smaller).

  --out FILE       the patterns, one image per row (.npy, .csv, ...)
  --request FILE   the JSON body of a recall (POST /v1/memories/NAME/recall)
                   of the images with --occlude hidden: the queries (hidden
                   pixels 0), the mask that clamps the visible ones, and the
                   box [0, 1/√D]
  --from FILE      instead of --images: a recall's answer (its "x" rows) or
                   a pattern file, written back as PNGs into --png-dir

Example (a memory of the shared photos, completed through the API):
  drdam images --images ../shared/data/photos/cifar32 --size 32x32 --out photos.npy
  drdam images --images ../shared/data/photos/cifar32/01_astronaut.png --size 32x32 \
               --occlude bottom:0.5 --request astronaut.json
  drdam images --from answer.json --size 32x32 --png-dir completed`)
	images := fs.String("images", "", "comma-separated PNG/JPEG files or folders of them")
	size := fs.String("size", "32x32", "image size HxW")
	out := fs.String("out", "", "pattern file to write (one image per row)")
	request := fs.String("request", "", "recall request (JSON) to write for the images, occluded")
	occlude := fs.String("occlude", "bottom:0.5", "occlusion of --request: bottom:FRAC, random:FRAC or box:TOP,LEFT,H,W")
	steps := fs.Count("max-steps", 300, 1, maxCount, "max_steps of --request")
	from := fs.String("from", "", "a recall's answer (JSON) or a pattern file, to write as PNGs")
	pngDir := fs.String("png-dir", "", "folder for the PNGs of --from")
	gray := fs.Bool("gray", false, "gray images: each pixel's luminance (0.299 R + 0.587 G + 0.114 B), D = H·W")
	if err := fs.parse(e, args); err != nil {
		return err
	}
	h, w, err := imageio.ParseSize(*size)
	if err != nil {
		return usagef("--size %v", err)
	}
	if *from != "" {
		if *pngDir == "" || *images != "" {
			return usagef("--from takes --png-dir (and no --images)")
		}
		return writePNGs(e, *from, *pngDir, h, w)
	}
	if *images == "" || *out == "" && *request == "" {
		return usagef("want --images and --out or --request (or --from and --png-dir)")
	}
	ims, err := imageio.Load(cli.SplitList(*images), h, w)
	if err != nil {
		return err
	}
	if *gray {
		for i, im := range ims {
			ims[i] = im.ToGray()
		}
	}
	x, d, err := imageio.Patterns(ims)
	if err != nil {
		return err
	}
	if *out != "" {
		if err := dataio.WriteMatrix(*out, &dataio.Matrix{Rows: len(ims), Cols: d, Data: x}); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %d images of %dx%d (D = %d) to %s\n", len(ims), h, w, d, *out)
	}
	if *request != "" {
		vis, err := imageio.ParseOcclusion(*occlude, h, w, 0)
		if err != nil {
			return usagef("--occlude %v", err)
		}
		if *gray {
			vis = imageio.ForChannels(vis, 1)
		}
		q := make([]float64, len(x))
		imageio.Apply(q, x, vis, 0)
		box := [2]float64{0, 1 / math.Sqrt(float64(d))}
		body := api.RecallRequest{Queries: api.RowsOf(q, d), Mask: vis, MaxSteps: *steps, Box: &box}
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		if err := writeText(*request, string(b)+"\n"); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote the recall of %d images with %s hidden to %s\n", len(ims), *occlude, *request)
	}
	return nil
}

// writePNGs writes the rows of a recall's answer (or of a pattern file)
// as h×w images into dir.
func writePNGs(e *env, from, dir string, h, w int) error {
	var rows [][]float64
	if strings.EqualFold(filepath.Ext(from), ".json") {
		b, err := os.ReadFile(from)
		if err != nil {
			return err
		}
		var ans api.RecallResult
		if err := json.Unmarshal(b, &ans); err != nil {
			return fmt.Errorf("%s: not a recall's answer: %w", from, err)
		}
		rows = ans.X
	} else {
		m, err := dataio.ReadMatrix(from)
		if err != nil {
			return err
		}
		rows = api.RowsOf(m.Data, m.Cols)
	}
	if len(rows) == 0 {
		return fmt.Errorf("%s: no rows", from)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, r := range rows {
		im, err := imageio.FromPattern(fmt.Sprint(i), h, w, r)
		if err != nil {
			return fmt.Errorf("%s: row %d: %w", from, i+1, err)
		}
		p := filepath.Join(dir, fmt.Sprintf("%03d.png", i))
		if err := im.SavePNG(p); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stdout, "wrote %d images to %s\n", len(rows), dir)
	return nil
}
