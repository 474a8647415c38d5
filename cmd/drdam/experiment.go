package main

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/drdam/drdam/paper"
)

func runExperiment(e *env, args []string) error {
	if len(args) == 0 || args[0] == "--help" || args[0] == "-h" {
		fmt.Fprint(e.stdout, "Usage: drdam experiment NAME [flags]\n\nExperiments:\n")
		all := paper.All()
		names := make([]string, 0, len(all))
		for _, x := range all {
			names = append(names, x.Name)
		}
		sort.Strings(names)
		for _, n := range names {
			x, _ := paper.Lookup(n)
			fmt.Fprintf(e.stdout, "  %-16s %s\n", n, x.Summary)
		}
		fmt.Fprint(e.stdout, "\nRun 'drdam experiment NAME --help' for the flags of one.\n")
		if len(args) == 0 {
			return usagef("missing experiment name")
		}
		return nil
	}
	x, ok := paper.Lookup(args[0])
	if !ok {
		return usagef("unknown experiment %q", args[0])
	}
	var err error
	switch x.Kind {
	case paper.KindGrid:
		_, err = runGridExperiment(e, x, args[1:])
	case paper.KindCompletion, paper.KindSweep, paper.KindCompression:
		_, err = runImageExperiment(e, x, args[1:])
	case paper.KindComparison:
		err = runComparison(e, x, args[1:])
	}
	return specError(err)
}

// specError turns the library's errors about an experiment's parameters
// into usage errors (exit status 2).
func specError(err error) error {
	var se *paper.SpecError
	if errors.As(err, &se) {
		return usageError{se.Msg}
	}
	return err
}

// flagsSet returns the names of the flags given on the command line.
func flagsSet(fs *flags) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// outFlag adds the --out flag of an experiment, out/NAME by default.
func outFlag(fs *flags, name string) *string {
	fs.refuseEmpty("out")
	return fs.String("out", filepath.Join("out", name), "output directory")
}
