package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratorFlag: encode --generator chooses the generator of a dense
// projection, info prints it, a bad one names the flag, and models of
// different generators refuse to merge.
func TestGeneratorFlag(t *testing.T) {
	dir := t.TempDir()
	pat := writeCSV(t, dir, "p.csv", "0,0.5,0,0.5\n0.5,0,0.5,0\n")
	models := map[string]string{}
	for _, gen := range []string{"1", "2"} {
		m := filepath.Join(dir, "g"+gen+".drdam")
		mustRun(t, "encode", "--patterns", pat, "--out", m, "--y", "100", "--seed", "3", "--generator", gen)
		out := mustRun(t, "info", "--model", m)
		if !strings.Contains(out, "generator       version "+gen+" (") || !strings.Contains(out, "format version 2") {
			t.Errorf("info of a generator-%s model:\n%s", gen, out)
		}
		models[gen] = m
	}
	st, _, errOut := drdam(t, "merge", "--model", models["1"], "--with", models["2"], "--out", filepath.Join(dir, "m"))
	if st == 0 || !strings.Contains(errOut, "different generators (v1 and v2)") {
		t.Errorf("merging generators 1 and 2: status %d, %q", st, errOut)
	}
	st, _, errOut = drdam(t, "encode", "--patterns", pat, "--out", filepath.Join(dir, "bad"), "--generator", "3")
	if st == 0 || !strings.Contains(errOut, "--generator") {
		t.Errorf("encode --generator 3: status %d, %q", st, errOut)
	}
	// A structured model prints no generator: it draws none.
	m := filepath.Join(dir, "sorf.drdam")
	mustRun(t, "encode", "--patterns", pat, "--out", m, "--y", "100", "--projection", "structured")
	if out := mustRun(t, "info", "--model", m); strings.Contains(out, "generator") {
		t.Errorf("info of a structured model:\n%s", out)
	}
}
