package main

import (
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/paper"
)

// TestPaperEnergyErrorResume runs energy-error on a tiny grid, checks its
// files, and checks that a rerun skips what is done, that a new Y only
// adds its points, and that a run with another seed into the same
// directory is refused.
func TestPaperEnergyErrorResume(t *testing.T) {
	out := t.TempDir()
	args := []string{"experiment", "energy-error", "--d", "16", "--k", "10", "--beta", "5,10", "--y", "100,200", "--seeds", "2", "--out", out}
	stdout := mustRun(t, args...)
	if !strings.Contains(stdout, "Obs. 1:") || !strings.Contains(stdout, "fig3-energy") {
		t.Errorf("stdout lacks the findings or the figures:\n%s", stdout)
	}
	rows, err := experiment.ReadRows(filepath.Join(out, "points.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// Per seed, β and Y: 4 query sets × 2 metrics, C₁ and 3 bounds.
	if want := 2 * 2 * 2 * 12; len(rows) != want {
		t.Fatalf("%d rows, want %d", len(rows), want)
	}
	if s := experiment.Seeds(rows); len(s) != 2 || s[0] != 0 || s[1] != experiment.SeedStride {
		t.Errorf("seeds of the rows %v, want 0 and %d", s, experiment.SeedStride)
	}
	for _, n := range []string{"fig3-energy.png", "fig3-energy.svg", "fig3-gradient.png", "fig3-gradient.svg", "findings.md", "config.json"} {
		if fi, err := os.Stat(filepath.Join(out, n)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", n, err)
		}
	}
	f, err := os.Open(filepath.Join(out, "fig3-energy.png"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(f); err != nil {
		t.Errorf("fig3-energy.png: %v", err)
	}
	f.Close()
	var spec paper.Spec
	b, _ := os.ReadFile(filepath.Join(out, "config.json"))
	if err := json.Unmarshal(b, &spec); err != nil || spec.Experiment != "energy-error" || spec.Version == "" || spec.Elapsed == "" || len(spec.Y) != 2 {
		t.Errorf("config.json: %v %+v", err, spec)
	}

	// A rerun measures nothing new, and keeps the first run's start and
	// run time.
	st, _, errOut := drdam(t, args...)
	if st != 0 || !strings.Contains(errOut, "0 tasks to run, 8 configurations done already") {
		t.Errorf("rerun: status %d, stderr %q", st, errOut)
	}
	var again paper.Spec
	b, _ = os.ReadFile(filepath.Join(out, "config.json"))
	if err := json.Unmarshal(b, &again); err != nil || again.Started != spec.Started {
		t.Errorf("rerun: started %q, want the first run's %q (%v)", again.Started, spec.Started, err)
	}
	// A new Y adds its configurations only, and the old rows are kept bit
	// for bit.
	args2 := append(args[:len(args)-6:len(args)-6], "--y", "100,200,400", "--seeds", "2", "--out", out)
	st, _, errOut = drdam(t, args2...)
	if st != 0 || !strings.Contains(errOut, "2 tasks to run, 8 configurations done already") {
		t.Errorf("extended rerun: status %d, stderr %q", st, errOut)
	}
	rows2, err := experiment.ReadRows(filepath.Join(out, "points.csv"))
	if err != nil || len(rows2) != 2*3*2*12 {
		t.Fatalf("extended run: %d rows (%v), want %d", len(rows2), err, 2*3*2*12)
	}
	for i := range rows {
		if rows2[i] != rows[i] {
			t.Fatalf("row %d changed in the extended run: %+v → %+v", i, rows[i], rows2[i])
		}
	}
	// A third seed adds a replicate, and the rows of the first two stay.
	st, _, errOut = drdam(t, append(args2[:len(args2)-4:len(args2)-4], "--seeds", "3", "--out", out)...)
	if st != 0 || !strings.Contains(errOut, "3 tasks to run, 12 configurations done already") {
		t.Errorf("third seed: status %d, stderr %q", st, errOut)
	}
	rows4, err := experiment.ReadRows(filepath.Join(out, "points.csv"))
	if err != nil || len(rows4) != 3*3*2*12 || len(experiment.Seeds(rows4)) != 3 {
		t.Fatalf("third seed: %d rows (%v), want %d over 3 seeds", len(rows4), err, 3*3*2*12)
	}
	// Fewer seeds than the directory holds measure nothing and keep all:
	// config.json counts the three replicates its points hold.
	st, _, errOut = drdam(t, append(args2[:len(args2)-4:len(args2)-4], "--seeds", "1", "--out", out)...)
	var fewer paper.Spec
	b, _ = os.ReadFile(filepath.Join(out, "config.json"))
	if err := json.Unmarshal(b, &fewer); st != 0 || err != nil || !strings.Contains(errOut, "0 tasks to run, 18 configurations done already") || fewer.Seeds != 3 {
		t.Errorf("--seeds 1 over 3: status %d, stderr %q, config seeds %d (%v), want 3", st, errOut, fewer.Seeds, err)
	}
	// Another seed into the same directory is refused, and --fresh starts
	// over.
	st, _, errOut = drdam(t, append(slicesClone(args), "--seed", "3")...)
	if st != 1 || !strings.Contains(errOut, "different configuration") {
		t.Errorf("other seed: status %d, stderr %q", st, errOut)
	}
	mustRun(t, append(slicesClone(args), "--seed", "3", "--fresh")...)
	rows3, _ := experiment.ReadRows(filepath.Join(out, "points.csv"))
	if len(rows3) != len(rows) {
		t.Errorf("--fresh: %d rows, want %d", len(rows3), len(rows))
	}
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// TestPaperOtherExperiments runs retrieval-error, error-vs-k and
// basis-ablation (on an ARFF file) on tiny grids and checks their figures,
// and that --config replays a run's configuration.
func TestPaperOtherExperiments(t *testing.T) {
	dir := t.TempDir()
	r := filepath.Join(dir, "r")
	mustRun(t, "experiment", "retrieval-error", "--d", "16", "--k", "8", "--beta", "10", "--y", "200", "--steps", "50", "--out", r)
	k := filepath.Join(dir, "k")
	mustRun(t, "experiment", "error-vs-k", "--d", "16", "--k", "5,10", "--beta", "10", "--y", "200", "--out", k)
	arff := filepath.Join(dir, "tiny.arff")
	var sb strings.Builder
	sb.WriteString("% tiny\n@relation tiny\n@attribute a numeric\n@attribute b numeric\n@attribute c numeric\n@attribute class {x,y}\n@data\n")
	for i := range 30 {
		sb.WriteString(strings.Join([]string{itoa(i % 7), itoa(i % 5), itoa(i % 3)}, ",") + ",x\n")
	}
	if err := os.WriteFile(arff, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(dir, "b")
	mustRun(t, "experiment", "basis-ablation", "--data", arff, "--stored", "10", "--new", "5", "--beta", "1,5", "--y", "100",
		"--projections", "gaussian", "--out", b)
	for _, f := range []string{"r/fig4a-hamming.png", "k/fig5-energy.png", "k/fig5-gradient.svg", "b/fig6-gaussian.png", "b/findings.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	// --config replays the configuration into a new directory.
	r2 := filepath.Join(dir, "r2")
	mustRun(t, "experiment", "retrieval-error", "--config", filepath.Join(r, "config.json"), "--out", r2)
	a, _ := experiment.ReadRows(filepath.Join(r, "points.csv"))
	c, _ := experiment.ReadRows(filepath.Join(r2, "points.csv"))
	if len(a) == 0 || len(a) != len(c) {
		t.Fatalf("replay: %d rows, want %d", len(c), len(a))
	}
	for i := range a {
		if a[i] != c[i] {
			t.Errorf("replayed row %d differs: %+v vs %+v", i, a[i], c[i])
		}
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

// TestPaperErrors checks that bad input gives a clear error and no files.
func TestPaperErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.arff")
	os.WriteFile(bad, []byte("@relation r\n@attribute a numeric\n@data\n1\nx\n"), 0o644)
	for _, c := range []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{"experiment", "energy-error", "--scale", "huge"}, 2, "--scale"},
		{[]string{"experiment", "energy-error", "--d", "0"}, 2, "--d"},
		{[]string{"experiment", "energy-error", "--flip", "2"}, 2, "--flip"},
		{[]string{"experiment", "energy-error", "--projection", "magic"}, 2, "--projection"},
		{[]string{"experiment", "retrieval-error", "--step", "-1"}, 2, "--step"},
		{[]string{"experiment", "basis-ablation", "--bases", "sin"}, 2, "--bases"},
		{[]string{"experiment", "basis-ablation", "--data", bad}, 1, "bad.arff:5"},
		{[]string{"experiment", "basis-ablation", "--stored", "20000"}, 1, "20000 stored"},
		{[]string{"experiment", "energy-error", "--config", filepath.Join(dir, "none.json")}, 1, "none.json"},
		{[]string{"experiment", "energy-error", "--d", "3", "--k", "10"}, 1, "2^3"},
		{[]string{"reproduce", "--only", "fig9"}, 2, "fig9"},
	} {
		out := filepath.Join(dir, "out")
		st, _, errOut := drdam(t, append(c.args, "--out", out)...)
		if st != c.status || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: status %d, stderr %q; want %d and %q", c.args, st, errOut, c.status, c.want)
		}
		if _, err := os.Stat(filepath.Join(out, "points.csv")); err == nil {
			t.Errorf("%v: wrote points.csv", c.args)
		}
	}
}

// TestPaperEstimate checks that --estimate prints the plan once (it was
// printed on stderr and again on stdout) and writes nothing, at the
// paper's scale for the grid experiments (projections has no scale: "-").
func TestPaperEstimate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x")
	for _, x := range paper.All() {
		ps := x.Params("quick")
		if ps.Lookup("estimate") == nil {
			continue // no plan to estimate
		}
		name := x.Info().Name
		args, scale := []string{"experiment", name, "--estimate", "--out", out}, "-"
		if ps.Lookup("scale") != nil {
			args, scale = append(args, "--scale", "paper"), "paper"
		}
		st, stdout, stderr := drdam(t, args...)
		if st != 0 || !strings.HasPrefix(stdout, name+"\t"+scale+"\t") {
			t.Errorf("%s: status %d, stdout %q", name, st, stdout)
		}
		// The summary is printed once: one line on stdout, nothing on stderr.
		if strings.Count(stdout, "\n") != 1 || stderr != "" {
			t.Errorf("%s --estimate: stdout %q, stderr %q; want one line and nothing", name, stdout, stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("--estimate created the output directory")
	}
}
