package baseline

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/drdam/drdam/datasets"
	"github.com/drdam/drdam/npy"
)

// python is the interpreter with Debian's numpy and scikit-learn.
const python = "/usr/bin/python3"

// digitsCSV is the 8×8 digits (../shared/data/digits/PROVENANCE.md),
// relative to this package's folder.
const digitsCSV = "../../shared/data/digits/digits.csv"

// needSklearn skips the test when python3, numpy or scikit-learn is missing.
func needSklearn(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(python); err != nil {
		t.Skipf("no %s (%v): KNNImputer is not compared with scikit-learn", python, err)
	}
	out, err := exec.Command(python, "-c", "import numpy, sklearn").CombinedOutput()
	if err != nil {
		t.Skipf("%s cannot import numpy and sklearn (%v: %s): KNNImputer is not compared with scikit-learn", python, err, strings.TrimSpace(string(out)))
	}
}

// readDigits reads the digits' 64 pixel columns (the label dropped).
func readDigits() ([]float64, error) {
	f, err := os.Open(digitsCSV)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var x []float64
	sc := bufio.NewScanner(f)
	for line := 0; sc.Scan(); line++ {
		if line == 0 {
			continue // the header
		}
		fields := strings.Split(sc.Text(), ",")
		if len(fields) != 65 {
			return nil, fmt.Errorf("%s:%d: %d fields, want 65", digitsCSV, line+1, len(fields))
		}
		for _, s := range fields[:64] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", digitsCSV, line+1, err)
			}
			x = append(x, v)
		}
	}
	return x, sc.Err()
}

// sklearnSet is a data set for the comparison: fit rows (NaN = missing)
// and queries with NaN at their hidden coordinates.
type sklearnSet struct {
	fit, q []float64
	d      int
}

// split takes the first nfit rows of x as fit rows and nq of the last
// rows as queries with 20–50% of their coordinates hidden.
func splitSet(rng *rand.Rand, x []float64, d, nfit, nq int) sklearnSet {
	n := len(x) / d
	q := append([]float64(nil), x[(n-nq)*d:]...)
	for i := range nq {
		p := 0.2 + 0.3*rng.Float64()
		perm := rng.Perm(d)
		for _, j := range perm[:int(math.Round(p*float64(d)))] {
			q[i*d+j] = math.NaN()
		}
	}
	return sklearnSet{fit: x[:nfit*d], q: q, d: d}
}

func TestImputerSklearn(t *testing.T) {
	needSklearn(t)
	sets := map[string]func(rng *rand.Rand) (sklearnSet, error){
		"digits": func(rng *rand.Rand) (sklearnSet, error) {
			x, err := readDigits()
			if err != nil {
				return sklearnSet{}, err
			}
			return splitSet(rng, x, 64, 1000, 200), nil
		},
		"letter": func(rng *rand.Rand) (sklearnSet, error) {
			m, _, err := datasets.Letter()
			if err != nil {
				return sklearnSet{}, err
			}
			return splitSet(rng, m.Data, m.Cols, 3000, 250), nil
		},
		// Random normal values with 30% holes in the fit rows, column 3
		// empty and every ninth row with one value: donors at NaN distance,
		// queries whose every donor is, an empty column.
		"random": func(rng *rand.Rand) (sklearnSet, error) {
			const k, d, b = 80, 10, 300
			x := make([]float64, (k+b)*d)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			holes(rng, x[:k*d], d, 0.3, 3)
			return splitSet(rng, x, d, k, b), nil
		},
		// The same, small and with 60% holes: many queries meet fewer
		// than k donors at a number distance, or none.
		"sparse": func(rng *rand.Rand) (sklearnSet, error) {
			const k, d, b = 15, 6, 300
			x := make([]float64, (k+b)*d)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			holes(rng, x[:k*d], d, 0.6, 3)
			return splitSet(rng, x, d, k, b), nil
		},
	}
	for _, name := range []string{"digits", "letter", "random", "sparse"} {
		t.Run(name, func(t *testing.T) {
			set, err := sets[name](rand.New(rand.NewPCG(29, uint64(len(name)))))
			if errors.Is(err, os.ErrNotExist) {
				t.Skipf("no digits: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			compareSklearn(t, set)
		})
	}
}

// compareSklearn runs testdata/sklearn_knn.py on set for k = 1, 5 and both
// weightings, and compares its results with Imputer's and with refImpute:
// equal to 1e-9 where the k-th donor is not tied, within the range of the
// tie's choices where it is.
func compareSklearn(t *testing.T, set sklearnSet) {
	dir := t.TempDir()
	d, b := set.d, len(set.q)/set.d
	fitPath, qPath := filepath.Join(dir, "fit.npy"), filepath.Join(dir, "query.npy")
	if err := npy.WriteFile(fitPath, []int{len(set.fit) / d, d}, set.fit); err != nil {
		t.Fatal(err)
	}
	if err := npy.WriteFile(qPath, []int{b, d}, set.q); err != nil {
		t.Fatal(err)
	}
	type run struct {
		k int
		w Weighting
	}
	runs := []run{{1, Uniform}, {1, Distance}, {5, Uniform}, {5, Distance}}
	args := []string{"testdata/sklearn_knn.py", fitPath, qPath}
	for i, r := range runs {
		args = append(args, strconv.Itoa(r.k), r.w.String(), filepath.Join(dir, fmt.Sprintf("out%d.npy", i)))
	}
	t0 := time.Now()
	if out, err := exec.Command(python, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", python, strings.Join(args, " "), err, out)
	}
	t.Logf("scikit-learn: %v", time.Since(t0).Round(time.Millisecond))
	// The references do not depend on the weighting's run order.
	for i, r := range runs {
		sk, err := npy.ReadFile(filepath.Join(dir, fmt.Sprintf("out%d.npy", i)))
		if err != nil {
			t.Fatal(err)
		}
		m, err := NewImputer(set.fit, d, r.k, r.w)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float64, len(set.q))
		if err := m.Complete(got, set.q, nil); err != nil {
			t.Fatal(err)
		}
		exact, tied, bad := 0, 0, 0
		fail := func(format string, a ...any) {
			if bad++; bad <= 5 {
				t.Errorf("k=%d %v: "+format, append([]any{r.k, r.w}, a...)...)
			}
		}
		for i := range b {
			row := set.q[i*d : (i+1)*d]
			ref := refImpute(set.fit, d, row, r.k, r.w)
			for j := range d {
				g, s := got[i*d+j], sk.Data[i*d+j]
				want, hid := ref[j]
				if !hid {
					if g != row[j] || (s != row[j] && m.present[j] > 0) {
						fail("query %d visible coordinate %d: %v here, %v in scikit-learn, want %v", i, j, g, s, row[j])
					}
					continue
				}
				if !near(g, want.val, 1e-12) {
					fail("query %d coordinate %d: %.17g, reference %.17g", i, j, g, want.val)
				}
				if want.tied && want.lo != want.hi {
					tied++
					if s < want.lo-1e-9*max(1, math.Abs(want.lo)) || s > want.hi+1e-9*max(1, math.Abs(want.hi)) {
						fail("query %d coordinate %d (tied k-th donor): scikit-learn %.17g outside [%.17g, %.17g]", i, j, s, want.lo, want.hi)
					}
					continue
				}
				exact++
				if !near(g, s, 1e-9) {
					fail("query %d coordinate %d: %.17g, scikit-learn %.17g", i, j, g, s)
				}
			}
		}
		t.Logf("k=%d %v: %d imputed values equal to scikit-learn's, %d with a tied k-th donor within its range", r.k, r.w, exact, tied)
		if exact == 0 {
			t.Errorf("k=%d %v: no value compared exactly", r.k, r.w)
		}
	}
}
