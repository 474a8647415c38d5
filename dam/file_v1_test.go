package dam

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/cpuid"
)

// v1Files are model files of format version 1, written by drdam before
// generator version 2 existed (commit 3f175e4, DRDAM_SIMD=portable), with
// the energies of v1Queries and one gradient entry that it computed, as
// bits. Each stores the 4 patterns of v1Patterns at D = 6, β = 2, Y = 24,
// seed 5.
var v1Files = []struct {
	name string
	cfg  Config // as it was built (Generator unset: there was one)
	bits [3]uint64
}{
	{"gaussian", Config{D: 6, Beta: 2, Y: 24, Seed: 5}, [3]uint64{0x3fa63bc569ad41b4, 0xbfd17b09c2eeb04c, 0x3ff1967ad33de168}},
	{"orthogonal", Config{D: 6, Beta: 2, Y: 24, Seed: 5, Projection: features.Orthogonal, Basis: features.ExpExp}, [3]uint64{0xbfd42987b3fb66cc, 0xbfd100191fb58018, 0x3fe0f0d8a5152aae}},
	{"ondemand32", Config{D: 6, Beta: 2, Y: 24, Seed: 5, OnDemand: true, Precision: Float32}, [3]uint64{0x3fa63bc403a0f882, 0xbfd17b09f2e20fcc, 0x3ff1967ab66fff2d}},
	{"sorf", Config{D: 6, Beta: 2, Y: 24, Seed: 5, Projection: features.Structured}, [3]uint64{0xbfbebca79f1b732c, 0xbfc77b0483d3bbb3, 0x3fd1a0e8178d1ce7}},
}

func v1Patterns() []float64 {
	xi := make([]float64, 4*6)
	for i := range xi {
		xi[i] = float64((i*7)%5)/4 - 0.5
	}
	return xi
}

var v1Queries = []float64{0.1, -0.2, 0.3, 0.05, -0.4, 0.2, 0.3, 0.3, -0.1, 0.0, 0.2, -0.3}

func v1Energies(t *testing.T, m Memory) [3]uint64 {
	t.Helper()
	e, g := make([]float64, 2), make([]float64, 12)
	if err := m.EnergyGrad(e, g, v1Queries); err != nil {
		t.Fatal(err)
	}
	return [3]uint64{math.Float64bits(e[0]), math.Float64bits(e[1]), math.Float64bits(g[3])}
}

// TestLoadVersion1 loads the files of v1Files: they read as generator 1,
// give bit for bit the energies they gave when they were written (at the
// portable level, on which those were computed), equal a model built now
// with generator 1 from the same patterns, and saved again they become
// format version 2 files that record generator 1 and load to the same
// model.
func TestLoadVersion1(t *testing.T) {
	defer cpuid.Set(cpuid.Set(cpuid.Portable))
	for _, f := range v1Files {
		path := "testdata/v1/v1_" + f.name + ".drdam"
		h, err := StatModel(path)
		if err != nil {
			t.Fatal(err)
		}
		if h.Version != 1 || h.Config.Generator != features.GeneratorV1 {
			t.Errorf("%s: format version %d, generator %v; want 1 and v1", f.name, h.Version, h.Config.Generator)
		}
		m, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		want := f.cfg
		want.Generator = features.GeneratorV1
		want, _ = want.Validate()
		if got := m.Config(); got != want {
			t.Errorf("%s: loaded %v, want %v", f.name, got, want)
		}
		if got := v1Energies(t, m); got != f.bits {
			t.Errorf("%s: energies and gradient entry %#x, want %#x as written", f.name, got, f.bits)
		}
		rebuilt := mustDrDAM(t, want, v1Patterns())
		if !bytes.Equal(encode(t, rebuilt), encode(t, m)) {
			t.Errorf("%s: a model built now with generator 1 differs from the file's", f.name)
		}
		b := encode(t, m)
		if v, g := binary.LittleEndian.Uint32(b[8:]), b[18]; v != FileVersion || g != 1 {
			t.Errorf("%s: saved again as format version %d with generator %d, want %d and 1", f.name, v, g, FileVersion)
		}
		again, err := Read(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		if again.Config() != want || v1Energies(t, again) != f.bits {
			t.Errorf("%s: the re-saved model loads as %v with other energies", f.name, again.Config())
		}
	}
}

// TestGeneratorIdentity: the generator is part of a dense model's
// identity: a model of generator 2 (the default) differs from one of
// generator 1, files record it, and the two cannot be merged; structured
// models, drawn the same under both, can.
func TestGeneratorIdentity(t *testing.T) {
	xi := v1Patterns()
	for _, kind := range []features.ProjectionKind{features.Gaussian, features.Orthogonal} {
		c := Config{D: 6, Beta: 2, Y: 24, Seed: 5, Projection: kind}
		m2 := mustDrDAM(t, c, xi)
		if m2.Config().Generator != features.DefaultGenerator || features.DefaultGenerator != features.GeneratorV2 {
			t.Errorf("%v: default generator %v", kind, m2.Config().Generator)
		}
		c.Generator = features.GeneratorV1
		m1 := mustDrDAM(t, c, xi)
		if v1Energies(t, m1) == v1Energies(t, m2) {
			t.Errorf("%v: generators 1 and 2 give the same energies", kind)
		}
		if b := encode(t, m1); b[18] != 1 {
			t.Errorf("%v: a generator-1 model is saved with generator byte %d", kind, b[18])
		}
		err := m1.Merge(m2)
		if err == nil || !strings.Contains(err.Error(), "different generators") {
			t.Errorf("%v: merging generators 1 and 2: err = %v", kind, err)
		}
	}
	c := Config{D: 6, Beta: 2, Y: 24, Seed: 5, Projection: features.Structured}
	s2 := mustDrDAM(t, c, xi)
	c.Generator = features.GeneratorV1
	s1 := mustDrDAM(t, c, xi)
	if v1Energies(t, s1) != v1Energies(t, s2) {
		t.Error("structured projections differ between generators 1 and 2")
	}
	if err := s1.Merge(s2); err != nil {
		t.Errorf("merging structured models of generators 1 and 2: %v", err)
	}
	if _, err := (Config{D: 6, Beta: 2, Y: 24, Generator: 3}).Validate(); err == nil || !strings.Contains(err.Error(), "generator") {
		t.Errorf("Validate accepted generator 3: %v", err)
	}
	if c, _ := (Config{Rep: RepMrDAM, D: 6, Beta: 2, Generator: 1}).Validate(); c.Generator != 0 {
		t.Errorf("an mrdam keeps generator %v", c.Generator)
	}
}
