package dam

import (
	"fmt"

	"github.com/drdam/drdam/internal/rng"
)

// SubsetEnergy writes into e a cheaper, noisier estimate of the DrDAM
// energy (eq. kdam-en, L2) at the B = len(e) queries x (B×D): φ(x)·T
// summed over a random subset S of m of the Y projections (for SinCos and
// ExpExp both halves of each), drawn without replacement from seed and
// rescaled by Y/m, so that the sum is unbiased for φ(x)·T; then clipped
// at ε as EnergyGrad does: E ≈ −(1/β)·log max((Y/m)·Σ_{α∈S} φ_α(x)·T_α, ε).
// It is the paper's reference code's stochastic_kernel_energy. It costs
// O(B·m·D) and the m rows of the projection (regenerated from the seed:
// for an orthogonal projection a D×D block per row, so prefer the other
// kinds). m = Y gives EnergyGrad's energy up to rounding. Only the L2
// energy is supported.
func SubsetEnergy(m *DrDAM, e, x []float64, count int, seed uint64) error {
	c := m.cfg
	if c.Similarity != L2 {
		return fmt.Errorf("SubsetEnergy: only the l2 energy is supported, the model's is %v", c.Similarity)
	}
	if count <= 0 || count > c.Y {
		return fmt.Errorf("SubsetEnergy: want 1 to Y = %d projections, found %d", c.Y, count)
	}
	if _, err := checkBatch(e, nil, x, c); err != nil {
		return err
	}
	if m.count == 0 {
		return ErrEmpty
	}
	return familyOf(c.Basis).subsetEnergy(e, subsetSums(m, x, count, seed), c)
}

// subsetSums returns, per query, the rescaled sum (Y/m)·Σ_{α∈S} φ_α(x)·T_α
// for the trigonometric bases, or its logarithm for the positive ones.
func subsetSums(m *DrDAM, x []float64, count int, seed uint64) []float64 {
	c := m.cfg
	y, d := c.Y, c.D
	b := len(x) / d
	// Floyd's sampling of count distinct indices of [0, Y), in O(count).
	st := rng.New(seed, rng.StreamSubset)
	chosen := make(map[int]bool, count)
	idx := make([]int, 0, count)
	for j := y - count; j < y; j++ {
		t := int(st.Uint64() % uint64(j+1))
		if chosen[t] {
			t = j
		}
		chosen[t] = true
		idx = append(idx, t)
	}
	t, logScale := m.Raw()
	fam := familyOf(c.Basis)
	h := make([]float64, b)
	out := make([]float64, b)
	for r := range out {
		out[r] = fam.emptyValue()
	}
	xsq := make([]float64, b)
	rowSqNorms(xsq, x, d)
	for _, a := range idx {
		m.fm.Phases(h, x, a, a+1) // √β·ωₐᵀx (+ bₐ)
		fam.subsetAdd(out, h, xsq, t, a, c)
	}
	fam.subsetFinish(out, float64(y)/float64(count), logScale)
	return out
}
