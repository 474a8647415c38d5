package cli

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxCount bounds every count flag: 2³⁰ (1073741824) is more than any of
// them can use in memory or time, and a larger value is a typing mistake
// (--y 1e12 would ask for terabytes).
const MaxCount = 1 << 30

// CountOf parses s as a whole number in [min, max], written 20000, 2e4 or
// 20_000. On failure it returns what was wanted, in words.
func CountOf(s string, min, max int) (int, string) {
	t := strings.TrimSpace(s)
	f, err := strconv.ParseFloat(t, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, "want a whole number" + rangeText(min, max)
	}
	v, ierr := strconv.ParseInt(strings.ReplaceAll(t, "_", ""), 10, 64)
	switch {
	case ierr == nil:
	case errors.Is(ierr, strconv.ErrRange) || math.IsInf(f, 0) || math.Abs(f) >= 1<<62:
		return 0, "out of range; want a whole number" + rangeText(min, max)
	case f != math.Trunc(f) || math.IsNaN(f):
		return 0, "want a whole number" + rangeText(min, max)
	default:
		v = int64(f) // 2e4: exact, since |f| < 2⁶²
	}
	if v < int64(min) || v > int64(max) {
		return 0, "out of range; want a whole number" + rangeText(min, max)
	}
	return int(v), ""
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

// NumberOf parses s as a finite number that ok accepts (nil: any; want
// says which, e.g. "> 0"). On failure it returns what was wanted, in
// words.
func NumberOf(s string, ok func(float64) bool, want string) (float64, string) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if want != "" {
		want = " " + want
	}
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || (ok != nil && !ok(v)) {
		return 0, "want a number" + want
	}
	return v, ""
}

// SeedOf parses s as a seed: a whole number from 0 to 2⁶⁴−1, also written
// 1e6 or 1_000. On failure it returns what was wanted, in words.
func SeedOf(s string) (uint64, string) {
	t := strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	if v, err := strconv.ParseUint(t, 10, 64); err == nil {
		return v, ""
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f < 0 || f != math.Trunc(f) || f >= 1<<53 {
		return 0, fmt.Sprintf("want a whole number from 0 to %d", uint64(math.MaxUint64))
	}
	return uint64(f), ""
}

// Count is a flag.Value for a whole number in [Min, Max], written 20000,
// 2e4 or 20_000. Set's error says what is wanted ("want a whole number ≥
// 1"); FlagMessage puts the flag and the value before it.
type Count struct {
	P        *int
	Min, Max int
}

// Set parses a count.
func (c Count) Set(s string) error {
	v, want := CountOf(s, c.Min, c.Max)
	if want != "" {
		return errors.New(want)
	}
	*c.P = v
	return nil
}

func (c Count) String() string {
	if c.P == nil {
		return "0"
	}
	return strconv.Itoa(*c.P)
}

// Get returns the count (flag.Getter).
func (c Count) Get() any { return *c.P }

// TypeName is the type that a usage message shows.
func (c Count) TypeName() string { return "int" }

// Number is a flag.Value for a finite number that OK accepts (nil: any),
// Want saying which in words ("> 0").
type Number struct {
	P    *float64
	OK   func(float64) bool
	Want string
}

// Set parses a number.
func (n Number) Set(s string) error {
	v, want := NumberOf(s, n.OK, n.Want)
	if want != "" {
		return errors.New(want)
	}
	*n.P = v
	return nil
}

func (n Number) String() string {
	if n.P == nil {
		return "0"
	}
	return strconv.FormatFloat(*n.P, 'g', -1, 64)
}

// Get returns the number (flag.Getter).
func (n Number) Get() any { return *n.P }

// TypeName is the type that a usage message shows.
func (n Number) TypeName() string { return "float" }

// Seed is a flag.Value for a seed (SeedOf).
type Seed struct{ P *uint64 }

// Set parses a seed.
func (s Seed) Set(v string) error {
	x, want := SeedOf(v)
	if want != "" {
		return errors.New(want)
	}
	*s.P = x
	return nil
}

func (s Seed) String() string {
	if s.P == nil {
		return "0"
	}
	return strconv.FormatUint(*s.P, 10)
}

// Get returns the seed (flag.Getter).
func (s Seed) Get() any { return *s.P }

// TypeName is the type that a usage message shows.
func (s Seed) TypeName() string { return "uint" }
