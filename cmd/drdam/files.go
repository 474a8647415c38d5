package main

import (
	"os"
	"path/filepath"

	"github.com/drdam/drdam/internal/atomicfile"
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
