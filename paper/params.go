package paper

import (
	"encoding"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
)

// Value is the value of a parameter, read and written as text: a flag, a
// line of a script or a field of config.json.
type Value interface {
	encoding.TextMarshaler
	encoding.TextUnmarshaler
}

// Param is one parameter of an experiment: its name (the command's flag is
// --Name), what it does, the kind of value and its default, for a help
// text, and its value.
type Param struct {
	Name string
	Help string
	// Type names the kind of value for a help text: "string", "int",
	// "float", "uint", or "" for a switch, which is true when named alone.
	Type string
	// Default is the default as a help text shows it ("" when the default
	// depends on other parameters, which Help then says).
	Default string
	Value   Value

	set bool
}

// Set sets the parameter's value from text and marks it as given: a value
// given overrides what --config and the scale would set.
func (p *Param) Set(text string) error {
	if err := p.Value.UnmarshalText([]byte(text)); err != nil {
		if ve, ok := err.(*valueError); ok {
			return &ParamError{Name: p.Name, Value: ve.value, Msg: ve.msg}
		}
		return &ParamError{Name: p.Name, Msg: err.Error()}
	}
	p.set = true
	return nil
}

// IsSet reports whether the parameter was given (by Set).
func (p *Param) IsSet() bool { return p.set }

// String returns the value as text.
func (p *Param) String() string {
	b, err := p.Value.MarshalText()
	if err != nil {
		return ""
	}
	return string(b)
}

// IsSwitch reports whether the parameter is a switch (Type ""): true when
// named without a value.
func (p *Param) IsSwitch() bool { return p.Type == "" }

// Params are the parameters of one run of an experiment, made by its
// Params method with the defaults of a scale, then set one by one.
type Params struct {
	// Version is the program's version, recorded with the results.
	Version string
	// Command is the command line that runs the experiment, recorded by
	// those that write it into their outputs ("" for none).
	Command string

	list []*Param
	cfg  any // the experiment's configuration, which the values fill
}

// List returns the parameters, in the order the experiment defines them.
func (ps *Params) List() []*Param { return ps.list }

// Lookup returns the parameter called name, or nil.
func (ps *Params) Lookup(name string) *Param {
	for _, p := range ps.list {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Set sets the parameter called name from text.
func (ps *Params) Set(name, text string) error {
	p := ps.Lookup(name)
	if p == nil {
		return &ParamError{Name: name, Msg: "no such parameter"}
	}
	return p.Set(text)
}

// isSet reports whether the parameter called name was given.
func (ps *Params) isSet(name string) bool {
	p := ps.Lookup(name)
	return p != nil && p.set
}

// add adds a parameter whose default is its value's text now.
func (ps *Params) add(name string, v Value, typ, help string) *Param {
	p := &Param{Name: name, Help: help, Type: typ, Value: v}
	p.Default = p.String()
	ps.list = append(ps.list, p)
	return p
}

// A ParamError is a parameter out of range, unknown or inconsistent with
// another: a command reports it as a usage error, naming the flag of the
// parameter.
type ParamError struct {
	Name  string // the parameter
	Value string // the value refused, as given ("" when Msg says it)
	Msg   string // what is wrong, or what is wanted
}

// Error names the parameter, the value refused and what was wanted.
func (e *ParamError) Error() string {
	if e.Value != "" {
		return fmt.Sprintf("parameter %q: %s: %s", e.Name, e.Value, e.Msg)
	}
	return fmt.Sprintf("parameter %q: %s", e.Name, e.Msg)
}

// valueErr returns the ParamError of parameter name whose value v a parser
// refused with err, which may begin with v quoted.
func valueErr(name, v string, err error) error {
	q := strconv.Quote(v)
	if msg, ok := strings.CutPrefix(err.Error(), q+": "); ok {
		return &ParamError{Name: name, Value: q, Msg: msg}
	}
	return &ParamError{Name: name, Msg: err.Error()}
}

// paramErrorf returns the ParamError of parameter name: its value v
// (formatted with %v, "" for none) and the message.
func paramErrorf(name string, v any, format string, args ...any) error {
	val := ""
	if v != nil {
		val = fmt.Sprint(v)
	}
	return &ParamError{Name: name, Value: val, Msg: fmt.Sprintf(format, args...)}
}

// valueError is a text that a Value refuses: Param.Set names the
// parameter.
type valueError struct{ value, msg string }

// Error returns the value and what is wrong.
func (e *valueError) Error() string { return e.value + ": " + e.msg }

// refuse returns the valueError of text s (quoted) with what is wanted.
func refuse(s, want string) error { return &valueError{strconv.Quote(s), want} }

// countOf, numberOf and seedOf read a number in the forms of dam's codec
// (dam.ParseCount, ParseNumber, ParseSeed: 20000, 2e4, 20_000) and return
// what was wanted, in words, when s is not one.
func countOf(s string, min, max int) (int, string) {
	n, err := dam.ParseCount(s, min, max)
	return n, wanted(err)
}

func numberOf(s string, ok func(float64) bool, want string) (float64, string) {
	x, err := dam.ParseNumber(s, ok, want)
	return x, wanted(err)
}

func seedOf(s string) (uint64, string) {
	x, err := dam.ParseSeed(s)
	return x, wanted(err)
}

func wanted(err error) string {
	if err != nil {
		return err.Error()
	}
	return ""
}

// countValue is a whole number in [min, max], written 20000, 2e4 or 20_000.
type countValue struct {
	p        *int
	min, max int
}

// MarshalText writes the value as text.
func (v countValue) MarshalText() ([]byte, error) { return []byte(strconv.Itoa(*v.p)), nil }

// UnmarshalText reads the value from text.
func (v countValue) UnmarshalText(b []byte) error {
	n, want := countOf(string(b), v.min, v.max)
	if want != "" {
		return refuse(string(b), want)
	}
	*v.p = n
	return nil
}

// numberValue is a finite number that ok accepts (nil: any); want says
// which in words.
type numberValue struct {
	p    *float64
	ok   func(float64) bool
	want string
}

// MarshalText writes the value as text.
func (v numberValue) MarshalText() ([]byte, error) {
	return []byte(strconv.FormatFloat(*v.p, 'g', -1, 64)), nil
}

// UnmarshalText reads the value from text.
func (v numberValue) UnmarshalText(b []byte) error {
	x, want := numberOf(string(b), v.ok, v.want)
	if want != "" {
		return refuse(string(b), want)
	}
	*v.p = x
	return nil
}

// seedValue is a seed: a whole number from 0 to 2⁶⁴−1.
type seedValue struct{ p *uint64 }

// MarshalText writes the value as text.
func (v seedValue) MarshalText() ([]byte, error) { return []byte(strconv.FormatUint(*v.p, 10)), nil }

// UnmarshalText reads the value from text.
func (v seedValue) UnmarshalText(b []byte) error {
	x, want := seedOf(string(b))
	if want != "" {
		return refuse(string(b), want)
	}
	*v.p = x
	return nil
}

// stringValue is any text.
type stringValue struct{ p *string }

// MarshalText writes the value as text.
func (v stringValue) MarshalText() ([]byte, error) { return []byte(*v.p), nil }

// UnmarshalText reads the value from text.
func (v stringValue) UnmarshalText(b []byte) error { *v.p = string(b); return nil }

// switchValue is true or false (1, t, T, TRUE, true, True, 0, f, ...).
type switchValue struct{ p *bool }

// MarshalText writes the value as text.
func (v switchValue) MarshalText() ([]byte, error) { return []byte(strconv.FormatBool(*v.p)), nil }

// UnmarshalText reads the value from text.
func (v switchValue) UnmarshalText(b []byte) error {
	x, err := strconv.ParseBool(string(b))
	if err != nil {
		return refuse(string(b), "want true or false")
	}
	*v.p = x
	return nil
}

// listValue is a comma-separated list, each element read by elem (which
// returns what it wanted, or "").
type listValue[T any] struct {
	p    *[]T
	elem func(string) (T, string)
}

// MarshalText writes the value as text.
func (v listValue[T]) MarshalText() ([]byte, error) { return []byte(joinList(*v.p)), nil }

// UnmarshalText reads the value from text.
func (v listValue[T]) UnmarshalText(b []byte) error {
	s := string(b)
	var parts []string
	for _, k := range strings.Split(s, ",") {
		if k = strings.TrimSpace(k); k != "" {
			parts = append(parts, k)
		}
	}
	if len(parts) == 0 {
		return refuse(s, "empty list")
	}
	out := make([]T, len(parts))
	for i, p := range parts {
		x, want := v.elem(p)
		if want != "" {
			if len(parts) == 1 {
				return refuse(p, want)
			}
			return &valueError{strconv.Quote(s), fmt.Sprintf("element %d, %q: %s", i+1, p, want)}
		}
		out[i] = x
	}
	*v.p = out
	return nil
}

// joinList joins values with commas, as a list's text.
func joinList[T any](v []T) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

// words accepts any non-empty word (file names).
func words(s string) (string, string) { return s, "" }

// counts returns a list of counts ≥ 1 (the axes D, K, Y).
func counts(p *[]int) listValue[int] {
	return listValue[int]{p, func(s string) (int, string) { return countOf(s, 1, dam.MaxCount) }}
}

// positives returns a list of numbers > 0 (β, the ratios).
func positives(p *[]float64) listValue[float64] {
	return listValue[float64]{p, func(s string) (float64, string) { return numberOf(s, isPositive, "> 0") }}
}

// enumValue is one of a set of names, parsed by parse (a feature basis, a
// projection kind, a precision).
type enumValue[T fmt.Stringer] struct {
	p     *T
	parse func(string) (T, error)
}

// MarshalText writes the value as text.
func (v enumValue[T]) MarshalText() ([]byte, error) { return []byte((*v.p).String()), nil }

// UnmarshalText reads the value from text.
func (v enumValue[T]) UnmarshalText(b []byte) error {
	x, err := v.parse(string(b))
	if err != nil {
		return err
	}
	*v.p = x
	return nil
}

// basisValue, projectionValue and precisionValue are the enumerations of
// the models' settings.
func basisValue(p *features.Basis) enumValue[features.Basis] {
	return enumValue[features.Basis]{p, features.ParseBasis}
}

func projectionValue(p *features.ProjectionKind) enumValue[features.ProjectionKind] {
	return enumValue[features.ProjectionKind]{p, features.ParseProjectionKind}
}

func precisionValue(p *dam.Precision) enumValue[dam.Precision] {
	return enumValue[dam.Precision]{p, dam.ParsePrecision}
}

// enumListValue is a non-empty comma-separated list of distinct names of
// an enumeration (bases, projection kinds).
type enumListValue[T interface {
	comparable
	fmt.Stringer
}] struct {
	p     *[]T
	parse func(string) (T, error)
}

// MarshalText writes the value as text.
func (v enumListValue[T]) MarshalText() ([]byte, error) { return []byte(joinList(*v.p)), nil }

// UnmarshalText reads the value from text.
func (v enumListValue[T]) UnmarshalText(b []byte) error {
	var xs []T
	for _, s := range strings.Split(string(b), ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		x, err := v.parse(s)
		if err != nil {
			return err
		}
		if slices.Contains(xs, x) {
			return fmt.Errorf("%v is listed twice", x)
		}
		xs = append(xs, x)
	}
	if len(xs) == 0 {
		return refuse(string(b), "empty list")
	}
	*v.p = xs
	return nil
}

// projectionsValue and basesValue are lists of projection kinds and of
// bases.
func projectionsValue(p *[]features.ProjectionKind) enumListValue[features.ProjectionKind] {
	return enumListValue[features.ProjectionKind]{p, features.ParseProjectionKind}
}

func basesValue(p *[]features.Basis) enumListValue[features.Basis] {
	return enumListValue[features.Basis]{p, features.ParseBasis}
}

// isPositive, isNonNegative and isFraction are the ranges of numbers.
func isPositive(v float64) bool    { return v > 0 }
func isNonNegative(v float64) bool { return v >= 0 }
func isFraction(v float64) bool    { return v >= 0 && v <= 1 }
