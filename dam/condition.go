package dam

import (
	"fmt"
	"math"
)

// ConditionBeta returns the smallest inverse temperature β in [lo, hi] at
// which every one of the K stored patterns (patterns, K×D row-major) is a
// fixed point of the MrDAM energy that stores them (eq. div-en, the L2
// energy): ‖∇E(ξ^μ)‖ ≤ tol for every μ, where ∇E(ξ^μ) = ξ^μ − Σ_ν
// softmax_ν(−β/2‖ξ^μ − ξ^ν‖²) ξ^ν. It is the paper's reference code's
// condition_beta_on_memories, without its optional check of the Hessian,
// and finds β by bisection on log β until hi/lo < 1 + rtol (rtol = 1e-6),
// assuming, as the reference does, that once the patterns are fixed points
// they stay so at larger β (each stored pattern's own term dominates its
// softmax more and more). If lo already makes them fixed points it
// returns lo; if hi does not, an error that gives the largest gradient
// norm at hi. Two equal patterns are fixed points at any β.
//
// It evaluates the energy of the K patterns at about 40 values of β:
// O(K²·D) each, in float64.
func ConditionBeta(patterns []float64, d int, lo, hi, tol float64) (float64, error) {
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 0) {
		return 0, fmt.Errorf("ConditionBeta: want 0 < lo ≤ hi < ∞, found lo = %v, hi = %v", lo, hi)
	}
	if !(tol > 0) {
		return 0, fmt.Errorf("ConditionBeta: want a tolerance > 0, found %v", tol)
	}
	m, err := NewMrDAM(Config{D: d, Beta: lo})
	if err != nil {
		return 0, err
	}
	if err := m.Add(patterns); err != nil {
		return 0, err
	}
	k := m.Len()
	e, g := make([]float64, k), make([]float64, k*d)
	// worst returns the largest ‖∇E(ξ^μ)‖ at β.
	worst := func(beta float64) (float64, error) {
		m.cfg.Beta = beta
		m.eng.invalidate()
		if err := m.EnergyGrad(e, g, patterns); err != nil {
			return 0, err
		}
		var w float64
		for mu := range k {
			var s float64
			for _, v := range g[mu*d : (mu+1)*d] {
				s += v * v
			}
			w = max(w, math.Sqrt(s))
		}
		return w, nil
	}
	w, err := worst(lo)
	if err != nil || w <= tol {
		return lo, err
	}
	if w, err = worst(hi); err != nil {
		return 0, err
	}
	if w > tol {
		return 0, fmt.Errorf("ConditionBeta: at β = %g the largest gradient at a stored pattern is %.3g, more than %g: the patterns are not fixed points in [%g, %g]", hi, w, tol, lo, hi)
	}
	const rtol = 1e-6
	for hi/lo > 1+rtol {
		mid := math.Sqrt(lo * hi)
		w, err := worst(mid)
		if err != nil {
			return 0, err
		}
		if w <= tol {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}
