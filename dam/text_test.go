package dam

import (
	"encoding"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/drdam/drdam/features"
)

// textEnum is one enumeration of a configuration for TestEnumText.
type textEnum struct {
	name   string
	values []any // every value, by value
	new    func() encoding.TextUnmarshaler
	parse  func(string) (any, error)
	bad    []encoding.TextMarshaler // values without a name
	zero   encoding.TextMarshaler   // the zero value
}

// TestEnumText: every value of Representation, Similarity and Precision
// writes its name and reads it back (from its aliases, in any case, and
// inside JSON); the zero value (unset, the default) writes and reads as
// ""; a bad name's error is the Parse function's, and a value without a
// name has no text.
func TestEnumText(t *testing.T) {
	enums := []textEnum{
		{"representation", []any{RepMrDAM, RepDrDAM}, func() encoding.TextUnmarshaler { return new(Representation) },
			func(s string) (any, error) { return ParseRepresentation(s) }, []encoding.TextMarshaler{Representation(3), Representation(-1)}, Representation(0)},
		{"similarity", []any{L2, Dot}, func() encoding.TextUnmarshaler { return new(Similarity) },
			func(s string) (any, error) { return ParseSimilarity(s) }, []encoding.TextMarshaler{Similarity(3)}, Similarity(0)},
		{"precision", []any{Float64, Float32}, func() encoding.TextUnmarshaler { return new(Precision) },
			func(s string) (any, error) { return ParsePrecision(s) }, []encoding.TextMarshaler{Precision(3)}, Precision(0)},
	}
	aliases := map[string][][]string{"representation": repNames.names, "similarity": simNames.names, "precision": precNames.names}
	deref := func(u encoding.TextUnmarshaler) any {
		switch p := u.(type) {
		case *Representation:
			return *p
		case *Similarity:
			return *p
		case *Precision:
			return *p
		}
		return nil
	}
	for _, e := range enums {
		for i, v := range e.values {
			m := v.(encoding.TextMarshaler)
			text, err := m.MarshalText()
			if err != nil || string(text) != v.(interface{ String() string }).String() {
				t.Fatalf("%s %v: MarshalText() = %q, %v", e.name, v, text, err)
			}
			for _, in := range append(slices.Clone(aliases[e.name][i+1]), strings.ToUpper(string(text))) {
				u := e.new()
				if err := u.UnmarshalText([]byte(in)); err != nil || deref(u) != v {
					t.Errorf("%s: UnmarshalText(%q) = %v, %v; want %v", e.name, in, deref(u), err, v)
				}
			}
			j, err := json.Marshal(v)
			u := e.new()
			if err != nil || string(j) != `"`+string(text)+`"` || json.Unmarshal(j, u) != nil || deref(u) != v {
				t.Errorf("%s %v in JSON: %s, %v, read back %v", e.name, v, j, err, deref(u))
			}
		}
		u := e.new()
		if err := u.UnmarshalText([]byte(e.values[0].(interface{ String() string }).String())); err != nil {
			t.Fatal(err)
		}
		if text, err := e.zero.MarshalText(); err != nil || len(text) != 0 || u.UnmarshalText(nil) != nil || deref(u) != e.zero {
			t.Errorf("%s 0: MarshalText() = %q, %v; UnmarshalText(\"\") gives %v", e.name, text, err, deref(u))
		}
		_, want := e.parse("nonesuch")
		if err := e.new().UnmarshalText([]byte("nonesuch")); err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("%s: UnmarshalText(nonesuch) = %v, want the Parse function's error %v", e.name, err, want)
		}
		for _, b := range e.bad {
			if text, err := b.MarshalText(); err == nil {
				t.Errorf("%s %v: MarshalText() = %q, want an error", e.name, b, text)
			}
		}
	}
}

// TestConfigJSON: a Config goes through JSON and back unchanged, with its
// defaults unset (zero) or filled by Validate, as Beam serializes the
// DoFns that hold one; its enumerations are names there.
func TestConfigJSON(t *testing.T) {
	unset := Config{D: 3, Beta: 10, Y: 64, Projection: features.Structured}
	full, err := unset.Validate()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []Config{unset, full, {}} {
		b, err := json.Marshal(c)
		var back Config
		if err != nil || json.Unmarshal(b, &back) != nil || back != c {
			t.Errorf("%+v: %s (%v) reads back as %+v", c, b, err, back)
		}
	}
	if b, _ := json.Marshal(full); !strings.Contains(string(b), `"Basis":"sincos","Projection":"structured"`) || !strings.Contains(string(b), `"Precision":"float64"`) {
		t.Errorf("%s: want the names of the enumerations", b)
	}
}
