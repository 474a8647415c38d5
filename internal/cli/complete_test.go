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

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/dataio"
)

// TestComplete: rows with missing entries completed 3 at a time (the
// last chunk partial) on an MrDAM and on a DrDAM give dam.Complete's
// result on all of them bit for bit, final states, steps and outcomes,
// with the chunks' first rows in order; an infinite entry is an error
// naming the file's row and column, as is a row of the wrong width.
func TestComplete(t *testing.T) {
	const d, k = 6, 8
	stored := make([]float64, k*d)
	for i := range stored {
		stored[i] = float64(i*7919%1000) / 2000 / math.Sqrt(d)
	}
	q := slices.Clone(stored)
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
	path := filepath.Join(t.TempDir(), "q.csv")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
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
