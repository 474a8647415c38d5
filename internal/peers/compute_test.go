package peers

import (
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
