package paper

import (
	"context"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tinyCompletion returns the parameters of a small completion comparison
// on the embedded Letter data: K = 150, two corruptions, two seeds, and a
// sweep over K, a few seconds.
func tinyCompletion(t *testing.T) *Params {
	t.Helper()
	p := completion.Params("quick")
	for name, v := range map[string]string{"sets": "letter", "k": "150", "queries": "8", "validation": "6", "seeds": "2",
		"corruptions": "random,gaussian", "y": "128", "dense-y": "64", "betas": "16,256", "dam-betas": "16,256",
		"sweep-data": "letter", "sweep-k": "40,150"} {
		if err := p.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// TestCompletionRun runs the comparison end to end and checks what it
// writes: a row per method, cell and seed in results.csv with the
// validated β recorded, the table, the three figures, and findings.md
// with every claim judged in one of the verdicts.
func TestCompletionRun(t *testing.T) {
	dir := t.TempDir()
	r, err := completion.Run(context.Background(), tinyCompletion(t), dir, Observer{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	cells := map[string]int{}
	for _, rec := range recs[1:] {
		cells[rec[col["corruption"]]+"/"+rec[col["queries"]]+"/"+rec[col["k"]]]++
		if m := rec[col["method"]]; (m == "kernel" || strings.HasPrefix(m, "MrDAM") || strings.HasPrefix(m, "DrDAM")) && rec[col["beta"]] != "16" && rec[col["beta"]] != "256" {
			t.Errorf("%s: β %s, want one of --dam-betas", m, rec[col["beta"]])
		}
	}
	// Per seed: a mask has 14 methods (all but "as is"), a noise 10 (not
	// the means, KNNImputer, nor MrDAM from the means, the kernel readout
	// or the 5-NN mean); the sweep's bottom half is measured at both of its K (the
	// main cells at K = 150 have no bottom half here).
	for cell, n := range map[string]int{"random/held-out/150": 28, "gaussian/stored/150": 20, "bottom/held-out/40": 28, "bottom/stored/150": 28} {
		if cells[cell] != n {
			t.Errorf("cell %s: %d rows, want %d", cell, cells[cell], n)
		}
	}
	for _, name := range []string{"table.md", "findings.md", "rmse-vs-bytes-heldout.png", "rmse-vs-bytes-stored.png", "rmse-vs-k.png"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	if len(r.Findings) != 8 {
		t.Errorf("%d findings, want W1–W3 and C1–C5", len(r.Findings))
	}
	for _, fd := range r.Findings {
		switch fd.Verdict {
		case Holds, DoesNotHold, Inconclusive, NotMeasured:
		default:
			t.Errorf("%s: verdict %q", fd.Name, fd.Verdict)
		}
	}
	text, _ := os.ReadFile(filepath.Join(dir, "findings.md"))
	for _, want := range []string{"## W3:", "## C5:", "beats every baseline"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("findings.md lacks %q", want)
		}
	}
}

// TestCompletionErrors checks that a data set that does not exist is an
// error naming the parameter, and that a missing MNIST folder leaves the
// data set out with a note instead of failing.
func TestCompletionErrors(t *testing.T) {
	p := tinyCompletion(t)
	if err := p.Set("sets", "letter,nope"); err != nil {
		t.Fatal(err)
	}
	_, err := completion.Run(context.Background(), p, t.TempDir(), Observer{})
	var pe *ParamError
	if !errors.As(err, &pe) || pe.Name != "sets" {
		t.Errorf("unknown data set: err = %v, want a *ParamError for sets", err)
	}
	p = tinyCompletion(t)
	if err := p.Set("methods", "1nn,nope"); err != nil {
		t.Fatal(err)
	}
	if _, err := completion.Run(context.Background(), p, t.TempDir(), Observer{}); !errors.As(err, &pe) || pe.Name != "methods" {
		t.Errorf("unknown method: err = %v, want a *ParamError for methods", err)
	}
	// Too many queries for the data set's rows: an error naming the
	// parameter, not a panic; every data set left out: an error with the
	// notes, not an empty report.
	p = tinyCompletion(t)
	if err := p.Set("queries", "20000"); err != nil {
		t.Fatal(err)
	}
	if _, err := completion.Run(context.Background(), p, t.TempDir(), Observer{}); !errors.As(err, &pe) || pe.Name != "queries" {
		t.Errorf("20000 queries of Letter's 20000 rows: err = %v, want a *ParamError for queries", err)
	}
	p = tinyCompletion(t)
	for name, v := range map[string]string{"sets": "mnist", "sweep-data": ""} {
		if err := p.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := completion.Run(context.Background(), p, t.TempDir(), Observer{}); err == nil || !strings.Contains(err.Error(), "nothing measured") || !strings.Contains(err.Error(), "--mnist") {
		t.Errorf("no data set: err = %v, want nothing measured, with the note on --mnist", err)
	}
	c, note, err := loadMissingData(&missingSpec{}, "mnist")
	if c != nil || err != nil || !strings.Contains(note, "--mnist") {
		t.Errorf("no MNIST folder: %v, %q, %v; want a note naming --mnist", c, note, err)
	}
}

// TestBeatsAll checks the rule of "beats every baseline" on made-up
// rows: clearly better in every seed holds; better in the mean but with
// overlapping intervals is inconclusive; worse than one baseline does not
// hold.
func TestBeatsAll(t *testing.T) {
	rows := func(dam, base [3]float64) []missingRow {
		var out []missingRow
		for s := range 3 {
			for m, v := range map[string]float64{"MrDAM": dam[s], "kernel": base[s], "1-NN": 1} {
				r := missingRow{Data: "x", Corruption: "gaussian", Set: "held-out", K: 10, Seed: uint64(s)}
				r.Method, r.RMSE = m, v
				out = append(out, r)
			}
		}
		return out
	}
	for _, c := range []struct {
		name      string
		dam, base [3]float64
		want      string
	}{
		{"clear", [3]float64{0.10, 0.11, 0.10}, [3]float64{0.20, 0.21, 0.20}, Holds},
		{"overlap", [3]float64{0.10, 0.16, 0.10}, [3]float64{0.11, 0.17, 0.11}, Inconclusive},
		{"worse", [3]float64{0.30, 0.31, 0.30}, [3]float64{0.20, 0.21, 0.20}, DoesNotHold},
	} {
		ix := newMissingIndex(rows(c.dam, c.base), 10)
		if f := ix.beatsAll("W", "MrDAM", "x", "gaussian", "held-out"); f.Verdict != c.want {
			t.Errorf("%s: %s, want %s: %v", c.name, f.Verdict, c.want, f.Details)
		}
	}
}

// TestCompletionRedraw checks that --redraw reads results.csv back into
// the same table (the rows round trip through the CSV) and that a
// damaged results.csv is an error naming the file and row.
func TestCompletionRedraw(t *testing.T) {
	dir := t.TempDir()
	p := tinyCompletion(t)
	if _, err := completion.Run(context.Background(), p, dir, Observer{}); err != nil {
		t.Fatal(err)
	}
	table, _ := os.ReadFile(filepath.Join(dir, "table.md"))
	if err := os.Remove(filepath.Join(dir, "table.md")); err != nil {
		t.Fatal(err)
	}
	if err := p.Set("redraw", "true"); err != nil {
		t.Fatal(err)
	}
	if _, err := completion.Run(context.Background(), p, dir, Observer{}); err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(filepath.Join(dir, "table.md"))
	if err != nil || string(again) != string(table) {
		t.Errorf("the table drawn again differs (%v):\n%s\nwant\n%s", err, again, table)
	}
	path := filepath.Join(dir, "results.csv")
	b, _ := os.ReadFile(path)
	lines := strings.Split(string(b), "\n")
	lines[3] = strings.Replace(lines[3], ",", ",x", 4)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := completion.Run(context.Background(), p, dir, Observer{}); err == nil || !strings.Contains(err.Error(), "row 4") {
		t.Errorf("damaged results.csv: err = %v, want one naming row 4", err)
	}
}

// TestCompletionMethods checks that --methods measures those methods
// alone (the 5-NN start under masks only).
func TestCompletionMethods(t *testing.T) {
	dir := t.TempDir()
	p := tinyCompletion(t)
	for name, v := range map[string]string{"methods": "1nn,mrdam-knn", "sweep-k": "150"} {
		if err := p.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := completion.Run(context.Background(), p, dir, Observer{}); err != nil {
		t.Fatal(err)
	}
	rows, err := readMissingCSV(filepath.Join(dir, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, r := range rows {
		got[r.Corruption+"/"+r.Method]++
	}
	// Two seeds × two query sets per corruption.
	want := map[string]int{"random/1-NN": 4, "random/MrDAM, 5-NN start": 4, "gaussian/1-NN": 4, "bottom/1-NN": 4, "bottom/MrDAM, 5-NN start": 4}
	if len(got) != len(want) {
		t.Errorf("measured %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %d rows, want %d", k, got[k], n)
		}
	}
}
