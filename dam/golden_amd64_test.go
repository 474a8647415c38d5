//go:build amd64 && !amd64.v3

package dam

import (
	"math"
	"testing"
)

// goldenT pins entries of the T of TestGoldenT, computed with the portable
// kernels (produced by this package when it was written, Go 1.26.8 on
// amd64).
var goldenT = []struct {
	i    int
	bits uint64
}{{0, 0x3fc912e6c3ed1158}, {1, 0xbfcd4d097b91e722}, {63, 0xbfc0dd5209b3ad18}, {64, 0xbfe0cb9e65320d3f}, {127, 0xbfb5c13800d99751}}

func checkGoldenT(t *testing.T, tv []float64) {
	for _, g := range goldenT {
		if got := math.Float64bits(tv[g.i]); got != g.bits {
			t.Errorf("T[%d] = %v (bits %#x), want %v (bits %#x)", g.i, tv[g.i], got, math.Float64frombits(g.bits), g.bits)
		}
	}
}
