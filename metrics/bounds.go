package metrics

import (
	"fmt"
	"math"
)

// BoundParams are the quantities of Theorem 1 and Corollary 1.
type BoundParams struct {
	C1   float64 // kernel approximation constant of assumption (A2): |k − φ·φ| ≤ C1·√(D/Y)
	K    int     // number of memories
	D    int     // dimension
	Y    int     // number of random features
	Beta float64 // inverse temperature β
	E0   float64 // energy E(x) of the initial query under MrDAM
}

func (p BoundParams) check() error {
	if !(p.C1 > 0) || p.K <= 0 || p.D <= 0 || p.Y <= 0 || !(p.Beta > 0) || math.IsNaN(p.E0) {
		return fmt.Errorf("bound parameters out of range: %+v (want C1, K, D, Y, β > 0 and E0 a number)", p)
	}
	return nil
}

// lipschitz returns B = 1 + 2Kβe^{β/2}, the Lipschitz constant of the
// MrDAM gradient on [0, 1/√D]^D (Lemma 2 of the appendix).
func (p BoundParams) lipschitz() float64 {
	return 1 + 2*float64(p.K)*p.Beta*math.Exp(p.Beta/2)
}

// Theorem1Bound returns the right side of eq. div-ub: a bound on the
// divergence ‖x^(L) − x̂^(L)‖₂ between L steps of MrDAM and DrDAM descent
// with step η,
//
//	2ηL·C1·K·e^{βE0}·√(D/Y) · (1 − (ηLB)^L) / (1 − ηLB),  B = 1 + 2Kβe^{β/2},
//
// where the last factor is L when ηLB = 1. It is +Inf when the terms
// overflow, which happens for large β or when ηLB > 1 and L is large: the
// bound is then vacuous.
func Theorem1Bound(p BoundParams, eta float64, l int) (float64, error) {
	lb, err := LogTheorem1Bound(p, eta, l)
	if err != nil {
		return 0, err
	}
	return math.Exp(lb), nil
}

// Corollary1Step returns the step size η = C2 / (L·(1 + 2Kβe^{β/2})) of
// Corollary 1, for 0 < C2 < 1.
func Corollary1Step(p BoundParams, c2 float64, l int) (float64, error) {
	if err := p.check(); err != nil {
		return 0, err
	}
	if !(c2 > 0 && c2 < 1) || l <= 0 {
		return 0, fmt.Errorf("C2 = %v must be in (0, 1) and L = %d positive", c2, l)
	}
	return c2 / (float64(l) * p.lipschitz()), nil
}

// Corollary1Bound returns the right side of eq. lrate-div-ub, the bound on
// ‖x^(L) − x̂^(L)‖₂ with the step of Corollary1Step:
//
//	C1·C2·e^{β(E0 − 1/2)} / (β(1 − C2)) · √(D/Y).
//
// It does not depend on L.
func Corollary1Bound(p BoundParams, c2 float64) (float64, error) {
	if err := p.check(); err != nil {
		return 0, err
	}
	if !(c2 > 0 && c2 < 1) {
		return 0, fmt.Errorf("C2 = %v must be in (0, 1)", c2)
	}
	return p.C1 * c2 * math.Exp(p.Beta*(p.E0-0.5)) / (p.Beta * (1 - c2)) * math.Sqrt(float64(p.D)/float64(p.Y)), nil
}

// LogTheorem1Bound returns the natural logarithm of Theorem1Bound's value,
// computed in the log domain so that it stays finite where the bound
// itself overflows (a step with ηLB > 1 over many steps, or large β):
//
//	log(2ηL·C1·K·√(D/Y)) + β·E0 + log((1 − r^L)/(1 − r)),  r = ηLB,
//
// with the last term log L at r = 1.
func LogTheorem1Bound(p BoundParams, eta float64, l int) (float64, error) {
	if err := p.check(); err != nil {
		return 0, err
	}
	if !(eta > 0) || l <= 0 {
		return 0, fmt.Errorf("step η = %v and L = %d must be positive", eta, l)
	}
	fl := float64(l)
	r := eta * fl * p.lipschitz()
	var lg float64 // log Σ_{t<L} r^t
	switch {
	case r == 1:
		lg = math.Log(fl)
	case r > 1: // (r^L − 1)/(r − 1) = r^L·(1 − r^{−L})/(r − 1)
		lg = fl*math.Log(r) + math.Log1p(-math.Pow(r, -fl)) - math.Log(r-1)
	default:
		lg = math.Log1p(-math.Pow(r, fl)) - math.Log1p(-r)
	}
	return math.Log(2*eta*fl*p.C1*float64(p.K)) + p.Beta*p.E0 + 0.5*math.Log(float64(p.D)/float64(p.Y)) + lg, nil
}
