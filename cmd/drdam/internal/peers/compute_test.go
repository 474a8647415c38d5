package peers

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolvePaths: the input directory supplies the files not given, the
// mask only if it exists, S and b only when a kernel needs them, and a
// missing input is named.
func TestResolvePaths(t *testing.T) {
	dir := t.TempDir()
	p := DefaultParams()
	got, err := ResolvePaths(dir, map[string]string{"queries": "q.csv"}, false, p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"xi": filepath.Join(dir, "Xi.npy"), "queries": "q.csv", "S": filepath.Join(dir, "S.npy"), "b": filepath.Join(dir, "b.npy"), "mask": ""}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	os.WriteFile(filepath.Join(dir, "mask.npy"), nil, 0o644)
	if got, _ := ResolvePaths(dir, nil, false, p); got["mask"] == "" {
		t.Error("the mask of the input directory was not used")
	}
	if got, _ := ResolvePaths(dir, nil, true, p); got["mask"] != "" {
		t.Error("--no-mask kept the mask")
	}
	exp := p
	exp.Kernels = []string{"exp"} // no shift: b is not read
	if got, err := ResolvePaths("", map[string]string{"xi": "x", "queries": "q", "S": "s"}, false, exp); err != nil || got["b"] != "" {
		t.Errorf("exp kernel: b = %q, %v", got["b"], err)
	}
	mr := p
	mr.Kernels = nil // MrDAM only: no projection needed
	if got, err := ResolvePaths("", map[string]string{"xi": "x", "queries": "q", "S": "s"}, false, mr); err != nil || got["S"] != "" {
		t.Errorf("no kernel: S = %q, %v", got["S"], err)
	}
	for _, c := range []struct {
		given map[string]string
		want  string
	}{
		{map[string]string{"queries": "q", "S": "s", "b": "b"}, "missing input xi"},
		{map[string]string{"xi": "x", "queries": "q", "b": "b"}, "missing input S: give --S or --in DIR"},
		{map[string]string{"xi": "x", "queries": "q", "S": "s"}, "missing input b"},
	} {
		if _, err := ResolvePaths("", c.given, false, p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.given, err, c.want)
		}
	}
}

func TestCheckKernels(t *testing.T) {
	p := DefaultParams()
	p.Kernels = []string{"SinCos", "exp"}
	if err := p.CheckKernels(); err != nil {
		t.Error(err)
	}
	p.Kernels = []string{"relu"}
	if err := p.CheckKernels(); err == nil || !strings.Contains(err.Error(), `kernel "relu"`) {
		t.Errorf("relu: %v", err)
	}
}

// TestComputeStalled: a query at DrDAM's clip floor stops early
// (dam.Stalled), and compute still writes the l energies numpy_dam.recall
// would, each the floor −log(ε)/β (ε = 1e-5, the default of sincos): with
// the fixed projection below, the query (3.5, 3.5, 3.5, 3.5) has φ(x)·T under ε
// (the estimate of e^−β/2‖x−ξ‖² ≈ e^−250 at Y = 8 is its noise, here
// not above ε), and it never moves.
func TestComputeStalled(t *testing.T) {
	const d, y, l, beta = 4, 8, 5, 10.0
	in := &Inputs{xi: []float64{0.5, 0, 0.5, 0}, q: []float64{0.5, 0, 0.4, 0, 3.5, 3.5, 3.5, 3.5},
		mask: make([]bool, d), k: 1, d: d, nq: 2, y: y, s: make([]float64, y*d), b: make([]float64, y)}
	for i := range in.s {
		in.s[i] = float64(i%7) - 3 // a fixed projection; its values do not matter here
	}
	out, _, err := compute(io.Discard, in, Params{Beta: beta, Alpha: 0.1, Steps: l, Kernels: []string{"sincos"}}, true)
	if err != nil {
		t.Fatal(err)
	}
	floor := -math.Log(1e-5) / beta
	tr := out["dr_sincos_Etraj"]
	if len(tr.shape) != 2 || tr.shape[0] != l || tr.shape[1] != 2 {
		t.Fatalf("Etraj shape %v, want [%d 2]", tr.shape, l)
	}
	for s := range l {
		if tr.data[s*2+1] != floor {
			t.Errorf("step %d: the stalled query's energy %v, want the floor %v", s, tr.data[s*2+1], floor)
		}
	}
	if e := out["dr_sincos_Efinal"].data[1]; e != floor {
		t.Errorf("final energy %v, want the floor %v", e, floor)
	}
}
