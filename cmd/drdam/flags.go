package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/drdam/drdam/dam"
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
// Float64 and Uint64 too: cli.Forms) is parsed as cli.Count, cli.Number
// and cli.Seed parse: whole numbers may be written 20000, 2e4 or 20_000,
// and a bad value is reported as `--k "1e12.5": want a whole number`; a
// bad value of a model's configuration flag (encode's) as the codec's
// error named by its flag (cli.Message).
func (f *flags) parse(e *env, args []string) error {
	f.VisitAll(cli.Forms)
	if err := f.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			f.printUsage(e.stdout)
			return flag.ErrHelp
		}
		return usageError{cli.Message(f.FlagSet, err)}
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

// maxCount bounds every count flag (cli.MaxCount, 2³⁰): more is a typing
// mistake (--y 1e12 would ask for terabytes).
const maxCount = cli.MaxCount

// Count defines a count flag with a default and a range [min, max]; its
// value is a whole number, which may be written 20000, 2e4 or 20_000
// (cli.Count).
func (f *flags) Count(name string, def, min, max int, usage string) *int {
	p := new(int)
	f.CountVar(p, name, def, min, max, usage)
	return p
}

// CountVar defines a count flag stored in p, as Count.
func (f *flags) CountVar(p *int, name string, def, min, max int, usage string) {
	*p = def
	f.Var(cli.Count{P: p, Min: min, Max: max}, name, usage)
}

// Number defines a flag holding a finite real number; ok (if not nil)
// says which values are accepted, and want says so in words ("> 0")
// (cli.Number).
func (f *flags) Number(name string, def float64, ok func(float64) bool, want, usage string) *float64 {
	p := new(float64)
	f.NumberVar(p, name, def, ok, want, usage)
	return p
}

// NumberVar defines a number flag stored in p, as Number.
func (f *flags) NumberVar(p *float64, name string, def float64, ok func(float64) bool, want, usage string) {
	*p = def
	f.Var(cli.Number{P: p, OK: ok, Want: want}, name, usage)
}

// parseList splits a comma-separated list flag and parses each element
// with elem; an empty list, or a bad element, is an error that names the
// flag, the list and the element.
func parseList[T any](name, s string, elem func(string) (T, error)) ([]T, error) {
	parts := cli.SplitList(s)
	if len(parts) == 0 {
		return nil, usagef("%s %q: empty list", name, s)
	}
	out := make([]T, len(parts))
	for i, p := range parts {
		v, err := elem(p)
		if err != nil {
			if len(parts) == 1 {
				return nil, usagef("%s %q: %v", name, p, err)
			}
			return nil, usagef("%s %q: element %d, %q: %v", name, s, i+1, p, err)
		}
		out[i] = v
	}
	return out, nil
}

// parseCounts parses a list flag of counts, each ≥ 1 (the axes --d, --k,
// --y and the sweep's --ys).
func parseCounts(name, s string) ([]int, error) {
	return parseList(name, s, func(p string) (int, error) { return dam.ParseCount(p, 1, maxCount) })
}

// parsePositives parses a list flag of numbers > 0 (β).
func parsePositives(name, s string) ([]float64, error) {
	return parseList(name, s, func(p string) (float64, error) { return dam.ParseNumber(p, positive, "> 0") })
}

// positive reports whether v > 0, for Number flags.
func positive(v float64) bool { return v > 0 }

// nonNegative reports whether v ≥ 0, for Number flags.
func nonNegative(v float64) bool { return v >= 0 }

// fraction reports whether v is in [0, 1], for Number flags.
func fraction(v float64) bool { return v >= 0 && v <= 1 }

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
