package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/internal/atomicfile"
	"github.com/drdam/drdam/internal/cli"
)

// file is a path given to a flag, for the checks of checkFiles.
type file struct{ flag, path string }

// sameFile reports whether paths a and b name one file: the same path once
// links are followed, or two names (hard links) of one existing file.
func sameFile(a, b string) bool {
	ra, err1 := atomicfile.Resolve(a)
	rb, err2 := atomicfile.Resolve(b)
	if err1 == nil && err2 == nil {
		aa, err1 := filepath.Abs(ra)
		ab, err2 := filepath.Abs(rb)
		if err1 == nil && err2 == nil && aa == ab {
			return true
		}
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// checkFiles refuses outputs that would destroy an input or each other
// (an output that names an input file, or two outputs that name one file)
// and outputs whose directory does not exist (so that a long computation
// does not fail at its end). Empty paths are not given and are skipped.
func checkFiles(inputs, outputs []file) error {
	for i, o := range outputs {
		if o.path == "" {
			continue
		}
		for _, in := range inputs {
			if in.path != "" && sameFile(o.path, in.path) {
				return usagef("--%s %s names the same file as --%s: writing it would destroy the input; choose another output", o.flag, o.path, in.flag)
			}
		}
		for _, p := range outputs[:i] {
			if p.path != "" && sameFile(o.path, p.path) {
				return usagef("--%s and --%s name the same file %s: one would overwrite the other; choose two outputs", p.flag, o.flag, o.path)
			}
		}
		if err := checkOutputDir(o.path); err != nil {
			return err
		}
	}
	return nil
}

// byteSize is a number of bytes given to a flag (cli.Bytes): 512MiB,
// 8GiB, 8G (GiB), 2e9 (bytes).
type byteSize = cli.Bytes

// addBudget adds --max-memory to fs: the budget of the models a command
// builds or loads.
func addBudget(fs *flags) *byteSize { return cli.BudgetFlag(fs.FlagSet) }

// loadModel takes the model at path under the budget, with an error that
// says which flags lower what it needs.
func loadModel(e *env, path string, budget *byteSize) (dam.Memory, error) {
	m, err := dam.LoadContext(e.context(), path, int64(*budget))
	return m, budgetHint(err)
}

// budgetHint completes a budget error with the flags that change it.
func budgetHint(err error) error {
	var be *dam.BudgetError
	if !errors.As(err, &be) {
		return err
	}
	hint := "lower --y, or raise --max-memory"
	switch {
	case be.Field == "K":
		hint = "lower the number of patterns, or raise --max-memory"
	case be.Dense:
		hint = "lower --y, use --projection structured (O(Y) memory) or --precision float32, or raise --max-memory"
	}
	return fmt.Errorf("%w; %s", err, hint)
}

// budgetOf returns the budget of --max-memory, or the default one when the
// flag is not given.
func budgetOf(budget *byteSize) int64 {
	if budget != nil && *budget > 0 {
		return int64(*budget)
	}
	return dam.DefaultBudget()
}

// checkInputSize refuses a data file that reading could need more than
// the budget for: a matrix takes 8 bytes per value, and a value takes at
// least 2 bytes of text ("0,") or 1 byte of .npy (a uint8 or bool), so the
// values of a file of n bytes take at most 4n (text) or 8n (.npy) bytes,
// plus what parsing holds beside them (the text of a row's fields):
// counted as 6n and 8n. An IDX file (plain or compressed) is counted by
// the values its header declares, 8 bytes each; an ARFF file by its data
// lines times its attributes (a sparse row "{}" is a whole row).
func checkInputSize(path string, budget *byteSize) error {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil // the reader says what is wrong
	}
	need := 6 * float64(st.Size())
	if strings.EqualFold(filepath.Ext(path), ".npy") {
		need = 8 * float64(st.Size())
	}
	// An IDX file says how many values it holds, which a compressed one's
	// size does not bound: 8 bytes each. An ARFF file's sparse rows stand
	// for whole rows: its data lines times its attributes bound its
	// values, 8 bytes each and 8 more for the parser's row.
	if n, ok, err := dataio.DeclaredValues(path); ok && err == nil {
		if strings.EqualFold(filepath.Ext(path), ".arff") {
			need = max(need, 16*float64(n))
		} else {
			need = 8 * float64(n)
		}
	}
	b := budgetOf(budget)
	if need > float64(b) {
		return fmt.Errorf("%s: a file of %s may need up to %s to read, more than the memory budget of %s; split it, or raise --max-memory",
			path, dam.Bytes(float64(st.Size())), dam.Bytes(need), dam.Bytes(float64(b)))
	}
	return nil
}
