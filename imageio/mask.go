package imageio

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/drdam/drdam/internal/rng"
)

// checkSize panics unless h and w are positive.
func checkSize(fn string, h, w int) {
	if h <= 0 || w <= 0 {
		panic(fmt.Sprintf("imageio: %s: image size %d×%d is not positive", fn, h, w))
	}
}

// checkFrac panics unless frac is in [0, 1].
func checkFrac(fn string, frac float64) {
	if !(frac >= 0 && frac <= 1) {
		panic(fmt.Sprintf("imageio: %s: fraction %v is not in [0, 1]", fn, frac))
	}
}

// visibleMask returns a mask of h·w·3 coordinates, all visible.
func visibleMask(h, w int) []bool {
	m := make([]bool, h*w*Channels)
	for i := range m {
		m[i] = true
	}
	return m
}

// hidePixel marks the three channels of pixel p (= r·W + c) occluded.
func hidePixel(m []bool, p int) {
	m[p*Channels], m[p*Channels+1], m[p*Channels+2] = false, false, false
}

// OccludeBottom returns a mask of length D = h·w·3 (H×W×C order, true =
// visible) hiding the bottom round(frac·h) rows (halves rounded away from
// zero): frac = 2/3 for the paper's Fig. 1, 0.4 or 0.6 for Fig. 2, 0.5 for
// Fig. 4B. It panics if h or w is not positive or frac is not in [0, 1].
func OccludeBottom(h, w int, frac float64) []bool {
	checkSize("OccludeBottom", h, w)
	checkFrac("OccludeBottom", frac)
	m := visibleMask(h, w)
	rows := int(math.Round(frac * float64(h)))
	for i := (h - rows) * w * Channels; i < len(m); i++ {
		m[i] = false
	}
	return m
}

// OccludeRandom returns a mask of length D = h·w·3 (H×W×C order, true =
// visible) hiding round(frac·h·w) pixels chosen uniformly at random without
// replacement (all three channels of each). The choice is a partial
// Fisher–Yates shuffle driven by internal/rng's stream (seed, rng.StreamOcclusion), so it
// is the same for the same seed on every machine. It panics if h or w is not
// positive or frac is not in [0, 1].
func OccludeRandom(seed uint64, h, w int, frac float64) []bool {
	checkSize("OccludeRandom", h, w)
	checkFrac("OccludeRandom", frac)
	n := h * w
	k := int(math.Round(frac * float64(n)))
	m := visibleMask(h, w)
	s := rng.New(seed, rng.StreamOcclusion)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	for i := range k {
		j := i + int(uniform(s, uint64(n-i)))
		perm[i], perm[j] = perm[j], perm[i]
		hidePixel(m, perm[i])
	}
	return m
}

// uniform returns a uniform integer in [0, n), n > 0, by Lemire's
// multiply-and-reject method (unbiased).
func uniform(s *rng.Stream, n uint64) uint64 {
	hi, lo := bits.Mul64(s.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(s.Uint64(), n)
		}
	}
	return hi
}

// OccludeBox returns a mask of length D = h·w·3 (H×W×C order, true =
// visible) hiding the pixels of rows top … top+bh−1 and columns
// left … left+bw−1. The box is clipped to the image: a box that extends past
// an edge hides only its part inside the image, and a box entirely outside
// (or with bh ≤ 0 or bw ≤ 0) hides nothing. It panics if h or w is not
// positive.
func OccludeBox(h, w, top, left, bh, bw int) []bool {
	checkSize("OccludeBox", h, w)
	m := visibleMask(h, w)
	if bh <= 0 || bw <= 0 {
		return m
	}
	// Clip without computing top+bh or left+bw when they could overflow.
	r0, c0 := max(top, 0), max(left, 0)
	r1, c1 := h, w
	if top < h && bh < h-top {
		r1 = top + bh
	}
	if left < w && bw < w-left {
		c1 = left + bw
	}
	for r := r0; r < r1; r++ {
		for c := c0; c < c1; c++ {
			hidePixel(m, r*w+c)
		}
	}
	return m
}

// ForChannels returns the mask of images of c channels (1: gray, 3: RGB)
// that hides the pixels that mask, a mask of this package's H×W×3 form,
// hides: for c = 1, the first channel of each pixel's three. It panics if
// c is not 1 or 3 or len(mask) is not a multiple of 3.
func ForChannels(mask []bool, c int) []bool {
	if c != 1 && c != Channels || len(mask)%Channels != 0 {
		panic(fmt.Sprintf("imageio: ForChannels: %d channels of a mask of %d values; want 1 or 3, of a multiple of 3", c, len(mask)))
	}
	if c == Channels {
		return mask
	}
	out := make([]bool, len(mask)/Channels)
	for p := range out {
		out[p] = mask[p*Channels]
	}
	return out
}

// Hidden returns the number of occluded (false) entries of mask; for a pixel
// mask from this package it is 3 × the number of hidden pixels.
func Hidden(mask []bool) int {
	n := 0
	for _, v := range mask {
		if !v {
			n++
		}
	}
	return n
}

// Apply writes x with its occluded coordinates set to fill (the paper uses
// 0, black) into dst: dst[i] = x[i] where the mask is true, fill where it is
// false. x may be one pattern of length D = len(visible) or a B×D row-major
// batch, the mask applying to every row; dst may be x itself. It panics if
// len(dst) ≠ len(x) or len(x) is not a multiple of len(visible).
func Apply(dst, x []float64, visible []bool, fill float64) {
	d := len(visible)
	if len(dst) != len(x) || d == 0 || len(x)%d != 0 {
		panic(fmt.Sprintf("imageio: Apply: len(dst) = %d, len(x) = %d, len(visible) = %d; want len(dst) = len(x), a multiple of len(visible) > 0",
			len(dst), len(x), d))
	}
	for i, v := range x {
		if visible[i%d] {
			dst[i] = v
		} else {
			dst[i] = fill
		}
	}
}

// ParseSize parses an image size written "HxW" (or one number for a
// square), with 1 ≤ H, W ≤ 4096. Its errors start with the quoted value.
func ParseSize(s string) (h, w int, err error) {
	a, b, ok := strings.Cut(strings.ToLower(s), "x")
	if !ok {
		b = a
	}
	h, err1 := strconv.Atoi(strings.TrimSpace(a))
	w, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || h < 1 || w < 1 || h > 4096 || w > 4096 {
		return 0, 0, fmt.Errorf("%q: want HxW with 1 ≤ H, W ≤ 4096, e.g. 64x64", s)
	}
	return h, w, nil
}

// ParseOcclusion returns the visibility mask of h×w images for an
// occlusion written bottom:FRAC (OccludeBottom), random:FRAC
// (OccludeRandom, drawn from seed) or box:TOP,LEFT,H,W (OccludeBox). Its
// errors start with the quoted value.
func ParseOcclusion(s string, h, w int, seed uint64) ([]bool, error) {
	kind, arg, _ := strings.Cut(strings.ToLower(strings.TrimSpace(s)), ":")
	frac := func() (float64, error) {
		v, err := strconv.ParseFloat(arg, 64)
		if err != nil || !(v >= 0 && v <= 1) {
			return 0, fmt.Errorf("%q: want a fraction in [0, 1] after \"%s:\"", s, kind)
		}
		return v, nil
	}
	switch kind {
	case "bottom", "random":
		f, err := frac()
		if err != nil {
			return nil, err
		}
		if kind == "bottom" {
			return OccludeBottom(h, w, f), nil
		}
		return OccludeRandom(seed, h, w, f), nil
	case "box":
		var v []int
		for _, f := range strings.Split(arg, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%q: want box:TOP,LEFT,H,W with non-negative integers", s)
			}
			v = append(v, n)
		}
		if len(v) != 4 || v[0] >= h || v[1] >= w || v[2] < 1 || v[3] < 1 {
			return nil, fmt.Errorf("%q: want box:TOP,LEFT,H,W inside the %dx%d image", s, h, w)
		}
		return OccludeBox(h, w, v[0], v[1], v[2], v[3]), nil
	}
	return nil, fmt.Errorf("%q: want bottom:FRAC, random:FRAC or box:TOP,LEFT,H,W", s)
}
