package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/dataio"
)

func runEnergy(e *env, args []string) error {
	fs := newFlags("energy", "", `
Evaluate a model's energy, and optionally its gradient, at each query
(one per row). Without --out the energies are printed, one per line.

A DrDAM clips φ(x)·T at a floor ε (--eps of encode; 1e-5 for cos and
sincos): where a query's φ(x)·T falls under it (the query is far from every
stored pattern at this β, or the kernel estimate's noise at this Y swamps
it), the energy written is the floor −log(ε)/β (plus ½‖x‖² for the dot
energy), not an energy, and the gradient is the floor's (0 for l2). The
command then warns on stderr, naming the rows (counted from 1).`)
	model := fs.String("model", "", "model file")
	queries := fs.String("queries", "", "file of queries, one per row")
	out := fs.String("out", "", "file for the energies (a vector of length B; .npy, .csv, ...)")
	grad := fs.String("grad", "", "file for the gradients (B×D)")
	asJSON := jsonFlag(fs)
	budget := addBudget(fs)
	fs.require("model", "queries")
	if err := fs.parse(e, args); err != nil {
		return err
	}
	m, q, err := openQueries(e, *model, *queries, budget, nil, []file{{"out", *out}, {"grad", *grad}})
	if err != nil {
		return err
	}
	en := make([]float64, q.Rows)
	var g []float64
	if *grad != "" {
		g = make([]float64, len(q.Data))
	}
	floor, err := energyGrad(m, en, g, q.Data)
	if err != nil {
		return fmt.Errorf("%s: %w", *queries, err)
	}
	floorWarning(e.stderr, "energy", *queries, floor, m.Config())
	if *out != "" {
		if err := dataio.WriteVector(*out, en); err != nil {
			return err
		}
	}
	switch {
	case *asJSON:
		j := energyJSON{Queries: q.Rows, Out: *out, Floored: []int{}}
		if *out == "" {
			j.Energies = en
		}
		for i, f := range floor {
			if f {
				j.Floored = append(j.Floored, i+1)
			}
		}
		if err := printJSON(e.stdout, j); err != nil {
			return err
		}
	case *out == "":
		for _, v := range en {
			fmt.Fprintln(e.stdout, strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	if g != nil {
		return writeOutput(*grad, q.Rows, q.Cols, g)
	}
	return nil
}

func runRecall(e *env, args []string) error {
	fs := newFlags("recall", "", `
Retrieve memories: run energy descent x ← x − η∇E(x) from each query (one
per row) until |E(t) − E(t−1)| < --tol or --max-steps steps. Coordinates
where the mask is true (nonzero) are clamped: they keep their value, as the
visible pixels of an occluded image.

Each query ends in one of three ways, which the summary counts:
converged (|ΔE| < --tol), reached --max-steps, or stalled at the clip floor
(a DrDAM only: φ(x)·T fell under ε, see drdam energy --help; there the
energy is a constant and, for the l2 energy, the gradient is 0, so the
query stops where it is: the descent retires it at once). Stalled rows are
also named in a warning on stderr.

Outputs: --out the final states (B×D); --steps the steps taken by each
query; --outcome how each query ended, a vector of codes 1 = converged,
2 = reached --max-steps, 3 = stalled at the clip floor; --trace the energy
before each step and at the end, a B×(max steps taken + 1) matrix in which
a query that stopped earlier repeats its final energy.`)
	model := fs.String("model", "", "model file")
	queries := fs.String("queries", "", "file of queries, one per row")
	maskPath := fs.String("mask", "", "clamp mask file: D values for every query, or a B×D matrix with a row per query; nonzero or true = clamped")
	step := fs.Number("step", 0.1, positive, "> 0", "step size η")
	maxSteps := fs.Int("max-steps", 1000, "maximum number of steps L")
	tol := fs.Float64("tol", dam.DefaultTol, "stop a query once |ΔE| < tol (0: always run --max-steps)")
	box := fs.String("box", "", "clip every free coordinate to [lo,hi] after each step, written lo,hi")
	out := fs.String("out", "", "file for the final states (B×D)")
	stepsOut := fs.String("steps", "", "file for the number of steps of each query")
	traceOut := fs.String("trace", "", "file for the energy traces")
	outcomeOut := fs.String("outcome", "", "file for how each query ended: 1 converged, 2 max steps, 3 stalled at the clip floor")
	asJSON := jsonFlag(fs)
	budget := addBudget(fs)
	fs.require("model", "queries", "out")
	if err := fs.parse(e, args); err != nil {
		return err
	}
	opt := dam.RecallOptions{Step: *step, MaxSteps: *maxSteps, Tol: *tol}
	var err error
	if opt.Box, err = parseBox(*box); err != nil {
		return err
	}
	m, q, err := openQueries(e, *model, *queries, budget, []file{{"mask", *maskPath}}, []file{{"out", *out}, {"steps", *stepsOut}, {"trace", *traceOut}, {"outcome", *outcomeOut}})
	if err != nil {
		return err
	}
	if *maskPath != "" {
		if err := checkInputSize(*maskPath, budget); err != nil {
			return err
		}
		if opt.Clamp, err = dataio.ReadMasks(*maskPath, m.Dim(), q.Rows); err != nil {
			return err
		}
	}
	res, err := descend(e, m, q, opt, *queries)
	if err != nil {
		return err
	}
	if err := writeRecall(res, q, *out, *stepsOut, *traceOut, *outcomeOut); err != nil {
		return err
	}
	stalled := make([]bool, len(res.Outcome))
	for i, o := range res.Outcome {
		stalled[i] = o == dam.Stalled
	}
	floorWarning(e.stderr, "recall", *queries, stalled, m.Config())
	if *asJSON {
		return printJSON(e.stdout, recallJSON(res, *tol, *maxSteps, *out))
	}
	return recallSummary(e.stdout, res, *tol, *maxSteps)
}

// recallJSON is recall's summary as drdam recall --json prints it.
func recallJSON(res *dam.Result, tol float64, maxSteps int, out string) descentJSON {
	conv, atMax, stalled := res.Count()
	j := descentJSON{Queries: int64(len(res.Steps)), Converged: int64(conv), MaxSteps: int64(atMax), Stalled: int64(stalled), Tol: tol, StepLimit: maxSteps, Out: out}
	for b, n := range res.Steps {
		j.StepsMean += float64(n) / float64(j.Queries)
		j.StepsMax = max(j.StepsMax, n)
		t := res.Energy[b]
		j.MeanEnergyChange += (t[len(t)-1] - t[0]) / float64(j.Queries)
	}
	return j
}

// descend runs the descent of opt from the queries q of file name, with
// a progress line.
func descend(e *env, m dam.Model, q *dataio.Matrix, opt dam.RecallOptions, name string) (*dam.Result, error) {
	ds, err := dam.NewDescent(m, opt)
	if err != nil {
		return nil, err
	}
	if err := ds.Start(q.Data); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	pr := newProgress(e)
	defer pr.done()
	for {
		pr.update(fmt.Sprintf("recall: %d of %d queries active, step", ds.Active(), q.Rows), ds.Iteration(), opt.MaxSteps)
		done, err := ds.Step()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if done {
			return ds.Result(), nil
		}
	}
}

// writeRecall writes the final states, the steps (if stepsOut is set), the
// outcomes (if outcomeOut is set: the codes of dam.Outcome) and the energy
// traces (if traceOut is set) of a recall: a B×(max steps + 1) matrix in
// which a query that stopped earlier repeats its final energy.
func writeRecall(res *dam.Result, q *dataio.Matrix, out, stepsOut, traceOut, outcomeOut string) error {
	if err := writeOutput(out, q.Rows, q.Cols, res.X); err != nil {
		return err
	}
	if outcomeOut != "" {
		codes := make([]float64, q.Rows)
		for i, o := range res.Outcome {
			codes[i] = float64(o)
		}
		if err := dataio.WriteVector(outcomeOut, codes); err != nil {
			return err
		}
	}
	if stepsOut != "" {
		steps := make([]float64, q.Rows)
		for i, s := range res.Steps {
			steps[i] = float64(s)
		}
		if err := dataio.WriteVector(stepsOut, steps); err != nil {
			return err
		}
	}
	if traceOut == "" {
		return nil
	}
	width := slices.Max(res.Steps) + 1
	tr := make([]float64, q.Rows*width)
	for b, t := range res.Energy {
		row := tr[b*width : (b+1)*width]
		copy(row, t)
		for j := len(t); j < width; j++ {
			row[j] = t[len(t)-1]
		}
	}
	return writeOutput(traceOut, q.Rows, width, tr)
}

// recallSummary prints how the queries ended (converged, at --max-steps,
// stalled at the clip floor) and the mean change of energy, an error if it
// is not finite.
func recallSummary(w io.Writer, res *dam.Result, tol float64, maxSteps int) error {
	n := len(res.Steps)
	conv, atMax, stalled := res.Count()
	var dE float64
	for _, t := range res.Energy {
		dE += (t[len(t)-1] - t[0]) / float64(n)
	}
	sorted := slices.Sorted(slices.Values(res.Steps))
	fmt.Fprintf(w, "recalled %d queries: %d converged (|ΔE| < %g), %d stopped at --max-steps %d, %d stalled at the clip floor; steps median %d, max %d; mean energy change %.6g\n",
		n, conv, tol, atMax, maxSteps, stalled, sorted[n/2], sorted[n-1], dE)
	if math.IsNaN(dE) {
		return fmt.Errorf("energies are not finite")
	}
	return nil
}

// energyGrad evaluates m at the queries x and returns, for a model with a
// clip floor, which queries were under it (nil otherwise).
func energyGrad(m dam.Memory, e, g, x []float64) ([]bool, error) {
	fr, ok := m.(dam.FloorReporter)
	if !ok {
		return nil, m.EnergyGrad(e, g, x)
	}
	floor := make([]bool, len(e))
	return floor, fr.EnergyGradFloor(e, g, x, floor)
}

// floorWarning warns on w, for command cmd, about the queries of file
// name that were at the clip floor of a model of configuration c (rows
// counted from 1, the first ten named), and says what their energy is.
func floorWarning(w io.Writer, cmd, name string, floor []bool, c dam.Config) {
	var rows []int
	n := 0
	for i, f := range floor {
		if f {
			n++
			if len(rows) < 10 {
				rows = append(rows, i+1)
			}
		}
	}
	floorWarningRows(w, cmd, name, rows, n, len(floor), c)
}

// floorWarningRows is floorWarning for n of total queries at the floor,
// the first of them (up to ten) named by rows, counted from 1.
func floorWarningRows(w io.Writer, cmd, name string, rows []int, n, total int, c dam.Config) {
	if n == 0 {
		return
	}
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = strconv.Itoa(r)
	}
	list := strings.Join(names, ", ")
	if n > len(rows) {
		list += fmt.Sprintf(" and %d more", n-len(rows))
	}
	what := "row " + list
	if n > 1 {
		what = "rows " + list
	}
	val := fmt.Sprintf("−log(ε)/β = %.6g", -math.Log(c.Epsilon)/c.Beta)
	if c.Similarity == dam.Dot {
		val += " + ½‖x‖²"
	}
	are, stop := "are", ""
	if cmd != "energy" {
		are, stop = "stalled", "; the descent stopped them there (their final states are not retrievals)"
	}
	fmt.Fprintf(w, "drdam %s: warning: %d of %d queries %s at the clip floor (%s of %s): φ(x)·T < ε = %g there, "+
		"so their energy is the floor %s, not an energy, and their gradient is %s%s. "+
		"Such a query is far from every stored pattern at β = %g, or the estimate's noise at Y = %d hides its nearest ones: compare with an mrdam model, lower β or raise Y.\n",
		cmd, n, total, are, what, name, c.Epsilon, val, gradOfFloor(c), stop, c.Beta, c.Y)
}

// gradOfFloor names the gradient a DrDAM returns at its clip floor.
func gradOfFloor(c dam.Config) string {
	if c.Similarity == dam.Dot {
		return "x"
	}
	return "0"
}

// openQueries checks the output files (none may name an input or
// another output, and their directories must exist, so that a long
// computation does not fail at its end), then loads the model under the
// budget and the queries, which must match its dimension.
func openQueries(e *env, model, queries string, budget *byteSize, inputs, outputs []file) (dam.Memory, *dataio.Matrix, error) {
	inputs = append([]file{{"model", model}, {"queries", queries}}, inputs...)
	if err := checkFiles(inputs, outputs); err != nil {
		return nil, nil, err
	}
	m, err := loadModel(e, model, budget)
	if err != nil {
		return nil, nil, err
	}
	if m.Len() == 0 {
		return nil, nil, fmt.Errorf("%s stores no patterns: there is no energy to evaluate (add some with drdam add)", model)
	}
	q, err := readPatterns(queries, "queries", m.Dim(), budget)
	if err != nil {
		return nil, nil, err
	}
	return m, q, nil
}
