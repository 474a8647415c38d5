package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
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
