package paper

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
)

// TestKindListText: a list of kinds writes its canonical names joined by
// commas and reads back from them, from aliases and spaces too; an empty
// list, a kind listed twice and an unknown name are refused (the last
// with ParseProjectionKind's error), and a kind without a name has no
// text.
func TestKindListText(t *testing.T) {
	for _, c := range []struct {
		in   string
		want KindList
		text string
	}{
		{"gaussian", KindList{features.Gaussian}, "gaussian"},
		{"gaussian,structured", KindList{features.Gaussian, features.Structured}, "gaussian,structured"},
		{" iid , SORF,orf", KindList{features.Gaussian, features.Structured, features.Orthogonal}, "gaussian,structured,orthogonal"},
	} {
		var l KindList
		if err := l.UnmarshalText([]byte(c.in)); err != nil || !reflect.DeepEqual(l, c.want) {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", c.in, l, err, c.want)
		}
		if b, err := l.MarshalText(); err != nil || string(b) != c.text || l.String() != c.text {
			t.Errorf("%v: MarshalText() = %q, %v; String() = %q; want %q", l, b, err, l.String(), c.text)
		}
	}
	_, unknown := features.ParseProjectionKind("hadamard")
	for in, want := range map[string]string{"": "empty list", " , ": "empty list", "gaussian,iid": "listed twice", "gaussian,hadamard": unknown.Error()} {
		var l KindList
		if err := l.UnmarshalText([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("UnmarshalText(%q) = %v, want an error with %q", in, err, want)
		}
	}
	for _, bad := range []KindList{{0}, {features.Gaussian, features.External}} {
		if b, err := bad.MarshalText(); err == nil {
			t.Errorf("%v: MarshalText() = %q, want an error", bad, b)
		}
	}
	if b, err := KindList(nil).MarshalText(); err != nil || b == nil || len(b) != 0 {
		t.Errorf("an empty list: MarshalText() = %q, %v; want \"\"", b, err)
	}
}

// TestSpecJSON: the default Spec of every grid experiment, at both
// scales, reads back from its JSON as itself; and config.json files
// written when Spec's names were strings (copied from runs of the
// program before the fields were typed) read into the typed fields and
// write back byte for byte.
func TestSpecJSON(t *testing.T) {
	for _, x := range All() {
		g, ok := x.(*gridExperiment)
		if !ok {
			continue
		}
		for _, scale := range Scales() {
			s := g.spec(scale)
			b, err := json.Marshal(s)
			var back Spec
			if err != nil || json.Unmarshal(b, &back) != nil || !reflect.DeepEqual(back, s) {
				t.Errorf("%s %s: %s (%v) reads back as %+v, want %+v", g.info.Name, scale, b, err, back, s)
			}
		}
	}
	for _, c := range []struct {
		text string
		want Spec
	}{
		{`{
  "experiment": "break-even",
  "scale": "quick",
  "version": "(devel) go1.26.8",
  "D": [
    30
  ],
  "K": [
    100,
    1000
  ],
  "beta": [
    40
  ],
  "Y": [
    200
  ],
  "basis": "sincos",
  "projection": "gaussian,structured",
  "flip": 0.1,
  "seed": 0,
  "seeds": 1,
  "precision": "float32",
  "queries": 2,
  "step": 0.05,
  "max_steps": 5,
  "tol": 1e-8,
  "started": "2026-11-28T00:21:44Z",
  "elapsed": "0s"
}
`, Spec{Experiment: "break-even", Scale: "quick", Version: "(devel) go1.26.8", D: []int{30}, K: []int{100, 1000}, Beta: []float64{40}, Y: []int{200},
			Basis: features.SinCos, Projection: KindList{features.Gaussian, features.Structured}, Flip: 0.1, Seeds: 1, Precision: dam.Float32,
			Queries: 2, Step: 0.05, MaxSteps: 5, Tol: 1e-8, Started: "2026-11-28T00:21:44Z", Elapsed: "0s"}},
		{`{
  "experiment": "basis-ablation",
  "scale": "quick",
  "version": "(devel) go1.26.8",
  "D": null,
  "K": null,
  "beta": [
    10,
    40
  ],
  "Y": [
    2000
  ],
  "bases": [
    "cos",
    "sincos",
    "exp",
    "expexp"
  ],
  "projections": [
    "gaussian",
    "orthogonal",
    "structured"
  ],
  "seed": 0,
  "seeds": 3,
  "precision": "float64",
  "data": "letter",
  "stored": 50,
  "new": 20,
  "started": "2026-11-28T00:20:28Z",
  "elapsed": "0s"
}
`, Spec{Experiment: "basis-ablation", Scale: "quick", Version: "(devel) go1.26.8", Beta: []float64{10, 40}, Y: []int{2000},
			Bases: []features.Basis{features.Cos, features.SinCos, features.Exp, features.ExpExp}, Projections: []features.ProjectionKind{features.Gaussian, features.Orthogonal, features.Structured},
			Seeds: 3, Precision: dam.Float64, Data: "letter", Stored: 50, New: 20, Started: "2026-11-28T00:20:28Z", Elapsed: "0s"}},
	} {
		var s Spec
		if err := json.Unmarshal([]byte(c.text), &s); err != nil || !reflect.DeepEqual(s, c.want) {
			t.Errorf("%s\nreads as %+v (%v), want %+v", c.text, s, err, c.want)
			continue
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "config.json")
		if err := writeJSON(path, s); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != c.text {
			t.Errorf("written back as\n%s\nwant\n%s", b, c.text)
		}
	}
}

// TestSpecUnset: a Spec whose precision, basis or projection is unset (a
// config.json without them) or not one kind where the experiment takes
// one is refused with a ParamError naming the parameter (its JSON, where
// an unset precision is "", reads back as it), and a directory whose
// config.json has no precision is refused, not resumed.
func TestSpecUnset(t *testing.T) {
	s := binarySpec("energy-error", "quick")
	names := func(err error) string {
		var pe *ParamError
		if errors.As(err, &pe) {
			return pe.Name
		}
		return ""
	}
	for _, c := range []struct {
		change func(*Spec)
		name   string
	}{
		{func(s *Spec) { s.Basis = 0 }, "basis"},
		{func(s *Spec) { s.Projection = nil }, "projection"},
		{func(s *Spec) { s.Projection = KindList{features.Gaussian, features.Structured} }, "projection"},
		{func(s *Spec) { s.Projection = KindList{features.External} }, "projection"},
		{func(s *Spec) { s.Projection = KindList{0} }, "projection"},
	} {
		s := s
		c.change(&s)
		if _, err := s.binaryGrid(dam.Float64); names(err) != c.name {
			t.Errorf("%+v: binaryGrid: %v, want a ParamError of %q", s, err, c.name)
		}
	}
	b := breakEven.spec("quick")
	b.Projection = nil
	if _, err := b.breakEvenGrid(dam.Float32); names(err) != "projection" {
		t.Errorf("break-even without projections: %v", err)
	}
	s.Precision = 0
	if _, err := s.precision(); names(err) != "precision" {
		t.Errorf("precision 0: %v", err)
	}
	j, err := json.Marshal(s)
	var back Spec
	if err != nil || !strings.Contains(string(j), `"precision":""`) || json.Unmarshal(j, &back) != nil || !reflect.DeepEqual(back, s) {
		t.Errorf("%+v: %s (%v) reads back as %+v", s, j, err, back)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"experiment": "energy-error", "basis": "sincos", "projection": "gaussian"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &gridRun{x: energyError, spec: binarySpec("energy-error", "quick"), dir: dir}
	if err := r.resume(); err == nil || !strings.Contains(err.Error(), "different configuration") {
		t.Errorf("resume from a config.json without precision: %v", err)
	}
}
