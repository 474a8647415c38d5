package client_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/drdam/drdam/client"
	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/serve"
	"github.com/drdam/drdam/serve/api"
)

// TestComplete: Complete of rows with NaN entries (one with nothing
// visible) returns the library's dam.Complete on a model built offline
// from the same patterns (the visible entries bit for bit, the rest within
// 1e-12 relative, the same steps and outcomes); ±Inf fails before it is
// sent, a row of the wrong length is the server's 400 on rows.
func TestComplete(t *testing.T) {
	ctx := context.Background()
	c := client.New(startServer(t, serve.Options{}))
	if _, _, err := c.Create(ctx, "letters", cfg); err != nil {
		t.Fatal(err)
	}
	xi := patterns(12, 3)
	if _, err := c.Add(ctx, "letters", rows(xi)); err != nil {
		t.Fatal(err)
	}
	m := ref(t)
	if err := m.Add(xi); err != nil {
		t.Fatal(err)
	}
	const b = 3
	x := append([]float64(nil), xi[:b*d]...)
	for j := range x {
		if j < d || j%3 == 0 { // row 1: nothing visible
			x[j] = math.NaN()
		}
	}
	fill := make([]float64, d)
	for i := range fill {
		fill[i] = 0.1
	}
	got, err := c.Complete(ctx, "letters", api.CompleteRequest{Rows: api.MissingRows(rows(x)), Fill: fill, MaxSteps: 100, Tol: api.Float(1e-10)})
	if err != nil {
		t.Fatal(err)
	}
	want, err := dam.Complete(m, x, dam.CompleteOptions{RecallOptions: dam.RecallOptions{Step: 0.1, MaxSteps: 100, Tol: 1e-10}, Fill: fill})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.X) != b || relDiff(flat(got.X), want.X) > 1e-12 {
		t.Fatalf("Complete: %v, the library's %v", got.X, want.X)
	}
	for j, v := range flat(got.X) {
		if !math.IsNaN(x[j]) && math.Float64bits(v) != math.Float64bits(x[j]) {
			t.Errorf("row %d, column %d: visible %v came back %v", j/d+1, j%d+1, x[j], v)
		}
	}
	for q := range b {
		if got.Steps[q] != want.Steps[q] || got.Outcome[q] != want.Outcome[q].String() {
			t.Errorf("row %d: %d steps, %s; the library's %d, %v", q+1, got.Steps[q], got.Outcome[q], want.Steps[q], want.Outcome[q])
		}
	}

	inf := append([]float64(nil), x[d:2*d]...)
	inf[2] = math.Inf(-1)
	if _, err := c.Complete(ctx, "letters", api.CompleteRequest{Rows: api.MissingRows{inf}}); err == nil || !strings.Contains(err.Error(), "row 1, column 3") {
		t.Errorf("Complete of -Inf: %v, want an encoding error naming row 1, column 3", err)
	}
	_, err = c.Complete(ctx, "letters", api.CompleteRequest{Rows: api.MissingRows{{0.1, math.NaN()}}})
	wantError(t, "Complete of a short row", err, 400, "rows", "Complete")
}

// TestMissingRows: api.MissingRows writes NaN as null and reads it back
// as NaN, every other value exactly (the shortest digits that read back);
// one row without outer brackets is one row; a value neither a number nor
// null is an error naming its row and column.
func TestMissingRows(t *testing.T) {
	in := api.MissingRows{{0.1, math.NaN(), -3e-9, 1e22}, {math.NaN(), 0, math.Pi, -0.5}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `[[0.1,null,-3e-09,1e+22],[null,0,3.141592653589793,-0.5]]`; string(b) != want {
		t.Errorf("written %s, want %s", b, want)
	}
	var out api.MissingRows
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	for i, r := range in {
		for j, v := range r {
			if math.Float64bits(v) != math.Float64bits(out[i][j]) && !(math.IsNaN(v) && math.IsNaN(out[i][j])) {
				t.Errorf("row %d, column %d: %v read back as %v", i+1, j+1, v, out[i][j])
			}
		}
	}
	if err := json.Unmarshal([]byte(`[1, null, 2]`), &out); err != nil || len(out) != 1 || len(out[0]) != 3 || !math.IsNaN(out[0][1]) {
		t.Errorf("one row: %v, %v", out, err)
	}
	for body, says := range map[string]string{
		`[[1, 2], [3, "x"]]`: `row 2, column 2: want a number, or null for a missing entry, found "x"`,
		`[[false]]`:          "row 1, column 1",
		`[[1, 2], [3]]`:      "row 2 has 1 values, want D = 2",
		`{"rows": 1}`:        "want [[…], …]",
	} {
		if err := json.Unmarshal([]byte(body), &out); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: %v, want an error saying %q", body, err, says)
		}
	}
}
