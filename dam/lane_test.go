package dam

import (
	"fmt"
	"math"
	"testing"

	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/cpuid"
	"github.com/drdam/drdam/internal/kern"
)

// TestOneLane: a query alone in its query panel (a batch of one, or the
// last of a batch of L+1), whose trigonometric pass takes its lane alone
// (vmath.TrigLane32, TrigLane64), gets bit for bit the energy and gradient
// it gets in a full panel, for the trigonometric bases, every projection,
// both precisions, at every kernel level.
func TestOneLane(t *testing.T) {
	const d, k, y = 40, 17, 1500
	defer cpuid.Set(cpuid.Current())
	for _, prec := range []Precision{Float64, Float32} {
		l := kern.Lanes[float64]()
		if prec == Float32 {
			l = kern.Lanes[float32]()
		}
		xi, xs := grayQueries(77, k, l+1, d, 0.3)
		for _, basis := range allBases {
			if !basis.Trig() {
				continue
			}
			for _, proj := range features.ProjectionKinds() {
				m := mustDrDAM(t, Config{D: d, Beta: 20, Y: y, Basis: basis, Projection: proj, Seed: 3, Precision: prec}, xi)
				for _, lv := range cpuid.Supported() {
					cpuid.Set(lv)
					name := fmt.Sprintf("%v %v %v %v", lv, prec, basis, proj)
					eAll, gAll := energies(t, m, xs) // L+1 queries: a full panel, then one alone
					eFull, gFull := energies(t, m, xs[:l*d])
					for q := range l + 1 {
						e1, g1 := energies(t, m, xs[q*d:(q+1)*d]) // alone
						want, wantG := eAll[q], gAll[q*d:(q+1)*d]
						if q < l {
							want, wantG = eFull[q], gFull[q*d:(q+1)*d]
							if eAll[q] != want {
								t.Fatalf("%s: query %d: E %v in a batch of %d, %v in one of %d", name, q, eAll[q], l+1, want, l)
							}
						}
						if math.Float64bits(e1[0]) != math.Float64bits(want) {
							t.Fatalf("%s: query %d: E %v alone, %v in a batch", name, q, e1[0], want)
						}
						for i, v := range g1 {
							if math.Float64bits(v) != math.Float64bits(wantG[i]) {
								t.Fatalf("%s: query %d: ∂E/∂x[%d] %v alone, %v in a batch", name, q, i, v, wantG[i])
							}
						}
					}
				}
			}
		}
	}
}
