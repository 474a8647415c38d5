package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drdam/drdam/baseline"
	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/npy"
)

// completeFixture writes 4 stored rows of D = 10 values in {0, a},
// a = 1/√10, and an MrDAM of them at β = 400: the first five columns are
// codes two of which differ in 3 places at least, the last five hold at
// most two a's. The queries hide some of the last five entries, so that
// from the start at 0 the row's own pattern is nearer than any other (by
// a² = 0.1 in squared distance at least) and, once completed, by 3a².
func completeFixture(t *testing.T) (dir, model string, stored []float64) {
	codes := []string{"1110011000", "0011100011", "1101100100", "0000001010"}
	a := 1 / math.Sqrt(10)
	dir = t.TempDir()
	var sb strings.Builder
	for _, c := range codes {
		for j, b := range c {
			v := 0.0
			if b == '1' {
				v = a
			}
			stored = append(stored, v)
			if j > 0 {
				sb.WriteString(",")
			}
			fmt.Fprint(&sb, v)
		}
		sb.WriteString("\n")
	}
	pat := writeCSV(t, dir, "p.csv", sb.String())
	model = filepath.Join(dir, "m.model")
	mustRun(t, "encode", "--patterns", pat, "--out", model, "--rep", "mrdam", "--beta", "400")
	return dir, model, stored
}

// hidden reports whether the test hides entry j of row r: two or three of
// the last five columns, a different set per row.
func hidden(r, j int) bool { return j >= 5 && (j+r)%2 == 0 }

// TestCompleteRows: drdam complete --model on the stored rows with
// entries hidden (a CSV with empty fields and NaN/nan, and a .npy with
// NaN) gives back the stored rows: the visible entries bit for bit, the
// hidden ones within 1e-12. At the fixed point a hidden entry is the
// softmax-weighted mean of the stored ones, off the row's own by at most
// K·exp(−β·3a²/2)·a ≈ 4·e⁻⁶⁰·0.3 (every other pattern is 3a² farther);
// the descent x ← x − η(x − mean) with η = 0.5 shrinks the rest by 2 a
// step, 2⁻²⁰⁰ after 200 steps; what remains is rounding, ~1e-17. The
// outputs are dam.Complete's on the same rows bit for bit, in .npy and in
// CSV, and the same in chunks of 1 row as in one chunk.
func TestCompleteRows(t *testing.T) {
	dir, model, stored := completeFixture(t)
	const d, k = 10, 4
	q := make([]float64, len(stored))
	var sb strings.Builder
	for r := range k {
		for j := range d {
			q[r*d+j] = stored[r*d+j]
			if j > 0 {
				sb.WriteString(",")
			}
			switch {
			case !hidden(r, j):
				fmt.Fprint(&sb, stored[r*d+j])
			case r == 1:
				sb.WriteString("NaN")
			case r == 2:
				sb.WriteString(" nan")
			}
			if hidden(r, j) {
				q[r*d+j] = math.NaN()
			}
		}
		sb.WriteString("\n")
	}
	qcsv := writeCSV(t, dir, "q.csv", sb.String())
	qnpy := filepath.Join(dir, "q.npy")
	if err := npy.WriteFile(qnpy, []int{k, d}, q); err != nil {
		t.Fatal(err)
	}
	m, err := dam.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	want, err := dam.Complete(m, q, dam.CompleteOptions{RecallOptions: dam.RecallOptions{Step: 0.5, MaxSteps: 200}})
	if err != nil {
		t.Fatal(err)
	}
	for r := range k {
		for j := range d {
			i := r*d + j
			if !hidden(r, j) && math.Float64bits(want.X[i]) != math.Float64bits(stored[i]) || math.Abs(want.X[i]-stored[i]) > 1e-12 {
				t.Errorf("row %d column %d: %v, stored %v", r+1, j+1, want.X[i], stored[i])
			}
		}
	}
	var outs [][]byte
	for _, chunk := range []int{completeRows, 1} {
		defer func(n int) { completeRows = n }(completeRows)
		completeRows = chunk
		for _, in := range []string{qcsv, qnpy} {
			for _, ext := range []string{".npy", ".csv"} {
				out := filepath.Join(dir, fmt.Sprintf("out%d%s", chunk, ext))
				steps := filepath.Join(dir, "steps"+ext)
				outcome := filepath.Join(dir, "outcome"+ext)
				stdout := mustRun(t, "complete", "--model", model, "--queries", in, "--out", out, "--step", "0.5", "--max-steps", "200", "--tol", "0",
					"--steps", steps, "--outcome", outcome)
				if !strings.Contains(stdout, "completed 4 queries") || !strings.Contains(stdout, "4 stopped at --max-steps 200") {
					t.Errorf("stdout: %q", stdout)
				}
				got, err := dataio.ReadMatrix(out)
				if err != nil || got.Rows != k || got.Cols != d || !bitsEqual(got.Data, want.X) {
					t.Fatalf("%s from %s in chunks of %d: %v, %v; want dam.Complete's %v", out, in, chunk, got, err, want.X)
				}
				if s, o := readVec(t, steps), readVec(t, outcome); len(s) != k || s[0] != 200 || len(o) != k || o[3] != float64(dam.MaxSteps) {
					t.Errorf("steps %v, outcome %v", s, o)
				}
				b, _ := os.ReadFile(out)
				outs = append(outs, b)
			}
		}
	}
	for i := range 4 {
		if !bytes.Equal(outs[i], outs[i+4]) {
			t.Errorf("output %d: chunks of 1 row differ from one chunk", i)
		}
	}
}

// TestCompleteRowsFill: on the fixture's MrDAM, with 3 descent steps
// (so that the start shows in the result), --fill means writes what
// --fill FILE writes with a file of the stored patterns' column means,
// bit for bit, and --fill kernel writes dam.Complete's result with
// baseline.Kernel's readout at the model's β as a B·D Fill, bit for bit,
// in one chunk and in chunks of 1 row, and --fill knn with baseline.KNN's
// distance-weighted 5-NN mean; the three starts zero, means and kernel
// give three results. On a DrDAM of the same patterns --fill means,
// kernel and knn are refused, saying to give a file, and write nothing.
func TestCompleteRowsFill(t *testing.T) {
	dir, model, stored := completeFixture(t)
	const d, k = 10, 4
	var sb strings.Builder
	q := make([]float64, len(stored))
	for r := range k {
		for j := range d {
			q[r*d+j] = stored[r*d+j]
			if hidden(r, j) {
				q[r*d+j] = math.NaN()
			}
			if j > 0 {
				sb.WriteString(",")
			}
			if !hidden(r, j) {
				fmt.Fprint(&sb, stored[r*d+j])
			}
		}
		sb.WriteString("\n")
	}
	qcsv := writeCSV(t, dir, "q.csv", sb.String())
	mean, err := baseline.NewMean(stored, d)
	if err != nil {
		t.Fatal(err)
	}
	sb.Reset()
	for j, v := range mean.Means() {
		if j > 0 {
			sb.WriteString(",")
		}
		fmt.Fprint(&sb, v)
	}
	means := writeCSV(t, dir, "means.csv", sb.String()+"\n")
	args := []string{"complete", "--model", model, "--queries", qcsv, "--step", "0.1", "--max-steps", "3", "--tol", "0"}
	run := func(fill, out string) []float64 {
		mustRun(t, append(args, "--fill", fill, "--out", out)...)
		got, err := dataio.ReadMatrix(out)
		if err != nil || got.Rows != k || got.Cols != d {
			t.Fatalf("--fill %s: %v, %v", fill, got, err)
		}
		return got.Data
	}
	byFile := run(means, filepath.Join(dir, "file.npy"))
	byMeans := run("means", filepath.Join(dir, "means.npy"))
	if !bitsEqual(byFile, byMeans) {
		t.Errorf("--fill means %v, --fill FILE of the means %v", byMeans, byFile)
	}

	m, err := dam.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	kern, err := baseline.NewKernel(stored, d, m.Config().Beta)
	if err != nil {
		t.Fatal(err)
	}
	fill := make([]float64, len(q))
	if err := kern.Complete(fill, q, nil); err != nil {
		t.Fatal(err)
	}
	want, err := dam.Complete(m, q, dam.CompleteOptions{RecallOptions: dam.RecallOptions{Step: 0.1, MaxSteps: 3}, Fill: fill})
	if err != nil {
		t.Fatal(err)
	}
	defer func(n int) { completeRows = n }(completeRows)
	for _, chunk := range []int{completeRows, 1} {
		completeRows = chunk
		if got := run("kernel", filepath.Join(dir, "kernel.npy")); !bitsEqual(got, want.X) {
			t.Errorf("--fill kernel in chunks of %d: %v, dam.Complete with the kernel's readout %v", chunk, got, want.X)
		}
	}
	knn, err := baseline.NewKNN(stored, d, 5, baseline.Distance)
	if err != nil {
		t.Fatal(err)
	}
	if err := knn.Complete(fill, q, nil); err != nil {
		t.Fatal(err)
	}
	wantKNN, err := dam.Complete(m, q, dam.CompleteOptions{RecallOptions: dam.RecallOptions{Step: 0.1, MaxSteps: 3}, Fill: fill})
	if err != nil {
		t.Fatal(err)
	}
	if got := run("knn", filepath.Join(dir, "knn.npy")); !bitsEqual(got, wantKNN.X) {
		t.Errorf("--fill knn: %v, dam.Complete with the 5-NN mean %v", got, wantKNN.X)
	}
	zero := run("zero", filepath.Join(dir, "zero.npy"))
	if bitsEqual(zero, byMeans) || bitsEqual(zero, want.X) || bitsEqual(byMeans, want.X) {
		t.Errorf("zero, means and kernel: two of the results are equal; the starts do not show")
	}

	pat := filepath.Join(dir, "p.csv")
	drModel := filepath.Join(dir, "dr.model")
	mustRun(t, "encode", "--patterns", pat, "--out", drModel, "--rep", "drdam", "--beta", "400", "--y", "500")
	for _, f := range []string{"means", "kernel", "knn"} {
		out := filepath.Join(dir, "dr.npy")
		st, _, errOut := drdam(t, "complete", "--model", drModel, "--queries", qcsv, "--out", out, "--fill", f)
		if st != 1 || !strings.Contains(errOut, "--fill "+f+": a DrDAM stores no patterns") || !strings.Contains(errOut, "--fill FILE") {
			t.Errorf("--fill %s on a DrDAM: status %d, %q", f, st, errOut)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("--fill %s on a DrDAM: %s written", f, out)
		}
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

// TestCompleteRowsErrors: an infinite entry, a row of the wrong width, a
// missing file and a --fill of the wrong length are errors naming what is
// wrong, and leave no output; --help shows both forms.
func TestCompleteRowsErrors(t *testing.T) {
	dir, model, _ := completeFixture(t)
	out := filepath.Join(dir, "out.npy")
	inf := writeCSV(t, dir, "inf.csv", "0,0,0,0,0,,,,,\n0,0,0,0,0,,,-Inf,,\n")
	narrow := writeCSV(t, dir, "narrow.csv", "0,0,,0\n")
	fill := writeCSV(t, dir, "fill.csv", "0,0,0\n")
	good := writeCSV(t, dir, "good.csv", "0,0,0,0,0,,,,,\n")
	for _, c := range []struct {
		args   []string
		status int
		want   []string
	}{
		{[]string{"--queries", inf}, 1, []string{"inf.csv: row 2, column 8: -Inf"}},
		{[]string{"--queries", narrow}, 1, []string{"narrow.csv: queries have 4 columns", "D = 10"}},
		{[]string{"--queries", filepath.Join(dir, "none.csv")}, 1, []string{"none.csv", "no such file"}},
		{[]string{"--queries", good, "--fill", fill}, 1, []string{"--fill", "fill.csv: 3 values", "D = 10"}},
		{[]string{"--queries", good, "--images", dir}, 2, []string{"unknown flag --images", "--fill"}},
		{[]string{"--queries", good, "--box", "1"}, 2, []string{"--box"}},
	} {
		args := append([]string{"complete", "--model", model, "--out", out}, c.args...)
		st, _, errOut := drdam(t, args...)
		if st != c.status {
			t.Errorf("%v: status %d, want %d (%s)", c.args, st, c.status, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: %q does not say %q", c.args, errOut, w)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s written", c.args, out)
		}
	}
	help := mustRun(t, "complete", "--help")
	data, images := strings.Index(help, "The data form"), strings.Index(help, "The image form")
	if data < 0 || images < data || !strings.Contains(help, "--occlude") || !strings.Contains(help, "--outcome") {
		t.Errorf("complete --help: %s", help)
	}
	if st, _, errOut := drdam(t, "complete", "--queries", good, "--out", out); st != 2 || !strings.Contains(errOut, "give --model") {
		t.Errorf("the image form given a file: %d %s", st, errOut)
	}
}
