package dam

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/atomicfile"
)

// This file holds the additive state of a DrDAM apart from its projection:
// Sum, what Merge adds and what distributed encoders exchange, and the
// model files written from one.

// Sum is the additive state of a DrDAM: the vector T = Σ_μ w_μ φ(ξ^μ) in
// its stored form, with its log-scale and the number of memories summed.
// It carries no projection, so it is cheap to copy, send and add: encoders
// that each hold a DrDAM of one configuration and store a share of the
// patterns produce Sums whose Merge is the Sum of one DrDAM that stored them
// all (up to the order of floating-point additions).
//
// A Sum is meaningful only with the Config of the DrDAMs it came from.
// The zero Sum (T nil, Count 0) is the empty memory of every configuration.
type Sum struct {
	// T is T in the stored form of a DrDAM, F = Config.FeatureDim()
	// values: for the trigonometric bases (Cos, SinCos) T = exp(LogScale)·t;
	// for the positive bases (Exp, ExpExp) T[α] = log T_α, −Inf where
	// T_α = 0. It may be nil when Count is 0.
	T []float64
	// LogScale is the shared log-scale c of a trigonometric T: 0 for the
	// L2 energy and the positive bases, the largest log-weight β‖ξ‖²/2
	// stored so far for the dot-product energy.
	LogScale float64
	// Count is the number of memories summed (added minus removed). A Sum
	// with Count 0 is the empty memory, whatever its T holds.
	Count int64
}

// Sum returns a copy of the additive state of m: T in its stored form
// (F = Config.FeatureDim() values), its log-scale and m.Len().
func (m *DrDAM) Sum() Sum {
	return Sum{T: slices.Clone(m.t), LogScale: m.logScale, Count: int64(m.count)}
}

// SetSum replaces the memories of m by those of s, a Sum of a DrDAM of the
// same configuration (same basis, Y, projection and seed: SetSum cannot
// check that s was built with the same feature map). It keeps m's
// projection, so a DrDAM built once can evaluate many Sums. It returns an
// error, and leaves m unchanged, if s is not a valid Sum for m's
// configuration (see Sum.Check).
func (m *DrDAM) SetSum(s Sum) error {
	if err := s.Check(m.cfg); err != nil {
		return err
	}
	if s.Count > math.MaxInt {
		return fmt.Errorf("sum: %d memories do not fit in an int", s.Count)
	}
	if s.Count == 0 {
		m.count = 0
		m.clear()
		return nil
	}
	copy(m.t, s.T)
	m.logScale, m.count = s.LogScale, int(s.Count)
	m.eng.invalidate()
	return nil
}

// Check reports whether s is a valid Sum for a DrDAM of configuration c:
// T has F = c.FeatureDim() values (or is nil with Count 0), every value is
// finite but for the −Inf (log 0) of a positive basis, the log-scale is
// finite and Count ≥ 0; and, for Count > 0, T and the log-scale are
// within what Count patterns can produce (see checkT). It checks what a
// model file's Load checks; it cannot check that T was built with c's
// projection.
func (s Sum) Check(c Config) error {
	c, err := c.Validate()
	if err != nil {
		return err
	}
	if c.Rep != RepDrDAM {
		return fmt.Errorf("sum: the configuration is for %v, which has no T", c.Rep)
	}
	if s.Count < 0 {
		return fmt.Errorf("sum: count %d < 0", s.Count)
	}
	if math.IsNaN(s.LogScale) || math.IsInf(s.LogScale, 0) {
		return fmt.Errorf("sum: the log-scale of T is %v", s.LogScale)
	}
	if s.T == nil && s.Count == 0 {
		return nil
	}
	if len(s.T) != c.FeatureDim() {
		return fmt.Errorf("sum: T has %d values, want F = %d for the %v basis with Y = %d", len(s.T), c.FeatureDim(), c.Basis, c.Y)
	}
	if s.Count == 0 {
		// The empty memory, whatever T holds (see Count).
		if err := checkFiniteT(c, s.T); err != nil {
			return fmt.Errorf("sum: %w", err)
		}
		return nil
	}
	if err := checkT(c, s.T, s.LogScale, uint64(s.Count)); err != nil {
		return fmt.Errorf("sum: %w", err)
	}
	return nil
}

// Merge adds o to s: s ← s + o, two Sums of DrDAMs of configuration c,
// with exactly the arithmetic of DrDAM.Merge (log T added as
// log(exp(a) + exp(b)) for the positive bases; for the trigonometric ones
// both scaled to the larger log-scale). s.T is allocated (F values) if s
// is empty and written in place otherwise; o is not modified, and may be
// s itself. It returns an error, leaving s unchanged, if either Sum is
// invalid for c (see Check) or the count overflows.
func (s *Sum) Merge(c Config, o Sum) error {
	c, err := c.Validate()
	if err != nil {
		return err
	}
	if err := s.Check(c); err != nil {
		return err
	}
	if err := o.Check(c); err != nil {
		return fmt.Errorf("merged %w", err)
	}
	if o.Count > math.MaxInt64-s.Count {
		return fmt.Errorf("sum: %d + %d memories overflow the count", s.Count, o.Count)
	}
	if o.Count == 0 {
		return nil
	}
	if s.T == nil || s.Count == 0 {
		s.T = emptyT(c, s.T)
		s.LogScale = 0
	}
	s.LogScale = mergeT(c, s.T, s.LogScale, s.Count == 0, o.T, o.LogScale)
	s.Count += o.Count
	return nil
}

// emptyT returns T of the empty memory of configuration c in its stored
// form (zeros, or −Inf for a positive basis), reusing t if it has F
// values.
func emptyT(c Config, t []float64) []float64 {
	if len(t) != c.FeatureDim() {
		t = make([]float64, c.FeatureDim())
	}
	fill := familyOf(c.Basis).emptyValue()
	for i := range t {
		t[i] = fill
	}
	return t
}

// mergeT adds the non-empty stored T o (log-scale ol) into t (log-scale
// ls; empty if the memory of t stores nothing) of configuration c and
// returns the log-scale of the result: the one arithmetic of DrDAM.Merge
// and Sum.Merge, the family's (for the positive bases t and o are log T,
// added by logAddExp; for the trigonometric ones both are brought to the
// larger log-scale).
func mergeT(c Config, t []float64, ls float64, empty bool, o []float64, ol float64) float64 {
	return familyOf(c.Basis).merge(t, ls, empty, o, ol)
}

// SaveSum writes a DrDAM model file of configuration c holding the
// memories of s to path, atomically, as Save does for the DrDAM that s
// came from: the file is byte for byte what Save writes for a DrDAM of
// configuration c whose Sum is s. No projection is built (a dense Y×D one
// takes O(Y·D) time and memory): c and s are checked as Load will check
// them, and Load regenerates the projection from c's seed.
func SaveSum(path string, c Config, s Sum) error {
	// Check before creating anything at path.
	if _, err := sumConfig(c, s); err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error { return WriteSum(w, c, s) })
}

// WriteSum writes a DrDAM model file of configuration c holding the
// memories of s to w (see SaveSum and Save).
func WriteSum(w io.Writer, c Config, s Sum) error {
	c, err := sumConfig(c, s)
	if err != nil {
		return err
	}
	t, ls := s.T, s.LogScale
	if s.Count == 0 {
		t, ls = emptyT(c, nil), 0 // the empty memory, as Load reads it
	}
	return writeDrDAM(w, c, uint64(s.Count), ls, t)
}

// sumConfig validates c for a model file of a Sum and checks s against it.
func sumConfig(c Config, s Sum) (Config, error) {
	c, err := c.Validate()
	if err != nil {
		return c, err
	}
	if c.Rep != RepDrDAM {
		return c, fmt.Errorf("a Sum is the state of a drdam, and the configuration is for %v", c.Rep)
	}
	if c.Projection == features.External {
		return c, fmt.Errorf("the model uses an external projection matrix, which a model file cannot regenerate from a seed")
	}
	return c, s.Check(c)
}
