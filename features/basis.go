package features

import (
	"fmt"
	"strings"
)

// Basis is the function that turns the random phases into features.
type Basis int

// The four bases of the paper's appendix "Ablation study".
const (
	Cos    Basis = iota + 1 // √(2/Y) cos(h + b)
	SinCos                  // Y^(−1/2) [cos(h + b), sin(h + b)]
	Exp                     // Y^(−1/2) exp(h − β‖x‖²)
	ExpExp                  // (2Y)^(−1/2) [exp(h − β‖x‖²), exp(−h − β‖x‖²)]
)

var basisNames = map[Basis]string{Cos: "cos", SinCos: "sincos", Exp: "exp", ExpExp: "expexp"}

// String returns the basis's name as the command line and the peers spell it.
func (b Basis) String() string {
	if s, ok := basisNames[b]; ok {
		return s
	}
	return fmt.Sprintf("Basis(%d)", int(b))
}

// ParseBasis returns the basis named s (cos, sincos, exp or expexp; case
// does not matter).
func ParseBasis(s string) (Basis, error) {
	for b, name := range basisNames {
		if strings.EqualFold(s, name) {
			return b, nil
		}
	}
	return 0, fmt.Errorf("unknown basis %q: want cos, sincos, exp or expexp", s)
}

// Valid reports whether b is one of the four bases.
func (b Basis) Valid() bool { _, ok := basisNames[b]; return ok }

// Width returns the number of features F for y projections: 2y for SinCos
// and ExpExp, y for Cos and Exp.
func (b Basis) Width(y int) int {
	if b == SinCos || b == ExpExp {
		return 2 * y
	}
	return y
}

// Trig reports whether b is a trigonometric basis (Cos or SinCos).
func (b Basis) Trig() bool { return b == Cos || b == SinCos }

// Positive reports whether b has positive features (Exp or ExpExp); their
// sums are kept in the log domain.
func (b Basis) Positive() bool { return b == Exp || b == ExpExp }

// UsesBias reports whether the random shift b enters the phases (the
// trigonometric bases only).
func (b Basis) UsesBias() bool { return b.Trig() }

// DefaultEpsilon returns the clip floor of φ(x)·T that the paper's code uses
// for b: 1e-5 for the trigonometric bases (their kernel estimate can be
// negative) and 0 for the positive ones.
func (b Basis) DefaultEpsilon() float64 {
	if b.Trig() {
		return 1e-5
	}
	return 0
}
