package main

import (
	"strings"
	"testing"
)

// TestDefaultReasons: where a command's default of β, Y, precision, seed
// or step differs from encode's (β 10, Y 20000, float64, seed 0) or
// recall's (step 0.1, tol 1e-6), its --help says why (the table in
// docs/reliability-edges.md lists them all).
func TestDefaultReasons(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string // the flag whose help must give the reason
		want string
	}{
		{[]string{"demo"}, "--beta", "at 30 MrDAM retrieves every pattern"},
		{[]string{"demo"}, "--seed", "unlike encode's 0: the README's table"},
		{[]string{"demo"}, "--tol", "tighter than recall's 1e-6"},
		{[]string{"compute"}, "--beta", "numpy_dam.py's default"},
		{[]string{"compute"}, "--alpha", "numpy_dam.py's default"},
		{[]string{"bench"}, "--dtype", "torch's default"},
		{[]string{"bench"}, "--seed", "bench.py uses 0"},
		{[]string{"complete"}, "--beta", "the paper's figures use 60"},
		{[]string{"complete"}, "--y", "Fig. 1 uses 1.8·10⁵"},
		{[]string{"complete"}, "--precision", "unlike encode's float64"},
		{[]string{"experiment", "retrieval-error"}, "--step", "the paper's code: 0.03"},
		{[]string{"experiment", "energy-error"}, "--precision", "not float32 rounding"},
		{[]string{"experiment", "projections"}, "--precision", "not rounding"},
	} {
		out := mustRun(t, append(c.args, "--help")...)
		i := strings.Index(out, "\n  "+c.flag+" ")
		if i < 0 {
			t.Errorf("%s --help has no %s", strings.Join(c.args, " "), c.flag)
			continue
		}
		entry := out[i+1:]
		if j := strings.Index(entry[3:], "\n  --"); j >= 0 {
			entry = entry[:j+3]
		}
		if !strings.Contains(entry, c.want) {
			t.Errorf("%s --help, %s: %q does not say %q", strings.Join(c.args, " "), c.flag, strings.TrimSpace(entry), c.want)
		}
	}
}
