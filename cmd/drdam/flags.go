package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/internal/atomicfile"
)

// usageError marks a mistake on the command line (exit status 2).
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// flags is a flag.FlagSet with a usage text and one-line errors.
type flags struct {
	*flag.FlagSet
	name, argsUsage, help string
	required              []string
}

func newFlags(name, argsUsage, help string) *flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &flags{FlagSet: fs, name: name, argsUsage: argsUsage, help: help}
}

// require marks flags that must be given.
func (f *flags) require(names ...string) { f.required = append(f.required, names...) }

// parse parses args; on --help it prints the usage to stdout and returns
// flag.ErrHelp. Positional arguments are an error.
func (f *flags) parse(e *env, args []string) error {
	if err := f.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			f.printUsage(e.stdout)
			return flag.ErrHelp
		}
		return usageError{err.Error()}
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
	return nil
}

func (f *flags) printUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage: drdam %s [flags]%s\n\n%s\n\nFlags:\n", f.name, f.argsUsage, strings.TrimSpace(f.help))
	f.VisitAll(func(fl *flag.Flag) {
		typ, usage := flag.UnquoteUsage(fl)
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
}

// readPatterns reads a matrix of patterns or queries from path and checks
// that it is non-empty, finite and, when d > 0, has d columns.
func readPatterns(path, what string, d int) (*dataio.Matrix, error) {
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
