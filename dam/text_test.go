package dam

import (
	"encoding"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// textEnum is one enumeration of a configuration for TestEnumText.
type textEnum struct {
	name   string
	values []any // every value, by value
	new    func() encoding.TextUnmarshaler
	parse  func(string) (any, error)
	bad    []encoding.TextMarshaler // values without a name
}

// TestEnumText: every value of Representation, Similarity and Precision
// writes its name and reads it back (from its aliases, in any case, and
// inside JSON); a bad name's error is the Parse function's, and a value
// without a name has no text.
func TestEnumText(t *testing.T) {
	enums := []textEnum{
		{"representation", []any{RepMrDAM, RepDrDAM}, func() encoding.TextUnmarshaler { return new(Representation) },
			func(s string) (any, error) { return ParseRepresentation(s) }, []encoding.TextMarshaler{Representation(0), Representation(3), Representation(-1)}},
		{"similarity", []any{L2, Dot}, func() encoding.TextUnmarshaler { return new(Similarity) },
			func(s string) (any, error) { return ParseSimilarity(s) }, []encoding.TextMarshaler{Similarity(0), Similarity(3)}},
		{"precision", []any{Float64, Float32}, func() encoding.TextUnmarshaler { return new(Precision) },
			func(s string) (any, error) { return ParsePrecision(s) }, []encoding.TextMarshaler{Precision(0), Precision(3)}},
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
