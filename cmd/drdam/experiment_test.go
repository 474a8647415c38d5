package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/drdam/drdam/experiment"
)

// TestExperimentProjections runs the command on a tiny grid and checks its
// files: every point in points.csv (3 samples × 2 Y × 3 query sets, with
// the control sample), and the table's ratios recomputed from them.
func TestExperimentProjections(t *testing.T) {
	out := t.TempDir()
	stdout := mustRun(t, "experiment", "projections", "--k", "12", "--d", "16", "--beta", "5",
		"--y", "64,512", "--projections", "gaussian,structured", "--seeds", "2", "--out", out)
	if !strings.Contains(stdout, "## Rows above 1.2× the gaussian errors") || !strings.Contains(stdout, "gaussian (control), D = 16") {
		t.Errorf("stdout lacks the summary:\n%s", stdout)
	}
	recs := readCSV(t, filepath.Join(out, "points.csv"))
	if len(recs) != 1+3*2*3 {
		t.Fatalf("%d rows in points.csv, want 1 + 18", len(recs))
	}
	if h := strings.Join(recs[0], ","); h != "D,beta,Y,projection,queries,energy_mae,energy_se,grad_mae,grad_se,energy_median,grad_median,seeds,count" {
		t.Errorf("header %q", h)
	}
	labels := map[string]int{}
	type point struct {
		y        int
		arm, set string
		energy   float64
	}
	var pts []point
	for _, r := range recs[1:] {
		labels[r[3]]++
		if r[11] != "2" || r[12] != "24" {
			t.Errorf("row %v: seeds %s, count %s; want 2 and 24", r, r[11], r[12])
		}
		num := func(i int) float64 {
			v, err := strconv.ParseFloat(r[i], 64)
			if err != nil || !(v >= 0) {
				t.Fatalf("row %v: column %d: %q", r, i, r[i])
			}
			return v
		}
		for i := 5; i <= 10; i++ {
			num(i)
		}
		y, _ := strconv.Atoi(r[2])
		pts = append(pts, point{y: y, arm: r[3], set: r[4], energy: num(5)})
	}
	if labels["gaussian"] != 6 || labels["structured"] != 6 || labels[experiment.ControlProjection] != 6 {
		t.Errorf("samples %v, want 6 rows each", labels)
	}
	// The table's first ratio, recomputed from the CSV (which rounds to 6
	// digits, so the two-decimal ratio can differ by one unit at most).
	table, err := os.ReadFile(filepath.Join(out, "table.md"))
	if err != nil {
		t.Fatal(err)
	}
	var ref, st point
	for _, p := range pts {
		if p.y == 512 && p.set == "far" {
			switch p.arm {
			case "structured":
				st = p
			case "gaussian":
				ref = p
			}
		}
	}
	want := math.Round(100*st.energy/ref.energy) / 100
	row := ""
	for line := range strings.Lines(string(table)) {
		if strings.HasPrefix(line, "| 16 | 5 | 512 | far |") {
			row = line
		}
	}
	cells := strings.Split(row, "|")
	if len(cells) < 8 {
		t.Fatalf("no row for Y=512 far in table.md:\n%s", table)
	}
	got, err := strconv.ParseFloat(strings.Fields(cells[7])[0], 64)
	if err != nil || math.Abs(got-want) > 0.011 {
		t.Errorf("structured/gaussian energy ratio %q, want %.2f", cells[7], want)
	}
}

// TestExperimentErrors: bad flags of the experiment give usage errors
// (status 2) that name the flag.
func TestExperimentErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"experiment"}, "missing experiment name"},
		{[]string{"experiment", "nope"}, `unknown experiment "nope"`},
		{[]string{"experiment", "projections", "--seeds", "0"}, `--seeds "0": out of range`},
		{[]string{"experiment", "projections", "--k", "0"}, `--k "0": out of range`},
		{[]string{"experiment", "projections", "--y", "1e3,-5"}, `--y "1e3,-5": element 2, "-5"`},
		{[]string{"experiment", "projections", "--beta", "nan"}, `--beta "nan": want a number > 0`},
		{[]string{"experiment", "projections", "--projections", "gaussian,fft"}, `unknown projection "fft"`},
		{[]string{"experiment", "projections", "--projections", "sorf,structured"}, "structured is listed twice"},
		{[]string{"experiment", "projections", "--projections", "structured,gaussian"}, "--control: compares iid samples: list gaussian first in --projections"},
		{[]string{"experiment", "projections", "--flip", "2"}, `--flip "2": want a number from 0 to 1`},
		{[]string{"experiment", "projections", "--basis", "tanh"}, "--basis"},
	} {
		st, _, errOut := drdam(t, c.args...)
		if st != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("drdam %s: status %d, stderr %q; want 2 and %q", strings.Join(c.args, " "), st, errOut, c.want)
		}
	}
}

// TestExperimentCPUProfile: --cpuprofile writes a profile that pprof
// reads (runtime/pprof's gzipped protobuf: it starts with the gzip magic).
func TestExperimentCPUProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.prof")
	mustRun(t, "experiment", "retrieval-error", "--d", "30", "--y", "2000", "--beta", "10", "--k", "20", "--queries", "5",
		"--steps", "20", "--seeds", "1", "--projection", "structured", "--out", filepath.Join(dir, "run"), "--cpuprofile", prof)
	b, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("%s: %d bytes, not a gzipped profile", prof, len(b))
	}
}
