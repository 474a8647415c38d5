package cli

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drdam/drdam/baseline"
	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/dataio"
)

// completeFixture returns k stored rows of d values in [0, 1/(2√d)) and
// the same rows with every third entry missing, written to a CSV file
// (empty fields) at path.
func completeFixture(t *testing.T, d, k int) (stored, q []float64, path string) {
	stored = make([]float64, k*d)
	for i := range stored {
		stored[i] = float64(i*7919%1000) / 2000 / math.Sqrt(float64(d))
	}
	q = slices.Clone(stored)
	for i := range q {
		if i%3 == 1 {
			q[i] = math.NaN()
		}
	}
	var sb strings.Builder
	for r := range k {
		for j := range d {
			if j > 0 {
				sb.WriteString(",")
			}
			if v := q[r*d+j]; !math.IsNaN(v) {
				fmt.Fprint(&sb, v)
			}
		}
		sb.WriteString("\n")
	}
	path = filepath.Join(t.TempDir(), "q.csv")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return stored, q, path
}

// runChunks runs c (its Emit set here) on the rows of path on m, in
// chunks of 3 rows, and returns the completed rows, steps and outcomes.
func runChunks(t *testing.T, c Complete, m dam.Model, path string) ([]float64, []int, []dam.Outcome) {
	rows, err := dataio.OpenRowsMissing(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var x []float64
	var steps []int
	var outcomes []dam.Outcome
	c.ChunkRows = 3
	c.Emit = func(res *dam.Result, first int64) error {
		x = append(x, res.X...)
		steps = append(steps, res.Steps...)
		outcomes = append(outcomes, res.Outcome...)
		return nil
	}
	if _, err := c.Run(context.Background(), m, rows); err != nil {
		t.Fatalf("Run: %v", err)
	}
	return x, steps, outcomes
}

// TestCompleteStarts: on an MrDAM, in chunks of 3 rows, the start
// MeansStart gives is baseline.Mean's column means, and completing with
// it as Options.Fill is dam.Complete's with it, bit for bit; the hook
// KernelStart gives is dam.Complete's with baseline.Kernel's readout at
// the model's β as a B·D Fill, bit for bit, and differs from the zero
// start's result. A DrDAM is refused by both with an error saying to
// give a file; a Start with a Fill is an error, and so is a Start that
// fails, naming the chunk's rows.
func TestCompleteStarts(t *testing.T) {
	const d, k = 6, 8
	stored, q, path := completeFixture(t, d, k)
	cfg := dam.Config{D: d, Beta: 40, Y: 2000}
	mr, _ := dam.NewMrDAM(cfg)
	dr, _ := dam.NewDrDAM(cfg)
	for _, m := range []dam.Memory{mr, dr} {
		if err := m.Add(stored); err != nil {
			t.Fatal(err)
		}
	}
	opt := dam.CompleteOptions{RecallOptions: dam.RecallOptions{Step: 0.1, MaxSteps: 50, Tol: 1e-9}}

	means, err := MeansStart(mr)
	if err != nil {
		t.Fatal(err)
	}
	bm, _ := baseline.NewMean(stored, d)
	if !slices.Equal(means, bm.Means()) {
		t.Fatalf("MeansStart %v, baseline.Mean %v", means, bm.Means())
	}
	withMeans := opt
	withMeans.Fill = means
	want, err := dam.Complete(mr, q, withMeans)
	if err != nil {
		t.Fatal(err)
	}
	x, steps, outcomes := runChunks(t, Complete{Options: withMeans}, mr, path)
	if !bitsEqual(x, want.X) || !slices.Equal(steps, want.Steps) || !slices.Equal(outcomes, want.Outcome) {
		t.Errorf("means: chunks differ from dam.Complete")
	}

	start, err := KernelStart(mr)
	if err != nil {
		t.Fatal(err)
	}
	kern, _ := baseline.NewKernel(stored, d, cfg.Beta)
	fill := make([]float64, len(q))
	if err := kern.Complete(fill, q, nil); err != nil {
		t.Fatal(err)
	}
	withKernel := opt
	withKernel.Fill = fill
	want, err = dam.Complete(mr, q, withKernel)
	if err != nil {
		t.Fatal(err)
	}
	x, steps, outcomes = runChunks(t, Complete{Options: opt, Start: start}, mr, path)
	if !bitsEqual(x, want.X) || !slices.Equal(steps, want.Steps) || !slices.Equal(outcomes, want.Outcome) {
		t.Errorf("kernel: chunks differ from dam.Complete with the kernel's readout as a B·D fill")
	}
	zero, err := dam.Complete(mr, q, opt)
	if err != nil {
		t.Fatal(err)
	}
	if bitsEqual(zero.X, want.X) {
		t.Errorf("kernel: the same result as from zero: the start was not used")
	}

	if _, err := MeansStart(dr); err == nil || !strings.Contains(err.Error(), "--fill means: a DrDAM stores no patterns") || !strings.Contains(err.Error(), "--fill FILE") {
		t.Errorf("MeansStart on a DrDAM: %v", err)
	}
	if _, err := KernelStart(dr); err == nil || !strings.Contains(err.Error(), "--fill kernel: a DrDAM stores no patterns") || !strings.Contains(err.Error(), "--fill FILE") {
		t.Errorf("KernelStart on a DrDAM: %v", err)
	}
	rows, _ := dataio.OpenRowsMissing(path)
	defer rows.Close()
	if _, err := (Complete{Options: withMeans, Start: start}).Run(context.Background(), mr, rows); err == nil || !strings.Contains(err.Error(), "both Options.Fill and Start") {
		t.Errorf("Fill and Start: %v", err)
	}
	fail := func([]float64) ([]float64, error) { return nil, fmt.Errorf("no start") }
	c := Complete{Options: opt, Start: fail, ChunkRows: 3, Emit: func(*dam.Result, int64) error { return nil }}
	if _, err := c.Run(context.Background(), mr, rows); err == nil || !strings.Contains(err.Error(), "q.csv: the start of rows 1 to 3: no start") {
		t.Errorf("a failing Start: %v", err)
	}
}

func bitsEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// TestComplete: rows with missing entries completed 3 at a time (the
// last chunk partial) on an MrDAM and on a DrDAM give dam.Complete's
// result on all of them bit for bit, final states, steps and outcomes,
// with the chunks' first rows in order; an infinite entry is an error
// naming the file's row and column, as is a row of the wrong width.
func TestComplete(t *testing.T) {
	const d, k = 6, 8
	stored, q, path := completeFixture(t, d, k)
	cfg := dam.Config{D: d, Beta: 40, Y: 2000}
	mr, _ := dam.NewMrDAM(cfg)
	dr, _ := dam.NewDrDAM(cfg)
	opt := dam.CompleteOptions{RecallOptions: dam.RecallOptions{Step: 0.1, MaxSteps: 50, Tol: 1e-9}}
	for _, m := range []dam.Memory{mr, dr} {
		if err := m.Add(stored); err != nil {
			t.Fatal(err)
		}
		want, err := dam.Complete(m, q, opt)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := dataio.OpenRowsMissing(path)
		if err != nil {
			t.Fatal(err)
		}
		var x []float64
		var steps []int
		var outcomes []dam.Outcome
		var firsts []int64
		c := Complete{Options: opt, ChunkRows: 3, Emit: func(res *dam.Result, first int64) error {
			x = append(x, res.X...)
			steps = append(steps, res.Steps...)
			outcomes = append(outcomes, res.Outcome...)
			firsts = append(firsts, first)
			return nil
		}}
		n, err := c.Run(context.Background(), m, rows)
		rows.Close()
		if err != nil || n != k {
			t.Fatalf("Run: %d rows, %v", n, err)
		}
		if !slices.Equal(firsts, []int64{0, 3, 6}) || !slices.Equal(steps, want.Steps) || !slices.Equal(outcomes, want.Outcome) {
			t.Errorf("chunks at %v, steps %v (want %v), outcomes %v (want %v)", firsts, steps, want.Steps, outcomes, want.Outcome)
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(want.X[i]) {
				t.Fatalf("X[%d] = %v in chunks, %v in one call", i, x[i], want.X[i])
			}
		}
	}

	bad := filepath.Join(t.TempDir(), "bad.csv")
	os.WriteFile(bad, []byte("0,,0,0,0,0\n0,0,0,-Inf,0,0\n"), 0o644)
	rows, _ := dataio.OpenRowsMissing(bad)
	defer rows.Close()
	_, err := Complete{Options: opt, Emit: func(*dam.Result, int64) error { return nil }}.Run(context.Background(), mr, rows)
	if err == nil || !strings.Contains(err.Error(), "bad.csv: row 2, column 4: -Inf") {
		t.Errorf("Inf: %v", err)
	}
	wide := filepath.Join(t.TempDir(), "wide.csv")
	os.WriteFile(wide, []byte("0,0,0\n"), 0o644)
	rows2, _ := dataio.OpenRowsMissing(wide)
	defer rows2.Close()
	if _, err := (Complete{Options: opt}).Run(context.Background(), mr, rows2); err == nil || !strings.Contains(err.Error(), "3 columns, but the model has dimension D = 6") {
		t.Errorf("width: %v", err)
	}
	if n, err := CountRows(path); n != k || err != nil {
		t.Errorf("CountRows: %d, %v", n, err)
	}
}
