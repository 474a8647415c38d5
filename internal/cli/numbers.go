package cli

import (
	"flag"
	"strconv"
	"strings"

	"github.com/drdam/drdam/dam"
)

// MaxCount bounds every count flag (dam.MaxCount, 2³⁰): more is a typing
// mistake that would ask for terabytes.
const MaxCount = dam.MaxCount

// Count is a flag.Value for a whole number in [Min, Max], written 20000,
// 2e4 or 20_000 (dam.ParseCount). Set's error says what is wanted ("want
// a whole number ≥ 1"); FlagMessage puts the flag and the value before it.
type Count struct {
	P        *int
	Min, Max int
}

// Set parses a count.
func (c Count) Set(s string) error {
	v, err := dam.ParseCount(s, c.Min, c.Max)
	if err != nil {
		return err
	}
	*c.P = v
	return nil
}

// String returns the count in decimal.
func (c Count) String() string {
	if c.P == nil {
		return "0"
	}
	return strconv.Itoa(*c.P)
}

// Get returns the count (flag.Getter).
func (c Count) Get() any { return *c.P }

// TypeName is the type that a usage message shows.
func (c Count) TypeName() string { return dam.KindCount.String() }

// Number is a flag.Value for a finite number that OK accepts (nil: any),
// Want saying which in words ("> 0") (dam.ParseNumber).
type Number struct {
	P    *float64
	OK   func(float64) bool
	Want string
}

// Set parses a number.
func (n Number) Set(s string) error {
	v, err := dam.ParseNumber(s, n.OK, n.Want)
	if err != nil {
		return err
	}
	*n.P = v
	return nil
}

// String returns the number as %g writes it.
func (n Number) String() string {
	if n.P == nil {
		return "0"
	}
	return strconv.FormatFloat(*n.P, 'g', -1, 64)
}

// Get returns the number (flag.Getter).
func (n Number) Get() any { return *n.P }

// TypeName is the type that a usage message shows.
func (n Number) TypeName() string { return dam.KindNumber.String() }

// Seed is a flag.Value for a seed: a whole number from 0 to 2⁶⁴−1, also
// written 1e6 or 1_000 (dam.ParseSeed).
type Seed struct{ P *uint64 }

// Set parses a seed.
func (s Seed) Set(v string) error {
	x, err := dam.ParseSeed(v)
	if err != nil {
		return err
	}
	*s.P = x
	return nil
}

// String returns the seed in decimal.
func (s Seed) String() string {
	if s.P == nil {
		return "0"
	}
	return strconv.FormatUint(*s.P, 10)
}

// Get returns the seed (flag.Getter).
func (s Seed) Get() any { return *s.P }

// TypeName is the type that a usage message shows.
func (s Seed) TypeName() string { return dam.KindSeed.String() }

// Bytes is a flag.Value for a number of bytes written with an optional
// binary or decimal unit: 512MiB, 8GiB, 8G (GiB), 2e9 (bytes)
// (dam.ParseBytes).
type Bytes int64

// String writes the size with a binary unit, or "" for 0.
func (b *Bytes) String() string {
	if b == nil || *b == 0 {
		return ""
	}
	return dam.Bytes(float64(*b))
}

// Set parses a size.
func (b *Bytes) Set(s string) error {
	v, err := dam.ParseBytes(s)
	if err != nil {
		return err
	}
	*b = Bytes(v)
	return nil
}

// TypeName is the type that a usage message shows.
func (b *Bytes) TypeName() string { return dam.KindBytes.String() }

// Forms makes a flag defined with the flag package's Int, Float64 or
// Uint64 read its value as Count (in [0, MaxCount]: every such flag of
// drdam is a count), Number and Seed do, so that every flag takes the
// same forms (2e4, 20_000) and reports a bad value the same way. Other
// flags, and those of this package, are left as they are.
func Forms(fl *flag.Flag) {
	g, ok := fl.Value.(flag.Getter)
	if _, typed := fl.Value.(interface{ TypeName() string }); !ok || typed {
		return
	}
	switch g.Get().(type) {
	case int:
		fl.Value = &forms{inner: fl.Value, kind: dam.KindCount}
	case float64:
		fl.Value = &forms{inner: fl.Value, kind: dam.KindNumber}
	case uint64:
		fl.Value = &forms{inner: fl.Value, kind: dam.KindSeed}
	}
}

// forms is the flag package's Int, Float64 or Uint64 value, parsed as
// Count, Number or Seed parse (Set passes it the canonical form).
type forms struct {
	inner flag.Value
	kind  dam.FieldKind
}

// Set parses v and sets the inner value to it.
func (w *forms) Set(v string) error {
	var canon string
	switch w.kind {
	case dam.KindCount:
		n, err := dam.ParseCount(v, 0, MaxCount)
		if err != nil {
			return err
		}
		canon = strconv.Itoa(n)
	case dam.KindNumber:
		x, err := dam.ParseNumber(v, nil, "")
		if err != nil {
			return err
		}
		canon = strconv.FormatFloat(x, 'g', -1, 64)
	default:
		x, err := dam.ParseSeed(v)
		if err != nil {
			return err
		}
		canon = strconv.FormatUint(x, 10)
	}
	return w.inner.Set(canon)
}

// String returns the inner value's String.
func (w *forms) String() string {
	if w.inner == nil {
		return "0"
	}
	return w.inner.String()
}

// Get returns the inner value (flag.Getter).
func (w *forms) Get() any { return w.inner.(flag.Getter).Get() }

// TypeName is the type that a usage message shows.
func (w *forms) TypeName() string { return w.kind.String() }

// SplitList splits a comma-separated list, dropping blanks: the list
// flags of the commands, and a list given as one string.
func SplitList(s string) []string {
	var out []string
	for _, k := range strings.Split(s, ",") {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	return out
}
