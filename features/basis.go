package features

import (
	"fmt"
	"math"
	"strings"
)

// Basis is the function that turns the random phases into features. Its
// facts (name, family, width, normalisation) are written once, in the
// table bases below; every other package asks the basis for them.
type Basis int

// The four bases of the paper's appendix "Ablation study".
const (
	Cos    Basis = iota + 1 // √(2/Y) cos(h + b)
	SinCos                  // Y^(−1/2) [cos(h + b), sin(h + b)]
	Exp                     // Y^(−1/2) exp(h − β‖x‖²)
	ExpExp                  // (2Y)^(−1/2) [exp(h − β‖x‖²), exp(−h − β‖x‖²)]
)

// Family is the kind of function a basis applies to the phases h, which
// decides how DrDAM computes with it.
type Family int

// The two families.
const (
	// Trigonometric bases take cos (and sin) of h + b. Their kernel
	// estimate can be negative, so the energy clips φ(x)·T at ε > 0; the
	// random shift b enters the phases.
	Trigonometric Family = iota + 1
	// Positive bases take exp(h − β‖x‖²) (and exp(−h − β‖x‖²)). Their
	// features are positive and span many orders of magnitude, so T is
	// kept in the log domain; the shift is not used (exp(h + b) would
	// scale the kernel by a random factor).
	Positive
)

// basisFacts are the facts of one basis.
type basisFacts struct {
	name   string
	family Family
	// halves is the number of features per projection: 1 for [f(h)], 2
	// for [f(h), g(h)] (cos and sin, or exp(h) and exp(−h)), laid out as
	// all the first ones, then all the second ones.
	halves int
	// norm returns the constant c of φ = c·[…] for Y projections, and
	// logNorm its logarithm. They are written as the reference code and
	// the engine have always computed them (the same expressions, so the
	// same bits: 1/√Y and √(1/Y) can differ in the last place).
	norm, logNorm func(y float64) float64
}

// bases is the one table of the bases, in the order of the paper's
// appendix. Adding a basis of an existing family is one entry here (and
// its constant above); a new family needs its kernels in package dam.
var bases = [...]basisFacts{
	Cos: {"cos", Trigonometric, 1,
		func(y float64) float64 { return math.Sqrt(2 / y) }, func(y float64) float64 { return 0.5 * math.Log(2/y) }},
	SinCos: {"sincos", Trigonometric, 2,
		func(y float64) float64 { return 1 / math.Sqrt(y) }, func(y float64) float64 { return -0.5 * math.Log(y) }},
	Exp: {"exp", Positive, 1,
		func(y float64) float64 { return 1 / math.Sqrt(y) }, func(y float64) float64 { return -0.5 * math.Log(y) }},
	ExpExp: {"expexp", Positive, 2,
		func(y float64) float64 { return 1 / math.Sqrt(2*y) }, func(y float64) float64 { return -0.5 * math.Log(2*y) }},
}

// Bases returns every basis, in the order of the paper's appendix (Cos,
// SinCos, Exp, ExpExp).
func Bases() []Basis { return inTable(len(bases), Basis.Valid) }

// BasisNames returns the names of the bases as a list for messages and
// help texts: "cos, sincos, exp or expexp".
func BasisNames() string { return orList(Bases()) }

// inTable returns the entries 0…n−1 of a table for which keep is true, in
// order.
func inTable[T ~int](n int, keep func(T) bool) []T {
	var out []T
	for i := range n {
		if keep(T(i)) {
			out = append(out, T(i))
		}
	}
	return out
}

// orList joins the names of xs as "a, b or c".
func orList[T fmt.Stringer](xs []T) string {
	names := make([]string, len(xs))
	for i, x := range xs {
		names[i] = x.String()
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// facts returns the facts of b; it panics if b is not a basis (a
// programmer error: callers validate first).
func (b Basis) facts() *basisFacts {
	if !b.Valid() {
		panic(fmt.Sprintf("features: unknown basis %d", int(b)))
	}
	return &bases[b]
}

// halves returns bases[b].halves, or 1 for an invalid b (so that Width
// and a configuration's String stay defined before validation).
func (b Basis) halves() int {
	if !b.Valid() {
		return 1
	}
	return bases[b].halves
}

// String returns the basis's name as the command line and the peers spell it.
func (b Basis) String() string {
	if !b.Valid() {
		return fmt.Sprintf("Basis(%d)", int(b))
	}
	return bases[b].name
}

// ParseBasis returns the basis named s (cos, sincos, exp or expexp; case
// does not matter).
func ParseBasis(s string) (Basis, error) {
	for _, b := range Bases() {
		if strings.EqualFold(s, b.String()) {
			return b, nil
		}
	}
	return 0, fmt.Errorf("unknown basis %q: want %s", s, BasisNames())
}

// MarshalText returns the basis's name (its String), so that a basis
// reads and writes as text in JSON (paper's config.json). The zero value,
// which a dam.Config reads as its default, is unset and writes as "";
// any other value that is not a basis is an error.
func (b Basis) MarshalText() ([]byte, error) {
	if b == 0 {
		return []byte{}, nil
	}
	if !b.Valid() {
		return nil, fmt.Errorf("unknown basis %d: want %s", int(b), BasisNames())
	}
	return []byte(b.String()), nil
}

// UnmarshalText sets b to the basis named by text, read as ParseBasis
// reads it (with its error); an empty text is the zero value, unset.
func (b *Basis) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*b = 0
		return nil
	}
	x, err := ParseBasis(string(text))
	if err != nil {
		return err
	}
	*b = x
	return nil
}

// Valid reports whether b is one of the bases.
func (b Basis) Valid() bool { return b > 0 && int(b) < len(bases) && bases[b].name != "" }

// Family returns the family of b, or 0 if b is not a basis.
func (b Basis) Family() Family {
	if !b.Valid() {
		return 0
	}
	return bases[b].family
}

// Halves returns the number of features per projection: 2 for SinCos and
// ExpExp, 1 for Cos and Exp (and for an invalid basis).
func (b Basis) Halves() int { return b.halves() }

// Width returns the number of features F for y projections: Halves()·y,
// so 2y for SinCos and ExpExp, y for Cos and Exp.
func (b Basis) Width(y int) int { return b.halves() * y }

// Norm returns the constant c of φ = c·[…] for y projections (see the
// package documentation): √(2/Y) for Cos, 1/√Y for SinCos and Exp,
// 1/√(2Y) for ExpExp. It panics if b is not a basis.
func (b Basis) Norm(y int) float64 { return b.facts().norm(float64(y)) }

// LogNorm returns log Norm(y), as the log-domain computations of the
// positive bases use it.
func (b Basis) LogNorm(y int) float64 { return b.facts().logNorm(float64(y)) }

// Trig reports whether b is a trigonometric basis (Cos or SinCos).
func (b Basis) Trig() bool { return b.Family() == Trigonometric }

// Positive reports whether b has positive features (Exp or ExpExp); their
// sums are kept in the log domain.
func (b Basis) Positive() bool { return b.Family() == Positive }

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
