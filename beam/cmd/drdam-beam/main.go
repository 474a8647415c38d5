// Command drdam-beam runs drdam encode as an Apache Beam pipeline: the
// shards of a glob or a folder are encoded in parallel by the workers of a
// Beam runner and their sums added into one DrDAM model file, the file
// that drdam encode writes from the concatenated shards (up to the order
// of floating-point additions).
//
// Usage:
//
//	drdam-beam encode --patterns 'data/part-*.npy' --out model.drdam [encode flags] [Beam flags]
//
// The encode flags are drdam encode's (package internal/cli). By default
// the pipeline runs on Prism, Beam's runner embedded in this program, with
// its workers in this process: no setup, and no network beyond localhost.
// --runner selects another (universal for a Flink or Spark job server,
// dataflow); docs/beam.md has the invocations. Dataflow and the gs:// and
// s3:// filesystems are linked in with the build tag cloud (go build
// -tags cloud): their clients double the build time and the binary, so
// the default build, and the tests, leave them out.
//
// The same binary is Beam's worker: a runner starts it without the encode
// subcommand, and beam.Init runs the worker harness.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/exec/optimized" // Beam's reflection-free runtime
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/flink"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/spark"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal"

	"github.com/drdam/drdam/beam/encode"
	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/internal/atomicfile"
	"github.com/drdam/drdam/internal/cli"
)

// beamFlags are the flags of Beam that --help lists after encode's (the
// runner and its job server, the workers' environment, Dataflow's
// project); every other flag that Beam defines is accepted too.
var beamFlags = []string{"runner", "endpoint", "job_name", "environment_type", "environment_config", "worker_binary",
	"parallelism", "project", "region", "staging_location", "temp_location", "worker_harness_container_image"}

const help = `Usage: drdam-beam encode [flags]

Store the patterns of many shard files (one pattern per row) in one new
DrDAM model file, with an Apache Beam pipeline: each worker encodes its
shards into a sum T = Σ φ(ξ) of F values, and the sums are added. The model
is the one drdam encode writes from the shards concatenated (T equal up to
the order of floating-point additions).

--patterns is a file, a glob (quote it: 'data/part-*.npy') or a folder of
shards (hidden files and _SUCCESS markers skipped), on the local
filesystem or, on a cluster, gs:// or s3://. Every shard holds patterns of
one dimension, in any format drdam reads (.npy, .csv, .tsv, .txt, .arff,
IDX *ubyte[.gz]). --rep must be drdam.

The pipeline runs on Prism, embedded in this program, unless --runner says
otherwise (docs/beam.md: Flink, Spark, Dataflow).

Example:
  drdam-beam encode --patterns 'shards/*.npy' --projection structured --y 100000 --out mnist.drdam

Encode flags (as drdam encode's):
`

func main() {
	// An interrupted run leaves no temporary file behind: the model being
	// written is removed and the file it was to replace is unchanged.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-sig
		atomicfile.RemoveTemps()
		code := 130
		if s, ok := s.(syscall.Signal); ok {
			code = 128 + int(s)
		}
		os.Exit(code)
	}()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses the command line, lets Beam run a worker if it is one, and
// otherwise runs the encode subcommand; it returns the exit status: 0, 1
// on an error, 2 on a usage error.
func run(args []string, stdout, stderr io.Writer) int {
	sub := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	flag.CommandLine.Init("drdam-beam", flag.ContinueOnError)
	flag.CommandLine.SetOutput(io.Discard)
	before := map[string]bool{}
	flag.VisitAll(func(f *flag.Flag) { before[f.Name] = true })
	enc := cli.EncodeFlags(flag.CommandLine)
	err := flag.CommandLine.Parse(args)
	if errors.Is(err, flag.ErrHelp) || sub == "help" {
		usage(stdout, before)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "drdam-beam: %s\n", cli.Message(flag.CommandLine, err))
		return 2
	}
	// A worker started by a runner runs Beam's harness here, and exits.
	beam.Init()
	switch {
	case sub == "":
		usage(stderr, before)
		return 2
	case sub != "encode":
		fmt.Fprintf(stderr, "drdam-beam: unknown command %q (the one command is encode)\n", sub)
		return 2
	case flag.NArg() > 0:
		fmt.Fprintf(stderr, "drdam-beam: unexpected argument %q (flags are written --name value)\n", flag.Arg(0))
		return 2
	}
	out, err := encodeCmd(context.Background(), enc, stderr)
	if err != nil {
		var u usageError
		fmt.Fprintf(stderr, "drdam-beam: %v\n", err)
		if errors.As(err, &u) {
			return 2
		}
		return 1
	}
	fmt.Fprint(stdout, out)
	return 0
}

// usageError is a mistake on the command line (exit status 2).
type usageError struct{ error }

// encodeCmd runs encode with the parsed flags and returns what to print.
func encodeCmd(ctx context.Context, enc *cli.Encode, stderr io.Writer) (string, error) {
	for _, f := range []struct{ name, v string }{{"patterns", enc.Patterns}, {"out", enc.Out}} {
		if strings.TrimSpace(f.v) == "" {
			return "", usageError{fmt.Errorf("missing --%s", f.name)}
		}
	}
	c, err := enc.Config()
	if err != nil {
		return "", usageError{err}
	}
	if c.Rep == dam.RepMrDAM {
		return "", usageError{errors.New("--rep mrdam: a Beam pipeline encodes a drdam only (an mrdam keeps the patterns themselves, which is no sum of parts); use drdam encode --rep mrdam")}
	}
	runner := *runners.Runner
	if runner == "" {
		runner = "prism"
	}
	local := runner == "prism" || runner == "PrismRunner"
	if local {
		// Prism's job logs are for Beam's developers: warnings only.
		slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError + 1})))
		// Beam's loopback mode leaves an empty file in the temporary
		// folder at every run: give it a folder of its own.
		tmp, err := os.MkdirTemp("", "drdam-beam-")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(tmp)
		defer os.Setenv("TMPDIR", os.Getenv("TMPDIR"))
		os.Setenv("TMPDIR", tmp)
	}
	o := encode.Options{Patterns: enc.Patterns, Out: enc.Out, Config: c}
	vc, err := encode.Check(ctx, o)
	if err != nil {
		return "", cli.FlagError(err)
	}
	if local {
		// The workers are this process: check its budget first.
		if err := dam.CheckFits(vc.MaxMemory, dam.EstimateFootprint(vc, 0)); err != nil {
			return "", fmt.Errorf("%w; lower --y, use --projection structured (O(Y) memory) or --precision float32, or raise --max-memory", err)
		}
	}
	h, err := encode.Run(ctx, runner, o)
	if err != nil {
		return "", errors.New(failure(err))
	}
	return fmt.Sprintf("stored %d patterns of dimension %d in %s: %s\n", h.Count, h.Config.D, enc.Out, h.Config), nil
}

// failure returns the message of the DoFn that failed a pipeline, without
// the plan of the bundle that Beam's error describes, or the whole error.
func failure(err error) string {
	msg := err.Error()
	const mark = "] failed:\n"
	if i := strings.LastIndex(msg, mark); i >= 0 {
		msg = msg[i+len(mark):]
	}
	return strings.TrimSpace(msg)
}

// usage prints the help: the encode flags, then the main flags of Beam.
func usage(w io.Writer, beamDefined map[string]bool) {
	fmt.Fprint(w, help)
	var mine []string
	flag.VisitAll(func(f *flag.Flag) {
		if !beamDefined[f.Name] {
			mine = append(mine, f.Name)
		}
	})
	sort.Strings(mine)
	printFlags(w, mine)
	fmt.Fprint(w, "\nBeam flags (the main ones; every flag of Beam's Go SDK is accepted):\n")
	printFlags(w, beamFlags)
}

// printFlags prints the named flags of flag.CommandLine with their help,
// as drdam does.
func printFlags(w io.Writer, names []string) {
	for _, n := range names {
		f := flag.Lookup(n)
		if f == nil {
			continue
		}
		typ, use := flag.UnquoteUsage(f)
		if t, ok := f.Value.(interface{ TypeName() string }); ok {
			typ = t.TypeName() // the codec's kind: int, float, size, …
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			def = fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "  --%s %s\n      %s%s\n", n, typ, strings.ReplaceAll(use, "\n", "\n      "), def)
	}
}
