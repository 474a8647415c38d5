package dam

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/cpuid"
	"github.com/drdam/drdam/internal/par"
	"gonum.org/v1/gonum/diff/fd"
)

// TestSORFMatchesNaive compares SORF DrDAMs, every basis and both energies,
// with the naive definitions (features.Map.Features on the SORF projection's
// reference products, no blocks or kernels): float64 rounding in another
// order, 1e-11 relative. D = 37 pads to N = 64; Y = 300 cuts the last block.
func TestSORFMatchesNaive(t *testing.T) {
	const d, k, b = 37, 19, 19 // 19 queries: three float64 panels, two float32
	xi, x := grayQueries(401, k, b, d, 0.3)
	defer cpuid.Set(cpuid.Current())
	for _, lv := range cpuid.Supported() {
		cpuid.Set(lv)
		for _, sim := range []Similarity{L2, Dot} {
			for _, basis := range allBases {
				m := mustDrDAM(t, Config{D: d, Beta: 12, Y: 300, Basis: basis, Projection: features.Structured, Seed: 3, Similarity: sim}, xi)
				e, _ := energies(t, m, x)
				for q := range b {
					want := naiveDrEnergy(m, xi, x[q*d:(q+1)*d])
					if math.Abs(e[q]-want) > 1e-11*math.Max(1, math.Abs(want)) {
						t.Errorf("%v %v: query %d: %v, naive %v", lv, m.cfg, q, e[q], want)
					}
				}
			}
		}
	}
}

// TestSORFPanelsAgree: with AVX-512, SORF takes each query panel through
// fwht's lines transforms (sorf.forwardPanel/backwardPanel); at AVX2 each
// query is transformed on its own. The forward transforms are the same
// stages in the same order (bit for bit, fwht's TestLinesMatchColumns);
// the backward runs the transposed chain in another stage order, so
// gradients differ by rounding only: 1e-12 relative in float64 (the
// transforms' error is about log2(N)·2⁻⁵³ of Σ|x|, 10⁻¹⁴ here), 1e-4 in
// float32 (2⁻²⁴·log2(N)·√Y ≈ 10⁻⁵ on sums of Y = 1500 terms). D = 300
// pads to N = 512 lines, more than one 16 KiB chunk of float64 lines, so
// the passes across chunks run too; a second evaluation with fewer
// queries leaves stale lanes in the last panel, which must not leak.
func TestSORFPanelsAgree(t *testing.T) {
	if !slices.Contains(cpuid.Supported(), cpuid.AVX512) {
		t.Skip("no AVX-512 here: the per-panel path does not run")
	}
	const d, k, b = 300, 21, 21
	xi, x := grayQueries(441, k, b, d, 0.2)
	defer cpuid.Set(cpuid.Current())
	for _, prec := range []Precision{Float64, Float32} {
		tol := 1e-12
		if prec == Float32 {
			tol = 1e-4
		}
		for _, basis := range []features.Basis{features.SinCos, features.Exp} {
			m := mustDrDAM(t, Config{D: d, Beta: 8, Y: 1500, Basis: basis, Projection: features.Structured, Seed: 5, Precision: prec}, xi)
			for _, nb := range []int{b, b - 4} {
				cpuid.Set(cpuid.AVX2)
				e2, g2 := energies(t, m, x[:nb*d])
				cpuid.Set(cpuid.AVX512)
				e5, g5 := energies(t, m, x[:nb*d])
				if re, rg := relDiff(e5, e2), relDiff(g5, g2); !(re <= tol && rg <= tol) {
					t.Errorf("%v %v B=%d: per-panel against per-query: energies %.2g, gradients %.2g apart (tolerance %g)", prec, basis, nb, re, rg, tol)
				}
			}
		}
	}
}

// TestSORFGradient: SORF gradients match central finite differences as the
// dense ones do (see TestGradientFiniteDifferences for the tolerance).
func TestSORFGradient(t *testing.T) {
	const d, k = 20, 6
	xi := grayPatterns(411, k, d)
	x := flip(412, xi[:d], d, 0.25)
	for _, basis := range allBases {
		m := mustDrDAM(t, Config{D: d, Beta: 20, Y: 2000, Basis: basis, Projection: features.Structured, Seed: 2}, xi)
		assertNotClipped(t, m, x)
		e, g := make([]float64, 1), make([]float64, d)
		if err := m.EnergyGrad(e, g, x); err != nil {
			t.Fatal(err)
		}
		f := func(p []float64) float64 {
			m.EnergyGrad(e, nil, p)
			return e[0]
		}
		gfd := fd.Gradient(nil, f, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		if r := relDiff(g, gfd); r > 1e-6 || math.IsNaN(r) {
			t.Errorf("%v: relative gradient error %.3g", basis, r)
		}
	}
}

// TestOnDemandEqualsStored: a dense projection regenerated on demand gives
// bit for bit the energies and gradients of the stored one (the same
// panels, the same kernels, in the same order), with blocks both cached and
// regenerated (Y·D large enough to exceed the cache at float64: 8·10⁴ rows
// of D = 130 take 83 MiB).
func TestOnDemandEqualsStored(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 2·10⁷ Gaussians twice")
	}
	const d, k, b = 130, 9, 6
	xi, x := grayQueries(421, k, b, d, 0.2)
	for _, kind := range []features.ProjectionKind{features.Gaussian} {
		c := Config{D: d, Beta: 15, Y: 80000, Projection: kind, Seed: 4}
		stored := mustDrDAM(t, c, xi)
		c.OnDemand = true
		od := mustDrDAM(t, c, xi)
		e1, g1 := energies(t, stored, x)
		for range 2 { // the second call reuses the cache and the scratch
			e2, g2 := energies(t, od, x)
			if relDiff(e2, e1) != 0 || relDiff(g2, g1) != 0 {
				t.Fatalf("%v: on-demand results differ from stored ones (energies %.2g, gradients %.2g)", kind, relDiff(e2, e1), relDiff(g2, g1))
			}
		}
		if tOf(stored)[5] != tOf(od)[5] {
			t.Errorf("%v: on-demand T differs", kind)
		}
	}
}

// TestSourcesAllocs: descent steps with SORF and on-demand projections
// allocate nothing.
func TestSourcesAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	const d, k, b = 50, 10, 8
	xi, x := grayQueries(431, k, b, d, 0.2)
	for _, c := range []Config{
		{D: d, Beta: 10, Y: 3000, Projection: features.Structured, Seed: 1, Precision: Float32},
		{D: d, Beta: 10, Y: 3000, Projection: features.Structured, Basis: features.ExpExp, Seed: 1},
		{D: d, Beta: 10, Y: 3000, OnDemand: true, Seed: 1},
	} {
		m := mustDrDAM(t, c, xi)
		ds, _ := NewDescent(m, RecallOptions{Step: 1e-3, MaxSteps: 1 << 20})
		ds.Start(x)
		ds.Step()
		if a := testing.AllocsPerRun(10, func() { ds.Step() }); a != 0 {
			t.Errorf("%v: %v allocations per step", m.cfg, a)
		}
	}
}

// TestPanelsFromGarbage: building the stored panels of a dense projection
// allocates the panels and one row buffer per running job, not a buffer
// per chunk of rows: at Y = 40000, D = 256 the rows are 82 MB of float64
// (ten chunks of 8 MiB), the float32 panels 41 MB. The bound allows the
// panels, Workers()+1 buffers and 4 MiB of other allocations; one buffer
// per chunk would exceed it by about 40 MB.
func TestPanelsFromGarbage(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 10⁷ Gaussians")
	}
	const y, d = 40000, 256
	src, err := features.NewSeeded(features.Gaussian, features.DefaultGenerator, 1, y, d)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	w := panelsFrom[float32](src)
	runtime.ReadMemStats(&after)
	panels := uint64(len(w.Data)) * 4
	chunk := uint64(((1 << 20) / d) &^ 15 * d * 8)
	limit := panels + uint64(par.Workers()+1)*chunk + 4<<20
	if got := after.TotalAlloc - before.TotalAlloc; got > limit {
		t.Errorf("panelsFrom allocated %d MB, want at most %d MB (panels %d MB, row buffers of %d MB)",
			got>>20, limit>>20, panels>>20, chunk>>20)
	}
}

// TestStructuredNoSizeLimit: a structured projection needs no Y×D storage,
// so sizes whose dense panels would exceed features.MaxDenseEntries
// (Y·D = 4.9·10⁹ here) are accepted, through NewDrDAM and through
// NewDrDAMWithMap; the dense stored kind is refused with an error naming
// Y, and its on-demand form accepted.
func TestStructuredNoSizeLimit(t *testing.T) {
	const y, d = 400000, 12288
	if _, err := NewDrDAM(Config{D: d, Beta: 1, Y: y, Projection: features.Structured, Precision: Float32}); err != nil {
		t.Errorf("NewDrDAM, structured: %v", err)
	}
	s, err := features.NewSORF(1, y, d)
	if err != nil {
		t.Fatal(err)
	}
	fm, err := features.NewMap(features.SinCos, 1, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewDrDAMWithMap(Config{Precision: Float32}, fm); err != nil {
		t.Errorf("NewDrDAMWithMap, structured: %v", err)
	}
	var ce *ConfigError
	if _, err := NewDrDAM(Config{D: d, Beta: 1, Y: y}); !errors.As(err, &ce) || ce.Field != "y" {
		t.Errorf("NewDrDAM, dense stored: error %v, want a ConfigError on Y", err)
	}
	if _, err := NewDrDAM(Config{D: d, Beta: 1, Y: y, OnDemand: true}); err != nil {
		t.Errorf("NewDrDAM, dense on demand: %v", err)
	}
}

// rowsOnly hides every method of a projection but those of RowSource, so
// that the engine takes its row path.
type rowsOnly struct{ features.RowSource }

// TestRowGroupPanels: the panels that a Gaussian projection of generator 2
// writes in place (features.Seeded.RowGroup32/64) are those built from its
// rows, at every level, in both precisions, with a partial last panel and
// padded columns; and an on-demand model on them gives the stored one's
// energies bit for bit.
func TestRowGroupPanels(t *testing.T) {
	const y, d = 1000 + 5, 37
	s, _ := features.NewSeeded(features.Gaussian, features.GeneratorV2, 8, y, d)
	xi, x := grayQueries(441, 5, 3, d, 0.2)
	defer cpuid.Set(cpuid.Current())
	for _, lv := range cpuid.Supported() {
		cpuid.Set(lv)
		w32, r32 := panelsFrom[float32](s), panelsFrom[float32](rowsOnly{s})
		w64, r64 := panelsFrom[float64](s), panelsFrom[float64](rowsOnly{s})
		for i := range w32.Data {
			if math.Float32bits(w32.Data[i]) != math.Float32bits(r32.Data[i]) {
				t.Fatalf("%v: float32 panels differ at %d", lv, i)
			}
		}
		for i := range w64.Data {
			if math.Float64bits(w64.Data[i]) != math.Float64bits(r64.Data[i]) {
				t.Fatalf("%v: float64 panels differ at %d", lv, i)
			}
		}
		for _, prec := range []Precision{Float32, Float64} {
			c := Config{D: d, Beta: 9, Y: y, Seed: 8, Precision: prec}
			e1, g1 := energies(t, mustDrDAM(t, c, xi), x)
			c.OnDemand = true
			e2, g2 := energies(t, mustDrDAM(t, c, xi), x)
			if relDiff(e2, e1) != 0 || relDiff(g2, g1) != 0 {
				t.Errorf("%v %v: on-demand results differ from stored ones", lv, prec)
			}
		}
	}
}
