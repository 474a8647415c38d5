package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/internal/atomicfile"
	"github.com/drdam/drdam/internal/cli"
)

// usageError marks a mistake on the command line (exit status 2).
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// flags is a flag.FlagSet with a usage text and one-line errors that name
// each flag as it is typed (--name).
type flags struct {
	*flag.FlagSet
	name, argsUsage, help string
	required              []string
	nonEmpty              []string
	// setErr is the error of the last value that failed to parse, already
	// worded for the user; parse returns it instead of the flag package's.
	setErr error
}

func newFlags(name, argsUsage, help string) *flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &flags{FlagSet: fs, name: name, argsUsage: argsUsage, help: help}
}

// require marks flags that must be given, with a value that is not empty.
func (f *flags) require(names ...string) { f.required = append(f.required, names...) }

// refuseEmpty marks optional flags (an --out with a default, say) whose
// value, when given, must not be empty.
func (f *flags) refuseEmpty(names ...string) { f.nonEmpty = append(f.nonEmpty, names...) }

// parse parses args; on --help it prints the usage to stdout and returns
// flag.ErrHelp. Positional arguments are an error, and so are required
// flags that are missing or empty. Every numeric flag (those of Int,
// Float64 and Uint64 too) is parsed as Count and Number are: whole numbers
// may be written 20000, 2e4 or 20_000, and a bad value is reported as
// `--y "1e12.5": want a whole number`.
func (f *flags) parse(e *env, args []string) error {
	f.VisitAll(f.wrapNumber)
	if err := f.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			f.printUsage(e.stdout)
			return flag.ErrHelp
		}
		if f.setErr != nil {
			return usageError{f.setErr.Error()}
		}
		return usageError{flagMessage(err.Error())}
	}
	if f.NArg() > 0 {
		return usagef("unexpected argument %q (flags are written --name value)", f.Arg(0))
	}
	set := map[string]bool{}
	f.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	for _, r := range f.required {
		if !set[r] {
			return usagef("missing --%s", r)
		}
	}
	for _, r := range append(slices.Clone(f.required), f.nonEmpty...) {
		if fl := f.Lookup(r); set[r] && fl != nil && strings.TrimSpace(fl.Value.String()) == "" {
			return usagef("--%s: empty %s", r, emptyWhat(fl))
		}
	}
	return nil
}

// emptyWhat names what an empty flag lacks: a path for a flag about files
// or directories, else a value.
func emptyWhat(fl *flag.Flag) string {
	u := strings.ToLower(fl.Usage)
	if fl.Name == "out" || fl.Name == "in" || strings.Contains(u, "file") || strings.Contains(u, "director") || strings.Contains(u, "folder") {
		return "path"
	}
	return "value"
}

// flagMessage rewrites an error of the flag package to name the flag as it
// is typed, with two dashes (cli.FlagMessage).
func flagMessage(msg string) string { return cli.FlagMessage(msg) }

// maxCount bounds every count flag: 2³⁰ (1073741824) is more than any of
// them can use in memory or time, and a larger value is a typing mistake
// (--y 1e12 would ask for terabytes).
const maxCount = cli.MaxCount

// countValue is a flag.Value for a count: a whole number in [min, max],
// written 20000, 2e4 or 20_000.
type countValue struct {
	f        *flags
	name     string
	p        *int
	min, max int
}

// Count defines a count flag with a default and a range [min, max]; its
// value is a whole number, which may be written 20000, 2e4 or 20_000.
func (f *flags) Count(name string, def, min, max int, usage string) *int {
	p := new(int)
	f.CountVar(p, name, def, min, max, usage)
	return p
}

// CountVar defines a count flag stored in p, as Count.
func (f *flags) CountVar(p *int, name string, def, min, max int, usage string) {
	*p = def
	f.Var(&countValue{f: f, name: name, p: p, min: min, max: max}, name, usage)
}

// Set parses a count.
func (c *countValue) Set(s string) error {
	v, err := parseCount("--"+c.name, s, c.min, c.max)
	if err != nil {
		c.f.setErr = err
		return err
	}
	*c.p = v
	return nil
}

// String returns the count in decimal.
func (c *countValue) String() string {
	if c.p == nil {
		return "0"
	}
	return strconv.Itoa(*c.p)
}

// Get returns the count (flag.Getter).
func (c *countValue) Get() any { return *c.p }

func (c *countValue) TypeName() string { return "int" }

// parseCount parses s as a whole number in [min, max]; errors name the
// flag (as typed) and the value, and say what was wanted.
func parseCount(name, s string, min, max int) (int, error) {
	v, want := countOf(s, min, max)
	if want != "" {
		return 0, usagef("%s %q: %s", name, s, want)
	}
	return v, nil
}

// countOf parses s as a whole number in [min, max] (cli.CountOf).
func countOf(s string, min, max int) (int, string) { return cli.CountOf(s, min, max) }

// numberValue is a flag.Value for a finite real number in a range.
type numberValue struct {
	f    *flags
	name string
	p    *float64
	ok   func(float64) bool // nil: any finite number
	want string             // what ok accepts, e.g. "> 0"
}

// Number defines a flag holding a finite real number; ok (if not nil)
// says which values are accepted, and want says so in words ("> 0").
func (f *flags) Number(name string, def float64, ok func(float64) bool, want, usage string) *float64 {
	p := new(float64)
	f.NumberVar(p, name, def, ok, want, usage)
	return p
}

// NumberVar defines a number flag stored in p, as Number.
func (f *flags) NumberVar(p *float64, name string, def float64, ok func(float64) bool, want, usage string) {
	*p = def
	f.Var(&numberValue{f: f, name: name, p: p, ok: ok, want: want}, name, usage)
}

// Set parses a number.
func (n *numberValue) Set(s string) error {
	v, err := parseNumber("--"+n.name, s, n.ok, n.want)
	if err != nil {
		n.f.setErr = err
		return err
	}
	*n.p = v
	return nil
}

// String returns the number as %g writes it.
func (n *numberValue) String() string {
	if n.p == nil {
		return "0"
	}
	return strconv.FormatFloat(*n.p, 'g', -1, 64)
}

// Get returns the number (flag.Getter).
func (n *numberValue) Get() any { return *n.p }

func (n *numberValue) TypeName() string { return "float" }

// parseNumber parses s as a finite number that ok accepts; errors name
// the flag (as typed) and the value.
func parseNumber(name, s string, ok func(float64) bool, want string) (float64, error) {
	v, w := numberOf(s, ok, want)
	if w != "" {
		return 0, usagef("%s %q: %s", name, s, w)
	}
	return v, nil
}

// numberOf parses s as a finite number that ok accepts (cli.NumberOf).
func numberOf(s string, ok func(float64) bool, want string) (float64, string) {
	return cli.NumberOf(s, ok, want)
}

// parseList splits a comma-separated list flag and parses each element
// with elem; an empty list, or a bad element, is an error that names the
// flag, the list and the element.
func parseList[T any](name, s string, elem func(string) (T, string)) ([]T, error) {
	parts := splitList(s)
	if len(parts) == 0 {
		return nil, usagef("%s %q: empty list", name, s)
	}
	out := make([]T, len(parts))
	for i, p := range parts {
		v, want := elem(p)
		if want != "" {
			if len(parts) == 1 {
				return nil, usagef("%s %q: %s", name, p, want)
			}
			return nil, usagef("%s %q: element %d, %q: %s", name, s, i+1, p, want)
		}
		out[i] = v
	}
	return out, nil
}

// parseCounts parses a list flag of counts, each ≥ 1 (the axes --d, --k,
// --y and the sweep's --ys).
func parseCounts(name, s string) ([]int, error) {
	return parseList(name, s, func(p string) (int, string) { return countOf(p, 1, maxCount) })
}

// parsePositives parses a list flag of numbers > 0 (β).
func parsePositives(name, s string) ([]float64, error) {
	return parseList(name, s, func(p string) (float64, string) { return numberOf(p, positive, "> 0") })
}

// positive reports whether v > 0, for Number flags.
func positive(v float64) bool { return v > 0 }

// nonNegative reports whether v ≥ 0, for Number flags.
func nonNegative(v float64) bool { return v >= 0 }

// fraction reports whether v is in [0, 1], for Number flags.
func fraction(v float64) bool { return v >= 0 && v <= 1 }

// seedValue is a flag.Value for a seed: a whole number from 0 to 2⁶⁴−1.
type seedValue struct {
	f     *flags
	name  string
	inner flag.Value // the flag package's uint64 value, which holds it
}

// Set parses a seed, also in the forms 1e6 and 1_000 (cli.SeedOf).
func (s *seedValue) Set(v string) error {
	x, want := cli.SeedOf(v)
	if want != "" {
		s.f.setErr = usagef("--%s %q: %s", s.name, v, want)
		return s.f.setErr
	}
	return s.inner.Set(strconv.FormatUint(x, 10))
}

// String returns the seed in decimal.
func (s *seedValue) String() string { return s.inner.String() }

// Get returns the seed (flag.Getter).
func (s *seedValue) Get() any { return s.inner.(flag.Getter).Get() }

func (s *seedValue) TypeName() string { return "uint" }

// wrapped is the flag package's Int or Float64 value, parsed as Count or
// Number parse (Set passes it the canonical form). Every Int flag of drdam
// is a count, so its range is [0, maxCount]: --y 1e12 is refused here
// rather than crashing with an allocation of terabytes.
type wrapped struct {
	f     *flags
	name  string
	inner flag.Value
	float bool
}

// Set parses v as a count (any int) or a finite number, and sets the
// inner value to it.
func (w *wrapped) Set(v string) error {
	var canon string
	if w.float {
		x, err := parseNumber("--"+w.name, v, nil, "")
		if err != nil {
			w.f.setErr = err
			return err
		}
		canon = strconv.FormatFloat(x, 'g', -1, 64)
	} else {
		n, err := parseCount("--"+w.name, v, 0, maxCount) // every such flag is a count
		if err != nil {
			w.f.setErr = err
			return err
		}
		canon = strconv.Itoa(n)
	}
	return w.inner.Set(canon)
}

// String returns the inner value's String.
func (w *wrapped) String() string { return w.inner.String() }

// Get returns the inner value (flag.Getter).
func (w *wrapped) Get() any { return w.inner.(flag.Getter).Get() }

func (w *wrapped) TypeName() string {
	if w.float {
		return "float"
	}
	return "int"
}

// wrapNumber replaces the value of a flag defined with the flag package's
// Int, Float64 or Uint64 by one that parses and reports as Count and
// Number do, so that every command accepts the same forms.
func (f *flags) wrapNumber(fl *flag.Flag) {
	g, ok := fl.Value.(flag.Getter)
	if _, forms := fl.Value.(interface{ TypeName() string }); !ok || forms {
		return // not a number, or one that reads these forms already
	}
	switch g.Get().(type) {
	case int:
		if _, mine := fl.Value.(*countValue); !mine {
			fl.Value = &wrapped{f: f, name: fl.Name, inner: fl.Value}
		}
	case float64:
		if _, mine := fl.Value.(*numberValue); !mine {
			fl.Value = &wrapped{f: f, name: fl.Name, inner: fl.Value, float: true}
		}
	case uint64:
		if _, mine := fl.Value.(*seedValue); !mine {
			fl.Value = &seedValue{f: f, name: fl.Name, inner: fl.Value}
		}
	}
}

func (f *flags) printUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage: drdam %s [flags]%s\n\n%s\n\nFlags:\n", f.name, f.argsUsage, strings.TrimSpace(f.help))
	f.VisitAll(func(fl *flag.Flag) {
		typ, usage := flag.UnquoteUsage(fl)
		if t, ok := fl.Value.(interface{ TypeName() string }); ok && !strings.Contains(fl.Usage, "`") {
			typ = t.TypeName()
		}
		req := ""
		for _, r := range f.required {
			if r == fl.Name {
				req = " (required)"
			}
		}
		def := ""
		if fl.DefValue != "" && fl.DefValue != "false" && fl.DefValue != "0" && req == "" {
			def = fmt.Sprintf(" (default %s)", fl.DefValue)
		}
		fmt.Fprintf(w, "  --%s %s\n      %s%s%s\n", fl.Name, typ, usage, def, req)
	})
	fmt.Fprint(w, "\nWhole numbers may be written 20000, 2e4 or 20_000; lists are comma-separated.\n")
}

// readPatterns reads a matrix of patterns or queries from path and checks
// that it is non-empty, finite and, when d > 0, has d columns.
func readPatterns(path, what string, d int, budget *byteSize) (*dataio.Matrix, error) {
	if err := checkInputSize(path, budget); err != nil {
		return nil, err
	}
	m, err := dataio.ReadMatrix(path)
	if err != nil {
		return nil, err
	}
	if err := dataio.CheckFinite(path, m); err != nil {
		return nil, err
	}
	if d > 0 && m.Cols != d {
		return nil, fmt.Errorf("%s: %s have %d columns, but the model has dimension D = %d", path, what, m.Cols, d)
	}
	return m, nil
}

// writeOutput writes a matrix (rows×cols) to path, by its extension.
func writeOutput(path string, rows, cols int, data []float64) error {
	return dataio.WriteMatrix(path, &dataio.Matrix{Rows: rows, Cols: cols, Data: data})
}

// checkOutputDir makes sure the directory of path exists, so that a long
// computation does not fail at the end.
func checkOutputDir(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("output %s: %w", path, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("output %s: %s is not a directory", path, dir)
	}
	return nil
}

// writeText writes text to path atomically.
func writeText(path, text string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	})
}

// splitList splits a comma-separated list, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, k := range strings.Split(s, ",") {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	return out
}
