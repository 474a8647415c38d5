package dam

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/drdam/drdam/features"
)

// The codec of a Config: every field as text, with its name, help,
// default and parser, written once in the table configFields. Its names
// are the JSON names of drdam serve's configurations (serve/api.Config)
// and, with "_" written "-", the flags of drdam encode and drdam-beam
// encode (package internal/cli). Set parses one field; SetAll parses
// several, rep first; Fields lists them; DefaultConfig is the defaults.

// FieldKind is the kind of text a field of a Config takes.
type FieldKind int

// The kinds of fields.
const (
	KindCount  FieldKind = iota + 1 // a whole number in a range (ParseCount)
	KindNumber                      // a finite number (ParseNumber)
	KindSeed                        // a whole number from 0 to 2⁶⁴−1 (ParseSeed)
	KindBytes                       // a size in bytes, with an optional unit (ParseBytes)
	KindName                        // a name from a list (a representation, a basis, …)
	KindBool                        // true or false
)

// String returns the kind's name as a usage message shows it: int,
// float, uint, size, string or bool.
func (k FieldKind) String() string {
	switch k {
	case KindCount:
		return "int"
	case KindNumber:
		return "float"
	case KindSeed:
		return "uint"
	case KindBytes:
		return "size"
	case KindName:
		return "string"
	case KindBool:
		return "bool"
	}
	return fmt.Sprintf("FieldKind(%d)", int(k))
}

// Field is one field of a Config as text.
type Field struct {
	// Name is the field's name: the JSON name of serve/api.Config, and
	// (with "_" written "-") the encode flag, e.g. "no_bias".
	Name string
	// Help says what the field is and which values it takes.
	Help string
	// Default is the text of the default, as Set reads it; "" for a field
	// without one (d, which the patterns give).
	Default string
	// Kind is the kind of text the field takes.
	Kind FieldKind
	// DrDAMOnly marks the fields that only a DrDAM has: Set refuses them
	// for a Config whose Rep is RepMrDAM.
	DrDAMOnly bool

	set func(c *Config, s string) error // parses s into its field of c
}

// configFields is the codec: each field of a Config, in the order SetAll
// sets them (rep first, then the fields of every model, then the DrDAM's).
var configFields = []Field{
	{Name: "rep", Kind: KindName, Default: "drdam",
		Help: "representation: drdam (distributed) or mrdam (memory)",
		set: func(c *Config, s string) (err error) {
			c.Rep, err = ParseRepresentation(s)
			return err
		}},
	{Name: "d", Kind: KindCount,
		Help: "dimension D of the patterns (drdam encode: the number of columns of --patterns)",
		set:  func(c *Config, s string) (err error) { c.D, err = ParseCount(s, 1, MaxCount); return wantFound(err, s) }},
	{Name: "beta", Kind: KindNumber, Default: "10",
		Help: "inverse temperature β > 0 (10 is the smallest β of the paper's Fig. 3 grid: the higher β, the more features a DrDAM needs for the same error)",
		set:  func(c *Config, s string) (err error) { c.Beta, err = ParseNumber(s, nil, ""); return wantFound(err, s) }},
	{Name: "similarity", Kind: KindName, Default: "l2",
		Help: "energy: l2 (−(1/β) log Σ exp(−β/2‖x−ξ‖²)) or dot (−(1/β) log Σ exp(β⟨ξ,x⟩) + ½‖x‖²)",
		set: func(c *Config, s string) (err error) {
			c.Similarity, err = ParseSimilarity(s)
			return err
		}},
	{Name: "precision", Kind: KindName, Default: "float64",
		Help: "compute precision: float64 or float32 (about twice as fast; T and results stay float64)",
		set: func(c *Config, s string) (err error) {
			c.Precision, err = ParsePrecision(s)
			return err
		}},
	{Name: "max_memory", Kind: KindBytes, Default: "0",
		Help: "memory budget of the model, e.g. 8GiB: a model that needs more is refused before it is built (0, the default: DefaultBudget, three quarters of this machine's memory or of ulimit -v)",
		set:  func(c *Config, s string) (err error) { c.MaxMemory, err = ParseBytes(s); return wantFound(err, s) }},
	{Name: "y", Kind: KindCount, Default: "20000", DrDAMOnly: true,
		Help: "DrDAM number of random projections Y (sincos and expexp have 2Y features; 20000 is the middle of the Y of Fig. 3's quick grid)",
		set:  func(c *Config, s string) (err error) { c.Y, err = ParseCount(s, 0, MaxCount); return wantFound(err, s) }},
	{Name: "basis", Kind: KindName, Default: "sincos", DrDAMOnly: true,
		Help: "DrDAM feature basis: " + features.BasisNames(),
		set: func(c *Config, s string) (err error) {
			c.Basis, err = features.ParseBasis(s)
			return err
		}},
	{Name: "projection", Kind: KindName, Default: "gaussian", DrDAMOnly: true,
		Help: "DrDAM random projection: gaussian (iid, dense), orthogonal (ORF, dense) or structured (SORF: O(Y log D) per product, O(Y) memory)",
		set: func(c *Config, s string) (err error) {
			c.Projection, err = features.ParseProjectionKind(s)
			return err
		}},
	{Name: "seed", Kind: KindSeed, Default: "0", DrDAMOnly: true,
		Help: "DrDAM seed of the random projection and shift",
		set:  func(c *Config, s string) (err error) { c.Seed, err = ParseSeed(s); return wantFound(err, s) }},
	{Name: "generator", Kind: KindCount, Default: strconv.Itoa(int(features.DefaultGenerator)), DrDAMOnly: true,
		Help: "DrDAM generator version of a dense (gaussian, orthogonal) projection's Gaussians: 2 (vectorized) or 1 (the one of format-1 model files, about twenty times slower); part of the model, like the seed",
		set: func(c *Config, s string) error {
			g, err := ParseCount(s, 0, MaxCount)
			c.Generator = features.Generator(g)
			return wantFound(err, s)
		}},
	{Name: "no_bias", Kind: KindBool, Default: "false", DrDAMOnly: true,
		Help: "DrDAM: do not add the random shift b inside cos/sin",
		set:  func(c *Config, s string) (err error) { c.NoBias, err = parseBool(s); return wantFound(err, s) }},
	{Name: "eps", Kind: KindNumber, Default: "0", DrDAMOnly: true,
		Help: "DrDAM clip floor ε of φ(x)·T; 0 means the basis default (1e-5 for cos/sincos, 0 for exp/expexp)",
		set: func(c *Config, s string) (err error) {
			c.Epsilon, err = ParseNumber(s, nil, "")
			return wantFound(err, s)
		}},
	{Name: "on_demand", Kind: KindBool, Default: "false", DrDAMOnly: true,
		Help: "DrDAM with the gaussian projection: regenerate its rows from the seed at every evaluation instead of storing them (O(Y+D) memory, much slower)",
		set:  func(c *Config, s string) (err error) { c.OnDemand, err = parseBool(s); return wantFound(err, s) }},
}

// Fields returns the fields of a Config in the order SetAll sets them:
// rep, d, beta, similarity, precision, max_memory, then the DrDAM's y,
// basis, projection, seed, generator, no_bias, eps and on_demand. The help
// of max_memory gives this machine's DefaultBudget.
func Fields() []Field {
	out := make([]Field, len(configFields))
	copy(out, configFields)
	for i := range out {
		if out[i].Name == "max_memory" { // the budget of this machine, read now
			out[i].Help = strings.Replace(out[i].Help, "DefaultBudget", Bytes(float64(DefaultBudget())), 1)
		}
	}
	return out
}

// field returns the field named name, or nil.
func field(name string) *Field {
	for i := range configFields {
		if configFields[i].Name == name {
			return &configFields[i]
		}
	}
	return nil
}

// FieldNames returns the names of the fields, in the order of Fields.
func FieldNames() []string {
	names := make([]string, len(configFields))
	for i, f := range configFields {
		names[i] = f.Name
	}
	return names
}

// DefaultConfig returns the configuration that the defaults of Fields
// give: a DrDAM of β = 10, Y = 20000, the L2 energy, the SinCos basis, the
// Gaussian projection, seed 0 and generator 2, in float64, with D 0 (to be
// set) and the default memory budget.
func DefaultConfig() Config {
	var c Config
	for _, f := range configFields {
		if f.Default == "" {
			continue
		}
		if err := f.set(&c, f.Default); err != nil {
			panic(fmt.Sprintf("dam: the default of %s, %q: %v", f.Name, f.Default, err))
		}
	}
	return c
}

// Set sets the field named name (a name of Fields: "beta", "no_bias")
// from its text. The error is a *ConfigError naming the field, with what
// was wanted and what was found: a name that is not a field, a value of
// the wrong form (`want a whole number from 0 to 1073741824, found
// "2.5"`, `unknown basis "sine": want …`), or a DrDAM-only field set on a
// Config whose Rep is RepMrDAM. Set checks the form of a value only;
// Validate checks the values together (β > 0, Y > 0, …).
func (c *Config) Set(name, value string) error {
	f := field(name)
	if f == nil {
		return &ConfigError{Field: name, Msg: fmt.Sprintf("unknown field %q (the fields are %s)", name, strings.Join(FieldNames(), ", "))}
	}
	if f.DrDAMOnly && c.Rep == RepMrDAM {
		return &ConfigError{Field: name, Msg: "only applies to a drdam, and rep is mrdam"}
	}
	t := *c // c is left as it was on an error
	if err := f.set(&t, value); err != nil {
		return &ConfigError{Field: name, Msg: err.Error()}
	}
	*c = t
	return nil
}

// SetAll sets the fields named in values (name → text) as Set does, in
// the order of Fields: rep first, so that a DrDAM-only field given with
// rep mrdam is refused whatever the order in which the values came. It
// returns the first error, a *ConfigError; a name that is not a field is
// one too (the first in alphabetical order).
func (c *Config) SetAll(values map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(values)) {
		if field(name) == nil {
			return c.Set(name, values[name])
		}
	}
	for _, f := range configFields {
		if s, ok := values[f.Name]; ok {
			if err := c.Set(f.Name, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// wantFound completes an error of a parser of numbers, which says what
// was wanted, with the text found.
func wantFound(err error, s string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%v, found %q", err, s)
}

// parseBool parses true or false as strconv.ParseBool does (1, t, T,
// TRUE, true, True, 0, f, …).
func parseBool(s string) (bool, error) {
	v, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		return false, errors.New("want true or false")
	}
	return v, nil
}

// MaxCount bounds every count: 2³⁰ (1073741824) is more than any of them
// can use in memory or time, and a larger value is a typing mistake
// (y = 1e12 would ask for terabytes).
const MaxCount = 1 << 30

// ParseCount parses s as a whole number in [min, max], written 20000, 2e4
// or 20_000. Its error says what was wanted, in words ("want a whole
// number ≥ 1", "out of range; want a whole number from 0 to 1073741824"),
// for the caller to put after the field or flag and the value.
func ParseCount(s string, min, max int) (int, error) {
	t := strings.TrimSpace(s)
	f, err := strconv.ParseFloat(t, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, errors.New("want a whole number" + rangeText(min, max))
	}
	v, ierr := strconv.ParseInt(strings.ReplaceAll(t, "_", ""), 10, 64)
	switch {
	case ierr == nil:
	case errors.Is(ierr, strconv.ErrRange) || math.IsInf(f, 0) || math.Abs(f) >= 1<<62:
		return 0, errors.New("out of range; want a whole number" + rangeText(min, max))
	case f != math.Trunc(f) || math.IsNaN(f):
		return 0, errors.New("want a whole number" + rangeText(min, max))
	default:
		v = int64(f) // 2e4: exact, since |f| < 2⁶²
	}
	if v < int64(min) || v > int64(max) {
		return 0, errors.New("out of range; want a whole number" + rangeText(min, max))
	}
	return int(v), nil
}

// rangeText says which whole numbers a count accepts.
func rangeText(min, max int) string {
	switch {
	case max >= math.MaxInt32 && min == 0:
		return " ≥ 0"
	case max >= math.MaxInt32:
		return fmt.Sprintf(" ≥ %d", min)
	default:
		return fmt.Sprintf(" from %d to %d", min, max)
	}
}

// ParseNumber parses s as a finite number that ok accepts (nil: any;
// want says which in words, e.g. "> 0"). Its error says what was wanted
// ("want a number > 0").
func ParseNumber(s string, ok func(float64) bool, want string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if want != "" {
		want = " " + want
	}
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || (ok != nil && !ok(v)) {
		return 0, errors.New("want a number" + want)
	}
	return v, nil
}

// ParseSeed parses s as a seed: a whole number from 0 to 2⁶⁴−1, also
// written 1e6 or 1_000. Its error says what was wanted.
func ParseSeed(s string) (uint64, error) {
	t := strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	if v, err := strconv.ParseUint(t, 10, 64); err == nil {
		return v, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f < 0 || f != math.Trunc(f) || f >= 1<<53 {
		return 0, fmt.Errorf("want a whole number from 0 to %d", uint64(math.MaxUint64))
	}
	return uint64(f), nil
}

// ParseBytes parses s as a number of bytes written with an optional
// binary or decimal unit: 512MiB, 8GiB, 8G (GiB), 2e9 (bytes), 1.5 KB. A
// bare K, M, G or T is binary. Its error says what was wanted.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := 1.0
	for _, u := range []struct {
		suffix string
		m      float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1}} {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(rest), u.m
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v >= 0) || v*mult > 1<<62 {
		return 0, errors.New("want a size such as 8GiB, 512MiB or 2e9 (bytes)")
	}
	return int64(v * mult), nil
}
