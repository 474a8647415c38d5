package dam

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/drdam/drdam/features"
)

// TestFieldsRoundTrip: every field's default text, given to Set, gives
// the field of DefaultConfig, and every field but d has a default and a
// help.
func TestFieldsRoundTrip(t *testing.T) {
	def := DefaultConfig()
	want := Config{Rep: RepDrDAM, Beta: 10, Similarity: L2, Precision: Float64, Y: 20000, Basis: features.SinCos,
		Projection: features.Gaussian, Generator: features.DefaultGenerator}
	if def != want {
		t.Errorf("DefaultConfig() = %+v, want %+v", def, want)
	}
	seen := map[string]bool{}
	for _, f := range Fields() {
		if seen[f.Name] {
			t.Errorf("field %q listed twice", f.Name)
		}
		seen[f.Name] = true
		if f.Help == "" || f.Kind.String() == "" || strings.HasPrefix(f.Kind.String(), "FieldKind") {
			t.Errorf("%s: help %q, kind %v", f.Name, f.Help, f.Kind)
		}
		if f.Default == "" {
			if f.Name != "d" {
				t.Errorf("%s has no default", f.Name)
			}
			continue
		}
		var c Config
		if err := c.Set(f.Name, f.Default); err != nil {
			t.Errorf("Set(%q, %q): %v", f.Name, f.Default, err)
		}
		d := def
		if err := d.Set(f.Name, f.Default); err != nil || d != def {
			t.Errorf("Set(%q, its default %q) on the defaults gives %+v, %v", f.Name, f.Default, d, err)
		}
	}
	if len(seen) != 14 {
		t.Errorf("%d fields, want 14", len(seen))
	}
}

// TestSet: each field reaches its Config field, in every form the
// commands take.
func TestSet(t *testing.T) {
	for _, tc := range []struct {
		field, value string
		check        func(Config) bool
	}{
		{"rep", "mrdam", func(c Config) bool { return c.Rep == RepMrDAM }},
		{"rep", "DR", func(c Config) bool { return c.Rep == RepDrDAM }},
		{"d", "2e2", func(c Config) bool { return c.D == 200 }},
		{"beta", "3.5", func(c Config) bool { return c.Beta == 3.5 }},
		{"beta", "-1", func(c Config) bool { return c.Beta == -1 }}, // Validate refuses it
		{"similarity", "dot", func(c Config) bool { return c.Similarity == Dot }},
		{"precision", "f32", func(c Config) bool { return c.Precision == Float32 }},
		{"max_memory", "2GiB", func(c Config) bool { return c.MaxMemory == 2<<30 }},
		{"max_memory", "1.5 KB", func(c Config) bool { return c.MaxMemory == 1500 }},
		{"y", "2e4", func(c Config) bool { return c.Y == 20000 }},
		{"y", "20_000", func(c Config) bool { return c.Y == 20000 }},
		{"basis", "expexp", func(c Config) bool { return c.Basis == features.ExpExp }},
		{"projection", "structured", func(c Config) bool { return c.Projection == features.Structured }},
		{"seed", "18446744073709551615", func(c Config) bool { return c.Seed == math.MaxUint64 }},
		{"seed", "1e6", func(c Config) bool { return c.Seed == 1e6 }},
		{"seed", "1_000", func(c Config) bool { return c.Seed == 1000 }},
		{"generator", "1", func(c Config) bool { return c.Generator == 1 }},
		{"no_bias", "true", func(c Config) bool { return c.NoBias }},
		{"eps", "0.01", func(c Config) bool { return c.Epsilon == 0.01 }},
		{"on_demand", "1", func(c Config) bool { return c.OnDemand }},
	} {
		c := DefaultConfig()
		if err := c.Set(tc.field, tc.value); err != nil || !tc.check(c) {
			t.Errorf("Set(%q, %q): %+v, %v", tc.field, tc.value, c, err)
		}
	}
}

// TestSetErrors: a bad value is a *ConfigError naming the field, saying
// what was wanted and what was found, and leaves the Config as it was.
func TestSetErrors(t *testing.T) {
	mr := DefaultConfig()
	mr.Rep = RepMrDAM
	for _, tc := range []struct {
		c            Config
		field, value string
		want         string
	}{
		{DefaultConfig(), "rep", "x", `unknown representation "x": want mrdam or drdam`},
		{DefaultConfig(), "d", "0", `out of range; want a whole number from 1 to 1073741824, found "0"`},
		{DefaultConfig(), "d", "four", `want a whole number from 1 to 1073741824, found "four"`},
		{DefaultConfig(), "beta", "NaN", `want a number, found "NaN"`},
		{DefaultConfig(), "similarity", "cosine", `unknown similarity "cosine"`},
		{DefaultConfig(), "precision", "half", `unknown precision "half"`},
		{DefaultConfig(), "max_memory", "-1GiB", `want a size such as 8GiB, 512MiB or 2e9 (bytes), found "-1GiB"`},
		{DefaultConfig(), "y", "2.5", `want a whole number from 0 to 1073741824, found "2.5"`},
		{DefaultConfig(), "y", "1e12", `out of range; want a whole number from 0 to 1073741824, found "1e12"`},
		{DefaultConfig(), "y", "many", `want a whole number from 0 to 1073741824, found "many"`},
		{DefaultConfig(), "basis", "sine", `unknown basis "sine"`},
		{DefaultConfig(), "projection", "x", `projection`},
		{DefaultConfig(), "seed", "-1", `want a whole number from 0 to 18446744073709551615, found "-1"`},
		{DefaultConfig(), "generator", "x", `want a whole number from 0 to 1073741824, found "x"`},
		{DefaultConfig(), "no_bias", "maybe", `want true or false, found "maybe"`},
		{DefaultConfig(), "eps", "inf", `want a number, found "inf"`},
		{DefaultConfig(), "on_demand", "2", `want true or false, found "2"`},
		{DefaultConfig(), "colour", "red", `unknown field "colour" (the fields are rep, d, beta,`},
		{mr, "y", "100", "only applies to a drdam, and rep is mrdam"},
		{mr, "no_bias", "true", "only applies to a drdam, and rep is mrdam"},
	} {
		c := tc.c
		err := c.Set(tc.field, tc.value)
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field || !strings.Contains(ce.Msg, tc.want) {
			t.Errorf("Set(%q, %q) = %v, want a ConfigError on %s saying %q", tc.field, tc.value, err, tc.field, tc.want)
		}
		if c != tc.c {
			t.Errorf("Set(%q, %q) changed the config on an error: %+v", tc.field, tc.value, c)
		}
	}
}

// TestSetAll: rep is set first whatever the order, so that a DrDAM-only
// field of an mrdam is refused naming it.
func TestSetAll(t *testing.T) {
	c := DefaultConfig()
	err := c.SetAll(map[string]string{"y": "100", "basis": "cos", "rep": "mrdam"})
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Field != "y" {
		t.Errorf("mrdam with y and basis: %v, want an error on y", err)
	}
	c = DefaultConfig()
	if err := c.SetAll(map[string]string{"rep": "mrdam", "beta": "3", "d": "4"}); err != nil || c.Rep != RepMrDAM || c.Beta != 3 || c.D != 4 {
		t.Errorf("mrdam: %+v, %v", c, err)
	}
	c = DefaultConfig()
	if err := c.SetAll(map[string]string{"beta": "3", "colour": "red"}); !errors.As(err, &ce) || ce.Field != "colour" {
		t.Errorf("unknown field: %v", err)
	}
}

// TestValidateFieldNames: Validate's errors name the codec's fields.
func TestValidateFieldNames(t *testing.T) {
	for _, tc := range []struct {
		c     Config
		field string
	}{
		{Config{D: 4, Beta: 0, Y: 10}, "beta"},
		{Config{D: 0, Beta: 1, Y: 10}, "d"},
		{Config{D: 4, Beta: 1, Y: 0}, "y"},
		{Config{D: 4, Beta: 1, Y: 10, Epsilon: -1}, "eps"},
		{Config{D: 4, Beta: 1, Y: 10, Generator: 3}, "generator"},
		{Config{D: 4, Beta: 1, Y: 10, MaxMemory: -1}, "max_memory"},
		{Config{D: 4, Beta: 1, Y: 10, Projection: features.Orthogonal, OnDemand: true}, "on_demand"},
		{Config{D: 4, Beta: 1, Y: 10, Rep: 7}, "rep"},
		{Config{D: 4, Beta: 1, Y: 10, Basis: 99}, "basis"},
		{Config{D: 4, Beta: 1, Y: 10, Projection: 99}, "projection"},
		{Config{D: 4, Beta: 1, Y: 10, Similarity: 9}, "similarity"},
		{Config{D: 4, Beta: 1, Y: 10, Precision: 9}, "precision"},
	} {
		_, err := tc.c.Validate()
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field || field(ce.Field) == nil {
			t.Errorf("Validate(%+v) = %v, want a ConfigError on %s", tc.c, err, tc.field)
		}
	}
}

// TestParseNumbers: the forms of numbers every command takes.
func TestParseNumbers(t *testing.T) {
	if v, err := ParseCount("1e5", 1, MaxCount); err != nil || v != 100000 {
		t.Errorf("ParseCount(1e5) = %d, %v", v, err)
	}
	if _, err := ParseCount("3", 1, 2); err == nil || err.Error() != "out of range; want a whole number from 1 to 2" {
		t.Errorf("ParseCount(3, 1, 2): %v", err)
	}
	if v, err := ParseNumber("0.5", func(v float64) bool { return v > 0 }, "> 0"); err != nil || v != 0.5 {
		t.Errorf("ParseNumber(0.5) = %v, %v", v, err)
	}
	if _, err := ParseNumber("0", func(v float64) bool { return v > 0 }, "> 0"); err == nil || err.Error() != "want a number > 0" {
		t.Errorf("ParseNumber(0): %v", err)
	}
	for s, want := range map[string]int64{"512MiB": 512 << 20, "8G": 8 << 30, "2e9": 2e9, "1.5 KB": 1500, "0": 0, "3B": 3} {
		if v, err := ParseBytes(s); err != nil || v != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", s, v, err, want)
		}
	}
	for _, s := range []string{"", "x", "-1GiB", "1e30TiB", "NaN"} {
		if _, err := ParseBytes(s); err == nil {
			t.Errorf("ParseBytes(%q) succeeded", s)
		}
	}
}
