package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/csv"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/drdam/drdam/dataio"
)

// writeIDX writes n images of h×w unsigned bytes in MNIST's IDX format,
// gzip-compressed if the name ends in .gz, and returns the path.
func writeIDX(t *testing.T, dir, name string, n, h, w int, pix func(i, r, c int) byte) string {
	t.Helper()
	var b bytes.Buffer
	b.Write([]byte{0, 0, 0x08, 3})
	for _, d := range []uint32{uint32(n), uint32(h), uint32(w)} {
		binary.Write(&b, binary.BigEndian, d)
	}
	for i := range n {
		for r := range h {
			for c := range w {
				b.WriteByte(pix(i, r, c))
			}
		}
	}
	data := b.Bytes()
	if strings.HasSuffix(name, ".gz") {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(data)
		zw.Close()
		data = z.Bytes()
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestIDXWorkflow: MNIST-format files load in encode and recall without
// conversion: 5 binary-ish 4×4 images stored from a compressed IDX file,
// recalled from an uncompressed one holding the same images with a pixel
// flipped each; every query falls back into its image (pixel values
// v/255/√D, so β = 64 here is β = 4 on pixels in [0, 1]).
func TestIDXWorkflow(t *testing.T) {
	dir := t.TempDir()
	img := func(i, r, c int) byte {
		if (r*4+c+i)%5 == 0 || (r*4+c)%(i+2) == 0 {
			return 255
		}
		return 0
	}
	pat := writeIDX(t, dir, "train-images-idx3-ubyte.gz", 5, 4, 4, img)
	qs := writeIDX(t, dir, "t10k-images-idx3-ubyte", 5, 4, 4, func(i, r, c int) byte {
		if r == 0 && c == i {
			return 255 - img(i, r, c)
		}
		return img(i, r, c)
	})
	for _, rep := range []string{"mrdam", "drdam"} {
		m := filepath.Join(dir, rep+".model")
		args := []string{"encode", "--patterns", pat, "--out", m, "--rep", rep, "--beta", "64"}
		if rep == "drdam" {
			args = append(args, "--y", "20000", "--seed", "1")
		}
		mustRun(t, args...)
		if out := mustRun(t, "info", "--model", m); !strings.Contains(out, "patterns K      5") || !strings.Contains(out, "16") {
			t.Errorf("%s info: %s", rep, out)
		}
		fin := filepath.Join(dir, rep+"-final.npy")
		mustRun(t, "recall", "--model", m, "--queries", qs, "--out", fin, "--max-steps", "500")
		x, err := dataio.ReadMatrix(fin)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			for j := range 16 {
				want := float64(img(i, j/4, j%4)) / 255 / 4 // v/255/√D, D = 16
				// A retrieved pixel is within a fifth of the pixel range
				// (0.25) of its image's: the queries start a whole range
				// away at one pixel.
				if d := math.Abs(x.Data[i*16+j] - want); d > 0.05 {
					t.Errorf("%s: query %d pixel %d = %.3f, its image's %v", rep, i, j, x.Data[i*16+j], want)
				}
			}
		}
	}
}

// TestCompleteIDX: drdam complete reads gray MNIST-format images from an
// IDX file at their own size (the --size default of 64×64 does not
// apply): 4 of 6 distinct 10×10 images with the bottom half hidden,
// started from the mean of their visible pixels. MrDAM and DrDAM restore
// each image: RMSE on the hidden half under 20 gray levels (the images
// are far apart at β = 60; measured ≤ 1.7 for MrDAM and ≤ 3.7 for
// DrDAM with Y = 20000).
func TestCompleteIDX(t *testing.T) {
	dir := t.TempDir()
	pat := writeIDX(t, dir, "train-images-idx3-ubyte.gz", 6, 10, 10, func(i, r, c int) byte {
		if (r+c*(i+1))%(i+3) < 2 {
			return 255
		}
		return byte(20 * i)
	})
	out := filepath.Join(dir, "out")
	stdout := mustRun(t, "complete", "--idx", pat, "--queries", "4", "--occlude", "bottom:0.5", "--y", "20000", "--steps", "150", "--fill", "mean", "--out", out)
	if !strings.Contains(stdout, "train-images-idx3-ubyte#3") || strings.Contains(stdout, "#4") {
		t.Errorf("stdout:\n%s", stdout)
	}
	recs := readCSV(t, filepath.Join(out, "rmse.csv"))
	if len(recs) != 5 {
		t.Fatalf("rmse.csv: %d records, want a header and 4 rows", len(recs))
	}
	for _, name := range []string{"rmse_mrdam_original_occluded", "rmse_drdam_original_occluded"} {
		col := slices.Index(recs[0], name)
		for _, r := range recs[1:] {
			if v, err := strconv.ParseFloat(r[col], 64); err != nil || v > 20 {
				t.Errorf("%s: %s %q", r[2], name, r[col])
			}
		}
	}
	f, err := os.Open(filepath.Join(out, "grid.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Error(err)
	}
}

// readCSV reads every record of a CSV file.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}
