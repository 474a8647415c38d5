package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"

	"github.com/drdam/drdam/internal/atomicfile"
	"github.com/drdam/drdam/paper"
)

func runExperiment(e *env, args []string) (err error) {
	if len(args) == 0 || args[0] == "--help" || args[0] == "-h" {
		listExperiments(e.stdout)
		if len(args) == 0 {
			return usagef("missing experiment name")
		}
		return nil
	}
	x, ok := paper.Lookup(args[0])
	if !ok {
		return usagef("unknown experiment %q", args[0])
	}
	info := x.Info()
	ps := x.Params("quick")
	fs := newFlags("experiment "+info.Name, "", info.Help)
	bindParams(fs, ps)
	out := outFlag(fs, info.Name)
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file, for go tool pprof (written when the run ends)")
	if err := fs.parse(e, args[1:]); err != nil {
		return err
	}
	if p := ps.Lookup("data"); p != nil && p.IsSet() && p.String() != "letter" {
		if err := checkInputSize(p.String(), nil); err != nil {
			return err
		}
	}
	ps.Version = versionString()
	ps.Command = strings.TrimSpace("drdam experiment " + info.Name + " " + strings.Join(args[1:], " "))
	ctx, stop := interruptible()
	defer stop()
	if *cpuprofile != "" {
		stopProfile, err := startCPUProfile(*cpuprofile)
		if err != nil {
			return err
		}
		defer func() {
			if perr := stopProfile(); perr != nil && err == nil {
				err = perr
			}
		}()
	}
	_, err = runOne(ctx, e, x, ps, *out)
	return err
}

// listExperiments prints the experiments of the registry, by name.
func listExperiments(w io.Writer) {
	fmt.Fprint(w, "Usage: drdam experiment NAME [flags]\n\nExperiments:\n")
	var infos []paper.Info
	for _, x := range paper.All() {
		infos = append(infos, x.Info())
	}
	sort.Slice(infos, func(i, j int) bool { return infos[i].Name < infos[j].Name })
	for _, i := range infos {
		fmt.Fprintf(w, "  %-16s %s\n", i.Name, i.Summary)
	}
	fmt.Fprint(w, "\nRun 'drdam experiment NAME --help' for the flags of one.\n")
}

// runOne runs x with ps into dir, showing its progress and log on stderr,
// and prints what it measured on stdout.
func runOne(ctx context.Context, e *env, x paper.Experiment, ps *paper.Params, dir string) (*paper.Result, error) {
	pr := newProgress(e)
	res, err := x.Run(ctx, ps, dir, paper.Observer{
		Progress: func(done, total float64, label string) { pr.bar(label, done, total) },
		Log:      e.stderr,
	})
	pr.done()
	if err != nil {
		return nil, runError(err)
	}
	fmt.Fprint(e.stdout, res.Text)
	return res, nil
}

// runError turns the errors of a run into what the command reports: a
// parameter refused is a usage error naming its flag, and a run stopped by
// a signal says so.
func runError(err error) error {
	var pe *paper.ParamError
	switch {
	case errors.As(err, &pe):
		return paramUsage(pe)
	case errors.Is(err, context.Canceled):
		return interruptedError{err}
	}
	return errors.New(flagNames(err.Error()))
}

// outFlag adds the --out flag of an experiment, out/NAME by default.
func outFlag(fs *flags, name string) *string {
	fs.refuseEmpty("out")
	return fs.String("out", filepath.Join("out", name), "output directory")
}

// startCPUProfile starts a CPU profile (runtime/pprof) that the returned
// function stops and writes to path atomically.
func startCPUProfile(path string) (stop func() error, err error) {
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		return nil, fmt.Errorf("--cpuprofile %s: %w", path, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
			return fmt.Errorf("--cpuprofile %s: %w", path, err)
		}
		return nil
	}, nil
}
