package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/imageio"
	"github.com/drdam/drdam/serve/api"
)

// TestImages: drdam images writes the patterns that imageio reads, a
// recall request whose queries are the images with the bottom half at 0
// and whose mask clamps the top half, and writes a recall's answer (or a
// pattern file) back as PNGs of the same levels.
func TestImages(t *testing.T) {
	dir := t.TempDir()
	writeTestImages(t, dir, 3, 8)
	pat, req := filepath.Join(dir, "p.npy"), filepath.Join(dir, "q.json")
	mustRun(t, "images", "--images", dir, "--size", "8x8", "--out", pat, "--request", req, "--max-steps", "50")
	ims, err := imageio.Load([]string{dir}, 8, 8)
	if err != nil {
		t.Fatal(err)
	}
	want, d, _ := imageio.Patterns(ims)
	m, err := dataio.ReadMatrix(pat)
	if err != nil || !slices.Equal(m.Data, want) || m.Cols != d {
		t.Fatalf("patterns: %v, want imageio's %d×%d", err, len(ims), d)
	}
	b, _ := os.ReadFile(req)
	var r struct {
		Queries  [][]float64
		Mask     []bool
		MaxSteps int `json:"max_steps"`
		Box      [2]float64
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Queries) != 3 || len(r.Mask) != d || r.MaxSteps != 50 || r.Box[1] != 1/math.Sqrt(float64(d)) {
		t.Fatalf("request: %d queries, mask of %d, max_steps %d, box %v", len(r.Queries), len(r.Mask), r.MaxSteps, r.Box)
	}
	for i, q := range r.Queries {
		for j, v := range q {
			hidden := j >= d/2 // the bottom 4 of 8 rows
			if r.Mask[j] == hidden || hidden && v != 0 || !hidden && v != want[i*d+j] {
				t.Fatalf("query %d value %d: %v (mask %v)", i, j, v, r.Mask[j])
			}
		}
	}
	ans, _ := json.Marshal(api.RecallResult{X: [][]float64{want[:d], want[d : 2*d]}})
	ansPath := filepath.Join(dir, "a.json")
	os.WriteFile(ansPath, ans, 0o644)
	for _, from := range []string{ansPath, pat} {
		out := filepath.Join(t.TempDir(), "png")
		mustRun(t, "images", "--from", from, "--size", "8x8", "--png-dir", out)
		back, err := imageio.Load([]string{filepath.Join(out, "001.png")}, 8, 8)
		if err != nil || !slices.Equal(back[0].Pix, want[d:2*d]) {
			t.Errorf("%s: image 1 back from its PNG: %v", from, err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--images", dir}, "want --images and --out or --request"},
		{[]string{"--from", ansPath}, "--from takes --png-dir"},
		{[]string{"--images", dir, "--out", pat, "--size", "8by8"}, "--size"},
		{[]string{"--images", dir, "--request", req, "--occlude", "top:1"}, "--occlude"},
		{[]string{"--from", ansPath, "--size", "4x4", "--png-dir", t.TempDir()}, "row 1"},
	} {
		st, _, errOut := drdam(t, append([]string{"images"}, c.args...)...)
		if st == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: status %d, %q; want an error with %q", c.args, st, errOut, c.want)
		}
	}
}

// TestImagesGray: drdam images --gray writes each image's luminance
// (imageio's ToGray: D = H·W), a request whose mask has H·W entries
// hiding the bottom half, and the gray rows come back as PNGs of the
// same levels.
func TestImagesGray(t *testing.T) {
	dir := t.TempDir()
	writeTestImages(t, dir, 2, 8)
	pat, req := filepath.Join(dir, "g.npy"), filepath.Join(dir, "g.json")
	mustRun(t, "images", "--images", dir, "--size", "8x8", "--gray", "--out", pat, "--request", req)
	ims, err := imageio.Load([]string{dir}, 8, 8)
	if err != nil {
		t.Fatal(err)
	}
	var want []float64
	for _, im := range ims {
		want = append(want, im.ToGray().Pix...)
	}
	m, err := dataio.ReadMatrix(pat)
	if err != nil || m.Cols != 64 || !slices.Equal(m.Data, want) {
		t.Fatalf("gray patterns: %v, %d columns; want ToGray's 64", err, m.Cols)
	}
	b, _ := os.ReadFile(req)
	var r struct{ Mask []bool }
	if err := json.Unmarshal(b, &r); err != nil || len(r.Mask) != 64 || r.Mask[31] != true || r.Mask[32] != false {
		t.Fatalf("gray request mask: %v, %v", err, r.Mask)
	}
	out := filepath.Join(t.TempDir(), "png")
	mustRun(t, "images", "--from", pat, "--size", "8x8", "--png-dir", out)
	back, err := imageio.Load([]string{filepath.Join(out, "001.png")}, 8, 8)
	if err != nil || !slices.Equal(back[0].ToGray().Pix, want[64:]) {
		t.Errorf("gray image 1 back from its PNG: %v", err)
	}
}
