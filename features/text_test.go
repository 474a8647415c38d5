package features

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBasisText: every basis writes its name and reads it back (in any
// case, and inside JSON); the zero value (unset) writes and reads as "";
// a bad name's error is ParseBasis's, and a value that is not a basis has
// no text.
func TestBasisText(t *testing.T) {
	for _, b := range Bases() {
		text, err := b.MarshalText()
		if err != nil || string(text) != b.String() {
			t.Fatalf("%v.MarshalText() = %q, %v", b, text, err)
		}
		for _, in := range []string{b.String(), strings.ToUpper(b.String())} {
			var got Basis
			if err := got.UnmarshalText([]byte(in)); err != nil || got != b {
				t.Errorf("UnmarshalText(%q) = %v, %v; want %v", in, got, err, b)
			}
		}
		j, err := json.Marshal([]Basis{b})
		var back []Basis
		if err != nil || string(j) != `["`+b.String()+`"]` || json.Unmarshal(j, &back) != nil || back[0] != b {
			t.Errorf("%v in JSON: %s, %v, read back %v", b, j, err, back)
		}
	}
	b := SinCos
	if text, err := Basis(0).MarshalText(); err != nil || len(text) != 0 || b.UnmarshalText(nil) != nil || b != 0 {
		t.Errorf("Basis(0): MarshalText() = %q, %v; UnmarshalText(\"\") gives %v", text, err, b)
	}
	_, want := ParseBasis("sine")
	if err := b.UnmarshalText([]byte("sine")); err == nil || err.Error() != want.Error() || b != 0 {
		t.Errorf("UnmarshalText(sine) = %v, %v; want ParseBasis's error %v", b, err, want)
	}
	for _, bad := range []Basis{Basis(len(bases)), -1} {
		if text, err := bad.MarshalText(); err == nil {
			t.Errorf("Basis(%d).MarshalText() = %q, want an error", int(bad), text)
		}
	}
}

// TestProjectionKindText: every kind that ParseProjectionKind reads
// writes its canonical name and reads it back, from its aliases too; the
// zero value (unset) writes and reads as ""; a bad name's error is
// ParseProjectionKind's, and a kind without a name that reads back
// (External, or no kind at all) has no text.
func TestProjectionKindText(t *testing.T) {
	for _, k := range ProjectionKinds() {
		text, err := k.MarshalText()
		if err != nil || string(text) != k.String() {
			t.Fatalf("%v.MarshalText() = %q, %v", k, text, err)
		}
		for _, in := range append([]string{k.String(), strings.ToUpper(k.String())}, kinds[k].aliases...) {
			var got ProjectionKind
			if err := got.UnmarshalText([]byte(in)); err != nil || got != k {
				t.Errorf("UnmarshalText(%q) = %v, %v; want %v", in, got, err, k)
			}
		}
		j, err := json.Marshal(k)
		var back ProjectionKind
		if err != nil || string(j) != `"`+k.String()+`"` || json.Unmarshal(j, &back) != nil || back != k {
			t.Errorf("%v in JSON: %s, %v, read back %v", k, j, err, back)
		}
	}
	k := Structured
	if text, err := ProjectionKind(0).MarshalText(); err != nil || len(text) != 0 || k.UnmarshalText(nil) != nil || k != 0 {
		t.Errorf("ProjectionKind(0): MarshalText() = %q, %v; UnmarshalText(\"\") gives %v", text, err, k)
	}
	_, want := ParseProjectionKind("hadamard")
	if err := k.UnmarshalText([]byte("hadamard")); err == nil || err.Error() != want.Error() || k != 0 {
		t.Errorf("UnmarshalText(hadamard) = %v, %v; want ParseProjectionKind's error %v", k, err, want)
	}
	for _, bad := range []ProjectionKind{External, ProjectionKind(len(kinds)), -1} {
		if text, err := bad.MarshalText(); err == nil {
			t.Errorf("%v.MarshalText() = %q, want an error", bad, text)
		}
	}
}
