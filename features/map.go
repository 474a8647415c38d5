package features

import (
	"fmt"
	"math"
)

// Map is the random feature map φ(x) = basis(√β·Wx + b) of one basis, one
// projection W and one optional shift b. It is safe for concurrent use.
type Map struct {
	Basis Basis
	Beta  float64    // inverse temperature β > 0
	Proj  Projection // W, Y×D
	Bias  []float64  // b, length Y, or nil; used only by the trigonometric bases
}

// NewMap returns a validated feature map. bias may be nil; it is ignored by
// the positive bases.
func NewMap(basis Basis, beta float64, proj Projection, bias []float64) (*Map, error) {
	if !basis.Valid() {
		return nil, fmt.Errorf("unknown basis %d", int(basis))
	}
	if !(beta > 0) || math.IsInf(beta, 0) {
		return nil, fmt.Errorf("β must be positive and finite, found %v", beta)
	}
	if proj == nil {
		return nil, fmt.Errorf("no projection")
	}
	y, _ := proj.Dims()
	if bias != nil && len(bias) != y {
		return nil, fmt.Errorf("bias has %d entries, want Y = %d", len(bias), y)
	}
	if !basis.UsesBias() {
		bias = nil
	}
	return &Map{Basis: basis, Beta: beta, Proj: proj, Bias: bias}, nil
}

// Dims returns Y (projections) and D (input dimension).
func (m *Map) Dims() (y, d int) { return m.Proj.Dims() }

// Width returns the number of features F (2Y for SinCos and ExpExp, else Y).
func (m *Map) Width() int {
	y, _ := m.Proj.Dims()
	return m.Basis.Width(y)
}

// Phases writes h = √β·X·W[lo:hi]ᵀ + b[lo:hi] into dst (B×(hi−lo)); x is
// B×D. The shift is added only when m.Bias is set (trigonometric bases).
func (m *Map) Phases(dst, x []float64, lo, hi int) {
	m.Proj.Project(dst, x, lo, hi)
	n := hi - lo
	rb := math.Sqrt(m.Beta)
	for i := range dst {
		dst[i] *= rb
	}
	if m.Bias != nil && n > 0 {
		b := m.Bias[lo:hi]
		for r := 0; r < len(dst); r += n {
			row := dst[r : r+n]
			for j := range row {
				row[j] += b[j]
			}
		}
	}
}

// Features writes φ(x_b) for the B queries of x (B×D) into dst (B×F), by
// the definitions of the package documentation. For the positive bases the
// values are computed as written and may overflow or underflow at large β;
// DrDAM works with their logarithms instead.
func (m *Map) Features(dst, x []float64) {
	y, d := m.Proj.Dims()
	f := m.Basis.Width(y)
	if len(x)%d != 0 || len(dst) != len(x)/d*f {
		panic(fmt.Sprintf("features: Features: x has %d values and dst %d; want B×%d and B×%d", len(x), len(dst), d, f))
	}
	b := len(x) / d
	h := make([]float64, b*y)
	m.Phases(h, x, 0, y)
	c, two := m.Basis.Norm(y), m.Basis.Halves() == 2
	for r := range b {
		hr, out := h[r*y:(r+1)*y], dst[r*f:(r+1)*f]
		switch m.Basis.Family() {
		case Trigonometric:
			for j, v := range hr {
				if two {
					s, co := math.Sincos(v)
					out[j], out[y+j] = c*co, c*s
				} else {
					out[j] = c * math.Cos(v)
				}
			}
		case Positive:
			var sq float64
			for _, v := range x[r*d : (r+1)*d] {
				sq += v * v
			}
			sq *= m.Beta
			for j, v := range hr {
				out[j] = c * math.Exp(v-sq)
				if two {
					out[y+j] = c * math.Exp(-v-sq)
				}
			}
		}
	}
}
