package synth

import (
	"fmt"
	"math"

	"github.com/drdam/drdam/internal/rng"
)

// Binary returns n distinct random patterns in {0, 1/√d}^d, each coordinate
// 1/√d with probability ½, row-major (n×d). Pattern r depends only on
// (seed, r) and on the earlier patterns it had to differ from. It returns an
// error if n exceeds the 2^d possible patterns.
func Binary(seed uint64, n, d int) ([]float64, error) {
	if n <= 0 || d <= 0 {
		return nil, fmt.Errorf("synth: want n > 0 and d > 0, found n = %d, d = %d", n, d)
	}
	if d < 63 && uint64(n) > uint64(1)<<d {
		return nil, fmt.Errorf("synth: cannot draw %d distinct binary patterns of dimension %d (only 2^%d exist)", n, d, d)
	}
	v := 1 / math.Sqrt(float64(d))
	x := make([]float64, n*d)
	seen := make(map[string]bool, n)
	key := make([]byte, (d+7)/8)
	var s rng.Stream
	for r := range n {
		s.Reset(seed, rng.StreamBinary|uint64(r))
		row := x[r*d : (r+1)*d]
		for {
			clear(key)
			var bits uint64
			for i := range row {
				if i%64 == 0 {
					bits = s.Uint64()
				}
				row[i] = 0
				if bits&1 == 1 {
					row[i] = v
					key[i/8] |= 1 << (i % 8)
				}
				bits >>= 1
			}
			if !seen[string(key)] {
				seen[string(key)] = true
				break
			}
		}
	}
	return x, nil
}

// Flip returns a copy of the patterns x (n×d, binary in {0, 1/√d}) in which
// exactly round(frac·d) distinct coordinates of each row are flipped
// between 0 and 1/√d: the paper's "near" queries (frac = 0.1).
func Flip(seed uint64, x []float64, d int, frac float64) ([]float64, error) {
	if d <= 0 || len(x)%d != 0 {
		return nil, fmt.Errorf("synth: %d values are not rows of dimension %d", len(x), d)
	}
	if !(frac >= 0 && frac <= 1) {
		return nil, fmt.Errorf("synth: flip fraction %v outside [0, 1]", frac)
	}
	k := int(math.Round(frac * float64(d)))
	v := 1 / math.Sqrt(float64(d))
	out := append([]float64(nil), x...)
	perm := make([]int, d)
	var s rng.Stream
	for r := range len(x) / d {
		s.Reset(seed, rng.StreamFlip|uint64(r))
		for i := range perm {
			perm[i] = i
		}
		// The first k entries of a Fisher–Yates shuffle: k distinct indices.
		for i := range k {
			j := i + int(s.Uint64()%uint64(d-i))
			perm[i], perm[j] = perm[j], perm[i]
			c := r*d + perm[i]
			out[c] = v - out[c]
			if math.Abs(out[c]) < v/2 {
				out[c] = 0
			} else {
				out[c] = v
			}
		}
	}
	return out, nil
}

// Gray returns n random gray patterns of dimension d, row-major (n×d):
// every coordinate uniform in [0, 1/√d), drawn in order from the stream
// (seed, rng.StreamGray). They are the memories of the peers' benchmark
// configurations b, c and cfull (bench.py draws its own with numpy).
func Gray(seed uint64, n, d int) ([]float64, error) {
	if n <= 0 || d <= 0 {
		return nil, fmt.Errorf("synth: want n > 0 and d > 0, found n = %d, d = %d", n, d)
	}
	x := make([]float64, n*d)
	s, v := rng.New(seed, rng.StreamGray), 1/math.Sqrt(float64(d))
	for i := range x {
		x[i] = s.Float64() * v
	}
	return x, nil
}
