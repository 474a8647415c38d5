package main

import (
	"bytes"
	"github.com/drdam/drdam/paper"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/npy"
)

// drdam runs one command line in-process and returns its exit status and
// outputs.
func drdam(t *testing.T, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	status = run(&env{stdout: &o, stderr: &e}, args)
	return status, o.String(), e.String()
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	st, out, errOut := drdam(t, args...)
	if st != 0 {
		t.Fatalf("drdam %s: status %d: %s", strings.Join(args, " "), st, errOut)
	}
	return out
}

// TestComputeOracle runs `drdam compute` on the two input directories made
// by the peers' `dam_io.py gen` (testdata/oracle/README.md has the
// commands) and compares every output with what `numpy_dam.py compute`
// wrote for them, by the rule of `dam_io.py compare --tol 1e-9`: for each
// file, ‖drdam − numpy‖/‖numpy‖ ≤ 1e-9 over the whole array, same shape,
// all finite. Both are float64 computations of the same formulas in a
// different order, so they agree to about 1e-14 (measured: at most 1.3e-13,
// on an energy trace); 1e-9 is the bound the peers' README sets for a
// float64 implementation.
func TestComputeOracle(t *testing.T) {
	for _, c := range []string{"binary_near", "gray_occluded"} {
		in := filepath.Join("testdata", "oracle", c)
		out := t.TempDir()
		mustRun(t, "compute", "--in", in, "--out", out)
		ref := filepath.Join(in, "numpy")
		ents, err := os.ReadDir(ref)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, ent := range ents {
			if !strings.HasSuffix(ent.Name(), ".npy") {
				continue
			}
			n++
			want, err := npy.ReadFile(filepath.Join(ref, ent.Name()))
			if err != nil {
				t.Fatal(err)
			}
			got, err := npy.ReadFile(filepath.Join(out, ent.Name()))
			if err != nil {
				t.Fatalf("%s: %v", c, err)
			}
			if !equalInts(got.Shape, want.Shape) {
				t.Errorf("%s/%s: shape %v, numpy %v", c, ent.Name(), got.Shape, want.Shape)
				continue
			}
			var num, den float64
			for i := range want.Data {
				if math.IsNaN(got.Data[i]) || math.IsInf(got.Data[i], 0) {
					t.Fatalf("%s/%s: entry %d is %v", c, ent.Name(), i, got.Data[i])
				}
				num += (got.Data[i] - want.Data[i]) * (got.Data[i] - want.Data[i])
				den += want.Data[i] * want.Data[i]
			}
			if rel := math.Sqrt(num / den); rel > 1e-9 {
				t.Errorf("%s/%s: relative error %.3g > 1e-9", c, ent.Name(), rel)
			}
		}
		if n != 29 {
			t.Errorf("%s: compared %d files, want 29 (mr_* and dr_<4 kernels>_*)", c, n)
		}
		if _, err := os.Stat(filepath.Join(out, "summary.json")); err != nil {
			t.Error(err)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestHelp: every command explains each of its flags under --help and
// exits 0.
func TestHelp(t *testing.T) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		st, out, _ := drdam(t, n, "--help")
		if st != 0 || !strings.HasPrefix(out, "Usage: drdam "+n) {
			t.Errorf("%s --help: status %d, output %q", n, st, out)
		}
		fs := strings.Count(out, "\n  --")
		if n != "version" && n != "experiment" && fs == 0 {
			t.Errorf("%s --help lists no flags", n)
		}
	}
	// experiment lists the experiments, each of which has its own flags.
	if st, out, _ := drdam(t, "experiment", "--help"); st != 0 || !strings.Contains(out, "projections") {
		t.Errorf("experiment --help: status %d, %q", st, out)
	}
	for _, xp := range paper.All() {
		x := xp.Info().Name
		st, out, _ := drdam(t, "experiment", x, "--help")
		if st != 0 || strings.Count(out, "\n  --") == 0 {
			t.Errorf("experiment %s --help: status %d, %q", x, st, out)
		}
	}
	if st, out, _ := drdam(t, "help"); st != 0 || !strings.Contains(out, "recall") {
		t.Errorf("help: status %d, %q", st, out)
	}
}

// writeCSV writes rows of numbers (or raw text) to dir/name.
func writeCSV(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readVec(t *testing.T, path string) []float64 {
	t.Helper()
	v, err := dataio.ReadVector(path)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestWorkflow goes through the commands as a user would: encode, energy,
// add, remove (back to the same energies), recall with a mask, merge, info.
func TestWorkflow(t *testing.T) {
	dir := t.TempDir()
	pat := writeCSV(t, dir, "p.csv", "x1,x2,x3,x4\n0,0.5,0,0.5\n0.5,0,0.5,0\n0.5,0.5,0,0\n")
	extra := writeCSV(t, dir, "e.csv", "0,0,0.5,0.5\n")
	qs := writeCSV(t, dir, "q.csv", "0.1,0.4,0,0.4\n0.4,0.1,0.4,0.1\n")
	mask := writeCSV(t, dir, "mask.csv", "1,0,0,0\n")
	for _, rep := range []string{"drdam", "mrdam"} {
		m := filepath.Join(dir, rep+".model")
		args := []string{"encode", "--patterns", pat, "--out", m, "--rep", rep, "--beta", "20"}
		if rep == "drdam" {
			args = append(args, "--y", "3000", "--seed", "4")
		}
		mustRun(t, args...)
		e1 := filepath.Join(dir, "e1.npy")
		mustRun(t, "energy", "--model", m, "--queries", qs, "--out", e1, "--grad", filepath.Join(dir, "g.csv"))
		mustRun(t, "add", "--model", m, "--patterns", extra)
		if out := mustRun(t, "info", "--model", m); !strings.Contains(out, "patterns K      4") {
			t.Errorf("%s info after add: %s", rep, out)
		}
		mustRun(t, "remove", "--model", m, "--patterns", extra)
		e2 := filepath.Join(dir, "e2.csv")
		mustRun(t, "energy", "--model", m, "--queries", qs, "--out", e2)
		a, b := readVec(t, e1), readVec(t, e2)
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-12 {
				t.Errorf("%s: energy %d after add+remove %v, before %v", rep, i, b[i], a[i])
			}
		}
		fin := filepath.Join(dir, "final.csv")
		out := mustRun(t, "recall", "--model", m, "--queries", qs, "--mask", mask, "--out", fin,
			"--steps", filepath.Join(dir, "steps.csv"), "--trace", filepath.Join(dir, "trace.npy"))
		if !strings.Contains(out, "recalled 2 queries") {
			t.Errorf("%s recall: %q", rep, out)
		}
		x, _ := dataio.ReadMatrix(fin)
		if x.Data[0] != 0.1 || x.Data[4] != 0.4 {
			t.Errorf("%s: clamped coordinate changed: %v", rep, x.Data)
		}
		tr, err := dataio.ReadMatrix(filepath.Join(dir, "trace.npy"))
		if err != nil || tr.Rows != 2 {
			t.Errorf("%s: trace %v %v", rep, tr, err)
		}
		m2 := filepath.Join(dir, "m2")
		mustRun(t, "merge", "--model", m, "--with", m, "--out", m2)
		if out := mustRun(t, "info", "--model", m2); !strings.Contains(out, "patterns K      6") {
			t.Errorf("%s merged info: %s", rep, out)
		}
	}
}

// TestBadInput: each mistake gives a one-line error that names the file
// or field, a non-zero status, and no panic or stack trace.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	good := writeCSV(t, dir, "good.csv", "0,0.5,0\n0.5,0,0.5\n")
	model := filepath.Join(dir, "m.drdam")
	mustRun(t, "encode", "--patterns", good, "--out", model, "--y", "50")
	other := filepath.Join(dir, "other.drdam")
	mustRun(t, "encode", "--patterns", good, "--out", other, "--y", "50", "--seed", "9")
	nan := writeCSV(t, dir, "nan.csv", "0,0.5,0\n0.5,nan,0.5\n")
	inf := writeCSV(t, dir, "inf.csv", "0,0.5,inf\n")
	wide := writeCSV(t, dir, "wide.csv", "0,0.5,0,1\n")
	empty := writeCSV(t, dir, "empty.csv", "")
	headerOnly := writeCSV(t, dir, "header.csv", "a,b,c\n")
	ragged := writeCSV(t, dir, "ragged.csv", "0,1,2\n3,4\n")
	badMask := writeCSV(t, dir, "mask.csv", "1,0\n")
	trunc := filepath.Join(dir, "trunc.drdam")
	b, _ := os.ReadFile(model)
	os.WriteFile(trunc, b[:len(b)-9], 0o644)
	out := filepath.Join(dir, "out.csv")
	for _, c := range []struct {
		args   []string
		status int
		want   []string
	}{
		{[]string{"encode", "--patterns", nan, "--out", out}, 1, []string{"nan.csv", "row 2, column 2", "NaN"}},
		{[]string{"energy", "--model", model, "--queries", inf}, 1, []string{"inf.csv", "row 1, column 3", "Inf"}},
		{[]string{"energy", "--model", model, "--queries", wide}, 1, []string{"wide.csv", "4 columns", "D = 3"}},
		{[]string{"encode", "--patterns", good, "--out", out, "--beta", "0"}, 1, []string{"β must be positive", "found 0"}},
		{[]string{"encode", "--patterns", good, "--out", out, "--beta", "-2"}, 1, []string{"β must be positive"}},
		{[]string{"encode", "--patterns", good, "--out", out, "--y", "0"}, 1, []string{"Y must be positive", "found 0"}},
		{[]string{"encode", "--patterns", good, "--out", out, "--projection", "orthogonal", "--on-demand"}, 1, []string{"--on-demand", "orthogonal", "structured"}},
		{[]string{"encode", "--patterns", empty, "--out", out}, 1, []string{"empty.csv", "no data"}},
		{[]string{"encode", "--patterns", headerOnly, "--out", out}, 1, []string{"header.csv", "no data"}},
		{[]string{"encode", "--patterns", ragged, "--out", out}, 1, []string{"ragged.csv", "line 2"}},
		{[]string{"recall", "--model", model, "--queries", good, "--mask", badMask, "--out", out}, 1, []string{"mask.csv", "3"}},
		{[]string{"merge", "--model", model, "--with", other, "--out", out}, 1, []string{"different configurations"}},
		{[]string{"energy", "--model", trunc, "--queries", good}, 1, []string{"trunc.drdam", "truncated"}},
		{[]string{"energy", "--model", good, "--queries", good}, 1, []string{"good.csv", "not a drdam model file"}},
		{[]string{"energy", "--model", filepath.Join(dir, "missing"), "--queries", good}, 1, []string{"missing", "no such file"}},
		{[]string{"encode", "--patterns", good, "--out", filepath.Join(dir, "nodir", "m")}, 1, []string{"nodir"}},
		{[]string{"encode", "--patterns", good}, 2, []string{"missing --out"}},
		{[]string{"encode", "--patterns", good, "--out", out, "--basis", "sine"}, 2, []string{"--basis", "sine"}},
		{[]string{"encode", "--bogus"}, 2, []string{"bogus"}},
		{[]string{"recall", "--model", model, "--queries", good, "--out", out, "--step", "0"}, 2, []string{`--step "0": want a number > 0`}},
		{[]string{"recall", "--model", model, "--queries", good, "--out", out, "--box", "1"}, 2, []string{"--box"}},
		{[]string{"frobnicate"}, 2, []string{"unknown command"}},
	} {
		st, _, errOut := drdam(t, c.args...)
		if st != c.status {
			t.Errorf("drdam %s: status %d, want %d (%s)", strings.Join(c.args, " "), st, c.status, errOut)
		}
		if strings.Count(strings.TrimSpace(errOut), "\n") > 0 || strings.Contains(errOut, "goroutine") || strings.Contains(errOut, "panic") {
			t.Errorf("drdam %s: error is not one line: %q", strings.Join(c.args, " "), errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("drdam %s: error %q does not contain %q", strings.Join(c.args, " "), errOut, w)
			}
		}
	}
}

// TestDemo runs a small demo and checks that the table has a row per Y and
// that DrDAM's errors shrink as Y grows.
func TestDemo(t *testing.T) {
	out := mustRun(t, "demo", "--d", "32", "--k", "10", "--queries", "5", "--y", "500,20000", "--max-steps", "300")
	if !strings.Contains(out, "MrDAM") || !strings.Contains(out, "20000") {
		t.Fatalf("demo output:\n%s", out)
	}
	var maes []float64
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 7 && (f[0] == "500" || f[0] == "20000") {
			var v float64
			if _, err := fmtSscan(f[3], &v); err != nil {
				t.Fatal(err)
			}
			maes = append(maes, v)
		}
	}
	if len(maes) != 2 || maes[1] >= maes[0] {
		t.Errorf("gradient MAE by Y = %v, want two values, decreasing\n%s", maes, out)
	}
}

// TestRecallPerQueryMask: recall --mask takes a B×D matrix, a mask per
// query: each query keeps its own clamped coordinates bit for bit and
// moves the others.
func TestRecallPerQueryMask(t *testing.T) {
	dir := t.TempDir()
	pat := writeCSV(t, dir, "p.csv", "0,0.5,0,0.5\n0.5,0,0.5,0\n0.5,0.5,0,0\n")
	qs := writeCSV(t, dir, "q.csv", "0.1,0.4,0,0.4\n0.4,0.1,0.4,0.1\n")
	mask := writeCSV(t, dir, "mask.csv", "1,0,0,0\n0,0,1,1\n")
	m := filepath.Join(dir, "m.model")
	mustRun(t, "encode", "--patterns", pat, "--out", m, "--rep", "mrdam", "--beta", "20")
	fin := filepath.Join(dir, "final.csv")
	mustRun(t, "recall", "--model", m, "--queries", qs, "--mask", mask, "--out", fin)
	x, err := dataio.ReadMatrix(fin)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := dataio.ReadMatrix(qs)
	for i, clamped := range []bool{true, false, false, false, false, false, true, true} {
		if moved := x.Data[i] != q.Data[i]; moved == clamped {
			t.Errorf("query %d coordinate %d: %v from %v (clamped %v)", i/4+1, i%4+1, x.Data[i], q.Data[i], clamped)
		}
	}
	bad := writeCSV(t, dir, "bad.csv", "1,0,0,0\n0,0,1,1\n1,1,1,1\n")
	if st, _, errOut := drdam(t, "recall", "--model", m, "--queries", qs, "--mask", bad, "--out", fin); st == 0 || !strings.Contains(errOut, "B×D = 2×4 (a row per query), found 3×4") {
		t.Errorf("a 3-row mask for 2 queries: status %d, %s", st, errOut)
	}
}
