package imageio

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes data to path, creating its folder.
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeJPEG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// solid returns an h×w image of one colour.
func solid(h, w int, c color.RGBA) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return img
}

// near reports whether every level of im is within tol of c.
func near(im *Image, c color.RGBA, tol int) bool {
	for i, v := range im.Levels() {
		want := []uint8{c.R, c.G, c.B}[i%3]
		if d := int(v) - int(want); d < -tol || d > tol {
			return false
		}
	}
	return true
}

func names(ims []*Image) string {
	var s []string
	for _, im := range ims {
		s = append(s, im.Name)
	}
	return strings.Join(s, " ")
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	a := randomRGB(3, 8, 6)
	writeFile(t, filepath.Join(dir, "b.png"), encodePNG(t, a))
	writeFile(t, filepath.Join(dir, "a.JPG"), encodeJPEG(t, solid(10, 10, color.RGBA{200, 40, 40, 255})))
	writeFile(t, filepath.Join(dir, "notes.txt"), []byte("not an image"))
	if err := os.MkdirAll(filepath.Join(dir, "sub.png"), 0o755); err != nil { // a folder: ignored
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sub.png", "c.png"), encodePNG(t, a)) // not recursive

	// 16-bit PNGs, gray and colour, named explicitly.
	g16 := image.NewGray16(image.Rect(0, 0, 6, 8))
	c16 := image.NewRGBA64(image.Rect(0, 0, 6, 8))
	for i := range 48 {
		g16.Pix[2*i], g16.Pix[2*i+1] = uint8(i*5), 0x80 // 16-bit value i·5·256 + 128
		c16.SetRGBA64(i%6, i/6, color.RGBA64{0xffff, 0x8080, 0x0101, 0xffff})
	}
	other := t.TempDir()
	writeFile(t, filepath.Join(other, "g16.png"), encodePNG(t, g16))
	writeFile(t, filepath.Join(other, "c16.png"), encodePNG(t, c16))

	ims, err := Load([]string{dir, filepath.Join(other, "g16.png"), filepath.Join(other, "c16.png")}, 8, 6)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(ims); got != "a b g16 c16" {
		t.Fatalf("names %q, want %q", got, "a b g16 c16")
	}
	for _, im := range ims {
		if im.H != 8 || im.W != 6 {
			t.Errorf("%s is %d×%d, want 8×6", im.Name, im.H, im.W)
		}
	}
	if !near(ims[0], color.RGBA{200, 40, 40, 255}, 3) {
		t.Errorf("the JPEG's levels %v, want about (200, 40, 40)", ims[0].Levels()[:3])
	}
	equalLevels(t, ims[1].Levels(), levelsOf(a))
	for i, v := range ims[2].Levels() {
		// round((i·5·256 + 128)·255/65535) = i·5 (the low byte 0x80 rounds down).
		if want := uint8(i / 3 * 5); v != want {
			t.Fatalf("16-bit gray: level %d is %d, want %d", i, v, want)
		}
	}
	if !near(ims[3], color.RGBA{255, 128, 1, 255}, 0) {
		t.Errorf("16-bit colour: levels %v, want (255, 128, 1)", ims[3].Levels()[:3])
	}

	// Own size.
	own, err := Load([]string{filepath.Join(dir, "a.JPG")}, 0, 0)
	if err != nil || own[0].H != 10 || own[0].W != 10 {
		t.Fatalf("Load at its own size: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	good := encodePNG(t, randomRGB(4, 16, 16))
	truncated := filepath.Join(dir, "truncated.png")
	writeFile(t, truncated, good[:len(good)/2])
	corrupt := filepath.Join(dir, "corrupt.png")
	bad := append([]byte(nil), good...)
	for i := 40; i < len(bad)-20; i++ {
		bad[i] ^= 0x5a
	}
	writeFile(t, corrupt, bad)
	text := filepath.Join(dir, "text.png")
	writeFile(t, text, []byte("hello, world"))
	var gb bytes.Buffer
	if err := gif.Encode(&gb, randomRGB(5, 4, 4), nil); err != nil {
		t.Fatal(err)
	}
	gifPath := filepath.Join(dir, "anim.gif")
	writeFile(t, gifPath, gb.Bytes())
	empty := filepath.Join(dir, "empty")
	writeFile(t, filepath.Join(empty, "readme.txt"), []byte("x"))
	missing := filepath.Join(dir, "missing.png")
	truncJPEG := filepath.Join(dir, "trunc.jpg")
	j := encodeJPEG(t, randomRGB(6, 32, 32))
	writeFile(t, truncJPEG, j[:len(j)/2])

	sos := []byte{0xff, 0xda, 0x00, 0x08} // the start of a scan: DecodeConfig stops there
	hugePNG := filepath.Join(dir, "huge.png")
	writeFile(t, hugePNG, pngHeader(100000, 100000, 8, 6, nil))
	hugeJPEG := filepath.Join(dir, "huge.jpg")
	writeFile(t, hugeJPEG, jpegHeader(65535, 65535, 3, sos))
	shortPNG := filepath.Join(dir, "short.png")
	writeFile(t, shortPNG, pngHeader(5000, 5000, 16, 6, idat([]byte{0x78, 0x9c, 0x01})))
	shortJPEG := filepath.Join(dir, "short.jpg")
	writeFile(t, shortJPEG, jpegHeader(8000, 8000, 3, sos))

	for _, tc := range []struct {
		name  string
		paths []string
		want  []string // substrings of the error
	}{
		{"huge PNG header", []string{hugePNG}, []string{"imageio: " + hugePNG + ": PNG header says 100000×100000 = 10000000000 pixels, more than the 100000000 (MaxPixels) that drdam decodes"}},
		{"huge JPEG header", []string{hugeJPEG}, []string{"imageio: " + hugeJPEG + ": JPEG header says 65535×65535 = 4294836225 pixels, more than the 100000000 (MaxPixels)"}},
		{"PNG too short for its size", []string{shortPNG}, []string{"imageio: " + shortPNG + ": truncated PNG: its header says 5000×5000 pixels, which take at least 193803 bytes (200005000 bytes of 64-bit pixel rows, compressed at most 1032:1), but the file has 48"}},
		{"JPEG too short for its size", []string{shortJPEG}, []string{"imageio: " + shortJPEG + ": truncated JPEG: its header says 8000×8000 pixels, which take at least 125000 bytes (at least 1 bit per 8×8 block), but the file has 25"}},
		{"truncated PNG", []string{truncated}, []string{truncated, "png"}},
		{"corrupt PNG", []string{corrupt}, []string{corrupt}},
		{"truncated JPEG", []string{truncJPEG}, []string{truncJPEG}},
		{"not an image", []string{text}, []string{text, "not a PNG or JPEG"}},
		{"GIF", []string{gifPath}, []string{gifPath, "GIF"}},
		{"empty folder", []string{empty}, []string{"no PNG or JPEG files in " + empty}},
		{"missing file", []string{missing}, []string{missing}},
		{"no paths", nil, []string{"no paths"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ims, err := Load(tc.paths, 8, 8)
			if err == nil {
				t.Fatalf("no error, %d images", len(ims))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// cifarRecord returns a record with label and pixel (r, c) of channel k
// equal to (k·7 + r·3 + c·5 + seed) mod 256.
func cifarRecord(label byte, seed int) []byte {
	rec := make([]byte, CIFARRecordSize)
	rec[0] = label
	for k := range 3 {
		for r := range 32 {
			for c := range 32 {
				rec[1+k*1024+r*32+c] = byte(k*7 + r*3 + c*5 + seed)
			}
		}
	}
	return rec
}

func TestLoadCIFAR(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data_batch_1.bin")
	data := append(cifarRecord(3, 0), cifarRecord(9, 100)...)
	writeFile(t, path, data)

	for _, n := range []int{0, -1, 2, 5, 1} {
		ims, labels, err := LoadCIFAR(path, n)
		if err != nil {
			t.Fatal(err)
		}
		want := 2
		if n == 1 {
			want = 1
		}
		if len(ims) != want || len(labels) != want {
			t.Fatalf("n = %d: %d images and %d labels, want %d", n, len(ims), len(labels), want)
		}
		for i, im := range ims {
			if im.H != 32 || im.W != 32 || len(im.Pix) != 3072 {
				t.Fatalf("image %d is %d×%d with %d values", i, im.H, im.W, len(im.Pix))
			}
			if wantName := "data_batch_1.bin#" + string(rune('0'+i)); im.Name != wantName {
				t.Errorf("name %q, want %q", im.Name, wantName)
			}
			if wantLabel := []int{3, 9}[i]; labels[i] != wantLabel {
				t.Errorf("label %d is %d, want %d", i, labels[i], wantLabel)
			}
			lv := im.Levels()
			for r := range 32 {
				for c := range 32 {
					for k := range 3 {
						if got, want := lv[(r*32+c)*3+k], byte(k*7+r*3+c*5+100*i); got != want {
							t.Fatalf("image %d, row %d, col %d, channel %d: %d, want %d", i, r, c, k, got, want)
						}
					}
				}
			}
			// And the pattern values are the levels scaled.
			if got, want := im.Pix[5], float64(lv[5])/255/math.Sqrt(3072); math.Abs(got-want) > 1e-17 {
				t.Errorf("value %v, want %v", got, want)
			}
		}
	}

	// The PNG of a CIFAR image holds the same pixels.
	ims, _, _ := LoadCIFAR(path, 1)
	pngPath := filepath.Join(dir, "first.png")
	if err := ims[0].SavePNG(pngPath); err != nil {
		t.Fatal(err)
	}
	back, err := Load([]string{pngPath}, 32, 32)
	if err != nil {
		t.Fatal(err)
	}
	equalLevels(t, back[0].Levels(), ims[0].Levels())
}

func TestLoadCIFARErrors(t *testing.T) {
	dir := t.TempDir()
	two := append(cifarRecord(1, 0), cifarRecord(2, 0)...)
	truncated := filepath.Join(dir, "truncated.bin")
	writeFile(t, truncated, two[:len(two)-5])
	empty := filepath.Join(dir, "empty.bin")
	writeFile(t, empty, nil)
	badLabel := filepath.Join(dir, "label.bin")
	writeFile(t, badLabel, append(cifarRecord(1, 0), cifarRecord(10, 0)...))
	for _, tc := range []struct {
		path string
		want []string
	}{
		{truncated, []string{truncated, "6141", "not a multiple", "record 1"}},
		{empty, []string{empty, "empty"}},
		{badLabel, []string{badLabel, "record 1", "label 10"}},
		{filepath.Join(dir, "missing.bin"), []string{"missing.bin"}},
	} {
		_, _, err := LoadCIFAR(tc.path, 0)
		if err == nil {
			t.Errorf("%s: no error", tc.path)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not contain %q", err, w)
			}
		}
	}
}

// tinyImageNet builds a small Tiny ImageNet tree and returns its root.
func tinyImageNet(t *testing.T) string {
	root := t.TempDir()
	red, green := color.RGBA{220, 30, 30, 255}, color.RGBA{30, 200, 60, 255}
	blue := color.RGBA{40, 60, 210, 255}
	writeFile(t, filepath.Join(root, "wnids.txt"), []byte("n002\nn001\n"))
	writeFile(t, filepath.Join(root, "train", "n002", "images", "n002_0.JPEG"), encodeJPEG(t, solid(64, 64, green)))
	writeFile(t, filepath.Join(root, "train", "n002", "n002_boxes.txt"), []byte("n002_0.JPEG\t0\t0\t63\t63\n"))
	writeFile(t, filepath.Join(root, "train", "n001", "images", "n001_1.JPEG"), encodeJPEG(t, solid(48, 80, red))) // resized
	writeFile(t, filepath.Join(root, "train", "n001", "images", "n001_0.JPEG"), encodeJPEG(t, solid(64, 64, red)))
	gray := image.NewGray(image.Rect(0, 0, 64, 64)) // a grayscale JPEG, as some of the data set's are
	for i := range gray.Pix {
		gray.Pix[i] = 90
	}
	writeFile(t, filepath.Join(root, "val", "images", "val_1.JPEG"), encodeJPEG(t, gray))
	writeFile(t, filepath.Join(root, "val", "images", "val_0.JPEG"), encodeJPEG(t, solid(64, 64, blue)))
	writeFile(t, filepath.Join(root, "val", "val_annotations.txt"), []byte("val_0.JPEG\tn001\n"))
	return root
}

func TestLoadTinyImageNet(t *testing.T) {
	root := tinyImageNet(t)
	for _, tc := range []struct {
		split string
		n     int
		want  string
	}{
		{"", 0, "n001_0 n001_1 n002_0 val_0 val_1"},
		{"train", 0, "n001_0 n001_1 n002_0"},
		{"val", 0, "val_0 val_1"},
		{"", 2, "n001_0 n001_1"},
		{"", 4, "n001_0 n001_1 n002_0 val_0"},
		{"val", 10, "val_0 val_1"},
	} {
		ims, err := LoadTinyImageNet(root, tc.split, tc.n, 0, 0)
		if err != nil {
			t.Fatalf("split %q, n = %d: %v", tc.split, tc.n, err)
		}
		if got := names(ims); got != tc.want {
			t.Errorf("split %q, n = %d: %q, want %q", tc.split, tc.n, got, tc.want)
		}
		for _, im := range ims {
			if im.H != 64 || im.W != 64 {
				t.Errorf("%s is %d×%d, want 64×64", im.Name, im.H, im.W)
			}
		}
	}
	ims, err := LoadTinyImageNet(root, "", 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []color.RGBA{{220, 30, 30, 255}, {220, 30, 30, 255}, {30, 200, 60, 255}, {40, 60, 210, 255}, {90, 90, 90, 255}} {
		if !near(ims[i], c, 4) {
			t.Errorf("%s: levels %v…, want about %v", ims[i].Name, ims[i].Levels()[:3], c)
		}
	}
	small, err := LoadTinyImageNet(root, "val", 1, 32, 32)
	if err != nil || small[0].H != 32 || small[0].W != 32 {
		t.Errorf("at 32×32: %v", err)
	}

	// Only one split present.
	if err := os.RemoveAll(filepath.Join(root, "val")); err != nil {
		t.Fatal(err)
	}
	if ims, err := LoadTinyImageNet(root, "", 0, 0, 0); err != nil || len(ims) != 3 {
		t.Errorf("without val: %d images, %v", len(ims), err)
	}
}

func TestLoadTinyImageNetErrors(t *testing.T) {
	root := tinyImageNet(t)
	if err := os.RemoveAll(filepath.Join(root, "val")); err != nil {
		t.Fatal(err)
	}
	emptyRoot := t.TempDir()
	if err := os.MkdirAll(filepath.Join(emptyRoot, "train", "n001", "images"), 0o755); err != nil {
		t.Fatal(err)
	}
	corruptRoot := t.TempDir()
	bad := filepath.Join(corruptRoot, "val", "images", "val_0.JPEG")
	writeFile(t, bad, []byte("\xff\xd8\xff garbage"))
	for _, tc := range []struct {
		root, split string
		want        []string
	}{
		{root, "test", []string{`"test"`}},
		{root, "val", []string{filepath.Join(root, "val")}},
		{t.TempDir(), "", []string{"not a Tiny ImageNet folder"}},
		{emptyRoot, "", []string{"no PNG or JPEG files in " + filepath.Join(emptyRoot, "train")}},
		{corruptRoot, "", []string{bad}},
	} {
		_, err := LoadTinyImageNet(tc.root, tc.split, 0, 0, 0)
		if err == nil {
			t.Errorf("%s, split %q: no error", tc.root, tc.split)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not contain %q", err, w)
			}
		}
	}
}

func TestPatterns(t *testing.T) {
	a := &Image{Name: "a", H: 1, W: 2, Pix: []float64{1, 2, 3, 4, 5, 6}}
	b := &Image{Name: "b", H: 1, W: 2, Pix: []float64{7, 8, 9, 10, 11, 12}}
	x, d, err := Patterns([]*Image{a, b})
	if err != nil || d != 6 || len(x) != 12 || x[0] != 1 || x[6] != 7 || x[11] != 12 {
		t.Fatalf("Patterns = %v, %d, %v", x, d, err)
	}
	c := &Image{Name: "c", H: 2, W: 1, Pix: make([]float64, 6)}
	for _, tc := range []struct {
		ims  []*Image
		want string
	}{
		{nil, "no images"},
		{[]*Image{a, c}, `image 1 ("c") is 2×1`},
		{[]*Image{a, nil}, "image 1 is nil"},
		{[]*Image{{H: 1, W: 2, Pix: make([]float64, 5)}}, "malformed"},
	} {
		if _, _, err := Patterns(tc.ims); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Patterns: error %v, want one containing %q", err, tc.want)
		}
	}
}
