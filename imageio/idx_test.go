package imageio

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// idxBytes returns an IDX file of unsigned bytes of shape dims.
func idxBytes(dims []uint32, pix func(i int) byte) []byte {
	var b bytes.Buffer
	b.Write([]byte{0, 0, 0x08, byte(len(dims))})
	n := 1
	for _, d := range dims {
		binary.Write(&b, binary.BigEndian, d)
		n *= int(d)
	}
	for i := range n {
		b.WriteByte(pix(i))
	}
	return b.Bytes()
}

// TestLoadIDX reads gray (N×H×W) and RGB (N×H×W×3) IDX files, plain and
// compressed: levels v/255/√D in H×W×C order, named NAME#i, the first n;
// the gray images draw as gray RGBA pixels and round-trip through
// FromPattern; files that are not images are errors naming their shape.
func TestLoadIDX(t *testing.T) {
	dir := t.TempDir()
	pix := func(i int) byte { return byte(i * 7) }
	gray := idxBytes([]uint32{5, 2, 3}, pix)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(gray)
	zw.Close()
	files := map[string][]byte{
		"g-idx3-ubyte":    gray,
		"g-idx3-ubyte.gz": z.Bytes(),
		"c-idx4-ubyte":    idxBytes([]uint32{2, 2, 3, 3}, pix),
		"v-idx1-ubyte":    idxBytes([]uint32{6}, pix),
		"w-idx4-ubyte":    idxBytes([]uint32{1, 2, 2, 2}, pix),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		file    string
		n, want int
		h, w, c int
	}{
		{"g-idx3-ubyte", 0, 5, 2, 3, 1},
		{"g-idx3-ubyte.gz", 3, 3, 2, 3, 1},
		{"c-idx4-ubyte", 0, 2, 2, 3, 3},
	} {
		ims, err := LoadIDX(filepath.Join(dir, tc.file), tc.n)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if len(ims) != tc.want {
			t.Fatalf("%s: %d images, want %d", tc.file, len(ims), tc.want)
		}
		d := tc.h * tc.w * tc.c
		s := 1 / (255 * math.Sqrt(float64(d)))
		for i, im := range ims {
			if im.H != tc.h || im.W != tc.w || im.C() != tc.c || im.D() != d || !strings.HasSuffix(im.Name, "#"+string(rune('0'+i))) {
				t.Fatalf("%s: image %d is %q %d×%d×%d", tc.file, i, im.Name, im.H, im.W, im.C())
			}
			for j, v := range im.Pix {
				if want := float64(pix(i*d+j)) * s; v != want {
					t.Fatalf("%s: image %d value %d = %v, want %v", tc.file, i, j, v, want)
				}
			}
			// Levels and RGBA give back the bytes; a gray level is drawn
			// in all three channels.
			lv := im.Levels()
			rgba := im.RGBA()
			for p := range tc.h * tc.w {
				for k := range 3 {
					if got, want := rgba.Pix[4*p+k], lv[p*tc.c+k%tc.c]; got != want || want != pix(i*d+p*tc.c+k%tc.c) {
						t.Fatalf("%s: image %d pixel %d channel %d: RGBA %d, level %d, byte %d", tc.file, i, p, k, got, want, pix(i*d+p*tc.c+k%tc.c))
					}
				}
			}
			back, err := FromPattern(im.Name, im.H, im.W, im.Pix)
			if err != nil || back.Gray != im.Gray || !slices.Equal(back.Pix, im.Pix) {
				t.Fatalf("%s: FromPattern: %v, %+v", tc.file, err, back)
			}
		}
		if _, _, err := Patterns(ims); err != nil {
			t.Errorf("%s: Patterns: %v", tc.file, err)
		}
	}
	for _, tc := range []struct{ file, want string }{
		{"v-idx1-ubyte", "found unsigned byte values of shape 6"},
		{"w-idx4-ubyte", "shape 1×2×2×2"},
		{"missing-idx3-ubyte", "no such file"},
	} {
		if _, err := LoadIDX(filepath.Join(dir, tc.file), 0); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.file, err, tc.want)
		}
	}
	g, _ := LoadIDX(filepath.Join(dir, "g-idx3-ubyte"), 1)
	c, _ := LoadIDX(filepath.Join(dir, "c-idx4-ubyte"), 1)
	if _, _, err := Patterns(append(g, c...)); err == nil || !strings.Contains(err.Error(), "2×3×1") {
		t.Errorf("Patterns of a gray and an RGB image: %v", err)
	}
}

// TestLoadIDXClaim: a compressed file whose header declares 2^27 images
// of 1×1 pixel in 150 KB of incompressible data (which deflate could
// expand to 155 MB, so its size does not refuse it) is read image by image
// until its data ends: an error naming the file, after allocating about
// what the images that arrived take (LoadIDX sized its slice by the
// header, 1 GiB of pointers, before reading any).
func TestLoadIDXClaim(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	raw := []byte{0, 0, 8, 3, 8, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1} // 2^27×1×1
	for range 150_000 {
		raw = append(raw, byte(rng.Uint32()))
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(raw)
	zw.Close()
	p := filepath.Join(t.TempDir(), "claim-idx3-ubyte.gz")
	if err := os.WriteFile(p, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := LoadIDX(p, 0)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), p+": truncated: the IDX header declares 134217728×1×1 unsigned byte values (134217728 bytes), the data ends after 150000 values (row 150001)") {
		t.Errorf("error %v", err)
	}
	// 150000 images of 1 value: each an Image, its name and its pixel
	// (under 200 bytes), and the slice of them grown by append.
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("allocated %d MiB, want under 64 MiB", got>>20)
	}
}

// TestForChannels: a gray mask hides the pixels that the RGB mask hides.
func TestForChannels(t *testing.T) {
	m := OccludeBox(3, 4, 1, 1, 2, 2)
	g := ForChannels(m, 1)
	if len(g) != 12 {
		t.Fatalf("len %d", len(g))
	}
	for p := range 12 {
		if g[p] != m[3*p] || m[3*p] != m[3*p+1] || m[3*p] != m[3*p+2] {
			t.Errorf("pixel %d: gray %v, RGB %v", p, g[p], m[3*p:3*p+3])
		}
	}
	if Hidden(g)*3 != Hidden(m) || !slices.Equal(ForChannels(m, 3), m) {
		t.Errorf("hidden %d of gray, %d of RGB", Hidden(g), Hidden(m))
	}
}
