package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/internal/atomicfile"
	"github.com/drdam/drdam/internal/cli"
)

// completeRows is the number of rows that drdam complete --model completes
// at a time (cli.DefaultCompleteRows; tests lower it).
var completeRows = cli.DefaultCompleteRows

// dataFormNote ends a usage error of the data form of drdam complete.
const dataFormNote = "; with --model, drdam complete completes the rows of a file, its flags --model, --queries FILE, --out FILE, --fill, --step, --max-steps, --tol, --box, --steps, --outcome, --json, --max-memory"

// imageFormNote ends a usage error of the image form of drdam complete.
const imageFormNote = "; without --model, drdam complete is the image demo (--images, --queries N, --out DIR, ...); give --model to complete the rows of a file"

// completeData is the flags of drdam complete's data form.
type completeData struct {
	fs                                          *flags
	model, queries, out, fill, box, steps, outc *string
	step, tol                                   *float64
	maxSteps                                    *int
	budget                                      *byteSize
	asJSON                                      *bool
}

func newCompleteData() *completeData {
	fs := newFlags("complete", "", `
The data form (when --model is given): complete the missing entries of
each query row by energy descent on the model, the visible entries
clamped. A missing entry is NaN: an empty field or NaN/nan in a CSV/TSV
file, ? in an ARFF file, NaN in a .npy array; ±Inf is an error. The
missing entries start at --fill and descend until |ΔE| < --tol or
--max-steps steps, as drdam recall. A start near the answer completes
better and faster (docs/completion-start.md has measurements):
  zero    0 (the default)
  means   the column means of the stored patterns (an MrDAM's)
  kernel  per row, the softmax readout over its visible entries at the
          model's β (Nadaraya–Watson on the stored patterns; an MrDAM's)
  knn     per row, the distance-weighted mean of its 5 nearest stored
          patterns on its visible entries (an MrDAM's)
  FILE    a file of D values, e.g. column means (./means for a file
          named means)
A DrDAM stores no patterns: give it a FILE of means.

The queries are read, completed and written a chunk of rows at a time:
memory holds the model and a chunk, whatever the number of queries.
--out (B×D; .npy, .csv, .tsv, .txt) has the visible entries bit for bit;
--steps the steps of each query; --outcome how each ended (1 converged,
2 reached --max-steps, 3 stalled at a DrDAM's clip floor, also named in a
warning). A .npy output's header holds the number of rows, so the queries
are then read twice (counted first). Outputs appear whole or not at all.

Example:
  drdam encode --patterns rows.csv --beta 40 --y 20000 --out m.drdam
  drdam complete --model m.drdam --queries holes.csv --out filled.csv

The image form (without --model) follows: the demo of the paper's Fig. 1.`)
	c := &completeData{fs: fs}
	c.model = fs.String("model", "", "model file")
	c.queries = fs.String("queries", "", "file of queries, one per row, NaN (or an empty field) for a missing entry")
	c.out = fs.String("out", "", "file for the completed rows (B×D)")
	c.fill = fs.String("fill", "zero", "where the missing entries start: zero, means, kernel or knn (an MrDAM's), or a file of D values")
	c.step = fs.Number("step", 0.1, positive, "> 0", "step size η")
	c.maxSteps = fs.Int("max-steps", 1000, "maximum number of steps L")
	c.tol = fs.Float64("tol", dam.DefaultTol, "stop a query once |ΔE| < tol (0: always run --max-steps)")
	c.asJSON = jsonFlag(fs)
	c.box = fs.String("box", "", "clip every missing entry to [lo,hi] after each step, written lo,hi")
	c.steps = fs.String("steps", "", "file for the number of steps of each query")
	c.outc = fs.String("outcome", "", "file for how each query ended: 1 converged, 2 max steps, 3 stalled at the clip floor")
	c.budget = addBudget(fs)
	fs.require("model", "queries", "out")
	return c
}

// hasFlag reports whether args (before a "--") give the flag name.
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		n := strings.TrimLeft(a, "-")
		if n != a && (n == name || strings.HasPrefix(n, name+"=")) {
			return true
		}
	}
	return false
}

// withNote appends note to a usage error.
func withNote(err error, note string) error {
	if u, ok := err.(usageError); ok {
		return usageError{u.msg + note}
	}
	return err
}

// parseBox parses --box lo,hi (nil for "").
func parseBox(s string) (*dam.Box, error) {
	if s == "" {
		return nil, nil
	}
	lo, hi, ok := strings.Cut(s, ",")
	l, err1 := strconv.ParseFloat(strings.TrimSpace(lo), 64)
	h, err2 := strconv.ParseFloat(strings.TrimSpace(hi), 64)
	if !ok || err1 != nil || err2 != nil {
		return nil, usagef("--box %q: want lo,hi, e.g. 0,0.125", s)
	}
	return &dam.Box{Lo: l, Hi: h}, nil
}

// fillFile reports whether --fill names a file rather than a start.
func fillFile(fill string) bool {
	return fill != "zero" && fill != "means" && fill != "kernel" && fill != "knn"
}

// startOf returns the start --fill names on m: a length-D fill (zero:
// nil; means; a file), or a per-chunk hook (kernel, knn).
func startOf(fill string, m dam.Memory) ([]float64, func([]float64) ([]float64, error), error) {
	switch fill {
	case "means":
		v, err := cli.MeansStart(m)
		return v, nil, err
	case "kernel":
		h, err := cli.KernelStart(m)
		return nil, h, err
	case "knn":
		h, err := cli.KNNStart(m)
		return nil, h, err
	}
	v, err := readFill(fill, m.Dim())
	return v, nil, err
}

// readFill reads --fill: nil for zero, else a file of d finite values.
func readFill(path string, d int) ([]float64, error) {
	if path == "zero" {
		return nil, nil
	}
	v, err := dataio.ReadVector(path)
	if err != nil {
		return nil, fmt.Errorf("--fill: %w", err)
	}
	if len(v) != d {
		return nil, fmt.Errorf("--fill %s: %d values, but the model has dimension D = %d (one start per column, or zero)", path, len(v), d)
	}
	if err := dataio.CheckFinite(path, &dataio.Matrix{Rows: 1, Cols: d, Data: v}); err != nil {
		return nil, fmt.Errorf("--fill: %w", err)
	}
	return v, nil
}

// runCompleteRows is drdam complete's data form: the rows of --queries
// completed on --model a chunk at a time, written to --out (and --steps,
// --outcome) as they come.
func runCompleteRows(e *env, args []string) error {
	c := newCompleteData()
	if err := c.fs.parse(e, args); err != nil {
		return withNote(err, dataFormNote)
	}
	box, err := parseBox(*c.box)
	if err != nil {
		return err
	}
	opt := dam.CompleteOptions{RecallOptions: dam.RecallOptions{Step: *c.step, MaxSteps: *c.maxSteps, Tol: *c.tol, Box: box}}
	inputs := []file{{"model", *c.model}, {"queries", *c.queries}}
	if fillFile(*c.fill) {
		inputs = append(inputs, file{"fill", *c.fill})
	}
	if err := checkFiles(inputs, []file{{"out", *c.out}, {"steps", *c.steps}, {"outcome", *c.outc}}); err != nil {
		return err
	}
	m, err := loadModel(e, *c.model, c.budget)
	if err != nil {
		return err
	}
	if m.Len() == 0 {
		return fmt.Errorf("%s stores no patterns: there is nothing to complete from (add some with drdam add)", *c.model)
	}
	var start func([]float64) ([]float64, error)
	if opt.Fill, start, err = startOf(*c.fill, m); err != nil {
		return err
	}
	rows, err := dataio.OpenRowsMissing(*c.queries)
	if err != nil {
		return err
	}
	defer rows.Close()
	if rows.Cols() != m.Dim() {
		return fmt.Errorf("%s: queries have %d columns, but the model has dimension D = %d", *c.queries, rows.Cols(), m.Dim())
	}
	streams, err := c.outputs(m.Dim())
	if err != nil {
		return err
	}
	sum := &completeSummary{}
	err = writeStreams(streams, nil, func(ws []*dataio.StreamWriter) error {
		return c.complete(e, m, rows, cli.Complete{Options: opt, Start: start}, ws, sum)
	})
	if err != nil {
		return err
	}
	return c.report(e, m, sum)
}

// stream is an output written a chunk at a time: its path ("" for none)
// and its shape (rows −1 when not known, for a text file).
type stream struct {
	path  string
	shape []int
}

// outputs returns --out, --steps and --outcome as streams of d columns,
// their format checked, counting the queries first if one is a .npy file.
func (c *completeData) outputs(d int) ([]stream, error) {
	ss := []stream{{*c.out, []int{-1, d}}, {*c.steps, []int{-1}}, {*c.outc, []int{-1}}}
	count := false
	for _, s := range ss {
		if s.path == "" {
			continue
		}
		if _, err := dataio.NewStreamWriter(io.Discard, s.path, append([]int{0}, s.shape[1:]...)); err != nil {
			return nil, err
		}
		count = count || strings.EqualFold(filepath.Ext(s.path), ".npy")
	}
	if !count {
		return ss, nil
	}
	n, err := cli.CountRows(*c.queries)
	if err != nil {
		return nil, err
	}
	for i := range ss {
		ss[i].shape[0] = int(n)
	}
	return ss, nil
}

// writeStreams opens the streams after the len(ws) open ones, each
// written atomically, and runs fn with all of them (nil for a stream of
// no path). An error of fn is returned as it is, and no file is left.
func writeStreams(ss []stream, ws []*dataio.StreamWriter, fn func([]*dataio.StreamWriter) error) error {
	if len(ws) == len(ss) {
		return fn(ws)
	}
	s := ss[len(ws)]
	if s.path == "" {
		return writeStreams(ss, append(ws, nil), fn)
	}
	var inner error
	err := atomicfile.Write(s.path, func(w io.Writer) error {
		sw, err := dataio.NewStreamWriter(w, s.path, s.shape)
		if err != nil {
			return err
		}
		if inner = writeStreams(ss, append(ws, sw), fn); inner != nil {
			return inner
		}
		return sw.Close()
	})
	if inner != nil {
		return inner
	}
	return err
}

// complete completes the queries of rows a chunk at a time (run, its
// options and start set) with a progress line, writing each chunk to the
// streams ws (out, steps, outcome) and adding it to sum.
func (c *completeData) complete(e *env, m dam.Memory, rows *dataio.Rows, run cli.Complete, ws []*dataio.StreamWriter, sum *completeSummary) error {
	pr := newProgress(e)
	defer pr.done()
	run.ChunkRows, run.Budget = completeRows, budgetOf(c.budget)
	run.Emit = func(res *dam.Result, first int64) error {
		sum.add(res, first)
		return writeChunk(ws, res)
	}
	run.Progress = func(done, read, all int64) {
		pr.rate("completing the queries of "+*c.queries, "queries", done, read, all)
	}
	_, err := run.Run(e.context(), m, rows)
	return err
}

// writeChunk writes a chunk's final states, steps and outcome codes to
// the streams ws that are open.
func writeChunk(ws []*dataio.StreamWriter, res *dam.Result) error {
	if err := ws[0].Write(res.X); err != nil {
		return err
	}
	v := make([]float64, len(res.Steps))
	if ws[1] != nil {
		for i, s := range res.Steps {
			v[i] = float64(s)
		}
		if err := ws[1].Write(v); err != nil {
			return err
		}
	}
	if ws[2] != nil {
		for i, o := range res.Outcome {
			v[i] = float64(o)
		}
		return ws[2].Write(v)
	}
	return nil
}

// completeSummary counts how the queries ended, in memory that does not
// grow with their number (the first stalled rows are named).
type completeSummary struct {
	n, conv, atMax, steps int64
	maxSteps              int
	dE                    float64 // the sum of the energy changes
	stalled               []int   // the first ten stalled rows, from 1
	nStalled              int
}

func (s *completeSummary) add(res *dam.Result, first int64) {
	conv, atMax, stalled := res.Count()
	s.conv, s.atMax, s.nStalled = s.conv+int64(conv), s.atMax+int64(atMax), s.nStalled+stalled
	for b, o := range res.Outcome {
		if o == dam.Stalled && len(s.stalled) < 10 {
			s.stalled = append(s.stalled, int(first)+b+1)
		}
		s.steps += int64(res.Steps[b])
		s.maxSteps = max(s.maxSteps, res.Steps[b])
		t := res.Energy[b]
		s.dE += t[len(t)-1] - t[0]
	}
	s.n += int64(len(res.Outcome))
}

// report prints the summary (text, or JSON with --json) and warns about
// the stalled queries.
func (c *completeData) report(e *env, m dam.Memory, s *completeSummary) error {
	floorWarningRows(e.stderr, "complete", *c.queries, s.stalled, s.nStalled, int(s.n), m.Config())
	if *c.asJSON {
		return printJSON(e.stdout, descentJSON{Queries: s.n, Converged: s.conv, MaxSteps: s.atMax, Stalled: int64(s.nStalled), Tol: *c.tol, StepLimit: *c.maxSteps,
			StepsMean: float64(s.steps) / float64(s.n), StepsMax: s.maxSteps, MeanEnergyChange: s.dE / float64(s.n), Out: *c.out})
	}
	fmt.Fprintf(e.stdout, "completed %d queries into %s: %d converged (|ΔE| < %g), %d stopped at --max-steps %d, %d stalled at the clip floor; steps mean %.1f, max %d; mean energy change %.6g\n",
		s.n, *c.out, s.conv, *c.tol, s.atMax, *c.maxSteps, s.nStalled, float64(s.steps)/float64(s.n), s.maxSteps, s.dE/float64(s.n))
	return nil
}
