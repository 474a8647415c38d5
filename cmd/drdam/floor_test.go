package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestClipFloor: drdam energy warns about the queries at a DrDAM's clip
// floor, naming their rows (from 1) and what the printed value is, and
// drdam recall counts them apart as stalled, writes their outcome, and
// warns too; an MrDAM never does. The floor is made certain as in package
// dam's TestOutcomes: with ε = 0.5, the query (10, 10, 10), whose
// φ(x)·T estimates about e^−1400 (β/2·‖x − ξ‖² ≥ 5·280) with a noise of deviation about
// 1/√(2Y) ≈ 0.03 at Y = 500, lies far under it, and so does (−20, 30,
// −20); the near queries
// (one a stored pattern, one at squared distance 0.01 of another) have
// φ(x)·T ≈ 1 and 0.95, above it by more than ten deviations.
func TestClipFloor(t *testing.T) {
	dir := t.TempDir()
	pat := writeCSV(t, dir, "p.csv", "0,0.5,0\n0.5,0,0.5\n")
	qs := writeCSV(t, dir, "q.csv", "0,0.5,0\n10,10,10\n0.5,0,0.4\n-20,30,-20\n")
	dr := filepath.Join(dir, "dr.model")
	mustRun(t, "encode", "--patterns", pat, "--out", dr, "--y", "500", "--beta", "10", "--eps", "0.5")

	st, out, errOut := drdam(t, "energy", "--model", dr, "--queries", qs)
	if st != 0 {
		t.Fatalf("energy: status %d: %s", st, errOut)
	}
	lines := strings.Fields(out)
	// −log(0.5)/10, printed with every digit.
	if len(lines) != 4 || lines[1] != "0.06931471805599453" || lines[3] != lines[1] {
		t.Errorf("energy printed %q, want the floor −log(ε)/β on rows 2 and 4", lines)
	}
	for _, w := range []string{"warning", "2 of 4 queries", "rows 2, 4 of " + qs, "clip floor", "ε = 0.5", "−log(ε)/β = 0.0693147", "not an energy"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("energy's warning %q does not say %q", errOut, w)
		}
	}

	outcome := filepath.Join(dir, "outcome.csv")
	st, out, errOut = drdam(t, "recall", "--model", dr, "--queries", qs, "--out", filepath.Join(dir, "f.csv"), "--outcome", outcome)
	if st != 0 {
		t.Fatalf("recall: status %d: %s", st, errOut)
	}
	if !strings.Contains(out, "recalled 4 queries: 2 converged (|ΔE| < 1e-06), 0 stopped at --max-steps 1000, 2 stalled at the clip floor") {
		t.Errorf("recall summary %q", out)
	}
	for _, w := range []string{"warning", "2 of 4 queries stalled", "rows 2, 4 of " + qs} {
		if !strings.Contains(errOut, w) {
			t.Errorf("recall's warning %q does not say %q", errOut, w)
		}
	}
	if got := readVec(t, outcome); !slices.Equal(got, []float64{1, 3, 1, 3}) {
		t.Errorf("outcomes %v, want 1 3 1 3 (converged, stalled, converged, stalled)", got)
	}

	near := writeCSV(t, dir, "near.csv", "0,0.5,0\n10,10,10\n")
	mr := filepath.Join(dir, "mr.model")
	mustRun(t, "encode", "--patterns", pat, "--out", mr, "--rep", "mrdam", "--beta", "10")
	for _, args := range [][]string{
		{"energy", "--model", mr, "--queries", near},
		{"recall", "--model", mr, "--queries", near, "--out", filepath.Join(dir, "f.csv"), "--max-steps", "5"},
	} {
		st, out, errOut := drdam(t, args...)
		if st != 0 || errOut != "" || (args[0] == "recall" && !strings.Contains(out, "0 stalled")) {
			t.Errorf("mrdam %s: status %d, stdout %q, stderr %q", args[0], st, out, errOut)
		}
	}
}

// TestDemoStalled: demo counts the DrDAM descents that stalled at the clip
// floor. A query with 6 of its 64 bits flipped is at ‖x − ξ‖² = 6/64 from
// its pattern: its kernel value exp(−β/2‖x − ξ‖²) is 0.06 at β = 60 and
// 0.24 at β = 30, and the estimate's noise is about √(K/2Y): 0.35 at
// Y = 200, where a negative draw puts a query under ε (11 of 20 stall at
// β = 60 with seed 1), and 0.05 at Y = 10⁴, where at β = 30 the kernel
// value is 4.8 deviations above the floor and none stalls.
func TestDemoStalled(t *testing.T) {
	out := mustRun(t, "demo", "--beta", "60", "--y", "200")
	if !strings.Contains(out, "Stalled at DrDAM's clip floor") || !strings.Contains(out, "of 20 queries at Y = 200") {
		t.Errorf("demo at β = 60 does not count its stalled queries:\n%s", out)
	}
	if out := mustRun(t, "demo", "--y", "10000"); strings.Contains(out, "Stalled") {
		t.Errorf("demo at β = 30, Y = 10⁴ reports stalled queries:\n%s", out)
	}
}
