package dam

import (
	"fmt"

	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/kern"
)

// This file chooses how a DrDAM computes with its basis: the basis
// family (features.Family) decides the stored form of T, the elementwise
// pass of an evaluation, the pass of an update and the arithmetic of
// Merge. Each family is a type of its own file (family_trig.go,
// family_positive.go), generic over the compute precision, and the table
// families below picks one per model, once: the engine then calls its
// methods per block or per batch, never per element.

// family is what a basis family decides in float64, whatever the compute
// precision: T's stored form, its checks, Merge's arithmetic, the weights
// of an update and SubsetEnergy's sums.
type family interface {
	// emptyValue returns the stored value of an entry of T that holds
	// nothing (0, or log 0 = −Inf): the initial state.
	emptyValue() float64
	// checkScale checks the log-scale of the stored T of count > 0
	// patterns in configuration c.
	checkScale(c Config, logScale float64) error
	// tBound returns the bound that count > 0 patterns put on the stored
	// form of T in configuration c, and says how it is found.
	tBound(c Config, count uint64) (float64, string)
	// checkBound checks every value of the stored t of count > 0
	// patterns against tBound.
	checkBound(c Config, t []float64, count uint64) error
	// exportT writes T from its stored form t (with its log-scale) into
	// dst.
	exportT(dst, t []float64, logScale float64)
	// merge adds the non-empty stored T o (log-scale ol) into t
	// (log-scale ls; empty if its memory stores nothing) and returns the
	// log-scale of the result.
	merge(t []float64, ls float64, empty bool, o []float64, ol float64) float64
	// prepare turns the log-weights lw of an update of m (log w_μ, with
	// the patterns' squared norms sq) into the family's, adjusting m's
	// log-scale if it needs to; it refuses an update that cannot be
	// represented before anything is changed.
	prepare(m *DrDAM, lw, sq []float64, sign float64) error
	// laneWeights writes the weights of the memory lanes of an update
	// (len(wl) ≥ len(lw); padding lanes weigh nothing) from prepare's lw.
	laneWeights(wl, lw []float64, c Config, logScale float64)
	// subsetAdd adds projection a's terms of φ(x)·T to the per-query
	// sums out (in the family's form: sums, or their logarithms), from
	// the phases h of the queries and their squared norms xsq.
	subsetAdd(out, h, xsq, t []float64, a int, c Config)
	// subsetFinish rescales the sums by scale (Y/m) and T's log-scale.
	subsetFinish(out []float64, scale, logScale float64)
	// subsetEnergy writes the energies e from subsetFinish's sums,
	// clipped at ε as EnergyGrad does.
	subsetEnergy(e, sums []float64, c Config) error
}

// pass is the elementwise pass of an evaluation (eval) in precision T:
// the per-row work between the two products, and the combination of the
// groups' partial results. The DrDAM of a family uses its family's; the
// MrDAM's log-sum-exp over the patterns is the positive family's.
type pass[T kern.Float] interface {
	// initGroup readies group g's state for an evaluation of ev.
	initGroup(ev *eval[T], g *group[T])
	// elementwisePanel runs the pass of query panel qp over the phases hq
	// of the rows [lo, lo+n): it adds into the group's sums and leaves the
	// gradient weights in hq.
	elementwisePanel(ev *eval[T], g *group[T], hq []T, qp, lo, n int)
	// finishGroup ends a group's blocks.
	finishGroup(g *group[T])
	// combine adds the groups' sums into ev.s (and ev.m), in group order.
	combine(ev *eval[T])
	// groupScale returns the factor of group g's Z for query q, or false
	// if the group holds nothing for it.
	groupScale(ev *eval[T], g *group[T], q int) (float64, bool)
}

// familyT is a family with its computations in precision T.
type familyT[T kern.Float] interface {
	family
	pass[T]
	// params converts the stored t (for Y projections, padded to n rows)
	// into the per-row parameters of the pass.
	params(t []float64, y, n int) *rowParams[T]
	// finishEnergy writes the energies (and finishes the gradients) of the
	// queries x from the results of an evaluation ev of m.
	finishEnergy(m *DrDAM, ev *eval[T], e, grad, x, xsq []float64, floor []bool) error
	// updateBlock adds the patterns' features on the rows [lo, lo+rows)
	// of block (n rows) to the stored t, from their phases hb.
	updateBlock(u *updPass[T], bf *updBuffers[T], hb []T, lo, n, rows int)
}

// families is the table of the families DrDAM computes with, indexed by
// features.Family, in both precisions. A new family is its file and a
// line here (and its entry in features' table of bases).
var families = [...]struct {
	f32 familyT[float32]
	f64 familyT[float64]
}{
	features.Trigonometric: {trigFamily[float32]{}, trigFamily[float64]{}},
	features.Positive:      {positiveFamily[float32]{}, positiveFamily[float64]{}},
}

// familyOf returns the family of basis b, for the computations in
// float64. It panics if b has no family here (a programmer error:
// configurations are validated first).
func familyOf(b features.Basis) family { return familyIn[float64](b) }

// familyIn returns the family of basis b in precision T.
func familyIn[T kern.Float](b features.Basis) familyT[T] {
	f := int(b.Family())
	if f <= 0 || f >= len(families) || families[f].f64 == nil {
		panic(fmt.Sprintf("dam: the %v basis has no family", b))
	}
	var k any = families[f].f64
	if is32[T]() {
		k = families[f].f32
	}
	return k.(familyT[T])
}
