// Command fillstart measures where a completion starts
// (docs/completion-start.md): the 1797 8×8 digits of --data, each row
// scaled into [0, 1/√D] (pixel/16/√64), all stored in an MrDAM; the
// queries are the stored rows with pixels hidden (the bottom half, the
// last 32 pixels; or a random half of each row, one mask per seed), and
// dam.Complete descends from a start of zero, of the column means, or of
// the kernel readout (baseline.Kernel at the model's β, a start per row),
// for each β of --betas. The kernel readout alone, with no descent, is a
// row of its own. It prints a Markdown table: the exact-retrieval rate
// (the completed row's nearest stored row over all pixels, by Euclidean
// distance, is its source row; a tie counts as retrieved), the RMSE on the
// hidden pixels in 0–16 units, and the descent's steps; over the random
// masks' seeds, the mean and a 95% t interval.
//
//	go run ./scripts/fillstart --data ../shared/data/digits/digits.csv
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/drdam/drdam/baseline"
	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/internal/sysinfo"
	"github.com/drdam/drdam/metrics"
)

// d is the digits' dimension (8×8 pixels); a pixel is 0…16.
const d = 64

func main() {
	data := flag.String("data", "../shared/data/digits/digits.csv", "the digits: 64 pixel columns (0–16) and a label column, with a header row")
	betas := flag.String("betas", "100,300,1000,3000", "inverse temperatures β, comma-separated")
	seeds := flag.Int("seeds", 3, "random masks (seeds 1…N)")
	step := flag.Float64("step", 1, "step size η (1: the concave–convex update, which never raises the energy)")
	maxSteps := flag.Int("max-steps", 1000, "maximum steps of a descent")
	tol := flag.Float64("tol", 1e-12, "a descent stops once |ΔE| < tol")
	flag.Parse()
	if err := run(*data, *betas, *seeds, dam.RecallOptions{Step: *step, MaxSteps: *maxSteps, Tol: *tol}); err != nil {
		fmt.Fprintln(os.Stderr, "fillstart:", err)
		os.Exit(1)
	}
}

// readDigits reads the pixels of the digits' CSV file (dataio.ReadMatrix;
// the label column dropped), each scaled by 1/16/√64 into [0, 1/√D].
func readDigits(path string) ([]float64, error) {
	m, err := dataio.ReadMatrix(path)
	if err != nil {
		return nil, err
	}
	if m.Cols != d+1 {
		return nil, fmt.Errorf("%s: %d columns, want %d pixels and a label", path, m.Cols, d)
	}
	x := make([]float64, 0, m.Rows*d)
	for r := range m.Rows {
		for j, v := range m.Data[r*m.Cols : r*m.Cols+d] {
			if !(v >= 0 && v <= 16) {
				return nil, fmt.Errorf("%s: row %d, column %d: %v, want a pixel 0…16", path, r+1, j+1, v)
			}
			x = append(x, v/16/math.Sqrt(d))
		}
	}
	return x, nil
}

// mask is a set of hidden pixels, a row of B×D per query (true: hidden).
type mask []bool

// bottom hides the last 32 pixels of each of k rows.
func bottom(k int) mask {
	m := make(mask, k*d)
	for i := range m {
		m[i] = i%d >= d/2
	}
	return m
}

// random hides a random half (32 pixels) of each of k rows, drawn from a
// PCG stream of the seed.
func random(k int, seed uint64) mask {
	r := rand.New(rand.NewPCG(seed, 0xf111))
	m := make(mask, k*d)
	for q := range k {
		for _, j := range r.Perm(d)[:d/2] {
			m[q*d+j] = true
		}
	}
	return m
}

// measure is what one completion of every query scores.
type measure struct {
	retrieved, rmse float64 // the fraction retrieved; RMSE in 0–16 units
	steps           float64 // mean steps (0 without descent)
	maxSteps        int
	converged       float64 // the fraction that met the tolerance
}

// score compares the completed rows x with their sources xi (the stored
// rows, query q's source row q) on the hidden pixels of m.
func score(x, xi []float64, m mask, res *dam.Result) measure {
	k := len(xi) / d
	var s measure
	var se float64
	var nh int
	for q := range k {
		row := x[q*d : (q+1)*d]
		own := sqdist(row, xi[q*d:(q+1)*d])
		hit := true
		for o := range k {
			if o != q && sqdist(row, xi[o*d:(o+1)*d]) < own {
				hit = false
				break
			}
		}
		if hit {
			s.retrieved++
		}
		for j := range d {
			if m[q*d+j] {
				e := (row[j] - xi[q*d+j]) * 16 * math.Sqrt(d)
				se += e * e
				nh++
			}
		}
	}
	s.retrieved /= float64(k)
	s.rmse = math.Sqrt(se / float64(nh))
	if res != nil {
		for q, st := range res.Steps {
			s.steps += float64(st)
			s.maxSteps = max(s.maxSteps, st)
			if res.Outcome[q] == dam.Converged {
				s.converged++
			}
		}
		s.steps /= float64(k)
		s.converged /= float64(k)
	}
	return s
}

func sqdist(a, b []float64) float64 {
	var s float64
	for i := range a {
		t := a[i] - b[i]
		s += t * t
	}
	return s
}

// starts are the measured starts, the last the kernel readout alone.
var starts = []string{"zero", "means", "kernel", "kernel readout alone"}

// complete returns the completions of the queries (xi with m's pixels
// hidden) on mr at β from each start, and their scores.
func complete(mr *dam.MrDAM, xi []float64, m mask, beta float64, ro dam.RecallOptions) ([]measure, error) {
	q := make([]float64, len(xi))
	for i, v := range xi {
		q[i] = v
		if m[i] {
			q[i] = math.NaN()
		}
	}
	mean, err := baseline.NewMean(xi, d)
	if err != nil {
		return nil, err
	}
	kern, err := baseline.NewKernel(xi, d, beta)
	if err != nil {
		return nil, err
	}
	readout := make([]float64, len(q))
	if err := kern.Complete(readout, q, nil); err != nil {
		return nil, err
	}
	var out []measure
	for _, fill := range [][]float64{nil, mean.Means(), readout} {
		res, err := dam.Complete(mr, q, dam.CompleteOptions{RecallOptions: ro, Fill: fill})
		if err != nil {
			return nil, err
		}
		out = append(out, score(res.X, xi, m, res))
	}
	return append(out, score(readout, xi, m, nil)), nil
}

func run(path, betaList string, seeds int, ro dam.RecallOptions) error {
	xi, err := readDigits(path)
	if err != nil {
		return err
	}
	k := len(xi) / d
	var betas []float64
	for _, s := range strings.Split(betaList, ",") {
		b, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(b > 0) {
			return fmt.Errorf("--betas: %q, want positive numbers", s)
		}
		betas = append(betas, b)
	}
	dup := 0
	for q := range k {
		for o := range q {
			if sqdist(xi[q*d:(q+1)*d], xi[o*d:(o+1)*d]) == 0 {
				dup++
				break
			}
		}
	}
	t0 := time.Now()
	fmt.Printf("%d digits (%d a repeat of an earlier row), D = %d, all stored in an MrDAM; step %g, max steps %d, tol %g; %s, %d CPUs\n\n",
		k, dup, d, ro.Step, ro.MaxSteps, ro.Tol, sysinfo.CPUModel(), runtime.NumCPU())
	fmt.Println("| hidden | β | start | retrieved (%) | RMSE on hidden, 0–16 | steps mean (max) | converged (%) |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, beta := range betas {
		mr, err := dam.NewMrDAM(dam.Config{D: d, Beta: beta})
		if err != nil {
			return err
		}
		if err := mr.Add(xi); err != nil {
			return err
		}
		bm, err := complete(mr, xi, bottom(k), beta, ro)
		if err != nil {
			return err
		}
		rm := make([][]measure, seeds)
		for s := range seeds {
			if rm[s], err = complete(mr, xi, random(k, uint64(s+1)), beta, ro); err != nil {
				return err
			}
		}
		for i, name := range starts {
			fmt.Println(line("bottom half", beta, name, []measure{bm[i]}))
		}
		for i, name := range starts {
			ms := make([]measure, seeds)
			for s := range seeds {
				ms[s] = rm[s][i]
			}
			fmt.Println(line(fmt.Sprintf("random half, %d seeds", seeds), beta, name, ms))
		}
	}
	fmt.Printf("\n(%.0f s)\n", time.Since(t0).Seconds())
	return nil
}

// line is a row of the table: the measures of one start over the masks'
// seeds (one: no interval).
func line(hidden string, beta float64, start string, ms []measure) string {
	var ret, rmse, steps []float64
	conv, maxSteps := 0.0, 0
	for _, m := range ms {
		ret = append(ret, 100*m.retrieved)
		rmse = append(rmse, m.rmse)
		steps = append(steps, m.steps)
		conv += 100 * m.converged / float64(len(ms))
		maxSteps = max(maxSteps, m.maxSteps)
	}
	st, cv := "—", "—"
	if start != "kernel readout alone" {
		st = fmt.Sprintf("%.1f (%d)", metrics.MeanInterval(steps, 0.95).Mean, maxSteps)
		cv = fmt.Sprintf("%.1f", conv)
	}
	return fmt.Sprintf("| %s | %g | %s | %s | %s | %s | %s |", hidden, beta, start, iv(ret, 1), iv(rmse, 2), st, cv)
}

// iv is the mean of xs with its 95% t interval (none for one value).
func iv(xs []float64, prec int) string {
	if len(xs) == 1 {
		return strconv.FormatFloat(xs[0], 'f', prec, 64)
	}
	i := metrics.MeanInterval(xs, 0.95)
	return fmt.Sprintf("%.*f [%.*f, %.*f]", prec, i.Mean, prec, i.Lo, prec, i.Hi)
}
