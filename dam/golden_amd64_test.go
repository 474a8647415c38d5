//go:build amd64 && !amd64.v3

package dam

import (
	"math"
	"testing"

	"github.com/drdam/drdam/features"
)

// goldenT pins entries of the T of TestGoldenT, computed with the portable
// kernels, for each generator (produced by this package when it was
// written, and when generator version 2 was added; Go 1.26.8 on amd64).
var goldenT = map[features.Generator][]struct {
	i    int
	bits uint64
}{
	features.GeneratorV1: {{0, 0x3fc912e6c3ed1158}, {1, 0xbfcd4d097b91e722}, {63, 0xbfc0dd5209b3ad18}, {64, 0xbfe0cb9e65320d3f}, {127, 0xbfb5c13800d99751}},
	features.GeneratorV2: {{0, 0x3fd795bd9c207e7c}, {1, 0xbfbaed740b80f62c}, {63, 0xbfc23d9ce8526720}, {64, 0x3fcfe5e71af2617a}, {127, 0x3fd66f601e10216d}},
}

func checkGoldenT(t *testing.T, gen features.Generator, tv []float64) {
	for _, g := range goldenT[gen] {
		if got := math.Float64bits(tv[g.i]); got != g.bits {
			t.Errorf("generator %v: T[%d] = %v (bits %#x), want %v (bits %#x)", gen, g.i, tv[g.i], got, math.Float64frombits(g.bits), g.bits)
		}
	}
}
