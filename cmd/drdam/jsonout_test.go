package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/drdam/drdam/dam"
)

// TestJSONSummaries: --json on info, energy, recall and complete prints
// one JSON object whose numbers are those of the text output or of the
// library: info's configuration and sizes (the service's form of the
// configuration), energy's energies (the text's, bit for bit) and floored
// rows, recall's and complete's counts of how the descents ended.
func TestJSONSummaries(t *testing.T) {
	dir, model, stored := completeFixture(t)
	const d, k = 10, 4
	decode := func(out string, v any) {
		t.Helper()
		if strings.Count(strings.TrimSpace(out), "\n") != 0 {
			t.Fatalf("not one line: %q", out)
		}
		if err := json.Unmarshal([]byte(out), v); err != nil {
			t.Fatalf("%q: %v", out, err)
		}
	}
	var info infoJSON
	decode(mustRun(t, "info", "--model", model, "--json"), &info)
	st, _ := os.Stat(model)
	cfg := info.Config
	if info.Patterns != k || info.Bytes != st.Size() || info.FormatVersion < 1 || cfg.Rep != "mrdam" || cfg.D != d || cfg.Beta != 400 || cfg.Y != 0 ||
		info.PatternValues != k*d || info.LoadBytes <= 0 || info.TValues != 0 {
		t.Errorf("info --json: %+v", info)
	}

	pat := filepath.Join(dir, "p.csv")
	text := strings.Fields(mustRun(t, "energy", "--model", model, "--queries", pat))
	var en energyJSON
	decode(mustRun(t, "energy", "--model", model, "--queries", pat, "--json"), &en)
	if en.Queries != k || len(en.Energies) != k || len(en.Floored) != 0 {
		t.Fatalf("energy --json: %+v", en)
	}
	for i, v := range en.Energies {
		if w, _ := strconv.ParseFloat(text[i], 64); math.Float64bits(w) != math.Float64bits(v) {
			t.Errorf("energy %d: JSON %v, text %v", i, v, w)
		}
	}

	var rec descentJSON
	decode(mustRun(t, "recall", "--model", model, "--queries", pat, "--out", filepath.Join(dir, "r.csv"), "--max-steps", "2", "--tol", "0", "--json"), &rec)
	if rec.Queries != k || rec.MaxSteps != k || rec.Converged != 0 || rec.StepsMax != 2 || rec.StepsMean != 2 || rec.StepLimit != 2 {
		t.Errorf("recall --json: %+v, want 4 queries stopped at 2 steps", rec)
	}

	var sb strings.Builder
	for r := range k {
		for j := range d {
			if j > 0 {
				sb.WriteString(",")
			}
			if !hidden(r, j) {
				sb.WriteString(strconv.FormatFloat(stored[r*d+j], 'g', -1, 64))
			}
		}
		sb.WriteString("\n")
	}
	q := writeCSV(t, dir, "q.csv", sb.String())
	out := filepath.Join(dir, "c.csv")
	var cj descentJSON
	decode(mustRun(t, "complete", "--model", model, "--queries", q, "--out", out, "--json"), &cj)
	m, err := dam.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, len(stored))
	for i := range x {
		x[i] = stored[i]
		if hidden(i/d, i%d) {
			x[i] = math.NaN()
		}
	}
	want, err := dam.Complete(m, x, dam.CompleteOptions{RecallOptions: dam.RecallOptions{Step: 0.1, MaxSteps: 1000, Tol: 1e-6}})
	if err != nil {
		t.Fatal(err)
	}
	conv, atMax, stalled := want.Count()
	if cj.Queries != k || cj.Converged != int64(conv) || cj.MaxSteps != int64(atMax) || cj.Stalled != int64(stalled) || cj.Out != out || cj.Tol != 1e-6 {
		t.Errorf("complete --json: %+v, want %d converged, %d at the limit, %d stalled", cj, conv, atMax, stalled)
	}
}
