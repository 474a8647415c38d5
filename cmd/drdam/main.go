// Command drdam stores patterns in a Dense Associative Memory, in the memory
// (MrDAM) or the distributed (DrDAM) representation, and retrieves them by
// energy descent.
//
// Usage:
//
//	drdam <command> [flags]
//
// Run `drdam help` for the list of commands and `drdam <command> --help`
// for the flags of one.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"

	"github.com/drdam/drdam/internal/atomicfile"
	"github.com/drdam/drdam/paper"
)

// version is set with -ldflags "-X main.version=..." by release builds.
var version = ""

type command struct {
	summary string
	run     func(env *env, args []string) error
}

var commands = map[string]command{
	"encode":     {"store patterns in a new model file", runEncode},
	"add":        {"add patterns to a model", runAdd},
	"remove":     {"remove patterns from a model", runRemove},
	"merge":      {"merge two models of the same configuration", runMerge},
	"info":       {"describe a model file", runInfo},
	"energy":     {"energies (and gradients) at queries", runEnergy},
	"recall":     {"retrieve memories by energy descent from queries", runRecall},
	"demo":       {"compare DrDAM with MrDAM on random binary patterns", runDemo},
	"complete":   {"complete occluded images with MrDAM and DrDAM (image grid, energy traces, RMSE)", runComplete},
	"compute":    {"numpy_dam.py compute on the same input and output files", runCompute},
	"experiment": {"run one of the paper's experiments (drdam experiment --help for the list)", runExperiment},
	"bench":      {"time one phase as ../shared/peers/bench.py run does", runBench},
	"reproduce":  {"run every quantitative experiment of the paper and write a report", runReproduce},
	"images":     {"turn images into patterns (and recall requests) and patterns back into images", runImages},
	"serve":      {"serve memories over HTTP (an API, durable and concurrent)", runServe},
	"version":    {"print the version", runVersion},
}

// env is what a command may touch: its output streams. Tests run commands
// with buffers.
type env struct {
	stdout, stderr io.Writer
	isTerminal     bool // stderr is a terminal: show progress
	// ctx is the context the models of a command are made and loaded
	// with: it carries the progress display of a projection's drawing
	// (watchGeneration). nil means context.Background().
	ctx context.Context
}

// context returns the context of e's models.
func (e *env) context() context.Context {
	if e.ctx == nil {
		return context.Background()
	}
	return e.ctx
}

func main() {
	// An interrupted command leaves no temporary file behind: the files
	// being written are removed and their targets keep their old contents.
	// (drdam serve and the experiments handle their signals themselves:
	// a graceful shutdown, a clean stop; see ownSignals.)
	if len(os.Args) < 2 || !ownSignals[os.Args[1]] {
		exitOnSignal()
	}
	st, err := os.Stderr.Stat()
	e := &env{stdout: os.Stdout, stderr: os.Stderr, isTerminal: err == nil && st.Mode()&os.ModeCharDevice != 0}
	os.Exit(run(e, os.Args[1:]))
}

// exitOnSignal makes SIGINT, SIGTERM and SIGHUP remove the files being
// written and exit with 128 + the signal.
func exitOnSignal() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-sig
		if n := len(atomicfile.RemoveTemps()); n > 0 {
			fmt.Fprintf(os.Stderr, "drdam: %v: removed %d unfinished output file(s); the files they were to replace are unchanged\n", s, n)
		}
		code := 130
		if s, ok := s.(syscall.Signal); ok {
			code = 128 + int(s)
		}
		os.Exit(code)
	}()
}

// run executes one command line and returns the exit status: 0 on success,
// 1 on an error, 2 on a usage error. Errors are printed as one line.
func run(e *env, args []string) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(e.stderr, "drdam: internal error (please report it): %v\n", r)
			status = 70
		}
	}()
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if _, ok := commands[args[1]]; ok {
				return run(e, []string{args[1], "--help"})
			}
		}
		usage(e.stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "-v" {
		args = append([]string{"version"}, args[1:]...)
	}
	name := args[0]
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(e.stderr, "drdam: unknown command %q (run 'drdam help' for the list)\n", name)
		return 2
	}
	if generationCommands[name] {
		var stop func()
		e.ctx, stop = watchGeneration(e)
		defer stop()
	}
	err := c.run(e, args[1:])
	if name == "experiment" && len(args) > 1 {
		if _, ok := paper.Lookup(args[1]); ok {
			name += " " + args[1] // its flags are the experiment's
		}
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, new(interruptedError)):
		fmt.Fprintf(e.stderr, "drdam %s: %v\n", name, err)
		return 130
	case errors.As(err, new(usageError)):
		fmt.Fprintf(e.stderr, "drdam %s: %v (see 'drdam %s --help')\n", name, err, name)
		return 2
	default:
		fmt.Fprintf(e.stderr, "drdam %s: %s\n", name, oneLine(err.Error()))
		return 1
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func usage(w io.Writer) {
	fmt.Fprint(w, `drdam: Dense Associative Memory in the memory (MrDAM) and distributed (DrDAM)
representations, after Hoover et al., NeurIPS 2024.

Usage: drdam <command> [flags]

Commands:
`)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, `
Run 'drdam <command> --help' for the flags of a command.
Patterns, queries and masks are read from .npy, .csv, .tsv, .txt or .arff files
(one pattern per row); results are written in the format of the output
file's extension.
`)
}

func runVersion(e *env, args []string) error {
	fs := newFlags("version", "", "Print the version of drdam and of Go.")
	if err := fs.parse(e, args); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "drdam", versionString())
	return nil
}

func versionString() string {
	v := version
	bi, ok := debug.ReadBuildInfo()
	if v == "" && ok {
		v = bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " " + s.Value[:12]
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	if ok {
		v += " " + bi.GoVersion
	}
	return v
}
