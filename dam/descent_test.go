package dam

import (
	"math"
	"strings"
	"testing"

	"github.com/drdam/drdam/features"
)

// occlude returns copies of the first b patterns with the coordinates
// i ≥ visible set to 0, and the clamp mask of the visible ones.
func occlude(xi []float64, b, d, visible int) (x []float64, clamp []bool) {
	x = append([]float64(nil), xi[:b*d]...)
	clamp = make([]bool, d)
	for i := range d {
		clamp[i] = i < visible
	}
	for q := range b {
		for i := visible; i < d; i++ {
			x[q*d+i] = 0
		}
	}
	return x, clamp
}

// TestRecallClamped: clamped coordinates are bit-identical after recall, in
// both representations, with a box too.
func TestRecallClamped(t *testing.T) {
	const d, k, b = 30, 8, 5
	xi := grayPatterns(101, k, d)
	x0, clamp := occlude(xi, b, d, 12)
	for _, m := range []Model{
		mustMrDAM(t, Config{D: d, Beta: 20}, xi),
		mustDrDAM(t, Config{D: d, Beta: 20, Y: 2000, Seed: 1}, xi),
		mustDrDAM(t, Config{D: d, Beta: 20, Y: 2000, Seed: 1, Basis: features.ExpExp}, xi),
	} {
		for _, box := range []*Box{nil, {Lo: 0, Hi: 1 / math.Sqrt(d)}} {
			res, err := Recall(m, x0, RecallOptions{Step: 0.1, MaxSteps: 50, Clamp: clamp, Box: box})
			if err != nil {
				t.Fatal(err)
			}
			moved := 0
			for q := range b {
				for i := range d {
					v, v0 := res.X[q*d+i], x0[q*d+i]
					if clamp[i] && math.Float64bits(v) != math.Float64bits(v0) {
						t.Fatalf("%T: query %d clamped coordinate %d changed from %v to %v", m, q, i, v0, v)
					}
					if !clamp[i] && v != v0 {
						moved++
					}
					if box != nil && (v < box.Lo || v > box.Hi) {
						t.Fatalf("%T: query %d coordinate %d = %v outside the box", m, q, i, v)
					}
				}
			}
			if moved == 0 {
				t.Errorf("%T: no free coordinate moved", m)
			}
		}
	}
}

// TestRecallMatchesLoop compares Recall (Tol = 0) with the plain loop of
// the peers' recall (numpy_dam.recall): L steps x ← x − η·g with clamped
// gradient entries zeroed, energies logged before each step. Same
// operations in the same order, so the results are identical.
func TestRecallMatchesLoop(t *testing.T) {
	const d, k, b, l = 16, 6, 4, 12
	xi := grayPatterns(111, k, d)
	x0, clamp := occlude(xi, b, d, 5)
	for _, m := range []Model{
		mustMrDAM(t, Config{D: d, Beta: 15}, xi),
		mustDrDAM(t, Config{D: d, Beta: 15, Y: 500, Basis: features.Cos, Seed: 2}, xi),
	} {
		res, err := Recall(m, x0, RecallOptions{Step: 0.2, MaxSteps: l, Clamp: clamp})
		if err != nil {
			t.Fatal(err)
		}
		x := append([]float64(nil), x0...)
		e, g := make([]float64, b), make([]float64, b*d)
		for step := range l + 1 {
			if err := m.EnergyGrad(e, g, x); err != nil {
				t.Fatal(err)
			}
			for q := range b {
				if tr := res.Energy[q]; len(tr) != l+1 || tr[step] != e[q] {
					t.Fatalf("%T: query %d: trace %v, energy at step %d should be %v", m, q, tr, step, e[q])
				}
			}
			if step == l {
				break
			}
			for i := range x {
				if !clamp[i%d] {
					x[i] -= 0.2 * g[i]
				}
			}
		}
		for q := range b {
			if res.Steps[q] != l || res.Converged[q] {
				t.Errorf("%T: query %d: steps %d converged %v, want %d false", m, q, res.Steps[q], res.Converged[q], l)
			}
		}
		if relDiff(res.X, x) != 0 {
			t.Errorf("%T: Recall's final states differ from the loop's by %.3g", m, relDiff(res.X, x))
		}
	}
}

// TestRecallConverges: with a tolerance the descent stops each query before
// L once |ΔE| < tol, and the stopped state is a fixed point (its gradient is
// small); the trace holds Steps+1 energies ending at E(final).
func TestRecallConverges(t *testing.T) {
	const d, k, b, l = 20, 5, 5, 2000
	xi := binaryPatterns(121, k, d)
	x0 := flip(122, xi, d, 0.1)
	for _, m := range []Model{
		mustMrDAM(t, Config{D: d, Beta: 10}, xi),
		mustDrDAM(t, Config{D: d, Beta: 10, Y: 20000, Seed: 3}, xi),
	} {
		res, err := Recall(m, x0, RecallOptions{Step: 0.1, MaxSteps: l, Tol: 1e-10})
		if err != nil {
			t.Fatal(err)
		}
		ef, gf := energies(t, m, res.X)
		for q := range b {
			tr := res.Energy[q]
			if !res.Converged[q] || res.Steps[q] >= l {
				t.Errorf("%T: query %d did not converge in %d steps", m, q, l)
			}
			if len(tr) != res.Steps[q]+1 || tr[len(tr)-1] != ef[q] {
				t.Errorf("%T: query %d: %d energies for %d steps, last %v vs E(final) %v", m, q, len(tr), res.Steps[q], tr[len(tr)-1], ef[q])
			}
			if n := len(tr); math.Abs(tr[n-1]-tr[n-2]) >= 1e-10 {
				t.Errorf("%T: query %d stopped with |ΔE| = %g", m, q, math.Abs(tr[n-1]-tr[n-2]))
			}
			// Linear convergence at rate ρ: |ΔE| < tol means ‖∇E‖² ≈ tol/η.
			var gn float64
			for _, v := range gf[q*d : (q+1)*d] {
				gn += v * v
			}
			if gn > 1e-7 {
				t.Errorf("%T: query %d stopped where ‖∇E‖² = %g", m, q, gn)
			}
		}
	}
}

// TestMrDAMMonotone: for the L2 energy the Hessian is I − β·Cov_p(ξ), so
// the gradient is (β−1)-Lipschitz when the patterns lie in the unit ball,
// and gradient descent with η < 1/(β−1) never increases the energy. At
// β = 10 and η = 0.05 every recorded step must not increase E beyond
// rounding (1e-15 relative).
func TestMrDAMMonotone(t *testing.T) {
	const d, k, b = 25, 12, 8
	xi := grayPatterns(131, k, d)
	x0 := grayPatterns(132, b, d)
	m := mustMrDAM(t, Config{D: d, Beta: 10}, xi)
	res, err := Recall(m, x0, RecallOptions{Step: 0.05, MaxSteps: 300})
	if err != nil {
		t.Fatal(err)
	}
	for q := range b {
		tr := res.Energy[q]
		for s := 1; s < len(tr); s++ {
			if tr[s] > tr[s-1]+1e-15*math.Abs(tr[s-1]) {
				t.Fatalf("query %d: energy rose from %.17g to %.17g at step %d", q, tr[s-1], tr[s], s)
			}
		}
		if tr[len(tr)-1] >= tr[0] {
			t.Errorf("query %d: energy did not decrease (%v → %v)", q, tr[0], tr[len(tr)-1])
		}
	}
}

// TestPositiveBasesStayFinite: at β = 60 the Exp and ExpExp dynamics run
// to φ(x)·T ≈ e^360, where the float32 PyTorch peer returns NaN; in the log
// domain the energies and states stay finite.
func TestPositiveBasesStayFinite(t *testing.T) {
	const d, k, b = 256, 10, 3
	xi := grayPatterns(141, k, d)
	x0, clamp := occlude(xi, b, d, d/2)
	for _, basis := range []features.Basis{features.Exp, features.ExpExp} {
		m := mustDrDAM(t, Config{D: d, Beta: 60, Y: 2000, Basis: basis, Seed: 5}, xi)
		res, err := Recall(m, x0, RecallOptions{Step: 0.1, MaxSteps: 30, Clamp: clamp})
		if err != nil {
			t.Fatalf("%v: %v", basis, err)
		}
		if i := firstNonFinite(res.X); i >= 0 {
			t.Errorf("%v: final state entry %d = %v", basis, i, res.X[i])
		}
	}
}

// TestRecallPerQueryClamp: a clamp mask with a row per query clamps each
// query by its own row, and gives each query bit for bit what a descent of
// that query alone with its row as the mask gives (the energy and gradient
// of a query do not depend on the others in its batch), for MrDAM and
// DrDAM, with queries that stop at different steps (so the batch is
// compacted and slots no longer hold their first query).
func TestRecallPerQueryClamp(t *testing.T) {
	const d, k, b = 12, 5, 4
	xi, x := grayQueries(451, k, b, d, 0.3)
	clamp := make([]bool, b*d)
	for q := range b {
		for i := range d {
			clamp[q*d+i] = (i+q)%(q+2) == 0 // a different pattern per query
		}
	}
	for _, m := range []Model{
		mustMrDAM(t, Config{D: d, Beta: 8}, xi),
		mustDrDAM(t, Config{D: d, Beta: 8, Y: 4000, Seed: 2}, xi),
	} {
		opt := RecallOptions{Step: 0.2, MaxSteps: 400, Tol: 1e-9, Clamp: clamp}
		res, err := Recall(m, x, opt)
		if err != nil {
			t.Fatal(err)
		}
		steps := map[int]bool{}
		for q := range b {
			steps[res.Steps[q]] = true
			one := opt
			one.Clamp = clamp[q*d : (q+1)*d]
			alone, err := Recall(m, x[q*d:(q+1)*d], one)
			if err != nil {
				t.Fatal(err)
			}
			moved := false
			for i := range d {
				got := res.X[q*d+i]
				if got != alone.X[i] {
					t.Fatalf("%T query %d coordinate %d: %v in the batch, %v alone", m, q, i, got, alone.X[i])
				}
				if clamp[q*d+i] && got != x[q*d+i] {
					t.Errorf("%T query %d: clamped coordinate %d moved from %v to %v", m, q, i, x[q*d+i], got)
				}
				moved = moved || got != x[q*d+i]
			}
			if !moved {
				t.Errorf("%T query %d did not move", m, q)
			}
		}
		if len(steps) < 2 {
			t.Errorf("%T: every query took the same number of steps %v; the test wants the batch compacted", m, steps)
		}
	}
}

func TestRecallErrors(t *testing.T) {
	const d = 4
	m := mustMrDAM(t, Config{D: d, Beta: 2}, grayPatterns(1, 2, d))
	x := grayPatterns(2, 2, d)
	for _, c := range []struct {
		opt  RecallOptions
		x    []float64
		want string
	}{
		{RecallOptions{Step: 0, MaxSteps: 3}, x, "step size"},
		{RecallOptions{Step: 0.1, MaxSteps: -1}, x, "steps must be ≥ 0"},
		{RecallOptions{Step: 0.1, Tol: -1}, x, "tolerance"},
		{RecallOptions{Step: 0.1, Clamp: make([]bool, d+1)}, x, "clamp mask has 5 entries, want D = 4"},
		{RecallOptions{Step: 0.1, Clamp: make([]bool, 3*d)}, x, "clamp mask has 3 rows of D = 4, want 1 (one row for every query) or B = 2"},
		{RecallOptions{Step: 0.1, Box: &Box{Lo: 1, Hi: 0}}, x, "box"},
		{RecallOptions{Step: 0.1}, x[:d+1], "whole number of rows"},
		{RecallOptions{Step: 0.1}, []float64{0, math.NaN(), 0, 0}, "row 1, column 2 is NaN"},
	} {
		if _, err := Recall(m, c.x, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Recall(%+v): err = %v, want %q", c.opt, err, c.want)
		}
	}
}

// TestStepAllocs: after Start, a descent step allocates nothing. The sizes
// keep every matrix dimension below 64, where gonum's GEMM runs on the
// calling goroutine; above that its parallel driver allocates about ten
// small objects per call (goroutines and channels), which the assembly
// kernels planned in issue 3 are to remove.
func TestStepAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	const d, k, b = 16, 8, 4
	xi := grayPatterns(151, k, d)
	for _, m := range []Model{
		mustMrDAM(t, Config{D: d, Beta: 10}, xi),
		mustDrDAM(t, Config{D: d, Beta: 10, Y: 48, Seed: 1}, xi),
		mustDrDAM(t, Config{D: d, Beta: 10, Y: 48, Seed: 1, Basis: features.ExpExp}, xi),
	} {
		ds, err := NewDescent(m, RecallOptions{Step: 0.01, MaxSteps: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		if err := ds.Start(flip(1, xi[:b*d], d, 0.2)); err != nil {
			t.Fatal(err)
		}
		ds.Step()
		if a := testing.AllocsPerRun(50, func() { ds.Step() }); a != 0 {
			t.Errorf("%T: %v allocations per step", m, a)
		}
	}
}
