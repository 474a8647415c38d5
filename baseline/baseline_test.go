package baseline

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// tieData returns k rows of d small integers (0, 1 or 2: many ties), with
// every fifth row a copy of an earlier one (exact ties), and b queries
// drawn the same way with 20–50% of their coordinates hidden.
func tieData(seed uint64, k, d, b int) (x, q, qnan []float64, visible []bool) {
	rng := rand.New(rand.NewPCG(seed, 1))
	small := func() float64 { return float64(rng.IntN(3)) }
	x = make([]float64, k*d)
	for r := range k {
		if r >= 5 && r%5 == 0 {
			src := rng.IntN(r)
			copy(x[r*d:(r+1)*d], x[src*d:(src+1)*d])
			continue
		}
		for j := range d {
			x[r*d+j] = small()
		}
	}
	q, qnan, visible = randomQueries(rng, b, d, 0.2, 0.5, small)
	return x, q, qnan, visible
}

// realData returns k rows of d normal values and b queries with 20–50%
// hidden, some of them copies of stored rows (distance 0).
func realData(seed uint64, k, d, b int) (x, q, qnan []float64, visible []bool) {
	rng := rand.New(rand.NewPCG(seed, 2))
	x = make([]float64, k*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	q, qnan, visible = randomQueries(rng, b, d, 0.2, 0.5, rng.NormFloat64)
	for i := 0; i < b; i += 7 {
		r := rng.IntN(k)
		for j := range d {
			q[i*d+j] = x[r*d+j]
			if visible[i*d+j] {
				qnan[i*d+j] = x[r*d+j]
			}
		}
	}
	return x, q, qnan, visible
}

// near reports whether a and b agree to tol, relative to max(1, |b|).
func near(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*max(1, math.Abs(b))
}

// checkBoth completes q with the mask and qnan without it, and compares
// both with ref's rows to tol.
func checkBoth(t *testing.T, name string, c Completer, q, qnan []float64, visible []bool, d int, ref func(x []float64, vis []bool) []float64, tol float64) {
	t.Helper()
	b := len(q) / d
	for _, byMask := range []bool{true, false} {
		dst := make([]float64, len(q))
		in, vis := q, visible
		if !byMask {
			in, vis = qnan, nil
		}
		if err := c.Complete(dst, in, vis); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		bad := 0
		for i := range b {
			var vrow []bool
			if vis != nil {
				vrow = vis[i*d : (i+1)*d]
			}
			want := ref(in[i*d:(i+1)*d], vrow)
			for j := range d {
				if got := dst[i*d+j]; !near(got, want[j], tol) {
					if bad++; bad <= 5 {
						t.Errorf("%s (mask %v): query %d coordinate %d = %.17g, want %.17g", name, byMask, i, j, got, want[j])
					}
				}
			}
		}
	}
}

func TestKNN(t *testing.T) {
	const d = 12
	for _, data := range []struct {
		name string
		gen  func(uint64, int, int, int) ([]float64, []float64, []float64, []bool)
	}{{"ties", tieData}, {"normal", realData}} {
		x, q, qnan, vis := data.gen(7, 300, d, 64)
		for _, k := range []int{1, 2, 5, 400} {
			for _, w := range []Weighting{Uniform, Distance} {
				m, err := NewKNN(x, d, k, w)
				if err != nil {
					t.Fatal(err)
				}
				ref := func(row []float64, v []bool) []float64 { return refKNN(x, d, row, v, k, w) }
				checkBoth(t, data.name+" k="+strconv.Itoa(k)+" "+w.String(), m, q, qnan, vis, d, ref, 1e-12)
			}
		}
	}
}

func TestKernel(t *testing.T) {
	const d = 10
	x, q, qnan, vis := realData(3, 200, d, 50)
	// β = 1e4: exp(−β/2 d²) underflows to 0 for every row without the
	// subtraction of the least d².
	for _, beta := range []float64{0.1, 1, 8, 1e4} {
		m, err := NewKernel(x, d, beta)
		if err != nil {
			t.Fatal(err)
		}
		ref := func(row []float64, v []bool) []float64 { return refKernel(x, d, row, v, beta) }
		checkBoth(t, "normal", m, q, qnan, vis, d, ref, 1e-12)
	}
	x, q, qnan, vis = tieData(4, 200, d, 50)
	m, err := NewKernel(x, d, 2)
	if err != nil {
		t.Fatal(err)
	}
	checkBoth(t, "ties", m, q, qnan, vis, d, func(row []float64, v []bool) []float64 { return refKernel(x, d, row, v, 2) }, 1e-12)
}

func TestMean(t *testing.T) {
	const d = 9
	x, q, qnan, vis := realData(5, 100, d, 40)
	m, err := NewMean(x, d)
	if err != nil {
		t.Fatal(err)
	}
	checkBoth(t, "normal", m, q, qnan, vis, d, func(row []float64, v []bool) []float64 { return refMean(x, d, row, v) }, 1e-12)
}

// holes puts NaN into a fraction p of x's values, empties column empty
// (if ≥ 0) and leaves a few rows with a single present value, so that
// queries meet donors at NaN distance and columns without donors.
func holes(rng *rand.Rand, x []float64, d int, p float64, empty int) {
	for i := range x {
		if rng.Float64() < p || i%d == empty {
			x[i] = math.NaN()
		}
	}
	for r := 0; r < len(x)/d; r += 9 {
		keep := rng.IntN(d)
		for j := range d {
			if j != keep {
				x[r*d+j] = math.NaN()
			}
		}
	}
}

func TestImputerRef(t *testing.T) {
	const d = 8
	for _, data := range []struct {
		name string
		gen  func(uint64, int, int, int) ([]float64, []float64, []float64, []bool)
	}{{"ties", tieData}, {"normal", realData}} {
		for _, k := range []int{1, 3, 5, 100} {
			for _, w := range []Weighting{Uniform, Distance} {
				x, q, qnan, vis := data.gen(11, 60, d, 80)
				holes(rand.New(rand.NewPCG(1, 2)), x, d, 0.4, 3)
				m, err := NewImputer(x, d, k, w)
				if err != nil {
					t.Fatal(err)
				}
				ref := func(row []float64, v []bool) []float64 {
					in := append([]float64(nil), row...)
					for j := range in {
						if hidden(row, v, j) {
							in[j] = math.NaN()
						}
					}
					out := append([]float64(nil), in...)
					for j, r := range refImpute(x, d, in, k, w) {
						out[j] = r.val
					}
					return out
				}
				checkBoth(t, data.name+" k="+strconv.Itoa(k)+" "+w.String(), m, q, qnan, vis, d, ref, 1e-12)
			}
		}
	}
}

// TestSameInPieces: a batch gives what its queries give one at a time
// (the scheduling on the cores changes nothing), and dst may be q.
func TestSameInPieces(t *testing.T) {
	const d = 16
	x, q, _, vis := realData(9, 500, d, 37)
	xn := append([]float64(nil), x...)
	holes(rand.New(rand.NewPCG(3, 4)), xn, d, 0.1, -1)
	knn, _ := NewKNN(x, d, 5, Distance)
	imp, _ := NewImputer(xn, d, 5, Uniform)
	ker, _ := NewKernel(x, d, 3)
	mean, _ := NewMean(x, d)
	for name, c := range map[string]Completer{"knn": knn, "imputer": imp, "kernel": ker, "mean": mean} {
		all := make([]float64, len(q))
		if err := c.Complete(all, q, vis); err != nil {
			t.Fatal(err)
		}
		one := make([]float64, d)
		for i := range len(q) / d {
			if err := c.Complete(one, q[i*d:(i+1)*d], vis[i*d:(i+1)*d]); err != nil {
				t.Fatal(err)
			}
			for j := range d {
				if one[j] != all[i*d+j] {
					t.Fatalf("%s: query %d coordinate %d: %v alone, %v in the batch", name, i, j, one[j], all[i*d+j])
				}
			}
		}
		inPlace := append([]float64(nil), q...)
		if err := c.Complete(inPlace, inPlace, vis); err != nil {
			t.Fatal(err)
		}
		for i := range all {
			if inPlace[i] != all[i] {
				t.Fatalf("%s: in place, value %d = %v, want %v", name, i, inPlace[i], all[i])
			}
		}
	}
}

// TestAllocs: the allocations of a call do not grow with the number of
// queries (the workspaces are reused).
func TestAllocs(t *testing.T) {
	const d = 16
	x, q, _, vis := realData(10, 300, d, 64)
	xn := append([]float64(nil), x...)
	holes(rand.New(rand.NewPCG(5, 6)), xn, d, 0.1, -1)
	knn, _ := NewKNN(x, d, 5, Uniform)
	imp, _ := NewImputer(xn, d, 5, Distance)
	ker, _ := NewKernel(x, d, 3)
	for name, c := range map[string]Completer{"knn": knn, "imputer": imp, "kernel": ker} {
		dst := make([]float64, len(q))
		count := func(b int) float64 {
			return testing.AllocsPerRun(5, func() { _ = c.Complete(dst[:b*d], q[:b*d], vis[:b*d]) })
		}
		// Fill the pool of workspaces: a workspace is made when a call's
		// goroutines first need one more than the pool holds.
		for range 20 {
			count(64)
		}
		if one, many := count(1), count(64); many > one+2 {
			t.Errorf("%s: %v allocations for 64 queries, %v for 1", name, many, one)
		}
	}
}

func TestErrors(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4, 5}
	nan := math.NaN()
	for _, c := range []struct {
		name string
		err  func() error
		want string
	}{
		{"k", func() error { _, err := NewKNN(x, 2, 0, Uniform); return err }, "k = 0, want k ≥ 1"},
		{"imputer k", func() error { _, err := NewImputer(x, 2, -1, Uniform); return err }, "k = -1, want k ≥ 1"},
		{"weighting", func() error { _, err := NewKNN(x, 2, 1, Weighting(7)); return err }, "weighting Weighting(7), want Uniform or Distance"},
		{"beta", func() error { _, err := NewKernel(x, 2, 0); return err }, "β = 0, want a finite β > 0"},
		{"beta NaN", func() error { _, err := NewKernel(x, 2, nan); return err }, "β = NaN"},
		{"empty", func() error { _, err := NewMean(nil, 2); return err }, "none (len(x) = 0), want K ≥ 1 rows of d = 2"},
		{"d", func() error { _, err := NewMean(x, 0); return err }, "d = 0, want d ≥ 1"},
		{"shape", func() error { _, err := NewKNN(x, 4, 1, Uniform); return err }, "len(x) = 6 is not a multiple of d = 4"},
		{"stored NaN", func() error { _, err := NewKNN([]float64{0, nan}, 2, 1, Uniform); return err }, "stored row 0, coordinate 1: NaN, want a finite value"},
		{"stored Inf", func() error { _, err := NewImputer([]float64{0, math.Inf(1)}, 2, 1, Uniform); return err }, "stored row 0, coordinate 1: +Inf"},
		{"dst", func() error {
			m, _ := NewKNN(x, 2, 1, Uniform)
			return m.Complete(make([]float64, 2), make([]float64, 4), nil)
		}, "baseline: KNN.Complete: len(dst) = 2, want len(q) = 4"},
		{"q", func() error { m, _ := NewMean(x, 2); return m.Complete(make([]float64, 3), make([]float64, 3), nil) }, "len(q) = 3 is not a multiple of D = 2"},
		{"mask", func() error {
			m, _ := NewKernel(x, 2, 1)
			return m.Complete(make([]float64, 2), make([]float64, 2), []bool{true})
		}, "len(visible) = 1, want len(q) = 2"},
		{"visible NaN", func() error {
			m, _ := NewImputer(x, 2, 1, Uniform)
			return m.Complete(make([]float64, 4), []float64{0, 0, 1, nan}, []bool{true, true, true, true})
		}, "query 1, coordinate 1: NaN at a visible coordinate"},
		{"query Inf", func() error {
			m, _ := NewKNN(x, 2, 1, Uniform)
			return m.Complete(make([]float64, 2), []float64{math.Inf(-1), nan}, nil)
		}, "query 0, coordinate 0: -Inf at a visible coordinate"},
	} {
		err := c.err()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// refDenoise is the reference of Denoise: the distances over every
// coordinate of x (brute force), and every coordinate replaced by the
// rows' weighted mean, with weights from wts(d2).
func refDenoise(stored []float64, d int, x []float64, wts func(d2 []float64) []float64) []float64 {
	n := len(stored) / d
	d2 := make([]float64, n)
	for r := range n {
		d2[r] = refDist2(x, stored[r*d:(r+1)*d], nil)
	}
	w := wts(d2)
	out := make([]float64, d)
	for i := range d {
		var s, sw float64
		for r := range n {
			s += w[r] * stored[r*d+i]
			sw += w[r]
		}
		out[i] = s / sw
	}
	return out
}

// TestDenoise checks KNN.Denoise and Kernel.Denoise against brute-force
// references written independently of refKNN's weights: the k nearest by a
// stable sort (ties to the lower row), uniform or 1/d weights with the
// exact-match rule, and the softmax at β. 1e-12: the same sums in another
// order (the code sums in four lanes).
func TestDenoise(t *testing.T) {
	const d = 9
	for _, gen := range []func(uint64, int, int, int) ([]float64, []float64, []float64, []bool){tieData, realData} {
		x, q, _, _ := gen(11, 150, d, 40)
		check := func(name string, den func(dst, q []float64) error, wts func(d2 []float64) []float64) {
			t.Helper()
			dst := make([]float64, len(q))
			if err := den(dst, q); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for i := range len(q) / d {
				want := refDenoise(x, d, q[i*d:(i+1)*d], wts)
				for j := range d {
					if !near(dst[i*d+j], want[j], 1e-12) {
						t.Fatalf("%s: query %d coordinate %d = %.17g, want %.17g", name, i, j, dst[i*d+j], want[j])
					}
				}
			}
		}
		for _, k := range []int{1, 5} {
			for _, w := range []Weighting{Uniform, Distance} {
				m, err := NewKNN(x, d, k, w)
				if err != nil {
					t.Fatal(err)
				}
				check("knn k="+strconv.Itoa(k)+" "+w.String(), m.Denoise, func(d2 []float64) []float64 {
					order := make([]int, len(d2))
					for r := range order {
						order[r] = r
					}
					sort.SliceStable(order, func(a, b int) bool { return d2[order[a]] < d2[order[b]] })
					wt := make([]float64, len(d2))
					exact := d2[order[0]] == 0
					for _, r := range order[:k] {
						switch {
						case w == Uniform:
							wt[r] = 1
						case exact && d2[r] == 0:
							wt[r] = 1
						case !exact:
							wt[r] = 1 / math.Sqrt(d2[r])
						}
					}
					return wt
				})
			}
		}
		for _, beta := range []float64{0.5, 50} {
			m, err := NewKernel(x, d, beta)
			if err != nil {
				t.Fatal(err)
			}
			check("kernel", m.Denoise, func(d2 []float64) []float64 {
				lo := slices.Min(d2)
				wt := make([]float64, len(d2))
				for r, v := range d2 {
					wt[r] = math.Exp(-beta / 2 * (v - lo))
				}
				return wt
			})
		}
	}
	// Errors: NaN, dst = q, wrong length.
	x, q, _, _ := realData(1, 20, d, 3)
	m, _ := NewKNN(x, d, 1, Uniform)
	bad := slices.Clone(q)
	bad[4] = math.NaN()
	for name, err := range map[string]error{
		"nan":    m.Denoise(make([]float64, len(q)), bad),
		"alias":  m.Denoise(q, q),
		"length": m.Denoise(make([]float64, 1), q),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
